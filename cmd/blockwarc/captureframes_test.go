package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/gencrawl"
)

// TestIngestCaptureFrames: -capture-frames N is recorded as the
// archive's setting and kept by an ingest that gives none; off turns it
// off; a bad value is a usage error.
func TestIngestCaptureFrames(t *testing.T) {
	root := t.TempDir()
	in := filepath.Join(root, "a.warc")
	t0 := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	if err := gencrawl.WriteWARC(in, "http://a.example", t0, gencrawl.Site(5, 20, 3000)); err != nil {
		t.Fatal(err)
	}
	in2 := filepath.Join(root, "b.warc")
	if err := gencrawl.WriteWARC(in2, "http://a.example", t0.Add(time.Hour), gencrawl.Edit(gencrawl.Site(5, 20, 3000), 2, 9)); err != nil {
		t.Fatal(err)
	}
	in3 := filepath.Join(root, "c.warc")
	if err := gencrawl.WriteWARC(in3, "http://a.example", t0.Add(2*time.Hour), gencrawl.Edit(gencrawl.Site(5, 20, 3000), 3, 10)); err != nil {
		t.Fatal(err)
	}
	arch := filepath.Join(root, "a.bwa")
	bound := func() int {
		s, err := pack.Open(arch, pack.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		return s.Settings().CaptureFrames
	}
	if code, _, stderr := runCmd(t, "ingest", "-tables=false", "-capture-frames", "12", arch, in); code != exitOK {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	if b := bound(); b != 12 {
		t.Fatalf("-capture-frames 12 recorded %d", b)
	}
	if code, _, stderr := runCmd(t, "ingest", "-tables=false", arch, in2); code != exitOK {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	if b := bound(); b != 12 {
		t.Fatalf("an ingest without -capture-frames left %d", b)
	}
	if code, _, stderr := runCmd(t, "ingest", "-tables=false", "-capture-frames", "off", arch, in3); code != exitOK {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	if b := bound(); b != 0 {
		t.Fatalf("-capture-frames off left %d", b)
	}
	if code, _, _ := runCmd(t, "ingest", "-capture-frames", "x", arch, in3); code != exitUsage {
		t.Fatalf("-capture-frames x: exit %d, want %d", code, exitUsage)
	}
}
