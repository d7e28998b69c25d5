package export

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base32"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"blockwarc/warcio"
)

// CDXJEntry is one line of a CDXJ index. Empty Mime, Status, Digest,
// Method and RequestBody are left out of the line.
type CDXJEntry struct {
	URLKey    string // SURT of URL (of URL plus the request body for POST)
	Timestamp string // WARC-Date as 14 digits
	URL       string // WARC-Target-URI
	Mime      string // HTTP Content-Type media type; "warc/revisit" for revisits; the WARC Content-Type otherwise
	Status    string // HTTP status of responses and revisits
	Digest    string // payload digest without its "sha1:" prefix
	Length    int64  // stored bytes of the record
	Offset    int64  // stored offset of the record in its file
	Filename  string // base name of the file
	// Non-GET requests (POST, PUT...): the method and the request body as
	// the query string pywb matches on replay.
	Method      string
	RequestBody string
}

// AppendTo appends the entry as a CDXJ line, newline included. Values are
// JSON strings, in warcio.js's field order.
func (e *CDXJEntry) AppendTo(b []byte) []byte {
	b = append(b, e.URLKey...)
	b = append(b, ' ')
	b = append(b, e.Timestamp...)
	b = append(b, ` {`...)
	if e.URL != "" {
		b = append(b, `"url":`...)
		b = appendJSONString(b, e.URL)
		b = append(b, ',')
	}
	if e.Mime != "" {
		b = append(b, `"mime":`...)
		b = appendJSONString(b, e.Mime)
		b = append(b, ',')
	}
	if e.Status != "" {
		b = append(b, `"status":`...)
		b = appendJSONString(b, e.Status)
		b = append(b, ',')
	}
	if e.Digest != "" {
		b = append(b, `"digest":`...)
		b = appendJSONString(b, e.Digest)
		b = append(b, ',')
	}
	b = append(b, `"length":"`...)
	b = strconv.AppendInt(b, e.Length, 10)
	b = append(b, `","offset":"`...)
	b = strconv.AppendInt(b, e.Offset, 10)
	b = append(b, `","filename":`...)
	b = appendJSONString(b, e.Filename)
	if e.Method != "" {
		b = append(b, `,"method":`...)
		b = appendJSONString(b, e.Method)
		b = append(b, `,"requestBody":`...)
		b = appendJSONString(b, e.RequestBody)
	}
	return append(b, "}\n"...)
}

// appendJSONString writes s as JavaScript's JSON.stringify does: only
// quote, backslash and control characters escaped; everything else as is.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			b = utf8.AppendRune(b, r) // invalid bytes become U+FFFD, as a JS string would hold
			i += n
			continue
		}
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			if c < 0x20 {
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			} else {
				b = append(b, c)
			}
		}
		i++
	}
	return append(b, '"')
}

// maxRequestBody bounds the request body kept to build a POST query
// (warcio.js keeps the first 4096 characters of the query it builds).
const maxRequestBody = 1 << 20

// maxQuery is warcio.js's DEFAULT_MAX_QUERY_SIZE.
const maxQuery = 4096

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

// jsTimestamp is warcio.js's timestamp: the date with "-", ":" and "T"
// removed, cut to 14 characters.
func jsTimestamp(d string) string {
	var b []byte
	for i := 0; i < len(d) && len(b) < 14; i++ {
		switch d[i] {
		case '-', ':', 'T':
		default:
			b = append(b, d[i])
		}
	}
	return string(b)
}

// ---------------------------------------------------------------------------
// POST to GET, as warcio.js postToGetUrl does it.

