//go:build cgo

package zlibenc

/*
#cgo LDFLAGS: -lz
#include <zlib.h>
#include <string.h>

// bw_deflate compresses in[0:n] as one raw deflate stream into out, which
// must hold deflateBound bytes. Returns the output length, or -1.
static long bw_deflate(const unsigned char *in, size_t n, int level, int mem, int strat, int sync,
                       unsigned char *out, size_t cap) {
	z_stream s;
	memset(&s, 0, sizeof s);
	if (deflateInit2(&s, level, Z_DEFLATED, -15, mem, strat) != Z_OK) return -1;
	s.next_in = (unsigned char *)in;
	s.avail_in = (uInt)n;
	s.next_out = out;
	s.avail_out = (uInt)cap;
	if (sync && deflate(&s, Z_SYNC_FLUSH) != Z_OK) { deflateEnd(&s); return -1; }
	int rc = deflate(&s, Z_FINISH);
	long got = (long)s.total_out;
	deflateEnd(&s);
	return rc == Z_STREAM_END ? got : -1;
}

static unsigned long bw_bound(size_t n, int level, int mem, int strat) {
	z_stream s;
	memset(&s, 0, sizeof s);
	if (deflateInit2(&s, level, Z_DEFLATED, -15, mem, strat) != Z_OK) return 0;
	unsigned long b = deflateBound(&s, (uLong)n);
	deflateEnd(&s);
	return b;
}

// bw_same reports whether deflating in[0:n] gives exactly want[0:wn],
// comparing each piece of output as it is produced, so a wrong setting
// costs only the work up to its first differing byte.
static int bw_same(const unsigned char *in, size_t n, int level, int mem, int strat, int sync,
                   const unsigned char *want, size_t wn) {
	unsigned char buf[16384];
	z_stream s;
	memset(&s, 0, sizeof s);
	if (deflateInit2(&s, level, Z_DEFLATED, -15, mem, strat) != Z_OK) return 0;
	s.next_in = (unsigned char *)in;
	s.avail_in = (uInt)n;
	size_t pos = 0;
	int same = 0;
	// With sync, flush first: Z_SYNC_FLUSH until the input is in and the
	// output has room left (zlib's rule for a complete flush), then finish.
	int flush = sync ? Z_SYNC_FLUSH : Z_FINISH;
	for (;;) {
		s.next_out = buf;
		s.avail_out = sizeof buf;
		int rc = deflate(&s, flush);
		size_t got = sizeof buf - s.avail_out;
		if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) break;
		if (got > wn - pos || memcmp(buf, want + pos, got) != 0) break;
		pos += got;
		if (rc == Z_STREAM_END) { same = pos == wn; break; }
		if (flush == Z_SYNC_FLUSH && s.avail_in == 0 && s.avail_out != 0) flush = Z_FINISH;
	}
	deflateEnd(&s);
	return same;
}
*/
import "C"

import (
	"errors"
	"unsafe"
)

// Available says whether this build can deflate with zlib.
const Available = true

// Version is the version of the zlib linked in.
func Version() string { return C.GoString(C.zlibVersion()) }

// maxInput bounds one call: zlib's avail_in is 32 bits.
const maxInput = 1 << 31

var errTooLarge = errors.New("zlibenc: input larger than 2 GiB")

func ptr(b []byte) *C.uchar {
	if len(b) == 0 {
		return nil
	}
	return (*C.uchar)(unsafe.Pointer(&b[0]))
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// Deflate appends the raw deflate stream of src with p to dst.
func Deflate(dst, src []byte, p Params) ([]byte, error) {
	if !p.Valid() {
		return dst, errors.New("zlibenc: invalid params " + p.String())
	}
	if len(src) >= maxInput {
		return dst, errTooLarge
	}
	bound := int(C.bw_bound(C.size_t(len(src)), C.int(p.Level), C.int(p.MemLevel), C.int(p.Strategy)))
	if bound == 0 {
		return dst, errors.New("zlibenc: deflateInit2 failed")
	}
	bound += 16 // a sync flush's empty stored block
	out := make([]byte, bound)
	n := C.bw_deflate(ptr(src), C.size_t(len(src)), C.int(p.Level), C.int(p.MemLevel), C.int(p.Strategy), cbool(p.SyncFlush), ptr(out), C.size_t(bound))
	if n < 0 {
		return dst, errors.New("zlibenc: deflate failed")
	}
	return append(dst, out[:n]...), nil
}

// Reproduces reports whether Deflate(nil, src, p) equals want, stopping
// the encoder at the first differing byte.
func Reproduces(src, want []byte, p Params) (bool, error) {
	if !p.Valid() || len(src) >= maxInput {
		return false, nil
	}
	return C.bw_same(ptr(src), C.size_t(len(src)), C.int(p.Level), C.int(p.MemLevel), C.int(p.Strategy), cbool(p.SyncFlush), ptr(want), C.size_t(len(want))) == 1, nil
}
