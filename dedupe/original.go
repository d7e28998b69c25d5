package dedupe

import (
	"bufio"
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/blockwarc/blockwarc/dedupe/zlibenc"
	"github.com/blockwarc/blockwarc/warcio"
)

// An input file's original bytes (docs/FORMAT.md "Restoring an input
// file"). The archive keeps a file's decompressed stream; a gzip file
// whose every member zlib reproduces from its decompressed bytes also
// gets a member table (Original, catalog version 6), and then
// export-warc -source -original writes the file as given, bit for bit:
// the stream cut at the members' decompressed lengths, each piece
// deflated with its member's zlib settings between its header and a
// recomputed trailer (CRC-32, length).

// Why a file does or does not restore bit-exact compressed
// (InputFile.OriginalWhy).
const (
	originalUnknown  = 0 // ingested before catalog version 6
	originalExact    = 1 // restores bit-exact: Original holds the member table
	originalNotGzip  = 2 // not a gzip file (uncompressed, zstd, bzip2...)
	originalNoParams = 3 // a member zlib does not reproduce with any setting tried
	originalDamaged  = 4 // not a clean sequence of gzip members (bad header or trailer, trailing bytes)
	originalStream   = 5 // the decompressed stream does not restore (not Rebuildable)
	originalLarge    = 6 // a member or the member table is too large
	originalNoZlib   = 7 // ingested by a build without zlib (cgo)
	originalSkipped  = 8 // ingest was told not to look (Options.SkipOriginal)
	originalChanged  = 9 // the file changed between the reads of ingest
	// originalPlain: the file is not compressed; its stream is the file
	// (same length and SHA-256), so it restores as given without a table.
	originalPlain   = 10
	originalReasons = 11
)

var originalWhyText = [originalReasons]string{
	originalUnknown:  "unknown (ingested before catalog version 6)",
	originalExact:    "restores bit-exact",
	originalNotGzip:  "not gzip",
	originalNoParams: "a gzip member zlib does not reproduce",
	originalDamaged:  "not a clean sequence of gzip members",
	originalStream:   "decompressed stream not rebuildable",
	originalLarge:    "gzip member or member table too large",
	originalNoZlib:   "ingested without zlib (cgo)",
	originalSkipped:  "not examined; 'blockwarc prove' examines it from the original",
	originalChanged:  "file changed while ingested",
	originalPlain:    "not compressed: the stream is the file",
}

// OriginalReason says why f does or does not restore bit-exact
// compressed.
func (f *InputFile) OriginalReason() string {
	if int(f.OriginalWhy) < len(originalWhyText) {
		return originalWhyText[f.OriginalWhy]
	}
	return "unknown"
}

// OriginalExact says that export-warc -source -original rebuilds f as
// given (compressed), checked against its SHA256: a gzip file through its
// member table, or an uncompressed file, which is its stream.
func (f *InputFile) OriginalExact() bool {
	return f.Rebuildable && (f.OriginalWhy == originalExact && f.Original != nil || f.OriginalWhy == originalPlain)
}

// OriginalRestorable says whether this build can write f as given
// (WriteOriginal), and if not why: f does not restore bit-exact, or it
// needs zlib and the build has none.
func (f *InputFile) OriginalRestorable() (bool, string) {
	switch {
	case !f.OriginalExact():
		return false, f.OriginalReason()
	case f.Original != nil && !zlibenc.Available:
		return false, "this build has no zlib (built without cgo)"
	}
	return true, ""
}

// OriginalCompressed says that f is a gzip file that restores bit-exact
// compressed (OriginalExact, not merely uncompressed).
func (f *InputFile) OriginalCompressed() bool { return f.OriginalExact() && f.Original != nil }

// Limits of the member search: a member is held whole (compressed and
// decompressed) while tried, and the table lives in the catalog root,
// which every commit rewrites.
const (
	// maxMembers bounds a table's member count (a damaged one must not
	// overflow the sum).
	maxMembers     = 1 << 40
	maxMemberPlain = 64 << 20
	maxMemberTable = 4 << 20 // encoded bytes of one file's table
)

