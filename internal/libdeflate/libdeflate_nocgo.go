//go:build !cgo

package libdeflate

// Available says whether this build can inflate with libdeflate.
const Available = false

// Version is the version of the libdeflate compiled in: none.
const Version = ""

// A Decompressor would hold libdeflate's decode tables; this build has
// none.
type Decompressor struct{}

// New returns a Decompressor whose Inflate always fails.
func New() *Decompressor { return &Decompressor{} }

// Inflate returns ErrUnavailable: this build has no libdeflate.
func (z *Decompressor) Inflate(out, in []byte) (nOut, nIn int, err error) {
	return 0, 0, ErrUnavailable
}
