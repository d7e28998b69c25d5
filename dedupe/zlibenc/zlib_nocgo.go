//go:build !cgo

package zlibenc

// Available says whether this build can deflate with zlib.
const Available = false

// Version is the version of the zlib linked in: none.
func Version() string { return "" }

// Deflate returns ErrUnavailable: this build has no zlib.
func Deflate(dst, src []byte, p Params) ([]byte, error) { return dst, ErrUnavailable }

// Reproduces returns ErrUnavailable: this build has no zlib.
func Reproduces(src, want []byte, p Params) (bool, error) { return false, ErrUnavailable }
