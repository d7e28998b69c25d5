//go:build !cgo

package zstdlib

import (
	"errors"
	"io"
)

// Available is false without cgo: callers compress with
// klauspost/compress alone (valid frames, about 12 % larger).
const Available = false

// Compress is not available without cgo.
func Compress(dst, plain []byte, level int, dict []byte) ([]byte, error) {
	return nil, errors.New("zstdlib: built without cgo")
}

// CompressSplit is not available without cgo.
func CompressSplit(dst, plain []byte, level int) ([]byte, error) {
	return nil, errors.New("zstdlib: built without cgo")
}

// Version is "" without cgo.
func Version() string { return "" }

// Writer is not available without cgo.
type Writer struct{}

// NewWriter is not available without cgo.
func NewWriter(w io.Writer, level, windowLog int, long bool) (*Writer, error) {
	return nil, errors.New("zstdlib: built without cgo")
}

// Write is not available without cgo.
func (z *Writer) Write(p []byte) (int, error) { return 0, errors.New("zstdlib: built without cgo") }

// Close is not available without cgo.
func (z *Writer) Close() error { return nil }

// Ctx is not available without cgo.
type Ctx struct{}

// NewCtx is not available without cgo.
func NewCtx() (*Ctx, error) { return nil, errors.New("zstdlib: built without cgo") }

// Compress is not available without cgo.
func (x *Ctx) Compress(dst, plain []byte, level int, dict []byte) ([]byte, error) {
	return nil, errors.New("zstdlib: built without cgo")
}

// Close does nothing without cgo.
func (x *Ctx) Close() {}
