package hdrcodec

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// fuzzSeeds returns header blocks from the odd-header table and, when the
// shared samples are present, a few real WARC and HTTP headers with their
// predecessors.
func fuzzSeeds(f *testing.F) [][2][]byte {
	var seeds [][2][]byte
	for _, tc := range oddHeaders {
		if len(tc.raw) < 4096 {
			seeds = append(seeds, [2][]byte{[]byte(tc.raw), []byte(tc.prev)})
		}
	}
	// Seeds only: without ../shared the fuzz target still runs on the
	// rest (but fails under CI=true, see sharedtest.Optional).
	dir, ok := sharedtest.Optional(f, "testdata", "interop")
	if !ok {
		return seeds
	}
	for _, name := range []string{"warcio--example.warc", "jwarc--fold.warc", "wac--mutliple-headers.warc", "pywb--missing-status-text.warc", "pywacz--example-iana.warc", "warcat--not_utf8_http_header.warc"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			continue
		}
		for _, r := range chain(splitWARC(name, readAll(f, filepath.Join(dir, name)))) {
			seeds = append(seeds, [2][]byte{r.warcHdr, r.prevWARC})
			if r.httpHdr != nil {
				seeds = append(seeds, [2][]byte{r.httpHdr, r.prevHTTP})
			}
		}
	}
	return seeds
}

// fuzzContext builds a context from fuzzed facts; the same arguments give
// the same context for Encode and Decode.
func fuzzContext(block []byte, split int, secs int64, url string, ref string) Context {
	c := ForBlock(block, split%(len(block)+2)-1)
	if secs != 0 {
		c.Date = time.Unix(secs%maxDateSecs, 0)
	}
	c.URL = url
	if ref != "" {
		c.Refs = []string{ref}
	}
	return c
}

func FuzzRoundTrip(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s[0], s[1], []byte("HTTP/1.0 200 OK\r\n\r\nhello"), 19, int64(1414573513), "http://127.0.0.1:8101/", "<urn:uuid:f2bed61a-f38d-4ed0-a5c2-942459d4a780>")
	}
	f.Fuzz(func(t *testing.T, raw, prev, block []byte, split int, secs int64, url, ref string) {
		if split < 0 {
			split = -split
		}
		ctx := fuzzContext(block, split, secs, url, ref)
		enc := Encode(nil, raw, prev, ctx)
		got, err := Decode(nil, enc, prev, ctx)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		if !bytes.Equal(got, raw) {
			t.Fatalf("round trip differs:\n got %q\nwant %q", got, raw)
		}
		if len(enc) > len(raw)+1 {
			t.Fatalf("encoding of %d bytes is %d bytes", len(raw), len(enc))
		}
		// Encode appends and leaves dst's bytes alone.
		dst := []byte("keep")
		if out := Encode(dst, raw, prev, ctx); !bytes.Equal(out[:4], []byte("keep")) || !bytes.Equal(out[4:], enc) {
			t.Fatalf("Encode with a dst differs")
		}
	})
}

func FuzzDecode(f *testing.F) {
	ctx := fuzzContext([]byte("HTTP/1.0 200 OK\r\n\r\nhello"), 20, 1414573513, "http://127.0.0.1:8101/", "<urn:uuid:f2bed61a-f38d-4ed0-a5c2-942459d4a780>")
	for _, s := range fuzzSeeds(f) {
		f.Add(Encode(nil, s[0], s[1], ctx), s[1])
	}
	f.Fuzz(func(t *testing.T, enc, prev []byte) {
		out, err := Decode(nil, enc, prev, ctx)
		if err != nil {
			if len(out) != 0 {
				t.Fatalf("error %v with %d bytes of output", err, len(out))
			}
			return
		}
		// Output is bounded: literal encodings by their own size,
		// structured ones by MaxDecoded plus the last line appended.
		if limit := len(enc) + MaxDecoded + len(prev) + 256; len(out) > limit {
			t.Fatalf("%d bytes from a %d-byte encoding", len(out), len(enc))
		}
		// Whatever decodes must encode back to something decoding the same.
		again := Encode(nil, out, prev, ctx)
		if got, err := Decode(nil, again, prev, ctx); err != nil || !bytes.Equal(got, out) {
			t.Fatalf("re-encoding of decoded output does not round trip: %v", err)
		}
	})
}
