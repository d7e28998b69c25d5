package columnar

import (
	"bytes"
	"math/bits"

	"github.com/andybalholm/brotli"
	"github.com/apache/arrow/go/v17/parquet/compress"
)

// Arrow v17's Parquet brotli codec opens every page's writer with
// brotli's default window (4 MiB). At the best level the encoder's match
// finder allocates tables in proportion to the window: about 17 ms and
// tens of MB per page, however small, and the tables have dozens of small
// string columns. This codec sizes the window to the page (up to the
// format's largest, 16 MiB, which also finds repeats further apart in a
// large text column) and otherwise defers to Arrow's (decoding, streams).
// The frames are standard brotli either way.
func init() {
	base, err := compress.GetCodec(compress.Codecs.Brotli)
	if err != nil {
		return // no brotli in this Arrow build
	}
	compress.RegisterCodec(compress.Codecs.Brotli, brotliCodec{Codec: base})
}

type brotliCodec struct {
	compress.Codec
}

// brotliWindow is the window (log2 of its bytes) that holds n bytes,
// within brotli's bounds.
func brotliWindow(n int) int {
	return min(max(bits.Len(uint(n)), 10), 24)
}

func (b brotliCodec) EncodeLevel(dst, src []byte, level int) []byte {
	if level == compress.DefaultCompressionLevel {
		level = brotli.DefaultCompression
	}
	buf := bytes.NewBuffer(dst[:0])
	w := brotli.NewWriterOptions(buf, brotli.WriterOptions{Quality: level, LGWin: brotliWindow(len(src))})
	// Writes to a bytes.Buffer do not fail (Arrow's codec panics here too).
	if _, err := w.Write(src); err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func (b brotliCodec) Encode(dst, src []byte) []byte {
	return b.EncodeLevel(dst, src, brotli.DefaultCompression)
}
