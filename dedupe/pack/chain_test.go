package pack

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chainArchive writes commits of related objects, each commit ending in a
// small frame of chunks that the next extends (a chain), and returns the
// directory, the objects and the chain's frames.
func chainArchive(t *testing.T, noParity bool) (string, []obj) {
	t.Helper()
	s, dir := mustCreate(t, Options{noSync: true, NoParity: noParity})
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	var all []obj
	base := randomObjects(900, 6, 5000)
	for c := 0; c < 6; c++ {
		var objs []obj
		for i, o := range base {
			d := append(bytes.Clone(o.data), []byte{byte(c), byte(i), 'x', 'y', byte(c * 7)}...)
			objs = append(objs, obj{id: Sum(d), kind: o.kind, data: d})
		}
		addAll(t, w, objs)
		if err := w.Commit([]byte{byte(c)}); err != nil {
			t.Fatal(err)
		}
		all = append(all, objs...)
	}
	w.Close()
	cr, err := s.chunks()
	if err != nil {
		t.Fatal(err)
	}
	longest := 0
	for _, f := range wholeDir(t, cr) {
		longest = max(longest, int(f.Prefix))
	}
	if longest < 3 {
		t.Fatalf("longest chain prefix %d: the commits did not chain", longest)
	}
	s.Close()
	return dir, all
}

// TestChainDamage: a flipped byte in the first frame of a chain. With
// parity every object still reads; without, the objects that need the
// chain fail with an error naming the pack (never wrong bytes), Verify
// names the pack.
func TestChainDamage(t *testing.T) {
	for _, noParity := range []bool{false, true} {
		dir, objs := chainArchive(t, noParity)
		s, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		cr, _ := s.chunks()
		first := wholeDir(t, cr)[0]
		s.Close()
		pack := filepath.Join(dir, packName(uint32(first.Offset>>chunkPackShift)))
		b, _ := os.ReadFile(pack)
		b[first.Offset&(1<<chunkPackShift-1)+int64(first.Size)/2] ^= 0x40
		os.WriteFile(pack, b, 0o644)

		s, err = Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		failed := 0
		for _, o := range objs {
			got, _, err := s.Get(Sum(o.data))
			switch {
			case err != nil:
				failed++
			case !bytes.Equal(got, o.data):
				t.Fatalf("parity off %v: wrong bytes with no error", noParity)
			}
		}
		named := false
		res, verr := s.Verify(func(_ ID, err error) {
			named = named || err != nil && strings.Contains(err.Error(), filepath.Base(pack))
		})
		s.Close()
		if !noParity {
			if failed > 0 {
				t.Fatalf("with parity, %d of %d objects failed", failed, len(objs))
			}
			continue
		}
		// The later commits' objects need the damaged frame's bytes as
		// their dictionary: more than one commit's worth is lost.
		if failed <= len(objs)/6 {
			t.Fatalf("without parity, only %d of %d objects failed after damaging a chain's first frame", failed, len(objs))
		}
		if verr != nil || res.Problems == 0 || !named {
			t.Fatalf("verify: %d problems, the pack named %v (%v)", res.Problems, named, verr)
		}
	}
}

// TestChainFrameAlone: a frame of chunks in a chain whose body the
// writer compressed alone (new bytes after a long chain: its zstd frame
// names no dictionary) is read back through the packs without decoding
// the chain before it: a store opened anew restores its object having
// decoded about its own bytes, not the megabytes of the chain.
func TestChainFrameAlone(t *testing.T) {
	s, dir := mustCreate(t, Options{noSync: true, NoParity: true, Level: 1})
	r := rand.New(rand.NewPCG(5, 5))
	var text []obj
	for range 80 { // 80 × 20 KB of words: a chain over the 1 MiB a dictionary always pays
		var b []byte
		for len(b) < 20_000 {
			for range 4 + r.IntN(8) {
				b = append(b, byte('a'+r.IntN(26)))
			}
			b = append(b, ' ')
		}
		text = append(text, obj{kind: KindBlock, data: b})
	}
	noise := make([]byte, 60_000)
	for i := range noise {
		noise[i] = byte(r.Uint32())
	}
	alone := []obj{{kind: KindBlock, data: noise}}
	for c, objs := range [][]obj{text, alone} {
		w, err := s.Begin()
		if err != nil {
			t.Fatal(err)
		}
		addAll(t, w, objs)
		if err := w.Commit([]byte{byte(c)}); err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
	s.Close()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if st, err := s.Stats(); err != nil || st.ChainedFrames == 0 {
		t.Fatalf("%d of %d frames of chunks in a chain (%v): the second commit did not extend the first's", st.ChainedFrames, st.ChunkFrames, err)
	}
	got, _, err := s.Get(alone[0].id)
	if err != nil || !bytes.Equal(got, noise) {
		t.Fatalf("the object of the frame compressed alone does not read back: %v", err)
	}
	if n := s.DecodedBytes(); n > 256<<10 {
		t.Errorf("reading it decoded %d bytes: the chain before its frame was decoded", n)
	}
	checkAll(t, s, append(text, alone...))
}

// TestChainBytesBound: a library caller's ChainBytes over MaxChainBytes
// (the flag's bound, which Options bypass) is refused when the archive
// is created and when a writer begins on an existing one, rather than
// writing chains its readers would have to decode whole; the bound
// itself is accepted.
func TestChainBytesBound(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a")
	if _, err := Create(dir, Options{noSync: true, ChainBytes: MaxChainBytes + 1}); err == nil || !strings.Contains(err.Error(), "MaxChainBytes") {
		t.Fatalf("create with chains over the bound: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the refused archive's directory was made: %v", err)
	}
	s, dir := mustCreate(t, Options{noSync: true, ChainBytes: MaxChainBytes})
	s.Close()
	s, err := Open(dir, Options{noSync: true, ChainBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if w, err := s.Begin(); err == nil || !strings.Contains(err.Error(), "MaxChainBytes") {
		if w != nil {
			w.Close()
		}
		t.Fatalf("begin with chains over the bound: %v", err)
	}
	// The refusal released the archive's lock.
	s2, err := Open(dir, Options{noSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	w, err := s2.Begin()
	if err != nil {
		t.Fatalf("begin after a refused begin: %v", err)
	}
	if got := w.Settings().ChainBytes; got != MaxChainBytes {
		t.Errorf("recorded chain bound %d, want %d", got, MaxChainBytes)
	}
	w.Close()
}
