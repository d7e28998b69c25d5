package dedupe

import (
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/pack"
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
		{64 << 20, 4, 1}, {256 << 20, 1, 1}, {1 << 30, 2, 2}, {1 << 30, 8, 4}, {4 << 30, 8, 8}, {16 << 30, 2, 2}, {0, 2, 2},
	} {
		b := SplitMemory(c.mem, c.workers, 0)
		mem := c.mem
		if mem <= 0 {
			mem = 1 << 30
		}
		if b.Tables != TableBytes(pack.DefaultChunkTable) {
			t.Errorf("mem %d: tables of %d bytes, want the archive default's %d", mem, b.Tables, TableBytes(0))
		}
		if b.Sort+b.InFlight+b.Tables > max(mem, minInFlight+b.Tables+minSort) || b.Sort < minSort || b.InFlight < minInFlight {
			t.Errorf("mem %d: sort %d + in flight %d + tables %d", mem, b.Sort, b.InFlight, b.Tables)
		}
		if b.Compress != c.compress {
			t.Errorf("mem %d, %d workers: %d frames compressing, want %d", mem, c.workers, b.Compress, c.compress)
		}
		if b.Cache < minCache || b.Cache > maxCache || b.Cache < min(mem/16, maxCache) {
			t.Errorf("mem %d: caches of %d bytes each", mem, b.Cache)
		}
		// Caches above the floor come out of the budget, as the sort's
		// memory does; at the floor they are beyond it.
		if held := b.Sort + b.InFlight + b.Tables + cachesBytes(b.Cache); b.Cache > minCache && b.Sort > minSort && held > mem {
			t.Errorf("mem %d: sort %d + in flight %d + tables %d + caches %d", mem, b.Sort, b.InFlight, b.Tables, cachesBytes(b.Cache))
		}
		if want := max(mem, b.Sort+b.InFlight+b.Tables) + 256<<20 - (pack.Options{Workers: b.Compress}).NativeMemory(); b.GoHeap != want {
			t.Errorf("mem %d: Go heap %d, want %d", mem, b.GoHeap, want)
		}
	}
}
