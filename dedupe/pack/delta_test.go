package pack

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// mutate returns a copy of b with a few bytes changed.
func mutate(r *rand.Rand, b []byte) []byte {
	c := bytes.Clone(b)
	for i := 0; i < 4; i++ {
		c[r.IntN(len(c))] ^= 0xff
	}
	return c
}

func depthOf(t *testing.T, s *Store, id ID) int {
	t.Helper()
	budget := maxDecodes
	_, _, fr, err := s.object(s, id, s.opts.MaxChain, &budget, true)
	if err != nil {
		t.Fatalf("read %s: %v", id, err)
	}
	return int(fr.depth)
}

func packBytes(t *testing.T, dir string) int64 {
	var n int64
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".pack") {
			fi, _ := e.Info()
			n += fi.Size()
		}
	}
	return n
}

func TestDeltaRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	s, dir := mustCreate(t, Options{Plain: true, noSync: true})
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	base := randBytes(r, 20000) // incompressible alone
	bid, _, _ := w.Add(KindPayload, base)
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	before := packBytes(t, dir)
	v2 := mutate(r, base)
	id2, isNew, err := w.AddDelta(KindPayload, v2, bid)
	if err != nil || !isNew {
		t.Fatalf("AddDelta: %v new=%v", err, isNew)
	}
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	if grew := packBytes(t, dir) - before; grew > 2000 {
		t.Fatalf("a 4-byte change of a 20000-byte base cost %d pack bytes", grew)
	}
	if got, _, err := s.Get(id2); err != nil || !bytes.Equal(got, v2) {
		t.Fatalf("Get delta object: %v", err)
	}
	if d := depthOf(t, s, id2); d != 1 {
		t.Fatalf("delta depth %d, want 1", d)
	}

	// A base in an uncommitted but flushed frame, and a base in the frame
	// being built (no dictionary needed: same frame).
	v3 := mutate(r, v2)
	id3, _, _ := w.AddDelta(KindPayload, v3, id2)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	v4 := mutate(r, v3)
	id4, _, err := w.AddDelta(KindPayload, v4, id3)
	if err != nil {
		t.Fatal(err)
	}
	v5 := mutate(r, v4)
	id5, _, err := w.AddDelta(KindPayload, v5, id4)
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := w.Get(id4); err != nil || !bytes.Equal(got, v4) {
		t.Fatalf("writer Get of a pending delta: %v", err)
	}
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[ID][]byte{id3: v3, id4: v4, id5: v5} {
		if got, _, err := s.Get(id); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("Get %s: %v", id, err)
		}
	}
	if d3, d4, d5 := depthOf(t, s, id3), depthOf(t, s, id4), depthOf(t, s, id5); d3 != 2 || d4 != 3 || d5 != 3 {
		t.Fatalf("depths %d %d %d, want 2 3 3 (v5's base is in its own frame)", d3, d4, d5)
	}
	if _, _, err := w.AddDelta(KindPayload, []byte("x"), Sum([]byte("absent"))); !errors.Is(err, ErrNotFound) {
		t.Fatalf("AddDelta with a missing base: %v, want ErrNotFound", err)
	}
	verifyClean(t, s)

	// Stats tells the four objects in frames with bases from the whole one
	// (v5 shares v4's delta frame), and their stored bytes are a part of
	// the kind's.
	st, err := s.Stats()
	if err != nil {
		t.Fatal(err)
	}
	k := st.Kinds[KindPayload]
	deltaPlain := int64(len(v2) + len(v3) + len(v4) + len(v5))
	if k.Objects != 5 || k.DeltaObjects != 4 || k.Plain != deltaPlain+int64(len(base)) || k.DeltaPlain != deltaPlain {
		t.Fatalf("payload stats %+v: want 5 objects, 4 as deltas of %d bytes", k, deltaPlain)
	}
	if k.DeltaStored <= 0 || k.Stored-k.DeltaStored < int64(len(base)) || k.Stored > packBytes(t, dir) {
		t.Fatalf("payload stats %+v: stored bytes do not split into an incompressible whole base and small deltas", k)
	}
}

