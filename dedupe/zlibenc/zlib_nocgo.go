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

// A Stream deflates with zlib; in this build it has none.
type Stream struct{}

// NewStream returns a Stream.
func NewStream() *Stream { return &Stream{} }

// Close does nothing.
func (s *Stream) Close() {}

// Deflate returns ErrUnavailable: this build has no zlib.
func (s *Stream) Deflate(dst, src []byte, p Params) ([]byte, error) { return dst, ErrUnavailable }

// Reproduces returns ErrUnavailable: this build has no zlib.
func (s *Stream) Reproduces(src, want []byte, p Params) (bool, error) { return false, ErrUnavailable }
