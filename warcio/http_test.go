package warcio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/klauspost/compress/gzip"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/partition"
)

// httpSample is one record block of an interop sample, split out by the
// test-only splitter below so these tests do not depend on Reader.
type httpSample struct {
	file, typ, uri string
	block          []byte
}

// httpSampleBlocks reads a whole WARC (gunzipping it whole when it starts
// with the gzip magic) and splits it into record blocks by Content-Length.
// It is deliberately naive: version line, fields up to a blank line (any
// line ending), Content-Length bytes, then skip line ends.
func httpSampleBlocks(t testing.TB, name string) []httpSample {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(sharedtest.Interop(t), name))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatalf("%s: gunzip: %v", name, err)
		}
	}
	var out []httpSample
	br := bufio.NewReader(bytes.NewReader(data))
	pos := 0
	for {
		// skip blank lines between records
		for {
			b, err := br.Peek(1)
			if err != nil || (b[0] != '\r' && b[0] != '\n') {
				break
			}
			br.Discard(1)
			pos++
		}
		line, err := br.ReadString('\n')
		pos += len(line)
		if err == io.EOF && line == "" {
			return out
		}
		if !strings.HasPrefix(line, "WARC/") {
			t.Fatalf("%s: no WARC version line at %d: %q", name, pos-len(line), line)
		}
		s := httpSample{file: name}
		length := -1
		for {
			l, err := br.ReadString('\n')
			pos += len(l)
			if err != nil {
				t.Fatalf("%s: header ends early at %d", name, pos)
			}
			l = strings.TrimRight(l, "\r\n")
			if l == "" {
				break
			}
			k, v, _ := strings.Cut(l, ":")
			v = strings.TrimSpace(v)
			switch strings.ToLower(k) {
			case "content-length":
				length, _ = strconv.Atoi(v)
			case "warc-type":
				s.typ = v
			case "warc-target-uri":
				s.uri = strings.Trim(v, "<>")
			}
		}
		if length < 0 {
			t.Fatalf("%s: record without Content-Length before %d", name, pos)
		}
		s.block = make([]byte, length)
		if _, err := io.ReadFull(br, s.block); err != nil {
			t.Fatalf("%s: block at %d: %v", name, pos, err)
		}
		pos += length
		out = append(out, s)
	}
}

// httpSampleMessages returns the blocks of name that hold HTTP messages
// (request, response and revisit records of http(s) URLs with a
// non-empty block).
func httpSampleMessages(t testing.TB, name string) []httpSample {
	var out []httpSample
	for _, s := range httpSampleBlocks(t, name) {
		switch s.typ {
		case "request", "response", "revisit":
		default:
			continue
		}
		if len(s.block) > 0 && strings.HasPrefix(s.uri, "http") {
			out = append(out, s)
		}
	}
	return out
}

// httpSampleFiles are the samples whose HTTP blocks every test walks.
var httpSampleFiles = []string{
	"warcio--example-iana.org-chunked.warc",
	"pywb--iana.warc.gz",
	"warcat--at.warc.gz",
	"iagowarc--test.warc.gz",
	"wac--IAH-urls-wget.warc.gz",
	"warcio--example.warc",
	"pywacz--example-collection-with-lists.warc",
	"warciojs--post-test-more.warc",
	"warcat--not_utf8_http_header.warc",
	"wac--mutliple-headers.warc",
	"pywb--missing-status-text.warc",
	"warcat--bad_http_chunked_content.warc",
	"resiliparse--warcfile.warc.gz",
	"resiliparse--clueweb-quirk.warc.gz",
	"aut--example.warc.gz",
	"nodewarc--books.toscrape.warc",
	"pywb--dupes.warc.gz",
	"warcio--post-test.warc.gz",
	"jwarc--cc.warc.gz",
}

// httpNoBlankLine lists samples with blocks holding an HTTP header
// without its final blank line, and how they end.
var httpNoBlankLine = map[string]string{
	"pywb--iana.warc.gz":             "no blank line",
	"pywb--dupes.warc.gz":            "no blank line",
	"pywb--missing-status-text.warc": "cut inside the last field", // WARC Content-Length 4 bytes short
}

