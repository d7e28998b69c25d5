package warcio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"sort"

	"github.com/blockwarc/blockwarc/internal/libdeflate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// The container layer turns the stored bytes into one decompressed stream
// and remembers where each compressed member began and ended, both in the
// stored file and in the decompressed stream, so that a record found at a
// decompressed position can be given its stored Offset and Length.
//
// Stored positions are counted above the decompressors' buffering: every
// decoder reads from one bufio.Reader that implements io.ByteReader, so
// flate, bzip2 and the frame splitters never read past what they consume,
// and stored position = bytes read from the file - bytes still buffered.
//
// A gzip member whose deflate stream and trailer lie whole in the buffer
// is inflated in one call to libdeflate (when built with cgo) and served
// from memory: klauspost's gzip.Reader still reads its header, so a bad
// header fails as before, and the buffer is advanced by exactly the bytes
// libdeflate took plus the trailer it checked. Any failure (a member
// longer than the buffer, damage, output above wholeMaxOut) leaves the
// buffer where the header ended, and klauspost's reader streams the
// member as it always did: errors, offsets and resync are its.

const (
	storedBufSize = 64 << 10
	// With libdeflate, the buffer holds whole members: 1 MiB, refilled
	// when less than wholeRefill is left in it, so a refill moves at most
	// that much.
	wholeBufSize = 1 << 20
	wholeRefill  = 256 << 10
	// wholeMaxOut bounds a member inflated whole; a larger one streams.
	wholeMaxOut   = 16 << 20
	wholeFirstOut = 256 << 10
	wholeKeepOut  = 1 << 20
	maxDictBytes  = 16 << 20  // bound on a zstd dictionary frame
	maxZstdWindow = 256 << 20 // bound on decoder memory for hostile frames
)

