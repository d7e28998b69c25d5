package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyOriginals: verify -originals says of each original whether
// it may be deleted, proven by rebuilding it and comparing SHA-256s now,
// and ends with one line an archivist acts on; exit 1 when any may not.
// An original never ingested, one changed since, one whose compressed
// bytes do not restore (Go's gzip) and an archive without parity are
// each not safe, and say why.
func TestVerifyOriginals(t *testing.T) {
	root := t.TempDir()
	coll := filepath.Join(root, "crawls")
	files := sameNameCollection(t, coll)
	os.RemoveAll(filepath.Dir(files["2024-03"])) // kept for "not ingested"
	// An input written by Go's gzip: its content restores, its
	// compressed bytes do not.
	goGzip := filepath.Join(coll, "2024-04", "crawl.warc.gz")
	os.MkdirAll(filepath.Dir(goGzip), 0o755)
	raw := gunzipFile(t, files["2024-01"])
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(raw)
	zw.Close()
	if err := os.WriteFile(goGzip, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	bwa := filepath.Join(root, "a.bwa")
	if code, _, stderr := runCmd(t, "ingest", "-tables=false", bwa, coll); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	// The two wget files: safe, proven now.
	safeDir := filepath.Join(root, "safe")
	for _, m := range []string{"2024-01", "2024-02"} {
		b, _ := os.ReadFile(files[m])
		os.MkdirAll(filepath.Join(safeDir, m), 0o755)
		os.WriteFile(filepath.Join(safeDir, m, "crawl.warc.gz"), b, 0o644)
	}
	// Ingest leaves the proof to prove: nothing is safe before it.
	code, out, stderr := runCmd(t, "verify", "-originals", safeDir, bwa)
	if code != exitFailure || !strings.Contains(out, "not examined; 'blockwarc prove' examines it from the original") || !strings.Contains(lastLine(out), "NOT safe to delete: 2 of 2 original(s)") ||
		!strings.Contains(stderr, "2 original(s) not proven yet: 'blockwarc prove "+bwa+" "+safeDir+"' proves them") {
		t.Fatalf("verify -originals before prove: exit %d:\n%s%s", code, out, stderr)
	}
	if code, out, stderr := runCmd(t, "prove", bwa, coll); code != exitOK {
		t.Fatalf("prove: exit %d:\n%s%s", code, out, stderr)
	}
	code, out, stderr = runCmd(t, "verify", "-originals", safeDir, bwa)
	if code != exitOK {
		t.Fatalf("verify -originals of safe files: exit %d:\n%s%s", code, out, stderr)
	}
	for _, m := range []string{"2024-01", "2024-02"} {
		if !strings.Contains(out, "SAFE TO DELETE  "+filepath.Join(safeDir, m, "crawl.warc.gz")+": archived as "+m+"/crawl.warc.gz, rebuilt bit for bit") {
			t.Fatalf("%s not said safe:\n%s", m, out)
		}
	}
	if !strings.Contains(out, "parity: covers all ") || !strings.Contains(out, "beyond parity: ") {
		t.Fatalf("no parity lines:\n%s", out)
	}
	if last := lastLine(out); !strings.HasPrefix(last, "safe to delete: all 2 original(s) under "+safeDir) {
		t.Fatalf("last line: %q", last)
	}

	// Not safe: the Go gzip file, a file never ingested, a changed one.
	notIngested := filepath.Join(safeDir, "2024-03", "crawl.warc.gz")
	os.MkdirAll(filepath.Dir(notIngested), 0o755)
	b, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "samples", "ota-lovescout24-20240501003256.warc.gz"))
	os.WriteFile(notIngested, b, 0o644)
	changed := filepath.Join(safeDir, "2024-02", "crawl.warc.gz")
	b, _ = os.ReadFile(changed)
	b[len(b)/2] ^= 1
	os.WriteFile(changed, b, 0o644)
	b, _ = os.ReadFile(goGzip)
	os.MkdirAll(filepath.Join(safeDir, "2024-04"), 0o755)
	os.WriteFile(filepath.Join(safeDir, "2024-04", "crawl.warc.gz"), b, 0o644)
	code, out, stderr = runCmd(t, "verify", "-originals", safeDir, bwa)
	if code != exitFailure {
		t.Fatalf("verify -originals with unsafe files: exit %d:\n%s%s", code, out, stderr)
	}
	for _, want := range []string{
		"SAFE TO DELETE  " + filepath.Join(safeDir, "2024-01", "crawl.warc.gz") + ":",
		"NOT SAFE        " + changed + ": not in the archive: it differs from the input file 2024-02/crawl.warc.gz ingested",
		"NOT SAFE        " + notIngested + ": not in the archive (no input file of its size and SHA-256): ingest it first",
		"NOT SAFE        " + filepath.Join(safeDir, "2024-04", "crawl.warc.gz") + " (archived as 2024-04/crawl.warc.gz): its compressed bytes do not restore as given",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("verify -originals does not say %q:\n%s", want, out)
		}
	}
	if last := lastLine(out); last != "NOT safe to delete: 3 of 4 original(s) under "+safeDir+" (NOT SAFE above); the other 1 may be deleted" {
		t.Fatalf("last line: %q", last)
	}

	// Without parity nothing is safe, though every file restores.
	bare := filepath.Join(root, "bare.bwa")
	if code, _, stderr := runCmd(t, "ingest", "-tables=false", "-parity=false", "-prove", bare, files["2024-01"]); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	code, out, _ = runCmd(t, "verify", "-originals", files["2024-01"], bare)
	if code != exitFailure || !strings.Contains(out, "SAFE TO DELETE  "+files["2024-01"]) || !strings.Contains(out, "parity: does NOT cover 2 of the 2 pack and index files") ||
		!strings.HasPrefix(lastLine(out), "NOT safe to delete: parity does not cover "+bare) {
		t.Fatalf("verify -originals without parity: exit %d:\n%s", code, out)
	}
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

func gunzipFile(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
