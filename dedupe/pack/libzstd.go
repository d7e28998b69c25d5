package pack

import "github.com/blockwarc/blockwarc/internal/zstdlib"

// haveLibzstd says frames are compressed by the reference zstd library
// (package zstdlib, cgo) at the default level; else by klauspost alone.
const haveLibzstd = zstdlib.Available

// libzstdLevel is the reference library's level used for
// zstd.SpeedBestCompression, the level `zstd -19` uses.
const libzstdLevel = 19

// libzstdCompress compresses plain into one zstd frame, with dict as raw
// content dictionary when non-nil. The frame names no dictionary id.
func libzstdCompress(dst, plain, dict []byte) ([]byte, error) {
	return zstdlib.Compress(dst, plain, libzstdLevel, dict)
}
