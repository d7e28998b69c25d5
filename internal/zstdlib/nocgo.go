//go:build !cgo

package zstdlib

import "errors"

// Available is false without cgo: callers compress with
// klauspost/compress alone (valid frames, about 12 % larger).
const Available = false

// Compress is not available without cgo.
func Compress(dst, plain []byte, level int, dict []byte) ([]byte, error) {
	return nil, errors.New("zstdlib: built without cgo")
}
