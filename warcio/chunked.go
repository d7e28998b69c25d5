package warcio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Chunked transfer coding, undone losslessly.
//
// A Dechunker reads a stored HTTP entity and yields the entity without its
// chunk framing. Everything it removes — size lines with their extensions,
// the line ending after each chunk, the last-chunk, trailer fields, bytes
// after the end — is recorded in a Framing as insertions at positions of
// the de-chunked stream, so Rechunk(dechunked, framing) gives back the
// stored bytes exactly, whatever they were. Broken framing never fails the
// read: the Dechunker passes the rest through unchanged and says where and
// why in Framing.Problem.

// DefaultMaxFraming bounds the memory a Framing may use. Ordinary chunks
// cost one to three bytes each, so this holds millions of chunks; beyond it
// the Framing is marked Overflow and cannot rebuild the stored bytes.
const DefaultMaxFraming = 16 << 20

const (
	maxChunkSizeLine  = 4096     // longest chunk-size line (with extensions) accepted
	dechunkBufSize    = 32 << 10 // lets the first chunk be checked before any byte is emitted
	maxChunkHexDigits = 15       // chunk sizes below 2^60
)

// ErrFramingOverflow means a Framing held too many chunks to be recorded.
var ErrFramingOverflow = errors.New("chunk framing too large to record")

// ChunkError describes broken chunk framing. Pos is the offset in the
// stored (still chunked) entity where it was found.
type ChunkError struct {
	Pos int64
	Msg string
}

func (e *ChunkError) Error() string {
	return fmt.Sprintf("dechunk at stored byte %d: %s", e.Pos, e.Msg)
}

// Framing records what a Dechunker removed from a stored entity.
type Framing struct {
	// Chunked is false when the entity did not start with a well-formed
	// chunk (the crawler stored it de-chunked, or it is garbage): every
	// byte was passed through unchanged and Problem says why.
	Chunked bool
	// Complete is set when the last-chunk and the blank line after the
	// trailer were read.
	Complete bool
	// Truncated is set when the entity ended inside a chunk or its framing.
	Truncated bool
	// Overflow is set when the framing exceeded its memory bound; such a
	// Framing cannot rebuild the stored bytes.
	Overflow bool

	Stored  int64 // bytes read from the stored entity
	Decoded int64 // bytes produced
	Chunks  int64 // data chunks read (the last-chunk not counted)
	// FallbackAt is the de-chunked offset from which stored bytes were
	// passed through unchanged because the framing broke; -1 when none.
	FallbackAt int64
	// Trailing counts stored bytes after the end of the chunked entity;
	// they are recorded, not emitted.
	Trailing int64
	// Problem explains a non-chunked start, a fallback or truncation; nil
	// when the framing was clean.
	Problem *ChunkError

	enc     []byte // insertions, see appendEntry
	entries int64
}

// Clean reports whether the entity was well-formed chunked data read to
// its end with nothing left over.
func (f *Framing) Clean() bool {
	return f.Chunked && f.Complete && !f.Truncated && f.FallbackAt < 0 && f.Trailing == 0 && f.Problem == nil
}

// Size returns the memory used by the recorded insertions.
func (f *Framing) Size() int { return len(f.enc) }

// Insertions are stored as a sequence of entries, each
//
//	uvarint(delta<<2 | mode) [mode 0: uvarint(len) bytes | mode 3: byte(width<<1 | upper)]
//
// where delta is the insertion's de-chunked offset minus the previous
// one's. Mode 0 stores the bytes. The other modes mean the canonical
// framing, derived instead of stored: "\r\n" (except for the first entry)
// + hex(next delta) + "\r\n" when another entry follows, else "0\r\n\r\n";
// mode 1 in lower-case hex, 2 in upper-case, 3 zero-padded to width digits
// (some servers write "00000001"). A well-formed chunk thus costs its
// delta varint and at most one byte.
const (
	chunkModeRaw = iota
	chunkModeLower
	chunkModeUpper
	chunkModePadded
)

