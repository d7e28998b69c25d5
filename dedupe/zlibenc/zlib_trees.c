//go:build cgo

// The vendored zlib's trees.c, under the names of zlib_prefix.h.
#include "zlib_prefix.h"
#include "zlib/trees.c"
