package pack

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"sync"

	"github.com/blockwarc/blockwarc/dedupe/chunk"

	"github.com/klauspost/compress/zstd"
)

// Chunked objects (format 3, docs/FORMAT.md "Chunked objects"): a new
// object's bytes are cut into content-defined chunks (package chunk),
// deduplicated against every chunk this writer stored or reused, and the
// new chunks appended in add order to large shared frames of their own,
// so that the new bytes of one crawl, across URLs, compress together. The
// object itself is stored as its ref list (a few bytes) in an ordinary
// frame, marked kindRefs; its index entry keeps the object's plaintext
// length. Chunks are named by number; an index lists the chunk frames of
// its commits with their first chunk number, so no hash of a chunk is
// stored.

// frameChunks flags a frame header whose data is a frame of chunks (a
// chunk table and the chunks, two zstd frames) rather than objects.
const frameChunks uint8 = 1

// refFrameSize is where a writer closes a frame of ref lists on its own:
// ref lists are small, and a restore decodes the whole frame its ref
// list is in.
const refFrameSize = 64 << 10

// chunkClass is the class of an object's chunks: similar bytes sit
// together in a chunk frame (headers with headers, HTML with HTML).
func chunkClass(k Kind) uint8 {
	switch k {
	case KindWARCHeader:
		return 0
	case KindHTTPHeader:
		return 1
	case KindLayout, KindBlock:
		return 2
	}
	return 3
}

// chunkDir is the chunk directory of a committed view: chunk.Frame.Offset
// is virtual, pack number << 40 | offset of the data in the pack.
const chunkPackShift = 40

func virtualOffset(pack uint32, off int64) int64 { return int64(pack)<<chunkPackShift | off }

// chunkSource reads the data of chunk frames from committed packs,
// through their parity when a frame fails its checksum. It reads whole
// frames (chunk.FrameSource), each checked against the CRC its directory
// row gives.
type chunkSource struct {
	s     *Store
	packs map[uint32]int64
}

// ReadFrame reports a frame that fails the store's checks (its CRC, even
// through parity; a pack shorter than the commit says) as
// chunk.ErrDamaged too, so that a chunk writer leaves it out of its
// table and chain, as it does a frame that fails the chunk reader's own
// checks, instead of failing: an ingest goes on over a frame not yet
// repaired.
func (c chunkSource) ReadFrame(p []byte, f chunk.Frame) error {
	err := c.readFrame(p, f.Offset, f.CRC)
	if errors.Is(err, ErrCorrupt) {
		err = damagedRead{err}
	}
	return err
}

// ReadAt makes chunkSource the io.ReaderAt a chunk.Reader takes; the
// Reader reads every frame through ReadFrame, which knows its CRC.
func (c chunkSource) ReadAt(p []byte, off int64) (int, error) {
	num := uint32(off >> chunkPackShift)
	return 0, damagedRead{corrupt(filepath.Join(c.s.dir, packName(num)), off&(1<<chunkPackShift-1), "read of no frame of chunks")}
}

// damagedRead is an error of chunkSource: chunk.ErrDamaged, and
// ErrCorrupt as before through the error it wraps.
type damagedRead struct{ error }

func (e damagedRead) Unwrap() error        { return e.error }
func (e damagedRead) Is(target error) bool { return target == chunk.ErrDamaged }

func (c chunkSource) readFrame(p []byte, off int64, want uint32) error {
	num := uint32(off >> chunkPackShift)
	at := off & (1<<chunkPackShift - 1)
	limit, ok := c.packs[num]
	if !ok || at+int64(len(p)) > limit {
		return corrupt(filepath.Join(c.s.dir, packName(num)), at, "chunk frame lies outside the committed pack")
	}
	f, err := c.s.packFile(num)
	if err != nil {
		return err
	}
	// Straight into the reader's buffer (sectors corrected earlier laid
	// over); only a frame that fails its checksum goes through parity.
	if n, err := f.ReadAt(p, at); err == nil || n == len(p) {
		if c.s.overlay(packName(num), p, at, n) == len(p) && crc(p) == want {
			return nil
		}
	}
	b, err := c.s.readChecked(packName(num), f, limit, at, len(p), func(b []byte) error {
		if crc(b) != want {
			return corrupt(filepath.Join(c.s.dir, packName(num)), at-frameFixedSize-4, "frame of chunks: data checksum mismatch")
		}
		return nil
	})
	if err != nil {
		return err
	}
	copy(p, b) // readChecked returns len(p) bytes or an error
	return nil
}