// chunkStyle is how a canonical size is written.
type chunkStyle struct {
	upper bool
	width int // zero-pad to this many digits; 0: no padding
}

func chunkCanonical(dst []byte, first, hasNext bool, next int64, st chunkStyle) []byte {
	if !first {
		dst = append(dst, '\r', '\n')
	}
	if !hasNext {
		next = 0
	}
	var digits [16]byte
	hex := strconv.AppendInt(digits[:0], next, 16)
	for i := len(hex); i < st.width; i++ {
		dst = append(dst, '0')
	}
	start := len(dst)
	dst = append(dst, hex...)
	if st.upper {
		for i := start; i < len(dst); i++ {
			if c := dst[i]; c >= 'a' && c <= 'f' {
				dst[i] = c - 'a' + 'A'
			}
		}
	}
	dst = append(dst, '\r', '\n')
	if !hasNext {
		dst = append(dst, '\r', '\n')
	}
	return dst
}

// chunkStyles returns the styles worth trying for insertion b: plain lower
// and upper case, and padded to the width of the digits b holds.
func chunkStyles(b []byte, first bool) [4]chunkStyle {
	if !first {
		b = bytes.TrimPrefix(b, []byte("\r\n"))
	}
	w := 0
	for w < len(b) && w < maxChunkHexDigits && strings.IndexByte("0123456789abcdefABCDEF", b[w]) >= 0 {
		w++
	}
	return [4]chunkStyle{{}, {upper: true}, {width: w}, {width: w, upper: true}}
}

// framingEnc builds a Framing's entries one insertion behind, since the
// canonical form of an entry depends on the next one's offset.
type framingEnc struct {
	f       *Framing
	max     int
	pend    []byte
	pendPos int64
	hasPend bool
	lastPos int64
	scratch []byte
}

func (e *framingEnc) insert(pos int64, b []byte) {
	e.f.Stored += int64(len(b))
	if e.f.Overflow || len(b) == 0 {
		return
	}
	if e.hasPend && pos == e.pendPos {
		e.pend = append(e.pend, b...)
		return
	}
	if e.hasPend {
		e.flush(true, pos-e.pendPos)
	}
	e.pend = append(e.pend[:0], b...)
	e.pendPos, e.hasPend = pos, true
}

func (e *framingEnc) flush(hasNext bool, next int64) {
	if !e.hasPend || e.f.Overflow {
		return
	}
	first := e.f.entries == 0
	mode := chunkModeRaw
	var style chunkStyle
	if !hasNext || next > 0 {
		for _, st := range chunkStyles(e.pend, first) {
			e.scratch = chunkCanonical(e.scratch[:0], first, hasNext, next, st)
			if bytes.Equal(e.scratch, e.pend) {
				style = st
				switch {
				case st.width > 0:
					mode = chunkModePadded
				case st.upper:
					mode = chunkModeUpper
				default:
					mode = chunkModeLower
				}
				break
			}
		}
	}
	delta := e.pendPos - e.lastPos
	e.f.enc = binary.AppendUvarint(e.f.enc, uint64(delta)<<2|uint64(mode))
	switch mode {
	case chunkModeRaw:
		e.f.enc = binary.AppendUvarint(e.f.enc, uint64(len(e.pend)))
		e.f.enc = append(e.f.enc, e.pend...)
	case chunkModePadded:
		up := byte(0)
		if style.upper {
			up = 1
		}
		e.f.enc = append(e.f.enc, byte(style.width)<<1|up)
	}
	e.f.entries++
	e.lastPos = e.pendPos
	e.hasPend = false
	if len(e.f.enc) > e.max {
		e.f.Overflow = true
		e.f.enc = nil
	}
}

