package pack

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

var update = flag.Bool("update", false, "rewrite this build's golden archive in testdata")

// The golden archives hold the same objects, written by a cgo build
// (frames compressed by the reference zstd library) and by a pure-Go
// build (klauspost/compress alone). Each build must reproduce its own
// byte for byte and read both.
const (
	goldenC      = "testdata/golden.bwa"
	goldenPureGo = "testdata/golden-purego.bwa"
)

// Archives of earlier formats, written by earlier releases: read, never
// rewritten. Format 2: objects whole in frames; format 3: frames of
// chunks without chains; format 4 before short ids: whole SHA-256 ids.
var goldenOld = []string{"testdata/golden-v2.bwa", "testdata/golden-v2-purego.bwa",
	"testdata/golden-v3.bwa", "testdata/golden-v3-purego.bwa",
	"testdata/golden-v4.bwa", "testdata/golden-v4-purego.bwa"}

// The golden archives as written before parity version 3 (every
// sidecar of version 2, 4 KiB sectors): read, never rewritten.
var goldenPar2 = []string{"testdata/golden-par2.bwa", "testdata/golden-par2-purego.bwa"}

// The golden archives as written before settings objects (COMMIT's
// settings of four fields, none in the packs): read, never rewritten.
var goldenS4 = []string{"testdata/golden-s4.bwa", "testdata/golden-s4-purego.bwa"}

// The golden archives as written before index format 6 (every index
// with its fan-out): read, never rewritten.
var goldenIx5 = []string{"testdata/golden-ix5.bwa", "testdata/golden-ix5-purego.bwa"}

// TestGoldenOld reads the golden archives of earlier formats: every
// object, and a clean verify (which checks every sidecar).
func TestGoldenOld(t *testing.T) {
	objs := buildGolden(t, filepath.Join(t.TempDir(), "g.bwa"))
	for _, dir := range slices.Concat(goldenOld, goldenPar2, goldenS4, goldenIx5) {
		s, err := Open(dir, Options{})
		if err != nil {
			t.Fatalf("open %s: %v", dir, err)
		}
		if slices.Contains(goldenIx5, dir) {
			if old, err := Outdated(dir); err != nil || len(old) > 0 {
				t.Errorf("%s: outdated %q, %v; an index of format 5 is current", dir, old, err)
			}
		}
		if n := s.idLen(); n != 32 && !slices.Contains(goldenPar2, dir) && !slices.Contains(goldenS4, dir) && !slices.Contains(goldenIx5, dir) {
			t.Errorf("%s: ids of %d bytes, want whole SHA-256 ids", dir, n)
		}
		checkAll(t, s, objs)
		verifyClean(t, s)
		s.Close()
	}
}

func goldenDirs() (own, other string) {
	if haveLibzstd {
		return goldenC, goldenPureGo
	}
	return goldenPureGo, goldenC
}

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
	goldenDir, otherDir := goldenDirs()
	if *update {
		os.RemoveAll(goldenDir)
		sharedtest.CopyDir(t, dir, goldenDir)
		os.Remove(filepath.Join(goldenDir, lockName))
	}
	s, err := Open(goldenDir, Options{})
	if err != nil {
		t.Fatalf("open %s: %v", goldenDir, err)
	}
	defer s.Close()
	if n := s.idLen(); n != ShortID {
		t.Errorf("golden archive has ids of %d bytes, want %d (short ids)", n, ShortID)
	}
	checkAll(t, s, objs)
	verifyClean(t, s)
	// The second commit's first frame of chunks extends the first's
	// chain: the golden archive holds a chained frame.
	cr, err := s.chunks()
	if err != nil {
		t.Fatal(err)
	}
	chained := false
	for _, f := range wholeDir(t, cr) {
		chained = chained || f.Prefix > 0
	}
	if !chained {
		t.Fatal("the golden archive holds no chained frame of chunks")
	}
	other, err := Open(otherDir, Options{})
	if err != nil {
		t.Fatalf("open %s: %v", otherDir, err)
	}
	defer other.Close()
	checkAll(t, other, objs)
	verifyClean(t, other)
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

// TestGoldenIx5Merged: commits into a copy of the golden archive of index
// format 5 write indexes of format 6 (no fan-out below fanoutMin
// entries) and merge the old index into them; every object, old and
// new, reads, and the archive verifies.
func TestGoldenIx5Merged(t *testing.T) {
	src := goldenIx5[0]
	if !haveLibzstd {
		src = goldenIx5[1]
	}
	dir := filepath.Join(t.TempDir(), "g.bwa")
	sharedtest.CopyDir(t, src, dir)
	objs := buildGolden(t, filepath.Join(t.TempDir(), "ref.bwa"))
	s, err := Open(dir, Options{noSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	version := func(num uint32) uint16 {
		b, err := os.ReadFile(filepath.Join(dir, indexName(num)))
		if err != nil || len(b) < 8 {
			t.Fatalf("read index %d: %v", num, err)
		}
		return fileVersion(b)
	}
	old := s.m.indexes[0].num
	if len(s.m.indexes) != 1 || version(old) != 5 {
		t.Fatalf("golden of format 5: %d indexes, first of version %d", len(s.m.indexes), version(old))
	}
	merged := false
	for c := uint64(10); c < 20 && !merged; c++ {
		w, err := s.Begin()
		if err != nil {
			t.Fatal(err)
		}
		add := randomObjects(c, 6, 3000)
		addAll(t, w, add)
		if err := w.Commit(nil); err != nil {
			t.Fatal(err)
		}
		w.Close()
		objs = append(objs, add...)
		merged = !slices.ContainsFunc(s.m.indexes, func(r fileRef) bool { return r.num == old })
	}
	if !merged {
		t.Fatal("ten commits did not merge the format-5 index")
	}
	for _, r := range s.m.indexes {
		if v := version(r.num); v != indexVersion {
			t.Errorf("index %d is of version %d after the merge, want %d", r.num, v, indexVersion)
		}
	}
	checkAll(t, s, objs)
	verifyClean(t, s)
	s2, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	checkAll(t, s2, objs)
}