// newChunkReader reads the chunk frames of dir in the packs of a view.
func (s *Store) newChunkReader(dir chunk.Frames, packs map[uint32]int64) (*chunk.Reader, error) {
	// As many decoded bytes as the frames of objects get: an ingest that
	// adds a crawl learns the previous captures of its pages from frames
	// spread over many chains, and a cache the size of one chain (4 MiB)
	// decoded each chain again for every page: 45 % of the CPU of 351
	// one-crawl ingests of a mixed collection, 3 % with 32 MiB.
	if c := s.opts.Cache; c != nil {
		return chunk.NewCachedReader(chunkSource{s, packs}, dir, c.chunks, s.ns)
	}
	return chunk.NewReader(chunkSource{s, packs}, dir, max(s.opts.CacheBytes, chunk.DefaultCacheBytes))
}

// chunkDirectory builds the directory of every chunk frame the indexes
// list, checking that the frames number their chunks without gap or
// overlap, and returns the rows too (sorted by first chunk).
func chunkDirectory(idx []*indexFile) (chunk.Directory, []chunkRow, error) {
	var rows []chunkRow
	for _, ix := range idx {
		r, err := ix.chunkRows()
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, r...)
	}
	dir, err := directoryOf(rows)
	return dir, rows, err
}

// openDirectory is chunkDirectory without the rows, for every open of the
// store (Store.chunks): each row becomes a frame as it is read (1 MiB of
// the index at a time), so that neither the index's bytes nor its rows
// are held beside the directory (40 + 56 bytes a frame more, at each
// open; BenchmarkOpenDirectory).
func openDirectory(idx []*indexFile) (chunk.Directory, error) {
	var n uint64 // each index's count is checked against its size (load)
	for _, ix := range idx {
		n += ix.nc
	}
	dir := make(chunk.Directory, 0, n)
	for _, ix := range idx {
		if err := ix.eachChunkRow(func(r chunkRow) { dir = append(dir, frameOf(r)) }); err != nil {
			return nil, err
		}
	}
	return checkDirectory(dir)
}

// directoryOf sorts rows by first chunk and makes them a directory.
func directoryOf(rows []chunkRow) (chunk.Directory, error) {
	slices.SortFunc(rows, func(a, b chunkRow) int { return cmp.Compare(a.first, b.first) })
	dir := make(chunk.Directory, len(rows))
	for i, r := range rows {
		dir[i] = frameOf(r)
	}
	return checkDirectory(dir)
}

// frameOf is the directory's frame of a chunk-frame row.
func frameOf(r chunkRow) chunk.Frame {
	return chunk.Frame{Offset: virtualOffset(r.pack, r.off+frameFixedSize+4), Size: r.len - frameFixedSize - 4,
		Table: r.table, Plain: r.plain, FirstChunk: r.first, Chunks: r.chunks, CRC: r.crc, Prefix: r.prefix}
}

// checkDirectory sorts dir by first chunk when it is not (stably: frames
// that claim one first chunk keep the indexes' order, so the one named in
// the error is always the same) and checks that its frames number their
// chunks from 0 without gap or overlap, and that each frame's chain is
// one the directory holds. An error names the pack and offset of the
// frame's header, from the frame's offset.
func checkDirectory(dir chunk.Directory) (chunk.Directory, error) {
	byFirst := func(a, b chunk.Frame) int { return cmp.Compare(a.FirstChunk, b.FirstChunk) }
	if !slices.IsSortedFunc(dir, byFirst) { // indexes in commit order usually are
		slices.SortStableFunc(dir, byFirst)
	}
	at := func(f chunk.Frame) (string, int64) {
		return packName(uint32(f.Offset >> chunkPackShift)), f.Offset&(1<<chunkPackShift-1) - frameFixedSize - 4
	}
	var next uint64
	for _, f := range dir {
		if f.FirstChunk != next || f.Chunks == 0 {
			name, off := at(f)
			return nil, corrupt(name, off, "chunk frame numbers chunks from %d (%d chunks), expected %d", f.FirstChunk, f.Chunks, next)
		}
		next += uint64(f.Chunks)
	}
	for i := range dir {
		if err := dir.CheckFrame(i); err != nil {
			name, off := at(dir[i])
			return nil, corrupt(name, off, "frame of chunks: %v", err)
		}
	}
	return dir, nil
}

