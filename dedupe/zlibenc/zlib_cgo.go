//go:build cgo

package zlibenc

/*
// The vendored zlib (zlib/, compiled by the zlib_*.c files), not the
// host's libz: see the package comment.
#include "zlib_prefix.h"
#include "zlib/zlib.h"
#include <stdlib.h>
#include <string.h>

// A bw_stream is one deflate state kept across calls: deflateReset
// between streams instead of deflateInit2 per member, and when the
// settings change a new state in the same memory, an arena the stream
// owns: a state allocated per member (about 300 KiB, which glibc hands
// back to the system and faults in again) cost five times the deflate of
// a typical WARC record.
typedef struct {
	z_stream s;
	int init, level, mem, strat;
	size_t used;
	unsigned char *arena;
} bw_stream;

// bw_arena holds the largest state (memLevel 9: window, prev, head and
// pending buffer, 384 KiB, and the state itself); zlib allocates it in
// deflateInit2 and frees it all in deflateEnd.
enum { bw_arena = 512 << 10 };

static const char *bw_version(void) { return zlibVersion(); }

static voidpf bw_alloc(voidpf opaque, uInt items, uInt size) {
	bw_stream *b = opaque;
	size_t n = ((size_t)items * size + 63) & ~(size_t)63;
	if (n > bw_arena - b->used) return Z_NULL;
	voidpf p = b->arena + b->used;
	b->used += n;
	return p;
}

static void bw_release(voidpf opaque, voidpf p) {}

static bw_stream *bw_new(void) {
	bw_stream *b = calloc(1, sizeof(bw_stream));
	if (b == NULL) return NULL;
	if ((b->arena = malloc(bw_arena)) == NULL) {
		free(b);
		return NULL;
	}
	return b;
}

static void bw_free(bw_stream *b) {
	if (b->init) deflateEnd(&b->s);
	free(b->arena);
	free(b);
}

// bw_start readies b for a new stream with the settings given: a reset
// when they are those of the state, else a new state in the arena.
static int bw_start(bw_stream *b, int level, int mem, int strat) {
	if (b->init && b->level == level && b->mem == mem && b->strat == strat)
		return deflateReset(&b->s) == Z_OK;
	if (b->init) deflateEnd(&b->s);
	memset(&b->s, 0, sizeof b->s);
	b->used = 0;
	b->s.zalloc = bw_alloc;
	b->s.zfree = bw_release;
	b->s.opaque = b;
	b->init = deflateInit2(&b->s, level, Z_DEFLATED, -15, mem, strat) == Z_OK;
	b->level = level, b->mem = mem, b->strat = strat;
	return b->init;
}

// bw_bound is deflateBound of n bytes under b's settings.
static unsigned long bw_bound(bw_stream *b, size_t n) { return deflateBound(&b->s, (uLong)n); }

// bw_deflate compresses in[0:n] as one raw deflate stream into out, which
// must hold bw_bound bytes (and 16 more with sync), after bw_start.
// Returns the output length, or -1.
static long bw_deflate(bw_stream *b, const unsigned char *in, size_t n, int sync,
                       unsigned char *out, size_t cap) {
	z_stream *s = &b->s;
	s->next_in = (unsigned char *)in;
	s->avail_in = (uInt)n;
	s->next_out = out;
	s->avail_out = (uInt)cap;
	if (sync && deflate(s, Z_SYNC_FLUSH) != Z_OK) return -1;
	int rc = deflate(s, Z_FINISH);
	return rc == Z_STREAM_END ? (long)s->total_out : -1;
}

// bw_same reports whether deflating in[0:n] gives exactly want[0:wn],
// after bw_start, comparing each piece of output as it is produced, so a
// wrong setting costs only the work up to its first differing byte.
static int bw_same(bw_stream *b, const unsigned char *in, size_t n, int sync,
                   const unsigned char *want, size_t wn) {
	unsigned char buf[16384];
	z_stream *s = &b->s;
	s->next_in = (unsigned char *)in;
	s->avail_in = (uInt)n;
	size_t pos = 0;
	// With sync, flush first: Z_SYNC_FLUSH until the input is in and the
	// output has room left (zlib's rule for a complete flush), then finish.
	int flush = sync ? Z_SYNC_FLUSH : Z_FINISH;
	for (;;) {
		s->next_out = buf;
		s->avail_out = sizeof buf;
		int rc = deflate(s, flush);
		size_t got = sizeof buf - s->avail_out;
		if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) return 0;
		if (got > wn - pos || memcmp(buf, want + pos, got) != 0) return 0;
		pos += got;
		if (rc == Z_STREAM_END) return pos == wn;
		if (flush == Z_SYNC_FLUSH && s->avail_in == 0 && s->avail_out != 0) flush = Z_FINISH;
	}
}
*/
import "C"

