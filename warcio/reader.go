package warcio

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Policy says what a Reader does with malformed input.
type Policy uint8

const (
	// PolicySkip skips malformed records and regions and counts them.
	PolicySkip Policy = iota
	// PolicyWarn skips and counts like PolicySkip and also passes each
	// *FormatError to Options.OnError.
	PolicyWarn
	// PolicyFail makes Next return the first *FormatError; it is sticky.
	PolicyFail
)

// Options tune a Reader. The zero value is usable: skip malformed input,
// 1 MiB header bound, no digests.
type Options struct {
	Policy  Policy
	OnError func(error) // called with each *FormatError under PolicyWarn
	// MaxHeaderBytes bounds a WARC header block or ARC record line
	// (default 1 MiB); a larger one is reported as ErrBadHeader and skipped,
	// so a giant header line costs bounded memory.
	MaxHeaderBytes int
	// Digests computes the SHA-1 of each block (and of the HTTP payload of
	// application/http blocks) while Body is read, and SHA-256 when the
	// record declares one; see Record.Digests.
	Digests bool
	// StreamDigest computes the SHA-256 of the whole decompressed stream
	// (see Reader.Stream), so that a file rebuilt from its records and
	// gaps can be checked against it.
	StreamDigest bool
	// OnMember, when set, is called as each gzip member of the input
	// ends, with its stored extent and its decompressed bytes (up to
	// MaxMemberPlain of them): what learning the member's zlib settings
	// needs, without decompressing the file a second time. A damaged
	// member, or bytes between members that start none, come as a Member
	// with Damaged set.
	OnMember       func(Member)
	MaxMemberPlain int64
}

// Member is a gzip member as Options.OnMember sees it. Plain is valid
// only during the call; it is nil when the member's PlainLen exceeds
// Options.MaxMemberPlain.
type Member struct {
	File              string // the Reader's name for its input
	Stored, StoredEnd int64  // its stored extent
	Plain             []byte
	PlainLen          int64
	Damaged           bool
}

// Stream describes a file's decompressed stream as read so far: its
// length and, with Options.StreamDigest, its SHA-256 (zero otherwise).
type Stream struct {
	Len    int64
	SHA256 [32]byte
}

// Stream returns the length and SHA-256 of the decompressed bytes the
// Reader has consumed; after Next returned io.EOF, of the whole file.
func (r *Reader) Stream() Stream {
	s := Stream{Len: r.c.u}
	if r.c.sum != nil {
		r.c.sum.Sum(s.SHA256[:0])
	}
	return s
}

const (
	defaultMaxHeader = 1 << 20
	initialBuf       = 64 << 10
	minRead          = 16 << 10
	// tailWindow is how far before the end of a block the reader looks
	// ahead to check that the next record starts where Content-Length says,
	// so a too-long length is caught before the block is handed out.
	tailWindow = 64 << 10
)

var errStaleBody = errors.New("warcio: read of a record body after Next")

// Reader reads records from a WARC or ARC file, compressed or not, one at a
// time. It is not safe for concurrent use.
type Reader struct {
	name string
	opt  Options
	c    *container

	buf     []byte
	r, w    int
	base    int64 // decompressed position of buf[0]
	pending error // error from the container, delivered once buffered bytes run out

	err     error // sticky error returned by Next
	skipped int64
	gen     uint64 // counts records, so a stale Body can tell

	format    Format
	arcFields []string
	arcVer    string

	lookback    int   // bytes before r.r that fill keeps (inside long blocks)
	noTrailerAt int64 // where a block ended without line ends, or -1
	lookFloor   int64 // decompressed position before which nothing is kept

	cur  *Record
	body *body
	dig  digester
}

// NewReader returns a Reader of r with default options (PolicySkip,
// digests on). name is used in errors and Record.File; the format and
// compression are detected from the bytes, never from the name.
func NewReader(r io.Reader, name string) *Reader {
	return NewReaderOptions(r, name, Options{Digests: true})
}

// NewReaderOptions returns a Reader of r with the given options.
func NewReaderOptions(r io.Reader, name string, o Options) *Reader {
	if o.MaxHeaderBytes <= 0 {
		o.MaxHeaderBytes = defaultMaxHeader
	}
	rd := &Reader{name: name, opt: o, c: newContainer(r, name), buf: make([]byte, initialBuf), noTrailerAt: -1}
	if o.StreamDigest {
		rd.c.sum = sha256.New()
	}
	rd.c.onMember, rd.c.memberMax = o.OnMember, o.MaxMemberPlain
	return rd
}

