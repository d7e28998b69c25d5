// Package libdeflate inflates a raw deflate stream held whole in memory
// with libdeflate, through cgo: on the corpus about four times as fast
// as klauspost's streaming gzip (0.18 against 0.8 CPU-s a pass in
// BenchmarkIndex's profile). warcio uses it for every gzip member that
// fits its read buffer; the Go path stays for the rest, and for damaged
// members.
//
// The decoder is libdeflate 1.25's decompression sources, vendored
// unmodified in libdeflate/ (tag v1.25 of github.com/ebiggers/libdeflate,
// commit c8c56a2; its COPYING, the MIT licence, there) and compiled into
// the package under ld_prefix.h's bwld_ names, so no system libdeflate
// can stand in for them or clash with them; TestNoSystemLibdeflate checks
// the binary and TestVendored the copy.
//
// libdeflate decodes only whole buffers: Inflate is given the stream's
// bytes (and possibly more after it) and a buffer for all of its output,
// and says how many input bytes the stream took, exactly, so the caller
// can keep stored positions. It accepts a little more than RFC 1951 and
// Go's inflaters: literal/length symbols 286 and 287, distance symbols 30
// and 31, more than 286 literal/length or 30 distance codes, and an empty
// code (read as one symbol). No deflate encoder writes these; a gzip member holding them
// still has to match its CRC-32 and ISIZE to be read this way.
//
// A build without cgo (CGO_ENABLED=0) has no decoder: Available is false
// and Inflate returns ErrUnavailable.
package libdeflate

import "errors"

var (
	// ErrShortOutput: the output buffer is too small for the stream.
	ErrShortOutput = errors.New("libdeflate: output buffer too small")
	// ErrBadData: the input does not start with a complete, valid
	// deflate stream (it may be corrupt, or cut off by the end of the
	// buffer).
	ErrBadData = errors.New("libdeflate: invalid or truncated deflate stream")
	// ErrUnavailable is returned by a build without cgo.
	ErrUnavailable = errors.New("libdeflate: not available (built without cgo)")
)