import (
	"errors"
	"runtime"
	"slices"
	"unsafe"
)

// Available says whether this build can deflate with zlib.
const Available = true

// Version is the version of the zlib compiled in.
func Version() string { return C.GoString(C.bw_version()) }

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

// A Stream deflates with zlib, keeping one encoder state across calls
// (reset between streams, rebuilt when the settings change): a member
// search or a rebuild deflates thousands of small members, and a new
// state for each cost more than the deflate. Not safe for concurrent
// use; Close frees it (and the garbage collector does, if Close is
// never called).
type Stream struct {
	b       *C.bw_stream
	cleanup runtime.Cleanup
}

// NewStream returns a Stream.
func NewStream() *Stream {
	s := &Stream{b: C.bw_new()}
	if s.b != nil {
		s.cleanup = runtime.AddCleanup(s, func(b *C.bw_stream) { C.bw_free(b) }, s.b)
	}
	return s
}

// Close frees s's encoder state.
func (s *Stream) Close() {
	if s.b != nil {
		s.cleanup.Stop()
		C.bw_free(s.b)
		s.b = nil
	}
}

func (s *Stream) start(p Params) bool {
	if s.b == nil {
		return false
	}
	return C.bw_start(s.b, C.int(p.Level), C.int(p.MemLevel), C.int(p.Strategy)) == 1
}

// Deflate appends the raw deflate stream of src with p to dst.
func (s *Stream) Deflate(dst, src []byte, p Params) ([]byte, error) {
	if !p.Valid() {
		return dst, errors.New("zlibenc: invalid params " + p.String())
	}
	if len(src) >= maxInput {
		return dst, errTooLarge
	}
	if !s.start(p) {
		return dst, errors.New("zlibenc: deflateInit2 failed")
	}
	bound := int(C.bw_bound(s.b, C.size_t(len(src)))) + 16 // a sync flush's empty stored block
	dst = slices.Grow(dst, bound)
	out := dst[len(dst) : len(dst)+bound]
	n := C.bw_deflate(s.b, ptr(src), C.size_t(len(src)), cbool(p.SyncFlush), ptr(out), C.size_t(bound))
	if n < 0 {
		return dst, errors.New("zlibenc: deflate failed")
	}
	return dst[:len(dst)+int(n)], nil
}

// Reproduces reports whether Deflate(nil, src, p) equals want, stopping
// the encoder at the first differing byte.
func (s *Stream) Reproduces(src, want []byte, p Params) (bool, error) {
	if !p.Valid() || len(src) >= maxInput {
		return false, nil
	}
	if !s.start(p) {
		return false, errors.New("zlibenc: deflateInit2 failed")
	}
	return C.bw_same(s.b, ptr(src), C.size_t(len(src)), cbool(p.SyncFlush), ptr(want), C.size_t(len(want))) == 1, nil
}

// Deflate appends the raw deflate stream of src with p to dst.
func Deflate(dst, src []byte, p Params) ([]byte, error) {
	s := NewStream()
	defer s.Close()
	return s.Deflate(dst, src, p)
}

// Reproduces reports whether Deflate(nil, src, p) equals want, stopping
// the encoder at the first differing byte.
func Reproduces(src, want []byte, p Params) (bool, error) {
	s := NewStream()
	defer s.Close()
	return s.Reproduces(src, want, p)
}
