package pack

import (
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/chunk"
)

// rowsFrom is n rows of synthRows numbered from chunk first, frame at
// from, with chains of three frames and chunk counts that vary.
func rowsFrom(from, n int, first uint64) []chunkRow {
	rows := synthRows(from + n)[from:]
	for i := range rows {
		rows[i].first, rows[i].chunks, rows[i].prefix = first, uint32(1+(from+i)%5), uint8((from+i)%3)
		first += uint64(rows[i].chunks)
	}
	return rows
}

// lazyOf is newLazyDirectory of idx, which must read on demand.
func lazyOf(t *testing.T, idx []*indexFile) *lazyDirectory {
	t.Helper()
	d, err := newLazyDirectory(idx)
	if err != nil {
		t.Fatal(err)
	}
	ld, ok := d.(*lazyDirectory)
	if !ok {
		t.Fatalf("the indexes were read whole (%T)", d)
	}
	return ld
}

// TestLazyDirectory: the directory read on demand from three indexes
// (blocks whole and cut short, an index of fewer rows than a block) gives
// every frame and finds every chunk as the directory read whole does,
// and nothing past the last chunk; it holds at most lazyBlocks blocks.
func TestLazyDirectory(t *testing.T) {
	a := rowsFrom(0, 3*lazyRows+7, 0)
	end := func(rows []chunkRow) uint64 { r := rows[len(rows)-1]; return r.first + uint64(r.chunks) }
	b := rowsFrom(len(a), 5, end(a))
	c := rowsFrom(len(a)+len(b), 2*lazyRows, end(b))
	idx := []*indexFile{chunkIndex(t, 1, a), chunkIndex(t, 2, b), chunkIndex(t, 3, c)}
	want, err := openDirectory(idx)
	if err != nil {
		t.Fatal(err)
	}
	d := lazyOf(t, idx)
	if d.Len() != len(want) || d.NextChunk() != want.NextChunk() {
		t.Fatalf("%d frames, next chunk %d; want %d, %d", d.Len(), d.NextChunk(), len(want), want.NextChunk())
	}
	// Frames backwards, so that each block is first read for its last rows.
	for i := len(want) - 1; i >= 0; i-- {
		f, err := d.Frame(i)
		if err != nil || f != want[i] {
			t.Fatalf("frame %d: %+v, %v; want %+v", i, f, err, want[i])
		}
	}
	for ch := range want.NextChunk() + 3 {
		i, f, err := d.Find(ch)
		wi, wf, _ := want.Find(ch)
		if err != nil || i != wi || f != wf {
			t.Fatalf("chunk %d: frame %d %+v, %v; want %d %+v", ch, i, f, err, wi, wf)
		}
	}
	whole, err := d.Whole()
	if err != nil || !slices.Equal(whole, want) {
		t.Fatalf("Whole: %d frames, %v; want %d", len(whole), err, len(want))
	}

	// The cache is bounded: a directory of more blocks than it holds,
	// each read once.
	big := lazyOf(t, []*indexFile{chunkIndex(t, 4, rowsFrom(0, (lazyBlocks+10)*lazyRows, 0))})
	for i := range big.Len() {
		if _, err := big.Frame(i); err != nil {
			t.Fatal(err)
		}
		if len(big.blocks) > lazyBlocks {
			t.Fatalf("%d blocks cached after frame %d, at most %d", len(big.blocks), i, lazyBlocks)
		}
	}
}

// TestLazyDirectoryOutOfOrder: indexes whose rows do not follow one
// another in chunk order are read whole and sorted, as before, and are
// not kept open for it.
func TestLazyDirectoryOutOfOrder(t *testing.T) {
	a := rowsFrom(0, 10, 0)
	b := rowsFrom(10, 10, a[9].first+uint64(a[9].chunks))
	idx := []*indexFile{chunkIndex(t, 1, b), chunkIndex(t, 2, a)}
	d, err := newLazyDirectory(idx)
	if err != nil {
		t.Fatal(err)
	}
	whole, ok := d.(chunk.Directory)
	want, _ := openDirectory(idx)
	if !ok || !slices.Equal(whole, want) || whole[0].FirstChunk != 0 {
		t.Fatalf("indexes out of chunk order: %T, want the sorted directory", d)
	}
	// Read whole, the directory holds no index open.
	for _, ix := range idx {
		ix.retire()
		if !ix.isClosed() {
			t.Errorf("index %s, retired, still open for a directory read whole", ix.path)
		}
	}
}

