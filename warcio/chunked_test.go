package warcio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http/httputil"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// dechunkAll de-chunks in through a Dechunker and returns the output and
// its Framing.
func dechunkAll(t testing.TB, r io.Reader, maxFraming int) ([]byte, *Framing) {
	t.Helper()
	d := NewDechunker(r)
	d.MaxFraming = maxFraming
	out, err := io.ReadAll(d)
	if err != nil {
		t.Fatalf("dechunk: %v", err)
	}
	return out, d.Framing()
}

// httpChunkedPayloads returns the stored entities of every message in the
// samples that declares Transfer-Encoding: chunked.
func httpChunkedPayloads(t testing.TB, names ...string) map[string][][]byte {
	out := map[string][][]byte{}
	for _, name := range names {
		for _, s := range httpSampleMessages(t, name) {
			m, err := ReadHTTP(bytes.NewReader(s.block), 0)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !m.Chunked() {
				continue
			}
			p, _ := io.ReadAll(m.Payload)
			if len(p) > 0 {
				out[name] = append(out[name], p)
			}
		}
	}
	return out
}

// httpChunkedSamples hold chunked entities stored as sent.
var httpChunkedSamples = []string{
	"warcio--example-iana.org-chunked.warc",
	"pywb--iana.warc.gz",
	"warcat--at.warc.gz",
	"iagowarc--test.warc.gz",
	"wac--IAH-urls-wget.warc.gz",
	"warciojs--post-test-more.warc",
	"nodewarc--books.toscrape.warc",
}

// httpDechunkedStored lists samples that stored their entities already
// de-chunked under a Transfer-Encoding: chunked header.
var httpDechunkedStored = map[string]bool{"pywb--iana.warc.gz": true, "nodewarc--books.toscrape.warc": true}

// TestDechunkSamples de-chunks every chunked entity of the samples,
// compares the result with net/http/httputil's chunked reader, and
// rebuilds the stored bytes from the output and the Framing. Entities
// the oracle rejects must be passed through unchanged.
func TestDechunkSamples(t *testing.T) {
	payloads := httpChunkedPayloads(t, httpChunkedSamples...)
	for _, name := range httpChunkedSamples {
		t.Run(name, func(t *testing.T) {
			if len(payloads[name]) == 0 {
				t.Fatal("no chunked entity found")
			}
			var chunked, passed int
			for i, stored := range payloads[name] {
				out, f := dechunkAll(t, iotest.HalfReader(bytes.NewReader(stored)), 0)
				want, err := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(stored)))
				if err != nil {
					passed++
					if f.Chunked || !bytes.Equal(out, stored) || f.Problem == nil {
						t.Errorf("entity %d: oracle fails (%v) but framing %+v", i, err, f)
					}
				} else {
					chunked++
					if !f.Clean() {
						t.Errorf("entity %d: framing not clean: %+v", i, f)
					}
					if !bytes.Equal(out, want) {
						t.Errorf("entity %d: de-chunked %d bytes, httputil %d", i, len(out), len(want))
					}
					// Canonical framing costs a few bytes per chunk.
					if f.Size() > 4*int(f.Chunks)+64 {
						t.Errorf("entity %d: framing %d bytes for %d chunks", i, f.Size(), f.Chunks)
					}
				}
				if f.Stored != int64(len(stored)) || f.Decoded != int64(len(out)) {
					t.Errorf("entity %d: counters %+v for %d stored bytes", i, f, len(stored))
				}
				back, err := Rebuild(out, f)
				if err != nil || !bytes.Equal(back, stored) {
					t.Fatalf("entity %d: Rebuild: %v, equal=%v", i, err, bytes.Equal(back, stored))
				}
				checkFramingMarshal(t, f, out, stored)
			}
			t.Logf("%d chunked, %d stored de-chunked", chunked, passed)
			if (passed > 0) != httpDechunkedStored[name] || (chunked > 0) == httpDechunkedStored[name] {
				t.Errorf("%d chunked, %d stored de-chunked: not what the sample holds", chunked, passed)
			}
		})
	}
}

func checkFramingMarshal(t testing.TB, f *Framing, out, stored []byte) {
	t.Helper()
	b, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var g Framing
	if err := g.UnmarshalBinary(b); err != nil {
		t.Fatalf("UnmarshalBinary: %v", err)
	}
	if g.Clean() != f.Clean() || g.Stored != f.Stored || g.FallbackAt != f.FallbackAt || (g.Problem == nil) != (f.Problem == nil) {
		t.Fatalf("framing changed in marshalling: %+v -> %+v", f, g)
	}
	if f.Overflow {
		return
	}
	back, err := Rebuild(out, &g)
	if err != nil || !bytes.Equal(back, stored) {
		t.Fatalf("Rebuild after unmarshal: %v", err)
	}
}

