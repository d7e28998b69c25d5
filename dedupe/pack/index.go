package pack

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"
)

// entry is one decoded index entry.
type entry struct {
	id       ID
	frame    uint32
	off, len uint32
	kind     Kind
}

func (e *entry) appendTo(dst []byte) []byte {
	dst = append(dst, e.id[:]...)
	dst = le.AppendUint32(dst, e.frame)
	dst = le.AppendUint32(dst, e.off)
	dst = le.AppendUint32(dst, e.len)
	return append(dst, byte(e.kind))
}

func decodeEntry(b []byte) entry {
	var e entry
	copy(e.id[:], b[:32])
	e.frame = le.Uint32(b[32:])
	e.off = le.Uint32(b[36:])
	e.len = le.Uint32(b[40:])
	e.kind = Kind(b[44])
	return e
}

// frameRow is one row of an index's frame table: where a frame lives.
type frameRow struct {
	pack uint32
	off  int64
	len  uint32
}

// indexFile is an open index. Only its fan-out table is held in memory;
// entries and frame rows are read with ReadAt on demand.
type indexFile struct {
	// users counts lookups in flight; a retired index (merged away or
	// store closed) is closed when the last one ends.
	mu      sync.Mutex
	users   int
	retired bool

	num    uint32
	path   string
	f      *os.File
	size   int64
	n, nf  uint64
	fanout [256]uint32
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
		ix.f.Close()
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
		ix.f.Close()
	}
}

func indexBodySizes(n, nf uint64) (entriesOff, framesOff, size uint64) {
	entriesOff = indexHeaderSize + fanoutSize
	framesOff = entriesOff + n*entrySize
	return entriesOff, framesOff, framesOff + nf*frameRowSize + trailerSize
}

// openIndex opens and checks header, trailer and fan-out of an index
// whose size the commit recorded.
func openIndex(path string, num uint32, want int64) (*indexFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	ix := &indexFile{num: num, path: path, f: f}
	if err := ix.load(want); err != nil {
		f.Close()
		return nil, err
	}
	return ix, nil
}

