package chunk

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// pages returns n versions of a few synthetic "URLs": each capture edits
// a few random tokens of the previous one, and every capture of one crawl
// shares its new token, as the corpus does.
func pages(seed uint64, urls, crawls, size int) [][][]byte {
	r := rand.New(rand.NewPCG(seed, 1))
	word := func() []byte {
		b := make([]byte, 4+r.IntN(12))
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		return b
	}
	out := make([][][]byte, urls)
	for u := range out {
		var p []byte
		for len(p) < size {
			p = append(p, word()...)
			p = append(p, ' ')
		}
		out[u] = append(out[u], p)
	}
	for range crawls - 1 {
		token := word()
		for u := range out {
			p := bytes.Clone(out[u][len(out[u])-1])
			for range 3 {
				i := r.IntN(len(p))
				p = append(p[:i], append(bytes.Clone(token), p[i:]...)...)
			}
			out[u] = append(out[u], p)
		}
	}
	return out
}

type stored struct {
	data []byte
	refs []uint64
	code []byte
	prev int // index of the previous capture's stored entry, or -1
}

// storeAll writes pages in URL/time order through one Writer per batch
// of URLs (a later batch continues the file with prior set), and returns
// the file, its directory and what was stored.
func storeAll(t *testing.T, vs [][][]byte, opts Options, batches int) (*os.File, Directory, []stored) {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "chunks"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	var dir Directory
	var all []stored
	last := map[int]int{}
	longest := 0
	for _, v := range vs {
		longest = max(longest, len(v))
	}
	per := (longest + batches - 1) / batches
	for b := 0; b < batches; b++ {
		var prior *Reader
		if len(dir) > 0 {
			if prior, err = NewReader(f, dir, 0); err != nil {
				t.Fatal(err)
			}
		}
		w, err := NewWriter(f, prior, opts)
		if err != nil {
			t.Fatal(err)
		}
		for u := range vs {
			for c := b * per; c < min((b+1)*per, len(vs[u])); c++ {
				p := -1
				var prev []uint64
				if i, ok := last[u]; ok {
					p, prev = i, all[i].refs
				}
				data := vs[u][c]
				cut := len(data) / 3 // two parts: boundaries kept
				refs, err := w.Put([]Part{{Data: data[:cut], Class: uint8(c % Classes)}, {Data: data[cut:], Class: 2}}, prev)
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, stored{data: data, refs: refs, code: EncodeRefs(nil, refs, prev), prev: p})
				last[u] = len(all) - 1
			}
		}
		if dir, err = w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return f, dir, all
}

// TestBoundBinds checks the restore bound's test case is one where the
// bound has work: unbounded, some version names more than 2 frames.
func TestBoundBinds(t *testing.T) {
	vs := pages(7, 6, 12, 60_000)
	_, dir, all := storeAll(t, vs, Options{FrameSize: 128 << 10, MaxFrames: -1}, 2)
	most := 0
	for _, s := range all {
		n, _ := dir.Cost(s.refs)
		most = max(most, n)
	}
	if most <= 2 {
		t.Fatalf("unbounded, versions name at most %d frames: bound-2 of TestRoundTrip tests nothing", most)
	}
}

func TestRoundTrip(t *testing.T) {
	vs := pages(7, 6, 12, 60_000)
	for _, tc := range []struct {
		name    string
		opts    Options
		batches int
	}{
		{"default", Options{FrameSize: 64 << 10}, 1},
		{"three-writers", Options{FrameSize: 64 << 10}, 3},
		{"bound-2", Options{FrameSize: 128 << 10, MaxFrames: 2}, 2},
		{"tiny-table-purego", Options{FrameSize: 64 << 10, TableEntries: 64, PureGo: true}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, dir, all := storeAll(t, vs, tc.opts, tc.batches)
			r, err := NewReader(f, dir, 4<<20)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Verify(); err != nil {
				t.Fatal(err)
			}
			raw := restoreAll(t, r, all)
			for i, s := range all {
				refs := s.refs
				if n, _ := dir.Cost(refs); tc.opts.MaxFrames > 0 && n > tc.opts.MaxFrames {
					t.Errorf("version %d touches %d frames, bound %d", i, n, tc.opts.MaxFrames)
				}
			}
			// Edits of a few tokens: deduplication must store far less
			// than the versions, whatever the batches (a tiny table
			// forgets chunks: it must restore, need not be small).
			if end := dir.End(); tc.opts.TableEntries == 0 && end*10 > raw {
				t.Errorf("chunk file %d bytes for %d bytes of versions: deduplication failed", end, raw)
			}
		})
	}
}

