package pack

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestManyObjects stores 1e5 small objects in one commit and checks that
// lookups read the index in place: a Get allocates a small, fixed number
// of times, and opening does not grow the heap by the index size.
func TestManyObjects(t *testing.T) {
	const n = 100_000
	s, dir := mustCreate(t, Options{noSync: true, Level: 1})
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]ID, n)
	b := make([]byte, 24)
	for i := range ids {
		binary.LittleEndian.PutUint64(b, uint64(i))
		if ids[i], _, err = w.Add(KindBlock, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	w.Close()
	s.Close()

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s2, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	runtime.GC()
	runtime.ReadMemStats(&after)
	idxSize := s2.idx[0].size
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > idxSize/4 {
		t.Fatalf("Open grew the heap by %d bytes for a %d-byte index", grew, idxSize)
	}
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 2000; i++ {
		j := r.IntN(n)
		got, _, err := s2.Get(ids[j])
		if err != nil || binary.LittleEndian.Uint64(got) != uint64(j) {
			t.Fatalf("Get %d: %v", j, err)
		}
	}
	// Warm cache: what a lookup itself costs.
	id := ids[12345]
	s2.Get(id)
	allocs := testing.AllocsPerRun(200, func() {
		if _, _, err := s2.Get(id); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 8 {
		t.Fatalf("Get allocates %.0f times per call; lookups should not materialise the index", allocs)
	}
	missing := testing.AllocsPerRun(200, func() { s2.Has(Sum([]byte("absent"))) })
	if missing > 4 {
		t.Fatalf("Has of a missing id allocates %.0f times", missing)
	}
	t.Logf("index %d bytes for %d objects; Get %.0f allocs, Has(miss) %.0f allocs", idxSize, n, allocs, missing)
	_ = filepath.Join
}

// TestIndexMerging commits many times: lookups must consult several index
// files newest first, and merging must keep their number logarithmic.
func TestIndexMerging(t *testing.T) {
	s, dir := mustCreate(t, Options{noSync: true, Level: 1})
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var all []obj
	most := 0
	for c := 1; c <= 60; c++ {
		objs := randomObjects(uint64(c), 5+c%7, 300)
		addAll(t, w, objs)
		if err := w.Commit(nil); err != nil {
			t.Fatal(err)
		}
		all = append(all, objs...)
		n := len(s.idx)
		most = max(most, n)
		if bound := bits.Len(uint(c)) + 1; n > bound {
			t.Fatalf("commit %d: %d index files, more than %d", c, n, bound)
		}
	}
	if most < 3 {
		t.Fatalf("at most %d index files at once: lookups across several were not exercised", most)
	}
	checkAll(t, s, all)
	s2, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	checkAll(t, s2, all)
	verifyClean(t, s2)
	ents, _ := os.ReadDir(dir)
	if idxFiles := countSuffix(ents, ".idx"); idxFiles != len(s2.idx) {
		t.Fatalf("%d index files on disk, the commit names %d: merged ones were not removed", idxFiles, len(s2.idx))
	}
}

func countSuffix(ents []os.DirEntry, suffix string) int {
	n := 0
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), suffix) {
			n++
		}
	}
	return n
}
