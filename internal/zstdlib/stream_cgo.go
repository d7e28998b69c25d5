//go:build cgo

package zstdlib

/*
#include <stddef.h>

// The reference library's streaming API, compiled into the binary by
// github.com/DataDog/zstd (imported in cgo.go): its Go binding sets no
// window or long-distance parameter, so they are reached here directly
// (zstd.h of the library's version 1.5.7 declares them so).
typedef struct ZSTD_CCtx_s ZSTD_CCtx;
typedef struct { const void* src; size_t size; size_t pos; } ZSTD_inBuffer;
typedef struct { void* dst; size_t size; size_t pos; } ZSTD_outBuffer;
ZSTD_CCtx* ZSTD_createCCtx(void);
size_t ZSTD_freeCCtx(ZSTD_CCtx* cctx);
size_t ZSTD_CCtx_setParameter(ZSTD_CCtx* cctx, int param, int value);
size_t ZSTD_compressStream2(ZSTD_CCtx* cctx, ZSTD_outBuffer* output, ZSTD_inBuffer* input, int endOp);
unsigned ZSTD_isError(size_t code);
const char* ZSTD_getErrorName(size_t code);
const char* ZSTD_versionString(void);
size_t ZSTD_compress2(ZSTD_CCtx* cctx, void* dst, size_t dstCapacity, const void* src, size_t srcSize);
size_t ZSTD_compressBound(size_t srcSize);
size_t ZSTD_compress_usingDict(ZSTD_CCtx* ctx, void* dst, size_t dstCapacity, const void* src, size_t srcSize, const void* dict, size_t dictSize, int compressionLevel);

// bw_compress_split compresses src (n bytes) into one frame at level
// in a context of its own, with the post-block splitter on
// (ZSTD_c_splitAfterSequences, experimental parameter 1010, set to
// ZSTD_ps_enable = 1). ZSTD_compress2 knows the size, so the level's
// window and tables are fitted to src, as in ZSTD_compress.
static size_t bw_compress_split(void* dst, size_t cap, const void* src, size_t n, int level) {
	ZSTD_CCtx* c = ZSTD_createCCtx();
	if (c == NULL) {
		return (size_t)-64; // memory_allocation
	}
	size_t r = ZSTD_CCtx_setParameter(c, 100, level);
	if (!ZSTD_isError(r)) {
		r = ZSTD_CCtx_setParameter(c, 1010, 1);
	}
	if (!ZSTD_isError(r)) {
		r = ZSTD_compress2(c, dst, cap, src, n);
	}
	ZSTD_freeCCtx(c);
	return r;
}

// bw_stream runs one ZSTD_compressStream2 call on plain pointers, so
// that no Go pointer is stored in C-visible memory.
static size_t bw_stream(ZSTD_CCtx* c, void* dst, size_t cap, size_t* dpos, const void* src, size_t n, size_t* spos, int end) {
	ZSTD_outBuffer o = { dst, cap, *dpos };
	ZSTD_inBuffer i = { src, n, *spos };
	size_t r = ZSTD_compressStream2(c, &o, &i, end);
	*dpos = o.pos;
	*spos = i.pos;
	return r;
}
*/
import "C"

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"unsafe"
)

// Parameters of ZSTD_CCtx_setParameter and ZSTD_EndDirective (zstd.h).
const (
	cCompressionLevel = 100
	cWindowLog        = 101
	cEnableLDM        = 160
	eContinue         = 0
	eEnd              = 2
)

// CompressSplit appends to dst plain compressed at level as one zstd
// frame (no dictionary) as Compress writes it, but for the block
// splitter: the library splits a block where its statistics change
// (text, then ids and CRCs, in a catalog segment) only when the window
// is at least 128 KiB, and the window fitted to an input under 64 KiB
// is not. Forced on, such frames compress better (a 62 KB catalog
// segment of ota-lovescout24: 9,980 → 9,488 bytes) for no more CPU;
// larger inputs give the bytes Compress gives.
func CompressSplit(dst, plain []byte, level int) ([]byte, error) {
	bound := int(C.ZSTD_compressBound(C.size_t(len(plain))))
	out := slices.Grow(dst, bound)
	var src unsafe.Pointer
	if len(plain) > 0 {
		src = unsafe.Pointer(&plain[0])
	}
	buf := out[len(out) : len(out)+bound]
	r := C.bw_compress_split(unsafe.Pointer(&buf[0]), C.size_t(bound), src, C.size_t(len(plain)), C.int(level))
	if err := zerr(r); err != nil {
		return nil, err
	}
	return out[:len(out)+int(r)], nil
}

