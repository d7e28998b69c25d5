package warcio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// DefaultMaxHTTPHeader bounds the HTTP header ReadHTTP will buffer when the
// caller passes maxHeader <= 0. Real headers are a few KiB; 256 KiB leaves
// room for cookie-laden responses while keeping a garbage block from
// costing more than that in memory.
const DefaultMaxHTTPHeader = 256 << 10

// Sentinel errors of the HTTP layer, matched with errors.Is. They arrive
// wrapped in an *HTTPError that says where in the block they happened.
var (
	// ErrNotHTTP means the block does not start with an HTTP/1.x status or
	// request line: an HTTP/0.9 response, a block written without its
	// header, or garbage. The block can still be stored as opaque bytes.
	ErrNotHTTP = errors.New("not an HTTP message")
	// ErrHTTPHeaderTooLarge means no blank line ended the header within the
	// limit given to ReadHTTP; the block is most likely not HTTP at all.
	ErrHTTPHeaderTooLarge = errors.New("HTTP header too large")
	// ErrEmptyHTTP means the block holds no bytes at all (revisit records
	// written without an HTTP header, for instance).
	ErrEmptyHTTP = errors.New("empty HTTP block")
)

// HTTPError reports an HTTP header that could not be read. Pos is the byte
// offset inside the record block; File and Offset locate the record when
// the error came from Record.HTTP (they are empty for ReadHTTP).
//
// Input replays the block from its first byte (the bytes ReadHTTP consumed,
// then the rest of the reader), so a caller can still store the block as
// opaque bytes after a failed parse. It is nil when the reader itself failed.
type HTTPError struct {
	File   string
	Offset int64
	Pos    int64
	Msg    string
	Err    error
	Input  io.Reader
}