// TestPriorReuse checks that a second Writer reuses the chunks of a
// URL's previous capture stored by the first, though its table is new.
func TestPriorReuse(t *testing.T) {
	vs := pages(3, 2, 2, 100_000)
	// Without the seed, which would find them anyway.
	_, _, all := storeAll(t, vs, Options{FrameSize: 1 << 20, SeedBytes: -1}, 2)
	checked := 0
	for _, s := range all {
		if s.prev < 0 {
			continue
		}
		set := map[uint64]bool{}
		for _, r := range all[s.prev].refs {
			set[r] = true
		}
		reused := 0
		for _, r := range s.refs {
			if set[r] {
				reused++
			}
		}
		if reused*10 < len(s.refs)*8 {
			t.Errorf("a capture reuses %d of its %d chunks from the previous one", reused, len(s.refs))
		}
		checked++
	}
	if checked != 2 {
		t.Fatalf("%d captures had a previous one, want 2", checked)
	}
}

func TestCorruptFrame(t *testing.T) {
	vs := pages(5, 2, 3, 50_000)
	f, dir, all := storeAll(t, vs, Options{FrameSize: 16 << 10}, 1)
	if _, err := f.WriteAt([]byte{0xff ^ readByte(t, f, dir[1].Offset+5)}, dir[1].Offset+5); err != nil {
		t.Fatal(err)
	}
	r, _ := NewReader(f, dir, 0)
	err := r.Verify()
	ce, ok := err.(*CorruptError)
	if !ok || ce.Frame != 1 {
		t.Fatalf("Verify after damage to frame 1: %v", err)
	}
	hit := 0
	for i, s := range all {
		if n, _ := (Directory{dir[1]}).Cost(s.refs); n == 0 {
			continue
		}
		hit++
		if _, err := r.Restore(nil, s.refs); err == nil {
			t.Errorf("version %d names chunks of the damaged frame, yet restores", i)
		}
	}
	if hit == 0 {
		t.Fatal("no version names frame 1: the test damages nothing used")
	}
}

func readByte(t *testing.T, f *os.File, off int64) byte {
	var b [1]byte
	if _, err := f.ReadAt(b[:], off); err != nil {
		t.Fatal(err)
	}
	return b[0]
}

// restoreAll decodes every stored ref list against its predecessor's,
// checks it names the refs Put returned, restores it and compares with
// the stored bytes. It returns the bytes restored.
func restoreAll(t *testing.T, r *Reader, all []stored) int64 {
	t.Helper()
	var raw int64
	var buf []byte
	for i, s := range all {
		raw += int64(len(s.data))
		var prev []uint64
		if s.prev >= 0 {
			prev = all[s.prev].refs
		}
		refs, err := DecodeRefs(nil, s.code, prev, len(s.data))
		if err != nil {
			t.Fatalf("version %d: %v", i, err)
		}
		if !slices.Equal(refs, s.refs) {
			t.Fatalf("version %d: decoded ref list differs from Put's", i)
		}
		buf, err = r.Restore(buf[:0], refs)
		if err != nil {
			t.Fatalf("version %d: %v", i, err)
		}
		if !bytes.Equal(buf, s.data) {
			t.Fatalf("version %d: restored %d bytes differ from the %d stored", i, len(buf), len(s.data))
		}
	}
	return raw
}