// httpLengthQuirk is how many bytes the stored entities of a sample have
// beyond their HTTP Content-Length: node-warc wrote the record's CRLF
// inside the block, and so did the ClueWeb09 writer.
var httpLengthQuirk = map[string]int64{"nodewarc--books.toscrape.warc": 2, "resiliparse--clueweb-quirk.warc.gz": 2}

// TestReadHTTPSamples parses every HTTP block of the samples and checks
// that Raw plus the payload is the block byte for byte, and that the
// fields rebuild Raw.
func TestReadHTTPSamples(t *testing.T) {
	total := 0
	for _, name := range httpSampleFiles {
		t.Run(name, func(t *testing.T) {
			msgs := httpSampleMessages(t, name)
			if len(msgs) == 0 {
				t.Fatal("no HTTP blocks found")
			}
			noBlank := 0
			defer func() {
				if httpNoBlankLine[name] != "" && noBlank == 0 {
					t.Error("no header without blank line found")
				}
			}()
			for i, s := range msgs {
				m, err := ReadHTTP(bytes.NewReader(s.block), 0)
				if err != nil {
					t.Fatalf("block %d (%s %s): %v", i, s.typ, s.uri, err)
				}
				total++
				if m.Request != (s.typ == "request") {
					t.Errorf("block %d (%s): Request = %v", i, s.typ, m.Request)
				}
				rest, err := io.ReadAll(m.Payload)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(append(append([]byte(nil), m.Raw...), rest...), s.block) {
					t.Fatalf("block %d: Raw+payload differs from the block", i)
				}
				checkFieldsRebuildRaw(t, m)
				// pywb's request and revisit blocks end after the last
				// field's CRLF, without the blank line: reported as
				// Truncated, never inside a line.
				if m.Truncated {
					noBlank++
					cut := httpNoBlankLine[name]
					if cut == "" || (cut == "no blank line" && !bytes.HasSuffix(s.block, []byte("\r\n"))) || len(rest) != 0 {
						t.Errorf("block %d (%s %s): Truncated", i, s.typ, s.uri)
					}
				}
				if !m.Request && (m.StatusCode < 100 || m.StatusCode > 599) {
					t.Errorf("block %d: status %d", i, m.StatusCode)
				}
				// A declared Content-Length, when there is no transfer coding,
				// must match the stored entity in these well-formed samples
				// (revisits store no payload).
				if n, ok := m.ContentLength(); ok && !m.Chunked() && s.typ == "response" {
					if want := n + httpLengthQuirk[name]; int64(len(rest)) != want {
						t.Errorf("block %d (%s): Content-Length %d, entity %d bytes", i, s.uri, n, len(rest))
					}
				}
			}
		})
	}
	t.Logf("%d HTTP blocks parsed", total)
}

// checkFieldsRebuildRaw asserts start line + every Field.Raw + blank line
// == Raw: nothing of the stored header is lost in the fields.
func checkFieldsRebuildRaw(t testing.TB, m *HTTPMessage) {
	t.Helper()
	nl := bytes.IndexByte(m.Raw, '\n')
	if nl < 0 {
		if len(m.Header) != 0 || !m.Truncated {
			t.Fatalf("Raw without line end %q", m.Raw)
		}
		return
	}
	var b []byte
	b = append(b, m.Raw[:nl+1]...)
	for _, f := range m.Header {
		b = append(b, f.Raw...)
	}
	if !bytes.HasPrefix(m.Raw, b) {
		t.Fatalf("fields do not rebuild Raw:\n got %q\nwant %q", b, m.Raw)
	}
	tail := m.Raw[len(b):]
	if m.Truncated {
		if len(tail) != 0 {
			t.Fatalf("truncated header leaves %q outside fields", tail)
		}
	} else if len(httpTrimEOL(tail)) != 0 || !bytes.HasSuffix(tail, []byte("\n")) {
		t.Fatalf("after the fields: %q, want the blank line", tail)
	}
}