// Reset makes r read a new file, as if made by NewReaderOptions with its
// options, keeping its buffers and decoders (one Reader per worker).
// Records returned before stay valid; their bodies do not.
func (r *Reader) Reset(rd io.Reader, name string) {
	c := r.c
	c.raw = countingReader{r: rd}
	c.br.Reset(&c.raw)
	gz, zd, lz, whole := c.gz, c.zd, c.lz, c.whole
	if c.dict != nil && zd != nil {
		zd.Close() // built with the old file's dictionary
		zd = nil
	}
	sum := c.sum
	if sum != nil {
		sum.Reset()
	}
	*c = container{name: name, raw: c.raw, br: c.br, gz: gz, whole: whole, zd: zd, lz: lz, members: c.members[:0], sum: sum,
		onMember: c.onMember, memberMax: c.memberMax, mbuf: c.mbuf[:0]}
	c.br.Reset(&c.raw)
	*r = Reader{name: name, opt: r.opt, c: c, buf: r.buf, gen: r.gen + 1, dig: r.dig, noTrailerAt: -1}
}

// Skipped returns how many malformed records or regions have been
// reported (and, unless the policy is PolicyFail, skipped) so far.
func (r *Reader) Skipped() int64 { return r.skipped }

// Dropped returns how many stored bytes of damaged compressed members
// were skipped after the damage: they do not decompress, so no record,
// gap or stream holds them (the rest of the input is read on).
func (r *Reader) Dropped() int64 { return r.c.dropped }

// Offset returns how many stored (compressed) bytes have been consumed so
// far, for progress reporting. It runs ahead of the current record by at
// most the reader's buffering.
func (r *Reader) Offset() int64 { return r.c.storedPos() }

// Compression returns the compression detected so far.
func (r *Reader) Compression() Compression { return r.c.comp }

func (r *Reader) pos() int64 { return r.base + int64(r.r) }

// fill reads more decompressed bytes into the buffer; it returns nil when
// some arrived. A *FormatError from the container is returned once and
// marks a discontinuity at the end of the buffered bytes; io.EOF and
// other errors stay.
func (r *Reader) fill() error {
	if r.pending != nil {
		err := r.pending
		if isFormat(err) {
			r.pending = nil
		}
		return err
	}
	// Keep the member holding the byte before the current position: the
	// record that ends there needs it for its Length.
	r.c.prune(r.pos() - 1)
	keep := r.r
	if r.lookback > 0 {
		// Inside a long block, keep its last bytes: if the input ends
		// before Content-Length, the next record may be found in them.
		keep = max(r.r-r.lookback, int(r.lookFloor-r.base), 0)
	}
	if keep > 0 && len(r.buf)-r.w < minRead {
		n := copy(r.buf, r.buf[keep:r.w])
		r.base += int64(keep)
		r.w = n
		r.r -= keep
	}
	if len(r.buf)-r.w < minRead {
		nb := make([]byte, 2*len(r.buf))
		copy(nb, r.buf[:r.w])
		r.buf = nb
	}
	for {
		n, err := r.c.Read(r.buf[r.w:])
		r.w += n
		if err != nil {
			if n > 0 {
				r.pending = err
				return nil
			}
			if !isFormat(err) {
				r.pending = err
			}
			return err
		}
		if n > 0 {
			return nil
		}
	}
}

// unfill puts back an error taken by fill without being handled.
func (r *Reader) unfill(err error) {
	if isFormat(err) && r.pending == nil {
		r.pending = err
	}
}

func isFormat(err error) bool {
	var fe *FormatError
	return errors.As(err, &fe)
}

// peek returns up to n buffered bytes, reading as needed.
func (r *Reader) peek(n int) ([]byte, error) {
	for r.w-r.r < n {
		if err := r.fill(); err != nil {
			return r.buf[r.r:r.w], err
		}
	}
	return r.buf[r.r : r.r+n], nil
}

func (r *Reader) formatErr(u int64, msg string, kind, cause error) *FormatError {
	off, skip := r.c.locate(u)
	return r.formatErrAt(off, skip, msg, kind, cause)
}

