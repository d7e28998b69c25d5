package warcio

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// TestSlabBlocks: blocks read through a slab are the bytes ReadBlock
// reads, whatever their declared length says (true, too short, too
// long, unknown, beyond slabBlockMax), and appending to one never
// changes the next (a slab's block has its length as capacity).
func TestSlabBlocks(t *testing.T) {
	var sl slab
	block := func(i, n int) []byte { return bytes.Repeat([]byte{byte('a' + i%26)}, n) }
	cases := []struct{ n, declared int }{
		{1000, 1000}, {0, 0}, {500, 400}, {300, 900}, {700, -1}, {slabBlockMax + 10, slabBlockMax + 10},
		{2000, 2000}, {slabBlockMax - 1, slabBlockMax - 1}, {slabBlockMax / 2, slabBlockMax / 2}, {10, 10},
	}
	var got [][]byte
	for i, c := range cases {
		b, err := sl.readBlock(bytes.NewReader(block(i, c.n)), int64(c.declared))
		if err != nil {
			t.Fatal(err)
		}
		if c.declared >= 0 && c.declared < slabBlockMax && cap(b) != len(b) {
			t.Errorf("block %d: capacity %d, length %d", i, cap(b), len(b))
		}
		got = append(got, b)
	}
	for i := range got {
		_ = append(got[i], strings.Repeat("!", 64)...)
	}
	for i, c := range cases {
		if !bytes.Equal(got[i], block(i, c.n)) {
			t.Errorf("block %d (%d bytes, %d declared) read back wrong", i, c.n, c.declared)
		}
	}
}

// TestSlabHugePages: every slab's 2 MiB-aligned part is advised for
// huge pages: the kernel marks its mapping "hg" (VmFlags in
// /proc/self/smaps), which a slab without hugePages' madvise lacks.
// Whether the kernel then finds free huge pages depends on the machine's
// memory, not on this code: the page faults are logged (237 for 64 MiB
// of blocks where it did, 16,718 without the advice), not asserted.
func TestSlabHugePages(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux only")
	}
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || bytes.Contains(mode, []byte("[never]")) {
		t.Skipf("no transparent huge pages: %q %v", mode, err)
	}
	src := bytes.Repeat([]byte("0123456789abcdef"), 64<<10/16)
	var sl slab
	var keep [][]byte
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	for range 1024 {
		b, err := sl.readBlock(io.NopCloser(bytes.NewReader(src)), int64(len(src)))
		if err != nil {
			t.Fatal(err)
		}
		keep = append(keep, b)
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	t.Logf("%d blocks, %d page faults", len(keep), after.Minflt-before.Minflt)
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	// Blocks 0, 256, 512 and 768 start slabs' carved parts (16 MiB
	// slabs hold 14 to 16 MiB of whole 2 MiB pages: 224 to 256 blocks
	// of 64 KiB + 1), so check the mapping of a block well inside each.
	for _, i := range []int{100, 400, 700, 1000} {
		if !advisedHuge(t, smaps, uintptr(unsafe.Pointer(&keep[i][0]))) {
			t.Errorf("block %d is not in memory advised for huge pages", i)
		}
	}
	runtime.KeepAlive(keep)
}

// advisedHuge reports whether the mapping of /proc/self/smaps holding
// addr has the "hg" flag (madvise MADV_HUGEPAGE).
func advisedHuge(t *testing.T, smaps []byte, addr uintptr) bool {
	t.Helper()
	in := false
	for line := range strings.Lines(string(smaps)) {
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return slices.Contains(strings.Fields(line)[1:], "hg")
		}
	}
	return false
}