// TestReadHTTPOddities checks the specific oddities the samples are
// known for, by value.
func TestReadHTTPOddities(t *testing.T) {
	// first takes the subtest's t: the sample is read through
	// sharedtest.Interop, which skips (or, under CI=true, fails) the test
	// it is given when ../shared is missing, and a subtest must not end
	// its parent.
	first := func(t testing.TB, name, typ string) *HTTPMessage {
		t.Helper()
		for _, s := range httpSampleMessages(t, name) {
			if s.typ == typ {
				m, err := ReadHTTP(bytes.NewReader(s.block), 0)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return m
			}
		}
		t.Fatalf("%s: no %s record", name, typ)
		return nil
	}
	t.Run("CR CR LF, no reason phrase", func(t *testing.T) {
		m := first(t, "pywb--missing-status-text.warc", "response")
		if m.Proto != "HTTP/1.0" || m.StatusCode != 302 || m.Reason != "" {
			t.Errorf("status line = %q %d %q", m.Proto, m.StatusCode, m.Reason)
		}
		if got := m.Header.Get("Location"); got != "http://www.iana.org/badst" {
			t.Errorf("Location = %q", got)
		}
		if !bytes.HasSuffix(m.Header[0].Raw, []byte("\r\r\n")) {
			t.Errorf("field Raw lost its CR CR LF: %q", m.Header[0].Raw)
		}
	})
	t.Run("HTTPX/1.1 status line", func(t *testing.T) {
		for _, c := range []struct {
			line   string
			status int
			req    bool
		}{
			{"HTTPX/1.1 200 OK", 200, false}, // pywb's sample: every reader takes it as a status line
			{"http/1.0 404 Not Found", 404, false},
			{"HTTP/1.1 301", 301, false},
			{"HTTPS /x HTTP/1.1", 0, true},  // a method named HTTPS: a request
			{"HTTP2/x 200 OK", 0, false},    // no version: neither
			{"HTTP-X/1.1 200 OK", 0, false}, // not letters: neither
		} {
			m, err := ReadHTTP(strings.NewReader(c.line+"\r\nContent-Type: text/html\r\n\r\n"), 0)
			switch {
			case c.status == 0 && !c.req:
				if err == nil && !m.Request && m.StatusCode != 0 {
					t.Errorf("%q read as status %d", c.line, m.StatusCode)
				}
			case c.req:
				if err != nil || !m.Request {
					t.Errorf("%q: %+v, %v; want a request", c.line, m, err)
				}
			default:
				if err != nil || m.StatusCode != c.status || m.MediaType() != "text/html" {
					t.Errorf("%q: %+v, %v", c.line, m, err)
				}
			}
		}
	})
	t.Run("HTTP/2 rewritten, lower-case names", func(t *testing.T) {
		m := first(t, "wac--mutliple-headers.warc", "response")
		if m.Proto != "HTTP/1.1" || m.StatusCode != 200 || m.Reason != "" {
			t.Errorf("status line = %q %d %q", m.Proto, m.StatusCode, m.Reason)
		}
		if m.ContentType() != "text/html; charset=UTF-8" || m.MediaType() != "text/html" {
			t.Errorf("content type %q / %q", m.ContentType(), m.MediaType())
		}
		if got := m.Header.Values("x-powered-by"); len(got) != 2 {
			t.Errorf("repeated field: %q", got)
		}
		if n, ok := m.ContentLength(); !ok || n != 108 {
			t.Errorf("ContentLength = %d %v", n, ok)
		}
	})
	t.Run("non-UTF-8 header bytes kept", func(t *testing.T) {
		m := first(t, "warcat--not_utf8_http_header.warc", "response")
		if got := m.Header.Get("X-Somthing"); got != "\xff\xff\xff" {
			t.Errorf("value = %q", got)
		}
	})
	t.Run("chunked request", func(t *testing.T) {
		for _, s := range httpSampleMessages(t, "warciojs--post-test-more.warc") {
			m, err := ReadHTTP(bytes.NewReader(s.block), 0)
			if err != nil {
				t.Fatal(err)
			}
			if m.Request && m.Chunked() {
				if m.Method != "POST" || m.Proto != "HTTP/1.1" || m.RequestURI == "" {
					t.Errorf("request line %q %q %q", m.Method, m.RequestURI, m.Proto)
				}
				return
			}
		}
		t.Error("no chunked request found")
	})
	t.Run("codings", func(t *testing.T) {
		m, err := ReadHTTP(strings.NewReader("HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nTransfer-Encoding: GZIP, chunked\r\n"+
			"Content-Encoding: identity ,\r\n\r\n"), 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(m.Codings(), ","); got != "br,identity,gzip" || !m.Chunked() {
			t.Errorf("Codings = %q, Chunked %v", got, m.Chunked())
		}
	})
	t.Run("gzip content encoding", func(t *testing.T) {
		m := first(t, "warcio--example.warc", "response")
		if ce := m.ContentEncodings(); len(ce) != 1 || ce[0] != "gzip" {
			t.Errorf("ContentEncodings = %q", ce)
		}
	})
}

func TestReadHTTPSynthetic(t *testing.T) {
	for _, tc := range []struct {
		name, in   string
		err        error
		code       int
		reason     string
		method     string
		uri        string
		fields     int
		truncated  bool
		payload    string
		foldedName string
		foldedVal  string
	}{
		{name: "LF only", in: "HTTP/1.1 404 Not Found\nA: b\n\nbody", code: 404, reason: "Not Found", fields: 1, payload: "body"},
		{name: "obs-fold", in: "HTTP/1.0 200 OK\r\nX-Long: one\r\n  two\r\n\tthree\r\nB: c\r\n\r\n", code: 200, reason: "OK", fields: 2,
			foldedName: "X-Long", foldedVal: "one two three"},
		{name: "no reason, no space", in: "HTTP/1.1 204\r\n\r\n", code: 204},
		{name: "lower-case proto", in: "http/1.1 200 OK\r\n\r\nx", code: 200, reason: "OK", payload: "x"},
		{name: "line without colon kept", in: "HTTP/1.1 200 OK\r\ngarbage line\r\nA: b\r\n\r\n", code: 200, reason: "OK", fields: 2},
		{name: "request with space in URI", in: "GET /a b HTTP/1.0\r\nHost: x\r\n\r\n", method: "GET", uri: "/a b", fields: 1},
		{name: "header cut short", in: "HTTP/1.1 200 OK\r\nA: b\r\nC: d", code: 200, reason: "OK", fields: 2, truncated: true},
		{name: "only start line", in: "HTTP/1.1 200 OK", code: 200, reason: "OK", truncated: true},
		{name: "empty", in: "", err: ErrEmptyHTTP},
		{name: "HTTP/0.9 body", in: "<html><body>hi</body></html>\n", err: ErrNotHTTP},
		{name: "HTTP/0.9 request", in: "GET /\r\n\r\n", err: ErrNotHTTP},
		{name: "binary", in: "\x1f\x8b\x08\x00\x00\n\x00", err: ErrNotHTTP},
		{name: "bad status", in: "HTTP/1.1 2x0 OK\r\n\r\n", err: ErrNotHTTP},
		{name: "status glued", in: "HTTP/1.1 200OK\r\n\r\n", err: ErrNotHTTP},
		{name: "bad version", in: "HTTP/x 200 OK\r\n\r\n", err: ErrNotHTTP},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ReadHTTP(iotest.OneByteReader(strings.NewReader(tc.in)), 0)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				var he *HTTPError
				if !errors.As(err, &he) || he.Input == nil {
					t.Fatalf("error %T without Input", err)
				}
				all, _ := io.ReadAll(he.Input)
				if string(all) != tc.in {
					t.Errorf("Input replays %q, want %q", all, tc.in)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.StatusCode != tc.code || m.Reason != tc.reason || m.Method != tc.method || m.RequestURI != tc.uri {
				t.Errorf("got %d %q %q %q", m.StatusCode, m.Reason, m.Method, m.RequestURI)
			}
			if len(m.Header) != tc.fields || m.Truncated != tc.truncated {
				t.Errorf("fields %d truncated %v: %+v", len(m.Header), m.Truncated, m.Header)
			}
			if tc.foldedName != "" && m.Header.Get(tc.foldedName) != tc.foldedVal {
				t.Errorf("folded value %q", m.Header.Get(tc.foldedName))
			}
			p, _ := io.ReadAll(m.Payload)
			if string(p) != tc.payload || string(m.Raw)+string(p) != tc.in {
				t.Errorf("payload %q raw %q", p, m.Raw)
			}
			checkFieldsRebuildRaw(t, m)
		})
	}
}