// Original is the member table of a gzip input file: per member its
// decompressed length, in runs of members sharing zlib settings and a
// header.
type Original struct {
	Headers []memberHeader
	Runs    []memberRun
	// Lens is the decompressed length of each member, in file order; nil
	// when PerPiece.
	Lens []int64
	// PerPiece (catalog version 8): member i holds exactly piece i of the
	// file's stream (its records and gaps in file order), as wget and
	// Heritrix write one member per record; the lengths are then the
	// pieces' and are not stored.
	PerPiece bool
	// extents sums the members' (offset, length) at ingest, to compare
	// with the pieces'.
	extents pieceSum
}

// pieceSum is an order-independent digest of a set of (compressed
// offset, skip, decompressed length) extents: the walk meets a file's
// records in URL order, the member search in file order.
type pieceSum struct {
	n   int64
	sum uint64
}

func (p *pieceSum) add(off, skip, n int64) {
	var b [24]byte
	binary.LittleEndian.PutUint64(b[:], uint64(off))
	binary.LittleEndian.PutUint64(b[8:], uint64(skip))
	binary.LittleEndian.PutUint64(b[16:], uint64(n))
	h := sha256.Sum256(b[:])
	p.n++
	p.sum += binary.LittleEndian.Uint64(h[:])
}

// members is the number of members of the file.
func (o *Original) members() int {
	n := 0
	for _, r := range o.Runs {
		n += r.Count
	}
	return n
}

// memberHeader is a gzip member header as written. With sl set, the
// header's FEXTRA "sl" subfield (wget, warcio: the member's length and
// its decompressed length, 32-bit little-endian each) is rewritten for
// each member at offset slAt; the bytes there are zero in Bytes.
type memberHeader struct {
	Bytes []byte
	SL    bool
	slAt  int
}

// memberRun is Count consecutive members deflated with P under header
// Header (an index of Original.Headers).
type memberRun struct {
	Count  int
	P      zlibenc.Params
	Header int
}

// parseGzipHeader reads one gzip member header from br (RFC 1952) and
// returns its bytes and, when its FEXTRA holds an 8-byte "sl" subfield,
// the offset of that subfield's data (-1 otherwise).
func parseGzipHeader(br *bufio.Reader) ([]byte, int, error) {
	h := make([]byte, 10, 64)
	if _, err := io.ReadFull(br, h); err != nil {
		return nil, -1, err
	}
	if h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 || h[3]&0xe0 != 0 {
		return nil, -1, errors.New("not a gzip member header")
	}
	flg, sl := h[3], -1
	if flg&4 != 0 {
		var xl [2]byte
		if _, err := io.ReadFull(br, xl[:]); err != nil {
			return nil, -1, err
		}
		n := int(binary.LittleEndian.Uint16(xl[:]))
		x := make([]byte, n)
		if _, err := io.ReadFull(br, x); err != nil {
			return nil, -1, err
		}
		base := len(h) + 2
		for i := 0; i+4 <= n; {
			sn := int(binary.LittleEndian.Uint16(x[i+2:]))
			if i+4+sn > n {
				break
			}
			if x[i] == 's' && x[i+1] == 'l' && sn == 8 && sl < 0 {
				sl = base + i + 4
			}
			i += 4 + sn
		}
		h = append(append(h, xl[:]...), x...)
	}
	for _, bit := range []byte{8, 16} { // FNAME, FCOMMENT: zero-terminated
		if flg&bit != 0 {
			s, err := br.ReadBytes(0)
			if err != nil {
				return nil, -1, err
			}
			h = append(h, s...)
		}
	}
	if flg&2 != 0 {
		// FHCRC: a CRC of the header, which rewriting "sl" would change.
		var c [2]byte
		if _, err := io.ReadFull(br, c[:]); err != nil {
			return nil, -1, err
		}
		h, sl = append(h, c[:]...), -1
	}
	return h, sl, nil
}

// learnOriginal reads the gzip file at path again, member by member, and
// finds for each member zlib settings that reproduce its deflate data
// from its decompressed bytes, trying the previous member's settings
// first, then zlibenc.Candidates, and giving up on the file at the first
// member none reproduces (so a file zlib did not write costs one member's
// search). want is the stream the first read saw; a file whose members
// do not give it changed under the ingest. It returns the SHA-256 and
// length of the bytes it read, which the caller compares with the file's.
func learnOriginal(ctx context.Context, path string, want [32]byte) (o *Original, why uint8, sum [32]byte, size int64, err error) {
	r := &learned{}
	r.o, r.why, r.sum, r.size, r.stream, r.err = learnOriginalStream(ctx, path)
	r = r.against(want)
	return r.o, r.why, r.sum, r.size, r.err
}

