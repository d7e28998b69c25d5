package export

import (
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/blockwarc/blockwarc/warcio"
)

// maxRequestBody bounds the request body kept to build a POST query
// (warcio.js keeps the first 4096 characters of the query it builds).
const maxRequestBody = 1 << 20

// CDXJKeep is the warcio.WalkOptions.Keep of an index: how much of each
// block the CDXJIndexer needs. The HTTP header suffices for records that
// declare their payload digest; requests keep their body (POST queries);
// other records are kept whole so that their digest can be computed.
func CDXJKeep(rec *warcio.Record) int64 {
	switch {
	case rec.Type == "warcinfo":
		return 0
	case rec.Type == "request":
		return warcio.DefaultMaxHTTPHeader + maxRequestBody
	case declaredDigest(rec.Header) != "" || rec.Type == "revisit":
		return warcio.KeepHTTPHeader
	}
	return -1
}

// declaredDigest is the WARC-Payload-Digest value after its algorithm
// ("sha1:"), as warcio.js reports it; "" when there is none.
func declaredDigest(h warcio.Header) string {
	_, v, _ := strings.Cut(h.Get("WARC-Payload-Digest"), ":")
	v, _, _ = strings.Cut(v, ":") // JavaScript's split(":", 2)[1]
	return v
}

// summary is what the indexer keeps of a capture once its callback has
// returned (the body is gone by then).
type summary struct {
	typ, uri, dateRaw, file string
	offset, length          int64
	warcCT                  string // joined WARC Content-Type values
	key                     string // Capture.Key
	isHTTP                  bool   // an HTTP header was parsed
	status                  string
	httpCT                  string // joined HTTP Content-Type values
	digest                  string // declared or computed, without algorithm
	method                  string // requests
	body                    []byte // request payload (capped)
}

// CDXJIndexer turns captures, in the order warcio.Walk yields them, into
// CDXJ entries, making the choices of warcio.js cdx-index (2.4):
//
//   - response, revisit and resource records are indexed, and metadata and
//     other records unless their WARC Content-Type is
//     application/warc-fields; warcinfo and request records are not;
//   - a request next to its response or revisit (same file, same URL) is
//     paired with it: for a non-GET request the body is turned into a
//     query ("__wb_method=post&a=1…") appended to the URL before SURT, as
//     pywb does to replay POSTs, and method and requestBody are added;
//   - mime is the HTTP Content-Type's media type for responses,
//     "warc/revisit" for revisits, the WARC Content-Type for other records;
//   - status is the HTTP status of responses and revisits that carry an
//     HTTP header;
//   - digest is the WARC-Payload-Digest value after its "sha1:" prefix;
//     when the record declares none, the SHA-1 of the payload (base32) is
//     computed — warcio.js leaves the field out then;
//   - filename is the base name of the input.
//
// Entries come out in capture order, keyed by URLKey; POST entries whose
// key differs from their capture's key must be re-sorted by the caller.
type CDXJIndexer struct {
	emit func(*CDXJEntry) error
	prev *summary
	buf  []byte
	// walkKeys says that every capture's Key is SURT(TargetURI), as
	// warcio.Walk's are (IndexCDXJ): the urlkey of an entry not built
	// from a POST is then that, not computed again one at a time.
	walkKeys bool
}

// NewCDXJIndexer returns an indexer that passes each entry to emit; the
// entry is reused after emit returns.
func NewCDXJIndexer(emit func(*CDXJEntry) error) *CDXJIndexer {
	return &CDXJIndexer{emit: emit}
}

// Add indexes one capture. It reads c.Body when it needs the HTTP header,
// the request body or a digest the record does not declare.
func (x *CDXJIndexer) Add(c *warcio.Capture) error {
	s, err := x.summarize(c)
	if err != nil {
		return err
	}
	last := x.prev
	x.prev = s
	if last == nil {
		return nil
	}
	if last.uri != s.uri || last.file != s.file {
		return x.index(last, nil)
	}
	switch {
	case s.typ == "request" && (last.typ == "response" || last.typ == "revisit"):
		x.prev = nil
		return x.index(last, s)
	case (s.typ == "response" || s.typ == "revisit") && last.typ == "request":
		x.prev = nil
		return x.index(s, last)
	}
	return x.index(last, nil)
}

