package reencode

import (
	"bytes"
	stdflate "compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/warcio"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/outputs.txt")

// entity is a content-coded HTTP response entity of an interop file.
type entity struct {
	name    string // file@offset
	coding  string
	encoded []byte // de-chunked
}

// interopEntities reads every response of the interop files with
// exactly one content coding, de-chunked when chunked.
func interopEntities(t testing.TB) []entity {
	dir := sharedtest.Interop(t)
	paths, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []entity
	for _, p := range paths {
		if strings.HasSuffix(p, ".md") {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		rd := warcio.NewReader(f, p)
		for {
			rec, err := rd.Next()
			if err != nil {
				break // EOF or a damaged file: what was read counts
			}
			if rec.Type != "response" && rec.Type != "" {
				continue
			}
			m, err := rec.HTTP()
			if err != nil || m.Request || len(m.ContentEncodings()) != 1 {
				continue
			}
			body, err := io.ReadAll(m.Payload)
			if err != nil || len(body) == 0 {
				continue
			}
			if m.Chunked() {
				if dc, err := io.ReadAll(warcio.NewDechunker(bytes.NewReader(body))); err == nil {
					body = dc
				}
			}
			out = append(out, entity{name: fmt.Sprintf("%s@%d", filepath.Base(p), rec.Offset), coding: m.ContentEncodings()[0], encoded: body})
		}
		f.Close()
	}
	return out
}

// TestInteropEntities runs Find on every content-coded response of the
// interop files: whenever it succeeds, Encode must give the entity back,
// and the decoded bytes must be what an independent decoder gives.
func TestInteropEntities(t *testing.T) {
	es := interopEntities(t)
	if len(es) < 10 {
		t.Fatalf("only %d content-coded responses in the interop files", len(es))
	}
	byCoding := map[string][2]int{}
	whys := map[string]int{}
	for _, e := range es {
		dec, p, ok, why := Find(e.coding, e.encoded, Limits{})
		c := byCoding[e.coding]
		c[0]++
		if !ok {
			whys[why]++
			byCoding[e.coding] = c
			continue
		}
		c[1]++
		byCoding[e.coding] = c
		got, err := Encode(nil, p, dec)
		if err != nil || !bytes.Equal(got, e.encoded) {
			t.Errorf("%s: Find says %s reproduces it, Encode gives %d bytes (want %d), %v", e.name, p, len(got), len(e.encoded), err)
		}
		cr, err := warcio.DecodeContent(bytes.NewReader(e.encoded), []string{e.coding}, 0)
		if err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
		if want, err := io.ReadAll(cr); err != nil || !bytes.Equal(dec, want) {
			t.Errorf("%s: decoded bytes differ from warcio's", e.name)
		}
		t.Logf("%s: %s, %d -> %d bytes", e.name, p, len(dec), len(e.encoded))
	}
	t.Logf("reproduced by coding (total, ok): %v; failures: %v", byCoding, whys)
	// Without the restore-time bound, the brotli responses made in one
	// piece by Google's encoder reproduce (pywacz's, quality 10).
	unbounded := 0
	for _, e := range es {
		if _, p, ok, _ := Find(e.coding, e.encoded, Limits{MaxEncodeTime: time.Hour}); ok {
			unbounded++
			t.Logf("unbounded: %s: %s", e.name, p)
		}
	}
	if unbounded == 0 {
		t.Error("no interop response reproduces even without the restore-time bound")
	}
	t.Logf("%d of %d reproduce without the restore-time bound", unbounded, len(es))
}

// TestGoEncodersReproduce: entities made by the encoders Find knows,
// gzip and zlib through their usual Go writers, are found again with
// their settings.
func TestGoEncodersReproduce(t *testing.T) {
	doc := goldenInput(t)
	for _, level := range []int{1, 5, 6, 9} {
		var gz bytes.Buffer
		w, _ := gzip.NewWriterLevel(&gz, level)
		w.Write(doc)
		w.Close()
		var zl bytes.Buffer
		z, _ := zlib.NewWriterLevel(&zl, level)
		z.Write(doc)
		z.Close()
		var raw bytes.Buffer
		s, _ := stdflate.NewWriter(&raw, level)
		s.Write(doc)
		s.Close()
		for _, c := range []struct {
			coding string
			b      []byte
			codec  Codec
		}{{"gzip", gz.Bytes(), CodecGzip}, {"deflate", zl.Bytes(), CodecZlib}, {"deflate", raw.Bytes(), CodecDeflate}} {
			dec, p, ok, why := Find(c.coding, c.b, Limits{MaxEncodeTime: 1 << 40})
			if !ok {
				t.Errorf("level %d %v: not found: %s", level, c.codec, why)
				continue
			}
			if p.Codec != c.codec || !bytes.Equal(dec, doc) {
				t.Errorf("level %d: found %s", level, p)
			}
			if got, err := Encode(nil, p, dec); err != nil || !bytes.Equal(got, c.b) {
				t.Errorf("level %d %s: Encode does not reproduce: %v", level, p, err)
			}
		}
	}
	for _, q := range []int{1, 5, 11} {
		for _, win := range []int{16, 22} {
			var b bytes.Buffer
			w := brotli.NewWriterOptions(&b, brotli.WriterOptions{Quality: q, LGWin: win})
			w.Write(doc)
			w.Close()
			dec, p, ok, why := Find("br", b.Bytes(), Limits{MaxEncodeTime: 1 << 40})
			if !ok || p.Level != q || p.Window != win || !bytes.Equal(dec, doc) {
				t.Errorf("br q%d w%d: found %s, %v %s", q, win, p, ok, why)
			}
		}
	}
}

// TestForeignEncodersRefused: entities no Go encoder reproduces stay
// refused, with the decoded bytes right.
func TestForeignEncodersRefused(t *testing.T) {
	doc := []byte("<html><body>" + strings.Repeat("hello world ", 50) + "</body></html>")
	// A deflate stream of one stored block, as no Go encoder writes a
	// compressible input at any level but 0, wrapped as gzip by "zlib" (OS 3).
	raw := []byte{1, byte(len(doc)), byte(len(doc) >> 8), ^byte(len(doc)), ^byte(len(doc) >> 8)}
	raw = append(raw, doc...)
	gz := append([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3}, raw...)
	gz = append(gz, le32(crc(doc))...)
	gz = append(gz, le32(uint32(len(doc)))...)
	if dec, _, ok, why := Find("gzip", gz, Limits{}); ok || why == "" || !bytes.Equal(dec, doc) {
		t.Errorf("gzip from zlib (OS 3): ok=%v why=%q", ok, why)
	}
	gz[9] = 255 // claims Go: still no level reproduces the stored block of a compressible input
	if _, p, ok, why := Find("gzip", gz, Limits{}); ok {
		t.Errorf("hand-made stored block found as %s", p)
	} else if why != "no encoder setting reproduces it" {
		t.Errorf("why = %q", why)
	}
	// Damaged and trailing bytes.
	for name, b := range map[string][]byte{
		"trailing": append(bytes.Clone(gz), 0),
		"bad crc":  append(bytes.Clone(gz[:len(gz)-8]), 0, 0, 0, 0, 0, 0, 0, 0),
		"cut":      gz[:len(gz)-3],
		"empty":    nil,
	} {
		if _, _, ok, _ := Find("gzip", b, Limits{}); ok {
			t.Errorf("%s: ok", name)
		}
	}
	if _, _, ok, why := Find("compress", gz, Limits{}); ok || !strings.Contains(why, "not supported") {
		t.Errorf("compress: ok=%v %q", ok, why)
	}
}

// TestLimits: the decoded-size cap and the restore-time bound refuse.
func TestLimits(t *testing.T) {
	doc := goldenInput(t)
	var b bytes.Buffer
	w := brotli.NewWriterOptions(&b, brotli.WriterOptions{Quality: 11, LGWin: 22})
	w.Write(doc)
	w.Close()
	if _, _, ok, why := Find("br", b.Bytes(), Limits{MaxDecoded: len(doc) - 1}); ok || why != "decoded larger than the limit" {
		t.Errorf("cap: ok=%v %q", ok, why)
	}
	big := bytes.Repeat(doc, 1+(4<<20)/len(doc))
	b.Reset()
	w = brotli.NewWriterOptions(&b, brotli.WriterOptions{Quality: 11, LGWin: 22})
	w.Write(big)
	w.Close()
	if _, _, ok, why := Find("br", b.Bytes(), Limits{MaxTrials: 1}); ok || why != "slow to re-encode" && why != "trial budget spent" {
		t.Errorf("q11 of %d bytes: ok=%v %q", len(big), ok, why)
	}
}

func crc(b []byte) uint32 { return crc32.ChecksumIEEE(b) }

func le32(v uint32) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)} }

