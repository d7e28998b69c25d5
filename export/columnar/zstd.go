package columnar

import (
	"sync"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"

	"github.com/blockwarc/blockwarc/internal/zstdlib"
)

// Arrow v17's Parquet zstd codec builds a new zstd.Encoder for every page
// it compresses (compress.zstdCodec.EncodeLevel): about 3.7 ms and 3 MB of
// garbage per page, which made writing a 1 MiB page 8× slower than the
// compression itself and small row groups slower still. Codec lookups go
// through compress's registry, which exists to be overridden; this package
// registers a codec that keeps one encoder per level (an Encoder's
// EncodeAll is safe for concurrent use) and otherwise defers to Arrow's.
// With cgo it compresses with the reference library (internal/zstdlib),
// as the archive does: its level 19 makes the tables 5-7 % smaller than
// klauspost's best level on the corpus sites, and the archive the tables
// are measured against is compressed by it too. Without cgo the bytes are
// Arrow v17's: same library, level and options. (v18 pools its encoders,
// but this codec stays for the reference library and those bytes.)
func init() {
	base, err := compress.GetCodec(compress.Codecs.Zstd)
	if err != nil {
		return // no zstd in this Arrow build: nothing to speed up
	}
	compress.RegisterCodec(compress.Codecs.Zstd, &zstdCodec{Codec: base, enc: map[zstd.EncoderLevel]*zstd.Encoder{}})
}

type zstdCodec struct {
	compress.Codec // decoding and streams: Arrow's own

	mu  sync.Mutex
	enc map[zstd.EncoderLevel]*zstd.Encoder
}

func (z *zstdCodec) encoder(level int) *zstd.Encoder {
	l := zstd.SpeedDefault
	if level != compress.DefaultCompressionLevel {
		l = zstd.EncoderLevelFromZstd(level)
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	e := z.enc[l]
	if e == nil {
		// The options of Arrow v17's EncodeLevel, so the output is
		// unchanged (v18's pooled encoders add WithAllLitEntropyCompression).
		e, _ = zstd.NewWriter(nil, zstd.WithZeroFrames(true), zstd.WithEncoderLevel(l))
		z.enc[l] = e
	}
	return e
}

func (z *zstdCodec) Encode(dst, src []byte) []byte {
	return z.encoder(compress.DefaultCompressionLevel).EncodeAll(src, dst[:0])
}

func (z *zstdCodec) EncodeLevel(dst, src []byte, level int) []byte {
	if zstdlib.Available && level != compress.DefaultCompressionLevel {
		if out, err := zstdlib.Compress(dst[:0], src, level, nil); err == nil {
			return out
		}
	}
	return z.encoder(level).EncodeAll(src, dst[:0])
}