// TestPriorDamaged: a new version whose previous capture's frame no
// longer decodes (lost, after a repair without the original files) is
// still stored, whole, and restores; the damaged chunks only go
// unlearnt.
func TestPriorDamaged(t *testing.T) {
	vs := pages(9, 1, 2, 50_000)[0]
	f, err := os.Create(filepath.Join(t.TempDir(), "chunks"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := NewWriter(f, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	prev, err := w.Put([]Part{{Data: vs[0]}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{0xff ^ readByte(t, f, dir[0].Offset+20)}, dir[0].Offset+20); err != nil {
		t.Fatal(err)
	}
	prior, err := NewReader(f, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := prior.Restore(nil, prev); err == nil {
		t.Fatal("the damaged frame still restores: the test damages nothing used")
	}
	w, err = NewWriter(f, prior, Options{})
	if err != nil {
		t.Fatal(err)
	}
	refs, err := w.Put([]Part{{Data: vs[1]}}, prev)
	if err != nil {
		t.Fatalf("put with a damaged previous capture: %v", err)
	}
	more, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(f, append(dir, more...), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := r.Restore(nil, refs); err != nil || !bytes.Equal(got, vs[1]) {
		t.Fatalf("the new version does not restore: %v", err)
	}
}

// TestSeed: a Writer continuing a file finds the chunks of its last
// frames, up to SeedBytes of them, though no version it stores names
// them as previous: another URL's copy of a page stored by the Writer
// before costs only its edit, unless those frames lie beyond the seed.
func TestSeed(t *testing.T) {
	vs := pages(11, 2, 1, 200_000)
	page, filler := vs[0][0], vs[1][0]
	edited := slices.Concat(page[:100_000], []byte("an edit"), page[100_000:])
	for _, tc := range []struct {
		name    string
		seed    int
		first   []byte // stored by the first Writer, after page
		wantNew bool   // the second Writer stores edited's bytes again
	}{
		{"default", 0, nil, false},
		{"none", -1, nil, true},
		// The filler's frames take the whole seed: the page's are older.
		{"beyond", 200_000, filler, true},
		{"within", 600_000, filler, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := os.Create(filepath.Join(t.TempDir(), "chunks"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			opts := Options{FrameSize: 64 << 10, SeedBytes: tc.seed}
			w, err := NewWriter(f, nil, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range [][]byte{page, tc.first} {
				if _, err := w.Put([]Part{{Data: v, Class: 2}}, nil); err != nil {
					t.Fatal(err)
				}
			}
			dir, err := w.Close()
			if err != nil {
				t.Fatal(err)
			}
			prior, err := NewReader(f, dir, 0)
			if err != nil {
				t.Fatal(err)
			}
			w, err = NewWriter(f, prior, opts)
			if err != nil {
				t.Fatal(err)
			}
			refs, err := w.Put([]Part{{Data: edited, Class: 2}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			stored := w.Stats().NewBytes
			more, err := w.Close()
			if err != nil {
				t.Fatal(err)
			}
			if got := stored > int64(len(edited))/2; got != tc.wantNew {
				t.Errorf("the second writer stored %d new bytes of the %d-byte edited page; want stored again: %v", stored, len(edited), tc.wantNew)
			}
			if !tc.wantNew && stored > 8192 {
				t.Errorf("%d new bytes for a 7-byte edit", stored)
			}
			r, err := NewReader(f, append(dir, more...), 0)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := r.Restore(nil, refs); err != nil || !bytes.Equal(got, edited) {
				t.Fatalf("the edited page does not restore: %v", err)
			}
		})
	}
}

// TestWarmCacheDecodesOnce: a Reader whose cache can hold every frame
// decodes each at most once however reads interleave, after a large frame
// was evicted. (The large frame's buffer, kept for reuse, once went under
// a small frame and counted as its size, so the cache held a few frames
// where it could hold all, and a capture read block by block from two
// chains decoded them again at every switch: restores of a warm archive
// decoded ten times what cold ones did.)
func TestWarmCacheDecodesOnce(t *testing.T) {
	vs := pages(11, 6, 24, 20_000)
	// A URL whose last capture is large: its own frame, written last.
	big := make([][]byte, 24)
	for c := range big {
		big[c] = fmt.Appendf(nil, "small capture %d", c)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	big[23] = make([]byte, 1<<20)
	for i := range big[23] {
		big[23][i] = byte(rng.Uint32())
	}
	vs = append(vs, big)
	f, dir, all := storeAll(t, vs, Options{ChainBytes: 256 << 10}, 24)
	var plain, largest int64
	chains := 0
	for i := range dir {
		plain += int64(dir[i].Plain)
		largest = max(largest, int64(dir[i].Plain))
		if dir[i].Prefix == 0 {
			chains++
		}
	}
	if largest < 1<<20 || chains < 3 {
		t.Fatalf("largest frame %d B, %d chains: the case needs both", largest, chains)
	}
	r, err := NewReader(f, dir, plain+plain/8)
	if err != nil {
		t.Fatal(err)
	}
	chunkwise := func() {
		for _, s := range all {
			for _, c := range s.refs {
				if _, err := r.Chunk(c); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	chunkwise()
	r.dropCache() // the large frame's buffer is kept for reuse
	d0 := r.DecodedBytes()
	for range 3 {
		chunkwise()
	}
	if got := r.DecodedBytes() - d0; got > plain {
		t.Fatalf("%d frames in %d chains: three warm passes decoded %d bytes; the file holds %d: frames decoded again", len(dir), chains, got, plain)
	}
}

// TestRestoreManyDecodesOnce: the versions of several URLs restored
// together (a capture's objects) come back whole and in order, and decode
// each frame they name at most once, through a cache that holds one
// frame; restored one by one they decode frames again.
func TestRestoreManyDecodesOnce(t *testing.T) {
	vs := pages(13, 8, 12, 30_000)
	f, dir, all := storeAll(t, vs, Options{FrameSize: 64 << 10, ChainBytes: -1}, 3)
	var lists [][]uint64
	for i := 0; i < len(all); i += 5 {
		lists = append(lists, all[i].refs)
	}
	var flat []uint64
	for _, l := range lists {
		flat = append(flat, l...)
	}
	_, cost := dir.Cost(flat)
	r, err := NewReader(f, dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.RestoreMany(lists)
	if err != nil {
		t.Fatal(err)
	}
	for k, i := 0, 0; i < len(all); k, i = k+1, i+5 {
		if !bytes.Equal(got[k], all[i].data) {
			t.Fatalf("version %d: %d bytes restored, %d stored", i, len(got[k]), len(all[i].data))
		}
	}
	if d := r.DecodedBytes(); d > cost {
		t.Errorf("RestoreMany decoded %d bytes, the frames it names hold %d", d, cost)
	}
	r.dropCache()
	d0 := r.DecodedBytes()
	for _, l := range lists {
		if _, err := r.Restore(nil, l); err != nil {
			t.Fatal(err)
		}
	}
	if d := r.DecodedBytes() - d0; d <= cost {
		t.Errorf("one by one decoded %d bytes, no more than the %d of the frames: the case tests nothing", d, cost)
	}
}

// TestGoLevel: klauspost compresses at GoLevel (the fast tier's level):
// a fast level writes a larger chunk file than the default best level,
// and it restores.
func TestGoLevel(t *testing.T) {
	vs := pages(5, 3, 4, 40_000)
	size := map[zstd.EncoderLevel]int64{}
	for _, l := range []zstd.EncoderLevel{0, zstd.SpeedFastest} {
		f, dir, all := storeAll(t, vs, Options{FrameSize: 64 << 10, PureGo: true, GoLevel: l}, 1)
		r, err := NewReader(f, dir, 4<<20)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Verify(); err != nil {
			t.Fatal(err)
		}
		restoreAll(t, r, all)
		size[l] = dir.End()
	}
	if size[zstd.SpeedFastest] <= size[0] {
		t.Errorf("chunk file %d bytes at SpeedFastest, %d at the default level: the level was not used", size[zstd.SpeedFastest], size[0])
	}
}