// chunkRowAt reads the frame header at row and, when it is a frame of
// chunks, returns its chunk-frame row numbered from first (ok true).
func chunkRowAt(f io.ReaderAt, row frameRow, first uint64) (chunkRow, bool, error) {
	// The fixed header says which kind of frame it is: a frame of objects
	// is read once, by the caller.
	var fixed [frameFixedSize]byte
	if _, err := f.ReadAt(fixed[:], row.off); err != nil {
		return chunkRow{}, false, err
	}
	if fixed[5]&frameChunks == 0 {
		return chunkRow{}, false, nil
	}
	b := make([]byte, row.len)
	if _, err := f.ReadAt(b, row.off); err != nil {
		return chunkRow{}, true, err
	}
	h, hl, err := parseFrameHeader(b, "", row.off)
	if err != nil {
		return chunkRow{}, true, err
	}
	t, err := zstdFrameLen(b[hl:])
	if err != nil {
		return chunkRow{}, true, err
	}
	return chunkRow{pack: row.pack, off: row.off, len: row.len, first: first, chunks: h.count,
		table: uint32(t), plain: h.ulen, crc: h.dcrc, prefix: h.depth}, true, nil
}

// chunkView is the chunk side of a committed view, built on first use.
type chunkView struct {
	once sync.Once
	r    *chunk.Reader
	err  error
}

func (s *Store) chunks() (*chunk.Reader, error) {
	s.mu.RLock()
	cv, idx, packs := s.cv, s.idx, s.packs
	s.mu.RUnlock()
	cv.once.Do(func() {
		dir, err := newLazyDirectory(idx)
		if err != nil {
			cv.err = err
			return
		}
		cv.r, cv.err = s.newChunkReader(dir, packs)
	})
	return cv.r, cv.err
}

// restoreRefs returns the plaintext of a chunked object from its ref
// list, checked against its length.
func (s *Store) restoreRefs(code []byte, plainLen uint32, file string, off int64, id ID) ([]byte, error) {
	cr, err := s.chunks()
	if err != nil {
		return nil, err
	}
	return s.restoreWith(cr, code, plainLen, file, off, id)
}

// restoreWith is restoreRefs through the chunk reader cr.
func (s *Store) restoreWith(cr *chunk.Reader, code []byte, plainLen uint32, file string, off int64, id ID) ([]byte, error) {
	refs, err := chunk.DecodeRefsBelow(nil, code, nil, int(plainLen), cr.Frames().NextChunk())
	if err != nil {
		return nil, corrupt(file, off, "object %s: %v", id, err)
	}
	b, err := cr.Restore(make([]byte, 0, min(int(plainLen), 1<<20)), refs)
	if err != nil {
		return nil, fmt.Errorf("object %s: %w", id, s.chunkError(err))
	}
	if len(b) != int(plainLen) {
		return b, &lengthError{corrupt(file, off, "object %s restores to %d bytes, index says %d", id, len(b), plainLen)}
	}
	return b, nil
}

// lengthError is a restore whose only fault is its length: Verify, which
// restores an object before it knows its index entry, passes the largest
// length and compares with the entry afterwards.
type lengthError struct{ error }

func (e *lengthError) Unwrap() error { return e.error }

func isLengthOnly(err error) bool {
	var le *lengthError
	return errors.As(err, &le)
}