// goldenInput is testdata/golden/input.html: HTML written for these
// tests (public domain), 96 KiB, so that flate and brotli cut it into
// several blocks.
func goldenInput(t testing.TB) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", "golden", "input.html"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// goldenSettings is every settings family Find can return: each brotli
// quality (at the most common window and at the smallest), each level
// of each flate implementation. The container (gzip, zlib) adds only
// literal headers and checksums, so raw deflate covers flate.
func goldenSettings() []Params {
	var ps []Params
	for q := 0; q <= 11; q++ {
		ps = append(ps, Params{Codec: CodecBrotli, Impl: ImplBrotli, Level: q, Window: 22})
	}
	for q := 0; q <= 11; q++ {
		ps = append(ps, Params{Codec: CodecBrotli, Impl: ImplBrotli, Level: q, Window: 10})
	}
	for _, impl := range []Impl{ImplStdlib, ImplKlauspost} {
		for l := -2; l <= 9; l++ {
			if l == -1 {
				continue
			}
			ps = append(ps, Params{Codec: CodecDeflate, Impl: impl, Level: l})
		}
	}
	return ps
}

// TestGolden guards the archives: restoring a re-encoded payload depends
// on the encoders' exact output, so the SHA-256 of Encode's output for
// every settings family is pinned in testdata/golden/outputs.txt. If a
// dependency upgrade changes one, this fails: the upgrade would make
// archives unrestorable (see the package doc). Regenerate with -update
// only for settings no archive can hold yet.
func TestGolden(t *testing.T) {
	doc := goldenInput(t)
	var sb strings.Builder
	for _, p := range goldenSettings() {
		out, err := Encode(nil, p, doc)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		dec, q, ok, why := Find(codingOf(p), out, Limits{MaxEncodeTime: 1 << 40})
		if !ok || !bytes.Equal(dec, doc) {
			t.Errorf("%s: Find does not find its own output: %s", p, why)
		} else if got, _ := Encode(nil, q, doc); !bytes.Equal(got, out) {
			t.Errorf("%s: Find returned %s, which does not reproduce", p, q)
		}
		s := sha256.Sum256(out)
		fmt.Fprintf(&sb, "%s %d %s\n", p, len(out), hex.EncodeToString(s[:]))
	}
	path := filepath.Join("testdata", "golden", "outputs.txt")
	if *update {
		if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	wl, gl := strings.Split(string(want), "\n"), strings.Split(sb.String(), "\n")
	if len(wl) != len(gl) {
		t.Fatalf("%d golden lines, %d settings", len(wl), len(gl))
	}
	for i := range wl {
		if wl[i] != gl[i] {
			t.Errorf("encoder output changed (archives using it would not restore):\n got  %s\n want %s", gl[i], wl[i])
		}
	}
}

func codingOf(p Params) string {
	switch p.Codec {
	case CodecGzip:
		return "gzip"
	case CodecBrotli:
		return "br"
	}
	return "deflate"
}

// TestParamsBinary: every golden setting round-trips; invalid ones are
// refused both ways.
func TestParamsBinary(t *testing.T) {
	ps := append(goldenSettings(),
		Params{Codec: CodecGzip, Impl: ImplStdlib, Level: 6, Header: []byte{0x1f, 0x8b, 8, 8, 1, 2, 3, 4, 0, 255, 'a', 0}},
		Params{Codec: CodecZlib, Impl: ImplKlauspost, Level: 9, Header: []byte{0x78, 0xda}})
	for _, p := range ps {
		b, err := p.MarshalBinary()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		var q Params
		if err := q.UnmarshalBinary(b); err != nil || q.String() != p.String() || !bytes.Equal(q.Header, p.Header) {
			t.Errorf("%s: round trip gives %s, %v", p, q, err)
		}
		if err := q.UnmarshalBinary(append(b, 0)); err == nil {
			t.Errorf("%s: extra byte accepted", p)
		}
	}
	for _, p := range []Params{
		{Codec: CodecBrotli, Impl: ImplBrotli, Level: 12, Window: 22},
		{Codec: CodecBrotli, Impl: ImplBrotli, Level: 5, Window: 25},
		{Codec: CodecDeflate, Impl: ImplBrotli, Level: 5},
		{Codec: CodecDeflate, Impl: ImplStdlib, Level: 10},
		{Codec: CodecGzip, Impl: ImplStdlib, Level: 6, Header: []byte{0x1f, 0x8b, 8, 8, 0, 0, 0, 0, 0, 255}}, // FNAME missing
		{Codec: CodecZlib, Impl: ImplStdlib, Level: 6, Header: []byte{0x78, 0x9d}},
		{Codec: 9, Impl: ImplStdlib},
	} {
		if _, err := p.MarshalBinary(); err == nil {
			t.Errorf("%+v: marshalled", p)
		}
		if _, err := Encode(nil, p, []byte("x")); err == nil {
			t.Errorf("%+v: encoded", p)
		}
	}
}

// TestCompareAborts: a wrong setting stops at its first differing
// output byte instead of encoding everything.
func TestCompareAborts(t *testing.T) {
	doc := bytes.Repeat(goldenInput(t), 8)
	p := Params{Codec: CodecDeflate, Impl: ImplKlauspost, Level: 1}
	out, err := Encode(nil, p, doc)
	if err != nil {
		t.Fatal(err)
	}
	wrong := bytes.Clone(out)
	wrong[0] ^= 0xff
	c := &cmpWriter{want: wrong}
	var fw *flate.Writer
	fw, _ = flate.NewWriter(c, 1)
	n := 0
	for i := 0; i < len(doc); i += 4096 {
		if _, err := fw.Write(doc[i:min(i+4096, len(doc))]); err != nil {
			break
		}
		n = i
	}
	if n >= len(doc)/2 {
		t.Errorf("encoder took %d of %d bytes after the first differing byte", n, len(doc))
	}
}