// insertions calls fn for every recorded insertion in order. b is only
// valid during the call.
func (f *Framing) insertions(fn func(pos int64, b []byte) error) error {
	if f.Overflow {
		return ErrFramingOverflow
	}
	type entry struct {
		pos   int64
		mode  int
		raw   []byte
		style chunkStyle
	}
	src := f.enc
	readEntry := func() (entry, bool, error) {
		if len(src) == 0 {
			return entry{}, false, nil
		}
		v, n := binary.Uvarint(src)
		if n <= 0 || v>>2 > 1<<62 {
			return entry{}, false, errors.New("corrupt framing entry")
		}
		src = src[n:]
		en := entry{pos: int64(v >> 2), mode: int(v & 3)}
		switch en.mode {
		case chunkModeRaw:
			l, n := binary.Uvarint(src)
			if n <= 0 || l > uint64(len(src)-n) {
				return entry{}, false, errors.New("corrupt framing entry")
			}
			en.raw = src[n : n+int(l)]
			src = src[n+int(l):]
		case chunkModeUpper:
			en.style.upper = true
		case chunkModePadded:
			if len(src) == 0 || int(src[0]>>1) > maxChunkHexDigits {
				return entry{}, false, errors.New("corrupt framing entry")
			}
			en.style = chunkStyle{width: int(src[0] >> 1), upper: src[0]&1 != 0}
			src = src[1:]
		}
		return en, true, nil
	}
	cur, ok, err := readEntry()
	if err != nil || !ok {
		return err
	}
	var pos int64
	var scratch []byte
	for i := 0; ok; i++ {
		next, hasNext, err := readEntry()
		if err != nil {
			return err
		}
		pos += cur.pos
		b := cur.raw
		if cur.mode != chunkModeRaw {
			scratch = chunkCanonical(scratch[:0], i == 0, hasNext, next.pos, cur.style)
			b = scratch
		}
		if err := fn(pos, b); err != nil {
			return err
		}
		cur, ok = next, hasNext
	}
	return nil
}

// Rechunk writes the stored entity rebuilt from its de-chunked bytes and
// the Framing the Dechunker recorded for them. It returns the bytes
// written; it fails when dechunked does not have f.Decoded bytes or f
// overflowed.
func Rechunk(w io.Writer, dechunked io.Reader, f *Framing) (int64, error) {
	var written, at int64
	err := f.insertions(func(pos int64, b []byte) error {
		if pos > at {
			n, err := io.CopyN(w, dechunked, pos-at)
			written += n
			at += n
			if err != nil {
				return fmt.Errorf("copy chunk data at %d: %w", at, err)
			}
		}
		n, err := w.Write(b)
		written += int64(n)
		return err
	})
	if err != nil {
		return written, fmt.Errorf("rechunk: %w", err)
	}
	n, err := io.Copy(w, dechunked)
	written += n
	at += n
	if err != nil {
		return written, fmt.Errorf("rechunk: copy tail: %w", err)
	}
	if at != f.Decoded {
		return written, fmt.Errorf("rechunk: de-chunked input has %d bytes, framing expects %d", at, f.Decoded)
	}
	if written != f.Stored {
		return written, fmt.Errorf("rechunk: rebuilt %d bytes, framing expects %d", written, f.Stored)
	}
	return written, nil
}

