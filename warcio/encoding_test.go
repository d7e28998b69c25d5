package warcio

import (
	"bytes"
	stdgzip "compress/gzip"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"golang.org/x/net/html/charset"

	"github.com/blockwarc/blockwarc/partition"
)

// httpEntity is a response entity of a sample: de-chunked when it was
// chunked, with its message.
type httpEntity struct {
	uri    string
	m      *HTTPMessage
	entity []byte
}

func httpSampleEntities(t testing.TB, name string) []httpEntity {
	t.Helper()
	var out []httpEntity
	for _, s := range httpSampleMessages(t, name) {
		if s.typ != "response" {
			continue
		}
		m, err := ReadHTTP(bytes.NewReader(s.block), 0)
		if err != nil {
			t.Fatalf("%s %s: %v", name, s.uri, err)
		}
		var r io.Reader = m.Payload
		if m.Chunked() {
			r = NewDechunker(r)
		}
		e, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, httpEntity{uri: s.uri, m: m, entity: e})
	}
	return out
}

// TestDecodeContentSamples decodes every content-encoded entity of the
// samples. gzip output is checked against compress/gzip of the standard
// library; brotli output, having no second decoder to compare with, must
// be well-formed text of the declared type. ClueWeb09's entities are
// labelled gzip but stored decoded: they must pass through, reported.
func TestDecodeContentSamples(t *testing.T) {
	for _, tc := range []struct {
		name             string
		applied, skipped int // entities expected with a layer undone / passed through
	}{
		{"warcio--example.warc", 1, 0},
		{"pywb--example2.warc.gz", 1, 0},
		{"iagowarc--test.warc.gz", 1, 0},
		{"aut--issue-493.warc", 4, 0},
		{"pywacz--example-collection-with-lists.warc", 12, 0},
		{"resiliparse--clueweb-quirk.warc.gz", 0, 29},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var applied, skipped int
			for _, e := range httpSampleEntities(t, tc.name) {
				codings := e.m.ContentEncodings()
				if len(codings) == 0 {
					continue
				}
				c, err := DecodeContent(bytes.NewReader(e.entity), codings, 64<<20)
				if err != nil {
					t.Fatalf("%s: %v", e.uri, err)
				}
				out, err := io.ReadAll(c)
				if err != nil {
					t.Fatalf("%s: read: %v", e.uri, err)
				}
				if c.N() != int64(len(out)) {
					t.Errorf("%s: N = %d, read %d", e.uri, c.N(), len(out))
				}
				if len(c.Skipped()) > 0 {
					skipped++
					if !bytes.Equal(out, e.entity) {
						t.Errorf("%s: skipped layer changed the bytes", e.uri)
					}
					continue
				}
				applied++
				if len(c.Applied()) != len(codings) || len(out) == 0 {
					t.Errorf("%s: applied %q of %q, %d bytes", e.uri, c.Applied(), codings, len(out))
				}
				switch codings[len(codings)-1] {
				case "gzip", "x-gzip":
					zr, err := stdgzip.NewReader(bytes.NewReader(e.entity))
					if err != nil {
						t.Fatalf("%s: oracle: %v", e.uri, err)
					}
					want, err := io.ReadAll(zr)
					if err != nil || !bytes.Equal(out, want) {
						t.Errorf("%s: differs from compress/gzip (%v)", e.uri, err)
					}
				case "br":
					mt := e.m.MediaType()
					textual := strings.HasPrefix(mt, "text/") || strings.Contains(mt, "javascript") || strings.Contains(mt, "json")
					if textual && !utf8.Valid(out) {
						t.Errorf("%s: %s decoded to invalid UTF-8", e.uri, mt)
					}
					if mt == "text/html" && !bytes.Contains(bytes.ToLower(out), []byte("<html")) {
						t.Errorf("%s: decoded HTML has no <html", e.uri)
					}
				}
			}
			if applied != tc.applied || skipped != tc.skipped {
				t.Errorf("decoded %d, passed through %d; want %d, %d", applied, skipped, tc.applied, tc.skipped)
			}
		})
	}
}

