package pack

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"sync"
)

// entry is one decoded index entry.
type entry struct {
	id       ID
	frame    uint32
	off, len uint32
	kind     Kind
}

// entryLayout is the byte widths of an index's entry fields, chosen per
// index file as the fewest bytes (1..4) that hold its largest frame number,
// offset and length: most frames are far below 4 GiB and most indexes have
// few frames, so fixed 4-byte fields would waste about a sixth of an entry.
// Entries stay fixed-size, so the index stays binary-searchable.
type entryLayout struct {
	id              uint8 // length of the ids: ShortID or 32
	frame, off, len uint8
	// whole: the index has no fan-out (format 6, fewer than fanoutMin
	// entries) and entries hold their ids whole.
	whole bool
}

// size is the entry size: the id without its first byte (the fan-out
// bucket says it) or whole, the three fields, the kind.
func (l entryLayout) size() int {
	return l.idBytes() + int(l.frame) + int(l.off) + int(l.len) + 1
}

// idBytes is how many bytes of its id an entry holds, from byte
// l.idSkip() of the id.
func (l entryLayout) idBytes() int { return int(l.id) - l.idSkip() }

func (l entryLayout) idSkip() int {
	if l.whole {
		return 0
	}
	return 1
}

// fanoutMin is the entry count from which an index of format 6 has a
// fan-out: below it, the first byte of each id costs less than the
// fan-out's 1 KiB, and a reader reads the entries (at most about 45 KiB)
// to count them by first byte itself.
const fanoutMin = 1024

// entriesOff is where the entries of an index of layout l start.
func (l entryLayout) entriesOff() uint64 {
	if l.whole {
		return indexHeaderSize
	}
	return indexHeaderSize + fanoutSize
}

func (l entryLayout) valid() bool {
	return (l.id == ShortID || l.id == 32) &&
		l.frame >= 1 && l.frame <= 4 && l.off >= 1 && l.off <= 4 && l.len >= 1 && l.len <= 4
}

// byteWidth is the number of bytes (1..4) little-endian v needs.
func byteWidth(v uint32) uint8 {
	switch {
	case v < 1<<8:
		return 1
	case v < 1<<16:
		return 2
	case v < 1<<24:
		return 3
	}
	return 4
}

// layoutFor returns the narrowest layout for entries naming nf frames,
// with ids of idLen bytes.
func layoutFor(entries []entry, nf, idLen int) entryLayout {
	l := entryLayout{id: uint8(idLen), frame: byteWidth(uint32(max(nf, 1) - 1)), off: 1, len: 1, whole: len(entries) < fanoutMin}
	for i := range entries {
		l.off = max(l.off, byteWidth(entries[i].off))
		l.len = max(l.len, byteWidth(entries[i].len))
	}
	return l
}

// maxEntrySize is the largest entry: a whole 32-byte id (no fan-out), the
// three fields at 4 bytes, the kind.
const maxEntrySize = 32 + 4 + 4 + 4 + 1

func appendUint(dst []byte, v uint32, w uint8) []byte {
	for i := range w {
		dst = append(dst, byte(v>>(8*i)))
	}
	return dst
}

func readUint(b []byte, w uint8) (uint32, []byte) {
	var v uint32
	for i := range w {
		v |= uint32(b[i]) << (8 * i)
	}
	return v, b[w:]
}

func (e *entry) appendTo(dst []byte, l entryLayout) []byte {
	dst = append(dst, e.id[l.idSkip():l.id]...)
	dst = appendUint(dst, e.frame, l.frame)
	dst = appendUint(dst, e.off, l.off)
	dst = appendUint(dst, e.len, l.len)
	return append(dst, byte(e.kind))
}

// decodeEntry decodes an entry of layout l whose id starts with byte first
// (its fan-out bucket; unused when entries hold their ids whole).
func decodeEntry(b []byte, l entryLayout, first byte) entry {
	var e entry
	e.id[0] = first
	n := l.idBytes()
	copy(e.id[l.idSkip():], b[:n])
	b = b[n:]
	e.frame, b = readUint(b, l.frame)
	e.off, b = readUint(b, l.off)
	e.len, b = readUint(b, l.len)
	e.kind = Kind(b[0])
	return e
}