// Flush indexes the capture Add still holds (it waits for the next one to
// pair requests with responses). Call it once after the last Add.
func (x *CDXJIndexer) Flush() error {
	last := x.prev
	x.prev = nil
	if last == nil {
		return nil
	}
	return x.index(last, nil)
}

func included(s *summary) bool {
	switch s.typ {
	case "request", "warcinfo":
		return false
	case "metadata", "resource":
		return s.warcCT != "application/warc-fields"
	}
	return true
}

func (x *CDXJIndexer) summarize(c *warcio.Capture) (*summary, error) {
	s := recordSummary(&c.Record)
	s.key = c.Key
	if c.Compression == warcio.CompressionNone {
		// Uncompressed: the record ends with its block, as warcio.js and
		// pywb count it; the line ends after it are not part of it.
		s.length -= int64(len(c.Trailer))
	}
	if c.Summary != nil {
		if !s.decodeBlock(c.Summary) {
			return nil, fmt.Errorf("index %s at %d: bad block summary", c.File, c.Offset)
		}
		return s, nil
	}
	if err := s.readBlock(&c.Record, x.buf[:0], nil); err != nil {
		return nil, err
	}
	return s, nil
}

// recordSummary is the part of a summary that comes from the record's
// WARC header, without the block.
func recordSummary(rec *warcio.Record) *summary {
	return &summary{
		typ: rec.Type, uri: rec.TargetURI, dateRaw: rec.DateRaw, file: rec.File,
		offset: rec.Offset, length: rec.Length,
		warcCT: strings.Join(rec.Header.Values("Content-Type"), ", "),
		digest: declaredDigest(rec.Header),
	}
}

// cdxjSummarize returns the warcio.WalkOptions.Summarize of an index: the
// part of the summary read from the block (HTTP header, request body,
// computed digest), encoded by appendBlock, worked out by the walk's
// workers, each lent an HTTPReader by the pool.
func cdxjSummarize() func(rec *warcio.Record, block []byte) ([]byte, error) {
	pool := sync.Pool{New: func() any { return new(warcio.HTTPReader) }}
	return func(rec *warcio.Record, block []byte) ([]byte, error) {
		hr := pool.Get().(*warcio.HTTPReader)
		defer pool.Put(hr)
		return summarizeBlock(rec, block, hr)
	}
}

func summarizeBlock(rec *warcio.Record, block []byte, hr *warcio.HTTPReader) ([]byte, error) {
	r := *rec
	r.Body = bytes.NewReader(block)
	s := recordSummary(&r)
	var buf [sha1.Size]byte
	if err := s.readBlock(&r, buf[:0], hr); err != nil {
		return nil, err
	}
	return s.appendBlock(make([]byte, 0, 64+len(s.status)+len(s.httpCT)+len(s.digest)+len(s.method)+len(s.body))), nil
}

// readBlock fills in the fields of s that come from the block rec.Body
// reads; buf is room for a SHA-1; hr, when set, reads the HTTP header.
func (s *summary) readBlock(rec *warcio.Record, buf []byte, hr *warcio.HTTPReader) error {
	var payload io.Reader = rec.Body
	switch {
	case rec.Type == "response" || rec.Type == "request" || (rec.Type == "revisit" && rec.ContentLen > 0):
		var m *warcio.HTTPMessage
		var err error
		if hr != nil {
			m, err = hr.Record(rec)
		} else {
			m, err = rec.HTTP()
		}
		if err != nil {
			// Not HTTP (dns: responses, a truncated header): no status, no
			// HTTP mime; the block is the payload.
			var he *warcio.HTTPError
			if !errors.As(err, &he) {
				return fmt.Errorf("index %s at %d: %w", rec.File, rec.Offset, err)
			}
			if he.Input != nil {
				payload = he.Input
			}
			break
		}
		s.isHTTP = true
		s.httpCT = strings.Join(m.Header.Values("Content-Type"), ", ")
		payload = m.Payload
		if rec.Type == "request" {
			// warcio.js takes the first word of the start line as the
			// method, whatever it is ("HTTP/1.1" for a response stored as
			// a request).
			s.method = m.Method
			if !m.Request {
				s.method = m.Proto
			}
			if s.method != "GET" {
				b, err := io.ReadAll(io.LimitReader(m.Payload, maxRequestBody))
				if err != nil && !isFormat(err) {
					return fmt.Errorf("index %s at %d: read request body: %w", rec.File, rec.Offset, err)
				}
				s.body = b
			}
			return nil
		}
		s.status = strconv.Itoa(m.StatusCode)
	}
	if s.digest == "" && rec.Type != "revisit" && rec.Type != "request" && payload != nil && included(s) {
		h := sha1.New()
		if _, err := io.Copy(h, payload); err != nil && !isFormat(err) {
			return fmt.Errorf("index %s at %d: digest payload: %w", rec.File, rec.Offset, err)
		}
		s.digest = base32.StdEncoding.EncodeToString(h.Sum(buf))
	}
	return nil
}

