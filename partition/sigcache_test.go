package partition

import (
	"hash/crc64"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"
)

// uncached is r without its cache of leaf keys and signatures: Match of
// it computes everything afresh.
func uncached(r *Result) *Result {
	c := *r
	c.keys = nil
	return &c
}

// TestMatchSignatureCache: Match with the signatures a Result keeps
// (each page matched as the new one, then as the old one, under two
// SimOptions in turn) gives the pairs Match gives computing them afresh;
// and so it does from goroutines sharing the Results (go test -race).
func TestMatchSignatureCache(t *testing.T) {
	kept := 0
	defer func() {
		if kept == 0 {
			t.Error("no signature kept")
		}
	}()
	optss := []SimOptions{{}, {Window: 2, Threshold: 0.5, TextThreshold: 0.6, SketchSize: 8}}
	for _, name := range []string{"deploying-warning", "home-build-date", "home-meta-and-strong", "lovescout24-privacy-swiss-rep", "release-notes-new-version", "theme-languages"} {
		var pages []*Result
		for _, f := range []string{".old.html", ".new.html", ".old.html", ".new.html"} {
			r, err := Partition(readPair(t, name+f), Options{})
			if err != nil {
				t.Fatal(err)
			}
			pages = append(pages, r)
		}
		check := func(t *testing.T, rounds int) {
			for range rounds {
				for i := 1; i < len(pages); i++ {
					for _, opts := range optss {
						got := Match(pages[i-1], pages[i], opts)
						want := Match(uncached(pages[i-1]), uncached(pages[i]), opts)
						if !reflect.DeepEqual(got, want) {
							t.Errorf("%s, pages %d→%d, %+v: the cached signatures pair %s, fresh ones %s", name, i-1, i, opts, pairKinds(got), pairKinds(want))
						}
					}
				}
			}
		}
		check(t, 2)
		kept += len(pages[1].keys.sigs)
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				check(t, 1)
			}()
		}
		wg.Wait()
	}
}

// freshSignature is NewSignature as it was before its walkers were
// pooled: every slice allocated for the one signature.
func freshSignature(r *Result, b *Block, opts SimOptions) Signature {
	opts = opts.withDefaults()
	sig := Signature{opts: opts}
	if r == nil || b == nil || b.Node == nil {
		return sig
	}
	w := sigWalker{res: r, opts: opts}
	for _, n := range blockNodes(b) {
		w.walk(n, fnvOffset, fnvOffset, 0)
	}
	w.flushWords()
	shingle := func(paths []uint64) []uint64 {
		var sw sigWalker
		return slices.Clone(sw.shingle(paths, opts.Window))
	}
	sig.tag = bottomK(shingle(w.tagPaths), opts.SketchSize)
	sig.vis = bottomK(shingle(w.visPaths), opts.SketchSize)
	sig.text = bottomK(w.words, opts.SketchSize)
	return sig
}

// TestSignaturePooled: NewSignature, whose walkers and their scratch
// memory serve one signature after another (large blocks and small in
// turn, from goroutines at once under go test -race), gives every block
// of the test pages the signature of a walker of its own.
func TestSignaturePooled(t *testing.T) {
	var pages []*Result
	for _, name := range []string{"deploying-warning.old.html", "lovescout24-privacy-swiss-rep.new.html", "theme-languages.new.html"} {
		r, err := Partition(readPair(t, name), Options{})
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, r)
	}
	opts := SimOptions{SketchSize: 16}
	check := func() {
		for _, r := range pages {
			blocks := append(slices.Clone(r.Leaves), r.Blocks...)
			for _, b := range blocks {
				for _, o := range []SimOptions{{}, opts} {
					got, want := NewSignature(r, b, o), freshSignature(r, b, o)
					if !reflect.DeepEqual(got, want) {
						t.Errorf("%s [%d,%d): pooled signature %v, fresh %v", b.Path, b.Start, b.End, got, want)
						return
					}
				}
			}
		}
	}
	check()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			check()
		}()
	}
	wg.Wait()
}

// TestMatchKeysOnlyEqual: Match depends on which leaves' keys are equal,
// not on the hash that makes them: with the CRC-64 keys of before, each
// pair of test pages aligns as with the XXH3 keys.
func TestMatchKeysOnlyEqual(t *testing.T) {
	tab := crc64.MakeTable(crc64.ECMA)
	withCRC := func(r *Result) *Result {
		c := uncached(r)
		c.keys = &leafKeyCache{}
		c.keys.once.Do(func() {
			for _, b := range c.Leaves {
				bb := blockBytes(c, b)
				c.keys.h = append(c.keys.h, mix(crc64.Checksum(bb, tab)^uint64(len(bb))*fnvPrime))
			}
		})
		return c
	}
	for _, name := range []string{"deploying-warning", "home-build-date", "home-meta-and-strong", "lovescout24-privacy-swiss-rep", "release-notes-new-version", "theme-languages"} {
		a, err := Partition(readPair(t, name+".old.html"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Partition(readPair(t, name+".new.html"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, pair := range [][2]*Result{{a, b}, {b, a}, {a, a}} {
			got := Match(pair[0], pair[1], SimOptions{})
			want := Match(withCRC(pair[0]), withCRC(pair[1]), SimOptions{})
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: XXH3 keys pair %s, CRC-64 keys %s", name, pairKinds(got), pairKinds(want))
			}
		}
	}
}

// TestBottomKBound: bottomK's shortcut for many hashes (sorting only
// those below a bound) keeps the k smallest distinct hashes that
// sorting them all keeps, with duplicates, skewed hashes that leave too
// few below the bound, and sizes around the shortcut's threshold.
func TestBottomKBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ref := func(h []uint64, k int) []uint64 {
		h = slices.Clone(h)
		slices.Sort(h)
		h = slices.Compact(h)
		return h[:min(k, len(h))]
	}
	for _, k := range []int{1, 2, 16, 256} {
		for _, n := range []int{0, 1, k, 2 * k, 2*k + 1, 3 * k, 20 * k, 300 * k} {
			for _, kind := range []string{"uniform", "duplicates", "few", "large"} {
				h := make([]uint64, n)
				for i := range h {
					switch kind {
					case "uniform":
						h[i] = rng.Uint64()
					case "duplicates":
						h[i] = mix(uint64(rng.IntN(max(n/8, 1))))
					case "few": // fewer than k distinct values
						h[i] = mix(uint64(rng.IntN(max(k/2, 1))))
					case "large": // none below the bound
						h[i] = math.MaxUint64 - uint64(rng.IntN(1<<20))
					}
				}
				want := ref(h, k)
				got := bottomK(slices.Clone(h), k)
				if !slices.Equal(got, want) || (len(want) == 0) != (len(got) == 0) {
					t.Errorf("k %d, %d %s hashes: bottomK kept %d (%v…), sorting all %d", k, n, kind, len(got), got[:min(3, len(got))], len(want))
				}
			}
		}
	}
}