// formatErrAt is formatErr for a position located before the reader moved
// on (resynchronising may forget the members behind it).
func (r *Reader) formatErrAt(off, skip int64, msg string, kind, cause error) *FormatError {
	if skip > 0 {
		msg = fmt.Sprintf("%s (byte %d of the decompressed member)", msg, skip)
	}
	return &FormatError{File: r.name, Offset: off, Msg: msg, Err: wrapKind(kind, cause)}
}

// report applies the policy to a format error. It returns non-nil only
// under PolicyFail, and then the error is sticky.
func (r *Reader) report(err error, skipped bool) error {
	if skipped {
		r.skipped++
	}
	switch r.opt.Policy {
	case PolicyWarn:
		if r.opt.OnError != nil {
			r.opt.OnError(err)
		}
	case PolicyFail:
		r.err = err
		return err
	}
	return nil
}

// Next advances to the next record, skipping whatever is left of the
// current one's body. It returns io.EOF at a clean end of input. The
// previous Record's fields stay valid; its Body does not.
func (r *Reader) Next() (*Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.cur != nil {
		err := r.finish()
		r.cur = nil
		if err != nil {
			r.err = err
			return nil, err
		}
	}
	rec, err := r.readRecord()
	if err != nil {
		if r.err == nil {
			r.err = err
		}
		return nil, err
	}
	r.cur = rec
	return rec, nil
}

// readRecord finds and parses the next record header.
func (r *Reader) readRecord() (*Record, error) {
	for {
		start := r.pos()
		n, err := r.skipNewlines()
		if err != nil && err != io.EOF {
			if !isFormat(err) {
				return nil, err
			}
			if ferr := r.report(err, true); ferr != nil {
				return nil, ferr
			}
			continue
		}
		head, err := r.peek(5)
		if len(head) == 0 {
			if err == io.EOF {
				return nil, io.EOF
			}
			if !isFormat(err) {
				return nil, err
			}
			if ferr := r.report(err, true); ferr != nil {
				return nil, ferr
			}
			continue
		}
		if n > 0 {
			if ferr := r.report(r.formatErr(start, fmt.Sprintf("skip %d stray line-end bytes before a record", n), ErrBadTrailer, nil), false); ferr != nil {
				return nil, ferr
			}
		}
		var rec *Record
		switch {
		case bytes.HasPrefix(head, []byte("WARC/")):
			rec, err = r.readWARC()
		case r.format != FormatWARC && r.arcLineAhead():
			rec, err = r.readARC()
		case len(head) < 5 && err == io.EOF:
			r.r = r.w
			err = r.report(r.formatErr(r.pos()-int64(len(head)), fmt.Sprintf("skip %d bytes at end of input", len(head)), ErrGarbage, nil), true)
			if err != nil {
				return nil, err
			}
			continue
		default:
			goff, gskip := r.c.locate(r.pos())
			short := r.pos() == r.noTrailerAt
			skipped, serr := r.resync(1)
			if serr != nil && serr != io.EOF {
				return nil, serr
			}
			fe := r.formatErrAt(goff, gskip, fmt.Sprintf("skip %d bytes that do not start a record", skipped), ErrGarbage, nil)
			if short {
				fe = r.formatErrAt(goff, gskip, fmt.Sprintf("block not followed by a record end (Content-Length too small?); skip %d bytes", skipped), ErrBadLength, nil)
			}
			if ferr := r.report(fe, true); ferr != nil {
				return nil, ferr
			}
			continue
		}
		if err == errRetry {
			continue
		}
		if err != nil {
			return nil, err
		}
		r.gen++
		r.cur = rec
		return rec, nil
	}
}

// errRetry tells readRecord that a bad header was reported and skipped.
var errRetry = errors.New("retry")

// skipNewlines consumes CR and LF bytes, returning how many.
func (r *Reader) skipNewlines() (int, error) {
	n := 0
	for {
		for r.r < r.w && (r.buf[r.r] == '\r' || r.buf[r.r] == '\n') {
			r.r++
			n++
		}
		if r.r < r.w {
			return n, nil
		}
		if err := r.fill(); err != nil {
			return n, err
		}
	}
}

