//go:build cgo

// The vendored libdeflate's lib/utils.c, under the names of ld_prefix.h.
#include "ld_prefix.h"
#include "libdeflate/lib/utils.c"
