package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/ingestflags"
	"github.com/blockwarc/blockwarc/dedupe/shard"
	"github.com/blockwarc/blockwarc/export/columnar"
	"github.com/blockwarc/blockwarc/export/report"
	"github.com/blockwarc/blockwarc/warcio"
)

const ingestAbout = `Create or extend the block-level delta archive ARCHIVE (a directory
NAME.bwa) with the records of INPUT files or directories. Every record is
stored so that it restores byte for byte (checked before it is committed).
Each input is recorded under its path below the directory given
(2024-01/crawl.warc.gz), or its base name when given as a file, with
as many folders of its path as tell it apart from the other inputs
(blockwarc ls -files lists the names). A file already ingested (same
base name, size and SHA-256) is skipped. Every record restores byte for
byte and every input file decompressed; that a .warc.gz input also
restores as given, compressed, bit for bit (its gzip members' zlib
settings found by deflating them again, as costly as the rest of ingest)
is proven by 'blockwarc prove ARCHIVE ORIGINALS...' later, when cores are
idle and before the originals are deleted ('blockwarc verify -originals'
says which are safe to delete), or by ingest itself with -prove. -fast
compresses at a fast level (the fast tier), for a third of the CPU of
zstd -19 --long of the same records; 'blockwarc compact' later writes
the dense copy, byte for byte a default ingest. The
archive is committed every -commit bytes of input and at the end: after
Ctrl-C or a crash it stays at its last commit, and running ingest again
with the same inputs resumes after it and completes it, into the same
archive bytes as an uninterrupted ingest; an ingest interrupted or failing
before its first commit leaves no archive behind (killed then, it leaves
the empty archive it began with, which running it again fills). A second ingest of the same archive at the same time is
refused, and so is an existing directory holding other files but no
archive (nothing is written there; an empty directory is fine). An
input file in which no record is found and that does not begin with a
WARC or ARC record (a README given by mistake) refuses the whole ingest
before anything is written, every such file named. The summary line
gives the records' bytes decompressed and the archive's size on disk as
the storage report counts it (tables/ apart). Then the tables
ARCHIVE/tables are rewritten from the whole archive (see 'blockwarc
tables'), at a few ms of CPU a record of the archive: with -tables=auto
(the default) when they are missing, when the archive holds under 500
records, or once it holds a quarter more records than they describe;
else they are left as they were, ingest says so, and verify and report
note it ('blockwarc tables' brings them up to date). So an archive
ingested a crawl at a time pays a constant share for its tables, not a
rewrite of the whole archive at every crawl. -tables rewrites them after
every ingest that adds a file, and ingest then says so when they read ten
times the records it did; -tables=false never. Tables that an
interrupted rewrite left stale are rewritten by the next ingest. -report and
-report-html write the storage report (see 'blockwarc report') from the
same walk of the archive as the tables: the same report as running
'blockwarc report' afterwards, for one walk instead of two.

-shards N makes a new archive a sharded one: N ordinary archives, each for
one range of URL keys (SURT), listed in ARCHIVE/SHARDS (docs/FORMAT.md,
"Shards"). The ranges are chosen once, from the byte sizes of the first
ingest's records (a host is split only when it is large), and kept by
every later ingest. The shards are ingested in parallel, -workers and -mem
divided among them; the archive does not depend on -workers, -mem or the
order of the inputs. Every command reads a sharded archive as one.

What is stored depends on the inputs and the archive's settings alone,
never on -mem, -workers or the machine: -chunk-table, -chain,
-digest-min and -capture-frames are recorded when the archive is created and used by every
later ingest (given to an existing archive, they replace its settings
from then on; docs/FORMAT.md "Settings"). An object of -digest-min bytes
or more (a payload, a block, a layout) that the archive holds already,
under any URL and from any earlier ingest, is found through the digest
tables of the archive's indexes (a row per family of near-duplicates):
stored once when a row names it, as its edits when it is a later version
of one. -chain trades bytes for restore work: the small frames of an
ingest of one crawl compress against the frames before them, and a
restore decodes the chain its frame ends (up to 4 MiB by default); with
-chain off each frame is compressed, and decoded, alone. -capture-frames
trades bytes for restore work too: a capture whose objects lie in frames
of many earlier crawls has some of them stored again, so that its restore
decodes at most N frames' worth (off by default).`

// ingestArchive is the ingest runIngest runs (tests watch the options it
// is given).
var ingestArchive = shard.Ingest