// TestLazyDirectoryDamage: a row inside a block that does not follow the
// one before it, or that does not read, is an error naming the index
// and the row's offset when its block is read, never a wrong frame.
func TestLazyDirectoryDamage(t *testing.T) {
	rows := rowsFrom(0, 3*lazyRows, 0)
	gap := lazyRows + 5
	rows[gap].first++ // a chunk no frame holds
	ix := chunkIndex(t, 1, rows)
	d := lazyOf(t, []*indexFile{ix})
	off, _ := chunkSection(ix.n, ix.nf, ix.nc, ix.lay)
	at := "at offset " + strconv.FormatInt(int64(off)+int64(gap*chunkRowSize), 10)
	if _, err := d.Frame(0); err != nil {
		t.Fatalf("a block before the damage: %v", err)
	}
	if _, err := d.Frame(gap + 1); err == nil || !strings.Contains(err.Error(), ix.path) || !strings.Contains(err.Error(), at) {
		t.Fatalf("frame in the damaged block: %v, want an error naming %s%s", err, ix.path, at)
	}
	if i, _, err := d.Find(rows[gap].first); err == nil {
		t.Fatalf("chunk of the damaged row found in frame %d", i)
	}
	bad := rowsFrom(0, 2*lazyRows, 0)
	bad[lazyRows+1].len = 1 // shorter than a frame's header
	ix = chunkIndex(t, 2, bad)
	d = lazyOf(t, []*indexFile{ix})
	if _, err := d.Frame(lazyRows); err == nil || !strings.Contains(err.Error(), "bad chunk-frame row") {
		t.Fatalf("a bad row: %v", err)
	}
}

// TestLazyDirectoryPins: an index a directory reads stays open when a
// later view retires it (merged away) until the directory is dropped;
// shut (the store closed) closes it whatever holds it.
func TestLazyDirectoryPins(t *testing.T) {
	ix := chunkIndex(t, 1, rowsFrom(0, 4*lazyRows, 0))
	d := lazyOf(t, []*indexFile{ix})
	ix.retire()
	if ix.isClosed() {
		t.Fatal("an index a directory reads was closed when retired")
	}
	if _, err := d.Frame(3 * lazyRows); err != nil {
		t.Fatalf("a block read after the index retired: %v", err)
	}
	d = nil
	for deadline := time.Now().Add(10 * time.Second); !ix.isClosed(); {
		if time.Now().After(deadline) {
			t.Fatal("the retired index is still open once its directory was dropped")
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}

	ix = chunkIndex(t, 2, rowsFrom(0, 4*lazyRows, 0))
	d = lazyOf(t, []*indexFile{ix})
	ix.shut()
	if !ix.isClosed() {
		t.Fatal("shut left the index open")
	}
	if _, err := d.Frame(2 * lazyRows); err == nil {
		t.Fatal("a block read from a shut index")
	}
	runtime.KeepAlive(d)
}

func (ix *indexFile) isClosed() bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.closed
}

// TestCloseShutsIndexes: closing a store closes its indexes, those of
// earlier views included, although the directory of its chunks, read on
// demand, still holds them; that directory then fails rather than read a
// file the store gave up.
func TestCloseShutsIndexes(t *testing.T) {
	dir, _ := chainArchive(t, true)
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cr, err := s.chunks()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cr.Frames().(*lazyDirectory); !ok {
		t.Fatalf("the store's directory of chunks is %T, want one read on demand", cr.Frames())
	}
	idx := slices.Clone(s.idx)
	// A view without them (as after a merge): they stay open for the
	// directory that reads them.
	s.install(s.m, nil)
	for _, ix := range idx {
		if ix.isClosed() {
			t.Fatalf("index %s, retired, closed under the directory reading it", ix.path)
		}
	}
	s.Close()
	for _, ix := range idx {
		if !ix.isClosed() {
			t.Errorf("index %s open after the store closed", ix.path)
		}
	}
	ld := cr.Frames().(*lazyDirectory)
	clear(ld.blocks)
	if _, err := ld.Frame(0); err == nil {
		t.Error("a frame read from the indexes of a closed store")
	}
}