// member is one compressed unit (gzip member, zstd or LZ4 frame, the whole
// bzip2 file, or the whole uncompressed file).
type member struct {
	stored    int64 // stored offset of its first byte
	storedEnd int64 // stored offset after it; -1 while open
	u         int64 // decompressed offset of its first output byte
	uEnd      int64 // decompressed offset after its output; -1 while open
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

type container struct {
	name string
	raw  countingReader
	br   *bufio.Reader
	comp Compression

	detected bool
	dec      io.Reader // decoder of the open member; nil between members
	resync   bool      // previous member was damaged: scan for the next magic
	dropped  int64     // stored bytes of damaged members skipped after the damage (not decompressed)
	done     bool      // input exhausted (after an uncompressed or bzip2 stream)
	u        int64     // decompressed bytes produced so far
	sum      hash.Hash // SHA-256 of those bytes, when asked for
	members  []member  // recent members, ordered; pruned by the reader

	// Options.OnMember: the open gzip member's decompressed bytes (up to
	// memberMax) and count.
	onMember  func(Member)
	memberMax int64
	mbuf      []byte
	mlen      int64

	head  *bytes.Reader // bytes read before growBuffer, buffered again
	gz    *gzip.Reader
	whole wholeInflater
	zd    *zstd.Decoder
	dict  []byte
	lz    *lz4.Reader
	frame frameReader
}

func newContainer(r io.Reader, name string) *container {
	c := &container{name: name}
	c.raw.r = r
	// The buffer grows to wholeBufSize once the input is seen to be gzip
	// (detect): a reader of one uncompressed record (verify, cat) must not
	// allocate a megabyte.
	c.br = bufio.NewReaderSize(&c.raw, storedBufSize)
	return c
}

// growBuffer gives the stored buffer wholeBufSize before anything is
// consumed: the bytes it holds are read again from head.
func (c *container) growBuffer() {
	if c.br.Size() >= wholeBufSize {
		return
	}
	b, _ := c.br.Peek(c.br.Buffered())
	c.head = bytes.NewReader(bytes.Clone(b))
	c.br = bufio.NewReaderSize(io.MultiReader(c.head, &c.raw), wholeBufSize)
}

// wholeInflater inflates gzip members held whole in the stored buffer.
type wholeInflater struct {
	z   *libdeflate.Decompressor
	out []byte      // output of the last member; its capacity is kept
	r   memberBytes // serves out
	off bool        // fast path disabled (tests: the streaming path alone)
	n   int64       // members inflated whole (tests)
}

// memberBytes serves a member's output from memory, returning io.EOF
// with its last bytes as gzip.Reader does, so the member ends (and
// OnMember sees it) at the same read either way.
type memberBytes struct {
	b   []byte
	off int
}

func (m *memberBytes) Read(p []byte) (int, error) {
	n := copy(p, m.b[m.off:])
	m.off += n
	if m.off == len(m.b) {
		return n, io.EOF
	}
	return n, nil
}

// wholeGzip inflates the gzip member whose deflate stream starts at the
// buffer's position (its header read) if it and its trailer are in the
// buffer, checks the trailer, consumes them, and serves the output from
// memory. It returns false, having consumed nothing, when it cannot.
func (c *container) wholeGzip() bool {
	w := &c.whole
	if !libdeflate.Available || w.off {
		return false
	}
	var eof bool
	if c.br.Buffered() < wholeRefill {
		_, err := c.br.Peek(c.br.Size())
		eof = err != nil
	}
	if w.z == nil {
		if w.z = libdeflate.New(); w.z == nil {
			w.off = true
			return false
		}
	}
	if cap(w.out) == 0 || cap(w.out) > wholeKeepOut {
		// A large member's buffer is not kept for the small ones after it.
		w.out = make([]byte, wholeFirstOut)
	}
	for {
		in, _ := c.br.Peek(c.br.Buffered())
		n, m, err := w.z.Inflate(w.out[:cap(w.out)], in)
		if errors.Is(err, libdeflate.ErrShortOutput) && cap(w.out) < wholeMaxOut {
			w.out = make([]byte, min(4*cap(w.out), wholeMaxOut))
			continue
		}
		if err != nil || len(in)-m < 8 {
			// Perhaps a member longer than what is buffered: once, fill
			// the buffer and try again. (A member whose output is above
			// wholeMaxOut, or longer than the buffer, costs one
			// libdeflate pass over at most wholeMaxOut bytes of output or
			// the buffer's input before it streams.)
			if eof || len(in) == c.br.Size() || errors.Is(err, libdeflate.ErrShortOutput) {
				return false
			}
			_, err := c.br.Peek(c.br.Size())
			eof = true // no third try
			if err != nil && c.br.Buffered() == len(in) {
				return false
			}
			continue
		}
		out := w.out[:n]
		trailer := in[m : m+8]
		if binary.LittleEndian.Uint32(trailer) != crc32.ChecksumIEEE(out) || binary.LittleEndian.Uint32(trailer[4:]) != uint32(n) {
			return false
		}
		c.br.Discard(m + 8)
		w.r = memberBytes{b: out}
		w.n++
		return true
	}
}

// storedPos is the stored offset of the next byte a decoder will consume.
func (c *container) storedPos() int64 {
	n := c.raw.n - int64(c.br.Buffered())
	if c.head != nil {
		n -= int64(c.head.Len()) // read from the file, not yet buffered
	}
	return n
}

func (c *container) formatErr(off int64, msg string, kind, cause error) *FormatError {
	return &FormatError{File: c.name, Offset: off, Msg: msg, Err: wrapKind(kind, cause)}
}

// detect looks at the first bytes of the file to choose the compression.
func (c *container) detect() error {
	c.detected = true
	head, err := c.br.Peek(4)
	if len(head) == 0 {
		if err == io.EOF {
			return nil
		}
		return err
	}
	c.comp = sniffCompression(head)
	if c.comp == CompressionGzip && libdeflate.Available && !c.whole.off {
		c.growBuffer()
	}
	return nil
}

// Read returns decompressed bytes. A damaged member yields its good bytes,
// then one *FormatError; the following Read resumes at the next member.
func (c *container) Read(p []byte) (int, error) {
	n, err := c.read(p)
	if n > 0 && c.sum != nil {
		c.sum.Write(p[:n])
	}
	return n, err
}

func (c *container) read(p []byte) (int, error) {
	if !c.detected {
		if err := c.detect(); err != nil {
			return 0, err
		}
	}
	for {
		if c.dec == nil {
			if err := c.startMember(); err != nil {
				return 0, err
			}
		}
		n, err := c.dec.Read(p)
		c.u += int64(n)
		if c.onMember != nil && c.comp == CompressionGzip {
			c.mlen += int64(n)
			if c.mlen <= c.memberMax {
				c.mbuf = append(c.mbuf, p[:n]...)
			}
		}
		if err == io.EOF {
			c.endMember(false)
			if n > 0 {
				return n, nil
			}
			continue
		}
		if err != nil {
			m := c.members[len(c.members)-1]
			c.endMember(true)
			var fe *FormatError
			if errors.As(err, &fe) {
				return n, err
			}
			if c.comp == CompressionNone {
				return n, err // a read error of the underlying file: not a format problem
			}
			kind := ErrCorrupt
			if errors.Is(err, io.ErrUnexpectedEOF) {
				kind = ErrTruncated
			}
			c.resync = true
			if c.storedPos() <= m.stored {
				c.br.Discard(1) // always move on, or a damaged member is retried forever
				c.dropped++
			}
			return n, c.formatErr(m.stored, fmt.Sprintf("decompress %s member (byte %d of its output)", c.comp, c.u-m.u), kind, err)
		}
		if n > 0 {
			return n, nil
		}
	}
}

func (c *container) endMember(damaged bool) {
	c.dec = nil
	m := &c.members[len(c.members)-1]
	m.uEnd = c.u
	m.storedEnd = c.storedPos()
	if c.onMember != nil && c.comp == CompressionGzip {
		mb := Member{File: c.name, Stored: m.stored, StoredEnd: m.storedEnd, PlainLen: c.mlen, Damaged: damaged}
		if c.mlen <= c.memberMax {
			mb.Plain = c.mbuf
		}
		c.onMember(mb)
		c.mbuf, c.mlen = c.mbuf[:0], 0
	}
	if m.uEnd == m.u && len(c.members) > 1 {
		// An empty member holds no record; dropping it keeps the list
		// bounded on a stream of empty members.
		c.members = c.members[:len(c.members)-1]
	}
	if !codecs[c.comp].members {
		c.done = true
	}
}

func (c *container) open(dec io.Reader) {
	c.dec = dec
	c.members = append(c.members, member{stored: c.storedPos(), storedEnd: -1, u: c.u, uEnd: -1})
}

// startMember opens the next member, or returns io.EOF at the end of input
// or a *FormatError for bytes that do not start a member.
func (c *container) startMember() error {
	if c.done {
		return io.EOF
	}
	k := &codecs[c.comp]
	switch {
	case c.comp == CompressionNone:
		if !c.detected || len(c.members) > 0 {
			return io.EOF
		}
		return k.open(c)
	case !k.members:
		if _, err := c.br.Peek(1); err != nil {
			return io.EOF
		}
		return k.open(c)
	}
	magic := k.magic
	for {
		start := c.storedPos()
		head, err := c.br.Peek(4)
		if len(head) == 0 {
			if err != nil && err != io.EOF {
				return err
			}
			return io.EOF
		}
		skippable := k.skippable && len(head) == 4 && binary.LittleEndian.Uint32(head)&0xFFFFFFF0 == 0x184D2A50
		if !bytes.HasPrefix(head, magic) && !skippable {
			skipped, err := c.scanTo(magic)
			if err != nil && err != io.EOF {
				return err
			}
			if c.resync {
				// The rest of a damaged member: already reported, and
				// counted as not decompressed.
				c.resync = false
				c.dropped += skipped
				continue
			}
			c.damagedMember(start)
			return c.formatErr(start, fmt.Sprintf("skip %d bytes that do not start a %s member", skipped, c.comp), ErrGarbage, nil)
		}
		c.resync = false
		if skippable {
			if err := c.skipFrame(start, head); err != nil {
				return err
			}
			continue
		}
		if err := k.open(c); err != nil {
			c.resync = true
			if c.storedPos() <= start {
				c.br.Discard(1)
			}
			c.damagedMember(start)
			return c.formatErr(start, k.openErr, ErrCorrupt, err)
		}
		return nil
	}
}

// damagedMember tells Options.OnMember of bytes at stored offset start
// that start no good member.
func (c *container) damagedMember(start int64) {
	if c.onMember != nil && c.comp == CompressionGzip {
		c.onMember(Member{File: c.name, Stored: start, StoredEnd: -1, Damaged: true})
	}
}

func (c *container) openGzip() error {
	start := c.storedPos()
	var err error
	if c.gz == nil {
		c.gz, err = gzip.NewReader(c.br)
	} else {
		err = c.gz.Reset(c.br)
	}
	if err != nil {
		return err
	}
	c.gz.Multistream(false)
	if c.wholeGzip() {
		c.open(&c.whole.r)
	} else {
		c.open(c.gz)
	}
	c.members[len(c.members)-1].stored = start
	return nil
}

func (c *container) openZstd() error {
	start := c.storedPos()
	if c.zd == nil {
		opts := []zstd.DOption{zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxZstdWindow), zstd.WithDecoderLowmem(true)}
		if c.dict != nil {
			if bytes.HasPrefix(c.dict, []byte{0x37, 0xa4, 0x30, 0xec}) {
				opts = append(opts, zstd.WithDecoderDicts(c.dict))
			} else {
				opts = append(opts, zstd.WithDecoderDictRaw(0, c.dict))
			}
		}
		zd, err := zstd.NewReader(nil, opts...)
		if err != nil {
			return err
		}
		c.zd = zd
	}
	c.frame.reset(c.br, true)
	if err := c.zd.Reset(&c.frame); err != nil {
		return err
	}
	c.open(c.zd)
	c.members[len(c.members)-1].stored = start
	return nil
}

