package pack

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestManyObjects stores 1e5 small objects in one commit and checks that
// lookups read the index in place: a Get allocates a small, fixed number
// of times, and opening does not grow the heap by the index size.
func TestManyObjects(t *testing.T) {
	// Objects stored whole: a lookup's own allocations; stored as chunks,
	// the restore adds its ref list, its buffer and the chunk reader's
	// bookkeeping (about 8 more), still nothing that grows with the index.
	for _, c := range []struct {
		plain     bool
		maxAllocs float64
	}{{true, 8}, {false, 16}} {
		manyObjects(t, c.plain, c.maxAllocs)
	}
}

func manyObjects(t *testing.T, plain bool, maxAllocs float64) {
	const n = 100_000
	s, dir := mustCreate(t, Options{noSync: true, Level: 1, Plain: plain})
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
	if allocs > maxAllocs {
		t.Fatalf("Get allocates %.0f times per call (plain %v); lookups should not materialise the index", allocs, plain)
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

// TestEntryLayouts writes indexes whose entries need every field width
// (1 to 4 bytes), with whole and short ids, merges two of different
// layouts, and checks that find and scan return every entry as written,
// and that a short index finds an object by its whole SHA-256 too.
func TestEntryLayouts(t *testing.T) {
	for _, idLen := range []int{32, ShortID} {
		t.Run(fmt.Sprint(idLen), func(t *testing.T) { testEntryLayouts(t, idLen) })
	}
}

func testEntryLayouts(t *testing.T, idLen int) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 4))
	mk := func(n, nf int, maxOff, maxLen uint32) []entry {
		es := make([]entry, n)
		for i := range es {
			for j := range es[i].id {
				es[i].id[j] = byte(r.Uint32())
			}
			es[i] = entry{id: es[i].id.truncate(idLen), frame: uint32(r.IntN(nf)), off: r.Uint32N(maxOff + 1), len: r.Uint32N(maxLen + 1), kind: KindBlock}
		}
		es[0].off, es[0].len, es[0].frame = maxOff, maxLen, uint32(nf-1)
		slices.SortFunc(es, func(a, b entry) int { return bytes.Compare(a.id[:], b.id[:]) })
		return es
	}
	frames := func(nf int) []frameRow {
		rows := make([]frameRow, nf)
		for i := range rows {
			rows[i] = frameRow{pack: 1, off: int64(packHeaderSize + i), len: 1}
		}
		return rows
	}
	check := func(ix *indexFile, want []entry, frameBase uint32, total int) {
		t.Helper()
		var buf [maxEntrySize]byte
		for i, e := range want {
			q := e.id
			if idLen < len(q) && i%2 == 1 {
				// A whole SHA-256 (here: the id with other bytes after
				// ShortID) names the object of its short id.
				q[len(q)-1] ^= 0xff
			}
			got, ok, err := ix.find(q, buf[:])
			e.frame += frameBase
			if err != nil || !ok || got != e {
				t.Fatalf("find %s: got %+v %v %v, want %+v", e.id, got, ok, err, e)
			}
		}
		n := 0
		if err := ix.scan(func(int64, entry) error { n++; return nil }, nil); err != nil || n != total {
			t.Fatalf("scan: %d entries, %v", n, err)
		}
	}
	open := func(num uint32, size int64) *indexFile {
		t.Helper()
		ix, err := openIndex(filepath.Join(dir, indexName(num)), num, size)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.f.Close() })
		return ix
	}
	a, b := mk(700, 3, 200, 1<<31), mk(900, 70000, 1<<20, 70000)
	sa, err := writeIndex(filepath.Join(dir, indexName(1)), 1, a, frames(3), nil, nil, idLen, &Options{noSync: true})
	if err != nil {
		t.Fatal(err)
	}
	sb, err := writeIndex(filepath.Join(dir, indexName(2)), 2, b, frames(70000), nil, nil, idLen, &Options{noSync: true})
	if err != nil {
		t.Fatal(err)
	}
	ia, ib := open(1, sa), open(2, sb)
	// Fewer than fanoutMin entries each: no fan-out, ids whole (format 6).
	if want := (entryLayout{uint8(idLen), 1, 1, 4, true}); ia.lay != want {
		t.Errorf("layout of index 1 = %+v, want %+v", ia.lay, want)
	}
	if want := (entryLayout{uint8(idLen), 3, 3, 3, true}); ib.lay != want {
		t.Errorf("layout of index 2 = %+v, want %+v", ib.lay, want)
	}
	check(ia, a, 0, len(a))
	check(ib, b, 0, len(b))
	sm, err := mergeIndexes(filepath.Join(dir, indexName(3)), 3, []*indexFile{ia, ib}, &Options{noSync: true})
	if err != nil {
		t.Fatal(err)
	}
	im := open(3, sm)
	// 1,600 entries: the fan-out, ids without their first byte.
	if want := (entryLayout{uint8(idLen), 3, 3, 4, false}); im.lay != want {
		t.Errorf("merged layout = %+v, want %+v", im.lay, want)
	}
	check(im, a, 0, len(a)+len(b))
	check(im, b, 3, len(a)+len(b))
}

// TestIDLengthMismatch: an index whose id length is not the archive's (a
// COMMIT whose short-ids flag was flipped) is refused, naming the index,
// rather than read with the wrong entry size.
func TestIDLengthMismatch(t *testing.T) {
	s, dir := mustCreate(t, Options{noSync: true})
	if !s.m.short {
		t.Fatal("a new archive does not have short ids")
	}
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	addAll(t, w, randomObjects(5, 20, 3000))
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	w.Close()
	s.Close()
	m, err := readManifestFile(filepath.Join(dir, commitName))
	if err != nil {
		t.Fatal(err)
	}
	m.short = false
	for _, name := range []string{commitName, commitCopy} {
		if err := os.WriteFile(filepath.Join(dir, name), m.encode(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err = Open(dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "16-byte ids, the archive 32-byte ones") || !strings.Contains(err.Error(), indexName(1)) {
		t.Fatalf("open with a flipped short-ids flag: %v", err)
	}
}

// entriesAt is where the entries of the index file at path start: after
// the fan-out, or right after the header in a format-6 index without one.
func entriesAt(t testing.TB, path string) int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || len(b) < indexHeaderSize+trailerSize {
		t.Fatalf("read index %s: %d bytes, %v", path, len(b), err)
	}
	if fileVersion(b) >= 6 && le.Uint64(b[len(b)-trailerSize:]) < fanoutMin {
		return indexHeaderSize
	}
	return indexHeaderSize + fanoutSize
}
