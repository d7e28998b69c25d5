package hdrcodec

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// ctxFor is what a caller restoring s knows: the block, the capture time
// and URL from its index, and (with refs) the ids of the records s names.
func ctxFor(s *sample, refs bool) Context {
	hl := -1
	if s.httpHdr != nil {
		hl = len(s.httpHdr)
	}
	c := ForBlock(s.block, hl)
	if d, ok := parseDate([]byte(s.date)); ok {
		c.Date = time.Unix(d.secs, 0)
	}
	c.URL = s.uri
	if refs {
		for _, r := range []string{s.infoID, s.concTo} {
			if r != "" {
				c.Refs = append(c.Refs, r)
			}
		}
	}
	return c
}

// roundTrip encodes raw against prev, decodes it and fails on any
// difference; it reports whether the structured form was used.
func roundTrip(t *testing.T, what string, raw, prev []byte, ctx Context) (enc []byte) {
	t.Helper()
	enc = Encode(nil, raw, prev, ctx)
	got, err := Decode(nil, enc, prev, ctx)
	if err != nil {
		t.Fatalf("%s: decode: %v", what, err)
	}
	if !bytes.Equal(got, raw) {
		t.Fatalf("%s: round trip differs:\n got %q\nwant %q", what, got, raw)
	}
	// The structured form alone, before Encode's size check and
	// verification, must be exact too: the fallback is a safety net, not
	// what keeps odd headers lossless.
	e := encoder{ctx: &ctx}
	e.setPrev(prev)
	s := e.encode(nil, raw)
	if got, err := Decode(nil, s, prev, ctx); err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("%s: structured form: err %v\n got %q\nwant %q", what, err, got, raw)
	}
	return enc
}

type tally struct{ blocks, structured, rawBytes, encBytes int }

func (ty *tally) add(raw, enc []byte) {
	ty.blocks++
	if enc[0] == kindStructured {
		ty.structured++
	}
	ty.rawBytes += len(raw)
	ty.encBytes += len(enc)
}

func roundTripAll(t *testing.T, recs []withPrev, refs bool) (w, h tally) {
	t.Helper()
	for _, r := range recs {
		ctx := ctxFor(r.sample, refs)
		what := r.file + " record " + r.recordID
		w.add(r.warcHdr, roundTrip(t, what+" WARC header", r.warcHdr, r.prevWARC, ctx))
		// Against no predecessor and no context: the literal-heavy path.
		roundTrip(t, what+" WARC header alone", r.warcHdr, nil, Unknown())
		if r.httpHdr != nil {
			h.add(r.httpHdr, roundTrip(t, what+" HTTP header", r.httpHdr, r.prevHTTP, ctx))
			roundTrip(t, what+" HTTP header alone", r.httpHdr, nil, Unknown())
			// A predecessor of the other kind must not break anything.
			roundTrip(t, what+" HTTP header vs WARC prev", r.httpHdr, r.prevWARC, ctx)
		}
	}
	return w, h
}

func TestRoundTripInterop(t *testing.T) {
	dir := sharedtest.Interop(t)
	all := loadDir(t, dir, func(name string) bool {
		return !strings.Contains(name, ".arc") && !strings.HasSuffix(name, ".lz4") && name != "SOURCES.md"
	})
	if len(all) < 200 {
		t.Fatalf("splitter found only %d records in %s", len(all), dir)
	}
	w, h := roundTripAll(t, chain(all), true)
	t.Logf("interop: %d WARC headers (%d structured), %d HTTP headers (%d structured)", w.blocks, w.structured, h.blocks, h.structured)
}

