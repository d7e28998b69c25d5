//go:build !cgo

package pack

import "errors"

// haveLibzstd is false without cgo: frames are compressed by
// klauspost/compress alone (valid frames, about 12 % larger).
const haveLibzstd = false

func libzstdCompress(dst, plain, dict []byte) ([]byte, error) {
	return nil, errors.New("built without cgo")
}
