package warcio

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
)

// This file holds the external sort behind Walk: records are kept in memory
// up to a limit, then sorted and written as a zstd-compressed "run" to a
// private temporary directory; runs are merged with a heap that holds only
// each run's head record header and a streaming reader over its body.
//
// Run format (one zstd stream per file): a sequence of items, each
//
//	uvarint len(meta) | meta | block bytes (meta.bodyLen of them)
//
// where meta is the record header encoded by appendMeta. A record larger
// than the limit is written alone as a bare block stream (body-only run)
// whose header stays in memory.

// runWindow bounds the zstd window of run files, and so the memory each
// open run costs while merging (about twice this).
const runWindow = 256 << 10

// item is one record travelling through the sort: its header and, while in
// memory, its block bytes.
type item struct {
	rec     *Record // Body is nil
	key     string
	bodyLen int64
	body    []byte // nil once spilled
	gap     bool   // bytes of the file between records (Capture.Gap)
	// summary: body holds what WalkOptions.Summarize returned for the
	// record's block, not the block (Capture.Summary).
	summary bool
}

// itemCompare is the capture order: key, then WARC-Date (unparseable dates
// first), then file name, offset and position inside the member. The
// last three make the order total, so the output does not depend on input
// order or on where runs were cut.
func itemCompare(a, b *item) int {
	if c := strings.Compare(a.key, b.key); c != 0 {
		return c
	}
	if c := a.rec.Date.Compare(b.rec.Date); c != 0 {
		return c
	}
	if c := strings.Compare(a.rec.File, b.rec.File); c != 0 {
		return c
	}
	if a.rec.Offset != b.rec.Offset {
		if a.rec.Offset < b.rec.Offset {
			return -1
		}
		return 1
	}
	switch {
	case a.rec.SkipInMember < b.rec.SkipInMember:
		return -1
	case a.rec.SkipInMember > b.rec.SkipInMember:
		return 1
	}
	if a.rec.Pos != b.rec.Pos { // pieces of one gap inside one member
		return cmpInt(a.rec.Pos, b.rec.Pos)
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// memSize estimates what an in-memory item costs, for the memory limit.
func (it *item) memSize() int64 {
	n := int64(len(it.body)) + 2*int64(len(it.rec.RawHeader)) + int64(len(it.key)) + int64(len(it.rec.TargetURI)) + 512
	n += int64(len(it.rec.Header)) * 64
	return n
}

// ---------------------------------------------------------------------------
// Header encoding. Every exported field of Record but Body is kept, plus the
// computed digests; TestMetaRoundTrip fails when Record gains a field this
// encoding does not know.

const metaVersion = 3

func appendMeta(b []byte, it *item) []byte {
	r := it.rec
	b = append(b, metaVersion)
	b = appendStr(b, it.key)
	b = binary.AppendUvarint(b, uint64(it.bodyLen))
	b = appendStr(b, r.File)
	b = append(b, byte(r.Format), byte(r.Compression))
	b = binary.AppendVarint(b, r.Offset)
	b = binary.AppendVarint(b, r.SkipInMember)
	b = binary.AppendVarint(b, r.Length)
	b = binary.AppendVarint(b, r.Pos)
	b = binary.AppendVarint(b, r.End)
	var flags byte // 0 or 1 before Summarize: runs of older Parts read the same
	if it.gap {
		flags |= 1
	}
	if it.summary {
		flags |= 2
	}
	b = append(b, flags)
	b = appendStr(b, r.Version)
	b = appendStr(b, r.Type)
	b = appendStr(b, r.TargetURI)
	if r.Date.IsZero() {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = binary.AppendVarint(b, r.Date.Unix())
		b = binary.AppendUvarint(b, uint64(r.Date.Nanosecond()))
	}
	b = appendStr(b, r.DateRaw)
	b = appendStr(b, r.RecordID)
	b = binary.AppendUvarint(b, uint64(len(r.Header)))
	for _, f := range r.Header {
		b = appendStr(b, f.Name)
		b = appendStr(b, f.Value)
		b = appendBytes(b, f.Raw)
	}
	b = appendBytes(b, r.RawHeader)
	b = binary.AppendVarint(b, r.ContentLen)
	b = appendStr(b, r.Profile)
	b = appendStr(b, r.RefersTo)
	b = appendStr(b, r.RefersToTargetURI)
	b = appendStr(b, r.RefersToDate)
	b = appendBytes(b, r.Trailer)
	d := r.digests
	b = appendBytes(b, d.BlockSHA1)
	b = appendBytes(b, d.PayloadSHA1)
	b = append(b, byte(d.BlockMatch), byte(d.PayloadMatch))
	b = binary.AppendVarint(b, d.BlockLen)
	b = binary.AppendVarint(b, d.PayloadLen)
	return b
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendBytes keeps nil distinct from empty (nil digests mean "not read").
func appendBytes(b []byte, p []byte) []byte {
	if p == nil {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(p))+1)
	return append(b, p...)
}

var errBadMeta = errors.New("corrupt run file")

type metaDecoder struct {
	b   []byte
	err error
}

func (d *metaDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *metaDecoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *metaDecoder) byte1() byte {
	if len(d.b) < 1 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *metaDecoder) take(n uint64) []byte {
	if n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	p := d.b[:n:n]
	d.b = d.b[n:]
	return p
}

func (d *metaDecoder) str() string { return string(d.take(d.uvarint())) }

func (d *metaDecoder) bytes() []byte {
	n := d.uvarint()
	if n == 0 {
		return nil
	}
	return d.take(n - 1)
}

func (d *metaDecoder) fail() {
	if d.err == nil {
		d.err = errBadMeta
	}
	d.b = nil
}

// decodeMeta decodes an item header; the returned record's byte slices
// alias b, which the caller must not reuse.
func decodeMeta(b []byte) (*item, error) {
	d := &metaDecoder{b: b}
	if d.byte1() != metaVersion {
		return nil, errBadMeta
	}
	it := &item{rec: &Record{}}
	r := it.rec
	it.key = d.str()
	it.bodyLen = int64(d.uvarint())
	r.File = d.str()
	r.Format = Format(d.byte1())
	r.Compression = Compression(d.byte1())
	r.Offset = d.varint()
	r.SkipInMember = d.varint()
	r.Length = d.varint()
	r.Pos = d.varint()
	r.End = d.varint()
	flags := d.byte1()
	it.gap, it.summary = flags&1 != 0, flags&2 != 0
	r.Version = d.str()
	r.Type = d.str()
	r.TargetURI = d.str()
	if d.byte1() == 1 {
		sec := d.varint()
		nsec := d.uvarint()
		r.Date = time.Unix(sec, int64(nsec)).UTC()
	}
	r.DateRaw = d.str()
	r.RecordID = d.str()
	nf := d.uvarint()
	if nf > uint64(len(d.b)) {
		return nil, errBadMeta
	}
	if nf > 0 {
		r.Header = make(Header, nf)
		for i := range r.Header {
			r.Header[i] = Field{Name: d.str(), Value: d.str(), Raw: d.bytes()}
		}
	}
	r.RawHeader = d.bytes()
	r.ContentLen = d.varint()
	r.Profile = d.str()
	r.RefersTo = d.str()
	r.RefersToTargetURI = d.str()
	r.RefersToDate = d.str()
	r.Trailer = d.bytes()
	r.digests.BlockSHA1 = d.bytes()
	r.digests.PayloadSHA1 = d.bytes()
	r.digests.BlockMatch = Match(d.byte1())
	r.digests.PayloadMatch = Match(d.byte1())
	r.digests.BlockLen = d.varint()
	r.digests.PayloadLen = d.varint()
	if d.err != nil {
		return nil, d.err
	}
	if it.bodyLen < 0 {
		return nil, errBadMeta
	}
	return it, nil
}

// ---------------------------------------------------------------------------
// Writing runs.

type runWriter struct {
	f   *os.File
	zw  *zstd.Encoder
	bw  *bufio.Writer
	buf []byte
}

func newRunWriter(dir string) (*runWriter, error) {
	f, err := os.CreateTemp(dir, "run-*.zst")
	if err != nil {
		return nil, fmt.Errorf("create run: %w", err)
	}
	zw, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(runWindow), zstd.WithEncoderCRC(true))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("create run: %w", err)
	}
	return &runWriter{f: f, zw: zw, bw: bufio.NewWriterSize(zw, 64<<10)}, nil
}