// TestDechunkBadSamples covers the broken chunked entities of the samples.
func TestDechunkBadSamples(t *testing.T) {
	// warcat's entity declares a 3-byte chunk but "aa" and CR LF follow:
	// the first chunk does not end where its size says, so the entity is
	// passed through as stored, and the problem is reported.
	p := httpChunkedPayloads(t, "warcat--bad_http_chunked_content.warc")["warcat--bad_http_chunked_content.warc"]
	if len(p) != 1 {
		t.Fatalf("%d chunked entities", len(p))
	}
	out, f := dechunkAll(t, bytes.NewReader(p[0]), 0)
	if f.Chunked || f.Problem == nil || !bytes.Equal(out, p[0]) || f.FallbackAt != 0 {
		t.Errorf("bad chunks: chunked=%v problem=%v out=%q", f.Chunked, f.Problem, out)
	}
	// The not-UTF-8 sample's entity is "a\r\n\r\n" under no chunked header;
	// as a chunked entity it would be a 10-byte chunk longer than the
	// entity: not chunked.
	ps := httpSampleMessages(t, "warcat--not_utf8_http_header.warc")
	m, err := ReadHTTP(bytes.NewReader(ps[0].block), 0)
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := io.ReadAll(m.Payload)
	out, f = dechunkAll(t, bytes.NewReader(stored), 0)
	if f.Chunked || f.Problem == nil || !bytes.Equal(out, stored) {
		t.Errorf("chunk larger than entity: %+v", f)
	}
	if back, err := Rebuild(out, f); err != nil || !bytes.Equal(back, stored) {
		t.Errorf("Rebuild: %v", err)
	}
}

func TestDechunkSynthetic(t *testing.T) {
	for _, tc := range []struct {
		name, in, out string
		chunked       bool
		clean         bool
		truncated     bool
		fallbackAt    int64
		trailing      int64
	}{
		{name: "plain", in: "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", out: "hello world", chunked: true, clean: true, fallbackAt: -1},
		{name: "upper hex and extensions", in: "A;name=v\r\n0123456789\r\n1F ; x\r\n" + strings.Repeat("z", 31) + "\r\n0\r\n\r\n",
			out: "0123456789" + strings.Repeat("z", 31), chunked: true, clean: true, fallbackAt: -1},
		{name: "trailer fields", in: "3\r\nabc\r\n0\r\nX-Sum: 1\r\nY: 2\r\n\r\n", out: "abc", chunked: true, clean: true, fallbackAt: -1},
		{name: "LF only", in: "3\nabc\n0\n\n", out: "abc", chunked: true, clean: true, fallbackAt: -1},
		{name: "stored de-chunked", in: "<html>hello</html>", out: "<html>hello</html>", fallbackAt: 0},
		{name: "hex-looking first line, too large", in: "cafe\r\nbabe\r\n", out: "cafe\r\nbabe\r\n", fallbackAt: 0},
		{name: "hex-looking first line, wrong size", in: "1\r\nbabe\r\n", out: "1\r\nbabe\r\n", fallbackAt: 0},
		{name: "cut inside chunk", in: "3\r\nabc\r\na\r\nhello", out: "abchello", chunked: true, truncated: true, fallbackAt: -1},
		{name: "zero-padded sizes", in: "00000003\r\nabc\r\n00000001\r\nd\r\n00000000\r\n\r\n", out: "abcd", chunked: true, clean: true, fallbackAt: -1},
		{name: "no last chunk", in: "5\r\nhello\r\n", out: "hello", chunked: true, truncated: true, fallbackAt: -1},
		{name: "cut in size line", in: "5\r\nhello\r\n1", out: "hello", chunked: true, truncated: true, fallbackAt: -1},
		{name: "no final blank line", in: "5\r\nhello\r\n0\r\n", out: "hello", chunked: true, truncated: true, fallbackAt: -1},
		{name: "bad size mid-stream", in: "5\r\nhello\r\nzz\r\nrest", out: "hellozz\r\nrest", chunked: true, fallbackAt: 5},
		{name: "second chunk too short", in: "5\r\nhello\r\n9\r\nab\r\n0\r\n\r\nX", out: "helloab\r\n0\r\n\r\nX", chunked: true, fallbackAt: 14},
		{name: "junk after end", in: "1\r\nx\r\n0\r\n\r\nHTTP/1.1 200 OK\r\n", out: "x", chunked: true, fallbackAt: -1, trailing: 17},
		{name: "empty", in: "", out: "", chunked: true, truncated: true, fallbackAt: -1},
		{name: "only last chunk", in: "0\r\n\r\n", out: "", chunked: true, clean: true, fallbackAt: -1},
		{name: "size overflow", in: "ffffffffffffffffff\r\nx", out: "ffffffffffffffffff\r\nx", fallbackAt: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, f := dechunkAll(t, iotest.OneByteReader(strings.NewReader(tc.in)), 0)
			if string(out) != tc.out {
				t.Errorf("out = %q, want %q", out, tc.out)
			}
			if f.Chunked != tc.chunked || f.Clean() != tc.clean || f.Truncated != tc.truncated ||
				f.FallbackAt != tc.fallbackAt || f.Trailing != tc.trailing {
				t.Errorf("framing %+v", f)
			}
			if !tc.clean && f.Problem == nil && tc.trailing == 0 {
				t.Error("no Problem reported")
			}
			back, err := Rebuild(out, f)
			if err != nil || string(back) != tc.in {
				t.Errorf("Rebuild = %q, %v", back, err)
			}
			checkFramingMarshal(t, f, out, []byte(tc.in))
		})
	}
}