func TestRoundTripCorpus(t *testing.T) {
	dir := sharedtest.Dir(t, "corpus")
	for _, site := range []string{"mkdocs-org", "ota-mektoube", "ota-lovescout24"} {
		t.Run(site, func(t *testing.T) {
			all := loadDir(t, dir+"/"+site, func(name string) bool { return strings.HasSuffix(name, ".warc.gz") })
			recs := chain(all)
			w, h := roundTripAll(t, recs, false)
			if w.structured != w.blocks || h.structured != h.blocks {
				t.Errorf("literal fallback used: WARC %d/%d, HTTP %d/%d structured", w.structured, w.blocks, h.structured, h.blocks)
			}
			// wget's headers after the first capture of a URL are a
			// template plus derivable facts plus record ids: the encoding
			// holds no digest text and no printed record id.
			for _, r := range recs {
				if r.prevWARC == nil {
					continue
				}
				enc := Encode(nil, r.warcHdr, r.prevWARC, ctxFor(r.sample, false))
				if d := fieldOf(r.warcHdr, "WARC-Block-Digest"); d != "" && bytes.Contains(enc, []byte(d[5:])) {
					t.Fatalf("%s %s: block digest stored as text", r.file, r.recordID)
				}
				if bytes.Contains(enc, []byte(r.recordID[10:46])) {
					t.Fatalf("%s: record id stored as text", r.file)
				}
			}
		})
	}
}

// Header blocks named after what they break. Each must round trip, and the
// structured form must represent each exactly without the literal fallback.
var oddHeaders = []struct {
	name      string
	raw, prev string
}{
	{"empty", "", ""},
	{"only blank line", "\r\n", ""},
	{"lf only", "WARC/1.0\nWARC-Type: response\nContent-Length: 5\n\n", "WARC/1.0\nWARC-Type: request\n\n"},
	{"mixed endings", "HTTP/1.1 200 OK\r\nA: b\nC: d\r\n\n", "HTTP/1.1 200 OK\r\nA: x\r\n\r\n"},
	{"cr cr lf", "HTTP/1.0 200\r\r\nServer: x\r\r\n\r\n", ""},
	{"no final newline", "WARC/1.0\r\nWARC-Type: resource", "WARC/1.0\r\nWARC-Type: resource\r\n\r\n"},
	{"no blank line", "WARC/1.0\r\nWARC-Type: resource\r\n", ""},
	{"folded lines", "WARC/1.0\nFold: a\n b\nFold-Trim: a\n  b\n c\n\n", "WARC/1.0\nFold: a\n x\n\n"},
	{"non utf-8 value", "HTTP/1.1 200 OK\r\nX-Name: caf\xe9\xff\r\n\r\n", "HTTP/1.1 200 OK\r\nX-Name: caf\xe9\r\n\r\n"},
	{"duplicate fields", "HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nSet-Cookie: a=1\r\n\r\n", "HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nSet-Cookie: b=3\r\n\r\n"},
	{"weird spacing", "WARC/1.0\r\nWhitespace:     one  two \r\nTab:\tx\r\nNone:y\r\nEmpty:\r\nSpaces:   \r\n\r\n", "WARC/1.0\r\nWhitespace: one\r\n\r\n"},
	{"space before colon", "HTTP/1.1 200 OK\r\nBad Name: v\r\nName : v\r\n: nameless\r\n\r\n", ""},
	{"nul and controls", "WARC/1.0\r\nX-\x00: \x01\x7f\r\n\x00\r\n\r\n", ""},
	{"case of names", "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\nCONTENT-TYPE: a\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"},
	{"reordered fields", "WARC/1.0\r\nB: 2\r\nA: 1\r\nC: 3\r\n\r\n", "WARC/1.0\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n"},
	{"prev is garbage", "WARC/1.0\r\nA: 1\r\n\r\n", "\x00\xff\r\r\n:::\n\n\n"},
	{"uppercase uuid", "WARC/1.0\r\nWARC-Record-ID: <urn:uuid:F2BED61A-F38D-4ED0-A5C2-942459D4A780>\r\n\r\n", ""},
	{"mixed case uuid", "WARC/1.0\r\nWARC-Record-ID: <urn:uuid:F2bed61a-f38d-4ed0-a5c2-942459d4a780>\r\n\r\n", ""},
	{"bare uuid", "WARC/1.0\r\nWARC-Record-ID: urn:uuid:f2bed61a-f38d-4ed0-a5c2-942459d4a780\r\n\r\n", ""},
	{"wrong weekday", "HTTP/1.1 200 OK\r\nDate: Tue, 29 Oct 2014 09:05:14 GMT\r\n\r\n", ""},
	{"dates of every form", "WARC/1.1\r\nWARC-Date: 2014-10-29T09:05:13.250Z\r\nA: 2014-10-29T09:05:13.000000001Z\r\nB: Wednesday, 29-Oct-14 09:05:14 GMT\r\nC: Wed Oct  1 09:05:14 2014\r\nD: 20141029090514\r\nE: 2014-10-29T09:05:13+00:00\r\n\r\n", ""},
	{"digest not matching", "WARC/1.0\r\nWARC-Block-Digest: sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\r\n\r\n", ""},
	{"huge line", "WARC/1.0\r\nX: " + strings.Repeat("v", 1<<16) + "\r\n\r\n", ""},
}