// chunkError names the pack file and offset of a chunk frame that fails
// its checks.
func (s *Store) chunkError(err error) error {
	var ce *chunk.CorruptError
	if errors.As(err, &ce) {
		num := uint32(ce.Offset >> chunkPackShift)
		return corrupt(filepath.Join(s.dir, packName(num)), ce.Offset&(1<<chunkPackShift-1)-frameFixedSize-4, "frame of chunks: %s", ce.Reason)
	}
	return err
}

// chunkOut takes the chunk writer's frames into the pack writer's queue,
// in order with the object frames.
type chunkOut struct{ w *Writer }

func (c chunkOut) Write([]byte) (int, error) {
	return 0, errors.New("pack: chunk frames go through WriteFrame")
}

func (c chunkOut) WriteFrame(f chunk.Frame, data []byte) error {
	w := c.w
	j := &frameJob{seq: len(w.frames), enc: data, chunkFrame: &f, done: closedChan}
	w.frames = append(w.frames, frameRow{})
	w.isChunk = append(w.isChunk, true)
	w.queue = append(w.queue, j)
	if w.opts.Workers == 1 {
		return w.drain()
	}
	for len(w.queue) > w.opts.Workers+1 {
		if err := w.writeOldest(); err != nil {
			return err
		}
	}
	return nil
}

// chunkFrames frames of chunks are in flight at once, and as many
// compress at once when Options.Workers allows (a budget of 512 MiB
// or more: dedupe.SplitMemory). A frame's dictionary is the plaintext
// of the frames before it, so they need not wait for each other; with
// one at a time, an ingest of mostly new bytes (a first crawl, a new
// site) ran on one core while the level-19 compression of its frames
// (two seconds a 4 MiB frame) was 80 % of its CPU. The number in flight
// is fixed, not Options.Workers, for the bytes' sake (startChunks); each
// holds its body and, while compressing, a context of the library
// (about 70 MiB at level 19 with a 4 MiB dictionary).
const chunkFrames = 2

// startChunks sets up the writer's chunk writer, continuing the
// committed chunk numbering and reading earlier chunks through the
// store's chunk reader.
func (w *Writer) startChunks() error {
	prior, err := w.s.chunks()
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	co := chunk.Options{
		// chunkFrames frames of chunks wait while the next fills,
		// whatever Options.Workers: a chunk frame then enters the pack
		// queue at the same point among the object frames for any worker
		// count, so the pack's bytes do not depend on it. Up to
		// Options.Workers of them compress at once.
		TableEntries: w.set.ChunkTable, Workers: min(chunkFrames, w.opts.Workers), Pending: chunkFrames,
		Level: chunk.DefaultLevel, ChainBytes: w.set.ChainBytes,
		SeedBytes: w.set.SeedBytes, FrameSize: w.opts.hooks.ChunkFrameSize,
		// Frames of chunks are compressed as the pack's are: the reference
		// library at level 19 for the default level, at libzstdFastLevel
		// in fitted contexts for the fast tier, klauspost otherwise.
		PureGo: w.opts.Level != zstd.SpeedBestCompression, GoLevel: w.opts.Level}
	if haveLibzstd && w.opts.Level == zstd.SpeedBetterCompression {
		co.PureGo, co.Fitted, co.Level = false, true, libzstdFastLevel
	}
	cw, err := chunk.NewWriter(chunkOut{w}, prior, co)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	w.cw, w.pendRefs = cw, map[ID][]uint64{}
	return nil
}

// addChunked stores data as chunks and the object as its ref list.
func (w *Writer) addChunked(kind Kind, data []byte, id ID, base *ID) (ID, bool, error) {
	var prev []uint64
	if base != nil {
		prev = w.refsOf(*base)
	}
	refs, err := w.cw.Put([]chunk.Part{{Data: data, Class: chunkClass(kind)}}, prev)
	if err != nil {
		return id, false, w.fail(fmt.Errorf("add object: %w", err))
	}
	code := chunk.EncodeRefs(nil, refs, nil)
	if len(w.cur) > 0 && w.curSize+len(code) > min(w.opts.FrameSize, refFrameSize) {
		if err := w.Flush(); err != nil {
			return id, false, err
		}
	}
	w.pending[id] = pend{frame: -1, idx: int32(len(w.cur)), kind: kind | kindRefs, plain: uint32(len(data))}
	w.refs[[RefLen]byte(id[:RefLen])]++
	w.cur = append(w.cur, curObj{id: id, kind: kind | kindRefs, data: code})
	w.curSize += len(code)
	w.pendRefs[id] = refs
	return id, true, nil
}

