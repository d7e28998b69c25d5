package columnar

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
)

// The registered brotli codec's pages decode to what was encoded, from a
// page of a few bytes to one of 300 KiB, and the window fits the page:
// small for a small page (fast), at most brotli's largest.
func TestBrotliCodecRoundTrip(t *testing.T) {
	c, err := compress.GetCodec(compress.Codecs.Brotli)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.(brotliCodec); !ok {
		t.Fatalf("brotli codec is %T, not this package's", c)
	}
	var big bytes.Buffer
	for i := 0; big.Len() < 300<<10; i++ {
		fmt.Fprintf(&big, "block %d of a page, some words again %d\n", i, i%977)
	}
	for _, src := range [][]byte{nil, []byte("a"), []byte("https://example.com/a https://example.com/b"), big.Bytes()} {
		enc := c.EncodeLevel(nil, src, brotliLevel)
		dec := c.Decode(make([]byte, len(src)), enc)
		if !bytes.Equal(dec, src) {
			t.Fatalf("%d bytes: decoded %d bytes that differ", len(src), len(dec))
		}
	}
	for n, want := range map[int]int{0: 10, 5: 10, 1 << 12: 13, 1<<20 - 1: 20, 1 << 20: 21, 1 << 30: 24} {
		if got := brotliWindow(n); got != want {
			t.Errorf("brotliWindow(%d) = %d, want %d", n, got, want)
		}
	}
}