// skipFrame consumes a skippable frame. In a .warc.zst file the first one
// (magic 0x184D2A5D) carries the dictionary the frames were compressed with.
func (c *container) skipFrame(start int64, head []byte) error {
	hdr, err := c.br.Peek(8)
	if len(hdr) < 8 {
		c.br.Discard(len(hdr))
		return c.formatErr(start, "read skippable frame header", ErrTruncated, err)
	}
	size := int64(binary.LittleEndian.Uint32(hdr[4:]))
	c.br.Discard(8)
	isDict := c.comp == CompressionZstd && binary.LittleEndian.Uint32(head) == zstdDictFrameMagic &&
		start == 0 && size <= maxDictBytes
	if !isDict {
		n, err := c.br.Discard(int(size))
		if int64(n) < size {
			return c.formatErr(start, "skip skippable frame", ErrTruncated, err)
		}
		return nil
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(c.br, data); err != nil {
		return c.formatErr(start, "read zstd dictionary frame", ErrTruncated, err)
	}
	if bytes.HasPrefix(data, zstdMagic) {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxDictBytes))
		if err != nil {
			return err
		}
		data, err = d.DecodeAll(data, nil)
		d.Close()
		if err != nil {
			return c.formatErr(start, "decompress zstd dictionary", ErrCorrupt, err)
		}
	}
	c.dict = data
	if c.zd != nil {
		c.zd.Close()
		c.zd = nil
	}
	return nil
}

