package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/ingestflags"
	"github.com/blockwarc/blockwarc/dedupe/shard"
)

// TestIngestSharedFlags: 'blockwarc ingest' makes its options from the
// flags it shares with blockwarc-beam through ingestflags (which
// blockwarc-beam's TestSharedFlags checks the pipeline against), takes
// -commit 64M, and holds the Go heap limit shard.Split gives while it
// ingests, restoring the process's afterwards.
func TestIngestSharedFlags(t *testing.T) {
	var got dedupe.Options
	var limit int64
	stop := errors.New("stop here")
	defer func(f func(context.Context, string, []string, int, dedupe.Options) (shard.Result, error)) {
		ingestArchive = f
	}(ingestArchive)
	ingestArchive = func(_ context.Context, _ string, _ []string, _ int, o dedupe.Options) (shard.Result, error) {
		got, limit = o, debug.SetMemoryLimit(-1)
		return shard.Result{}, stop
	}
	prior := debug.SetMemoryLimit(-1)
	archive := filepath.Join(t.TempDir(), "a.bwa")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"ingest", "-level", "2", "-commit", "64M", "-mem", "512MiB", "-policy", "fail",
		"-parity=false", "-tmp", "/tmp", "-workers", "3", "-shards", "2", archive, "testdata"}, &stdout, &stderr)
	if code != exitFailure || got.CommitBytes == 0 {
		t.Fatalf("exit %d, options %+v: %s", code, got, stderr.String())
	}
	// SkipProof: ingest leaves the proof to prove unless -prove.
	v, err := ingestflags.Flags{Level: 2, Commit: "64M", Mem: "512MiB", Policy: "fail", Parity: false, TempDir: "/tmp", Workers: 3, SkipProof: true}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	want := v.Options()
	got.Reader.OnError, got.Progress, got.InputProgress, got.ReadDone, got.Finishing = nil, nil, nil, nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ingest options\n%+v\nwant (ingestflags)\n%+v", got, want)
	}
	if got.CommitBytes != 64<<20 {
		t.Fatalf("-commit 64M: %d bytes", got.CommitBytes)
	}
	if _, _, _, goHeap := shard.Split(512<<20, 3, 2); limit != goHeap {
		t.Fatalf("heap limit while ingesting %d, want %d", limit, goHeap)
	}
	if now := debug.SetMemoryLimit(-1); now != prior {
		t.Fatalf("heap limit after the command %d, want the prior %d", now, prior)
	}
}
