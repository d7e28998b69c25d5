package warcio

import "io"

// slab hands out the memory of the blocks one walk worker holds for the
// sort, carved from large allocations the kernel may back with huge
// pages (hugePages). The sort holds every record of an ingest at once in
// memory it never touched before: with 4 KiB pages that was one page
// fault per 4 KiB of records, a fifth of a fast-tier ingest's CPU on a
// VM where a fault costs about 9 µs (ota-tinder: 56,000 faults for 190
// MB of records). A slab is freed once every block carved from it is.
type slab struct{ free []byte }

// slabSize is what a slab allocates at a time. Only its whole 2 MiB
// pages are carved (hugePages): the unaligned ends, at most 2 MiB, are
// never touched, so they cost address space and heap accounting but no
// memory. Blocks over slabBlockMax are allocated alone, so that a slab is
// not left with a large unused tail.
const (
	slabSize     = 16 << 20
	slabBlockMax = 1 << 20
)

// readBlock reads a block of declared bytes (its Content-Length, which may
// lie) as ReadBlock does. The block's capacity is its length: appending to
// it never reaches its neighbours in the slab.
func (a *slab) readBlock(r io.Reader, declared int64) ([]byte, error) {
	if declared < 0 || declared >= slabBlockMax {
		return ReadBlock(r, declared, 1<<20)
	}
	n := int(declared) + 1 // room to see EOF without growing
	if cap(a.free) < n {
		a.free = hugePages(make([]byte, slabSize))
	}
	b, err := readBlockInto(r, a.free[:0:n])
	if len(b) == 0 {
		return []byte{}, err // not pointing into the slab, which it would keep
	}
	if cap(b) == n && &b[0] == &a.free[:1][0] {
		a.free = a.free[len(b):]
	} // else grown into memory of its own: the slab's part is free again
	return b[:len(b):len(b)], err
}
