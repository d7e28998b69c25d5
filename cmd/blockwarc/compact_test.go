package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestCompactCLI: an archive ingested a crawl at a time through the CLI,
// compacted, is byte for byte what one 'blockwarc ingest' of the same
// files writes (tables apart), smaller, and verifies; a complete
// archive is not written over.
func TestCompactCLI(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "samples", "*.warc.gz"))
	if len(files) < 6 {
		t.Fatalf("want the sample dumps, found %d", len(files))
	}
	files = files[:6]
	dir := t.TempDir()
	crawls, dense, copied := filepath.Join(dir, "crawls.bwa"), filepath.Join(dir, "dense.bwa"), filepath.Join(dir, "copy.bwa")
	for _, f := range files {
		if code, _, errOut := runCmd(t, "ingest", "-tables=false", crawls, f); code != exitOK {
			t.Fatalf("ingest %s: exit %d: %s", f, code, errOut)
		}
	}
	if code, _, errOut := runCmd(t, append([]string{"ingest", "-tables=false", dense}, files...)...); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	code, out, errOut := runCmd(t, "compact", "-tmp", t.TempDir(), crawls, copied)
	if code != exitOK {
		t.Fatalf("compact: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, copied) {
		t.Errorf("compact's summary does not name the copy: %q", out)
	}
	want, got := archiveBytes(t, dense), archiveBytes(t, copied)
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("%s differs from one ingest's (%d vs %d B)", name, len(got[name]), len(b))
		}
	}
	if len(got) != len(want) {
		t.Errorf("the copy has %d files, one ingest %d", len(got), len(want))
	}
	if s, c := sumBytes(archiveBytes(t, crawls)), sumBytes(got); c >= s {
		t.Errorf("copy %d B, crawl-at-a-time archive %d B: not smaller", c, s)
	}
	if _, err := os.Stat(filepath.Join(copied, "tables", "captures")); err != nil {
		t.Errorf("compact wrote no tables: %v", err)
	}
	if code, _, errOut := runCmd(t, "verify", copied); code != exitOK {
		t.Errorf("verify of the copy: exit %d: %s", code, errOut)
	}
	if code, out, errOut := runCmd(t, "compact", "-tmp", t.TempDir(), crawls, copied); code != exitOK || !strings.Contains(out, "nothing new") {
		t.Errorf("compact run again after it ended: exit %d: %s%s", code, out, errOut)
	}
	fewer := filepath.Join(dir, "fewer.bwa")
	if code, _, errOut := runCmd(t, "ingest", "-tables=false", fewer, files[0]); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCmd(t, "compact", crawls, fewer); code != exitFailure || !strings.Contains(errOut, "archive already") {
		t.Errorf("compact into a complete archive of other files: exit %d: %s", code, errOut)
	}
}