// appendBlock encodes the fields readBlock fills in: a flags byte (1: an
// HTTP header was parsed, 2: a request body is kept), then status,
// httpCT, digest, method and body, each as uvarint length and bytes.
func (s *summary) appendBlock(b []byte) []byte {
	var flags byte
	if s.isHTTP {
		flags |= 1
	}
	if s.body != nil {
		flags |= 2
	}
	b = append(b, flags)
	for _, f := range []string{s.status, s.httpCT, s.digest, s.method} {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	b = binary.AppendUvarint(b, uint64(len(s.body)))
	return append(b, s.body...)
}

// decodeBlock sets the fields appendBlock encoded in b; false when b is
// not such an encoding.
func (s *summary) decodeBlock(b []byte) bool {
	if len(b) == 0 || b[0] > 3 {
		return false
	}
	flags := b[0]
	b = b[1:]
	next := func() ([]byte, bool) {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return nil, false
		}
		f := b[k : k+int(n)]
		b = b[k+int(n):]
		return f, true
	}
	var f [5][]byte
	for i := range f {
		var ok bool
		if f[i], ok = next(); !ok {
			return false
		}
	}
	if len(b) != 0 {
		return false
	}
	s.isHTTP = flags&1 != 0
	s.status, s.httpCT, s.method = string(f[0]), string(f[1]), string(f[3])
	s.digest = string(f[2]) // the declared one, or the one computed
	if flags&2 != 0 {
		s.body = bytes.Clone(f[4])
		if s.body == nil {
			s.body = []byte{}
		}
	}
	return true
}

func isFormat(err error) bool {
	var fe *warcio.FormatError
	return errors.As(err, &fe)
}

func (x *CDXJIndexer) index(s, req *summary) error {
	if !included(s) {
		return nil
	}
	e := &CDXJEntry{
		Timestamp: jsTimestamp(s.dateRaw),
		URL:       s.uri,
		Length:    s.length,
		Offset:    s.offset,
		Filename:  filepath.Base(s.file),
		Digest:    s.digest,
	}
	switch s.typ {
	case "revisit":
		e.Mime = "warc/revisit"
	case "response":
		if mt, _, _ := strings.Cut(s.httpCT, ";"); strings.TrimSpace(mt) != "" {
			e.Mime = strings.TrimSpace(mt)
		}
	default:
		e.Mime = s.warcCT
	}
	if s.typ == "response" || s.typ == "revisit" {
		e.Status = s.status
	}
	keyURL := s.uri
	if req != nil && req.isHTTP && req.method != "GET" {
		query, body := postQuery(req)
		e.Method, e.RequestBody = req.method, body
		sep := "?"
		if strings.Index(keyURL, "?") > 0 {
			sep = "&"
		}
		keyURL = keyURL + sep + "__wb_method=" + req.method + "&" + query
	}
	if keyURL == s.uri && x.walkKeys {
		e.URLKey = s.key
	} else {
		e.URLKey = warcio.SURT(keyURL)
	}
	if e.URLKey == "" {
		// No WARC-Target-URI: "-", the CDX mark of a missing value, keeps
		// the line parseable (warcio.js writes "undefined").
		e.URLKey = "-"
	}
	return x.emit(e)
}