func TestDeltaChainBound(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	s, dir := mustCreate(t, Options{Plain: true, MaxChain: 3, noSync: true})
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	v := randBytes(r, 5000)
	prev, _, _ := w.Add(KindLayout, v)
	ids := []ID{prev}
	vals := [][]byte{v}
	maxDepth, restarts := 0, 0
	for i := 0; i < 12; i++ {
		if err := w.Commit(nil); err != nil {
			t.Fatal(err)
		}
		v = mutate(r, v)
		id, _, err := w.AddDelta(KindLayout, v, prev)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(nil); err != nil {
			t.Fatal(err)
		}
		d := depthOf(t, s, id)
		if d > 3 {
			t.Fatalf("writer built depth %d with MaxChain 3", d)
		}
		if d == 0 {
			restarts++
		}
		maxDepth = max(maxDepth, d)
		ids, vals, prev = append(ids, id), append(vals, v), id
	}
	if maxDepth != 3 || restarts == 0 {
		t.Fatalf("max depth %d, %d restarts: the chain should reach the bound and restart", maxDepth, restarts)
	}
	w.Close()
	for i, id := range ids {
		if got, _, err := s.Get(id); err != nil || !bytes.Equal(got, vals[i]) {
			t.Fatalf("Get %d: %v", i, err)
		}
	}
	// A reader with a lower bound refuses the deeper chains.
	s2, err := Open(dir, Options{MaxChain: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	refused := 0
	for i, id := range ids {
		_, _, err := s2.Get(id)
		if errors.Is(err, ErrChainTooLong) {
			refused++
		} else if err != nil {
			t.Fatalf("Get %d: %v", i, err)
		}
	}
	if refused == 0 {
		t.Fatal("a MaxChain 2 reader read every object of a depth-3 chain")
	}
}

// rewriteFrameHeader edits the header of the frame holding id and fixes
// its CRC, as a writer bug or a crafted file would.
func rewriteFrameHeader(t *testing.T, s *Store, id ID, edit func(h []byte)) {
	t.Helper()
	l, ok, err := s.locate(id)
	if err != nil || !ok {
		t.Fatalf("locate: %v", err)
	}
	path := filepath.Join(s.dir, packName(l.pack))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := b[l.off:]
	nb := int(le.Uint16(h[6:]))
	hl := frameHeaderSize(nb)
	edit(h[:hl])
	le.PutUint32(h[hl-4:], crc(h[:hl-4]))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDeltaBaseChecks(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		name string
		edit func(h []byte, other ID)
		want string
	}{
		{"base-size", func(h []byte, _ ID) { le.PutUint32(h[frameFixedSize+32:], le.Uint32(h[frameFixedSize+32:])+1) }, "frame recorded"},
		{"base-id", func(h []byte, other ID) { copy(h[frameFixedSize:], other[:]) }, ""},
		{"depth", func(h []byte, _ ID) { h[4] = 200 }, "depth"},
		{"self-base", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, dir := mustCreate(t, Options{Plain: true, noSync: true})
			w, _ := s.Begin()
			base := randBytes(r, 3000)
			bid, _, _ := w.Add(KindBlock, base)
			other, _, _ := w.Add(KindBlock, randBytes(r, 3000))
			w.Commit(nil)
			v := mutate(r, base)
			id, _, _ := w.AddDelta(KindBlock, v, bid)
			w.Commit(nil)
			w.Close()
			edit := tc.edit
			if edit == nil { // a frame whose base is an object of itself: a cycle
				edit = func(h []byte, _ ID) {
					copy(h[frameFixedSize:], id[:])
					le.PutUint32(h[frameFixedSize+32:], uint32(len(v)))
				}
			}
			rewriteFrameHeader(t, s, id, func(h []byte) { edit(h, other) })
			s2, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s2.Close()
			_, _, err = s2.Get(id)
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrChainTooLong) {
				t.Fatalf("Get after editing the %s: %v, want a corruption error", tc.name, err)
			}
			if !strings.Contains(err.Error(), filepath.Join(dir, packName(1))) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q should name the pack and say %q", err, tc.want)
			}
		})
	}
}