// frameRow is one row of an index's frame table: where a frame lives.
type frameRow struct {
	pack uint32
	off  int64
	len  uint32
}

// chunkRow is one row of a format-3 index's chunk-frame table: a frame of
// chunks (docs/FORMAT.md "Chunked objects") and the chunks it holds.
type chunkRow struct {
	pack   uint32
	off    int64  // of the frame header in the pack
	len    uint32 // header and data
	first  uint64 // number of the frame's first chunk
	chunks uint32
	table  uint32 // compressed bytes of the chunk table (the data's first zstd frame)
	plain  uint32 // plaintext bytes of the chunks
	crc    uint32 // CRC of the data
	prefix uint8  // chain prefix (chunk.Frame.Prefix; format 4)
}

// chunkRowSize: a row's table field holds the table's size in its low 24
// bits and, from format 4, the frame's chain prefix in its high byte
// (always 0 in format 3, where tables are far below 16 MiB too), so rows
// of both versions have one layout and merge by copy.
const chunkRowSize = 40

// maxChunkTable is the largest chunk table a row can say.
const maxChunkTable = 1<<24 - 1

func (r chunkRow) appendTo(b []byte) []byte {
	b = le.AppendUint32(b, r.pack)
	b = le.AppendUint64(b, uint64(r.off))
	b = le.AppendUint32(b, r.len)
	b = le.AppendUint64(b, r.first)
	b = le.AppendUint32(b, r.chunks)
	b = le.AppendUint32(b, r.table|uint32(r.prefix)<<24)
	b = le.AppendUint32(b, r.plain)
	return le.AppendUint32(b, r.crc)
}

func decodeChunkRow(b []byte) chunkRow {
	return chunkRow{pack: le.Uint32(b), off: int64(le.Uint64(b[4:])), len: le.Uint32(b[12:]),
		first: le.Uint64(b[16:]), chunks: le.Uint32(b[24:]), table: le.Uint32(b[28:]) & maxChunkTable, plain: le.Uint32(b[32:]),
		crc: le.Uint32(b[36:]), prefix: b[31]}
}

// indexFile is an open index. Only its fan-out table is held in memory;
// entries and frame rows are read with ReadAt on demand.
type indexFile struct {
	// users counts lookups in flight; a retired index (merged away or
	// store closed) is closed when the last one ends.
	mu      sync.Mutex
	users   int
	retired bool
	closed  bool

	num    uint32
	path   string
	f      indexSource
	size   int64
	n, nf  uint64
	nc     uint64 // chunk-frame rows (format 3)
	nd     uint64 // digest rows (format 5)
	ver    uint16
	lay    entryLayout
	fanout [256]uint32
	dfan   []uint32 // fan-out of the digest rows (format 5): 2^digestFanBits(nd) buckets
}

func (ix *indexFile) pin() {
	ix.mu.Lock()
	ix.users++
	ix.mu.Unlock()
}

func (ix *indexFile) unpin() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.users--
	if ix.retired && ix.users == 0 {
		ix.closeLocked()
	}
}

func (ix *indexFile) retire() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.retired {
		return
	}
	ix.retired = true
	if ix.users == 0 {
		ix.closeLocked()
	}
}

// shut retires the index and closes its file whatever its users: the
// store is closed, and what still holds it (a chunk directory, read on
// demand) fails from now on.
func (ix *indexFile) shut() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.retired = true
	ix.closeLocked()
}

// lingers says whether the index is retired but still open.
func (ix *indexFile) lingers() bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.retired && !ix.closed
}

func (ix *indexFile) closeLocked() {
	if !ix.closed {
		ix.closed = true
		ix.f.Close()
	}
}

// indexSource is what an index is read from: its file, or its file with
// sectors corrected through parity laid over it (patchedIndex).
type indexSource interface {
	io.ReaderAt
	io.Closer
	Size() (int64, error)
}

