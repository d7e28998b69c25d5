//go:build cgo

// The vendored zlib's adler32.c, under the names of zlib_prefix.h.
#include "zlib_prefix.h"
#include "zlib/adler32.c"
