//go:build cgo

// The vendored libdeflate's lib/x86/cpu_features.c, under the names of ld_prefix.h.
#include "ld_prefix.h"
#include "libdeflate/lib/x86/cpu_features.c"