// postQuery returns the query to append to the URL (already through
// decodeURI) and the request body as reported in requestBody.
func postQuery(req *summary) (query, requestBody string) {
	ct := req.httpCT
	mime, _, _ := strings.Cut(ct, ";")
	var q string
	switch mime {
	case "application/x-www-form-urlencoded":
		q = decodeUTF8(req.body)
	case "application/json":
		q = jsonToQuery(decodeUTF8(req.body))
	case "text/plain":
		q = jsonToQuery(decodeUTF8(req.body))
	case "multipart/form-data":
		q = multipartToQuery(decodeUTF8(req.body), ct)
	default:
		q = "__wb_post_data=" + base64.StdEncoding.EncodeToString(req.body)
	}
	q = truncateUTF16(q, maxQuery)
	requestBody = q
	dq, ok := decodeURI(q)
	if !ok {
		dq = ""
	}
	return dq, requestBody
}

// decodeUTF8 decodes bytes as TextDecoder does: invalid sequences become
// U+FFFD.
func decodeUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func truncateUTF16(s string, n int) string {
	units := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > n {
			// Where JavaScript would keep half a surrogate pair, drop it.
			return s[:i]
		}
		units += w
	}
	return s
}

// decodeURI is JavaScript's decodeURI: %XX escapes are decoded unless they
// encode one of ;/?:@&=+$,# ; a malformed escape fails.
func decodeURI(s string) (string, bool) {
	if strings.IndexByte(s, '%') < 0 {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '%' {
			b.WriteByte(s[i])
			i++
			continue
		}
		start := i
		c, ok := unescapeAt(s, i)
		if !ok {
			return "", false
		}
		i += 3
		if c < 0x80 {
			if strings.IndexByte(";/?:@&=+$,#", c) >= 0 {
				b.WriteString(s[start:i])
			} else {
				b.WriteByte(c)
			}
			continue
		}
		n := 0
		switch {
		case c&0xE0 == 0xC0:
			n = 1
		case c&0xF0 == 0xE0:
			n = 2
		case c&0xF8 == 0xF0:
			n = 3
		default:
			return "", false
		}
		seq := []byte{c}
		for k := 0; k < n; k++ {
			cc, ok := unescapeAt(s, i)
			if !ok || cc&0xC0 != 0x80 {
				return "", false
			}
			seq = append(seq, cc)
			i += 3
		}
		r, size := utf8.DecodeRune(seq)
		if r == utf8.RuneError || size != len(seq) {
			return "", false
		}
		b.Write(seq)
	}
	return b.String(), true
}

func unescapeAt(s string, i int) (byte, bool) {
	if i+2 >= len(s) || s[i] != '%' {
		return 0, false
	}
	v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
	if err != nil {
		return 0, false
	}
	return byte(v), true
}

// searchParams is an ordered URLSearchParams.
type searchParams struct {
	keys []string
	vals map[string]string
}

func (p *searchParams) has(k string) bool { _, ok := p.vals[k]; return ok }

func (p *searchParams) set(k, v string) {
	if p.vals == nil {
		p.vals = map[string]string{}
	}
	if !p.has(k) {
		p.keys = append(p.keys, k)
	}
	p.vals[k] = v
}

// String serialises as application/x-www-form-urlencoded, like
// URLSearchParams.toString.
func (p *searchParams) String() string {
	var b strings.Builder
	for i, k := range p.keys {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(formEncode(k))
		b.WriteByte('=')
		b.WriteString(formEncode(p.vals[k]))
	}
	return b.String()
}

func formEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '*', c == '-', c == '.', c == '_':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// jsonToQuery flattens a JSON document into query parameters as
// warcio.js jsonToQueryParams does: leaves keyed by their nearest object
// key, repeated keys renamed "key.2_", "key.3_"…; invalid JSON gives "".
func jsonToQuery(s string) string {
	var v any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return ""
	}
	if _, err := dec.Token(); err != io.EOF {
		return "" // trailing garbage: JSON.parse fails
	}
	p := &searchParams{}
	dupes := map[string]int{}
	getKey := func(k string) string {
		if !p.has(k) {
			return k
		}
		if _, ok := dupes[k]; !ok {
			dupes[k] = 1
		}
		dupes[k]++
		return k + "." + strconv.Itoa(dupes[k]) + "_"
	}
	var walk func(v any, key string)
	walk = func(v any, key string) {
		val := ""
		switch t := v.(type) {
		case *orderedObject:
			for i, k := range t.keys {
				walk(t.vals[i], k)
			}
		case nil:
			val = "null"
		case []any:
			for _, e := range t {
				walk(e, key)
			}
		case string:
			val = t
		case json.Number:
			val = jsNumber(t)
		case bool:
			val = strconv.FormatBool(t)
		}
		if val != "" {
			p.set(getKey(key), val)
		}
	}
	walk(v, "")
	return p.String()
}