// learnOriginalStream is learnOriginal without the stream to compare:
// it returns the stream the members give (nil when the search stopped
// before the end), which learned.against compares.
func learnOriginalStream(ctx context.Context, path string) (o *Original, why uint8, sum [32]byte, size int64, stream *[32]byte, err error) {
	if !zlibenc.Available {
		return nil, originalNoZlib, sum, 0, nil, nil
	}
	o, why, raw, stream, err := learnMembers(ctx, path)
	if raw != nil {
		raw.h.Sum(sum[:0])
		size = raw.n
	}
	return o, why, sum, size, stream, err
}

// learntApart, when set (tests), is told of each file read again for
// its members.
var learntApart func(path string)

func learnMembers(ctx context.Context, path string) (*Original, uint8, *hashingReader, *[32]byte, error) {
	if learntApart != nil {
		learntApart(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, nil, nil, fmt.Errorf("open input again for its gzip members: %w", err)
	}
	defer f.Close()
	raw := &hashingReader{r: f, h: sha256.New()}
	br := bufio.NewReaderSize(raw, 256<<10)
	if head, _ := br.Peek(2); len(head) < 2 || head[0] != 0x1f || head[1] != 0x8b {
		return nil, originalNotGzip, nil, nil, nil
	}
	pos := func() int64 { return raw.n - int64(br.Buffered()) }
	t := newMemberTable()
	defer t.release()
	var fr io.ReadCloser
	var plain bytes.Buffer
	comp := []byte(nil)
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, nil, nil, err
		}
		if _, err := br.Peek(1); err == io.EOF {
			break
		}
		start := pos()
		hdr, slAt, err := parseGzipHeader(br)
		if err != nil {
			return nil, originalDamaged, nil, nil, nil
		}
		bodyAt := pos()
		if fr == nil {
			fr = flate.NewReader(br)
		} else if err := fr.(flate.Resetter).Reset(br, nil); err != nil {
			return nil, 0, nil, nil, err
		}
		plain.Reset()
		n, err := io.Copy(&plain, io.LimitReader(fr, maxMemberPlain+1))
		if n > maxMemberPlain {
			return nil, originalLarge, nil, nil, nil
		}
		if err != nil {
			return nil, originalDamaged, nil, nil, nil
		}
		bodyEnd := pos()
		var tr [8]byte
		if _, err := io.ReadFull(br, tr[:]); err != nil {
			return nil, originalDamaged, nil, nil, nil
		}
		data := plain.Bytes()
		if binary.LittleEndian.Uint32(tr[:]) != crc32.ChecksumIEEE(data) || binary.LittleEndian.Uint32(tr[4:]) != uint32(len(data)) {
			return nil, originalDamaged, nil, nil, nil
		}
		end := pos()
		comp = comp[:0]
		if cap(comp) < int(bodyEnd-bodyAt) {
			comp = make([]byte, bodyEnd-bodyAt)
		}
		comp = comp[:bodyEnd-bodyAt]
		if _, err := f.ReadAt(comp, bodyAt); err != nil {
			return nil, 0, nil, nil, fmt.Errorf("read gzip member of %s at %d: %w", path, start, err)
		}
		if why := t.add(start, end, hdr, slAt, comp, data); why != 0 {
			return nil, why, nil, nil, nil
		}
	}
	if _, err := io.Copy(io.Discard, br); err != nil {
		return nil, 0, nil, nil, err
	}
	o, why, got := t.finish()
	if why != originalExact {
		return nil, why, nil, got, nil
	}
	return o, originalExact, raw, got, nil
}

// memberTable learns a gzip file's member table one member at a time,
// in file order: from a read of its own (learnMembers) or from the
// members an ingest's reader decompresses anyway (memberHook).
type memberTable struct {
	o      *Original
	hdrs   map[string]int
	stream hash.Hash
	prev   *zlibenc.Params
	zs     *zlibenc.Stream
}