// resync discards bytes up to the next place a record can start, beginning
// the search from bytes after the current position. It returns how many
// bytes were discarded; io.EOF when the input ended first. Container damage
// met on the way is reported.
func (r *Reader) resync(from int) (int64, error) {
	start := r.pos()
	pat := []byte("WARC/")
	for {
		if r.format == FormatARC {
			if i := r.findARCStart(from); i >= 0 {
				r.r += i
				return r.pos() - start, nil
			}
		} else {
			for i := r.r + from; i < r.w; {
				j := bytes.Index(r.buf[i:r.w], pat)
				if j < 0 {
					break
				}
				i += j
				atLine := i > 0 && r.buf[i-1] == '\n'
				if atLine || r.c.isMemberStart(r.base+int64(i)) || versionLine(r.buf[i:r.w]) {
					r.r = i
					return r.pos() - start, nil
				}
				i++
			}
		}
		// keep a few bytes: a start may straddle the buffer end; an ARC
		// line is kept whole (with the LF before it), within bounds
		keep := r.w - 16
		if r.format == FormatARC {
			keep = r.r
			if j := bytes.LastIndexByte(r.buf[r.r+from:r.w], '\n'); j >= 0 {
				keep = r.r + from + j
			}
			if r.w-keep > r.opt.MaxHeaderBytes {
				keep = r.w - 16
			}
		}
		if keep > r.r+from {
			r.r = keep
			from = 1
		}
		err := r.fill()
		if err == nil {
			continue
		}
		if err == io.EOF {
			r.r = r.w
			return r.pos() - start, io.EOF
		}
		if !isFormat(err) {
			return r.pos() - start, err
		}
		r.r = r.w
		from = 0
		if ferr := r.report(err, true); ferr != nil {
			return r.pos() - start, ferr
		}
	}
}

// versionLine reports whether b starts with a WARC version line such as
// "WARC/1.0\r\n", the test for a record start glued to preceding bytes.
func versionLine(b []byte) bool {
	if !bytes.HasPrefix(b, []byte("WARC/")) {
		return false
	}
	i, dots := 5, 0
	for ; i < len(b) && i < 12; i++ {
		switch c := b[i]; {
		case c >= '0' && c <= '9':
		case c == '.':
			dots++
		case c == '\r' || c == '\n':
			return dots == 1 && i > 6
		default:
			return false
		}
	}
	return false
}

// headerEnd returns the length of the header block starting at the
// current position: through the first empty line (only CR bytes before
// its LF). eofOK reports a header ended by the end of input after a
// complete line instead.
func (r *Reader) headerEnd() (n int, eofEnded bool, err error) {
	off := 0
	first := true
	for {
		j := bytes.IndexByte(r.buf[r.r+off:r.w], '\n')
		if j < 0 {
			if r.w-r.r > r.opt.MaxHeaderBytes {
				return 0, false, errHeaderTooLong
			}
			if err := r.fill(); err != nil {
				if err == io.EOF && off > 0 && r.r+off == r.w {
					return off, true, nil
				}
				return 0, false, err
			}
			continue
		}
		line := r.buf[r.r+off : r.r+off+j]
		off += j + 1
		if off > r.opt.MaxHeaderBytes {
			return 0, false, errHeaderTooLong
		}
		if !first && len(bytes.Trim(line, "\r")) == 0 {
			return off, false, nil
		}
		first = false
	}
}

var errHeaderTooLong = errors.New("header too long")