// Rebuild returns the stored entity rebuilt from its de-chunked bytes.
func Rebuild(dechunked []byte, f *Framing) ([]byte, error) {
	var buf bytes.Buffer
	// Stored may come from a corrupt encoding: trust it only as far as the
	// insertions could account for it.
	buf.Grow(int(min(f.Stored, int64(len(dechunked))+int64(len(f.enc))*32+64)))
	if _, err := Rechunk(&buf, bytes.NewReader(dechunked), f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

const chunkFramingVersion = 1

// MarshalBinary encodes the Framing for storage next to the de-chunked
// entity.
func (f *Framing) MarshalBinary() ([]byte, error) {
	var flags byte
	for i, b := range []bool{f.Chunked, f.Complete, f.Truncated, f.Overflow, f.Problem != nil} {
		if b {
			flags |= 1 << i
		}
	}
	out := []byte{chunkFramingVersion, flags}
	for _, v := range []int64{f.Stored, f.Decoded, f.Chunks, f.FallbackAt + 1, f.Trailing, f.entries} {
		out = binary.AppendUvarint(out, uint64(v))
	}
	if f.Problem != nil {
		out = binary.AppendUvarint(out, uint64(f.Problem.Pos))
		out = binary.AppendUvarint(out, uint64(len(f.Problem.Msg)))
		out = append(out, f.Problem.Msg...)
	}
	out = binary.AppendUvarint(out, uint64(len(f.enc)))
	return append(out, f.enc...), nil
}

// UnmarshalBinary decodes what MarshalBinary wrote.
func (f *Framing) UnmarshalBinary(data []byte) error {
	bad := func(what string) error { return fmt.Errorf("decode framing: bad %s", what) }
	if len(data) < 2 || data[0] != chunkFramingVersion {
		return bad("version")
	}
	flags := data[1]
	src := data[2:]
	uv := func() (int64, bool) {
		v, n := binary.Uvarint(src)
		if n <= 0 || v > 1<<62 {
			return 0, false
		}
		src = src[n:]
		return int64(v), true
	}
	var g Framing
	g.Chunked, g.Complete, g.Truncated, g.Overflow = flags&1 != 0, flags&2 != 0, flags&4 != 0, flags&8 != 0
	for _, p := range []*int64{&g.Stored, &g.Decoded, &g.Chunks, &g.FallbackAt, &g.Trailing, &g.entries} {
		v, ok := uv()
		if !ok {
			return bad("counter")
		}
		*p = v
	}
	g.FallbackAt--
	if flags&16 != 0 {
		pos, ok := uv()
		l, ok2 := uv()
		if !ok || !ok2 || l > int64(len(src)) {
			return bad("problem")
		}
		g.Problem = &ChunkError{Pos: pos, Msg: string(src[:l])}
		src = src[l:]
	}
	l, ok := uv()
	if !ok || l != int64(len(src)) {
		return bad("insertions")
	}
	if l > 0 {
		g.enc = append([]byte(nil), src...)
	}
	*f = g
	return nil
}

// Dechunker states.
const (
	dcFirst = iota
	dcSize
	dcData
	dcDataEnd
	dcTrailer
	dcAfter
	dcPass
	dcDone
)

// Dechunker reads a chunked entity and yields it de-chunked; see Framing.
type Dechunker struct {
	// MaxFraming bounds the Framing's memory (DefaultMaxFraming when 0);
	// set it before the first Read.
	MaxFraming int

	br        *bufio.Reader
	state     int
	remaining int64
	crlf      bool   // the first size line ended in CR LF: chunks must too
	midLine   bool   // the trailer line being read did not fit the buffer
	out       []byte // stored bytes to emit before reading on (fallback)
	err       error
	f         Framing
	enc       framingEnc
}

// NewDechunker returns a Dechunker reading the stored entity from r.
func NewDechunker(r io.Reader) *Dechunker {
	d := &Dechunker{}
	d.Reset(r)
	return d
}

// Reset makes d read a new entity from r, reusing its buffers.
func (d *Dechunker) Reset(r io.Reader) {
	if d.br == nil {
		d.br = bufio.NewReaderSize(r, dechunkBufSize)
	} else {
		d.br.Reset(r)
	}
	d.state, d.remaining, d.crlf, d.out, d.err = dcFirst, 0, false, d.out[:0], nil
	d.midLine = false
	d.f = Framing{FallbackAt: -1} // not reusing enc: callers may keep the old Framing
	d.enc = framingEnc{f: &d.f, pend: d.enc.pend[:0], scratch: d.enc.scratch[:0]}
}

// Framing returns what was removed. It is complete once Read has returned
// io.EOF and stays valid until Reset.
func (d *Dechunker) Framing() *Framing { return &d.f }

func (d *Dechunker) problem(msg string) {
	if d.f.Problem == nil {
		d.f.Problem = &ChunkError{Pos: d.f.Stored, Msg: msg}
	}
}

// fallback passes everything from here on through unchanged, starting
// with pending, stored bytes already read.
func (d *Dechunker) fallback(pending []byte, msg string) {
	d.problem(msg)
	d.f.FallbackAt = d.f.Decoded
	d.out = append(d.out[:0], pending...)
	d.state = dcPass
}

func (d *Dechunker) finish() {
	d.state = dcDone
	d.enc.max = d.maxFraming()
	d.enc.flush(false, 0)
}

func (d *Dechunker) maxFraming() int {
	if d.MaxFraming > 0 {
		return d.MaxFraming
	}
	return DefaultMaxFraming
}

func (d *Dechunker) Read(p []byte) (int, error) {
	if d.enc.max == 0 {
		d.enc.max = d.maxFraming()
	}
	for {
		switch d.state {
		case dcDone:
			if d.err != nil {
				return 0, d.err
			}
			return 0, io.EOF
		case dcFirst:
			d.detect()
		case dcSize:
			d.readSize()
		case dcData:
			if len(p) == 0 {
				return 0, nil
			}
			q := p
			if int64(len(q)) > d.remaining {
				q = q[:d.remaining]
			}
			n, err := d.br.Read(q)
			d.remaining -= int64(n)
			d.f.Decoded += int64(n)
			d.f.Stored += int64(n)
			if d.remaining == 0 {
				d.state = dcDataEnd
			}
			if err != nil && (err != io.EOF || d.remaining > 0) {
				d.readErr(err, "entity ends inside a chunk")
				d.finish()
			}
			if n > 0 {
				return n, nil
			}
		case dcDataEnd:
			d.readDataEnd()
		case dcTrailer:
			d.readTrailer()
		case dcAfter:
			b, err := d.br.ReadSlice('\n')
			if len(b) > 0 {
				d.f.Trailing += int64(len(b))
				d.enc.insert(d.f.Decoded, b)
			}
			if err != nil && err != bufio.ErrBufferFull {
				d.readErr(err, "")
				d.finish()
			}
		case dcPass:
			if len(p) == 0 {
				return 0, nil
			}
			if len(d.out) > 0 {
				n := copy(p, d.out)
				d.out = d.out[n:]
				d.f.Decoded += int64(n)
				d.f.Stored += int64(n)
				return n, nil
			}
			n, err := d.br.Read(p)
			d.f.Decoded += int64(n)
			d.f.Stored += int64(n)
			if err != nil {
				d.readErr(err, "")
				d.finish()
			}
			if n > 0 {
				return n, nil
			}
		}
	}
}

// readErr records err: io.EOF marks truncation (when msg is not empty),
// anything else is a read error, returned by every later Read.
func (d *Dechunker) readErr(err error, msg string) {
	if err == io.EOF {
		if msg != "" {
			d.f.Truncated = true
			d.problem(msg)
		}
		return
	}
	d.err = fmt.Errorf("dechunk at stored byte %d: %w", d.f.Stored, err)
}

// parseChunkSizeLine parses a chunk-size line (ending included, if any): hex
// digits, optional blanks, optional extensions of printable ASCII, then
// CRs and LF. ok is false when the line is anything else.
func parseChunkSizeLine(line []byte) (size int64, crlf, ok bool) {
	i := 0
	for i < len(line) && i <= maxChunkHexDigits {
		c := line[i]
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			goto rest
		}
		size = size<<4 | int64(v)
		i++
	}
rest:
	if i == 0 || i > maxChunkHexDigits {
		return 0, false, false
	}
	body := httpTrimEOL(line)
	if len(body) < i {
		return 0, false, false
	}
	ext := body[i:]
	for len(ext) > 0 && (ext[0] == ' ' || ext[0] == '\t') {
		ext = ext[1:]
	}
	if len(ext) > 0 && ext[0] != ';' {
		return 0, false, false
	}
	for _, c := range ext {
		if (c < 0x20 || c > 0x7e) && c != '\t' {
			return 0, false, false
		}
	}
	crlf = len(body) < len(line)-1 // at least one CR before the LF
	return size, crlf, true
}

// detect decides whether the entity is chunked at all: its first line must
// be a chunk-size line and, when the first chunk fits in the buffer, the
// chunk must end where its size says. Otherwise it is passed through.
func (d *Dechunker) detect() {
	head, err := d.br.Peek(maxChunkSizeLine)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		d.readErr(err, "")
		d.finish()
		return
	}
	if len(head) == 0 {
		d.f.Chunked = true
		d.f.Truncated = true
		d.problem("empty entity")
		d.finish()
		return
	}
	nl := bytes.IndexByte(head, '\n')
	if nl < 0 {
		d.fallback(nil, "entity does not start with a chunk-size line")
		return
	}
	size, crlf, ok := parseChunkSizeLine(head[:nl+1])
	if !ok {
		d.fallback(nil, "entity does not start with a chunk-size line")
		return
	}
	if end := int64(nl+1) + size; size > 0 {
		// Check the first chunk ends where its size says. An entity that
		// ends inside the window before the chunk does was not chunked
		// (a truncated capture would be longer than the window).
		b, _ := d.br.Peek(int(min(end+2, dechunkBufSize)))
		switch {
		case int64(len(b)) > end && !chunkEnds(b[end:], crlf):
			d.fallback(nil, "first chunk is not followed by a line ending")
			return
		case int64(len(b)) < min(end, dechunkBufSize):
			d.fallback(nil, "first chunk is larger than the whole entity")
			return
		}
	}
	d.f.Chunked = true
	d.state = dcSize
}

