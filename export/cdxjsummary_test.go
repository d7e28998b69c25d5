package export

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/warcio"
)

// TestIndexCDXJSummarized checks that summarizing the blocks in the
// walk's workers and taking urlkeys from the walk's keys (IndexCDXJ)
// writes the index that summarizing and keying each capture in the
// walk's callback writes, byte for byte: at 1 and 2 workers, and
// with a memory limit so small that summaries go through sorted runs on
// disk and the larger blocks stream to runs of their own, unsummarized.
// The inputs have POST requests (bodies in the summary), revisits, ARC,
// uncompressed WARC, records without a declared digest and dns: records.
func TestIndexCDXJSummarized(t *testing.T) {
	dir := sharedtest.Interop(t)
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	var inputs []string
	for _, f := range files {
		name := filepath.Base(f)
		// Only inputs both ways index without error: what they say of the
		// others is checked by the interop tests.
		if strings.Contains(name, ".warc") || strings.Contains(name, ".arc") {
			inputs = append(inputs, f)
		}
	}
	if len(inputs) < 5 {
		t.Fatalf("interop samples missing under %s", dir)
	}
	index := func(summarize bool, o warcio.WalkOptions) string {
		t.Helper()
		o.TempDir = t.TempDir()
		o.Reader.Policy = warcio.PolicySkip
		var b bytes.Buffer
		var err error
		if summarize {
			_, err = IndexCDXJ(context.Background(), inputs, o, &b, nil)
		} else {
			_, err = indexCDXJ(context.Background(), inputs, o, &b, nil, false)
		}
		if err != nil {
			t.Fatalf("summarize %v, %+v: %v", summarize, o, err)
		}
		return b.String()
	}
	want := index(false, warcio.WalkOptions{Workers: 1})
	if strings.Count(want, "\n") < 50 || !strings.Contains(want, "__wb_method=post") || !strings.Contains(want, "warc/revisit") {
		t.Fatalf("the samples lost their POSTs or revisits:\n%s", want)
	}
	for _, o := range []warcio.WalkOptions{
		{Workers: 1}, {Workers: 2}, {Workers: 2, MemLimit: 8 << 10},
	} {
		if got := index(true, o); got != want {
			g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
			i := 0
			for i < min(len(g), len(w)) && g[i] == w[i] {
				i++
			}
			g, w = append(g, ""), append(w, "")
			t.Errorf("Workers %d, MemLimit %d: summarized in the workers, the index differs at line %d:\n got %s\nwant %s",
				o.Workers, o.MemLimit, i+1, g[i], w[i])
		}
	}
}

// TestBlockSummaryRoundTrip checks appendBlock and decodeBlock, and that
// a damaged encoding is refused.
func TestBlockSummaryRoundTrip(t *testing.T) {
	for _, s := range []summary{
		{},
		{isHTTP: true, status: "200", httpCT: "text/html; charset=utf-8", digest: "ABC"},
		{isHTTP: true, httpCT: "application/x-www-form-urlencoded", method: "POST", body: []byte{}},
		{isHTTP: true, method: "PUT", body: []byte("a=1&b=2")},
	} {
		b := s.appendBlock(nil)
		var got summary
		if !got.decodeBlock(b) {
			t.Fatalf("%+v: does not decode", s)
		}
		if got.isHTTP != s.isHTTP || got.status != s.status || got.httpCT != s.httpCT || got.digest != s.digest ||
			got.method != s.method || (got.body == nil) != (s.body == nil) || !bytes.Equal(got.body, s.body) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, s)
		}
		for i := range b {
			if (&summary{}).decodeBlock(b[:i]) {
				t.Fatalf("%+v: %d of %d bytes decoded", s, i, len(b))
			}
		}
	}
}