func (r *Reader) readWARC() (*Record, error) {
	start := r.pos()
	n, eofEnded, err := r.headerEnd()
	if err != nil {
		switch {
		case err == errHeaderTooLong:
			err = r.formatErr(start, fmt.Sprintf("read WARC header: longer than %d bytes", r.opt.MaxHeaderBytes), ErrBadHeader, nil)
			if _, serr := r.resync(1); serr != nil && serr != io.EOF {
				return nil, serr
			}
		case err == io.EOF:
			r.r = r.w
			err = r.formatErr(start, "read WARC header: input ends inside it", ErrTruncated, nil)
		case isFormat(err):
			r.r = r.w
		default:
			return nil, err
		}
		if ferr := r.report(err, true); ferr != nil {
			return nil, ferr
		}
		return nil, errRetry
	}
	raw := make([]byte, n, n+4)
	copy(raw, r.buf[r.r:r.r+n])
	rec := &Record{File: r.name, Format: FormatWARC, Compression: r.c.comp, RawHeader: raw}
	rec.Offset, rec.SkipInMember = r.c.locate(start)
	rec.Pos, rec.End = start, start
	if !parseWARCHeader(rec) {
		r.r++
		skipped, serr := r.resync(0)
		if serr != nil && serr != io.EOF {
			return nil, serr
		}
		fe := r.formatErrAt(rec.Offset, rec.SkipInMember, fmt.Sprintf("parse WARC header: a line is not a field; skip %d bytes", skipped+1), ErrBadHeader, nil)
		if ferr := r.report(fe, true); ferr != nil {
			return nil, ferr
		}
		return nil, errRetry
	}
	cl := rec.Header.Get("Content-Length")
	length, perr := strconv.ParseInt(strings.TrimSpace(cl), 10, 64)
	if perr != nil || length < 0 {
		r.r += n
		skipped, serr := r.resync(0)
		if serr != nil && serr != io.EOF {
			return nil, serr
		}
		msg := fmt.Sprintf("parse WARC header: Content-Length %q; skip the record (%d bytes)", cl, int64(n)+skipped)
		if cl == "" {
			msg = fmt.Sprintf("parse WARC header: no Content-Length; skip the record (%d bytes)", int64(n)+skipped)
		}
		if ferr := r.report(r.formatErrAt(rec.Offset, rec.SkipInMember, msg, ErrBadLength, nil), true); ferr != nil {
			return nil, ferr
		}
		return nil, errRetry
	}
	r.r += n
	r.format = FormatWARC
	rec.ContentLen = length
	b := r.newBody(rec, start, length)
	if eofEnded {
		b.errs = append(b.errs, r.formatErr(start, "read WARC header: input ends before its blank line", ErrTruncated, nil))
	}
	return rec, nil
}

// parseWARCHeader fills the record's fields from RawHeader; false when a
// line is neither a field nor a continuation.
func parseWARCHeader(rec *Record) bool {
	raw := rec.RawHeader
	s := string(raw)
	nl := strings.IndexByte(s, '\n')
	rec.Version = strings.TrimRight(s[:nl], "\r \t")
	rest := nl + 1
	count := strings.Count(s[rest:], "\n")
	rec.Header = make(Header, 0, count)
	for rest < len(s) {
		e := strings.IndexByte(s[rest:], '\n')
		end := len(s)
		if e >= 0 {
			end = rest + e + 1
		}
		line := s[rest:end]
		content := strings.TrimRight(line, "\r\n")
		if len(content) == 0 {
			break // the blank line ending the header
		}
		if (content[0] == ' ' || content[0] == '\t') && len(rec.Header) > 0 {
			f := &rec.Header[len(rec.Header)-1]
			f.Raw = raw[rest-len(f.Raw) : end]
			if v := strings.TrimSpace(content); v != "" {
				if f.Value == "" {
					f.Value = v
				} else {
					f.Value = f.Value + " " + v
				}
			}
		} else {
			c := strings.IndexByte(content, ':')
			if c <= 0 {
				return false
			}
			rec.Header = append(rec.Header, Field{
				Name:  strings.TrimSpace(content[:c]),
				Value: strings.TrimSpace(content[c+1:]),
				Raw:   raw[rest:end:end],
			})
		}
		rest = end
	}
	var lower [32]byte
	for _, f := range rec.Header {
		// m[string(b)] does not allocate: the lower-cased copy stays on
		// the stack for almost every field of every record.
		if set := recordFields[string(lowerName(lower[:0], f.Name))]; set != nil {
			set(rec, f.Value)
		}
	}
	return true
}

// recordFields set the Record fields parseWARCHeader fills, by their
// field names lower-cased.
var recordFields = map[string]func(rec *Record, v string){
	"warc-type": func(rec *Record, v string) { rec.Type = v },
	"warc-target-uri": func(rec *Record, v string) {
		if len(v) >= 2 && v[0] == '<' && v[len(v)-1] == '>' {
			v = v[1 : len(v)-1]
		}
		rec.TargetURI = v
	},
	"warc-date": func(rec *Record, v string) {
		rec.DateRaw = v
		rec.Date = parseDate(v)
	},
	"warc-record-id":            func(rec *Record, v string) { rec.RecordID = v },
	"warc-profile":              func(rec *Record, v string) { rec.Profile = v },
	"warc-refers-to":            func(rec *Record, v string) { rec.RefersTo = v },
	"warc-refers-to-target-uri": func(rec *Record, v string) { rec.RefersToTargetURI = v },
	"warc-refers-to-date":       func(rec *Record, v string) { rec.RefersToDate = v },
}