// TestReadHTTPBounded feeds an endless header: ReadHTTP must stop at the
// limit with ErrHTTPHeaderTooLarge, having read about that much.
func TestReadHTTPBounded(t *testing.T) {
	endless := &httpCountReader{r: io.MultiReader(strings.NewReader("HTTP/1.1 200 OK\r\n"), httpRepeatReader("X: y\r\n"))}
	_, err := ReadHTTP(endless, 64<<10)
	if !errors.Is(err, ErrHTTPHeaderTooLarge) {
		t.Fatalf("err = %v", err)
	}
	if endless.n > 64<<10+8192 {
		t.Errorf("read %d bytes for a 64 KiB limit", endless.n)
	}
	// A finite header just over the limit: the error replays it all.
	big := "HTTP/1.1 200 OK\r\n" + strings.Repeat("X-Pad: 0123456789\r\n", 500) + "\r\nbody"
	_, err = ReadHTTP(strings.NewReader(big), 4000)
	var he *HTTPError
	if !errors.As(err, &he) || !errors.Is(err, ErrHTTPHeaderTooLarge) {
		t.Fatalf("finite: err = %v", err)
	}
	if all, _ := io.ReadAll(he.Input); string(all) != big {
		t.Errorf("Input replays %d bytes of %d", len(all), len(big))
	}
	// One endless line, no LF at all.
	endless = &httpCountReader{r: httpRepeatReader("HTTP")}
	if _, err := ReadHTTP(endless, 0); !errors.Is(err, ErrHTTPHeaderTooLarge) {
		t.Fatalf("endless line: err = %v", err)
	}
	if endless.n > DefaultMaxHTTPHeader+8192 {
		t.Errorf("read %d bytes for the default limit", endless.n)
	}
}

