//go:build cgo

package pack

import (
	"bytes"
	"errors"
	"runtime"

	czstd "github.com/DataDog/zstd"
)

// haveLibzstd says frames are compressed by the reference zstd library
// (through cgo) at the default level: on the corpus its level 19 makes
// frames about 12 % smaller than klauspost's best level, and the archive
// size bar is set against the zstd command. Frames are standard zstd
// either way; readers decode them with klauspost/compress.
const haveLibzstd = true

// libzstdLevel is the reference library's level used for
// zstd.SpeedBestCompression, the level `zstd -19` uses.
const libzstdLevel = 19

// dictMagic starts a zstd *formatted* dictionary. The library reads a
// dictionary that starts with it as formatted, anything else as raw
// content; a frame's bases may start with any bytes, so such a
// dictionary is left to the pure-Go encoder.
var dictMagic = []byte{0x37, 0xa4, 0x30, 0xec}

var errFormattedDict = errors.New("dictionary starts with the zstd dictionary magic")

// libzstdCompress compresses plain into one zstd frame, with dict as raw
// content dictionary when non-nil. The frame names no dictionary id.
//
// A dictionary is digested (ZSTD_createCDict, then the frame compressed
// at its known size) when it is small next to the frame; a large one is
// loaded into a streaming context, which costs less for the same size.
func libzstdCompress(dst, plain, dict []byte) ([]byte, error) {
	if dict == nil {
		return czstd.CompressLevel(dst, plain, libzstdLevel)
	}
	if bytes.HasPrefix(dict, dictMagic) {
		return nil, errFormattedDict
	}
	if len(dict) >= len(plain)/8 {
		buf := bytes.NewBuffer(dst[:0])
		w := czstd.NewWriterLevelDict(buf, libzstdLevel, dict)
		if _, err := w.Write(plain); err != nil {
			w.Close()
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	p, err := czstd.NewBulkProcessor(dict, libzstdLevel)
	if err != nil {
		return nil, err
	}
	out, err := p.Compress(dst, plain)
	// p's finalizer frees the C dictionary: p must outlive the C call
	// that uses it, which the library does not ensure.
	runtime.KeepAlive(p)
	return out, err
}