// refsOf returns the ref list of a chunked object (nil when it is not
// one, or cannot be read: it only helps the chunk writer learn the
// chunks of an earlier capture).
func (w *Writer) refsOf(id ID) []uint64 {
	if r, ok := w.pendRefs[id]; ok {
		return r
	}
	if _, ok := w.pending[id]; ok {
		return nil
	}
	l, ok, err := w.s.locate(id)
	if err != nil || !ok || l.kind&kindRefs == 0 {
		return nil
	}
	budget := maxDecodes
	fr, err := w.s.frame(committedView{w.s}, l.frameRow, l.limit, w.s.opts.MaxChain, &budget)
	if err != nil {
		return nil
	}
	defer w.s.cache.release(fr)
	sp, ok := fr.span(l)
	if !ok {
		return nil
	}
	end := uint64(math.MaxUint64)
	if cr, err := w.s.chunks(); err == nil {
		end = cr.Frames().NextChunk()
	}
	refs, err := chunk.DecodeRefsBelow(nil, fr.plain[sp.off:sp.off+sp.len], nil, int(l.objLen), end)
	if err != nil {
		return nil
	}
	return refs
}

// span finds the table row of the object l locates. An object stored as
// its ref list is matched by offset and kind (its index entry holds the
// object's length, the row the ref list's); another by all three.
func (fr *decodedFrame) span(l loc) (objSpan, bool) {
	// An empty object shares its offset with the next one.
	want := objSpan{kind: l.kind, off: l.objOff, len: l.objLen}
	i := sort.Search(len(fr.spans), func(i int) bool { return fr.spans[i].off >= l.objOff })
	for ; i < len(fr.spans) && fr.spans[i].off == l.objOff; i++ {
		sp := fr.spans[i]
		if sp == want || l.kind&kindRefs != 0 && sp.kind == l.kind {
			return sp, true
		}
	}
	return objSpan{}, false
}

var (
	_ io.ReaderAt       = chunkSource{}
	_ chunk.FrameSource = chunkSource{}
)

// closedChan marks a job that needs no compressing.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// zstdFrameLen returns the length of the zstd frame (RFC 8878 §3.1.1)
// at the start of b, by walking its block headers: how a frame of chunks
// is split into its chunk table and its chunks when an index that said
// so is rebuilt from the pack.
func zstdFrameLen(b []byte) (int, error) {
	bad := errors.New("not a complete zstd frame")
	if len(b) < 6 || b[0] != 0x28 || b[1] != 0xb5 || b[2] != 0x2f || b[3] != 0xfd {
		return 0, bad
	}
	fhd := b[4]
	n := 5
	if fhd&0x20 == 0 { // no single segment: a window descriptor
		n++
	}
	n += [4]int{0, 1, 2, 4}[fhd&3] // dictionary id
	fcs := [4]int{0, 2, 4, 8}[fhd>>6]
	if fcs == 0 && fhd&0x20 != 0 {
		fcs = 1
	}
	n += fcs
	for {
		if n+3 > len(b) {
			return 0, bad
		}
		h := int(b[n]) | int(b[n+1])<<8 | int(b[n+2])<<16
		n += 3
		size := h >> 3
		switch (h >> 1) & 3 {
		case 1: // RLE: one byte stands for size bytes
			size = 1
		case 3:
			return 0, bad
		}
		n += size
		if n > len(b) {
			return 0, bad
		}
		if h&1 != 0 {
			break
		}
	}
	if fhd&4 != 0 { // content checksum
		n += 4
	}
	if n > len(b) {
		return 0, bad
	}
	return n, nil
}
