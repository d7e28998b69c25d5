//go:build cgo

package libdeflate

/*
// The vendored libdeflate (libdeflate/, compiled by the ld_*.c files),
// not the host's: see the package comment.
#include "ld_prefix.h"
#include "libdeflate/libdeflate.h"
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Available says whether this build can inflate with libdeflate.
const Available = true

// Version is the version of the libdeflate compiled in.
const Version = C.LIBDEFLATE_VERSION_STRING

// A Decompressor holds libdeflate's decode tables (about 32 KiB of C
// memory, freed when the Decompressor is collected). It is not safe for
// concurrent use.
type Decompressor struct {
	d *C.struct_libdeflate_decompressor
}

// New returns a Decompressor, or nil if the C allocation fails.
func New() *Decompressor {
	d := C.libdeflate_alloc_decompressor()
	if d == nil {
		return nil
	}
	z := &Decompressor{d: d}
	runtime.AddCleanup(z, func(d *C.struct_libdeflate_decompressor) { C.libdeflate_free_decompressor(d) }, d)
	return z
}

// Inflate decodes the raw deflate stream at the start of in into out,
// returning the length of its output and how many bytes of in it took.
// It returns ErrShortOutput if the output does not fit in out, ErrBadData
// if in does not start with a whole valid stream.
func (z *Decompressor) Inflate(out, in []byte) (nOut, nIn int, err error) {
	var inN, outN C.size_t
	var ip, op unsafe.Pointer
	if len(in) > 0 {
		ip = unsafe.Pointer(&in[0])
	}
	if len(out) > 0 {
		op = unsafe.Pointer(&out[0])
	}
	r := C.libdeflate_deflate_decompress_ex(z.d, ip, C.size_t(len(in)), op, C.size_t(len(out)), &inN, &outN)
	runtime.KeepAlive(z)
	switch r {
	case C.LIBDEFLATE_SUCCESS:
		return int(outN), int(inN), nil
	case C.LIBDEFLATE_INSUFFICIENT_SPACE:
		return 0, 0, ErrShortOutput
	}
	return 0, 0, ErrBadData
}