// TestAddNear checks that AddNear takes a base only when readers of the
// frame need no frame more for it: never into a frame without bases, yes
// beside a base of the same frame, never for an object of the frame
// itself (already its context); and that everything reads back.
func TestAddNear(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	s, _ := mustCreate(t, Options{Plain: true, noSync: true, NearReach: -1})
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	a1, a2 := randBytes(r, 5000), randBytes(r, 5000)
	objs := [][]byte{a1, a2}
	for _, o := range objs {
		if _, _, err := w.Add(KindBlock, o); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	add := func(near bool, data []byte, base []byte, wantBases int) {
		t.Helper()
		var err error
		if near {
			_, _, err = w.AddNear(KindBlock, data, Sum(base))
		} else {
			_, _, err = w.AddDelta(KindBlock, data, Sum(base))
		}
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, data)
		if len(w.bases) != wantBases {
			t.Fatalf("frame has %d bases, want %d", len(w.bases), wantBases)
		}
	}
	add(true, mutate(r, a1), a1, 0)  // a1's frame would be a new dependency
	add(false, mutate(r, a1), a1, 1) // now the frame depends on it
	add(true, mutate(r, a2), a2, 2)  // a2 shares a1's frame: free
	b := objs[len(objs)-1]
	add(true, mutate(r, b), b, 2) // b is in this frame: no base needed
	if _, _, err := w.AddNear(KindBlock, []byte("x"), Sum([]byte("missing"))); err != nil {
		t.Fatalf("AddNear with a missing base: %v", err)
	}
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	for i, o := range objs {
		got, _, err := s.Get(Sum(o))
		if err != nil || !bytes.Equal(got, o) {
			t.Fatalf("object %d: %v", i, err)
		}
	}
}

