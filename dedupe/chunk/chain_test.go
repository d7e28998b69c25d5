package chunk

import (
	"testing"
)

// TestChainsIncremental: one Writer per crawl (an ingest a crawl at a
// time) writes small frames; chained, each is compressed with the chain
// before it as dictionary, and the file comes out far smaller, every
// version restores (cold cache, tiny cache), Verify passes, and no
// restore decodes more than ChainBytes.
func TestChainsIncremental(t *testing.T) {
	vs := pages(11, 6, 24, 20_000)
	for _, pure := range []bool{false, true} {
		size := map[bool]int64{}
		for _, chained := range []bool{false, true} {
			opts := Options{PureGo: pure}
			if !chained {
				opts.ChainBytes = -1
			}
			f, dir, all := storeAll(t, vs, opts, 24)
			size[chained] = dir.End()
			if err := dir.CheckChains(); err != nil {
				t.Fatal(err)
			}
			longest := 0
			for i := range dir {
				longest = max(longest, int(dir[i].Prefix))
			}
			if chained != (longest > 0) {
				t.Fatalf("chained %v: longest prefix %d", chained, longest)
			}
			for _, cache := range []int64{0, 1} {
				r, err := NewReader(f, dir, cache)
				if err != nil {
					t.Fatal(err)
				}
				restoreAll(t, r, all)
				if err := r.Verify(); err != nil {
					t.Fatal(err)
				}
			}
			for _, s := range all {
				if _, plain := dir.Cost(s.refs); plain > int64(DefaultFrameSize) {
					t.Fatalf("a restore decodes %d bytes, over ChainBytes", plain)
				}
			}
		}
		t.Logf("pure Go %v: %d B chained, %d B not", pure, size[true], size[false])
		if size[true]*2 > size[false] {
			t.Fatalf("pure Go %v: chained %d B, not chained %d B: chains should halve it", pure, size[true], size[false])
		}
	}
}

// TestChainBounds: a chain never holds more than ChainBytes, and a frame
// that does not fit starts a new one.
func TestChainBounds(t *testing.T) {
	vs := pages(12, 4, 30, 8_000)
	const limit = 60_000
	f, dir, all := storeAll(t, vs, Options{ChainBytes: limit}, 30)
	starts := 0
	for i := range dir {
		var sum int64
		for j := dir.ChainStart(i); j <= i; j++ {
			sum += int64(dir[j].Plain)
		}
		if sum > limit {
			t.Fatalf("frame %d: chain of %d bytes over %d", i, sum, limit)
		}
		if dir[i].Prefix == 0 {
			starts++
		}
	}
	if starts < 2 || starts == len(dir) {
		t.Fatalf("%d chain starts in %d frames: the bound does not bind", starts, len(dir))
	}
	r, err := NewReader(f, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	restoreAll(t, r, all)
	// A directory whose prefix names no chain is refused on read.
	bad := append(Directory(nil), dir...)
	for i := range bad {
		if bad[i].Prefix > 0 {
			bad[i].Prefix++
			break
		}
	}
	if bad.CheckChains() == nil {
		t.Fatal("a broken chain passed CheckChains")
	}
}
