package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProveCLI: files ingested with -prove=false are not safe to delete
// and do not export as given; 'blockwarc prove' with the originals makes
// both true, names an original it has no use for, and a second run has
// nothing left to prove. The tables, which say nothing of originals,
// are not made stale.
func TestProveCLI(t *testing.T) {
	root := t.TempDir()
	coll := filepath.Join(root, "crawls")
	files := sameNameCollection(t, coll)
	// The third crawl is kept apart: an original of no input file.
	extra := filepath.Join(root, "extra", "other.warc.gz")
	os.MkdirAll(filepath.Dir(extra), 0o755)
	if err := os.Rename(files["2024-03"], extra); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Dir(files["2024-03"]))
	bwa := filepath.Join(root, "a.bwa")
	if code, _, stderr := runCmd(t, "ingest", "-prove=false", bwa, coll); code != exitOK {
		t.Fatalf("ingest -prove=false: exit %d: %s", code, stderr)
	}
	if code, out, _ := runCmd(t, "verify", "-originals", coll, bwa); code == exitOK || strings.Contains(out, "SAFE TO DELETE") {
		t.Fatalf("verify -originals of unproven files: exit %d, said safe:\n%s", code, out)
	}
	dst := filepath.Join(root, "out.warc.gz")
	if code, _, _ := runCmd(t, "export-warc", "-source", "2024-01/crawl.warc.gz", "-original", "-o", dst, bwa); code == exitOK {
		if b, _ := os.ReadFile(dst); len(b) > 0 {
			t.Fatal("export-warc -original wrote an unproven file")
		}
	}
	code, out, stderr := runCmd(t, "prove", bwa, coll, extra)
	if code != exitOK || !strings.Contains(out, ": 2 file(s) proven to restore as given, 0 not restorable compressed, 1 original(s) unmatched; 0 file(s) still unproven") ||
		!strings.Contains(stderr, extra+": the content of no input file left to prove") {
		t.Fatalf("prove: exit %d:\n%s%s", code, out, stderr)
	}
	// The tables describe the archive after prove as before it.
	if code, _, stderr := runCmd(t, "report", bwa); code != exitOK || strings.Contains(stderr, "stale") {
		t.Fatalf("report after prove: exit %d: %s", code, stderr)
	}
	code, out, _ = runCmd(t, "verify", "-originals", coll, bwa)
	if code != exitOK || strings.Count(out, "SAFE TO DELETE") != 2 {
		t.Fatalf("verify -originals after prove: exit %d:\n%s", code, out)
	}
	if code, out, _ := runCmd(t, "prove", bwa, coll); code != exitOK || !strings.Contains(out, ": 0 file(s) proven") {
		t.Fatalf("second prove: exit %d:\n%s", code, out)
	}
}

// TestProveSharded: a sharded archive ingested with -prove=false is
// proven as an unsharded one is (shard 0 keeps the originals): not safe
// to delete before, safe after, its tables not made stale, and its files
// export as given, bit for bit.
func TestProveSharded(t *testing.T) {
	root := t.TempDir()
	coll := filepath.Join(root, "crawls")
	files := sameNameCollection(t, coll)
	bwa := filepath.Join(root, "a.bwa")
	if code, _, stderr := runCmd(t, "ingest", "-prove=false", "-shards", "2", bwa, coll); code != exitOK {
		t.Fatalf("ingest -prove=false -shards 2: exit %d: %s", code, stderr)
	}
	if code, out, _ := runCmd(t, "verify", "-originals", coll, bwa); code == exitOK || strings.Contains(out, "SAFE TO DELETE") {
		t.Fatalf("verify -originals of unproven files: exit %d, said safe:\n%s", code, out)
	}
	code, out, stderr := runCmd(t, "prove", bwa, coll)
	if code != exitOK || !strings.Contains(out, ": 3 file(s) proven to restore as given, 0 not restorable compressed, 0 original(s) unmatched; 0 file(s) still unproven") {
		t.Fatalf("prove: exit %d:\n%s%s", code, out, stderr)
	}
	if code, _, stderr := runCmd(t, "report", bwa); code != exitOK || strings.Contains(stderr, "stale") {
		t.Fatalf("report after prove: exit %d: %s", code, stderr)
	}
	code, out, _ = runCmd(t, "verify", "-originals", coll, bwa)
	if code != exitOK || strings.Count(out, "SAFE TO DELETE") != 3 {
		t.Fatalf("verify -originals after prove: exit %d:\n%s", code, out)
	}
	dst := filepath.Join(root, "out.warc.gz")
	if code, _, stderr := runCmd(t, "export-warc", "-source", "2024-01/crawl.warc.gz", "-original", "-o", dst, bwa); code != exitOK {
		t.Fatalf("export-warc -original after prove: exit %d: %s", code, stderr)
	}
	got, _ := os.ReadFile(dst)
	want, _ := os.ReadFile(files["2024-01"])
	if !bytes.Equal(got, want) {
		t.Fatalf("export-warc -original: %d bytes, not the original's %d", len(got), len(want))
	}
}
