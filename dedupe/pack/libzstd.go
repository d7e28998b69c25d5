package pack

import "github.com/blockwarc/blockwarc/internal/zstdlib"

// haveLibzstd says frames are compressed by the reference zstd library
// (package zstdlib, cgo) at the default level; else by klauspost alone.
const haveLibzstd = zstdlib.Available

// libzstdLevel is the reference library's level used for
// zstd.SpeedBestCompression, the level `zstd -19` uses.
const libzstdLevel = 19

// libzstdFastLevel is the reference library's level for the fast tier
// (zstd.SpeedBetterCompression asked, cgo built in): see fastCompressC.
const libzstdFastLevel = 6

// libzstdCompress compresses plain into one zstd frame, with dict as raw
// content dictionary when non-nil. The frame names no dictionary id.
//
// Without a dictionary, the block splitter is on whatever the size
// (zstdlib.CompressSplit): a catalog segment under 64 KiB (a small
// site's, a run's first) otherwise compresses as one block, its text,
// header encodings, inline records and random part (record ids, CRCs)
// under one set of statistics. ota-lovescout24: 9,980 → 9,488 bytes
// for its one segment. With a dictionary (a segment after the first)
// the library streams at its 8 MiB window and splits already.
func libzstdCompress(dst, plain, dict []byte) ([]byte, error) {
	if dict == nil {
		return zstdlib.CompressSplit(dst, plain, libzstdLevel)
	}
	return zstdlib.Compress(dst, plain, libzstdLevel, dict)
}
