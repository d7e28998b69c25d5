package pack

import (
	"bytes"
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
	for _, f := range cr.Directory() {
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
		first := cr.Directory()[0]
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
