package warcio

import (
	"syscall"
	"unsafe"
)

// hugePages returns the 2 MiB-aligned part of b, which it asks the kernel
// to back with huge pages (madvise MADV_HUGEPAGE, 14 on Linux) where
// transparent huge pages are enabled "madvise" or "always": one page
// fault per 2 MiB instead of 512. It takes effect at once on memory not
// yet touched; the advice is a hint, and an error changes nothing.
func hugePages(b []byte) []byte {
	const huge = 2 << 20
	if len(b) < huge {
		return b
	}
	p := uintptr(unsafe.Pointer(&b[0]))
	start := (p + huge - 1) &^ (huge - 1)
	end := (p + uintptr(len(b))) &^ (huge - 1)
	if end <= start {
		return b
	}
	b = b[start-p : end-p : end-p]
	_ = syscall.Madvise(b, 14)
	return b
}
