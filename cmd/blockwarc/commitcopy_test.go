package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sampleURL is a page of the bundled lovescout24 samples.
const sampleURL = "http://127.0.0.1:8103/LoveScout24/Privacy%20Policy.html"

// TestDamagedCommit flips a byte of an archive's COMMIT: cat still
// restores from the copy and warns, verify names COMMIT and exits 1,
// and the next ingest heals it so that verify is clean again.
func TestDamagedCommit(t *testing.T) {
	samples := filepath.Join("..", "..", "testdata", "samples")
	bwa := filepath.Join(t.TempDir(), "a.bwa")
	in := func(d string) string { return filepath.Join(samples, "ota-lovescout24-"+d+".warc.gz") }
	if code, _, stderr := runCmd(t, "ingest", "-tables=false", bwa, in("20220120143355"), in("20220125183141")); code != exitOK {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	code, want, _ := runCmd(t, "cat", bwa, sampleURL)
	if code != exitOK || want == "" {
		t.Fatalf("cat exit %d", code)
	}
	commit := filepath.Join(bwa, "COMMIT")
	b, err := os.ReadFile(commit)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x10
	if err := os.WriteFile(commit, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, got, stderr := runCmd(t, "cat", bwa, sampleURL)
	if code != exitOK || got != want || !strings.Contains(stderr, "warning") || !strings.Contains(stderr, "COMMIT.copy") {
		t.Fatalf("cat with COMMIT damaged: exit %d, same bytes %v, stderr %q", code, got == want, stderr)
	}
	if code, out, stderr := runCmd(t, "verify", bwa); code != exitFailure || !strings.Contains(out+stderr, commit) {
		t.Fatalf("verify with COMMIT damaged: exit %d, output %q %q", code, out, stderr)
	}
	if code, _, stderr := runCmd(t, "ingest", "-tables=false", bwa, in("20220325123217")); code != exitOK || !strings.Contains(stderr, "COMMIT.copy") {
		t.Fatalf("ingest into an archive with COMMIT damaged: exit %d, stderr %q", code, stderr)
	}
	if code, out, stderr := runCmd(t, "verify", bwa); code != exitOK {
		t.Fatalf("verify after the ingest healed COMMIT: exit %d: %s %s", code, out, stderr)
	}
}