// scanTo discards stored bytes up to the next occurrence of magic (at
// least one byte), returning how many were skipped.
func (c *container) scanTo(magic []byte) (int64, error) {
	var skipped int64
	if _, err := c.br.Discard(1); err != nil {
		return 0, err
	}
	skipped++
	for {
		buf, err := c.br.Peek(storedBufSize)
		if len(buf) == 0 {
			return skipped, err
		}
		if i := bytes.Index(buf, magic); i >= 0 {
			c.br.Discard(i)
			return skipped + int64(i), nil
		}
		keep := len(magic) - 1
		if err != nil {
			keep = 0
		}
		n := len(buf) - keep
		if n <= 0 {
			c.br.Discard(len(buf))
			return skipped + int64(len(buf)), err
		}
		c.br.Discard(n)
		skipped += int64(n)
	}
}

// prune forgets members that end at or before decompressed position u.
func (c *container) prune(u int64) {
	i := 0
	for i < len(c.members)-1 && c.members[i].uEnd >= 0 && c.members[i].uEnd <= u {
		i++
	}
	if i > 0 {
		n := copy(c.members, c.members[i:])
		c.members = c.members[:n]
	}
}

// find returns the index of the member whose output holds byte u, or the
// last member starting at or before u; -1 when there is none.
func (c *container) find(u int64) int {
	i := sort.Search(len(c.members), func(i int) bool { return c.members[i].u > u }) - 1
	return i
}

