package warcio

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ARC (the Internet Archive's format before WARC) stores each record as
// one line "URL IP DATE MIME LENGTH" (v1; v2 adds result code, checksum,
// location, offset and file name before LENGTH), then LENGTH bytes, then a
// LF. The first record, filedesc://, holds in its block the version line
// ("1 0 Org") and the names of the fields of every URL-record line.
// URLs may contain spaces, so fields are taken from the right.

var arcV1Fields = []string{"URL", "IP-address", "Archive-date", "Content-type", "Archive-length"}

// arcLineAhead reports whether the line at the current position looks like
// an ARC URL-record line (it reads the line into the buffer).
func (r *Reader) arcLineAhead() bool {
	line, _ := r.lineAhead()
	return line != nil && r.looksARC(line)
}

// lineAhead returns the line at the current position, LF included (or up
// to the end of input), bounded by MaxHeaderBytes; nil when too long.
func (r *Reader) lineAhead() ([]byte, error) {
	for {
		if j := bytes.IndexByte(r.buf[r.r:r.w], '\n'); j >= 0 {
			return r.buf[r.r : r.r+j+1], nil
		}
		if r.w-r.r > r.opt.MaxHeaderBytes {
			return nil, errHeaderTooLong
		}
		if err := r.fill(); err != nil {
			r.unfill(err)
			if r.w > r.r {
				return r.buf[r.r:r.w], err
			}
			return nil, err
		}
	}
}

func (r *Reader) arcNames() []string {
	if r.arcFields != nil {
		return r.arcFields
	}
	return arcV1Fields
}

// splitARC splits an ARC URL-record line into n fields, taking fields from
// the right so that the URL keeps its spaces. ok is false when the line
// has fewer fields or its last one is not a length.
func splitARC(line string, n int) (fields []string, ok bool) {
	line = strings.TrimRight(line, "\r\n")
	fields = make([]string, n)
	rest := strings.TrimRight(line, " ")
	for i := n - 1; i > 0; i-- {
		sp := strings.LastIndexByte(rest, ' ')
		if sp < 0 {
			return nil, false
		}
		fields[i] = rest[sp+1:]
		rest = strings.TrimRight(rest[:sp], " ")
	}
	if rest == "" {
		return nil, false
	}
	fields[0] = rest
	return fields, true
}

// looksARC is the test used to detect and resynchronise ARC records: a URL
// with a scheme, then enough fields, the last of them a length.
func (r *Reader) looksARC(line []byte) bool {
	if len(line) < 10 || len(line) > r.opt.MaxHeaderBytes {
		return false
	}
	c := bytes.IndexByte(line, ':')
	sp := bytes.IndexByte(line, ' ')
	if c <= 0 || sp < 0 || c > sp {
		return false
	}
	fields, ok := splitARC(string(line), len(r.arcNames()))
	if !ok {
		return false
	}
	last := fields[len(fields)-1]
	return isDigits(last) || (last != "" && last[0] == '-' && isDigits(last[1:]))
}

// findARCStart returns the buffer index of the next ARC record line start
// at or after r.r+from, or -1 (keeping the search cheap on binary blocks).
func (r *Reader) findARCStart(from int) int {
	for i := r.r + from; i < r.w; {
		if i > 0 && r.buf[i-1] == '\n' || r.c.isMemberStart(r.base+int64(i)) {
			j := bytes.IndexByte(r.buf[i:r.w], '\n')
			if j < 0 {
				return -1
			}
			if r.looksARC(r.buf[i : i+j+1]) {
				return i - r.r
			}
		}
		j := bytes.IndexByte(r.buf[i:r.w], '\n')
		if j < 0 {
			return -1
		}
		i += j + 1
	}
	return -1
}

func (r *Reader) readARC() (*Record, error) {
	start := r.pos()
	line, err := r.lineAhead()
	if line == nil {
		if err == nil || err == errHeaderTooLong {
			err = r.formatErr(start, "read ARC record line: too long", ErrBadHeader, nil)
		} else if !isFormat(err) && err != io.EOF {
			return nil, err
		}
		r.r++
		if _, serr := r.resync(0); serr != nil && serr != io.EOF {
			return nil, serr
		}
		if ferr := r.report(err, true); ferr != nil {
			return nil, ferr
		}
		return nil, errRetry
	}
	names := r.arcNames()
	fields, _ := splitARC(string(line), len(names))
	lenField := fields[len(fields)-1]
	length, perr := strconv.ParseInt(lenField, 10, 64)
	r.format = FormatARC
	if perr != nil || length < 0 {
		off, skip := r.c.locate(start)
		r.r += len(line)
		skipped, serr := r.resync(0)
		if serr != nil && serr != io.EOF {
			return nil, serr
		}
		fe := r.formatErrAt(off, skip, fmt.Sprintf("parse ARC record line: length %q; skip the record (%d bytes)", lenField, int64(len(line))+skipped), ErrBadLength, nil)
		if ferr := r.report(fe, true); ferr != nil {
			return nil, ferr
		}
		return nil, errRetry
	}
	raw := make([]byte, len(line), len(line)+4)
	copy(raw, line)
	rec := &Record{File: r.name, Format: FormatARC, Compression: r.c.comp, RawHeader: raw, ContentLen: length}
	rec.Offset, rec.SkipInMember = r.c.locate(start)
	rec.Pos, rec.End = start, start
	// Field values are substrings of one string; Raw points into RawHeader.
	s := string(raw)
	fields, _ = splitARC(s, len(names))
	rec.Header = make(Header, len(names))
	for i, name := range names {
		v := fields[i]
		off := strings.Index(s, v)
		if i > 0 {
			off = strings.LastIndex(s[:len(strings.TrimRight(s, "\r\n"))], v)
		}
		var fr []byte
		if off >= 0 && v != "" {
			fr = raw[off : off+len(v) : off+len(v)]
		}
		rec.Header[i] = Field{Name: name, Value: v, Raw: fr}
	}
	rec.TargetURI = fields[0]
	rec.DateRaw = arcField(rec.Header, names, "archive-date")
	rec.Date = parseDate(rec.DateRaw)
	rec.Type = "response"
	if r.arcVer == "" {
		r.arcVer = "ARC/1"
	}
	r.r += len(line)
	if strings.HasPrefix(rec.TargetURI, "filedesc:") {
		rec.Type = "warcinfo"
		r.readFiledesc(length)
	}
	rec.Version = r.arcVer
	r.format = FormatARC
	r.newBody(rec, start, length)
	return rec, nil
}

func arcField(h Header, names []string, want string) string {
	for i, n := range names {
		if strings.EqualFold(n, want) && i < len(h) {
			return h[i].Value
		}
	}
	if len(h) > 2 {
		return h[2].Value
	}
	return ""
}

// readFiledesc peeks at a filedesc block (without consuming it) for the
// format version and the field names of later URL-record lines.
func (r *Reader) readFiledesc(length int64) {
	if length > tailWindow {
		return
	}
	blk, _ := r.peek(int(length))
	lines := strings.SplitN(string(blk), "\n", 3)
	if len(lines) < 2 {
		return
	}
	if v := strings.Fields(lines[0]); len(v) > 0 && isDigits(v[0]) {
		r.arcVer = "ARC/" + v[0]
	}
	names := strings.Fields(lines[1])
	if len(names) >= 5 && strings.EqualFold(names[0], "URL") {
		r.arcFields = names
	}
}

// arcClipPoint finds the first ARC record line inside block (after a LF)
// and returns where the block should end (before that LF), or -1.
func (r *Reader) arcClipPoint(block []byte) int {
	for i := 0; i < len(block); {
		j := bytes.IndexByte(block[i:], '\n')
		if j < 0 {
			return -1
		}
		k := i + j + 1
		e := bytes.IndexByte(block[k:], '\n')
		if e < 0 {
			return -1
		}
		if r.looksARC(block[k : k+e+1]) {
			return k - 1
		}
		i = k
	}
	return -1
}
