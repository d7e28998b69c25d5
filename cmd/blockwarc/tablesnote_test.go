package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTablesRewriteNote: an ingest that adds a few records to an
// archive of many says that its tables were rebuilt from all of them
// and how to avoid it (-tables=false, then 'blockwarc tables'); the
// first ingest, and one with -tables=false, say nothing of it.
func TestTablesRewriteNote(t *testing.T) {
	defer func(m int64) { rewriteMin = m }(rewriteMin)
	rewriteMin = 50 // the samples are a few hundred records
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "samples", "*.warc.gz"))
	slices.Sort(files)
	if len(files) < 20 {
		t.Fatalf("testdata/samples: %d files", len(files))
	}
	arch := filepath.Join(t.TempDir(), "a.bwa")
	const note = "the tables were rebuilt from all "
	code, _, stderr := runCmd(t, append([]string{"ingest", arch}, files[:len(files)-2]...)...)
	if code != exitOK || strings.Contains(stderr, note) {
		t.Fatalf("first ingest: exit %d, stderr:\n%s", code, stderr)
	}
	code, _, stderr = runCmd(t, "ingest", "-tables=false", arch, files[len(files)-2])
	if code != exitOK || strings.Contains(stderr, note) {
		t.Fatalf("ingest -tables=false: exit %d, stderr:\n%s", code, stderr)
	}
	code, _, stderr = runCmd(t, "ingest", arch, files[len(files)-1])
	if code != exitOK || !strings.Contains(stderr, note) || !strings.Contains(stderr, "pass -tables=false and run 'blockwarc tables "+arch+"'") {
		t.Fatalf("one crawl into the archive of the others: exit %d, want the note; stderr:\n%s", code, stderr)
	}
}

func TestRewriteNoteBounds(t *testing.T) {
	for _, c := range []struct {
		walked, added int64
		say           bool
	}{
		{5046, 8, true},
		{5046, 504, true},
		{5046, 505, false}, // a tenth of the archive or more
		{1999, 1, false},   // under rewriteMin: cheap
		{2000, 1, true},
		{5046, -1, false}, // compact: nothing to compare with
	} {
		if got := rewriteNote(c.walked, c.added, "a.bwa") != ""; got != c.say {
			t.Errorf("rewriteNote(%d, %d): said %v, want %v", c.walked, c.added, got, c.say)
		}
	}
}