// TestAddNearReach checks Options.NearReach: a base that is not free is
// taken when a full frame plus the frames the bases need stay within the
// reach, and refused once another base frame would pass it. Frames'
// reach is what readers decode, so the test measures it with
// DecodedBytes on a fresh store.
func TestAddNearReach(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const frame = 16 << 10
	s, dir := mustCreate(t, Options{Plain: true, noSync: true, FrameSize: frame, NearReach: 3 * frame})
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// Three frames of about 12 KiB each, no bases: reach = own size.
	var heads [][]byte
	for range 3 {
		for j := range 3 {
			o := randBytes(r, 4000)
			if j == 0 {
				heads = append(heads, o)
			}
			if _, _, err := w.Add(KindBlock, o); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	// A full frame (16 KiB) + frame 0 (12 KiB) = 28 KiB ≤ 48 KiB: taken.
	if _, _, err := w.AddNear(KindBlock, mutate(r, heads[0]), Sum(heads[0])); err != nil {
		t.Fatal(err)
	}
	if len(w.bases) != 1 {
		t.Fatalf("first base: frame has %d bases, want 1", len(w.bases))
	}
	// + frame 1 = 40 KiB: taken. + frame 2 = 52 KiB > 48 KiB: refused.
	if _, _, err := w.AddNear(KindBlock, mutate(r, heads[1]), Sum(heads[1])); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.AddNear(KindBlock, mutate(r, heads[2]), Sum(heads[2])); err != nil {
		t.Fatal(err)
	}
	if len(w.bases) != 2 {
		t.Fatalf("frame has %d bases, want 2 (the third base frame is beyond reach)", len(w.bases))
	}
	// A missing base is no error with a reach either.
	if _, _, err := w.AddNear(KindBlock, []byte("y"), Sum([]byte("missing"))); err != nil {
		t.Fatalf("AddNear with a missing base: %v", err)
	}
	last := mutate(r, heads[2])
	if _, _, err := w.Add(KindBlock, last); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if _, _, err := s2.Get(Sum(last)); err != nil {
		t.Fatal(err)
	}
	// The last frame and the two base frames, nothing else.
	if got, max := s2.DecodedBytes(), int64(3*frame); got > max || got < int64(3*12000) {
		t.Fatalf("reading the last frame decoded %d bytes, want within (36000, %d]", got, max)
	}
}

// TestAddSummed: objects added with the id the caller computed are
// stored as Add, AddDelta and AddNear store them: the same files.
func TestAddSummed(t *testing.T) {
	write := func(summed bool) map[string][]byte {
		r := rand.New(rand.NewPCG(3, 4))
		// Whole objects (no chunk store) in small frames: a base is
		// often in another frame, where AddNear and AddDelta differ.
		s, dir := mustCreate(t, Options{Plain: true, noSync: true, FrameSize: 12 << 10})
		w, err := s.Begin()
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		base := randBytes(r, 5000)
		var prev, first ID
		for i := range 40 {
			data := mutate(r, base)
			var err error
			switch {
			case i == 0:
				if summed {
					prev, _, err = w.AddSummed(KindBlock, data, s.Sum(data), nil, false)
				} else {
					prev, _, err = w.Add(KindBlock, data)
				}
				first = prev
			case i%2 == 0:
				if summed {
					prev, _, err = w.AddSummed(KindBlock, data, s.Sum(data), &prev, false)
				} else {
					prev, _, err = w.AddDelta(KindBlock, data, prev)
				}
			default:
				// The first object, in an older frame: AddNear leaves
				// it, AddDelta would take it.
				if summed {
					prev, _, err = w.AddSummed(KindBlock, data, s.Sum(data), &first, true)
				} else {
					prev, _, err = w.AddNear(KindBlock, data, first)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Commit([]byte("root")); err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
				files[e.Name()] = b
			}
		}
		return files
	}
	a, b := write(false), write(true)
	if len(a) != len(b) || len(a) < 3 {
		t.Fatalf("%d files with Add, %d with AddSummed", len(a), len(b))
	}
	for name, data := range a {
		if !bytes.Equal(data, b[name]) {
			t.Errorf("%s differs (%d bytes with Add, %d with AddSummed)", name, len(data), len(b[name]))
		}
	}
}

// TestSmallWindow: a frame whose plaintext and dictionary fit
// smallWindow comes out of the small-window encoder as out of the
// default one, so choosing the encoder by size changes no byte; and
// rootWindow keeps the default for a larger root.
func TestSmallWindow(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	words := []string{"<p>", "</p>", "the", "archive", "block", "<div class=x>", "</div>", "capture", "2024", "\n"}
	text := func(n int) []byte {
		var b []byte
		for len(b) < n {
			b = append(b, words[r.IntN(len(words))]...)
			b = append(b, ' ')
			if r.IntN(50) == 0 {
				b = append(b, randBytes(r, 40)...)
			}
		}
		return b[:n]
	}
	w := &Writer{opts: Options{Level: zstd.SpeedBetterCompression}}
	for _, c := range []struct{ plain, dict int }{{100, 0}, {40 << 10, 0}, {300 << 10, 0}, {smallWindow, 0}, {300 << 10, 200 << 10}, {smallWindow - 100<<10, 100 << 10}} {
		plain := text(c.plain)
		var dict []byte
		if c.dict > 0 {
			dict = append(text(c.dict), plain[:c.dict/2]...)
		}
		var out [2][]byte
		for i, small := range []bool{false, true} {
			e, err := w.newEncoder(small)
			if err != nil {
				t.Fatal(err)
			}
			if dict != nil {
				if err := e.ResetWithOptions(nil, zstd.WithEncoderDictRaw(dictID, dict)); err != nil {
					t.Fatal(err)
				}
			}
			out[i] = e.EncodeAll(plain, nil)
			e.Close()
		}
		if !bytes.Equal(out[0], out[1]) {
			t.Errorf("plaintext %d, dictionary %d: %d bytes with the default window, %d with the small one", len(plain), len(dict), len(out[0]), len(out[1]))
		}
	}
}

// TestFrameBuffersReused: a writer's frames reuse the buffers of the
// frames written before (the objects' copies, the plaintext and the
// dictionary): 28 MiB of objects in frames of 1 MiB, half of them
// deltas, allocate less than a tenth of what they add (0.2 MB here).
// Objects copied each into memory of its own, or frame buffers never
// reused: as much as was added, each.
func TestFrameBuffersReused(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	s, _ := mustCreate(t, Options{Plain: true, noSync: true, FrameSize: 1 << 20, Level: zstd.SpeedBetterCompression})
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	objs := make([][]byte, 512)
	for i := range objs {
		if i%2 == 1 {
			objs[i] = mutate(r, objs[i-1])
		} else {
			objs[i] = randBytes(r, 64<<10)
		}
	}
	add := func(from, to int) {
		for i := from; i < to; i++ {
			if i%2 == 1 {
				if _, _, err := w.AddDelta(KindPayload, objs[i], Sum(objs[i-1])); err != nil {
					t.Fatal(err)
				}
			} else if _, _, err := w.Add(KindPayload, objs[i]); err != nil {
				t.Fatal(err)
			}
			if i%16 == 15 {
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	add(0, 64) // encoders, decoders and buffers made once
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	add(64, len(objs))
	runtime.ReadMemStats(&after)
	added := int64(len(objs)-64) * 64 << 10
	alloc := int64(after.TotalAlloc - before.TotalAlloc)
	t.Logf("%d bytes added, %d allocated", added, alloc)
	if alloc*10 > added {
		t.Errorf("%d bytes allocated for %d bytes of objects", alloc, added)
	}
}
