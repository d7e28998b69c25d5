package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLostRedundancyCLI (issue 34): with a pack's parity, an index's
// parity and COMMIT.copy deleted, and another ingest after (which
// protects its own range only), verify names each lost copy and exits
// 1; repair writes them again; verify is then clean; and a byte flipped
// in the pack is corrected by parity, the record restoring as before.
// Before, verify said 0 problems and repair "nothing to repair".
func TestLostRedundancyCLI(t *testing.T) {
	samples := filepath.Join("..", "..", "testdata", "samples")
	bwa := filepath.Join(t.TempDir(), "a.bwa")
	in := func(d string) string { return filepath.Join(samples, "ota-lovescout24-"+d+".warc.gz") }
	if code, _, stderr := runCmd(t, "ingest", "-tables=false", bwa, in("20220120143355")); code != exitOK {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	packPar, _ := filepath.Glob(filepath.Join(bwa, "*.pack.par"))
	idxPar, _ := filepath.Glob(filepath.Join(bwa, "*.idx.par"))
	if len(packPar) != 1 || len(idxPar) != 1 {
		t.Fatalf("sidecars %v %v, want one of the pack and one of the index", packPar, idxPar)
	}
	pack := strings.TrimSuffix(packPar[0], ".par")
	fi, err := os.Stat(pack)
	if err != nil {
		t.Fatal(err)
	}
	protected := fi.Size() // what the deleted sidecar protected
	for _, p := range []string{packPar[0], idxPar[0], filepath.Join(bwa, "COMMIT.copy")} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	// An index in force still has its parity: the archive has parity.
	if code, _, stderr := runCmd(t, "ingest", "-tables=false", bwa, in("20220125183141")); code != exitOK {
		t.Fatalf("second ingest exit %d: %s", code, stderr)
	}
	// The ingest's commit wrote COMMIT.copy again, and protected what it
	// wrote only; delete the copy again.
	os.Remove(filepath.Join(bwa, "COMMIT.copy"))
	code, want, _ := runCmd(t, "cat", bwa, sampleURL)
	if code != exitOK || want == "" {
		t.Fatalf("cat exit %d", code)
	}
	code, out, stderr := runCmd(t, "verify", bwa)
	if code != exitFailure {
		t.Fatalf("verify with redundancy lost: exit %d: %s %s", code, out, stderr)
	}
	for _, w := range []string{
		"parity of " + pack + " bytes 0..",
		"is missing: a damaged sector there can no longer be corrected; run blockwarc repair",
		filepath.Join(bwa, "COMMIT.copy") + " is missing",
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("verify does not say %q:\n%s", w, stderr)
		}
	}
	code, out, stderr = runCmd(t, "repair", bwa)
	if code != exitOK || strings.Contains(out, "nothing to repair") || !strings.Contains(out, "COMMIT.copy was missing") || !strings.Contains(out, "was missing: written again") {
		t.Fatalf("repair: exit %d: %s %s", code, out, stderr)
	}
	if code, out, stderr := runCmd(t, "verify", bwa); code != exitOK || stderr != "" {
		t.Fatalf("verify after repair: exit %d: %s %s", code, out, stderr)
	}
	// One flipped byte in what the deleted sidecar protected: corrected.
	flipAt(t, pack, protected/2, 1)
	code, got, stderr := runCmd(t, "cat", bwa, sampleURL)
	if code != exitOK || got != want {
		t.Fatalf("cat after a flipped byte: exit %d, same bytes %v: %s", code, got == want, stderr)
	}
	if code, _, stderr := runCmd(t, "verify", bwa); code != exitFailure || !strings.Contains(stderr, "corrected by parity") {
		t.Fatalf("verify of the flipped byte: exit %d: %s", code, stderr)
	}
	if code, out, stderr := runCmd(t, "repair", bwa); code != exitOK || !strings.Contains(out, "rewritten from parity") {
		t.Fatalf("repair of the flipped byte: exit %d: %s %s", code, out, stderr)
	}
	if code, out, stderr := runCmd(t, "verify", bwa); code != exitOK {
		t.Fatalf("verify at the end: exit %d: %s %s", code, out, stderr)
	}
}