func runIngest(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("ingest", "ARCHIVE INPUT...", ingestAbout, stderr)
	level := fs.Int("level", 0, "partition `LEVEL` for URLs without history: 0 the adaptive partition (blocks of single regions, as blocks, diff and the tables show them), N the fixed level N (1: the coarsest blocks, an archive 0.3-8 % smaller on the corpus); a URL keeps the level of its history")
	shards := fs.Int("shards", 0, "`N` shards (key ranges ingested in parallel) for a new archive; an existing archive keeps its shards (0: as the archive has, 1 for a new one)")
	workers := fs.Int("workers", runtime.NumCPU(), "`N` URLs modelled and frames compressed in parallel (the archive is the same for any N)")
	memFlag := fs.String("mem", ingestflags.DefaultMem, "`SIZE` of memory for sorting records, records in flight and caches of decoded frames (a sixteenth each, at least 32MiB), e.g. 512MiB (the process also needs about 256MiB for compression, and the archive's tables about 100MiB at the default -chunk-table); it changes how fast, never what is stored")
	commitFlag := fs.String("commit", ingestflags.DefaultCommit, "commit after every `SIZE` of input records (about 25 s of one core's work to redo after a crash; a commit holds up the pipeline while its last frame compresses, and chunks other URLs share older than the archive's last 32 MiB of chunks are found again after it only through the digest tables)")
	chunkTable := fs.Int("chunk-table", 0, "archive setting: `N` entries in the table of chunk hashes a commit keeps (0: the archive's, 1048576 for a new one; about 100 bytes of memory an entry); more finds more near-duplicates far apart")
	chain := fs.String("chain", "", "archive setting: a frame of chunks is compressed with up to `SIZE` of the frames before it (a chain) as its dictionary, and a restore decodes up to SIZE of them (\"\": the archive's, 4MiB for a new one; 64KiB to 16MiB; off: none, every frame alone, a restore decodes no chain: on the corpus ingested a crawl at a time, 1.8 times the bytes, 1.1 MB decoded at p99 instead of 16.2; docs/FORMAT.md \"Chains of frames of chunks\")")
	digestMin := fs.String("digest-min", "", "archive setting: objects of at least `SIZE` are looked up in the digest tables (a row per family of near-duplicates) and found at any distance (\"\": the archive's, 8KiB for a new one; off: none)")
	captureFrames := fs.String("capture-frames", "", "archive setting: a capture's restore decodes at most `N` frames of chunks' worth of bytes, its objects together; a capture that would decode more has the chunks it needs least stored again (\"\": the archive's, off for a new one; off: none; on the corpus a crawl at a time with 16 KiB frames, 20: decoded p99 growth 1.06 instead of 1.68 for 2.9 % more bytes)")
	policyFlag := fs.String("policy", ingestflags.DefaultPolicy, "`POLICY` for malformed input: skip, warn or fail")
	tempDir := fs.String("tmp", "", "`DIR` for temporary sort runs")
	asJSON := fs.Bool("json", false, "print a one-line JSON summary on standard output")
	showProgress := fs.Bool("progress", false, "draw the progress bar on standard error even when it is not a terminal (it is drawn on a terminal anyway)")
	withParity := fs.Bool("parity", true, "write Reed-Solomon parity for what each commit adds (about 3.3 % of a large archive, more of a small one; corrects a burst of 1/32 of any pack or index, up to 1 MiB, or any two damaged sectors, see 'blockwarc repair')")
	var withTables tablesFlag
	fs.Var(&withTables, "tables", "when to rewrite ARCHIVE/tables (Parquet, see 'blockwarc tables') after the ingest, from the whole archive, at a few ms of CPU a record: -tables=auto (the default) when they are missing, when the archive holds under 500 records, or once it has grown by a quarter since they were written (a constant cost per GB ingested, the tables at most a fifth behind; verify and report say so); -tables (=true) after every ingest that adds a file (a cost that grows with the archive); -tables=false never")
	fast := fs.Bool("fast", false, "write frames at a fast zstd level (6; pure Go's \"better\" without cgo) rather than 19: 45-66 % less CPU on the corpus sites for an archive 7-14 % larger; 'blockwarc compact' writes the dense copy later")
	nice := fs.Int("nice", defaultNice, niceUsage)
	prove := fs.Bool("prove", false, "also learn, for each .warc.gz input, the zlib settings that make it restore as given, bit for bit (25-160 % more CPU on the corpus sites); by default 'blockwarc prove ARCHIVE ORIGINALS...' does that later, before the originals are deleted")
	var ropts reportOptions
	fs.StringVar(&ropts.text, "report", "", "also write the storage report (as 'blockwarc report' prints it) to `FILE` after the ingest; - for standard output, after the summary")
	fs.StringVar(&ropts.html, "report-html", "", "also write the storage report as a self-contained HTML page to `FILE` after the ingest")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() < 2 {
		fmt.Fprintln(stderr, "blockwarc ingest: want ARCHIVE and at least one INPUT")
		fs.Usage()
		return exitUsage
	}
	if ropts.html != "" && isDir(ropts.html) {
		fmt.Fprintf(stderr, "blockwarc ingest: -report-html %s is a directory; want a file name\n", ropts.html)
		return exitUsage
	}
	if *shards < 0 {
		fmt.Fprintln(stderr, "blockwarc ingest: -shards must be 0 or more")
		return exitUsage
	}
	if !setNice("ingest", *nice, stderr) {
		return exitUsage
	}
	// The flags blockwarc-beam shares make the options through one owner.
	shared, err := ingestflags.Flags{Level: *level, Commit: *commitFlag, Mem: *memFlag, Policy: *policyFlag,
		Parity: *withParity, TempDir: *tempDir, Workers: *workers, Fast: *fast, SkipProof: !*prove}.Parse()
	if err != nil {
		fmt.Fprintf(stderr, "blockwarc ingest: %v\n", err)
		return exitUsage
	}
	opts := shared.Options()
	if *chunkTable < 0 {
		fmt.Fprintln(stderr, "blockwarc ingest: -chunk-table must be 0 or more")
		return exitUsage
	}
	opts.Pack.ChunkTable = *chunkTable
	if opts.Pack.ChainBytes, err = ingestflags.ParseChain(*chain); err != nil {
		fmt.Fprintf(stderr, "blockwarc ingest: %v\n", err)
		return exitUsage
	}
	switch *digestMin {
	case "":
	case "off":
		opts.Pack.DigestMin = -1
	default:
		n, err := ingestflags.ParseSize(*digestMin)
		if err != nil || n <= 0 || n > 1<<30 {
			fmt.Fprintf(stderr, "blockwarc ingest: bad -digest-min %q: want a size such as 8KiB, or off\n", *digestMin)
			return exitUsage
		}
		opts.Pack.DigestMin = int(n)
	}
	switch *captureFrames {
	case "":
	case "off":
		opts.Pack.CaptureFrames = -1
	default:
		n, err := strconv.Atoi(*captureFrames)
		if err != nil || n <= 0 || n > 1<<16 {
			fmt.Fprintf(stderr, "blockwarc ingest: bad -capture-frames %q: want a number of frames such as 20, or off\n", *captureFrames)
			return exitUsage
		}
		opts.Pack.CaptureFrames = n
	}
	// The soft limit makes the collector hold the whole process near the
	// budget instead of letting garbage double the heap (dedupe.Budget).
	nShards := max(*shards, 1)
	if m, err := shard.ReadManifest(fs.Arg(0)); err == nil {
		nShards = len(m.Shards) // an existing archive keeps its shards
	}
	_, releaseHeap := ingestflags.HoldHeap(shared.MemLimit, *workers, nShards)
	defer releaseHeap()
	inputs := fs.Args()[1:]
	var bar *stepBar
	if w := progressTo(stderr, *showProgress); w != nil {
		bar = newStepBar(w, 2, "reading")
	}
	var fin struct {
		mu   sync.Mutex
		step string
		done bool
	}
	if opts.Reader.Policy == warcio.PolicyWarn {
		opts.Reader.OnError = func(err error) {
			if bar != nil {
				bar.Clear()
			}
			fmt.Fprintf(stderr, "blockwarc ingest: warning: %v\n", err)
		}
	}
	if bar != nil {
		// Two steps, half the bar each: reading and sorting the inputs
		// (their stored bytes), then storing them (the decompressed bytes
		// ReadDone gives). The bar never moves back: it once restarted at
		// 0 for storing (58 % to 26 %) and sat at 79 % while ingest
		// finished, its total counting files ingest does not read.
		readTotal := inputSize(inputs)
		var storeTotal atomic.Int64
		opts.InputProgress = func(n int64) { bar.Set(0, n, readTotal) }
		opts.ReadDone = func(n int64) {
			storeTotal.Store(max(n, 1))
			bar.Set(1, 0, 1)
			bar.Describe("storing")
		}
		opts.Progress = func(st dedupe.Stats) {
			bar.Set(1, st.InputBytes, storeTotal.Load())
			bar.Describe(fmt.Sprintf("storing: %d records, %d new objects", st.Records, st.NewObjects))
		}
		// After the last record: what ingest still does, said, rather
		// than a bar that sits near its end. The bar draws at most every
		// 100 ms and nothing else moves it now, so a step is said again
		// once that has passed.
		opts.Finishing = func(step string) {
			// Every record is stored: the bar waits one unit short of its
			// end (at its end it would clear, taking the step's words with
			// it) while the step is said; Finish fills it.
			bar.Set(1, stepUnits-1, stepUnits)
			fin.mu.Lock()
			fin.step = step
			fin.mu.Unlock()
			bar.Describe("finishing: " + step)
			time.AfterFunc(150*time.Millisecond, func() {
				fin.mu.Lock()
				defer fin.mu.Unlock()
				if !fin.done && fin.step == step {
					bar.Describe("finishing: " + step)
				}
			})
		}
	}
	began := time.Now()
	// created: this run makes the archive (the directory is missing or
	// empty), so a run that commits nothing leaves nothing behind.
	fi, statErr := os.Stat(fs.Arg(0))
	existed, created := statErr == nil, os.IsNotExist(statErr)
	if existed && !fi.IsDir() {
		fmt.Fprintf(stderr, "blockwarc ingest: archive %s: not a directory\n", fs.Arg(0))
		return exitFailure
	}
	if existed {
		if dirs, _, err := shard.Dirs(fs.Arg(0)); err == nil {
			for _, d := range dirs {
				for _, n := range removeLeftovers(d) {
					fmt.Fprintf(stderr, "blockwarc ingest: removed %s, the temporary directory of a repair that was killed\n", filepath.Join(d, n))
				}
			}
		}
		ents, err := os.ReadDir(fs.Arg(0))
		created = err == nil && len(ents) == 0
	}
	res, err := ingestArchive(ctx, fs.Arg(0), inputs, *shards, opts)
	st := res.Stats
	if bar != nil {
		fin.mu.Lock()
		fin.done = true // no step said again over the finished bar
		fin.mu.Unlock()
		bar.Finish()
	}
	if res.Note != "" {
		fmt.Fprintf(stderr, "blockwarc ingest: %s\n", res.Note)
	}
	if st.Recovered != "" {
		fmt.Fprintf(stderr, "blockwarc ingest: warning: %s\n", st.Recovered)
	}
	if st.HistoryUnread > 0 {
		fmt.Fprintf(stderr, "blockwarc ingest: %d URL(s) whose earlier captures were lost (see 'blockwarc verify'; 'blockwarc repair ARCHIVE ORIGINALS...' restores them from the original files): their new captures are stored complete without them\n", st.HistoryUnread)
	}
	removed := err != nil && created && st.Commits == 0
	if removed {
		// Nothing was committed to the archive this run created: leave no
		// empty archive behind to be mistaken for a result (a directory
		// the user made empty stays, empty).
		removeCreated(fs.Arg(0), existed)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) && removed {
			fmt.Fprintf(stderr, "blockwarc ingest: interrupted before the first commit, so %s was not kept: run the same command again to start over\n", fs.Arg(0))
			return exitFailure
		}
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "blockwarc ingest: interrupted; %s is at its last commit (%d this run): run the same command again to resume\n", fs.Arg(0), st.Commits)
			return exitFailure
		}
		// A *pack.LockedError already says another ingest holds the archive.
		archiveError(stderr, "ingest", fs.Arg(0), err)
		return exitFailure
	}
	var rep *report.Report
	wantReport := ropts.text != "" || ropts.html != ""
	if tablesDue(fs.Arg(0), withTables.mode, st.Files, stderr) {
		// The archive is committed: a failure here leaves it complete and
		// the previous tables in place.
		topts := tablesOptions{format: columnar.Parquet, workers: *workers, tempDir: *tempDir}
		if wantReport {
			// The report's rows are the tables' rows: one walk feeds both.
			g := report.NewAggregator(report.Options{})
			topts.also = g
			topts.done = func(a *dedupe.Archive) (err error) {
				rep, err = g.Finish(ctx, fs.Arg(0), a)
				return err
			}
		}
		added := int64(-1) // -tables=auto rewrites at a cost in step with what was added
		if withTables.mode == tablesAlways {
			added = st.Records
		}
		if !tablesAfterCommit(ctx, "ingest", fs.Arg(0), topts, added, stderr) {
			return exitFailure
		}
	}
	if *asJSON {
		b, _ := json.Marshal(st)
		fmt.Fprintf(stdout, "%s\n", b)
	}
	if !*asJSON {
		fmt.Fprintln(stdout, ingestSummary(fs.Arg(0), st, time.Since(began)))
	}
	if wantReport {
		ropts.workers, ropts.tmp = *workers, *tempDir
		if rep == nil {
			// No tables walk this run: the report walks on its own.
			rep, err = buildReport(ctx, fs.Arg(0), ropts, stderr)
		}
		if err == nil {
			err = emitReport(rep, ropts, stdout)
		}
		if err != nil {
			fmt.Fprintf(stderr, "blockwarc ingest: archive committed, but the report: %v\n", err)
			return exitFailure
		}
	}
	if st.Malformed > 0 {
		if st.DroppedBytes > 0 {
			fmt.Fprintf(stderr, "blockwarc ingest: %d malformed record(s) or region(s) not read as records; their decompressed bytes are kept, but %d compressed byte(s) of damaged member(s), after the damage, do not decompress and are not stored (export-warc -source gives every input file back as far as it decompressed)\n", st.Malformed, st.DroppedBytes)
		} else {
			fmt.Fprintf(stderr, "blockwarc ingest: %d malformed record(s) or region(s) not read as records; their bytes are kept (export-warc -source gives every input file back)\n", st.Malformed)
		}
		return exitSkipped
	}
	return exitOK
}

