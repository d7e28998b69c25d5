package export

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/blockwarc/blockwarc/warcio"
)

// The CDXJ index, one job a file: this file holds the line (its
// encoding and order) and IndexCDXJ, which runs the rest: the indexer in
// cdxjindexer.go, the warcio.js-compatible query of POST and PUT requests
// in cdxjpost.go, the sort spool in cdxjspool.go.

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

// IndexCDXJ writes the CDXJ index of inputs to w, sorted by urlkey and
// timestamp: warcio.Walk with opts (Keep set to CDXJKeep, and the blocks
// summarized by the walk's workers, Summarize) feeding a CDXJIndexer,
// which takes the urlkeys of most entries from the walk's keys,
// through a CDXJSpool in opts.TempDir. each, when set, sees every entry
// as it is indexed (walk order, before sorting). It is the index of
// blockwarc index and of export-wacz.
func IndexCDXJ(ctx context.Context, inputs []string, opts warcio.WalkOptions, w io.Writer, each func(*CDXJEntry) error) (warcio.WalkStats, error) {
	return indexCDXJ(ctx, inputs, opts, w, each, true)
}

// indexCDXJ is IndexCDXJ; with fast false, every capture is summarized
// and its urlkey computed in the walk's callback, one at a time, as a
// CDXJIndexer of any captures does (tests compare).
func indexCDXJ(ctx context.Context, inputs []string, opts warcio.WalkOptions, w io.Writer, each func(*CDXJEntry) error, fast bool) (warcio.WalkStats, error) {
	opts.Keep = CDXJKeep
	opts.Summarize = nil
	if fast {
		opts.Summarize = cdxjSummarize() // the blocks are read on all workers
	}
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
	ix.walkKeys = fast
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
