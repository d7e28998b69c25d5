//go:build !cgo

package chunk

import "errors"

// haveLibzstd is false without cgo: frames are compressed by
// klauspost/compress (valid frames, about 12 % larger).
const haveLibzstd = false

func libzstdCompress(dst, plain []byte, level int) ([]byte, error) {
	return nil, errors.New("built without cgo")
}
