//go:build cgo

// The vendored libdeflate's lib/deflate_decompress.c, under the names of ld_prefix.h.
#include "ld_prefix.h"
#include "libdeflate/lib/deflate_decompress.c"
