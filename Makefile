# blockwarc — build, run, test, benchmark, fuzz.
# Everything a target needs (Go modules, the npm packages used as
# independent oracles) it installs itself.

GO        ?= go
BIN       := bin/blockwarc
NPM_DIR   := testdata/npm
NPM_STAMP := $(NPM_DIR)/node_modules/.installed
FUZZTIME  ?= 30s
BENCHTIME ?= 1x
SAMPLES   := testdata/samples
SAMPLE_PAGE := partition/testdata/pages/mkdocs-index-2024.html
SAMPLE_URL  := http://127.0.0.1:8103/LoveScout24/Privacy%20Policy.html
# staticcheck 2026.2.2, pinned: a new release may add checks that fail
# make test on unchanged code. Installed from the Go module proxy into
# bin/, one directory per version, built with the Go that builds the code
# (so it understands go.mod's Go version).
STATICCHECK_VERSION := v0.8.2
STATICCHECK := bin/staticcheck-$(STATICCHECK_VERSION)/staticcheck
# The packages that run goroutines (worker pools, pipelines, parallel
# compression, the replay server, the CLI's progress and shards), tested
# again under the race detector (-short: about 9 minutes here in all).
RACE_PKGS := ./warcio ./dedupe ./dedupe/pack ./dedupe/chunk ./dedupe/shard ./export/tables ./export/replay ./cmd/blockwarc

.PHONY: all build run test test-all test-corpus vet nocgo lint unit unit-short race faults bench bench-crawls bench-tables-crawls bench-ingest bench-zstd-cpu bench-scale bench-scale-synth bench-scale-sites bench-scale-capture bench-cores bench-rss bench-index bench-serve fuzz npm clean test-beam bench-beam bench-compare

all: build

build:
	@[ -x $(BIN) ] || echo "building $(BIN): the first build downloads the Go modules and compiles Arrow and the zstd library, a few minutes on a fresh machine"
	$(GO) build -o $(BIN) ./cmd/blockwarc

# The main job on the bundled sample dumps.
run: build npm
	@mkdir -p out
	./$(BIN) index -o out/samples.cdxj $(SAMPLES)
	@echo "wrote out/samples.cdxj ($$(wc -l < out/samples.cdxj) records); first lines:"
	@head -n 3 out/samples.cdxj
	./$(BIN) blocks -html out/blocks.html $(SAMPLE_PAGE)
	@echo "wrote out/blocks.html: $(SAMPLE_PAGE) with its blocks outlined"
	rm -rf out/samples.bwa
	@# One walk of the archive writes the tables and the storage report
	@# (the same report as 'blockwarc report -html out/report.html' after it).
	@# Its summary line and the report give the archive's size counted
	@# one way (report.ArchiveBytes: its files, tables/ apart); the
	@# report's input is the files as given, the summary's the records
	@# decompressed.
	./$(BIN) ingest -report out/report.txt -report-html out/report.html out/samples.bwa $(SAMPLES)
	@# What 'verify -originals' needs before it calls an original safe
	@# to delete: the proof that it restores as given, bit for bit.
	./$(BIN) prove out/samples.bwa $(SAMPLES)
	./$(BIN) verify out/samples.bwa
	@cat out/report.txt
	@echo "wrote out/report.html: the storage report as one self-contained page with charts"
	./$(BIN) diff -history out/samples.bwa '$(SAMPLE_URL)' | head -n 12
	./$(BIN) diff -from 20221121 -to 20221213 -html out/diff.html out/samples.bwa '$(SAMPLE_URL)'
	@echo "wrote out/diff.html: what changed on that page between two captures, block by block"
	@# The first sql block of docs/TABLES.md "Example queries" opens the
	@# tables as views; the next three are the examples, run here with the
	@# DuckDB the tests install (make npm), so their results show.
	@q="$$(awk '/^## Example queries/ {on = 1; next} on && /^## / {exit} \
	    on && /^```sql/ {if (++n > 4) exit; sql = 1; print ""; next} sql && /^```/ {sql = 0; next} sql' docs/TABLES.md \
	    | sed 's|site\.bwa/|out/samples.bwa/|g')"; \
	if [ -z "$$q" ]; then echo "(docs/TABLES.md has no example queries yet)"; exit 0; fi; \
	echo; echo "Three example queries of docs/TABLES.md on the tables, run with DuckDB:"; \
	echo "$$q" | node $(NPM_DIR)/duckdb-show.mjs

