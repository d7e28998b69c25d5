package pack

import (
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestNativeMemoryCountsChunkFrames: the memory outside the Go heap that
// callers leave room for (dedupe.SplitMemory's Go heap limit) counts the
// frames of chunks compressing beside the pack's frames. Without them,
// ingest -mem 64MiB of a collection of new bytes peaked at 334 MiB, over
// -mem + 256 MiB (make bench-rss, large).
func TestNativeMemoryCountsChunkFrames(t *testing.T) {
	if !haveLibzstd {
		if n := (Options{Workers: 2}).NativeMemory(); n != 0 {
			t.Fatalf("no reference library, %d bytes of native memory", n)
		}
		return
	}
	for _, c := range []struct{ workers, pack, chunks int64 }{{1, 1, 1}, {2, 3, 2}, {8, 9, chunkFrames}} {
		want := c.pack*160<<20 + c.chunks*chunkFrameNative
		if got := (Options{Workers: int(c.workers)}).NativeMemory(); got != want {
			t.Errorf("%d workers: %d MiB, want %d MiB (%d pack frames, %d frames of chunks)", c.workers, got>>20, want>>20, c.pack, c.chunks)
		}
	}
	if n := (Options{Workers: 2, Level: zstd.SpeedBetterCompression}).NativeMemory(); n != 0 {
		t.Errorf("fast tier: %d bytes of native memory, want 0", n)
	}
}