func newMemberTable() *memberTable {
	return &memberTable{o: &Original{}, hdrs: map[string]int{}, stream: sha256.New(),
		zs: zlibStreams.Get().(*zlibenc.Stream)}
}

func (t *memberTable) release() { zlibStreams.Put(t.zs) }

// add learns the member stored at start..end: its header hdr (with its
// "sl" subfield at slAt, or -1), its deflate data comp and its
// decompressed bytes data. It returns why the file cannot be learnt
// (0: it can, so far).
func (t *memberTable) add(start, end int64, hdr []byte, slAt int, comp, data []byte) uint8 {
	p, ok := findParams(t.zs, data, comp, t.prev)
	if !ok {
		return originalNoParams
	}
	t.prev = &p
	o := t.o
	// The header: "sl" is recomputed when it says what it should
	// (member length, decompressed length); otherwise kept literally.
	mh := memberHeader{Bytes: hdr, slAt: -1}
	if slAt >= 0 && binary.LittleEndian.Uint32(hdr[slAt:]) == uint32(end-start) &&
		binary.LittleEndian.Uint32(hdr[slAt+4:]) == uint32(len(data)) {
		mh.Bytes = bytes.Clone(hdr)
		clear(mh.Bytes[slAt : slAt+8])
		mh.SL, mh.slAt = true, slAt
	}
	key := string(mh.Bytes)
	if mh.SL {
		key += "\x00sl"
	}
	hi, seen := t.hdrs[key]
	if !seen {
		hi = len(o.Headers)
		t.hdrs[key] = hi
		o.Headers = append(o.Headers, mh)
	}
	if r := len(o.Runs) - 1; r >= 0 && o.Runs[r].P == p && o.Runs[r].Header == hi {
		o.Runs[r].Count++
	} else {
		o.Runs = append(o.Runs, memberRun{Count: 1, P: p, Header: hi})
	}
	o.Lens = append(o.Lens, int64(len(data)))
	o.extents.add(start, 0, int64(len(data)))
	t.stream.Write(data)
	return 0
}

// finish returns the table of every member added (originalExact), or
// why there is none, and the stream the members gave.
func (t *memberTable) finish() (*Original, uint8, *[32]byte) {
	got := new([32]byte)
	t.stream.Sum(got[:0])
	if len(t.o.appendTo(nil)) > maxMemberTable {
		return nil, originalLarge, got
	}
	return t.o, originalExact, got
}

// zlibStreams are deflate states (about 300 KiB of C memory each) for
// the member searches and rebuilds running at a time; a state dropped by
// the pool is freed when collected.
var zlibStreams = sync.Pool{New: func() any { return zlibenc.NewStream() }}

// findParams returns zlib settings under which data deflates to comp.
func findParams(zs *zlibenc.Stream, data, comp []byte, prev *zlibenc.Params) (zlibenc.Params, bool) {
	if prev != nil {
		if ok, _ := zs.Reproduces(data, comp, *prev); ok {
			return *prev, true
		}
	}
	for _, p := range zlibenc.Candidates() {
		if prev != nil && p == *prev {
			continue
		}
		if ok, _ := zs.Reproduces(data, comp, p); ok {
			return p, true
		}
	}
	return zlibenc.Params{}, false
}

type hashingReader struct {
	r io.Reader
	h hash.Hash
	n int64
}

func (c *hashingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	return n, err
}

// appendTo encodes the table (docs/FORMAT.md "Catalog root", version 8).
func (o *Original) appendTo(b []byte) []byte {
	b = o.appendRuns(b)
	if o.PerPiece {
		return append(b, 1)
	}
	return o.appendLens(append(b, 0))
}

// appendRuns writes the headers and runs of the table.
func (o *Original) appendRuns(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(o.Headers)))
	for _, h := range o.Headers {
		if h.SL {
			b = binary.AppendUvarint(b, uint64(h.slAt)+1)
		} else {
			b = append(b, 0)
		}
		b = appendString(b, string(h.Bytes))
	}
	b = binary.AppendUvarint(b, uint64(len(o.Runs)))
	for _, r := range o.Runs {
		b = binary.AppendUvarint(b, uint64(r.Count))
		st := byte(r.P.Strategy)
		if r.P.SyncFlush {
			st |= 16
		}
		b = append(b, byte(r.P.Level|r.P.MemLevel<<4), st)
		b = binary.AppendUvarint(b, uint64(r.Header))
	}
	return b
}