// TestDechunkManyChunks checks that a million one-byte chunks cost about a
// byte each to record, and that a tight bound turns into Overflow.
func TestDechunkManyChunks(t *testing.T) {
	const n = 1 << 20
	var stored bytes.Buffer
	for range n {
		stored.WriteString("1\r\nx\r\n")
	}
	stored.WriteString("0\r\n\r\n")
	out, f := dechunkAll(t, bytes.NewReader(stored.Bytes()), 0)
	if len(out) != n || !f.Clean() || f.Chunks != n {
		t.Fatalf("out %d bytes, framing %+v", len(out), f)
	}
	if f.Size() > n+16 {
		t.Errorf("framing of %d chunks takes %d bytes", n, f.Size())
	}
	if back, err := Rebuild(out, f); err != nil || !bytes.Equal(back, stored.Bytes()) {
		t.Fatalf("Rebuild: %v", err)
	}

	out, f = dechunkAll(t, bytes.NewReader(stored.Bytes()), 1000)
	if len(out) != n || !f.Overflow || f.Size() != 0 {
		t.Fatalf("bounded: out %d, overflow %v, size %d", len(out), f.Overflow, f.Size())
	}
	if _, err := Rebuild(out, f); !errors.Is(err, ErrFramingOverflow) {
		t.Errorf("Rebuild of overflowed framing: %v", err)
	}
}

// TestDechunkReadError checks that a failing reader's error comes out and
// stays.
func TestDechunkReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	d := NewDechunker(io.MultiReader(strings.NewReader("5\r\nhel"), iotest.ErrReader(boom)))
	_, err := io.ReadAll(d)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if _, err2 := d.Read(make([]byte, 8)); !errors.Is(err2, boom) {
		t.Errorf("error not sticky: %v", err2)
	}
}

func TestDechunkReset(t *testing.T) {
	d := NewDechunker(strings.NewReader("3\r\nabc\r\n0\r\n\r\n"))
	a, _ := io.ReadAll(d)
	fa := d.Framing()
	saved := *fa
	d.Reset(strings.NewReader("plain"))
	b, _ := io.ReadAll(d)
	if string(a) != "abc" || string(b) != "plain" || d.Framing().Chunked {
		t.Fatalf("a=%q b=%q", a, b)
	}
	if back, err := Rebuild(a, &saved); err != nil || string(back) != "3\r\nabc\r\n0\r\n\r\n" {
		t.Errorf("Framing kept across Reset rebuilds %q, %v", back, err)
	}
}

