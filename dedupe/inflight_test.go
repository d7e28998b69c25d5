package dedupe

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/gencrawl"
)

// TestFramesInFlightSameArchive: an ingest of new bytes enough for
// several frames of chunks in one commit, where frames of chunks
// compress two at a time when the pack writer has two workers
// (pack's chunkFrames), writes the same files with one worker and two:
// where a frame of chunks enters the pack does not depend on how many
// compress at once. (TestWorkersSameArchive's commits of 1 MiB hold a
// frame of chunks or two: they do not see it.)
func TestFramesInFlightSameArchive(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: two ingests of 14 MB of new bytes")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "site.warc")
	if err := gencrawl.WriteWARC(in, "http://a.example", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), gencrawl.Site(7, 1500, 9000)); err != nil {
		t.Fatal(err)
	}
	var first map[string][]byte
	for _, w := range []int{1, 2} {
		arch := filepath.Join(dir, fmt.Sprintf("w%d.bwa", w))
		opts := Options{Workers: w, MemLimit: 1 << 30}
		opts.Pack.Workers = w
		if _, err := Ingest(context.Background(), arch, []string{in}, opts); err != nil {
			t.Fatal(err)
		}
		s, err := pack.Open(arch, pack.Options{})
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.Stats()
		s.Close()
		if err != nil || st.ChunkFrames < 4 {
			t.Fatalf("%d workers: %d frames of chunks (%v), want several in flight", w, st.ChunkFrames, err)
		}
		files := archiveFiles(t, arch)
		if first == nil {
			first = files
			continue
		}
		sameFiles(t, fmt.Sprintf("1 worker against %d", w), files, first)
	}
}