type httpCountReader struct {
	r io.Reader
	n int64
}

func (c *httpCountReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// httpRepeatReader yields s forever.
func httpRepeatReader(s string) io.Reader { return &httpRepeater{s: s} }

type httpRepeater struct {
	s string
	i int
}

func (r *httpRepeater) Read(p []byte) (int, error) {
	for n := range p {
		p[n] = r.s[r.i]
		r.i = (r.i + 1) % len(r.s)
	}
	return len(p), nil
}

func TestRecordHTTP(t *testing.T) {
	block := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello"
	rec := &Record{File: "f.warc", Offset: 42, Format: FormatWARC, Type: "response", TargetURI: "http://x/",
		Header: Header{{Name: "Content-Type", Value: "application/http; msgtype=response"}},
		Body:   strings.NewReader(block)}
	m, err := rec.HTTP()
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := io.ReadAll(m.Payload); string(p) != "hello" {
		t.Errorf("payload %q", p)
	}
	rec = &Record{File: "f.warc", Offset: 7, Format: FormatWARC, Type: "resource", TargetURI: "http://x/",
		Header: Header{{Name: "Content-Type", Value: "text/html"}}, Body: strings.NewReader("<html>")}
	if _, err := rec.HTTP(); !errors.Is(err, ErrNotHTTP) {
		t.Errorf("resource record: err = %v", err)
	}
	rec = &Record{File: "f.warc", Offset: 99, Format: FormatWARC, Type: "response", TargetURI: "http://x/",
		Body: strings.NewReader("garbage\r\n")}
	_, err = rec.HTTP()
	var he *HTTPError
	if !errors.As(err, &he) || he.File != "f.warc" || he.Offset != 99 || !errors.Is(err, ErrNotHTTP) {
		t.Errorf("garbage block: err = %#v", err)
	}
	if !strings.Contains(err.Error(), "f.warc: record at 99") {
		t.Errorf("error text %q lacks file and offset", err)
	}
}

func FuzzReadHTTP(f *testing.F) {
	for _, block := range httpTestdata(f) {
		f.Add(block[:min(len(block), 1024)])
	}
	// the oddities of pywb--missing-status-text.warc, warcat--not_utf8_http_header.warc
	f.Add([]byte("HTTP/1.0 302 \r\r\nLocation: http://www.iana.org/badst\r\r\nContent-Length: 0\r\r\n\r\r\n"))
	f.Add([]byte("HTTP/1.0 200 OK\r\nServer: blah.com\r\nX-Somthing: \xff\xff\xff\r\n\r\na\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 200 OK\nA: b\n c\n\n"))
	f.Add([]byte("GET / HTTP/1.1\r\n\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		const limit = 512 // small, so the too-large path is fuzzed too
		m, err := ReadHTTP(bytes.NewReader(in), limit)
		if err != nil {
			var he *HTTPError
			if !errors.As(err, &he) || he.Input == nil {
				t.Fatalf("error %v is not an *HTTPError with Input", err)
			}
			all, _ := io.ReadAll(he.Input)
			if !bytes.Equal(all, in) {
				t.Fatal("HTTPError.Input does not replay the input")
			}
			return
		}
		if len(m.Raw) > limit || !bytes.HasPrefix(in, m.Raw) {
			t.Fatalf("Raw (%d bytes) is not a bounded prefix of the input", len(m.Raw))
		}
		rest, _ := io.ReadAll(m.Payload)
		if !bytes.Equal(append(append([]byte(nil), m.Raw...), rest...), in) {
			t.Fatal("Raw + payload != input")
		}
		checkFieldsRebuildRaw(t, m)
	})
}

// TestRecordHTTPReader reads samples with Reader and Record.HTTP and
// checks them against the naive splitter above: the same HTTP messages,
// byte for byte. ARC samples have no splitter: their http records must
// parse and rebuild their block.
func TestRecordHTTPReader(t *testing.T) {
	for _, name := range []string{"warcio--example.warc.gz", "pywb--iana.warc.gz", "warcat--at.warc.gz",
		"wac--mutliple-headers.warc", "warcio--example.arc", "aut--example.arc.gz"} {
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(filepath.Join(sharedtest.Interop(t), name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var want []httpSample
			if !strings.Contains(name, ".arc") {
				want = httpSampleMessages(t, name)
			}
			rd := NewReader(f, name)
			n := 0
			for {
				rec, err := rd.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("Next: %v", err)
				}
				m, err := rec.HTTP()
				if errors.Is(err, ErrNotHTTP) && (rec.Type == "warcinfo" || rec.Type == "metadata" || rec.Type == "resource" ||
					!strings.HasPrefix(rec.TargetURI, "http")) {
					continue
				}
				if errors.Is(err, ErrEmptyHTTP) && rec.ContentLen == 0 {
					continue
				}
				if err != nil {
					t.Fatalf("record at %d (%s %s): %v", rec.Offset, rec.Type, rec.TargetURI, err)
				}
				rest, err := io.ReadAll(m.Payload)
				if err != nil {
					t.Fatal(err)
				}
				block := append(append([]byte(nil), m.Raw...), rest...)
				if int64(len(block)) != rec.ContentLen {
					t.Errorf("record at %d: %d block bytes, Content-Length %d", rec.Offset, len(block), rec.ContentLen)
				}
				if want != nil {
					if n >= len(want) || !bytes.Equal(block, want[n].block) {
						t.Fatalf("record at %d (%s): differs from the splitter's message %d", rec.Offset, rec.TargetURI, n)
					}
				}
				n++
			}
			if n == 0 || (want != nil && n != len(want)) {
				t.Errorf("%d HTTP records, splitter found %d", n, len(want))
			}
		})
	}
}