// removeCreated removes the archive an ingest created in dir; the
// directory itself only when the ingest made it.
func removeCreated(dir string, existed bool) {
	if !existed {
		os.RemoveAll(dir)
		return
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// ingestSummary is the line ingest prints when it is done.
func ingestSummary(dir string, st dedupe.Stats, took time.Duration) string {
	if st.Files == 0 {
		return fmt.Sprintf("%s: nothing new (%d input file(s) already in the archive)", dir, st.FilesSkipped)
	}
	// The archive's size as the storage report's headline counts it
	// (its files, tables/ apart); the records' bytes decompressed, which
	// the report's input (the files as given) is not.
	size, _ := report.ArchiveBytes(dir)
	line := fmt.Sprintf("%s: %d file(s), %d records (%s decompressed) ingested in %s; the archive is %s on disk (%s bytes, tables apart)", dir,
		st.Files, st.Records, humanBytes(st.InputBytes), took.Round(100*time.Millisecond), humanBytes(size), report.Thousands(size))
	if st.FilesSkipped > 0 {
		line += fmt.Sprintf("; %d file(s) were in it already", st.FilesSkipped)
	}
	return line
}

// humanBytes writes a byte count with a binary unit, as people read it.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// tablesAfterCommit writes the tables of the archive at dir once cmd has
// committed it, and says whether they were written: a failure leaves the
// archive complete and the previous tables in place. added is the
// records cmd read (< 0: none to compare with), for rewriteNote.
func tablesAfterCommit(ctx context.Context, cmd, dir string, topts tablesOptions, added int64, stderr io.Writer) bool {
	sum, err := writeTables(ctx, dir, topts, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "blockwarc %s: %s committed, but: %v\n", cmd, dir, err)
		return false
	}
	if sum.Build.BlockMismatches > 0 {
		printTablesSummary(stderr, "blockwarc "+cmd, sum)
	}
	if n := rewriteNote(sum.Build.Records, added, dir); n != "" {
		fmt.Fprintf(stderr, "blockwarc %s: %s\n", cmd, n)
	}
	return true
}

// rewriteMin is the fewest records a tables walk reads before
// rewriteNote says what it costs: at a few ms a record (each capture
// restored and partitioned again, the pages' languages detected, the
// text compressed by brotli), 2,000 are several CPU-seconds.
var rewriteMin int64 = 2000

// rewriteNote is what ingest says when the tables it rewrote read at
// least ten times the records it ingested, and rewriteMin or more: the
// tables are built from the whole archive, so a crawl-at-a-time ingest
// pays for the archive's size at every crawl (one crawl of a few
// hundred KB into the 350 crawls before it: 0.5 CPU-s, 16 with the
// tables; docs/BENCHMARKS.md "At scale").
func rewriteNote(walked, added int64, dir string) string {
	if added < 0 || walked < rewriteMin || walked < 10*added {
		return ""
	}
	return fmt.Sprintf("the tables were rebuilt from all %d records of the archive for the %d this ingest read (they are rewritten whole, at a cost that grows with the archive); ingesting a crawl at a time, -tables=auto (the default) rewrites them only once the archive has grown by a quarter, and 'blockwarc tables %s' when you need them", walked, added, dir)
}