type orderedObject struct {
	keys []string
	vals []any
}

// decodeOrdered decodes one JSON value keeping object keys in the order
// JavaScript enumerates them (integer keys first, ascending; then the others
// in insertion order; a repeated key keeps its first position, last value).
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &orderedObject{}
			idx := map[string]int{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				if i, ok := idx[k]; ok {
					o.vals[i] = v
					continue
				}
				idx[k] = len(o.keys)
				o.keys = append(o.keys, k)
				o.vals = append(o.vals, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			orderJSKeys(o)
			return o, nil
		case '[':
			var a []any
			for dec.More() {
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			if a == nil {
				a = []any{}
			}
			return a, nil
		}
	}
	return tok, nil
}

func orderJSKeys(o *orderedObject) {
	isIndex := func(k string) (uint64, bool) {
		if k == "" || (len(k) > 1 && k[0] == '0') {
			return 0, false
		}
		n, err := strconv.ParseUint(k, 10, 32)
		return n, err == nil && n < math.MaxUint32
	}
	type kv struct {
		k string
		v any
	}
	var ints, rest []kv
	for i, k := range o.keys {
		if _, ok := isIndex(k); ok {
			ints = append(ints, kv{k, o.vals[i]})
		} else {
			rest = append(rest, kv{k, o.vals[i]})
		}
	}
	if len(ints) == 0 {
		return
	}
	sort.SliceStable(ints, func(i, j int) bool {
		a, _ := isIndex(ints[i].k)
		b, _ := isIndex(ints[j].k)
		return a < b
	})
	o.keys, o.vals = o.keys[:0], o.vals[:0]
	for _, e := range append(ints, rest...) {
		o.keys = append(o.keys, e.k)
		o.vals = append(o.vals, e.v)
	}
}