// ExampleReadHTTP shows the three views of a stored HTTP payload: as stored, de-chunked
// (with what is needed to rebuild the stored bytes), and decoded for analysis.
func ExampleReadHTTP() {
	block, err := os.ReadFile("testdata/http/iagowarc--chunked-gzip-response.http")
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := ReadHTTP(bytes.NewReader(block), 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.StatusCode, m.MediaType(), m.Chunked(), m.Codings())

	stored, _ := io.ReadAll(m.Payload) // 1. as stored
	d := NewDechunker(bytes.NewReader(stored))
	entity, _ := io.ReadAll(d) // 2. de-chunked
	rebuilt, _ := Rebuild(entity, d.Framing())
	fmt.Println(d.Framing().Clean(), bytes.Equal(rebuilt, stored))

	c, _ := DecodeContent(bytes.NewReader(entity), m.Codings(), 0) // 3. decoded
	text, _ := io.ReadAll(c)
	name, certain := partition.DetectCharset(m.ContentType(), text)
	fmt.Println(c.Applied(), len(text) > len(entity), name, certain)
	// Output:
	// 200 text/javascript true [gzip]
	// true true
	// [gzip] true windows-1252 false
}

// TestHTTPReaderReuse reads blocks one after the other with one
// HTTPReader (so that whatever a call leaves in its buffers meets the
// next) and checks each result against ReadHTTP's: message, fields,
// payload bytes, or error and its Input; and the same for Record.
func TestHTTPReaderReuse(t *testing.T) {
	var blocks [][]byte
	for _, b := range httpTestdata(t) {
		blocks = append(blocks, b)
	}
	slices.SortFunc(blocks, bytes.Compare) // a fixed order
	blocks = append(blocks,
		[]byte("HTTP/1.0 302 \r\r\nLocation: http://www.iana.org/badst\r\r\nContent-Length: 0\r\r\n\r\r\n"),
		[]byte("HTTP/1.0 200 OK\r\nServer: blah.com\r\nX-Somthing: \xff\xff\xff\r\n\r\na\r\n\r\n"),
		[]byte("HTTP/1.1 200 OK\nA: b\n c\n\n"),
		[]byte("GET / HTTP/1.1\r\n\r\n"),
		[]byte("not http at all\r\n\r\n"),
		[]byte(""),
		[]byte("HTTP/1.1 200 OK\r\nX: "+strings.Repeat("y", 20<<10)+"\r\n\r\nbody"), // grows raw past what is kept
		[]byte("HTTP/1.1 404 Not Found\r\nA: b\r\n"),                                // truncated
	)
	describe := func(m *HTTPMessage, err error) string {
		if err != nil {
			var in []byte
			var he *HTTPError
			if errors.As(err, &he) && he.Input != nil {
				in, _ = io.ReadAll(he.Input)
			}
			return fmt.Sprintf("error %v, input %q", err, in)
		}
		payload, perr := io.ReadAll(m.Payload)
		return fmt.Sprintf("%q %v %q %d %q %q %q %q %v payload %q %v", m.Raw, m.Request, m.Proto, m.StatusCode, m.Reason,
			m.Method, m.RequestURI, m.Header, m.Truncated, payload, perr)
	}
	var hr HTTPReader
	for _, limit := range []int{0, 512} {
		for i, b := range blocks {
			want := describe(ReadHTTP(bytes.NewReader(b), limit))
			if got := describe(hr.Read(bytes.NewReader(b), limit)); got != want {
				t.Fatalf("limit %d, block %d: HTTPReader.Read gave\n%s\nReadHTTP\n%s", limit, i, got, want)
			}
		}
	}
	for i, b := range blocks {
		rec := &Record{Type: "response", TargetURI: "http://example.com/", File: "f", Offset: int64(i),
			Header: Header{{Name: "Content-Type", Value: "application/http; msgtype=response"}}}
		rec.Body = bytes.NewReader(b)
		want := describe(rec.HTTP())
		rec.Body = bytes.NewReader(b)
		if got := describe(hr.Record(rec)); got != want {
			t.Fatalf("block %d: HTTPReader.Record gave\n%s\nRecord.HTTP\n%s", i, got, want)
		}
	}
	if cap(hr.raw) > maxReusedHeader {
		t.Fatalf("the reader keeps a header buffer of %d bytes", cap(hr.raw))
	}
}
