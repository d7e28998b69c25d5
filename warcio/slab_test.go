package warcio

import (
	"bytes"
	"io"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
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

// TestSlabHugePages: where the kernel gives transparent huge pages on
// madvise, 64 MiB of blocks read through slabs take far fewer page
// faults than one per 4 KiB page: 237 here; without hugePages' madvise,
// 16,718.
func TestSlabHugePages(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory faults beside the slabs measured")
	}
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
	faults := after.Minflt - before.Minflt
	t.Logf("%d blocks, %d page faults", len(keep), faults)
	if faults > 2048 {
		t.Errorf("%d page faults for 64 MiB of blocks", faults)
	}
}