// appendLens writes the member lengths.
func (o *Original) appendLens(b []byte) []byte {
	for _, n := range o.Lens {
		b = binary.AppendUvarint(b, uint64(n))
	}
	return b
}

// decodeOriginal reads a table appendTo wrote; perPiece: the table has
// the byte saying whether the lengths follow (catalog version 8).
func decodeOriginal(d *dec, perPiece bool) *Original {
	o := &Original{}
	nh := d.count("member headers", 2)
	for range nh {
		sl := d.uvarint("member header sl")
		h := memberHeader{Bytes: []byte(d.str("member header")), slAt: -1}
		if sl > 0 {
			if len(h.Bytes) < 8 || sl-1 > uint64(len(h.Bytes)-8) {
				d.fail("member header sl")
				return nil
			}
			h.SL, h.slAt = true, int(sl-1)
		}
		o.Headers = append(o.Headers, h)
	}
	nr := d.count("member runs", 3)
	total := 0
	for range nr {
		r := memberRun{Count: int(d.uvarint("member run"))}
		lm := d.bytes(2, "member params")
		r.Header = int(d.uvarint("member run header"))
		if d.err != nil {
			return nil
		}
		r.P = zlibenc.Params{Level: int(lm[0] & 15), MemLevel: int(lm[0] >> 4), Strategy: int(lm[1] &^ 16), SyncFlush: lm[1]&16 != 0}
		// Each member takes a length byte or more, except in a table of
		// lengths per piece: there, a member is a record of the file.
		if !r.P.Valid() || r.Header >= len(o.Headers) || r.Count <= 0 || !perPiece && r.Count > len(d.b) || r.Count > maxMembers-total {
			d.fail("member run")
			return nil
		}
		total += r.Count
		o.Runs = append(o.Runs, r)
	}
	if perPiece {
		switch b := d.bytes(1, "member lengths"); {
		case b == nil:
			return nil
		case b[0] == 1:
			o.PerPiece = true
			return o
		case b[0] != 0:
			d.fail("member lengths")
			return nil
		}
	}
	if total > len(d.b) {
		d.fail("member count")
		return nil
	}
	o.Lens = make([]int64, total)
	for i := range o.Lens {
		if o.Lens[i] = int64(d.uvarint("member length")); o.Lens[i] > maxMemberPlain {
			d.fail("member length")
		}
	}
	if d.err != nil {
		return nil
	}
	return o
}

// originalWriter turns a file's decompressed stream, written to it in
// any pieces, into the file's gzip members, written to w.
type originalWriter struct {
	w          io.Writer
	o          *Original
	i          int // next member
	run, inRun int // its run, and its place in the run
	buf        []byte
	out        []byte
	zs         *zlibenc.Stream
	n          int64
	h          hash.Hash
	// err is the first error; with soft set, Write does not return it
	// (verify checks the stream and the compressed file in one pass, and
	// a fault of the second must not hide the first).
	err  error
	soft bool
}

func newOriginalWriter(w io.Writer, o *Original) *originalWriter {
	return &originalWriter{w: w, o: o, h: sha256.New(), zs: zlibStreams.Get().(*zlibenc.Stream)}
}

// release returns the writer's deflate state to the pool; the writer is
// not used after.
func (ow *originalWriter) release() {
	if ow.zs != nil {
		zlibStreams.Put(ow.zs)
		ow.zs = nil
	}
}

func (ow *originalWriter) Write(p []byte) (int, error) {
	n, err := ow.write(p)
	if err != nil && ow.err == nil {
		ow.err = err
	}
	if ow.soft {
		return len(p), nil
	}
	return n, err
}

