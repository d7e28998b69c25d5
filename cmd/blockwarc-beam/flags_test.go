package main

import (
	"bytes"
	"context"
	"flag"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/ingestflags"
	"github.com/blockwarc/blockwarc/dedupe/shard"
)

// TestSharedFlags: blockwarc-beam parses the flags it shares with
// 'blockwarc ingest' as the CLI does (-commit 64M was refused), and
// makes the same ingest options of them (ingestflags: the CLI's
// TestIngestSharedFlags checks the CLI against the same).
func TestSharedFlags(t *testing.T) {
	parse := func(args ...string) (Config, []string, int, string) {
		var stderr bytes.Buffer
		cfg, inputs, code := parseArgs(flag.NewFlagSet("blockwarc-beam", flag.ContinueOnError), args, &stderr)
		return cfg, inputs, code, stderr.String()
	}
	cfg, inputs, code, msg := parse("-commit", "64M", "a.bwa", "in")
	if code != 0 || cfg.Ingest.CommitBytes != 64<<20 || cfg.Archive != "a.bwa" || !reflect.DeepEqual(inputs, []string{"in"}) {
		t.Fatalf("-commit 64M: exit %d, %+v %v: %s", code, cfg, inputs, msg)
	}
	for _, size := range []string{"64M", "64MiB", "64MB", "67108864", "1e6", "100k", "1.5GiB"} {
		want, err := ingestflags.ParseSize(size)
		if err != nil {
			t.Fatal(err)
		}
		if cfg, _, code, msg := parse("-commit", size, "-shard-mem", size, "a.bwa", "in"); code != 0 || cfg.Ingest.CommitBytes != want || cfg.Ingest.MemLimit != want {
			t.Errorf("-commit/-shard-mem %s: exit %d, %d and %d bytes; want %d: %s", size, code, cfg.Ingest.CommitBytes, cfg.Ingest.MemLimit, want, msg)
		}
	}

	cfg, _, code, msg = parse("-level", "2", "-commit", "64M", "-shard-mem", "512MiB", "-policy", "fail",
		"-parity=false", "-tmp", "/tmp", "-shard-workers", "3", "a.bwa", "in")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	v, err := ingestflags.Flags{Level: 2, Commit: "64M", Mem: "512MiB", Policy: "fail", Parity: false, TempDir: "/tmp", Workers: 3, SkipProof: true}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.options(context.Background()), v.Options(); !reflect.DeepEqual(got, want) {
		t.Fatalf("pipeline options\n%+v\nwant (as blockwarc ingest's)\n%+v", got, want)
	}
	// Under -policy warn both add a warning sink and nothing else.
	cfg, _, _, _ = parse("a.bwa", "in")
	got := cfg.options(context.Background())
	if got.Reader.OnError == nil {
		t.Fatal("-policy warn: no warnings")
	}
	got.Reader.OnError = nil
	v, _ = ingestflags.Flags{Commit: ingestflags.DefaultCommit, Mem: ingestflags.DefaultMem, Policy: ingestflags.DefaultPolicy, Parity: true, Workers: 1, SkipProof: true}.Parse()
	if want := v.Options(); !reflect.DeepEqual(got, want) {
		t.Fatalf("defaults\n%+v\nwant\n%+v", got, want)
	}

	// -lanes: the machine's cores unless given.
	if cfg, _, code, _ := parse("a.bwa", "in"); code != 0 || cfg.Lanes != runtime.GOMAXPROCS(0) {
		t.Errorf("default -lanes: %d, want GOMAXPROCS %d", cfg.Lanes, runtime.GOMAXPROCS(0))
	}
	if cfg, _, code, _ := parse("-lanes", "3", "a.bwa", "in"); code != 0 || cfg.Lanes != 3 {
		t.Errorf("-lanes 3: exit %d, %d lanes", code, cfg.Lanes)
	}

	// -fast as the CLI's: the fast tier's options.
	cfg, _, code, msg = parse("-fast", "-policy", "fail", "a.bwa", "in")
	v, _ = ingestflags.Flags{Commit: ingestflags.DefaultCommit, Mem: ingestflags.DefaultMem, Policy: "fail", Parity: true, Workers: 1, Fast: true, SkipProof: true}.Parse()
	if got, want := cfg.options(context.Background()), v.Options(); code != 0 || !reflect.DeepEqual(got, want) || got.Pack.Level == 0 {
		t.Fatalf("-fast: exit %d, options\n%+v\nwant\n%+v: %s", code, got, want, msg)
	}
	// The proof left to 'blockwarc prove' by default, as ingest leaves
	// it, sharded as the pipeline's archive always is; -prove does it;
	// -help says who proves.
	for _, shards := range []string{"1", "2"} {
		if cfg, _, code, msg := parse("-shards", shards, "a.bwa", "in"); code != 0 || !cfg.options(context.Background()).SkipOriginal {
			t.Errorf("-shards %s: exit %d, %+v: %s; want the proof skipped", shards, code, cfg.Ingest, msg)
		}
	}
	if cfg, _, code, msg := parse("-prove", "a.bwa", "in"); code != 0 || cfg.options(context.Background()).SkipOriginal {
		t.Errorf("-prove: exit %d, %+v: %s; want the proof done", code, cfg.Ingest, msg)
	}
	if _, _, _, msg := parse("-help"); !strings.Contains(msg, "-prove, 'blockwarc prove ARCHIVE ORIGINAL...' proves the .warc.gz inputs later") {
		t.Errorf("-help does not say who proves:\n%s", msg)
	}

	for args, want := range map[string]string{
		"-commit lots":     "bad -commit",
		"-shard-mem 0":     "bad -shard-mem",
		"-shard-workers 0": "bad -shard-workers",
		"-policy loud":     "bad -policy",
		"-level -1":        "bad -level",
		"-commit -64M":     "bad -commit",
	} {
		if _, _, code, msg := parse(append(strings.Fields(args), "a.bwa", "in")...); code != exitUsage || !strings.Contains(msg, want) {
			t.Errorf("%s: exit %d, %q; want %d and %q", args, code, msg, exitUsage, want)
		}
	}
}