// gzipBomb returns a gzip of n copies of one gzip member of 16 MiB of
// zeros: about 90 KB that decode to 10 GiB with n = 640 under
// Content-Encoding "gzip, gzip".
func gzipBomb(t testing.TB, n int) []byte {
	var member bytes.Buffer
	zw := gzip.NewWriter(&member)
	zeros := make([]byte, 1<<20)
	for range 16 {
		zw.Write(zeros)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	var outer bytes.Buffer
	zw = gzip.NewWriter(&outer)
	for range n {
		zw.Write(member.Bytes())
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return outer.Bytes()
}

// TestDecodeContentBomb decodes a real 10 GiB bomb with a 32 MiB limit: it
// must stop there with ErrDecodedTooLarge, quickly.
func TestDecodeContentBomb(t *testing.T) {
	bomb := gzipBomb(t, 640)
	if len(bomb) > 1<<20 {
		t.Fatalf("bomb is %d bytes", len(bomb))
	}
	const limit = 32 << 20
	start := time.Now()
	c, err := DecodeContent(bytes.NewReader(bomb), []string{"gzip", "gzip"}, limit)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, c)
	if !errors.Is(err, ErrDecodedTooLarge) || n != limit || c.N() != limit {
		t.Fatalf("copied %d, err %v", n, err)
	}
	if _, err := c.Read(make([]byte, 10)); !errors.Is(err, ErrDecodedTooLarge) {
		t.Errorf("error not sticky: %v", err)
	}
	t.Logf("%d-byte bomb stopped at %d bytes in %v", len(bomb), n, time.Since(start))
}

func TestDecodeContentSynthetic(t *testing.T) {
	page := []byte(strings.Repeat("<p>Hello, archive!</p>\n", 200))
	enc := func(coding string, in []byte) []byte {
		var b bytes.Buffer
		var w io.WriteCloser
		switch coding {
		case "gzip":
			w = gzip.NewWriter(&b)
		case "zlib":
			w = zlib.NewWriter(&b)
		case "raw":
			w, _ = flate.NewWriter(&b, 5)
		case "br":
			w = brotli.NewWriter(&b)
		case "zstd":
			w, _ = zstd.NewWriter(&b)
		}
		w.Write(in)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	twoMembers := append(enc("gzip", page[:100]), enc("gzip", page[100:])...)
	truncGzip := enc("gzip", page)
	truncGzip = truncGzip[:len(truncGzip)/2]
	for _, tc := range []struct {
		name     string
		in       []byte
		codings  []string
		limit    int64
		want     []byte
		skipped  []string
		err      error // from Read
		errEarly error // from DecodeContent
	}{
		{name: "gzip", in: enc("gzip", page), codings: []string{"gzip"}, want: page},
		{name: "x-gzip", in: enc("gzip", page), codings: []string{"x-gzip"}, want: page},
		{name: "deflate zlib-wrapped", in: enc("zlib", page), codings: []string{"deflate"}, want: page},
		{name: "deflate raw", in: enc("raw", page), codings: []string{"deflate"}, want: page},
		{name: "br", in: enc("br", page), codings: []string{"br"}, want: page},
		{name: "zstd", in: enc("zstd", page), codings: []string{"zstd"}, want: page},
		{name: "stacked gzip then br", in: enc("br", enc("gzip", page)), codings: []string{"gzip", "br"}, want: page},
		{name: "identity", in: page, codings: []string{"identity"}, want: page},
		{name: "two gzip members", in: twoMembers, codings: []string{"gzip"}, want: page},
		{name: "gzip with trailing junk", in: append(enc("gzip", page), "\r\n\r\n"...), codings: []string{"gzip"}, want: page},
		{name: "labelled gzip, stored plain", in: page, codings: []string{"gzip"}, want: page, skipped: []string{"gzip"}},
		{name: "labelled br, stored plain", in: page, codings: []string{"br"}, want: page, skipped: []string{"br"}},
		{name: "labelled deflate, stored plain", in: page, codings: []string{"deflate"}, want: page, skipped: []string{"deflate"}},
		{name: "empty gzip entity", in: nil, codings: []string{"gzip"}, want: nil, skipped: []string{"gzip"}},
		{name: "exactly at limit", in: enc("gzip", page), codings: []string{"gzip"}, limit: int64(len(page)), want: page},
		{name: "one over limit", in: enc("gzip", page), codings: []string{"gzip"}, limit: int64(len(page)) - 1,
			want: page[:len(page)-1], err: ErrDecodedTooLarge},
		{name: "truncated gzip", in: truncGzip, codings: []string{"gzip"}, err: io.ErrUnexpectedEOF},
		{name: "unknown coding", in: page, codings: []string{"compress"}, errEarly: ErrUnknownEncoding},
	} {
		t.Run(tc.name, func(t *testing.T) {
			limit := tc.limit
			if limit == 0 {
				limit = 1 << 20
			}
			c, err := DecodeContent(bytes.NewReader(tc.in), tc.codings, limit)
			if tc.errEarly != nil || err != nil {
				if !errors.Is(err, tc.errEarly) {
					t.Fatalf("DecodeContent err = %v, want %v", err, tc.errEarly)
				}
				return
			}
			out, err := io.ReadAll(c)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				if tc.want == nil {
					return
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, tc.want) {
				t.Errorf("out %d bytes, want %d", len(out), len(tc.want))
			}
			if strings.Join(c.Skipped(), ",") != strings.Join(tc.skipped, ",") {
				t.Errorf("skipped %q, want %q", c.Skipped(), tc.skipped)
			}
		})
	}
}

// TestDetectCharsetSamples names the charset of real non-UTF-8 pages and
// checks the name by decoding the whole page with it: a page read with
// its detected charset has no invalid sequences, and the same page read
// as UTF-8 has many (so the check can fail).
func TestDetectCharsetSamples(t *testing.T) {
	for _, tc := range []struct {
		sample, uri string
		want        string
		certain     bool
		nonUTF8     bool // the page has bytes that are not UTF-8
	}{
		{"resiliparse--warcfile.warc.gz", "http://01spb.ru/company/", "windows-1251", true, true},
		{"resiliparse--warcfile.warc.gz", "http://037426.cn/", "gbk", true, true}, // header says gb2312
		{"resiliparse--warcfile.warc.gz", "http://041696.com/15477/list_6_4.html", "gbk", false, true},
		{"resiliparse--warcfile.warc.gz", "http://003338.cn/l41/481397.html", "utf-8", false, false},
		{"resiliparse--clueweb-quirk.warc.gz", "http://www.uraharajuku.st/shopdetail/001005000005/019/000/order/", "euc-jp", true, true},
		{"aut--example.warc.gz", "http://www.archive.org/about/about.php", "windows-1252", true, false}, // header says ISO-8859-1
		{"aut--example.warc.gz", "http://deadlists.com/deadlists/showresults.asp?KEY=12/16/78", "windows-1252", false, false},
		{"pywb--iana.warc.gz", "http://www.iana.org/about/performance/ietf-draft-status", "windows-1252", true, false},
	} {
		t.Run(tc.uri, func(t *testing.T) {
			var page *httpEntity
			for _, e := range httpSampleEntities(t, tc.sample) {
				if e.uri == tc.uri {
					page = &e
					break
				}
			}
			if page == nil {
				t.Fatalf("%s not in %s", tc.uri, tc.sample)
			}
			c, err := DecodeContent(bytes.NewReader(page.entity), page.m.ContentEncodings(), 64<<20)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(c)
			if err != nil {
				t.Fatal(err)
			}
			// The charset decision is partition's; the samples live here.
			name, certain := partition.DetectCharset(page.m.ContentType(), body)
			if name != tc.want || certain != tc.certain {
				t.Errorf("DetectCharset = %q %v, want %q %v", name, certain, tc.want, tc.certain)
			}
			if bad := invalidRunes(t, body, name); bad != 0 {
				t.Errorf("page read as %s has %d invalid sequences", name, bad)
			}
			if tc.nonUTF8 && invalidRunes(t, body, "utf-8") == 0 {
				t.Errorf("page is valid UTF-8; the case does not test a legacy charset")
			}
		})
	}
}

// invalidRunes decodes body from the named charset and counts the U+FFFD
// that decoding produced.
func invalidRunes(t *testing.T, body []byte, name string) int {
	t.Helper()
	r, err := charset.NewReaderLabel(name, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	text, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if name != "utf-8" {
		return strings.Count(string(text), "\uFFFD")
	}
	text = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	return strings.Count(string(text), "\uFFFD") - strings.Count(string(body), "\uFFFD")
}

func FuzzDecodeContent(f *testing.F) {
	page := []byte(strings.Repeat("<p>fuzz</p>", 50))
	var gz, zl, br bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(page)
	w.Close()
	z := zlib.NewWriter(&zl)
	z.Write(page)
	z.Close()
	b := brotli.NewWriter(&br)
	b.Write(page)
	b.Close()
	f.Add(gz.Bytes(), byte(0))
	f.Add(zl.Bytes(), byte(1))
	f.Add(br.Bytes(), byte(2))
	f.Add(page, byte(0x1b))
	for _, e := range httpSampleEntities(f, "warcio--example.warc") {
		if len(e.m.ContentEncodings()) > 0 && len(e.entity) < 8192 {
			f.Add(e.entity, byte(0))
		}
	}
	codings := []string{"gzip", "deflate", "br", "zstd"}
	f.Fuzz(func(t *testing.T, in []byte, sel byte) {
		// sel picks one or two layers: low 2 bits the inner, next 2 the
		// outer, bit 4 whether there is an outer layer.
		cs := []string{codings[sel&3]}
		if sel&16 != 0 {
			cs = append(cs, codings[sel>>2&3])
		}
		const limit = 1 << 16
		c, err := DecodeContent(bytes.NewReader(in), cs, limit)
		if err != nil {
			return
		}
		n, _ := io.Copy(io.Discard, io.LimitReader(c, 2*limit))
		if n > limit || c.N() != n {
			t.Fatalf("decoded %d (N %d) past the limit %d", n, c.N(), limit)
		}
	})
}