func (w *runWriter) writeMeta(it *item) error {
	w.buf = appendMeta(w.buf[:0], it)
	var n [binary.MaxVarintLen64]byte
	if _, err := w.bw.Write(n[:binary.PutUvarint(n[:], uint64(len(w.buf)))]); err != nil {
		return err
	}
	_, err := w.bw.Write(w.buf)
	return err
}

// write appends one item whose block is body (exactly it.bodyLen bytes).
func (w *runWriter) write(it *item, body io.Reader) error {
	if err := w.writeMeta(it); err != nil {
		return fmt.Errorf("write run: %w", err)
	}
	n, err := io.CopyN(w.bw, body, it.bodyLen)
	if err != nil {
		return fmt.Errorf("write run: copy block (%d of %d bytes): %w", n, it.bodyLen, err)
	}
	return nil
}

// close flushes the run and returns its path; the file is removed on error.
func (w *runWriter) close() (string, error) {
	err := w.bw.Flush()
	if e := w.zw.Close(); err == nil {
		err = e
	}
	if e := w.f.Close(); err == nil {
		err = e
	}
	if err != nil {
		os.Remove(w.f.Name())
		return "", fmt.Errorf("write run: %w", err)
	}
	return w.f.Name(), nil
}

// frame ends the zstd frame being written and starts another, so that
// the bytes from the offset it returns (where the next frame starts)
// decompress on their own.
func (w *runWriter) frame() (int64, error) {
	if err := w.bw.Flush(); err != nil {
		return 0, err
	}
	if err := w.zw.Close(); err != nil {
		return 0, err
	}
	off, err := w.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, err
	}
	w.zw.Reset(w.f)
	return off, nil
}

