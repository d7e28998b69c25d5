package dedupe

import (
	"testing"

	"blockwarc/dedupe/pack"
)

// TestSplitMemory checks the one division of the memory budget: the
// records held (sort and in flight) never exceed it, at least two jobs
// fit in flight, one compressing frame per 256 MiB up to the workers,
// and the Go heap leaves room for the native zstd state.
func TestSplitMemory(t *testing.T) {
	for _, c := range []struct {
		mem      int64
		workers  int
		compress int
	}{
		{64 << 20, 4, 1}, {256 << 20, 1, 1}, {1 << 30, 2, 2}, {1 << 30, 8, 4}, {4 << 30, 8, 8}, {0, 2, 2},
	} {
		b := SplitMemory(c.mem, c.workers)
		mem := c.mem
		if mem <= 0 {
			mem = 1 << 30
		}
		table := int64(b.ChunkTable) * chunkEntryBytes
		if b.Sort+b.InFlight+table > max(mem, minInFlight+table+1) || b.Sort <= 0 || b.InFlight < minInFlight {
			t.Errorf("mem %d: sort %d + in flight %d + chunk table %d", mem, b.Sort, b.InFlight, table)
		}
		if b.ChunkTable < 64<<10 || b.ChunkTable > 2<<20 || mem >= 1<<30 && b.ChunkTable < 1<<20 {
			t.Errorf("mem %d: chunk table of %d entries", mem, b.ChunkTable)
		}
		if b.Compress != c.compress {
			t.Errorf("mem %d, %d workers: %d frames compressing, want %d", mem, c.workers, b.Compress, c.compress)
		}
		if want := mem + 256<<20 - (pack.Options{Workers: b.Compress}).NativeMemory(); b.GoHeap != want {
			t.Errorf("mem %d: Go heap %d, want %d", mem, b.GoHeap, want)
		}
	}
}
