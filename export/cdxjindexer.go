package export

import (
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

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
	s := &summary{
		typ: c.Type, uri: c.TargetURI, dateRaw: c.DateRaw, file: c.File,
		offset: c.Offset, length: c.Length,
		warcCT: strings.Join(c.Header.Values("Content-Type"), ", "),
	}
	if c.Compression == warcio.CompressionNone {
		// Uncompressed: the record ends with its block, as warcio.js and
		// pywb count it; the line ends after it are not part of it.
		s.length -= int64(len(c.Trailer))
	}
	s.digest = declaredDigest(c.Header)
	var payload io.Reader = c.Body
	switch {
	case c.Type == "response" || c.Type == "request" || (c.Type == "revisit" && c.ContentLen > 0):
		m, err := c.HTTP()
		if err != nil {
			// Not HTTP (dns: responses, a truncated header): no status, no
			// HTTP mime; the block is the payload.
			var he *warcio.HTTPError
			if !errors.As(err, &he) {
				return nil, fmt.Errorf("index %s at %d: %w", c.File, c.Offset, err)
			}
			if he.Input != nil {
				payload = he.Input
			}
			break
		}
		s.isHTTP = true
		s.httpCT = strings.Join(m.Header.Values("Content-Type"), ", ")
		payload = m.Payload
		if c.Type == "request" {
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
					return nil, fmt.Errorf("index %s at %d: read request body: %w", c.File, c.Offset, err)
				}
				s.body = b
			}
			return s, nil
		}
		s.status = strconv.Itoa(m.StatusCode)
	}
	if s.digest == "" && c.Type != "revisit" && c.Type != "request" && payload != nil && included(s) {
		h := sha1.New()
		if _, err := io.Copy(h, payload); err != nil && !isFormat(err) {
			return nil, fmt.Errorf("index %s at %d: digest payload: %w", c.File, c.Offset, err)
		}
		s.digest = base32.StdEncoding.EncodeToString(h.Sum(x.buf[:0]))
	}
	return s, nil
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
	e.URLKey = warcio.SURT(keyURL)
	if e.URLKey == "" {
		// No WARC-Target-URI: "-", the CDX mark of a missing value, keeps
		// the line parseable (warcio.js writes "undefined").
		e.URLKey = "-"
	}
	return x.emit(e)
}