# Independent readers (warcio.js, yauzl for WACZ packages, DuckDB, Arrow)
# installed from the committed lockfile.
npm: $(NPM_STAMP)
$(NPM_STAMP): $(NPM_DIR)/package.json $(NPM_DIR)/package-lock.json
	cd $(NPM_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

vet:
	$(GO) vet ./...

# A build without cgo (CGO_ENABLED=0: static binaries, hosts without a C
# compiler) has no libdeflate, zstd library or zlib: the pure-Go paths
# must build, and the packages that switch on cgo keep their tests.
nocgo:
	CGO_ENABLED=0 $(GO) build ./...
	CGO_ENABLED=0 $(GO) test -short -count=1 ./internal/... ./dedupe/zlibenc/

# Package-specific exclusions live in staticcheck.conf files next to the
# code they concern.
lint: $(STATICCHECK)
	$(STATICCHECK) ./...

$(STATICCHECK):
	GOBIN=$(CURDIR)/$(dir $@) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

# Tests that render pages in headless Chromium leave their screenshots
# in out/screenshots for people to look at.
unit:
	BLOCKWARC_SCREENSHOTS=$(CURDIR)/out/screenshots $(GO) test -count=1 -timeout 25m ./...

# unit without the checks that read ../shared/corpus (hundreds of
# megabytes ingested again and again: the bulk of unit's time), as
# go test -short leaves them (internal/sharedtest); every other test runs.
# Its go test -json log (out/unit-short.json) names the tests -short
# skipped or cut down; test-corpus runs those, and only those, in full.
unit-short:
	@mkdir -p out
	BLOCKWARC_SCREENSHOTS=$(CURDIR)/out/screenshots bash -o pipefail -c '$(GO) test -short -count=1 -timeout 25m -json ./... | $(GO) run ./internal/testlog summary out/unit-short.json'

test-corpus:
	@[ -s out/unit-short.json ] || $(MAKE) unit-short
	BLOCKWARC_SCREENSHOTS=$(CURDIR)/out/screenshots $(GO) run ./internal/testlog full out/unit-short.json -- $(GO) test -count=1 -timeout 25m

# -short: under the race detector the corpus checks take many minutes
# (warcio alone 94 s instead of 6 s); they ran without it in unit.
race:
	$(GO) test -race -short -count=1 -timeout 25m $(RACE_PKGS)

# make test is the README's test command: vet, staticcheck and every
# test (the checks that read ../shared/corpus skipped or cut down by
# -short), within 20 minutes on a quiet 2-core machine. test-all adds
# the race detector, what -short left out, in full, and the Beam module;
# CI runs both (.ci/run). docs/BENCHMARKS.md "make test" has the figures.
test: vet nocgo lint npm unit-short

test-all: test race test-corpus test-beam

# The fault suite (issue 34): 100 faults, one per trial, on the files of
# an archive with parity (flips, bursts of 4 KiB up to 3 % of the file,
# truncations, deletions): no wrong bytes ever, verify names every loss
# before repair, repair restores all that parity and the copies cover.
# 4.5 to 7 minutes on two cores under a load average of 11 (unit runs 4
# trials of it).
FAULT_TRIALS ?= 100
# TestKillFaults: SIGKILL at random moments of ingest, extend, repair
# (a deleted pack; both commit files lost), compact, tables, prove, a
# sharded ingest and upgrade, one per trial in turn;
# the seed is printed, and a failure replays with KILL_SEED=N.
KILL_TRIALS ?= 27
KILL_SEED ?= 34
faults:
	$(GO) test -count=1 -v -timeout 60m -run '^(TestFaults|TestKillFaults)$$' ./cmd/blockwarc -args -fault-trials $(FAULT_TRIALS) -kill-trials $(KILL_TRIALS) -kill-seed $(KILL_SEED)

# Benchmarks print their figures as ratios against a baseline measured in
# the same run (custom metrics named x-<baseline>). -p 1: one package at a
# time, so that no package's benchmarks share the cores with another's.
bench: npm
	$(GO) test -p 1 -run '^$$' -bench Pipeline -benchtime $(BENCHTIME) -timeout 60m ./...

# An archive grown a crawl at a time against one ingest of the same
# files (SITE, N: the first N crawls of ../shared/corpus/SITE).
SITE ?= ota-tinder
N    ?= 30
bench-crawls: build
	.ci/crawls $(BIN) $(SITE) $(N)

# What the tables cost an archive ingested a crawl at a time: the first
# CRAWLS (default 60) of ota-tinder's crawls, one ingest each, with
# -tables=auto, -tables and -tables=false (docs/BENCHMARKS.md "Tables of
# an archive ingested a crawl at a time"; a few minutes, CRAWLS=120 ten).
bench-tables-crawls:
	$(GO) test -run '^$$' -bench 'TablesCrawls$$' -benchtime 1x -timeout 60m -v ./cmd/blockwarc/

# Ingest throughput of one core: MB of decompressed input per CPU-second
# of the whole process (MB/s-cpu), with gunzip of the same files as the
# baseline (x-gunzip). To compare two commits, build each one's dedupe
# test binary and run them alternately on the same machine.
bench-ingest:
	$(GO) test -run '^$$' -bench 'IngestCPU$$' -benchtime $(BENCHTIME) ./dedupe/

# Ingest CPU against `zstd -19 --long=27 -T1` CPU of the same records on
# every corpus site (x-zstd-cpu-SITE; the default ingest leaves the zlib
# proof that each .warc.gz restores as given to 'blockwarc prove'), with
# the proof (x-zstd-cpu-proof-SITE: ingest -prove), the fast tier
# (x-zstd-cpu-fast-SITE, and in MB of records per CPU-second,
# MB/s-cpu-fast-SITE) and the archive's bytes against zstd's
# (x-zstd-bytes-SITE). Needs the zstd command; about two minutes.
bench-zstd-cpu:
	$(GO) test -run '^$$' -bench 'IngestVsZstd$$' -benchtime 1x -v ./dedupe/

# Issue 36's figure: p50/p99 latency of 1,000 random /web/TSid_/URL
# fetches from the replay server, 8 concurrent clients, while `blockwarc
# ingest` (the built binary) commits another site into the same archive
# every 1 MiB; every answer checked against `blockwarc cat`. Baselines of
# the same run: the same fetches with no ingest (x-idle) and cat's own
# latency (x-cat); also with the ingest under nice 19 (nice-*). Needs
# ../shared; about a minute.
bench-serve:
	$(GO) test -run '^$$' -bench 'ServeDuringIngest$$' -benchtime 1x -timeout 20m ./cmd/blockwarc/

# cmd/blockwarc-beam, the ingest as an Apache Beam pipeline, is a module
# of its own (the Beam SDK and its ~340 modules stay out of blockwarc's).
# Its tests run the pipeline on the Prism runner in-process and compare
# its archive with 'blockwarc ingest -shards N', file for file. Part of
# make test, last: a first build of the Beam SDK alone takes minutes on a
# 2-core machine (about 7 on a loaded one; the tests then 1 minute).
test-beam:
	cd cmd/blockwarc-beam && $(GO) vet ./... && $(GO) test -count=1 -timeout 30m ./...

# The pipeline's CPU time against the CLI's ingest on the same inputs
# (x-cli), in one run.
bench-beam:
	cd cmd/blockwarc-beam && $(GO) test -run '^$$' -bench Pipeline -benchtime $(BENCHTIME) -timeout 60m ./...

# Issue 35's comparison: precision, recall and F1 of partition.MainText,
# go-readability v2, go-trafilatura and the page's whole visible text
# (the floor) on each half of the article-extraction pages (the halves
# of BenchmarkMainContent). cmd/blockwarc-compare is a module of its
# own: the extractors are a comparison, never a requirement of
# blockwarc's go.mod. Its metric tests run first. Needs ../shared; about half a
# minute. SNIPPETS=DIR (trafilatura's tests directory, from a clone of
# github.com/adbar/trafilatura) also scores about a thousand pages of its
# evaluation, none of which any rule here was written from (half a minute
# more).
ARTICLES := $(CURDIR)/../shared/testdata/article-extraction
bench-compare:
	@[ -f $(ARTICLES)/ground-truth.json ] || { echo "bench-compare: $(ARTICLES) not found: set up ../shared next to the repository" >&2; exit 1; }
	cd cmd/blockwarc-compare && $(GO) test -count=1 . && $(GO) run . -dir $(ARTICLES)
	@if [ -n "$(SNIPPETS)" ]; then cd cmd/blockwarc-compare && $(GO) run . -snippets "$(abspath $(SNIPPETS))"; \
	else echo "bench-compare: trafilatura's evaluation not scored (SNIPPETS=DIR names its tests directory)"; fi

# Each fuzz target briefly (FUZZTIME per target).
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$t"; \
	    $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

clean:
	rm -rf bin out

# An archive grown a crawl at a time, every corpus site mixed, at -mem
# 64MiB and 4GiB: bytes, CPU, restore latency, RSS and index sizes after
# every tenth of the input, as ratios (BenchmarkScale in dedupe). Needs
# ../shared and the zstd and xz commands; several minutes.
bench-scale:
	$(GO) test -run '^$$' -bench 'Scale$$' -benchtime 1x -timeout 60m -v ./dedupe/

# bench-scale at the default bounds on a collection large enough for them
# to bite (BenchmarkScaleSynth): dedupe/internal/realcrawl's crawls of
# the corpus's and the article pages (each site in a cipher of its own,
# with edits, moves, mirrors, per-capture tokens and shared images),
# CRAWLS a week apart (24: about 1.6 GB of records), a crawl at a time
# at -mem 64MiB and 4GiB. Needs ../shared and zstd; about 7 minutes.
CRAWLS ?= 24
bench-scale-synth:
	BLOCKWARC_SYNTH_CRAWLS=$(CRAWLS) $(GO) test -run '^$$' -bench 'ScaleSynth$$' -benchtime 1x -timeout 90m -v ./dedupe/

# bench-scale's crawl-at-a-time ingest once per bound on what a capture's
# restore decodes (pack.Settings.CaptureFrames): its bytes against its
# cold restore growth, in one run (BenchmarkScaleCapture; K=0,20,24 and
# SCALED=1 or 0 choose; about two minutes a bound, after one for the
# baseline).
bench-scale-capture:
	BLOCKWARC_CAPTURE_K=$(K) BLOCKWARC_CAPTURE_SCALED=$(SCALED) $(GO) test -run '^$$' -bench 'ScaleCapture$$' -benchtime 1x -timeout 90m -v ./dedupe/

# What a second core gives ingest (issue 33: the 2-core ÷ 1-core ratio
# x-1core, on at least 500 MB): the corpus sites (120 MB of records), then
# with a generated collection beside them (460 MB more), each in a process
# confined to one CPU against one on two. Needs ../shared and two CPUs;
# about ten minutes on a quiet machine.
bench-cores:
	$(GO) test -run '^$$' -bench 'IngestCores' -benchtime 1x -timeout 60m -v ./dedupe/

# index against zcat and warcio.js's cdx-index on the corpus: CPU of one
# core in process (x-zcat, x-warciojs), and the two commands' wall time,
# alternated (x-warciojs-wall; BenchmarkIndexWall). Needs ../shared and
# npm; a minute or two.
bench-index: npm
	$(GO) test -run '^$$' -bench 'BenchmarkIndex' -benchtime 1x -timeout 20m ./cmd/blockwarc/

# Peak RSS of ingest against -mem + 256 MiB (x-limit+256MiB, ≤ 1): the
# corpus at -mem 256MiB, and a generated collection of 460 MB at -mem
# 64MiB. Needs ../shared; about three minutes.
bench-rss:
	$(GO) test -run '^$$' -bench 'IngestRSS$$' -benchtime 1x -timeout 30m -v ./dedupe/

# bench-scale's per-site part alone: each corpus site in one ingest
# against its files recompressed alone, the floor (its sorted records by
# the better of zstd and xz) and zstd of the sorted records, with and
# without parity. About two minutes.
bench-scale-sites:
	$(GO) test -run '^$$' -bench 'ScaleSites$$' -benchtime 1x -timeout 20m -v ./dedupe/