// jsNumber formats a JSON number as JavaScript's Number#toString.
func jsNumber(n json.Number) string {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return string(n)
	}
	if f == 0 {
		return "0"
	}
	abs := math.Abs(f)
	if abs >= 1e21 || abs < 1e-6 {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		mant, exp, _ := strings.Cut(s, "e")
		if exp[0] == '+' {
			return mant + "e+" + strings.TrimLeft(exp[1:], "0")
		}
		return mant + "e-" + strings.TrimLeft(exp[1:], "0")
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// multipartToQuery is warcio.js mfdToQueryParams: each part's name and the
// first line of its value.
func multipartToQuery(body, contentType string) string {
	_, boundary, ok := strings.Cut(contentType, "boundary=")
	if !ok {
		return ""
	}
	if i := strings.Index(boundary, "boundary="); i >= 0 {
		boundary = boundary[:i]
	}
	re, err := regexp.Compile("(?mi)-*" + regexp.QuoteMeta(boundary) + "-*")
	if err != nil {
		return ""
	}
	p := &searchParams{}
	for _, part := range re.Split(body, -1) {
		m := partRE.FindStringSubmatch(strings.TrimSpace(part))
		if m != nil {
			p.set(m[1], m[2])
		}
	}
	return p.String()
}

var partRE = regexp.MustCompile(`(?im)name="([^"]+)"\r\n\r\n([^\r\n\x{2028}\x{2029}]*)`)

// CDXJSpool puts the lines of a CDXJ index in index order (CompareCDXJ)
// with bounded memory. Its input is what an index walk in key order
// (warcio.Walk feeding a CDXJIndexer) yields: the main stream, lines
// sorted by urlkey and timestamp, kept in memory up to MemLimit, then in a
// temporary file; and the few "late" lines of POST captures whose urlkey
// (with the request body) is not their capture's key, merged in by
// CopyTo. Call Cleanup when done.
type CDXJSpool struct {
	TempDir  string // for the temporary file ("" = os.TempDir())
	MemLimit int    // bytes of main lines kept in memory (0: 16MiB)

	mem     bytes.Buffer
	f       *os.File
	fw      *bufio.Writer
	late    [][]byte
	run     [][]byte // main lines of one (urlkey, timestamp), not written yet
	undated [][]byte // main lines of the current urlkey without a date
	key     []byte   // the current urlkey
}

const spoolMem = 16 << 20

// maxUndated bounds the undated lines of one urlkey held back.
const maxUndated = 1 << 16

// Main takes the next line of the main stream. Lines come sorted by
// urlkey and timestamp; lines that share both are held and written in
// byte order (CompareCDXJ), whatever order the walk gave them in.
//
// The walk gives a key's records without a parseable date first; their
// timestamp "null" sorts after every date byte-wise, so they are held
// and written after the key's dated lines.
func (s *CDXJSpool) Main(line []byte) error {
	k, ts := keyTime(line)
	if s.key != nil && !bytes.Equal(k, s.key) {
		if err := s.flushKey(); err != nil {
			return err
		}
	}
	if s.key == nil {
		s.key = slices.Clone(k)
	}
	if string(ts) == "null" {
		s.undated = append(s.undated, slices.Clone(line))
		if len(s.undated) >= maxUndated {
			// A hostile dump: memory stays bounded, the key's order is
			// then walk order, not byte order.
			if err := s.flushRun(s.undated); err != nil {
				return err
			}
			s.undated = s.undated[:0]
		}
		return nil
	}
	if len(s.run) > 0 && !sameKeyTime(s.run[0], line) {
		if err := s.flushRun(s.run); err != nil {
			return err
		}
		s.run = s.run[:0]
	}
	s.run = append(s.run, slices.Clone(line))
	return nil
}

// flushKey writes what is held of the current key.
func (s *CDXJSpool) flushKey() error {
	if err := s.flushRun(s.run); err != nil {
		return err
	}
	if err := s.flushRun(s.undated); err != nil {
		return err
	}
	s.run, s.undated, s.key = s.run[:0], s.undated[:0], nil
	return nil
}

func (s *CDXJSpool) flushRun(run [][]byte) error {
	slices.SortFunc(run, bytes.Compare)
	for _, l := range run {
		if err := s.writeSorted(l); err != nil {
			return err
		}
	}
	return nil
}

func keyTime(l []byte) (key, ts []byte) {
	key, rest, _ := bytes.Cut(l, []byte{' '})
	ts, _, _ = bytes.Cut(rest, []byte{' '})
	return key, ts
}

// sameKeyTime reports whether two CDXJ lines share urlkey and timestamp.
func sameKeyTime(a, b []byte) bool {
	ka, ta := keyTime(a)
	kb, tb := keyTime(b)
	return bytes.Equal(ka, kb) && bytes.Equal(ta, tb)
}

func (s *CDXJSpool) writeSorted(line []byte) error {
	if s.f == nil {
		s.mem.Write(line)
		limit := s.MemLimit
		if limit == 0 {
			limit = spoolMem
		}
		if s.mem.Len() < limit {
			return nil
		}
		f, err := os.CreateTemp(s.TempDir, "blockwarc-index-*.cdxj")
		if err != nil {
			return fmt.Errorf("create temp file: %w", err)
		}
		s.f, s.fw = f, bufio.NewWriterSize(f, 256<<10)
		_, err = s.fw.Write(s.mem.Bytes())
		s.mem = bytes.Buffer{}
		return err
	}
	_, err := s.fw.Write(line)
	return err
}

// Late takes a line that belongs elsewhere than the main stream's place:
// it is sorted in by CopyTo.
func (s *CDXJSpool) Late(line []byte) { s.late = append(s.late, slices.Clone(line)) }

// CopyTo writes the main lines merged with the sorted late lines to w.
func (s *CDXJSpool) CopyTo(w *bufio.Writer) error {
	if err := s.flushKey(); err != nil {
		return err
	}
	var src *bufio.Reader
	if s.f != nil {
		if err := s.fw.Flush(); err != nil {
			return fmt.Errorf("write temp file: %w", err)
		}
		if _, err := s.f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("read temp file: %w", err)
		}
		src = bufio.NewReaderSize(s.f, 256<<10)
	} else {
		src = bufio.NewReaderSize(&s.mem, 256<<10)
	}
	slices.SortStableFunc(s.late, CompareCDXJ)
	late := s.late
	for {
		line, err := src.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: assemble it.
			full := slices.Clone(line)
			for err == bufio.ErrBufferFull {
				line, err = src.ReadSlice('\n')
				full = append(full, line...)
			}
			line = full
		}
		if len(line) > 0 {
			for len(late) > 0 && CompareCDXJ(late[0], line) < 0 {
				if _, err := w.Write(late[0]); err != nil {
					return fmt.Errorf("write index: %w", err)
				}
				late = late[1:]
			}
			if _, err := w.Write(line); err != nil {
				return fmt.Errorf("write index: %w", err)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("read temp file: %w", err)
		}
	}
	for _, l := range late {
		if _, err := w.Write(l); err != nil {
			return fmt.Errorf("write index: %w", err)
		}
	}
	return nil
}