// abort discards a run being written.
func (w *runWriter) abort() {
	w.zw.Close()
	w.f.Close()
	os.Remove(w.f.Name())
}

// ---------------------------------------------------------------------------
// Reading and merging runs.

// run is one sorted source for the merge: a run file, a body-only run of
// one large record, or the final in-memory batch.
type run struct {
	path     string
	bodyOnly *item   // header of a body-only run
	mem      []*item // in-memory batch (already sorted)
	// keep, when set, skips the items whose key it rejects (a Part's
	// segment walked for one key range); shared runs are not removed
	// when closed (another walk may read them).
	keep   func(key string) bool
	shared bool
	// off and size, when size > 0, are the bytes of path the run is
	// (consecutive zstd frames of a Part's file of segments).
	off, size int64

	f    *os.File
	zr   *zstd.Decoder
	br   *bufio.Reader
	head *item
	body io.Reader // the head's block, valid until advance
	left *io.LimitedReader
}

func (r *run) open() error {
	if r.path == "" {
		return nil
	}
	f, err := os.Open(r.path)
	if err != nil {
		return fmt.Errorf("open run: %w", err)
	}
	var src io.Reader = f
	if r.size > 0 {
		src = io.NewSectionReader(f, r.off, r.size)
	}
	zr, err := zstd.NewReader(src, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(runWindow))
	if err != nil {
		f.Close()
		return fmt.Errorf("open run: %w", err)
	}
	r.f, r.zr, r.br = f, zr, bufio.NewReaderSize(zr, 32<<10)
	return nil
}

// advance moves to the next item (the next one keep accepts); head is
// nil at the end of the run.
func (r *run) advance() error {
	for {
		if err := r.next(); err != nil || r.head == nil || r.keep == nil || r.keep(r.head.key) {
			return err
		}
	}
}

// next moves to the next item.
func (r *run) next() error {
	if r.left != nil && r.left.N > 0 {
		if _, err := io.Copy(io.Discard, r.left); err != nil {
			return fmt.Errorf("read run: %w", err)
		}
	}
	r.head, r.body, r.left = nil, nil, nil
	switch {
	case r.mem != nil:
		if len(r.mem) == 0 {
			return nil
		}
		r.head = r.mem[0]
		r.mem[0] = nil
		r.mem = r.mem[1:]
		r.body = newMemBody(r.head.body)
		return nil
	case r.bodyOnly != nil:
		r.head, r.bodyOnly = r.bodyOnly, nil
		r.left = &io.LimitedReader{R: r.br, N: r.head.bodyLen}
		r.body = r.left
		return nil
	case r.br == nil:
		return nil
	}
	n, err := binary.ReadUvarint(r.br)
	if err == io.EOF {
		return nil
	}
	if err != nil || n > 1<<30 {
		return fmt.Errorf("read run %s: %w", r.path, errBadMeta)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r.br, b); err != nil {
		return fmt.Errorf("read run %s: %w", r.path, err)
	}
	it, err := decodeMeta(b)
	if err != nil {
		return fmt.Errorf("read run %s: %w", r.path, err)
	}
	r.head = it
	r.left = &io.LimitedReader{R: r.br, N: it.bodyLen}
	r.body = r.left
	return nil
}

func (r *run) close() {
	if r.zr != nil {
		r.zr.Close()
		r.zr = nil
	}
	if r.f != nil {
		r.f.Close()
		r.f = nil
	}
	if r.path != "" && !r.shared {
		os.Remove(r.path)
	}
}

// runHeap orders open runs by their head item.
type runHeap []*run

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(i, j int) bool { return itemCompare(h[i].head, h[j].head) < 0 }
func (h runHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)        { *h = append(*h, x.(*run)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// mergeRuns opens runs and calls yield with every item in capture order;
// body reads the item's block and is valid only during the call. Runs are
// closed (and their files removed) before it returns.
func mergeRuns(runs []*run, yield func(it *item, body io.Reader) error) (err error) {
	defer func() {
		for _, r := range runs {
			r.close()
		}
	}()
	h := make(runHeap, 0, len(runs))
	for _, r := range runs {
		if err := r.open(); err != nil {
			return err
		}
		if err := r.advance(); err != nil {
			return err
		}
		if r.head != nil {
			h = append(h, r)
		}
	}
	heap.Init(&h)
	for len(h) > 0 {
		r := h[0]
		if err := yield(r.head, r.body); err != nil {
			return err
		}
		if err := r.advance(); err != nil {
			return err
		}
		if r.head == nil {
			heap.Pop(&h)
			r.close()
		} else {
			heap.Fix(&h, 0)
		}
	}
	return nil
}

// sortItems sorts an in-memory batch in capture order.
func sortItems(items []*item) {
	slices.SortFunc(items, itemCompare)
}
