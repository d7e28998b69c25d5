//go:build cgo

// The vendored zlib's crc32.c, under the names of zlib_prefix.h.
#include "zlib_prefix.h"
#include "zlib/crc32.c"