type osIndex struct{ *os.File }

func (o osIndex) Size() (int64, error) {
	st, err := o.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

func indexBodySizes(n, nf uint64, l entryLayout) (entriesOff, framesOff, size uint64) {
	entriesOff = l.entriesOff()
	framesOff = entriesOff + n*uint64(l.size())
	return entriesOff, framesOff, framesOff + nf*frameRowSize + trailerSize
}

// chunkSection is where a format-3 index's chunk-frame table starts and
// the size of the whole file: after the frame table come nc rows and
// their count (u32), then the trailer.
func chunkSection(n, nf, nc uint64, l entryLayout) (chunksOff, size uint64) {
	_, framesOff, _ := indexBodySizes(n, nf, l)
	chunksOff = framesOff + nf*frameRowSize
	return chunksOff, chunksOff + nc*chunkRowSize + 4 + trailerSize
}

// size is the file size an index of these counts has in its version.
func (ix *indexFile) wantSize() uint64 {
	if ix.ver < 3 {
		_, _, size := indexBodySizes(ix.n, ix.nf, ix.lay)
		return size
	}
	_, size := chunkSection(ix.n, ix.nf, ix.nc, ix.lay)
	if ix.ver >= 5 {
		size += digestSectionSize(ix.nd)
	}
	return size
}

// digestSectionSize is what a format-5 index adds after the chunk-frame
// count: the digest rows, their fan-out and their count (only the count
// when there are no rows).
func digestSectionSize(nd uint64) uint64 {
	if nd == 0 {
		return 4
	}
	return nd*digestRowSize + 4<<digestFanBits(nd) + 4
}

// digestOff is where a format-5 index's digest rows start.
func (ix *indexFile) digestOff() int64 {
	return ix.size - trailerSize - int64(digestSectionSize(ix.nd))
}

// chunkRows reads the index's chunk-frame table (empty before format 3).
func (ix *indexFile) chunkRows() ([]chunkRow, error) {
	rows := make([]chunkRow, 0, ix.nc)
	err := ix.eachChunkRow(func(r chunkRow) { rows = append(rows, r) })
	return rows, err
}

// chunkRowBlock is how many chunk-frame rows eachChunkRow reads at a time
// (1 MiB): an open's directory is built without a copy of the table.
const chunkRowBlock = 1 << 20 / chunkRowSize

// eachChunkRow calls fn with each row of the index's chunk-frame table, in
// order, each checked; it stops at the first bad one.
func (ix *indexFile) eachChunkRow(fn func(chunkRow)) error {
	if ix.ver < 3 || ix.nc == 0 {
		return nil
	}
	b := make([]byte, min(ix.nc, chunkRowBlock)*chunkRowSize)
	for i := uint64(0); i < ix.nc; {
		k := min(ix.nc-i, chunkRowBlock)
		if err := ix.readChunkRows(b[:k*chunkRowSize], i, fn); err != nil {
			return err
		}
		i += k
	}
	return nil
}

// readChunkRows reads len(b)/chunkRowSize rows of the chunk-frame table
// from row i into b and calls fn with each, checked.
func (ix *indexFile) readChunkRows(b []byte, i uint64, fn func(chunkRow)) error {
	off, _ := chunkSection(ix.n, ix.nf, ix.nc, ix.lay)
	at := int64(off) + int64(i*chunkRowSize)
	if _, err := ix.f.ReadAt(b, at); err != nil {
		return fmt.Errorf("read index %s at %d: %w", ix.path, at, err)
	}
	for j := 0; j+chunkRowSize <= len(b); j += chunkRowSize {
		r := decodeChunkRow(b[j:])
		if r.off < packHeaderSize || r.len < frameFixedSize+4 || r.table > r.len || ix.ver < 4 && r.prefix != 0 {
			return corrupt(ix.path, at+int64(j), "bad chunk-frame row")
		}
		fn(r)
	}
	return nil
}

// openIndex opens and checks header, trailer and fan-out of an index
// whose size the commit recorded.
func openIndex(path string, num uint32, want int64) (*indexFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	ix := &indexFile{num: num, path: path, f: osIndex{f}}
	if err := ix.load(want); err != nil {
		f.Close()
		return nil, err
	}
	return ix, nil
}

func (ix *indexFile) load(want int64) error {
	size, err := ix.f.Size()
	if err != nil {
		return fmt.Errorf("open index: %w", err)
	}
	ix.size = size
	if ix.size != want {
		return corrupt(ix.path, ix.size, "index is %d bytes, commit recorded %d", ix.size, want)
	}
	if ix.size < indexHeaderSize+trailerSize {
		return corrupt(ix.path, 0, "index too short (%d bytes)", ix.size)
	}
	var head [indexHeaderSize]byte
	if _, err := ix.f.ReadAt(head[:], 0); err != nil {
		return fmt.Errorf("read index %s: %w", ix.path, err)
	}
	if err := checkFileHeader(head[:], indexMagic, ix.num, ix.path); err != nil {
		return err
	}
	ix.ver = fileVersion(head[:])
	var tr [trailerSize]byte
	toff := ix.size - trailerSize
	if _, err := ix.f.ReadAt(tr[:], toff); err != nil {
		return fmt.Errorf("read index %s: %w", ix.path, err)
	}
	if string(tr[24:28]) != indexMagic || le.Uint32(tr[28:]) != crc(tr[:28]) {
		return corrupt(ix.path, toff, "bad index trailer")
	}
	ix.n, ix.nf = le.Uint64(tr[0:]), uint64(le.Uint32(tr[8:]))
	ix.lay = entryLayout{id: 32, frame: tr[12], off: tr[13], len: tr[14]}
	if tr[15] != 0 {
		ix.lay.id = tr[15]
	}
	if !ix.lay.valid() || ix.lay.id != 32 && ix.ver < 4 {
		return corrupt(ix.path, toff+12, "bad entry layout %d/%d/%d/%d", tr[12], tr[13], tr[14], tr[15])
	}
	ix.lay.whole = ix.ver >= 6 && ix.n < fanoutMin
	if ix.n > uint64(ix.size)/uint64(ix.lay.size()) || ix.nf > uint64(ix.size)/frameRowSize {
		return corrupt(ix.path, toff, "index counts %d/%d exceed file size", ix.n, ix.nf)
	}
	coff := toff - 4 // the chunk-frame count
	if ix.ver >= 5 {
		var c [4]byte
		if _, err := ix.f.ReadAt(c[:], toff-4); err != nil {
			return fmt.Errorf("read index %s: %w", ix.path, err)
		}
		ix.nd = uint64(le.Uint32(c[:]))
		if ix.nd > uint64(ix.size)/digestRowSize {
			return corrupt(ix.path, toff-4, "index digest count %d exceeds file size", ix.nd)
		}
		if ix.nd > 0 {
			d := make([]byte, 4<<digestFanBits(ix.nd))
			at := toff - 4 - int64(len(d))
			if at < 0 {
				return corrupt(ix.path, toff-4, "index digest count %d exceeds file size", ix.nd)
			}
			if _, err := ix.f.ReadAt(d, at); err != nil {
				return fmt.Errorf("read index %s: %w", ix.path, err)
			}
			ix.dfan = make([]uint32, len(d)/4)
			var prev uint32
			for i := range ix.dfan {
				v := le.Uint32(d[4*i:])
				if v < prev {
					return corrupt(ix.path, at+int64(4*i), "digest fan-out not monotonic")
				}
				ix.dfan[i], prev = v, v
			}
			if uint64(prev) != ix.nd {
				return corrupt(ix.path, toff-8, "digest fan-out total %d != digest count %d", prev, ix.nd)
			}
		}
		coff -= int64(digestSectionSize(ix.nd))
		if coff < int64(ix.lay.entriesOff()) {
			return corrupt(ix.path, toff-4, "index digest count %d exceeds file size", ix.nd)
		}
	}
	if ix.ver >= 3 {
		var c [4]byte
		if _, err := ix.f.ReadAt(c[:], coff); err != nil {
			return fmt.Errorf("read index %s: %w", ix.path, err)
		}
		ix.nc = uint64(le.Uint32(c[:]))
		if ix.nc > uint64(ix.size)/chunkRowSize {
			return corrupt(ix.path, coff, "index chunk-frame count %d exceeds file size", ix.nc)
		}
	}
	if size := ix.wantSize(); size != uint64(ix.size) {
		return corrupt(ix.path, toff, "index of %d entries and %d frames should be %d bytes, is %d", ix.n, ix.nf, size, ix.size)
	}
	if ix.lay.whole {
		return ix.countEntries(le.Uint32(tr[16:]))
	}
	fan := make([]byte, fanoutSize)
	if _, err := ix.f.ReadAt(fan, indexHeaderSize); err != nil {
		return fmt.Errorf("read index %s: %w", ix.path, err)
	}
	if le.Uint32(tr[16:]) != crc(fan) {
		return corrupt(ix.path, indexHeaderSize, "fan-out checksum mismatch")
	}
	var prev uint32
	for i := range ix.fanout {
		v := le.Uint32(fan[4*i:])
		if v < prev {
			return corrupt(ix.path, int64(indexHeaderSize+4*i), "fan-out not monotonic")
		}
		ix.fanout[i], prev = v, v
	}
	if uint64(prev) != ix.n {
		return corrupt(ix.path, indexHeaderSize+fanoutSize-4, "fan-out total %d != entry count %d", prev, ix.n)
	}
	return nil
}

// countEntries builds the fan-out of an index without one (format 6,
// fewer than fanoutMin entries) from its entries, which hold their ids
// whole, after checking them against sum (the trailer's checksum of the
// entries, in place of the fan-out's).
func (ix *indexFile) countEntries(sum uint32) error {
	es := ix.lay.size()
	b := make([]byte, int(ix.n)*es)
	if _, err := ix.f.ReadAt(b, indexHeaderSize); err != nil {
		return fmt.Errorf("read index %s: %w", ix.path, err)
	}
	if crc(b) != sum {
		return corrupt(ix.path, indexHeaderSize, "entries checksum mismatch")
	}
	var prev byte
	for i := range int(ix.n) {
		first := b[i*es]
		if first < prev {
			return corrupt(ix.path, int64(indexHeaderSize+i*es), "entries not sorted")
		}
		ix.fanout[first]++
		prev = first
	}
	for i := 1; i < len(ix.fanout); i++ {
		ix.fanout[i] += ix.fanout[i-1]
	}
	return nil
}

// find binary-searches id among the entries sharing its first byte. In
// an index of short ids only id's first ShortID bytes count, so a whole
// SHA-256 finds its object too. buf is scratch of at least maxEntrySize
// bytes.
func (ix *indexFile) find(id ID, buf []byte) (entry, bool, error) {
	lo, hi := fanRange(&ix.fanout, id[0])
	base := int64(ix.lay.entriesOff())
	es := ix.lay.size()
	b := buf[:es]
	n, skip := ix.lay.idBytes(), ix.lay.idSkip()
	for lo < hi {
		mid := lo + (hi-lo)/2
		off := base + int64(mid)*int64(es)
		if _, err := ix.f.ReadAt(b, off); err != nil {
			return entry{}, false, fmt.Errorf("read index %s at %d: %w", ix.path, off, err)
		}
		switch c := bytes.Compare(b[:n], id[skip:skip+n]); {
		case c == 0:
			e := decodeEntry(b, ix.lay, id[0])
			if uint64(e.frame) >= ix.nf {
				return entry{}, false, corrupt(ix.path, off, "entry names frame %d of %d", e.frame, ix.nf)
			}
			if !e.kind.storedValid() {
				return entry{}, false, corrupt(ix.path, off, "entry has invalid kind %d", e.kind)
			}
			return e, true, nil
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return entry{}, false, nil
}

// findPrefix calls fn with every entry whose id starts with p (1 ≤ len(p)
// ≤ 32; in an index of short ids, bytes of p past ShortID are not
// compared), in id order. buf is scratch of at least maxEntrySize bytes.
func (ix *indexFile) findPrefix(p []byte, buf []byte, fn func(entry) error) error {
	lo, hi := fanRange(&ix.fanout, p[0])
	base := int64(ix.lay.entriesOff())
	es := ix.lay.size()
	b := buf[:es]
	rest := p[ix.lay.idSkip():min(len(p), int(ix.lay.id))]
	// Lower bound: the first entry whose id bytes 1.. are ≥ rest.
	for lo < hi {
		mid := lo + (hi-lo)/2
		off := base + int64(mid)*int64(es)
		if _, err := ix.f.ReadAt(b, off); err != nil {
			return fmt.Errorf("read index %s at %d: %w", ix.path, off, err)
		}
		if bytes.Compare(b[:len(rest)], rest) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	_, end := fanRange(&ix.fanout, p[0])
	for i := lo; i < end; i++ {
		off := base + int64(i)*int64(es)
		if _, err := ix.f.ReadAt(b, off); err != nil {
			return fmt.Errorf("read index %s at %d: %w", ix.path, off, err)
		}
		if !bytes.Equal(b[:len(rest)], rest) {
			break
		}
		e := decodeEntry(b, ix.lay, p[0])
		if uint64(e.frame) >= ix.nf || !e.kind.storedValid() {
			return corrupt(ix.path, off, "bad entry (frame %d of %d, kind %d)", e.frame, ix.nf, e.kind)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// frame reads row i of the frame table. buf is scratch.
func (ix *indexFile) frame(i uint32, buf []byte) (frameRow, error) {
	_, foff, _ := indexBodySizes(ix.n, ix.nf, ix.lay)
	off := int64(foff) + int64(i)*frameRowSize
	b := buf[:frameRowSize]
	if _, err := ix.f.ReadAt(b, off); err != nil {
		return frameRow{}, fmt.Errorf("read index %s at %d: %w", ix.path, off, err)
	}
	r := frameRow{pack: le.Uint32(b), off: int64(le.Uint64(b[4:])), len: le.Uint32(b[12:])}
	if r.off < packHeaderSize || r.off > 1<<62 {
		return r, corrupt(ix.path, off, "frame row has offset %d", r.off)
	}
	return r, nil
}

// scan streams the whole index once: it checks the body checksum and the
// order of entries and calls fn for each entry and then each frame row.
func (ix *indexFile) scan(onEntry func(int64, entry) error, onFrame func(uint32, frameRow) error) error {
	return ix.scanAll(onEntry, onFrame, nil)
}

// scanAll is scan that also calls onChunks with each chunk-frame row.
func (ix *indexFile) scanAll(onEntry func(int64, entry) error, onFrame func(uint32, frameRow) error, onChunks func(chunkRow) error) error {
	eoff, _, _ := indexBodySizes(ix.n, ix.nf, ix.lay)
	es := uint64(ix.lay.size())
	r := bufio.NewReaderSize(io.NewSectionReader(ix.f, 0, ix.size-trailerSize), 64<<10)
	h := crc32.New(castagnoli)
	head := make([]byte, eoff)
	if _, err := io.ReadFull(r, head); err != nil {
		return fmt.Errorf("read index %s: %w", ix.path, err)
	}
	h.Write(head)
	var b [maxEntrySize]byte
	var prev ID
	bucket := 0
	for i := uint64(0); i < ix.n; i++ {
		if _, err := io.ReadFull(r, b[:es]); err != nil {
			return fmt.Errorf("read index %s: %w", ix.path, err)
		}
		h.Write(b[:es])
		for uint64(ix.fanout[bucket]) <= i {
			bucket++ // ends below 256: fanout[255] == n > i
		}
		e := decodeEntry(b[:es], ix.lay, byte(bucket))
		off := int64(eoff + i*es)
		if i > 0 && bytes.Compare(prev[:], e.id[:]) >= 0 {
			return corrupt(ix.path, off, "entries not sorted")
		}
		prev = e.id
		if uint64(e.frame) >= ix.nf || !e.kind.storedValid() {
			return corrupt(ix.path, off, "bad entry (frame %d of %d, kind %d)", e.frame, ix.nf, e.kind)
		}
		if onEntry != nil {
			if err := onEntry(off, e); err != nil {
				return err
			}
		}
	}
	for i := uint64(0); i < ix.nf; i++ {
		if _, err := io.ReadFull(r, b[:frameRowSize]); err != nil {
			return fmt.Errorf("read index %s: %w", ix.path, err)
		}
		h.Write(b[:frameRowSize])
		row := frameRow{pack: le.Uint32(b[:]), off: int64(le.Uint64(b[4:])), len: le.Uint32(b[12:])}
		if onFrame != nil {
			if err := onFrame(uint32(i), row); err != nil {
				return err
			}
		}
	}
	if ix.ver >= 3 {
		var cb [chunkRowSize]byte
		for range ix.nc {
			if _, err := io.ReadFull(r, cb[:]); err != nil {
				return fmt.Errorf("read index %s: %w", ix.path, err)
			}
			h.Write(cb[:])
			if onChunks != nil {
				if err := onChunks(decodeChunkRow(cb[:])); err != nil {
					return err
				}
			}
		}
		if _, err := io.ReadFull(r, cb[:4]); err != nil {
			return fmt.Errorf("read index %s: %w", ix.path, err)
		}
		h.Write(cb[:4])
	}
	if ix.ver >= 5 {
		var prev, row [digestRowSize]byte
		for i := range ix.nd {
			if _, err := io.ReadFull(r, row[:]); err != nil {
				return fmt.Errorf("read index %s: %w", ix.path, err)
			}
			h.Write(row[:])
			if i > 0 && bytes.Compare(prev[:8], row[:8]) > 0 {
				return corrupt(ix.path, ix.digestOff()+int64(i*digestRowSize), "digest rows not sorted")
			}
			prev = row
		}
		tail := make([]byte, digestSectionSize(ix.nd)-ix.nd*digestRowSize)
		if _, err := io.ReadFull(r, tail); err != nil {
			return fmt.Errorf("read index %s: %w", ix.path, err)
		}
		h.Write(tail)
	}
	var tr [trailerSize]byte
	if _, err := ix.f.ReadAt(tr[:], ix.size-trailerSize); err != nil {
		return fmt.Errorf("read index %s: %w", ix.path, err)
	}
	if le.Uint32(tr[20:]) != h.Sum32() {
		return corrupt(ix.path, ix.size-trailerSize, "index body checksum mismatch")
	}
	return nil
}

func fanRange(f *[256]uint32, b byte) (lo, hi uint32) {
	if b > 0 {
		lo = f[b-1]
	}
	return lo, f[b]
}

// writeIndex writes a complete index file (entries sorted by id) and
// fsyncs it. The file is not in force until a commit names it.
func writeIndex(path string, num uint32, entries []entry, frames []frameRow, chunks []chunkRow, digests []digestRow, idLen int, o *Options) (int64, error) {
	if err := o.fault("write", path); err != nil {
		return 0, fmt.Errorf("write index: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return 0, fmt.Errorf("write index: %w", err)
	}
	size, err := encodeIndex(f, num, entries, frames, chunks, digests, idLen)
	if err != nil {
		f.Close()
		return 0, fmt.Errorf("write index %s: %w", path, err)
	}
	err = o.fault("sync", path)
	if err == nil {
		err = fsync(f, o.noSync)
	}
	if err != nil {
		f.Close()
		return 0, fmt.Errorf("sync index %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("write index %s: %w", path, err)
	}
	return size, nil
}

// encodeIndex writes the bytes of an index file to w and returns their
// number.
func encodeIndex(w io.Writer, num uint32, entries []entry, frames []frameRow, chunks []chunkRow, digests []digestRow, idLen int) (int64, error) {
	h := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(w, h), 64<<10)
	lay := layoutFor(entries, len(frames), idLen)
	var fan [256]uint32
	for _, e := range entries {
		fan[e.id[0]]++
	}
	for i := 1; i < len(fan); i++ {
		fan[i] += fan[i-1]
	}
	head := appendIndexHead(nil, num, &fan, lay)
	bw.Write(head)
	fanCRC := crc(head[indexHeaderSize:])
	eh := crc32.New(castagnoli) // the entries' checksum, in place of the fan-out's
	b := make([]byte, 0, maxEntrySize)
	for i := range entries {
		b = entries[i].appendTo(b[:0], lay)
		bw.Write(b)
		eh.Write(b)
	}
	if lay.whole {
		fanCRC = eh.Sum32()
	}
	for _, r := range frames {
		b = le.AppendUint32(b[:0], r.pack)
		b = le.AppendUint64(b, uint64(r.off))
		b = le.AppendUint32(b, r.len)
		bw.Write(b)
	}
	for _, r := range chunks {
		bw.Write(r.appendTo(b[:0]))
	}
	bw.Write(le.AppendUint32(b[:0], uint32(len(chunks))))
	writeDigests(bw, digests)
	if err := bw.Flush(); err != nil {
		return 0, err
	}
	tr := appendTrailerHead(nil, uint64(len(entries)), uint64(len(frames)), lay)
	tr = le.AppendUint32(tr, fanCRC)
	tr = le.AppendUint32(tr, h.Sum32())
	tr = append(tr, indexMagic...)
	tr = le.AppendUint32(tr, crc(tr))
	if _, err := w.Write(tr); err != nil {
		return 0, err
	}
	_, size := chunkSection(uint64(len(entries)), uint64(len(frames)), uint64(len(chunks)), lay)
	return int64(size + digestSectionSize(uint64(len(digests)))), nil
}

// holdsIndex reports whether the file at path holds exactly the bytes
// encodeIndex writes for these arguments, reading it once.
func holdsIndex(path string, num uint32, entries []entry, frames []frameRow, chunks []chunkRow, digests []digestRow, idLen int) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	c := &sameBytes{r: bufio.NewReaderSize(f, 64<<10), same: true}
	size, err := encodeIndex(c, num, entries, frames, chunks, digests, idLen)
	return err == nil && c.same && size == fi.Size()
}

// sameBytes is a writer that compares what is written with what r reads.
type sameBytes struct {
	r    *bufio.Reader
	buf  []byte
	same bool
}

func (c *sameBytes) Write(p []byte) (int, error) {
	if c.same {
		c.buf = slices.Grow(c.buf[:0], len(p))[:len(p)]
		if _, err := io.ReadFull(c.r, c.buf); err != nil || !bytes.Equal(c.buf, p) {
			c.same = false
		}
	}
	return len(p), nil
}

// appendIndexHead appends an index's header and, unless its entries hold
// their ids whole, its fan-out fan (cumulative counts by first id byte).
func appendIndexHead(dst []byte, num uint32, fan *[256]uint32, l entryLayout) []byte {
	dst = appendFileHeader(dst, indexMagic, num)
	if !l.whole {
		for _, v := range fan {
			dst = le.AppendUint32(dst, v)
		}
	}
	return dst
}

// appendTrailerHead appends the first 16 trailer bytes: entry count, frame
// count, entry layout (byte 15: 0 for 32-byte ids, else their length).
func appendTrailerHead(dst []byte, n, nf uint64, l entryLayout) []byte {
	dst = le.AppendUint64(dst, n)
	dst = le.AppendUint32(dst, uint32(nf))
	return append(dst, l.frame, l.off, l.len, trailerIDByte(l.id))
}

// trailerIDByte is the trailer's byte 15 for ids of n bytes: 0 for whole
// SHA-256 ids, as indexes written before short ids have it.
func trailerIDByte(n uint8) byte {
	if n == 32 {
		return 0
	}
	return n
}