func (ix *indexFile) load(want int64) error {
	st, err := ix.f.Stat()
	if err != nil {
		return fmt.Errorf("open index: %w", err)
	}
	ix.size = st.Size()
	if ix.size != want {
		return corrupt(ix.path, ix.size, "index is %d bytes, commit recorded %d", ix.size, want)
	}
	if ix.size < indexHeaderSize+fanoutSize+trailerSize {
		return corrupt(ix.path, 0, "index too short (%d bytes)", ix.size)
	}
	var head [indexHeaderSize + fanoutSize]byte
	if _, err := ix.f.ReadAt(head[:], 0); err != nil {
		return fmt.Errorf("read index %s: %w", ix.path, err)
	}
	if err := checkFileHeader(head[:], indexMagic, ix.num, ix.path); err != nil {
		return err
	}
	var tr [trailerSize]byte
	toff := ix.size - trailerSize
	if _, err := ix.f.ReadAt(tr[:], toff); err != nil {
		return fmt.Errorf("read index %s: %w", ix.path, err)
	}
	if string(tr[24:28]) != indexMagic || le.Uint32(tr[28:]) != crc(tr[:28]) {
		return corrupt(ix.path, toff, "bad index trailer")
	}
	ix.n, ix.nf = le.Uint64(tr[0:]), le.Uint64(tr[8:])
	if ix.n > uint64(ix.size)/entrySize || ix.nf > uint64(ix.size)/frameRowSize {
		return corrupt(ix.path, toff, "index counts %d/%d exceed file size", ix.n, ix.nf)
	}
	if _, _, size := indexBodySizes(ix.n, ix.nf); size != uint64(ix.size) {
		return corrupt(ix.path, toff, "index of %d entries and %d frames should be %d bytes, is %d", ix.n, ix.nf, size, ix.size)
	}
	fan := head[indexHeaderSize:]
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

// find binary-searches id among the entries sharing its first byte.
// buf is scratch of at least entrySize bytes.
func (ix *indexFile) find(id ID, buf []byte) (entry, bool, error) {
	lo := uint32(0)
	if id[0] > 0 {
		lo = ix.fanout[id[0]-1]
	}
	hi := ix.fanout[id[0]]
	base := int64(indexHeaderSize + fanoutSize)
	b := buf[:entrySize]
	for lo < hi {
		mid := lo + (hi-lo)/2
		off := base + int64(mid)*entrySize
		if _, err := ix.f.ReadAt(b, off); err != nil {
			return entry{}, false, fmt.Errorf("read index %s at %d: %w", ix.path, off, err)
		}
		switch c := bytes.Compare(b[:32], id[:]); {
		case c == 0:
			e := decodeEntry(b)
			if uint64(e.frame) >= ix.nf {
				return entry{}, false, corrupt(ix.path, off, "entry names frame %d of %d", e.frame, ix.nf)
			}
			if !e.kind.Valid() {
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

// frame reads row i of the frame table. buf is scratch.
func (ix *indexFile) frame(i uint32, buf []byte) (frameRow, error) {
	_, foff, _ := indexBodySizes(ix.n, ix.nf)
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
	eoff, foff, _ := indexBodySizes(ix.n, ix.nf)
	r := bufio.NewReaderSize(io.NewSectionReader(ix.f, 0, ix.size-trailerSize), 64<<10)
	h := crc32.New(castagnoli)
	head := make([]byte, eoff)
	if _, err := io.ReadFull(r, head); err != nil {
		return fmt.Errorf("read index %s: %w", ix.path, err)
	}
	h.Write(head)
	var b [entrySize]byte
	var prev ID
	for i := uint64(0); i < ix.n; i++ {
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return fmt.Errorf("read index %s: %w", ix.path, err)
		}
		h.Write(b[:])
		e := decodeEntry(b[:])
		off := int64(eoff + i*entrySize)
		if i > 0 && bytes.Compare(prev[:], e.id[:]) >= 0 {
			return corrupt(ix.path, off, "entries not sorted")
		}
		prev = e.id
		if lo, hi := fanRange(&ix.fanout, e.id[0]); i < uint64(lo) || i >= uint64(hi) {
			return corrupt(ix.path, off, "entry outside its fan-out bucket")
		}
		if uint64(e.frame) >= ix.nf || !e.kind.Valid() {
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
	_ = foff
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
func writeIndex(path string, num uint32, entries []entry, frames []frameRow, nosync bool) (int64, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, fmt.Errorf("write index: %w", err)
	}
	h := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(f, h), 64<<10)
	head := appendFileHeader(make([]byte, 0, indexHeaderSize+fanoutSize), indexMagic, num)
	var fan [256]uint32
	for _, e := range entries {
		fan[e.id[0]]++
	}
	var sum uint32
	for i := range fan {
		sum += fan[i]
		head = le.AppendUint32(head, sum)
	}
	fanCRC := crc(head[indexHeaderSize:])
	bw.Write(head)
	b := make([]byte, 0, entrySize)
	for i := range entries {
		bw.Write(entries[i].appendTo(b[:0]))
	}
	for _, r := range frames {
		b = le.AppendUint32(b[:0], r.pack)
		b = le.AppendUint64(b, uint64(r.off))
		b = le.AppendUint32(b, r.len)
		bw.Write(b)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return 0, fmt.Errorf("write index %s: %w", path, err)
	}
	tr := le.AppendUint64(nil, uint64(len(entries)))
	tr = le.AppendUint64(tr, uint64(len(frames)))
	tr = le.AppendUint32(tr, fanCRC)
	tr = le.AppendUint32(tr, h.Sum32())
	tr = append(tr, indexMagic...)
	tr = le.AppendUint32(tr, crc(tr))
	if _, err := f.Write(tr); err != nil {
		f.Close()
		return 0, fmt.Errorf("write index %s: %w", path, err)
	}
	if err := fsync(f, nosync); err != nil {
		f.Close()
		return 0, fmt.Errorf("sync index %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("write index %s: %w", path, err)
	}
	_, _, size := indexBodySizes(uint64(len(entries)), uint64(len(frames)))
	return int64(size), nil
}
