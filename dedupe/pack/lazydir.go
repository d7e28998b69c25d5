package pack

import (
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/blockwarc/blockwarc/dedupe/chunk"
)

// lazyDirectory is the directory of a view's frames of chunks read from
// its indexes' chunk-frame rows as lookups need them, a block of rows at
// a time, so that an open costs O(indexes) instead of O(frames): a
// restore of one capture read every row first (at 1.7 M frames, 400 TB
// of records, 68 MB and about 100 ms at each `cat`). The indexes' rows
// are in chunk order and each index follows the one before without gap
// (newLazyDirectory checks their ends; a block's rows are checked when it
// is read); `verify` checks the whole directory.
type lazyDirectory struct {
	idx   []*indexFile // those with rows, pinned while the directory is reachable
	base  []int        // frame number of each index's first row; base[len(idx)] is the count
	first []uint64     // each index's first chunk; first[len(idx)] is the next chunk
	// blocks caches blocks of rows read, by index and block; emptied when
	// it holds lazyBlocks of them.
	mu     sync.Mutex
	blocks map[[2]int][]chunk.Frame
	buf    []byte // a block's rows as read (mu held)
}

const (
	// lazyRows is the rows of a block (3,840 bytes of index, about a
	// parity sector, which a read checks whole): a lookup in 1.7 M
	// frames reads 15 blocks at most, the first few of which every
	// lookup shares.
	lazyRows = 96
	// lazyBlocks bounds the blocks cached (3.75 MiB of frames).
	lazyBlocks = 1024
)

// newLazyDirectory returns the directory of the frames of chunks idx
// lists, read on demand; when the indexes do not follow one another in
// chunk order (an index's rows out of place), the whole directory, sorted
// and checked (openDirectory).
func newLazyDirectory(idx []*indexFile) (chunk.Frames, error) {
	d := &lazyDirectory{base: []int{0}, blocks: map[[2]int][]chunk.Frame{}}
	for _, ix := range idx {
		if ix.ver >= 3 && ix.nc > 0 {
			d.idx = append(d.idx, ix)
		}
	}
	// The rows are read through the indexes' files, pinned first: an
	// index merged away while a reader of this view still restores stays
	// open until the directory is unreachable.
	pinned := slices.Clone(d.idx)
	for _, ix := range pinned {
		ix.pin()
	}
	unpin := func(idx []*indexFile) {
		for _, ix := range idx {
			ix.unpin()
		}
	}
	var next uint64
	for _, ix := range d.idx {
		// Its first and last rows only.
		var b [chunkRowSize]byte
		var ends []chunk.Frame
		for _, i := range []uint64{0, ix.nc - 1} {
			if err := ix.readChunkRows(b[:], i, func(r chunkRow) { ends = append(ends, frameOf(r)) }); err != nil {
				unpin(pinned)
				return nil, err
			}
		}
		if ends[0].FirstChunk != next || ends[1].FirstChunk < ends[0].FirstChunk {
			dir, err := openDirectory(idx)
			unpin(pinned)
			return dir, err
		}
		next = ends[1].FirstChunk + uint64(ends[1].Chunks)
		d.base = append(d.base, d.base[len(d.base)-1]+int(ix.nc))
		d.first = append(d.first, ends[0].FirstChunk)
	}
	d.first = append(d.first, next)
	runtime.AddCleanup(d, unpin, pinned)
	return d, nil
}

// block returns block b of index k's rows as frames, read and checked
// (each row, and that each frame's chunks follow the one before's) on
// first use.
func (d *lazyDirectory) block(k, b int) ([]chunk.Frame, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if f, ok := d.blocks[[2]int{k, b}]; ok {
		return f, nil
	}
	ix := d.idx[k]
	lo := uint64(b) * lazyRows
	n := min(ix.nc-lo, lazyRows)
	frames := make([]chunk.Frame, 0, n)
	d.buf = slices.Grow(d.buf[:0], int(n*chunkRowSize))[:n*chunkRowSize]
	if err := ix.readChunkRows(d.buf, lo, func(r chunkRow) { frames = append(frames, frameOf(r)) }); err != nil {
		return nil, err
	}
	for j, f := range frames {
		if f.Chunks == 0 || j > 0 && f.FirstChunk != frames[j-1].FirstChunk+uint64(frames[j-1].Chunks) {
			off, _ := chunkSection(ix.n, ix.nf, ix.nc, ix.lay)
			return nil, corrupt(ix.path, int64(off+(lo+uint64(j))*chunkRowSize), "chunk frame numbers chunks from %d (%d chunks), not after the frame before", f.FirstChunk, f.Chunks)
		}
	}
	if len(d.blocks) >= lazyBlocks {
		clear(d.blocks)
	}
	d.blocks[[2]int{k, b}] = frames
	return frames, nil
}

func (d *lazyDirectory) Len() int { return d.base[len(d.idx)] }

func (d *lazyDirectory) NextChunk() uint64 { return d.first[len(d.idx)] }

func (d *lazyDirectory) Frame(i int) (chunk.Frame, error) {
	k := sort.Search(len(d.idx), func(k int) bool { return d.base[k+1] > i })
	j := i - d.base[k]
	f, err := d.block(k, j/lazyRows)
	if err != nil {
		return chunk.Frame{}, err
	}
	return f[j%lazyRows], nil
}

func (d *lazyDirectory) Find(c uint64) (int, chunk.Frame, error) {
	if c >= d.NextChunk() {
		return -1, chunk.Frame{}, nil
	}
	k := sort.Search(len(d.idx), func(k int) bool { return d.first[k+1] > c })
	nb := int((d.idx[k].nc + lazyRows - 1) / lazyRows)
	var err error
	b := sort.Search(nb, func(b int) bool {
		f, e := d.block(k, b)
		if e != nil {
			err = e
			return true
		}
		return f[0].FirstChunk > c
	}) - 1
	if err != nil {
		return -1, chunk.Frame{}, err
	}
	f, err := d.block(k, max(b, 0))
	if err != nil {
		return -1, chunk.Frame{}, err
	}
	j := sort.Search(len(f), func(j int) bool { return f[j].FirstChunk > c }) - 1
	if j < 0 || c-f[j].FirstChunk >= uint64(f[j].Chunks) {
		return -1, chunk.Frame{}, nil
	}
	return d.base[k] + max(b, 0)*lazyRows + j, f[j], nil
}

// Whole reads every row: what a Writer continues.
func (d *lazyDirectory) Whole() (chunk.Directory, error) { return openDirectory(d.idx) }