// chunkEnds reports whether b (the bytes after a chunk's data, possibly
// cut short by EOF) start with the expected line ending.
func chunkEnds(b []byte, crlf bool) bool {
	switch {
	case len(b) >= 2 && b[0] == '\r' && b[1] == '\n':
		return true
	case len(b) >= 1 && b[0] == '\n':
		return !crlf
	case len(b) == 1 && b[0] == '\r':
		return true // cut short
	}
	return false
}

func (d *Dechunker) readSize() {
	line, err := d.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull || len(line) > maxChunkSizeLine {
		d.fallback(line, "chunk-size line too long")
		return
	}
	if err != nil && err != io.EOF {
		d.readErr(err, "")
		d.finish()
		return
	}
	if len(line) == 0 { // EOF between chunks
		d.readErr(io.EOF, "entity ends before the last chunk")
		d.finish()
		return
	}
	size, crlf, ok := parseChunkSizeLine(line)
	if !ok {
		d.fallback(line, "bad chunk-size line")
		return
	}
	if d.f.Chunks == 0 {
		d.crlf = crlf
	}
	d.enc.insert(d.f.Decoded, line)
	if err == io.EOF {
		d.readErr(err, "entity ends inside a chunk-size line")
		d.finish()
		return
	}
	if size == 0 {
		d.state = dcTrailer
		return
	}
	d.f.Chunks++
	d.remaining = size
	d.state = dcData
}