// TestShardHeapLimit: every shard's ingest, and every file's presort,
// holds the worker's Go heap limit through ingestflags.HoldHeap, for its
// -shard-mem and -shard-workers, while it runs, and the process's limit
// is restored.
func TestShardHeapLimit(t *testing.T) {
	in := samples(t)
	cfg := defaults(filepath.Join(t.TempDir(), "a.bwa"), 2)
	var mu sync.Mutex
	var held []int64
	defer func(f func(int64, int, int) (int64, func())) { holdHeap = f }(holdHeap)
	holdHeap = func(mem int64, workers, shards int) (int64, func()) {
		limit, release := ingestflags.HoldHeap(mem, workers, shards)
		mu.Lock()
		defer mu.Unlock()
		if mem != cfg.Ingest.MemLimit || workers != cfg.Ingest.Workers || shards != 1 {
			t.Errorf("held for mem %d, %d workers, %d shards; want %d, %d, 1", mem, workers, shards, cfg.Ingest.MemLimit, cfg.Ingest.Workers)
		}
		held = append(held, debug.SetMemoryLimit(-1))
		return limit, release
	}
	prior := debug.SetMemoryLimit(-1)
	if err := Run(context.Background(), cfg, in[:2], onPrism); err != nil {
		t.Fatal(err)
	}
	m, err := shard.ReadManifest(cfg.Archive)
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, one := shard.Split(cfg.Ingest.MemLimit, cfg.Ingest.Workers, 1)
	if len(held) != len(m.Shards)+2 {
		t.Fatalf("%d shard ingests and presorts held the heap limit, want %d", len(held), len(m.Shards)+2)
	}
	for _, l := range held {
		if l < one || l%one != 0 {
			t.Errorf("heap limit %d while a shard ingested; want a multiple of one shard's %d", l, one)
		}
	}
	if now := debug.SetMemoryLimit(-1); now != prior {
		t.Fatalf("heap limit after the run %d, want the prior %d", now, prior)
	}
}
