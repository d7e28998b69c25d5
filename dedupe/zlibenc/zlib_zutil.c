//go:build cgo

// The vendored zlib's zutil.c, under the names of zlib_prefix.h.
#include "zlib_prefix.h"
#include "zlib/zutil.c"
