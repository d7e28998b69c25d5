package chunk

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
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
				// The directory as a slice, and as any Frames (an
				// archive's, read on demand): the chains are gathered
				// frame by frame.
				for _, frames := range []Frames{dir, onDemand{dir}} {
					r, err := NewReader(f, frames, cache)
					if err != nil {
						t.Fatal(err)
					}
					restoreAll(t, r, all)
					if err := r.Verify(); err != nil {
						t.Fatal(err)
					}
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

// TestChainDictPays: after a frame longer than cheapDict, a frame of
// bytes that repeat it is compressed with the chain as dictionary, and a
// frame of unrelated bytes alone (the dictionary would cost a second of
// CPU at the best level and save nothing): its zstd frame names no
// dictionary, yet it stays in the chain, so that a third frame that
// repeats the first still has it as context. All restore, in both
// builds' compressors; a cold reader restores the frame that names no
// dictionary without decoding the chain before it.
func TestChainDictPays(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	words := pages(3, 1, 1, 3*cheapDict/2)[0][0] // text, > cheapDict
	noise := make([]byte, 60_000)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	// Edits every 3,000 bytes: about 70 new chunks, a body with a few
	// hundred anchors, most of them in the first frame.
	edit := func(b []byte, mark string) []byte {
		b = bytes.Clone(b)
		for i := 1000; i < len(b); i += 3000 {
			copy(b[i:], mark)
		}
		return b
	}
	edited := edit(words[:200_000], "an edit")
	again := edit(words[200_000:400_000], "a later edit")
	for _, pure := range []bool{false, true} {
		for _, tc := range []struct {
			name   string
			next   []byte
			usesIt bool // the second frame is compressed with the chain
		}{{"repeats", edited, true}, {"unrelated", noise, false}} {
			f, err := os.Create(filepath.Join(t.TempDir(), "chunks"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			w, err := NewWriter(f, nil, Options{PureGo: pure})
			if err != nil {
				t.Fatal(err)
			}
			versions := [][]byte{words, tc.next, again}
			var refs [][]uint64
			for _, data := range versions {
				r, err := w.Put([]Part{{Data: data}}, nil)
				if err != nil {
					t.Fatal(err)
				}
				refs = append(refs, r)
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
			}
			dir, err := w.Close()
			if err != nil {
				t.Fatal(err)
			}
			if len(dir) != 3 {
				t.Fatalf("%s: %d frames, want 3", tc.name, len(dir))
			}
			for i := 1; i < 3; i++ {
				if int(dir[i].Prefix) != i {
					t.Errorf("pure Go %v, %s: frame %d has prefix %d, want %d (the chain runs through every frame)", pure, tc.name, i, dir[i].Prefix, i)
				}
			}
			if got := bodyNamesDict(t, f, dir[1]); got != tc.usesIt {
				t.Errorf("pure Go %v, %s: second frame compressed with the chain %v, want %v", pure, tc.name, got, tc.usesIt)
			}
			// The third frame's new chunks are edits of bytes the first
			// frame holds (text that compresses to 60 % alone): with the
			// first frame in its dictionary they cost about 1 %.
			if !bodyNamesDict(t, f, dir[2]) || dir[2].Size*10 > dir[2].Plain {
				t.Errorf("pure Go %v, %s: third frame %d B of %d (dictionary %v): it lost the chain's context",
					pure, tc.name, dir[2].Size, dir[2].Plain, bodyNamesDict(t, f, dir[2]))
			}
			r, err := NewReader(f, dir, 0)
			if err != nil {
				t.Fatal(err)
			}
			for i, data := range versions {
				got, err := r.Restore(nil, refs[i])
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("%s: version %d does not restore: %v", tc.name, i, err)
				}
			}
			cold, err := NewReader(f, dir, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := cold.Restore(nil, refs[1]); err != nil || !bytes.Equal(got, versions[1]) {
				t.Fatalf("%s: version 1 does not restore from a cold reader: %v", tc.name, err)
			}
			want := int64(dir[0].Plain) + int64(dir[1].Plain)
			if !tc.usesIt {
				want = int64(dir[1].Plain) // its chunks and no dictionary
			}
			if got := cold.decoded; got != want {
				t.Errorf("pure Go %v, %s: a cold restore of the second frame decoded %d bytes, want %d", pure, tc.name, got, want)
			}
		}
	}
}

// bodyNamesDict says whether the zstd frame of fr's body names a
// dictionary.
func bodyNamesDict(t *testing.T, f *os.File, fr Frame) bool {
	t.Helper()
	b := make([]byte, fr.Size-fr.Table)
	if _, err := f.ReadAt(b, fr.Offset+int64(fr.Table)); err != nil {
		t.Fatal(err)
	}
	var h zstd.Header
	if err := h.Decode(b); err != nil {
		t.Fatal(err)
	}
	return h.DictionaryID != 0
}

// TestRestoreDecodesChainsOnce: a restore naming frames all along long
// chains, through a cache that holds one frame, decodes each frame of
// those chains at most once (Directory.Cost), whichever the order of its
// refs: Restore, RestoreMany, and RestoreRecords with its records; the
// cache used to push a chain's first frames out while it decoded the
// chain, and the next frame named in it decoded the chain again.
func TestRestoreDecodesChainsOnce(t *testing.T) {
	f, dir, all := storeAll(t, pages(31, 6, 24, 20_000), Options{}, 24)
	longest := 0
	for i := range dir {
		longest = max(longest, int(dir[i].Prefix))
	}
	if longest < 8 {
		t.Fatalf("longest chain %d frames: the test needs long ones", longest)
	}
	// Every version, the latest first: the frames named from the end of
	// the chains back to their start.
	var lists [][]uint64
	var want [][]byte
	var refs []uint64
	for k := len(all) - 1; k >= 0; k-- {
		lists = append(lists, all[k].refs)
		want = append(want, all[k].data)
		refs = append(refs, all[k].refs...)
	}
	_, cost := dir.Cost(refs)
	check := func(name string, r *Reader, d0 int64) {
		t.Helper()
		if d := r.DecodedBytes() - d0; d > cost {
			t.Errorf("%s decoded %d bytes, its chains hold %d", name, d, cost)
		}
	}
	r, err := NewReader(f, dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	var whole []byte
	for _, w := range want {
		whole = append(whole, w...)
	}
	got, err := r.Restore(nil, refs)
	if err != nil || !bytes.Equal(got, whole) {
		t.Fatalf("Restore: %v", err)
	}
	check("Restore", r, 0)
	r.dropCache()
	d0 := r.DecodedBytes()
	outs, err := r.RestoreMany(lists)
	if err != nil {
		t.Fatal(err)
	}
	for k := range outs {
		if !bytes.Equal(outs[k], want[k]) {
			t.Fatalf("RestoreMany: version %d differs", k)
		}
	}
	check("RestoreMany", r, d0)
	// Records: each version's first chunk stands for its record.
	r.dropCache()
	d0 = r.DecodedBytes()
	recs := make([]uint64, len(lists))
	for k, l := range lists {
		recs[k] = l[0]
	}
	outs, err = r.RestoreRecords(recs, func(k int, rec []byte) ([]uint64, error) {
		if !bytes.HasPrefix(want[k], rec) {
			t.Errorf("record %d is not the version's first chunk", k)
		}
		return lists[k], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k := range outs {
		if !bytes.Equal(outs[k], want[k]) {
			t.Fatalf("RestoreRecords: version %d differs", k)
		}
	}
	check("RestoreRecords", r, d0)
}

// TestChainDictLinear: reading a file's frames in order, as an ingest's
// seed and a compaction do, copies each chain body into the dictionary
// once (the dictionary was built anew for every frame, quadratic in a
// chain's length), and frames read in any order after that, across
// chains, with a cache of one frame, still decode to the same bytes.
func TestChainDictLinear(t *testing.T) {
	f, dir, _ := storeAll(t, pages(41, 6, 24, 20_000), Options{}, 24)
	longest := 0
	var plain int64
	for i := range dir {
		longest = max(longest, int(dir[i].Prefix))
		plain += int64(dir[i].Plain)
	}
	if longest < 8 {
		t.Fatalf("longest chain %d frames: the test needs long ones", longest)
	}
	r, err := NewReader(f, dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := make([][]byte, len(dir))
	for i := range dir {
		if err := r.eachChunk(i, func(_ uint64, c []byte) { want[i] = append(want[i], c...) }); err != nil {
			t.Fatal(err)
		}
	}
	if r.dictCopied > plain {
		t.Fatalf("reading %d frames in order copied %d bytes into dictionaries, the file holds %d", len(dir), r.dictCopied, plain)
	}
	rng := rand.New(rand.NewPCG(41, 2))
	for range 3 * len(dir) {
		i := rng.IntN(len(dir))
		var got []byte
		if err := r.eachChunk(i, func(_ uint64, c []byte) { got = append(got, c...) }); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want[i]) {
			t.Fatalf("frame %d read out of order differs", i)
		}
	}
	// The order read does not change what a fresh reader reads.
	fresh, err := NewReader(f, dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(dir) - 1; i >= 0; i-- {
		var got []byte
		if err := fresh.eachChunk(i, func(_ uint64, c []byte) { got = append(got, c...) }); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want[i]) {
			t.Fatalf("frame %d read backwards differs", i)
		}
	}
}

// onDemand is a Directory that is not one to the Reader: Frames as a
// directory read on demand gives them.
type onDemand struct{ d Directory }

func (o onDemand) Len() int                          { return o.d.Len() }
func (o onDemand) NextChunk() uint64                 { return o.d.NextChunk() }
func (o onDemand) Frame(i int) (Frame, error)        { return o.d.Frame(i) }
func (o onDemand) Find(c uint64) (int, Frame, error) { return o.d.Find(c) }
func (o onDemand) Whole() (Directory, error)         { return o.d, nil }