func TestOddHeaders(t *testing.T) {
	ctx := ForBlock([]byte("HTTP/1.0 200 OK\r\n\r\nhello"), 19)
	ctx.Date = time.Date(2014, 10, 29, 9, 5, 13, 0, time.UTC)
	for _, tc := range oddHeaders {
		t.Run(tc.name, func(t *testing.T) {
			var prev []byte
			if tc.prev != "" {
				prev = []byte(tc.prev)
			}
			for _, c := range []Context{ctx, Unknown(), {}} {
				roundTrip(t, tc.name, []byte(tc.raw), prev, c)
			}
		})
	}
}

// TestSumLazy: digests Sum computes on first use encode a header to the
// same bytes as the digests computed beforehand, for every algorithm and
// encoding a field may spell them in.
func TestSumLazy(t *testing.T) {
	block := []byte("HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello")
	p := block[38:]
	b1, b2, p1, p2 := sha1.Sum(block), sha256.Sum256(block), sha1.Sum(p), sha256.Sum256(p)
	eager := Unknown()
	eager.BlockLen, eager.PayloadLen = int64(len(block)), int64(len(p))
	eager.Block = Digests{SHA1: b1[:], SHA256: b2[:]}
	eager.Payload = Digests{SHA1: p1[:], SHA256: p2[:]}
	var raw []byte
	raw = append(raw, "WARC/1.0\r\n"...)
	for _, d := range []struct {
		label string
		sum   []byte
	}{{"sha1", b1[:]}, {"sha256", b2[:]}, {"SHA-1", p1[:]}, {"sha-256", p2[:]}} {
		for enc := range numDigestEncodings {
			raw = fmt.Appendf(raw, "X-Digest: %s:%s\r\n", d.label, formatDigest(nil, enc, d.sum))
		}
	}
	raw = append(raw, "Content-Length: 43\r\n\r\n"...)
	want := Encode(nil, raw, nil, eager)
	if got := roundTrip(t, "lazy digests", raw, nil, ForBlock(block, 38)); !bytes.Equal(got, want) {
		t.Errorf("lazy digests encode to\n%q\nprecomputed to\n%q", got, want)
	}
	if bytes.Contains(want, []byte(formatDigest(nil, encB32, b1[:]))) {
		t.Errorf("digest stored as text: %q", want)
	}
}

func TestDerivedFields(t *testing.T) {
	block := []byte("HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello")
	ctx := ForBlock(block, 38)
	ctx.Date = time.Date(2014, 10, 29, 9, 5, 13, 0, time.UTC)
	ctx.URL = "http://example.com/"
	sha := "sha1:" + string(formatDigest(nil, encB32, ctx.Block.get(algSHA1)))
	raw := "WARC/1.0\r\nWARC-Target-URI: <http://example.com/>\r\nWARC-Date: 2014-10-29T09:05:13Z\r\n" +
		"WARC-Block-Digest: " + sha + "\r\nWARC-Payload-Digest: sha256:" + string(formatDigest(nil, encHexLower, ctx.Payload.get(algSHA256))) +
		"\r\nWARC-Record-ID: <urn:uuid:f2bed61a-f38d-4ed0-a5c2-942459d4a780>\r\nContent-Length: 43\r\n\r\n"
	enc := roundTrip(t, "derived", []byte(raw), nil, ctx)
	for _, text := range []string{sha[5:], "http://example.com/", "2014", "f2bed61a"} {
		if bytes.Contains(enc, []byte(text)) {
			t.Errorf("encoding holds %q as text: %q", text, enc)
		}
	}
	// The same encoding under a context that lacks the facts must fail
	// with ErrMissingContext, not produce other bytes.
	if _, err := Decode(nil, enc, nil, Unknown()); !errors.Is(err, ErrMissingContext) {
		t.Errorf("decode without context: got %v, want ErrMissingContext", err)
	}
	// A digest that is not the block's stays text.
	other := ForBlock([]byte("other"), -1)
	enc = roundTrip(t, "wrong digest", []byte(raw), nil, other)
	if !bytes.Contains(enc, []byte(sha[5:])) {
		t.Errorf("a digest not matching the context was dropped")
	}
}