// Ctx is a compression context of the reference library kept from
// frame to frame. Its Compress fits the level's window and tables to the
// frame and its dictionary (ZSTD_compress_usingDict), so a small frame
// costs little however large the level's defaults, and the context's
// memory is reused: the fast tier's many small frames with a delta base
// spent more resetting klauspost's full-size tables than compressing.
// A Ctx is used by one goroutine at a time; Close frees it.
type Ctx struct{ c *C.ZSTD_CCtx }

// NewCtx creates a context.
func NewCtx() (*Ctx, error) {
	c := C.ZSTD_createCCtx()
	if c == nil {
		return nil, errors.New("zstd: cannot create a compression context")
	}
	return &Ctx{c: c}, nil
}

// Compress appends to dst plain compressed at level as one frame, with
// dict as raw-content dictionary when non-nil (the frame names no id:
// see NameDict). A dict that starts with the dictionary magic is
// refused (ErrFormattedDict); one under 8 bytes the library ignores, and
// the frame then decodes with or without it.
func (x *Ctx) Compress(dst, plain []byte, level int, dict []byte) ([]byte, error) {
	if bytes.HasPrefix(dict, dictMagic) {
		return nil, ErrFormattedDict
	}
	bound := int(C.ZSTD_compressBound(C.size_t(len(plain))))
	out := slices.Grow(dst, bound)
	buf := out[len(out) : len(out)+bound]
	var src, d unsafe.Pointer
	if len(plain) > 0 {
		src = unsafe.Pointer(&plain[0])
	}
	if len(dict) > 0 {
		d = unsafe.Pointer(&dict[0])
	}
	r := C.ZSTD_compress_usingDict(x.c, unsafe.Pointer(&buf[0]), C.size_t(bound), src, C.size_t(len(plain)), d, C.size_t(len(dict)), C.int(level))
	if err := zerr(r); err != nil {
		return nil, err
	}
	return out[:len(out)+int(r)], nil
}

// Close frees the context.
func (x *Ctx) Close() {
	if x != nil && x.c != nil {
		C.ZSTD_freeCCtx(x.c)
		x.c = nil
	}
}

// Version is the reference library's version ("1.5.7").
func Version() string { return C.GoString(C.ZSTD_versionString()) }

// Writer compresses a stream into one zstd frame with the reference
// library, as the zstd command does: NewWriter(w, 19, 27, true) is
// `zstd -19 --long=27`.
type Writer struct {
	c   *C.ZSTD_CCtx
	w   io.Writer
	out []byte
	err error
}

// NewWriter starts a frame at level with a window of 2^windowLog bytes
// (0: the level's own) and long-distance matching when long is set.
// Close ends the frame and frees the library's context.
func NewWriter(w io.Writer, level, windowLog int, long bool) (*Writer, error) {
	c := C.ZSTD_createCCtx()
	if c == nil {
		return nil, errors.New("zstd: cannot create a compression context")
	}
	z := &Writer{c: c, w: w, out: make([]byte, 1<<17)}
	set := func(p, v int) {
		if z.err == nil {
			z.err = zerr(C.ZSTD_CCtx_setParameter(c, C.int(p), C.int(v)))
		}
	}
	set(cCompressionLevel, level)
	if windowLog > 0 {
		set(cWindowLog, windowLog)
	}
	if long {
		set(cEnableLDM, 1)
	}
	if z.err != nil {
		C.ZSTD_freeCCtx(c)
		return nil, z.err
	}
	return z, nil
}

// Write compresses p.
func (z *Writer) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, z.err
	}
	var pos C.size_t
	for z.err == nil && int(pos) < len(p) {
		z.step(p, &pos, eContinue)
	}
	return int(pos), z.err
}

// Close ends the frame, writes what is left and frees the context.
func (z *Writer) Close() error {
	if z.c == nil {
		return z.err
	}
	var pos C.size_t
	for z.err == nil && z.step(nil, &pos, eEnd) != 0 {
	}
	C.ZSTD_freeCCtx(z.c)
	z.c = nil
	return z.err
}

// step runs one compression call on p from *pos and writes its output;
// it returns what the library says remains to flush.
func (z *Writer) step(p []byte, pos *C.size_t, end int) C.size_t {
	var src unsafe.Pointer
	if len(p) > 0 {
		src = unsafe.Pointer(&p[0])
	}
	var dpos C.size_t
	r := C.bw_stream(z.c, unsafe.Pointer(&z.out[0]), C.size_t(len(z.out)), &dpos, src, C.size_t(len(p)), pos, C.int(end))
	if err := zerr(r); err != nil {
		z.err = err
		return 0
	}
	if dpos > 0 {
		if _, err := z.w.Write(z.out[:dpos]); err != nil {
			z.err = err
		}
	}
	return r
}

func zerr(r C.size_t) error {
	if C.ZSTD_isError(r) != 0 {
		return errors.New("zstd: " + C.GoString(C.ZSTD_getErrorName(r)))
	}
	return nil
}
