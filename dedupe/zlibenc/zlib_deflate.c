//go:build cgo

// The vendored zlib's deflate.c, under the names of zlib_prefix.h.
#include "zlib_prefix.h"
#include "zlib/deflate.c"