func TestDecodeCorrupt(t *testing.T) {
	raw := []byte("WARC/1.0\r\nWARC-Type: response\r\nWARC-Date: 2014-10-29T09:05:13Z\r\nX: abcdef\r\n\r\n")
	prev := []byte("WARC/1.0\r\nWARC-Type: response\r\nX: abcxyz\r\n\r\n")
	ctx := Unknown()
	enc := Encode(nil, raw, prev, ctx)
	if enc[0] != kindStructured {
		t.Fatalf("expected structured encoding, got %q", enc)
	}
	for n := 0; n < len(enc); n++ {
		got, err := Decode(nil, enc[:n], prev, ctx)
		if err == nil && bytes.Equal(got, raw) {
			t.Fatalf("prefix %d of %d decodes to the whole block", n, len(enc))
		}
	}
	for _, bad := range [][]byte{{}, {0x7f}, {kindStructured}, {kindStructured, 0x80}, {kindStructured, 0, 0xff}} {
		if _, err := Decode(nil, bad, prev, ctx); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Decode(%q): got %v, want ErrCorrupt", bad, err)
		}
	}
	// Copying all of prev over and over must stop at MaxDecoded.
	big := bytes.Repeat([]byte("x"), 1<<20)
	bomb := []byte{kindStructured, 0}
	for range 40 {
		bomb = append(bomb, opCopy<<opKindShift, 1, 0) // copy prev line 0 again
	}
	got, err := Decode(nil, bomb, big, ctx)
	if !errors.Is(err, ErrCorrupt) || len(got) != 0 {
		t.Errorf("decode bomb: err %v, %d bytes", err, len(got))
	}
}

// Blocks longer than shortPrev lines are looked up through maps instead of
// scanning; both must find reordered and repeated lines.
func TestLongHeaders(t *testing.T) {
	var raw, prev strings.Builder
	raw.WriteString("HTTP/1.1 200 OK\r\n")
	prev.WriteString("HTTP/1.1 200 OK\r\n")
	for i := range 300 {
		fmt.Fprintf(&prev, "X-Field-%d: value number %d of a long header\r\n", i, i)
	}
	for i := range 300 {
		j := (i * 7) % 300 // every field, in another order
		if i%50 == 0 {
			fmt.Fprintf(&raw, "X-Field-%d: changed %d\r\n", j, i)
			continue
		}
		fmt.Fprintf(&raw, "X-Field-%d: value number %d of a long header\r\n", j, j)
	}
	raw.WriteString("X-Field-3: value number 3 of a long header\r\n\r\n") // a repeat
	prev.WriteString("\r\n")
	for _, n := range []int{20, 300} {
		r := []byte(raw.String())
		p := []byte(prev.String())
		if n < 300 { // a short prev: the scanning path
			p = p[:bytes.Index(p, []byte("X-Field-20:"))]
		}
		enc := roundTrip(t, fmt.Sprintf("prev of %d fields", n), r, p, Unknown())
		if n == 300 && len(enc) > len(r)/10 {
			t.Errorf("encoding of a reordered header is %d bytes of %d", len(enc), len(r))
		}
	}
}

// A prev over MaxDecoded counts as empty on both sides.
func TestHugePrev(t *testing.T) {
	prev := bytes.Repeat([]byte("A: b\r\n"), MaxDecoded/6+1)
	raw := []byte("WARC/1.0\r\nA: b\r\n\r\n")
	enc := roundTrip(t, "huge prev", raw, prev, Unknown())
	got, err := Decode(nil, enc, nil, Unknown())
	if err != nil || !bytes.Equal(got, raw) {
		t.Errorf("decoding against no prev: err %v, got %q", err, got)
	}
}