// locate gives the stored position of decompressed byte u: the start of
// its member and how many decompressed bytes of the member precede it.
func (c *container) locate(u int64) (stored, skip int64) {
	if c.comp == CompressionNone {
		return u, 0
	}
	i := c.find(u)
	if i < 0 {
		return c.storedPos(), 0
	}
	m := c.members[i]
	return m.stored, u - m.u
}

// endOf gives the stored offset after the member holding decompressed byte
// u, and whether that member has ended; if it is still open, the stored
// bytes consumed so far (enough to decompress byte u) are returned.
func (c *container) endOf(u int64) (int64, bool) {
	if c.comp == CompressionNone {
		return u + 1, true
	}
	i := c.find(u)
	if i >= 0 && c.members[i].storedEnd >= 0 {
		return c.members[i].storedEnd, true
	}
	return c.storedPos(), false
}

// isMemberStart reports whether decompressed position u is the first byte
// of a member other than the first one (a record boundary candidate).
func (c *container) isMemberStart(u int64) bool {
	if !codecs[c.comp].members {
		return false
	}
	i := c.find(u)
	return i >= 0 && c.members[i].u == u
}

// frameReader passes through exactly one zstd or LZ4 frame of the stored
// stream, parsing just enough of the frame format to find its end, so that
// decoders that read ahead cannot consume the next frame.
type frameReader struct {
	br    *bufio.Reader
	zstd  bool
	state uint8 // 0 header, 1 block header, 2 checksum, 3 done
	left  int64 // bytes left in the current piece
	check bool  // frame has a content checksum
	bsum  bool  // LZ4 blocks have checksums
}

func (f *frameReader) reset(br *bufio.Reader, zstd bool) {
	*f = frameReader{br: br, zstd: zstd}
}

var errFrame = errors.New("invalid frame structure")

func (f *frameReader) Read(p []byte) (int, error) {
	for f.left == 0 {
		if f.state == 3 {
			return 0, io.EOF
		}
		if err := f.next(); err != nil {
			return 0, err
		}
	}
	if int64(len(p)) > f.left {
		p = p[:f.left]
	}
	n, err := f.br.Read(p)
	f.left -= int64(n)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func (f *frameReader) peek(n int) ([]byte, error) {
	b, err := f.br.Peek(n)
	if len(b) < n {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return b, nil
}

// next sizes the next piece of the frame.
func (f *frameReader) next() error {
	switch f.state {
	case 0:
		b, err := f.peek(6)
		if err != nil {
			return err
		}
		if f.zstd {
			fhd := b[4]
			single := fhd&0x20 != 0
			f.check = fhd&0x04 != 0
			n := int64(5)
			if !single {
				n++
			}
			n += [4]int64{0, 1, 2, 4}[fhd&3]
			fcs := [4]int64{0, 2, 4, 8}[fhd>>6]
			if fhd>>6 == 0 && single {
				fcs = 1
			}
			f.left = n + fcs
		} else {
			flg := b[4]
			if flg>>6 != 1 {
				return errFrame
			}
			f.bsum = flg&0x10 != 0
			f.check = flg&0x04 != 0
			n := int64(7)
			if flg&0x08 != 0 {
				n += 8
			}
			if flg&0x01 != 0 {
				n += 4
			}
			f.left = n
		}
		f.state = 1
	case 1:
		if f.zstd {
			b, err := f.peek(3)
			if err != nil {
				return err
			}
			h := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
			size := int64(h >> 3)
			switch (h >> 1) & 3 {
			case 1:
				size = 1
			case 3:
				return errFrame
			}
			f.left = 3 + size
			if h&1 != 0 {
				f.state = 2
			}
		} else {
			b, err := f.peek(4)
			if err != nil {
				return err
			}
			h := binary.LittleEndian.Uint32(b)
			if h == 0 {
				f.left = 4
				f.state = 2
			} else {
				f.left = 4 + int64(h&0x7FFFFFFF)
				if f.bsum {
					f.left += 4
				}
			}
		}
	case 2:
		f.state = 3
		if f.check {
			f.left = 4
		}
	}
	return nil
}
