package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"blockwarc/internal/sharedtest"
)

// sampleArchive ingests the sample dumps into a new archive (no tables).
func sampleArchive(t *testing.T) string {
	t.Helper()
	arch := filepath.Join(t.TempDir(), "s.bwa")
	samples := filepath.Join(sharedtest.RepoRoot(t), "testdata", "samples")
	if code, _, errOut := runCmd(t, "ingest", "-tables=false", arch, samples); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	return arch
}

// TestMissingIndexHint: with an index deleted, every reader fails naming
// it and says that 'blockwarc repair ARCHIVE' rebuilds it without the
// originals; it does.
func TestMissingIndexHint(t *testing.T) {
	arch := sampleArchive(t)
	idx, _ := filepath.Glob(filepath.Join(arch, "*.idx"))
	if len(idx) == 0 {
		t.Fatal("no index")
	}
	if err := os.Remove(idx[0]); err != nil {
		t.Fatal(err)
	}
	hint := "is missing: 'blockwarc repair " + arch + "' rebuilds it from the packs (the original input files are not needed)"
	for _, args := range [][]string{
		{"cat", arch, "http://127.0.0.1:8103/"},
		{"ls", arch},
		{"export-warc", "-o", filepath.Join(t.TempDir(), "x.warc.gz"), arch},
		{"verify", arch},
	} {
		code, _, errOut := runCmd(t, args...)
		if code != exitFailure || !strings.Contains(errOut, filepath.Base(idx[0])) || !strings.Contains(errOut, hint) {
			t.Errorf("%s with %s deleted: exit %d, %q", args[0], filepath.Base(idx[0]), code, errOut)
		}
	}
	if code, out, errOut := runCmd(t, "repair", arch); code != exitOK {
		t.Fatalf("repair: exit %d: %s %s", code, out, errOut)
	}
	if code, out, errOut := runCmd(t, "verify", arch); code != exitOK {
		t.Fatalf("verify after repair: exit %d: %s %s", code, out, errOut)
	}
}

// TestWalkLeftover: the private directory of a repair's walk that a kill
// left in the archive is removed by the next repair and the next ingest,
// which say so.
func TestWalkLeftover(t *testing.T) {
	arch := sampleArchive(t)
	leave := func() string {
		d := filepath.Join(arch, "blockwarc-walk-4242")
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "run-1.zst"), []byte("sorted run"), 0o600)
		return d
	}
	d := leave()
	code, out, errOut := runCmd(t, "repair", arch)
	if code != exitOK || !strings.Contains(out, "removed "+d) {
		t.Errorf("repair with a leftover walk dir: exit %d, %q %q", code, out, errOut)
	}
	if _, err := os.Stat(d); !os.IsNotExist(err) {
		t.Errorf("repair kept %s: %v", d, err)
	}
	d = leave()
	samples := filepath.Join(sharedtest.RepoRoot(t), "testdata", "samples")
	code, _, errOut = runCmd(t, "ingest", "-tables=false", arch, samples)
	if code != exitOK || !strings.Contains(errOut, "removed "+d) {
		t.Errorf("ingest with a leftover walk dir: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(d); !os.IsNotExist(err) {
		t.Errorf("ingest kept %s: %v", d, err)
	}
	if code, out, errOut := runCmd(t, "verify", arch); code != exitOK {
		t.Errorf("verify: exit %d: %s %s", code, out, errOut)
	}
}
