package dedupe

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/internal/testhooks"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// captureFramesOpts are the options of the capture-bound tests: frames
// of chunks and chains of 16 KiB (BenchmarkScale's scaled bounds), so
// that a site's crawls, ingested one at a time, spread a page's blocks
// over many frames, and the bound k (0: none).
func captureFramesOpts(k int) Options {
	opts := testOpts()
	opts.Pack.ChainBytes = scaledFrame
	opts.Pack.CaptureFrames = k
	opts.Pack.SetTestHooks(testhooks.Pack{ChunkFrameSize: scaledFrame})
	return opts
}

// crawlsOf returns the first n crawls of a corpus site, in date order.
func crawlsOf(t testing.TB, site string, n int) []string {
	dir := sharedtest.Dir(t, "corpus", site)
	files, err := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	if err != nil || len(files) < n {
		t.Skipf("%s: %d crawls (%v)", site, len(files), err)
	}
	slices.Sort(files)
	return files[:n]
}

// coldDecoded restores each version of file in arch, each in the
// archive opened anew (cold caches), and returns the most plaintext
// bytes of frames one restore decoded.
func coldDecoded(t *testing.T, arch, file string) (most int64, n int) {
	a, vs := openVersions(t, arch)
	a.Close()
	for i := range vs {
		v := &vs[i]
		if v.File != file {
			continue
		}
		a, err := Open(arch, pack.Options{CacheBytes: 4 << 20})
		if err != nil {
			t.Fatal(err)
		}
		d0 := a.Store().DecodedBytes()
		if _, err := a.Restore(v); err != nil {
			t.Fatal(err)
		}
		most = max(most, a.Store().DecodedBytes()-d0)
		n++
		a.Close()
	}
	return most, n
}

// TestCaptureFramesBound: a site's crawls ingested one at a time, its
// pages' blocks changing at different crawls, so that a late capture's
// blocks lie in frames of many earlier ingests. With CaptureFrames k, a
// cold restore of any capture of the last crawl decodes at most k
// frames' worth of plaintext (16 KiB frames), give or take the frame
// the capture's own new bytes fill and its chain; without the bound it
// decodes more. Every record restores byte for byte, and the setting
// is recorded: a later ingest that gives none keeps it.
func TestCaptureFramesBound(t *testing.T) {
	if testing.Short() {
		t.Skip("40 ingests of corpus crawls, twice; -short")
	}
	const k = 10
	files := crawlsOf(t, "ota-tinder", 40)
	last := files[len(files)-1]
	var most [2]int64
	var size [2]int64
	for i, bound := range []int{0, k} {
		arch := filepath.Join(t.TempDir(), "a.bwa")
		var moved int64
		for j, f := range files {
			opts := captureFramesOpts(bound)
			if j > 0 {
				opts.Pack.CaptureFrames = 0 // the archive's
			}
			st, err := Ingest(context.Background(), arch, []string{f}, opts)
			if err != nil {
				t.Fatal(err)
			}
			moved += st.CaptureMoved
		}
		a, err := Open(arch, pack.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Store().Settings().CaptureFrames; got != bound {
			t.Errorf("bound %d: the archive records CaptureFrames %d", bound, got)
		}
		checkRoundTrip(t, a)
		a.Close()
		var n int
		most[i], n = coldDecoded(t, arch, last)
		size[i] = archiveBytes(t, arch)
		t.Logf("CaptureFrames %d: %d objects stored again, archive %d bytes, %d captures of the last crawl decode at most %d bytes", bound, moved, size[i], n, most[i])
		if bound == 0 && moved != 0 {
			t.Errorf("no bound, yet %d objects stored again", moved)
		}
	}
	// The bound, plus the frame the capture's new bytes go to and the
	// chain before it.
	limit := int64(k*scaledFrame + 2*scaledFrame)
	if most[1] > limit {
		t.Errorf("with CaptureFrames %d a capture decodes %d bytes, over %d", k, most[1], limit)
	}
	if most[0] <= limit {
		t.Errorf("without the bound the captures decode at most %d bytes: the test does not exercise it (limit %d)", most[0], limit)
	}
}

// TestCaptureFramesSameArchive: with the bound, an archive's bytes do
// not depend on the ingest's workers or memory.
func TestCaptureFramesSameArchive(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests corpus crawls three times; -short")
	}
	files := crawlsOf(t, "ota-tinder", 24)
	var first map[string][]byte
	for _, c := range []struct {
		workers int
		mem     int64
	}{{1, 64 << 20}, {3, 64 << 20}, {2, 1 << 30}} {
		arch := filepath.Join(t.TempDir(), "a.bwa")
		var moved int64
		for _, f := range files {
			opts := captureFramesOpts(4)
			opts.Workers, opts.Pack.Workers, opts.MemLimit = c.workers, c.workers, c.mem
			st, err := Ingest(context.Background(), arch, []string{f}, opts)
			if err != nil {
				t.Fatal(err)
			}
			moved += st.CaptureMoved
		}
		if moved == 0 {
			t.Fatalf("%+v: no object stored again: the bound is not exercised", c)
		}
		files := map[string][]byte{}
		ents, err := os.ReadDir(arch)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(arch, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			files[e.Name()] = b
		}
		if first == nil {
			first = files
			continue
		}
		if len(files) != len(first) {
			t.Fatalf("%+v wrote %d files, the first %d", c, len(files), len(first))
		}
		for name, b := range first {
			if !bytes.Equal(files[name], b) {
				t.Errorf("%+v: %s differs from the first archive", c, name)
			}
		}
	}
}