// archiveBytes reads an archive's files, LOCK and tables/ left out.
func archiveBytes(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range ents {
		if e.IsDir() || e.Name() == "LOCK" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

func sumBytes(fs map[string][]byte) (n int) {
	for _, b := range fs {
		n += len(b)
	}
	return n
}

// TestCompactSameNames: inputs of one base name from different folders
// keep their names in the copy, which verifies and gives each back.
func TestCompactSameNames(t *testing.T) {
	root := t.TempDir()
	coll := filepath.Join(root, "crawls")
	files := sameNameCollection(t, coll)
	bwa, copied := filepath.Join(root, "a.bwa"), filepath.Join(root, "b.bwa")
	if code, _, stderr := runCmd(t, "ingest", "-tables=false", "-prove", bwa, filepath.Join(coll, "2024-01"), filepath.Join(coll, "2024-02")); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "ingest", "-tables=false", "-prove", bwa, files["2024-03"]); code != exitOK {
		t.Fatalf("ingest of the third month: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "compact", "-tables=false", "-tmp", t.TempDir(), bwa, copied); code != exitOK {
		t.Fatalf("compact: exit %d: %s", code, stderr)
	}
	_, want, _ := runCmd(t, "ls", "-files", bwa)
	_, got, _ := runCmd(t, "ls", "-files", copied)
	if got != want || !strings.Contains(got, "2024-02/crawl.warc.gz") {
		t.Errorf("input files of the copy:\n%s\nof the archive:\n%s", got, want)
	}
	if code, out, stderr := runCmd(t, "verify", copied); code != exitOK || !strings.Contains(out, "3 input files rebuilt bit-exact") {
		t.Fatalf("verify of the copy: exit %d:\n%s%s", code, out, stderr)
	}
	for month, p := range files {
		want, _ := os.ReadFile(p)
		code, got, stderr := runCmd(t, "export-warc", "-source", month+"/crawl.warc.gz", "-original", copied)
		if code != exitOK || !bytes.Equal([]byte(got), want) {
			t.Errorf("copy's -source %s/crawl.warc.gz: exit %d, %d bytes (want %d): %s", month, code, len(got), len(want), stderr)
		}
	}
}

// TestFastTier: ingest -fast (the fast tier) writes an archive that
// verifies and restores, larger than the default's (its frames really
// are at another level); compact turns it into the default ingest's
// archive, byte for byte, and after prove into that of ingest -prove.
func TestFastTier(t *testing.T) {
	files := sharedtest.CorpusFiles(t, "ota-mektoube")[:12]
	dir := t.TempDir()
	fast, dense, proven := filepath.Join(dir, "fast.bwa"), filepath.Join(dir, "dense.bwa"), filepath.Join(dir, "proven.bwa")
	for _, f := range files { // a crawl at a time, as crawls arrive
		if code, _, errOut := runCmd(t, "ingest", "-tables=false", "-fast", fast, f); code != exitOK {
			t.Fatalf("ingest -fast %s: exit %d: %s", f, code, errOut)
		}
	}
	for _, a := range []struct {
		arch  string
		flags []string
	}{{dense, nil}, {proven, []string{"-prove"}}} {
		args := append(append([]string{"ingest", "-tables=false"}, a.flags...), a.arch)
		if code, _, errOut := runCmd(t, append(args, files...)...); code != exitOK {
			t.Fatalf("ingest %q: exit %d: %s", a.flags, code, errOut)
		}
	}
	if code, _, errOut := runCmd(t, "verify", fast); code != exitOK {
		t.Fatalf("verify of the fast tier: exit %d: %s", code, errOut)
	}
	// A crawl at a time costs bytes anyway; the fast level must cost more
	// than that alone: the default frames of the same crawl-at-a-time
	// ingests.
	crawls := filepath.Join(dir, "crawls.bwa")
	for _, f := range files {
		if code, _, errOut := runCmd(t, "ingest", "-tables=false", crawls, f); code != exitOK {
			t.Fatalf("ingest %s: exit %d: %s", f, code, errOut)
		}
	}
	if f, c := sumBytes(archiveBytes(t, fast)), sumBytes(archiveBytes(t, crawls)); f <= c {
		t.Errorf("fast tier %d B, default level %d B: -fast changed no frame", f, c)
	}
	same := func(what, copied, want string) {
		t.Helper()
		w, got := archiveBytes(t, want), archiveBytes(t, copied)
		for name, b := range w {
			if !bytes.Equal(got[name], b) {
				t.Errorf("%s: %s differs (%d vs %d B)", what, name, len(got[name]), len(b))
			}
		}
		if len(got) != len(w) {
			t.Errorf("%s: %d files, want %d", what, len(got), len(w))
		}
	}
	// Not proven: copied as their streams, the files' rows kept.
	copied := filepath.Join(dir, "copy.bwa")
	if code, _, errOut := runCmd(t, "compact", "-tables=false", "-tmp", t.TempDir(), fast, copied); code != exitOK {
		t.Fatalf("compact of unproven files: exit %d: %s", code, errOut)
	}
	same("compacted vs the default ingest", copied, dense)
	if code, _, errOut := runCmd(t, append([]string{"prove", fast}, files...)...); code != exitOK {
		t.Fatalf("prove: exit %d: %s", code, errOut)
	}
	copied = filepath.Join(dir, "copy-proven.bwa")
	if code, _, errOut := runCmd(t, "compact", "-tables=false", "-tmp", t.TempDir(), fast, copied); code != exitOK {
		t.Fatalf("compact: exit %d: %s", code, errOut)
	}
	same("proven and compacted vs ingest -prove", copied, proven)
}