func (e *HTTPError) Error() string {
	var b strings.Builder
	if e.File != "" {
		fmt.Fprintf(&b, "%s: record at %d: ", e.File, e.Offset)
	}
	fmt.Fprintf(&b, "read HTTP header at block byte %d: ", e.Pos)
	if e.Msg != "" {
		b.WriteString(e.Msg)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *HTTPError) Unwrap() error { return e.Err }

// HTTPMessage is the HTTP request or response stored in a record block.
// Raw is the exact stored header, so Raw followed by everything Payload
// yields is the block byte for byte.
type HTTPMessage struct {
	// Raw holds the start line, the header fields and the blank line ending
	// them, exactly as stored (line endings, folds and non-UTF-8 bytes kept).
	Raw []byte

	Request bool
	Proto   string // as stored: "HTTP/1.1", "HTTP/1.0", "HTTP/2"...

	StatusCode int    // responses
	Reason     string // responses; "" when the server sent none
	Method     string // requests
	RequestURI string // requests, as stored

	// Header lists the fields in stored order. Each Field.Raw slices into
	// Raw; a line that is not "name: value" is kept as a field with an
	// empty Name so that nothing is dropped.
	Header Header

	// Truncated is set when the block ended before the blank line that ends
	// the header: Raw then holds everything and Payload is empty.
	Truncated bool

	// Payload streams the entity exactly as stored (still chunked or
	// compressed if it was sent that way). It reads from the reader given
	// to ReadHTTP; do not read that reader directly afterwards.
	Payload io.Reader
}

// ReadHTTP reads the HTTP header at the start of r and returns the message
// with Payload positioned at the first entity byte. It reads no further
// than the header, and never more than maxHeader header bytes
// (DefaultMaxHTTPHeader when maxHeader <= 0), so time and memory stay
// bounded whatever r holds.
//
// It accepts what crawlers actually stored: LF-only and CR CR LF line
// endings, folded (obs-fold) lines, non-UTF-8 bytes, lower-case names,
// status lines without reason phrase ("HTTP/1.1 200 " as HTTP/2 captures
// are rewritten). A block whose first line is neither a status line nor a
// request line fails with ErrNotHTTP.
func ReadHTTP(r io.Reader, maxHeader int) (*HTTPMessage, error) {
	return readHTTP(r, maxHeader, nil)
}

// HTTPReader reads HTTP headers as ReadHTTP and Record.HTTP do, reusing
// its buffers from one call to the next: what a call returns (the
// message's Raw, its fields' Raw and its Payload, an HTTPError's Input)
// is valid only until the next call. The zero value is ready to use, by
// one goroutine at a time.
type HTTPReader struct {
	br     *bufio.Reader
	raw    []byte
	starts []int
}

// maxReusedHeader bounds the header buffer an HTTPReader keeps.
const maxReusedHeader = 16 << 10

// Read is ReadHTTP(r, maxHeader) with h's buffers.
func (h *HTTPReader) Read(r io.Reader, maxHeader int) (*HTTPMessage, error) {
	return readHTTP(r, maxHeader, h)
}

// Record is rec.HTTP() with h's buffers.
func (h *HTTPReader) Record(rec *Record) (*HTTPMessage, error) { return rec.http(h) }

func readHTTP(r io.Reader, maxHeader int, h *HTTPReader) (*HTTPMessage, error) {
	if maxHeader <= 0 {
		maxHeader = DefaultMaxHTTPHeader
	}
	// A small buffer: header lines are short and longer ones are appended
	// piecewise; the payload's large reads bypass the buffer anyway. This
	// buffer is allocated per record unless h lends it, so its size
	// shows in index speed.
	var (
		br         *bufio.Reader
		raw        []byte
		lineStarts []int // start of every line in raw, for the fields
	)
	if h == nil {
		br = bufio.NewReaderSize(r, 1024)
		raw = make([]byte, 0, 1024)
	} else {
		if h.br == nil {
			h.br, h.raw = bufio.NewReaderSize(r, 1024), make([]byte, 0, 1024)
		}
		h.br.Reset(r)
		br, raw, lineStarts = h.br, h.raw[:0], h.starts[:0]
		defer func() {
			if cap(raw) <= maxReusedHeader {
				h.raw = raw
			}
			h.starts = lineStarts
		}()
	}
	truncated := false
	fail := func(pos int, msg string, err error) (*HTTPMessage, error) {
		return nil, &HTTPError{Pos: int64(pos), Msg: msg, Err: err,
			Input: io.MultiReader(bytes.NewReader(raw), br)}
	}
	for {
		start := len(raw)
		var err error
		raw, err = httpAppendLine(br, raw, maxHeader)
		if err == errHTTPLineTooLong {
			return fail(maxHeader, "", ErrHTTPHeaderTooLarge)
		}
		if err != nil && err != io.EOF {
			return nil, &HTTPError{Pos: int64(len(raw)), Msg: "read line", Err: err}
		}
		if len(raw) == start { // EOF at a line start
			if start == 0 {
				return fail(0, "", ErrEmptyHTTP)
			}
			truncated = true
			break
		}
		lineStarts = append(lineStarts, start)
		if start == 0 {
			// Reject garbage as soon as the first line is complete.
			if _, perr := parseStartLine(httpTrimEOL(raw)); perr != nil {
				return fail(0, perr.Error(), ErrNotHTTP)
			}
		} else if len(httpTrimEOL(raw[start:])) == 0 && raw[len(raw)-1] == '\n' {
			break // blank line: end of header
		}
		if err == io.EOF {
			truncated = true
			break
		}
	}
	m, _ := parseStartLine(httpTrimEOL(raw[:lineStarts[0]+httpLineLen(raw, lineStarts, 0)]))
	m.Raw = raw
	m.Truncated = truncated
	m.Header = parseFields(raw, lineStarts, truncated)
	m.Payload = br
	if truncated {
		m.Payload = httpEOFReader{}
	}
	return m, nil
}

// errHTTPLineTooLong is internal: httpAppendLine hit the header limit.
var errHTTPLineTooLong = errors.New("line too long")

// httpAppendLine appends one line (through its LF, or to EOF) read from br to
// raw, failing with errHTTPLineTooLong once raw exceeds max bytes. What
// was read is always appended (at most one buffer beyond max), so a
// failed header can still be replayed.
func httpAppendLine(br *bufio.Reader, raw []byte, max int) ([]byte, error) {
	for {
		frag, err := br.ReadSlice('\n')
		raw = append(raw, frag...)
		if len(raw) > max {
			return raw, errHTTPLineTooLong
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return raw, err
	}
}

func httpLineLen(raw []byte, starts []int, i int) int {
	if i+1 < len(starts) {
		return starts[i+1] - starts[i]
	}
	return len(raw) - starts[i]
}

// httpTrimEOL drops the line ending: LF and any CRs before it (CR CR LF occurs).
func httpTrimEOL(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	return bytes.TrimRight(line, "\r")
}

// parseStartLine parses "HTTP/1.1 200 OK" or "GET /x HTTP/1.1".
func parseStartLine(line []byte) (*HTTPMessage, error) {
	s := string(line)
	if len(s) >= 5 && strings.EqualFold(s[:4], "HTTP") {
		if proto, _, _ := strings.Cut(s, " "); statusProto(proto) {
			return parseStatusLine(s)
		}
	}
	return parseRequestLine(s)
}

// statusProto accepts the protocol of a status line: "HTTP/" and a
// version, or a variant some crawlers recorded ("HTTPX/1.1" in pywb's
// samples, for a rewritten response), which every other reader takes
// as a status line too. A method cannot look so: a token has no "/".
func statusProto(p string) bool {
	name, ver, ok := strings.Cut(p, "/")
	if !ok || len(name) < 4 || !strings.EqualFold(name[:4], "HTTP") || ver == "" {
		return false
	}
	for _, c := range []byte(name[4:]) {
		if (c|0x20) < 'a' || (c|0x20) > 'z' {
			return false
		}
	}
	return httpValidProto("HTTP/" + ver)
}

func parseStatusLine(s string) (*HTTPMessage, error) {
	proto, rest, _ := strings.Cut(s, " ")
	if !statusProto(proto) {
		return nil, fmt.Errorf("bad protocol in status line %.40q", s)
	}
	rest = strings.TrimLeft(rest, " ")
	if len(rest) < 3 {
		return nil, fmt.Errorf("no status code in %.40q", s)
	}
	code, err := strconv.Atoi(rest[:3])
	if err != nil || code < 100 || rest[0] == '+' || rest[0] == '-' {
		return nil, fmt.Errorf("bad status code in %.40q", s)
	}
	rest = rest[3:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return nil, fmt.Errorf("bad status code in %.40q", s)
	}
	return &HTTPMessage{Proto: proto, StatusCode: code, Reason: strings.TrimSpace(rest)}, nil
}

func parseRequestLine(s string) (*HTTPMessage, error) {
	method, rest, ok := strings.Cut(s, " ")
	if !ok || method == "" || !httpIsToken(method) {
		return nil, fmt.Errorf("neither status nor request line: %.40q", s)
	}
	i := strings.LastIndexByte(rest, ' ')
	if i < 0 {
		return nil, fmt.Errorf("request line without protocol: %.40q", s)
	}
	uri, proto := strings.TrimSpace(rest[:i]), rest[i+1:]
	if !httpValidProto(proto) || uri == "" {
		return nil, fmt.Errorf("bad request line %.40q", s)
	}
	return &HTTPMessage{Request: true, Proto: proto, Method: method, RequestURI: uri}, nil
}

// httpValidProto accepts "HTTP/" followed by a version made of digits and dots.
func httpValidProto(p string) bool {
	if len(p) < 6 || !strings.EqualFold(p[:5], "HTTP/") {
		return false
	}
	for _, c := range []byte(p[5:]) {
		if (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	return true
}

// httpIsToken reports whether s is an RFC 9110 token (method names).
func httpIsToken(s string) bool {
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 {
			return false
		}
	}
	return true
}

// parseFields splits the header lines (all but the start line and the
// final blank line) into fields, joining folded lines into the field they
// continue. Field.Raw slices into raw.
func parseFields(raw []byte, starts []int, truncated bool) Header {
	end := len(starts)
	if !truncated {
		end-- // the blank line
	}
	var h Header
	for i := 1; i < end; i++ {
		line := raw[starts[i] : starts[i]+httpLineLen(raw, starts, i)]
		text := httpTrimEOL(line)
		if len(h) > 0 && len(text) > 0 && (text[0] == ' ' || text[0] == '\t') {
			f := &h[len(h)-1]
			f.Raw = raw[starts[i]-len(f.Raw) : starts[i]+len(line)]
			if v := strings.TrimSpace(string(text)); v != "" {
				if f.Value != "" {
					f.Value += " "
				}
				f.Value += v
			}
			continue
		}
		name, value, ok := bytes.Cut(text, []byte{':'})
		if !ok {
			h = append(h, Field{Value: strings.TrimSpace(string(text)), Raw: line})
			continue
		}
		h = append(h, Field{
			Name:  strings.TrimSpace(string(name)),
			Value: strings.TrimSpace(string(value)),
			Raw:   line,
		})
	}
	return h
}

type httpEOFReader struct{}

func (httpEOFReader) Read([]byte) (int, error) { return 0, io.EOF }

// ContentType returns the Content-Type field value as stored ("" if none).
func (m *HTTPMessage) ContentType() string { return m.Header.Get("Content-Type") }

// MediaType returns the lower-cased media type of Content-Type without its
// parameters: "text/html" for "text/HTML; charset=utf-8".
func (m *HTTPMessage) MediaType() string {
	t, _, _ := strings.Cut(m.ContentType(), ";")
	return strings.ToLower(strings.TrimSpace(t))
}

// ContentLength returns the declared Content-Length and whether there was
// a single parseable one.
func (m *HTTPMessage) ContentLength() (int64, bool) {
	vs := m.Header.Values("Content-Length")
	if len(vs) == 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(vs[0], 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	for _, v := range vs[1:] {
		if v != vs[0] {
			return 0, false
		}
	}
	return n, true
}

// ContentEncodings returns the content codings in the order they were
// applied, lower-cased, from every Content-Encoding field ("identity"
// kept). DecodeContent undoes them.
func (m *HTTPMessage) ContentEncodings() []string { return httpCodings(m.Header, "Content-Encoding") }

// TransferEncodings returns the transfer codings in applied order,
// lower-cased, from every Transfer-Encoding field.
func (m *HTTPMessage) TransferEncodings() []string { return httpCodings(m.Header, "Transfer-Encoding") }

// Codings returns every coding to undo on the de-chunked entity, in the
// order they were applied: the content codings, then the transfer codings
// other than chunked (a rare "Transfer-Encoding: gzip, chunked"). Pass it
// to DecodeContent.
func (m *HTTPMessage) Codings() []string {
	cs := m.ContentEncodings()
	for _, c := range m.TransferEncodings() {
		if c != "chunked" {
			cs = append(cs, c)
		}
	}
	return cs
}

// Chunked reports whether the sender declared the message chunked. The
// stored body may still have been de-chunked by the crawler: NewDechunker
// checks the bytes.
func (m *HTTPMessage) Chunked() bool {
	for _, c := range m.TransferEncodings() {
		if c == "chunked" {
			return true
		}
	}
	return false
}

func httpCodings(h Header, name string) []string {
	var out []string
	for _, v := range h.Values(name) {
		for c := range strings.SplitSeq(v, ",") {
			if c = strings.ToLower(strings.TrimSpace(c)); c != "" {
				out = append(out, c)
			}
		}
	}
	return out
}

// HTTP reads the HTTP header at the start of the record block, consuming
// it from rec.Body; the returned message's Payload reads the rest of the
// block. It is meant for response, request and revisit records whose
// block is application/http (and ARC records of http(s) URLs); other
// records fail with ErrNotHTTP without reading the body. Errors are
// *HTTPError carrying rec.File and rec.Offset.
func (rec *Record) HTTP() (*HTTPMessage, error) { return rec.http(nil) }

func (rec *Record) http(h *HTTPReader) (*HTTPMessage, error) {
	if !rec.holdsHTTP() {
		return nil, &HTTPError{File: rec.File, Offset: rec.Offset, Err: ErrNotHTTP,
			Msg: fmt.Sprintf("%s record with Content-Type %q", rec.Type, rec.Header.Get("Content-Type"))}
	}
	if rec.Body == nil {
		return nil, &HTTPError{File: rec.File, Offset: rec.Offset, Err: ErrEmptyHTTP}
	}
	m, err := readHTTP(rec.Body, DefaultMaxHTTPHeader, h)
	if err != nil {
		var he *HTTPError
		if errors.As(err, &he) {
			he.File, he.Offset = rec.File, rec.Offset
		}
		return nil, err
	}
	return m, nil
}

func (rec *Record) holdsHTTP() bool {
	uri := strings.ToLower(rec.TargetURI)
	httpURI := strings.HasPrefix(uri, "http:") || strings.HasPrefix(uri, "https:")
	if rec.Format == FormatARC {
		return httpURI
	}
	switch rec.Type {
	case "response", "request", "revisit":
	default:
		return false
	}
	ct := strings.ToLower(strings.TrimSpace(rec.Header.Get("Content-Type")))
	if ct == "" {
		return httpURI
	}
	return strings.HasPrefix(ct, "application/http")
}
