package pack

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.bwa")

const goldenDir = "testdata/golden.bwa"

// buildGolden writes the small archive kept in testdata: two commits,
// several frames, two packs, deltas.
func buildGolden(t testing.TB, dir string) []obj {
	t.Helper()
	s, err := Create(dir, Options{noSync: true, FrameSize: 2 << 10, PackSize: 8 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var all []obj
	for c := uint64(1); c <= 2; c++ {
		if err := writeCommit(w, c); err != nil {
			t.Fatal(err)
		}
		for _, o := range commitObjects(c) {
			all = append(all, obj{id: Sum(o.data), kind: o.kind, data: o.data})
		}
	}
	return all
}

// TestGolden reads the archive committed in testdata (format stability:
// a reader must always open what an earlier version wrote) and checks that
// writing it again gives the same bytes (determinism; a zstd upgrade that
// changes its output shows up here: check, then run with -update).
func TestGolden(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "g.bwa")
	objs := buildGolden(t, dir)
	if *update {
		os.RemoveAll(goldenDir)
		copyDir(t, dir, goldenDir)
		os.Remove(filepath.Join(goldenDir, lockName))
	}
	s, err := Open(goldenDir, Options{})
	if err != nil {
		t.Fatalf("open %s: %v", goldenDir, err)
	}
	defer s.Close()
	checkAll(t, s, objs)
	verifyClean(t, s)
	ents, err := os.ReadDir(goldenDir)
	if err != nil || len(ents) < 5 {
		t.Fatalf("golden archive has %d files (%v)", len(ents), err)
	}
	for _, e := range ents {
		want, _ := os.ReadFile(filepath.Join(goldenDir, e.Name()))
		got, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: writing the golden archive again gives different bytes (%v); if the format or zstd changed on purpose, run go test -update", e.Name(), err)
		}
	}
}