func (d *Dechunker) readDataEnd() {
	b, err := d.br.Peek(2)
	if err != nil && err != io.EOF {
		d.readErr(err, "")
		d.finish()
		return
	}
	if !chunkEnds(b, d.crlf) {
		if len(b) == 0 {
			d.readErr(io.EOF, "entity ends after chunk data")
			d.finish()
			return
		}
		d.fallback(nil, "chunk data not followed by a line ending")
		return
	}
	n := 2
	if b[0] == '\n' || len(b) == 1 {
		n = 1
	}
	d.enc.insert(d.f.Decoded, b[:n])
	d.br.Discard(n)
	if len(b) == 1 && b[0] == '\r' {
		d.readErr(io.EOF, "entity ends inside a line ending")
		d.finish()
		return
	}
	d.state = dcSize
}

func (d *Dechunker) readTrailer() {
	line, err := d.br.ReadSlice('\n')
	if len(line) > 0 {
		d.enc.insert(d.f.Decoded, line)
	}
	midLine := d.midLine
	d.midLine = err == bufio.ErrBufferFull
	switch {
	case err == bufio.ErrBufferFull:
		return // a long trailer field: keep reading it
	case err != nil:
		d.readErr(err, "entity ends inside the trailer")
		d.finish()
	case !midLine && len(httpTrimEOL(line)) == 0:
		d.f.Complete = true
		d.state = dcAfter
	}
}