// lowerName appends strings.ToLower(name) to dst; an ASCII name (every
// WARC field name) is lowered in dst without allocating.
func lowerName(dst []byte, name string) []byte {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= utf8.RuneSelf {
			return append(dst[:0], strings.ToLower(name)...)
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// newBody attaches the block reader to a record whose header was consumed.
func (r *Reader) newBody(rec *Record, start, length int64) *body {
	b := &body{rd: r, rec: rec, gen: r.gen + 1, start: start, remaining: length, blockStart: r.pos()}
	r.lookback, r.lookFloor = 0, b.blockStart
	if length > tailWindow {
		r.lookback = tailWindow
	}
	if r.opt.Digests {
		r.dig.reset(rec)
		b.dig = &r.dig
	}
	rec.Body = b
	r.body = b
	return b
}

// finish consumes the rest of the current record: its body, its trailer;
// then sets Length and reports the record's damage. It returns non-nil
// only for errors Next must return.
func (r *Reader) finish() error {
	b := r.body
	if !b.done {
		if b.dig != nil {
			if _, err := io.Copy(io.Discard, b); err != nil && !isFormat(err) {
				return err
			}
		} else {
			b.skipRest()
		}
		if b.fatal != nil {
			return b.fatal
		}
	}
	b.close()
	for _, e := range b.errs {
		skipped := !errors.Is(e, ErrBadTrailer)
		if ferr := r.report(e, skipped); ferr != nil {
			return ferr
		}
	}
	b.errs = nil
	return nil
}

// close consumes the trailer of a finished block and sets the record's
// Trailer and Length, as soon as the block has been read.
func (b *body) close() {
	if b.closed || b.fatal != nil {
		return
	}
	b.closed = true
	r, rec := b.rd, b.rec
	r.lookback = 0
	// Trailer: the run of line ends after the block, within its member.
	tstart := r.pos()
	var trailer []byte
	for !b.truncated { // after damage, what follows belongs to no record
		for r.r < r.w && (r.buf[r.r] == '\r' || r.buf[r.r] == '\n') && len(trailer) < 64 {
			if r.pos() > tstart && r.c.isMemberStart(r.pos()) {
				break
			}
			trailer = append(trailer, r.buf[r.r])
			r.r++
		}
		if r.r < r.w || len(trailer) >= 64 {
			break
		}
		err := r.fill()
		if err != nil {
			r.unfill(err)
			break
		}
	}
	if len(trailer) > 0 {
		raw := rec.RawHeader
		if cap(raw)-len(raw) >= len(trailer) {
			rec.Trailer = append(raw[len(raw):], trailer...)
		} else {
			rec.Trailer = trailer
		}
	}
	if r.r == r.w {
		if err := r.fill(); err != nil {
			r.unfill(err)
		}
	}
	end := r.pos()
	rec.End = end
	if end > b.start {
		se, _ := r.c.endOf(end - 1)
		rec.Length = se - rec.Offset
	}
	// Writers differ: one CRLF instead of two, an ARC length that counts
	// the LF, IA filedesc blocks followed by a blank line, a trailer left
	// out of a gzip member. Only stray line ends are reported here; bytes
	// that follow a block without a trailer are reported by the next call.
	lf := bytes.Count(trailer, []byte{'\n'})
	r.noTrailerAt = -1
	if !b.truncated && lf == 0 && r.r < r.w && !r.c.isMemberStart(r.pos()) {
		r.noTrailerAt = r.pos() // if a record does not start here, the length was short
	}
	if !b.truncated && lf > 2 {
		want := 2
		if rec.Format == FormatARC {
			want = 1
		}
		b.errs = append(b.errs, r.formatErr(tstart, fmt.Sprintf("record ends with %q instead of %d line ends", trailer, want), ErrBadTrailer, nil))
	}
}

// body reads a record's block from the Reader's buffer.
type body struct {
	rd         *Reader
	rec        *Record
	gen        uint64
	start      int64 // decompressed position of the record start
	blockStart int64 // decompressed position of the block's first byte
	remaining  int64
	n          int64
	checked    bool
	done       bool
	truncated  bool
	closed     bool
	err        error   // returned by Read once the block is cut short
	fatal      error   // a non-format read error
	errs       []error // format errors to report when the record is finished
	dig        *digester
}

func (b *body) Read(p []byte) (int, error) {
	if b.gen != b.rd.gen {
		return 0, errStaleBody
	}
	n := b.next()
	if n == 0 {
		if b.err != nil {
			return 0, b.err
		}
		return 0, io.EOF
	}
	n = min(n, len(p))
	r := b.rd
	copy(p, r.buf[r.r:r.r+n])
	b.consume(n)
	return n, nil
}

// WriteTo hands out the block straight from the reader's buffer.
func (b *body) WriteTo(w io.Writer) (int64, error) {
	if b.gen != b.rd.gen {
		return 0, errStaleBody
	}
	var total int64
	r := b.rd
	for n := b.next(); n > 0; n = b.next() {
		chunk := r.buf[r.r : r.r+n]
		b.consume(n)
		m, err := w.Write(chunk)
		total += int64(m)
		if err != nil {
			return total, err
		}
	}
	return total, b.err
}

// next makes the next piece of the block available at the reader's
// position and returns its length, or 0 once the block has ended (b.err
// says whether it was cut short). Read, WriteTo and skipRest share it, so
// the end-of-block checks (tail check, clipping, truncation) happen the
// same way whoever drains the block.
func (b *body) next() int {
	r := b.rd
	for !b.done {
		if b.remaining == 0 {
			b.end()
			break
		}
		if !b.checked && b.remaining <= tailWindow {
			b.checkTail()
			continue
		}
		if r.r == r.w {
			if err := r.fill(); err != nil {
				b.cut(err)
				break
			}
		}
		if n := int(min(int64(r.w-r.r), b.remaining)); n > 0 {
			return n
		}
	}
	return 0
}

func (b *body) consume(n int) {
	r := b.rd
	if b.dig != nil {
		b.dig.write(r.buf[r.r : r.r+n])
	}
	r.r += n
	b.remaining -= int64(n)
	b.n += int64(n)
}

// skipRest discards the unread block without hashing it.
func (b *body) skipRest() {
	r := b.rd
	for n := b.next(); n > 0; n = b.next() {
		r.r += n
		b.remaining -= int64(n)
		b.n += int64(n)
	}
}

// cut ends a block that the input cut short.
func (b *body) cut(err error) {
	b.done = true
	b.truncated = true
	if b.dig != nil {
		b.dig.abandon()
		b.rec.digests = Digests{}
	}
	r := b.rd
	if !isFormat(err) && err != io.EOF {
		b.fatal = err
		b.err = err
		return
	}
	if err == io.EOF && b.recoverNext() {
		b.truncated = false // the record ends before the input does: read its trailer
		b.close()
		return
	}
	fe := r.formatErr(b.start, fmt.Sprintf("read block: input ends after %d of %d bytes", b.n, b.rec.ContentLen), ErrTruncated, err)
	if isFormat(err) {
		fe.Msg = fmt.Sprintf("read block: damaged data after %d of %d bytes", b.n, b.rec.ContentLen)
	}
	b.errs = append(b.errs, fe)
	b.err = fe
	b.close()
}

// recoverNext handles a long block that the input ends inside: if a record
// starts in its last bytes (kept by fill), Content-Length was wrong; the
// reader goes back to that record. The bytes after it were already handed
// out as block; the error says so.
func (b *body) recoverNext() bool {
	r := b.rd
	lo := max(int(b.blockStart-r.base), 0)
	if lo >= r.r {
		return false
	}
	region := r.buf[lo:r.r]
	var cut int
	if b.rec.Format == FormatARC {
		cut = r.arcClipPoint(region)
	} else {
		cut = clipPoint(region)
	}
	if cut < 0 {
		return false
	}
	blockLen := int64(lo+cut) + r.base - b.blockStart
	fe := r.formatErr(b.start, fmt.Sprintf("Content-Length %d runs past the end of input; the next record starts after %d block bytes (the %d bytes after them were read as block)", b.rec.ContentLen, blockLen, b.n-blockLen), ErrBadLength, nil)
	r.r = lo + cut
	b.errs = append(b.errs, fe)
	b.err = fe
	return true
}

func (b *body) end() {
	if b.done {
		return
	}
	b.done = true
	if b.dig != nil {
		b.rec.digests = b.dig.sum()
	}
	b.close()
}

// checkTail buffers the rest of the block plus a few bytes and checks
// that a record boundary follows. When it does not, and a record header
// starts inside the block after a blank line, Content-Length was too long:
// the block is clipped there so the next record is not lost.
func (b *body) checkTail() {
	b.checked = true
	r := b.rd
	need := int(b.remaining) + 16
	var err error
	for r.w-r.r < need {
		if err = r.fill(); err != nil {
			r.unfill(err)
			break
		}
	}
	avail := r.w - r.r
	rem := int(b.remaining)
	if avail >= rem {
		after := r.buf[r.r+rem : r.w]
		if boundaryAhead(after, b.rec.Format, err != nil) {
			return
		}
	}
	// Search from the block start when fill kept it (long blocks keep
	// their last tailWindow bytes), so a record that began before the
	// current position is found too.
	lo := max(int(b.blockStart-r.base), 0)
	block := r.buf[lo : r.r+min(avail, rem)]
	var cut int
	if b.rec.Format == FormatARC {
		cut = r.arcClipPoint(block)
	} else {
		cut = clipPoint(block)
	}
	if cut < 0 {
		return
	}
	if lo+cut < r.r {
		blockLen := int64(lo+cut) + r.base - b.blockStart
		fe := r.formatErr(b.start, fmt.Sprintf("Content-Length %d runs into the next record; it starts after %d block bytes (the %d bytes after them were read as block)", b.rec.ContentLen, blockLen, b.n-blockLen), ErrBadLength, nil)
		r.r = lo + cut
		b.remaining = 0
		b.errs = append(b.errs, fe)
		b.err = fe
		if b.dig != nil {
			b.dig.clipped = true
		}
		b.end()
		return
	}
	cut -= r.r - lo
	b.errs = append(b.errs, r.formatErr(b.start, fmt.Sprintf("Content-Length %d runs into the next record; block clipped to %d bytes", b.rec.ContentLen, b.n+int64(cut)), ErrBadLength, nil))
	b.remaining = int64(cut)
	if b.dig != nil {
		b.dig.clipped = true
	}
}

// boundaryAhead reports whether the bytes after a block look like the end
// of a record: line ends, then a record header or the end of input. When
// too few bytes are known to tell, it says yes.
func boundaryAhead(after []byte, f Format, ended bool) bool {
	i := 0
	for i < len(after) && (after[i] == '\r' || after[i] == '\n') {
		i++
	}
	rest := after[i:]
	if len(rest) == 0 {
		return true
	}
	if f == FormatARC {
		return i > 0 || ended
	}
	if len(rest) < 5 {
		return !ended && bytes.HasPrefix([]byte("WARC/"), rest)
	}
	return bytes.HasPrefix(rest, []byte("WARC/"))
}

// clipPoint finds the first "WARC/<digit>" line after a blank line inside
// block and returns where the block should end (before the blank line's
// record trailer), or -1.
func clipPoint(block []byte) int {
	for i := 0; ; {
		j := bytes.Index(block[i:], []byte("\nWARC/"))
		if j < 0 {
			return -1
		}
		k := i + j + 1 // start of "WARC/"
		if k+5 < len(block) && block[k+5] >= '0' && block[k+5] <= '9' {
			pre := block[:k]
			switch {
			case bytes.HasSuffix(pre, []byte("\r\n\r\n")):
				return k - 4
			case bytes.HasSuffix(pre, []byte("\n\n")):
				return k - 2
			}
		}
		i = k
	}
}

// WellFormed reports whether b is exactly one record that the reader
// takes without reporting damage: a complete header, a block as long as
// Content-Length says, then the standard's trailer ("\r\n\r\n" for
// WARC, "\n" for ARC) and nothing else. A record with other line ends
// after its block is refused too: other readers (warcio.js) take the
// extra bytes for the start of the next record and stop there. It is
// what export-warc -clean keeps.
func WellFormed(b []byte) bool {
	r := NewReaderOptions(bytes.NewReader(b), "", Options{Policy: PolicyFail})
	rec, err := r.Next()
	if err != nil {
		return false
	}
	if _, err := io.Copy(io.Discard, rec.Body); err != nil {
		return false
	}
	if _, err = r.Next(); err != io.EOF {
		return false
	}
	want := "\r\n\r\n"
	if rec.Format == FormatARC {
		want = "\n"
	}
	return string(rec.Trailer) == want && rec.End == int64(len(b))
}
