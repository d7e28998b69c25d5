package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sameNameCollection lays out periodic crawls that share a file name in
// monthly folders, different content each: root/2024-01/crawl.warc.gz,
// root/2024-02/crawl.warc.gz, root/2024-03/crawl.warc.gz. It returns the
// files by month.
func sameNameCollection(t *testing.T, root string) map[string]string {
	t.Helper()
	samples := filepath.Join("..", "..", "testdata", "samples")
	files := map[string]string{}
	for month, name := range map[string]string{
		"2024-01": "ota-lovescout24-20220120143355.warc.gz",
		"2024-02": "ota-lovescout24-20220125183141.warc.gz",
		"2024-03": "ota-lovescout24-20240501003256.warc.gz",
	} {
		b, err := os.ReadFile(filepath.Join(samples, name))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(root, month, "crawl.warc.gz")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files[month] = p
	}
	return files
}

// TestSameNameInputs: inputs of one file name in different folders are
// two inputs, named by their path below the directory given (or, given
// a month apart, by as much of their path as tells them apart): ingest,
// verify, export-warc -source and -sources, and repair handle every one
// of them, and a base name still finds the file it names alone.
func TestSameNameInputs(t *testing.T) {
	root := t.TempDir()
	coll := filepath.Join(root, "crawls")
	files := sameNameCollection(t, coll)
	bwa := filepath.Join(root, "a.bwa")
	// Two months at once (the directory given), the third a month later
	// (the file given alone).
	if code, _, stderr := runCmd(t, "ingest", "-parity=false", "-tables=false", "-prove", bwa, filepath.Join(coll, "2024-01"), filepath.Join(coll, "2024-02")); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "ingest", "-parity=false", "-tables=false", "-prove", bwa, files["2024-03"]); code != exitOK {
		t.Fatalf("ingest of the third month: exit %d: %s", code, stderr)
	}
	// Given again, from the collection's root: nothing new.
	if code, out, stderr := runCmd(t, "ingest", "-parity=false", "-tables=false", "-prove", bwa, coll); code != exitOK || !strings.Contains(out, "nothing new (3 input file(s) already in the archive)") {
		t.Fatalf("ingest again: exit %d:\n%s%s", code, out, stderr)
	}
	code, out, stderr := runCmd(t, "ls", "-files", bwa)
	if code != exitOK {
		t.Fatalf("ls -files: exit %d: %s", code, stderr)
	}
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		names = append(names, strings.Fields(l)[0])
	}
	if strings.Join(names, " ") != "2024-01/crawl.warc.gz 2024-02/crawl.warc.gz 2024-03/crawl.warc.gz" {
		t.Fatalf("input names: %q", names)
	}
	if code, out, stderr := runCmd(t, "verify", bwa); code != exitOK || !strings.Contains(out, " 3 input files rebuilt exactly, 3 input files rebuilt bit-exact") {
		t.Fatalf("verify: exit %d:\n%s%s", code, out, stderr)
	}

	// -source: each file by its name, as given, bit for bit; the base name
	// three files share is refused, naming them.
	for month, p := range files {
		want, _ := os.ReadFile(p)
		code, got, stderr := runCmd(t, "export-warc", "-source", month+"/crawl.warc.gz", "-original", bwa)
		if code != exitOK || !bytes.Equal([]byte(got), want) {
			t.Fatalf("-source %s/crawl.warc.gz: exit %d, %d bytes (want %d): %s", month, code, len(got), len(want), stderr)
		}
	}
	if code, _, stderr := runCmd(t, "export-warc", "-source", "crawl.warc.gz", bwa); code != exitUsage || !strings.Contains(stderr, "3 input files end with crawl.warc.gz: 2024-01/crawl.warc.gz, 2024-02/crawl.warc.gz, 2024-03/crawl.warc.gz") {
		t.Fatalf("-source of a shared base name: exit %d: %s", code, stderr)
	}
	// -sources: every file, under its folder.
	out1 := filepath.Join(root, "out")
	if code, _, stderr := runCmd(t, "export-warc", "-sources", out1, "-original", bwa); code != exitOK {
		t.Fatalf("-sources: exit %d: %s", code, stderr)
	}
	for month, p := range files {
		want, _ := os.ReadFile(p)
		got, err := os.ReadFile(filepath.Join(out1, month, "crawl.warc.gz"))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("-sources wrote %s/crawl.warc.gz: %d bytes, want %d (%v)", month, len(got), len(want), err)
		}
	}

	// Damage beyond parity (there is none), repaired from the originals
	// moved elsewhere: they are matched by content, not by path.
	packs, _ := filepath.Glob(filepath.Join(bwa, "*.pack"))
	if len(packs) == 0 {
		t.Fatal("no pack")
	}
	for _, p := range packs {
		flipBytes(t, p, 0.4, 200)
	}
	if code, _, _ := runCmd(t, "verify", bwa); code == exitOK {
		t.Fatal("verify of a damaged archive: exit 0")
	}
	moved := filepath.Join(root, "moved")
	for month, p := range files {
		b, _ := os.ReadFile(p)
		to := filepath.Join(moved, "copy-of-"+month, "crawl.warc.gz")
		os.MkdirAll(filepath.Dir(to), 0o755)
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, stderr = runCmd(t, "repair", bwa, moved)
	if code != exitOK || strings.Contains(stderr, "refused") {
		t.Fatalf("repair: exit %d:\n%s%s", code, out, stderr)
	}
	if code, out, stderr := runCmd(t, "verify", bwa); code != exitOK || !strings.Contains(out, " 3 input files rebuilt exactly") {
		t.Fatalf("verify after repair: exit %d:\n%s%s", code, out, stderr)
	}
}

// TestSameNameLegacy: an archive written before inputs were named by
// their path (testdata/legacy/samename-v9.bwa: 2024-01/crawl.warc.gz and
// 2024-02/crawl.warc.gz of the samples, two rows named crawl.warc.gz)
// verifies, and -sources writes both originals, the second as
// crawl-2.warc.gz; -source of the shared name is refused, naming the way.
func TestSameNameLegacy(t *testing.T) {
	bwa := filepath.Join(t.TempDir(), "a.bwa")
	if err := os.CopyFS(bwa, os.DirFS(filepath.Join("testdata", "legacy", "samename-v9.bwa"))); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := runCmd(t, "verify", bwa); code != exitOK || !strings.Contains(out, " 2 input files rebuilt exactly, 2 input files rebuilt bit-exact") {
		t.Fatalf("verify: exit %d:\n%s%s", code, out, stderr)
	}
	out := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := runCmd(t, "export-warc", "-sources", out, bwa); code != exitOK {
		t.Fatalf("-sources: exit %d: %s", code, stderr)
	}
	samples := filepath.Join("..", "..", "testdata", "samples")
	for name, sample := range map[string]string{
		"crawl.warc.gz":   "ota-lovescout24-20220120143355.warc.gz",
		"crawl-2.warc.gz": "ota-lovescout24-20220125183141.warc.gz",
	} {
		want, _ := os.ReadFile(filepath.Join(samples, sample))
		if got, err := os.ReadFile(filepath.Join(out, name)); err != nil || !bytes.Equal(got, want) {
			t.Errorf("-sources wrote %s: %d bytes, want %s's %d (%v)", name, len(got), sample, len(want), err)
		}
	}
	if code, _, stderr := runCmd(t, "export-warc", "-source", "crawl.warc.gz", bwa); code != exitUsage || !strings.Contains(stderr, "2 input files are named crawl.warc.gz") {
		t.Fatalf("-source of a name two rows share: exit %d: %s", code, stderr)
	}
}