func FuzzDechunk(f *testing.F) {
	for _, block := range httpTestdata(f) {
		m, err := ReadHTTP(bytes.NewReader(block), 0)
		if err != nil {
			f.Fatal(err)
		}
		if p, _ := io.ReadAll(m.Payload); m.Chunked() {
			f.Add(p[:min(len(p), 4096)])
		}
	}
	f.Add([]byte("3\r\naa\r\n0\r\n\r\n")) // warcat--bad_http_chunked_content.warc
	f.Add([]byte("3\r\nabc\r\n0\r\nX: y\r\n\r\n"))
	f.Add([]byte("1\n\n\n0\n\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		d := NewDechunker(bytes.NewReader(in))
		d.MaxFraming = 1 << 16
		out, err := io.ReadAll(d)
		if err != nil {
			t.Fatal(err)
		}
		fr := d.Framing()
		if fr.Stored != int64(len(in)) || fr.Decoded != int64(len(out)) || len(out) > len(in) {
			t.Fatalf("counters %+v for %d in, %d out", fr, len(in), len(out))
		}
		// The input as an encoded Framing: decoding must fail cleanly or
		// give a Framing that rebuilds without panicking.
		var g Framing
		if g.UnmarshalBinary(in) == nil {
			Rebuild(in, &g)
		}
		if fr.Overflow {
			return
		}
		back, err := Rebuild(out, fr)
		if err != nil || !bytes.Equal(back, in) {
			t.Fatalf("Rebuild: %v\n got %q\nwant %q", err, back, in)
		}
		checkFramingMarshal(t, fr, out, in)
	})
}

// BenchmarkDechunk de-chunks the chunked entities of the samples (and a
// synthetic 8 KiB-chunk body) and reports the time against io.Copy of
// the same bytes, measured in the same run, as x-iocopy.
func BenchmarkDechunk(b *testing.B) {
	var bodies [][]byte
	for _, ps := range httpChunkedPayloads(b, httpChunkedSamples...) {
		bodies = append(bodies, ps...)
	}
	var big bytes.Buffer
	page := bytes.Repeat([]byte("<p>some text of a page</p>\n"), 300)
	for big.Len() < 4<<20 {
		fmt.Fprintf(&big, "%x\r\n%s\r\n", len(page), page)
	}
	big.WriteString("0\r\n\r\n")
	bodies = append(bodies, big.Bytes())
	var total int64
	for _, p := range bodies {
		total += int64(len(p))
	}
	b.SetBytes(total)
	b.ReportAllocs()
	buf := make([]byte, 32<<10)
	d := NewDechunker(nil)

	b.ResetTimer()
	b.StopTimer()
	start := time.Now()
	for range b.N {
		for _, p := range bodies {
			io.CopyBuffer(io.Discard, onlyReader{bytes.NewReader(p)}, buf)
		}
	}
	baseline := time.Since(start)
	b.StartTimer()

	start = time.Now()
	for range b.N {
		for _, p := range bodies {
			d.Reset(bytes.NewReader(p))
			if _, err := io.CopyBuffer(io.Discard, onlyReader{d}, buf); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(time.Since(start))/float64(baseline), "x-iocopy")
}

// onlyReader hides WriterTo so io.Copy really reads through.
type onlyReader struct{ io.Reader }

// httpTestdata returns the committed HTTP blocks of testdata/http.
func httpTestdata(t testing.TB) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "http", "*.http"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no testdata/http/*.http: %v", err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = b
	}
	return out
}

// TestHTTPTestdata takes each committed block through all three payload
// views: as stored, de-chunked (rebuilt exactly) and decoded.
func TestHTTPTestdata(t *testing.T) {
	for name, block := range httpTestdata(t) {
		t.Run(name, func(t *testing.T) {
			m, err := ReadHTTP(bytes.NewReader(block), 0)
			if err != nil {
				t.Fatal(err)
			}
			stored, _ := io.ReadAll(m.Payload)
			if !bytes.Equal(append(append([]byte(nil), m.Raw...), stored...), block) {
				t.Fatal("Raw + payload != block")
			}
			entity := stored
			if m.Chunked() {
				var f *Framing
				entity, f = dechunkAll(t, bytes.NewReader(stored), 0)
				want, err := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(stored)))
				if err != nil || !bytes.Equal(entity, want) || !f.Clean() {
					t.Fatalf("dechunk: clean=%v, oracle err %v, equal %v", f.Clean(), err, bytes.Equal(entity, want))
				}
				if back, err := Rebuild(entity, f); err != nil || !bytes.Equal(back, stored) {
					t.Fatalf("Rebuild: %v", err)
				}
			}
			c, err := DecodeContent(bytes.NewReader(entity), m.ContentEncodings(), 16<<20)
			if err != nil {
				t.Fatal(err)
			}
			out, err := io.ReadAll(c)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Applied()) != len(m.ContentEncodings()) {
				t.Errorf("applied %q of %q", c.Applied(), m.ContentEncodings())
			}
			if m.MediaType() == "text/html" && !bytes.Contains(bytes.ToLower(out), []byte("<html")) {
				t.Errorf("decoded HTML entity has no <html: %.60q", out)
			}
		})
	}
}