func (ow *originalWriter) write(p []byte) (int, error) {
	if ow.err != nil {
		return 0, ow.err
	}
	n := len(p)
	if ow.o.PerPiece {
		// One Write per piece (streamSource): a member each.
		if ow.i >= ow.o.members() {
			return 0, errors.New("stream has more pieces than its gzip members")
		}
		ow.buf = append(ow.buf[:0], p...)
		return n, ow.emit()
	}
	for {
		if err := ow.flushFull(); err != nil {
			return 0, err
		}
		if len(p) == 0 {
			return n, nil
		}
		if ow.i >= len(ow.o.Lens) {
			return 0, errors.New("stream longer than its gzip members")
		}
		k := min(int64(len(p)), ow.o.Lens[ow.i]-int64(len(ow.buf)))
		ow.buf = append(ow.buf, p[:k]...)
		p = p[k:]
	}
}

// flushFull writes every member whose decompressed bytes are all in.
func (ow *originalWriter) flushFull() error {
	for ow.i < len(ow.o.Lens) && int64(len(ow.buf)) == ow.o.Lens[ow.i] {
		if err := ow.emit(); err != nil {
			return err
		}
	}
	return nil
}

// emit writes the buffer as the next member.
func (ow *originalWriter) emit() error {
	r := &ow.o.Runs[ow.run]
	h := ow.o.Headers[r.Header]
	ow.out = append(ow.out[:0], h.Bytes...)
	var err error
	if ow.out, err = ow.zs.Deflate(ow.out, ow.buf, r.P); err != nil {
		return err
	}
	ow.out = binary.LittleEndian.AppendUint32(ow.out, crc32.ChecksumIEEE(ow.buf))
	ow.out = binary.LittleEndian.AppendUint32(ow.out, uint32(len(ow.buf)))
	if h.SL {
		binary.LittleEndian.PutUint32(ow.out[h.slAt:], uint32(len(ow.out)))
		binary.LittleEndian.PutUint32(ow.out[h.slAt+4:], uint32(len(ow.buf)))
	}
	ow.h.Write(ow.out)
	if _, err := ow.w.Write(ow.out); err != nil {
		return err
	}
	ow.n += int64(len(ow.out))
	ow.buf = ow.buf[:0]
	ow.i++
	if ow.inRun++; ow.inRun == r.Count {
		ow.run, ow.inRun = ow.run+1, 0
	}
	return nil
}

// close writes trailing empty members and fails when the stream ended
// before the members did.
func (ow *originalWriter) close() error {
	if ow.err != nil {
		return ow.err
	}
	if err := ow.flushFull(); err != nil {
		return err
	}
	if m := ow.o.members(); ow.i != m {
		return fmt.Errorf("stream ends in gzip member %d of %d", ow.i+1, m)
	}
	return nil
}

// ErrNoOriginal says an input file cannot be restored as given
// (compressed); the error names why.
var ErrNoOriginal = errors.New("cannot restore the original compressed file")

// WriteOriginal restores f as given (its compressed bytes) from the
// versions WalkSources returned for it, and checks the result against
// the size and SHA-256 ingest recorded (Exact); a mismatch is reported
// in the stats, not hidden.
func (a *Archive) WriteOriginal(w io.Writer, f InputFile, vs []Version) (SourceStats, error) {
	if !f.OriginalExact() {
		return SourceStats{}, fmt.Errorf("%w %s: %s", ErrNoOriginal, f.Name, f.OriginalReason())
	}
	if f.Original == nil { // not compressed: the stream is the file
		st, err := a.streamSource(w, f, vs, nil, nil)
		st.Exact = st.Exact && st.Bytes == f.Size && st.SHA256 == f.SHA256
		return st, err
	}
	if !zlibenc.Available {
		return SourceStats{}, fmt.Errorf("%w %s: this build has no zlib (built without cgo)", ErrNoOriginal, f.Name)
	}
	ow := newOriginalWriter(w, f.Original)
	defer ow.release()
	st, err := a.streamSource(ow, f, vs, nil, nil)
	if err == nil {
		err = ow.close()
	}
	return originalStats(st, ow, f), err
}

// originalStats turns the stream's stats into the compressed file's.
func originalStats(st SourceStats, ow *originalWriter, f InputFile) SourceStats {
	stream := st.Exact
	st.Bytes = ow.n
	ow.h.Sum(st.SHA256[:0])
	st.Exact = stream && ow.err == nil && ow.i == ow.o.members() && st.Bytes == f.Size && st.SHA256 == f.SHA256
	return st
}