// CompareCDXJ orders lines by urlkey, then timestamp, then the whole
// line byte by byte: lines of equal key and time (a response and its
// request) come in the order `LC_ALL=C sort` gives them, so an index can
// be merged with others by `sort -m`.
func CompareCDXJ(a, b []byte) int {
	ka, ra, _ := bytes.Cut(a, []byte{' '})
	kb, rb, _ := bytes.Cut(b, []byte{' '})
	if c := bytes.Compare(ka, kb); c != 0 {
		return c
	}
	ta, _, _ := bytes.Cut(ra, []byte{' '})
	tb, _, _ := bytes.Cut(rb, []byte{' '})
	if c := bytes.Compare(ta, tb); c != 0 {
		return c
	}
	return bytes.Compare(a, b)
}

// Cleanup removes the temporary file, if any.
func (s *CDXJSpool) Cleanup() {
	if s.f != nil {
		s.f.Close()
		os.Remove(s.f.Name())
	}
}

// IndexCDXJ writes the CDXJ index of inputs to w, sorted by urlkey and
// timestamp: warcio.Walk with opts (Keep set to CDXJKeep) feeding a
// CDXJIndexer through a CDXJSpool in opts.TempDir. each, when set, sees
// every entry as it is indexed (walk order, before sorting). It is the
// index of blockwarc index and of export-wacz.
func IndexCDXJ(ctx context.Context, inputs []string, opts warcio.WalkOptions, w io.Writer, each func(*CDXJEntry) error) (warcio.WalkStats, error) {
	opts.Keep = CDXJKeep
	sp := &CDXJSpool{TempDir: opts.TempDir}
	defer sp.Cleanup()
	var line []byte
	var curKey string
	ix := NewCDXJIndexer(func(e *CDXJEntry) error {
		if each != nil {
			if err := each(e); err != nil {
				return err
			}
		}
		line = e.AppendTo(line[:0])
		if e.URLKey == curKey {
			return sp.Main(line)
		}
		sp.Late(line)
		return nil
	})
	st, err := warcio.Walk(ctx, inputs, opts, func(c *warcio.Capture) error {
		if c.Key != curKey {
			if err := ix.Flush(); err != nil {
				return err
			}
			curKey = c.Key
		}
		return ix.Add(c)
	})
	if err == nil {
		err = ix.Flush()
	}
	if err != nil {
		return st, err
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	if err := sp.CopyTo(bw); err != nil {
		return st, err
	}
	if err := bw.Flush(); err != nil {
		return st, fmt.Errorf("write index: %w", err)
	}
	return st, nil
}
