package columnar

import (
	"bytes"
	"fmt"
	"io"
	"math/bits"

	"github.com/andybalholm/brotli"
	"github.com/apache/arrow-go/v18/parquet/compress"
)

// Arrow's Parquet brotli codec (v17, and v18 still) opens every page's writer with
// brotli's default window (4 MiB). At the best level the encoder's match
// finder allocates tables in proportion to the window: about 17 ms and
// tens of MB per page, however small, and the tables have dozens of small
// string columns. This codec sizes the window to the page (up to the
// format's largest, 16 MiB, which also finds repeats further apart in a
// large text column) and otherwise defers to Arrow's (decoding, streams).
// The frames are standard brotli either way.
//
// It decodes pages itself too: Arrow v18's decoder fails on a page that
// decodes to nothing (a zero-length destination is never read to the
// stream's end, "decoded data exceeds destination size 0").
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

func (brotliCodec) Decode(dst, src []byte) []byte {
	out, err := brotliCodec{}.DecodeWithError(dst, src)
	if err != nil {
		panic(err)
	}
	return out
}

// DecodeWithError decodes one page into dst, which must hold the page's
// decoded bytes (nil: a new buffer), as compress.Decode calls it; callers
// read dst, so the page is decoded in place. A malformed page, or one
// larger than dst, is an error.
func (brotliCodec) DecodeWithError(dst, src []byte) ([]byte, error) {
	r := brotli.NewReader(bytes.NewReader(src))
	if dst == nil {
		out, err := io.ReadAll(r)
		if err != nil {
			return nil, fmt.Errorf("codec: brotli: %w", err)
		}
		return out, nil
	}
	for n := 0; n < len(dst); {
		m, err := r.Read(dst[n:])
		n += m
		if err == io.EOF {
			return dst[:n], nil // the page is shorter than dst
		}
		if err != nil { // a truncated stream is io.ErrUnexpectedEOF
			return nil, fmt.Errorf("codec: brotli: %w", err)
		}
	}
	// The stream ends here (a Read may return 0 bytes and no error
	// before brotli reports the end, which ReadFull reads past).
	var extra [1]byte
	switch _, err := io.ReadFull(r, extra[:]); err {
	case io.EOF:
	case nil:
		return nil, fmt.Errorf("codec: brotli: decoded data exceeds destination size %d", len(dst))
	default:
		return nil, fmt.Errorf("codec: brotli: %w", err)
	}
	return dst, nil
}