// originalLearner reads gzip inputs a second time, each as soon as the
// walk has read it to its end (Walk's OnFile), while the ingest goes on,
// at most GOMAXPROCS files at once: the member search (one deflate per
// member) then overlaps the modelling instead of following it. Each
// search holds one member (at most maxMemberPlain bytes decompressed).
type originalLearner struct {
	ctx    context.Context
	cancel context.CancelFunc
	sem    chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	res    map[string]*learned
	given  map[string][]byte // Options.Originals: learnt already
	hooks  *memberHooks      // members the walk decompressed; nil: none
}

type learned struct {
	o    *Original
	why  uint8
	sum  [32]byte
	size int64
	// stream is the stream the members gave, when the search read them
	// all; against compares it with the walk's.
	stream *[32]byte
	err    error
}

// against is what was learnt of a file whose walk read the stream want:
// a file whose members give another stream changed under the ingest.
func (r *learned) against(want [32]byte) *learned {
	if r.err == nil && r.stream != nil && *r.stream != want {
		return &learned{why: originalChanged}
	}
	return r
}

func newOriginalLearner(ctx context.Context) *originalLearner {
	l := &originalLearner{sem: make(chan struct{}, runtime.GOMAXPROCS(0)), res: map[string]*learned{}}
	l.ctx, l.cancel = context.WithCancel(ctx)
	return l
}

// start begins learning the file fs describes, when its stream can be
// rebuilt and it can be read again.
func (l *originalLearner) start(fs warcio.FileStream) {
	var h *fileHook
	if l.hooks != nil {
		h = l.hooks.finish(fs.File) // whatever follows: its search ends
	}
	if !fs.Tiled || fs.File == "-" {
		return
	}
	if b, ok := l.given[fs.File]; ok {
		r, err := decodeLearned(b)
		if err != nil {
			r = &learned{err: fmt.Errorf("learnt original of %s: %w", fs.File, err)}
		}
		l.mu.Lock()
		l.res[fs.File] = r.against(fs.SHA256)
		l.mu.Unlock()
		return
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		if h != nil {
			if r := h.result(); r != nil {
				l.mu.Lock()
				l.res[fs.File] = r.against(fs.SHA256)
				l.mu.Unlock()
				return
			}
		}
		select {
		case l.sem <- struct{}{}:
		case <-l.ctx.Done():
			return
		}
		defer func() { <-l.sem }()
		r := &learned{}
		r.o, r.why, r.sum, r.size, r.err = learnOriginal(l.ctx, fs.File, fs.SHA256)
		l.mu.Lock()
		l.res[fs.File] = r
		l.mu.Unlock()
	}()
}

// stop abandons what is still running and waits for it.
func (l *originalLearner) stop() {
	l.cancel()
	if l.hooks != nil {
		l.hooks.stop()
	}
	l.wg.Wait()
}

// apply waits for every search and sets Original and OriginalWhy of the
// rows (paths[i] is row i's file); with skip it only marks them.
func (l *originalLearner) apply(rows []InputFile, paths []string, pieces map[string]pieceSum, skip bool) error {
	l.wg.Wait()
	for i := range rows {
		in := &rows[i]
		r := l.res[paths[i]]
		switch {
		case in.StreamLen < 0:
			// no version 6 field is written
		case skip || paths[i] == "-": // standard input cannot be read again
			in.OriginalWhy = originalSkipped
		case !in.Rebuildable:
			in.OriginalWhy = originalStream
		case in.StreamLen == in.Size && in.StreamSHA256 == in.SHA256:
			in.OriginalWhy = originalPlain
		case r == nil:
			if err := l.ctx.Err(); err != nil {
				return err
			}
			in.OriginalWhy = originalSkipped
		case r.err != nil:
			return r.err
		case r.why == originalExact && (r.sum != in.SHA256 || r.size != in.Size):
			in.OriginalWhy = originalChanged
		default:
			in.Original, in.OriginalWhy = r.o, r.why
			// One member per record or gap: the lengths are the pieces'.
			if r.o != nil && r.o.extents.n > 0 && r.o.extents == pieces[paths[i]] {
				r.o.PerPiece, r.o.Lens = true, nil
			}
		}
	}
	return nil
}
