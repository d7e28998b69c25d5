package pack

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repairArchive writes three commits of small frames, without parity
// when noParity, and returns the directory and the objects.
func repairArchive(t *testing.T, noParity bool) (string, []obj) {
	t.Helper()
	s, dir := mustCreate(t, Options{noSync: true, FrameSize: 4 << 10, NoParity: noParity})
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	var all []obj
	for c := uint64(0); c < 3; c++ {
		objs := randomObjects(100+c, 40, 3000)
		addAll(t, w, objs)
		if err := w.Commit([]byte{byte(c)}); err != nil {
			t.Fatal(err)
		}
		all = append(all, objs...)
	}
	w.Close()
	s.Close()
	return dir, all
}

// allReadable opens dir and checks that every object reads back and
// Verify finds nothing.
func allReadable(t *testing.T, dir string, objs []obj) {
	t.Helper()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, o := range objs {
		got, _, err := s.Get(Sum(o.data))
		if err != nil || !bytes.Equal(got, o.data) {
			t.Fatalf("after repair: %v", err)
		}
	}
	res, err := s.Verify(func(_ ID, err error) {
		if err != nil {
			t.Errorf("verify after repair: %v", err)
		}
	})
	if err != nil || res.Problems != 0 {
		t.Fatalf("verify after repair: %+v %v", res, err)
	}
}

// TestRepairRebuildsIndex: without parity, a damaged or deleted index is
// rebuilt from the packs' frames, and every object reads again.
func TestRepairRebuildsIndex(t *testing.T) {
	for _, how := range []string{"flip", "delete"} {
		dir, objs := repairArchive(t, true)
		idx, _ := filepath.Glob(filepath.Join(dir, "*.idx"))
		if len(idx) == 0 {
			t.Fatal("no index")
		}
		if how == "delete" {
			os.Remove(idx[0])
		} else {
			b, _ := os.ReadFile(idx[0])
			b[indexHeaderSize+fanoutSize+10] ^= 0x21 // an entry's id
			os.WriteFile(idx[0], b, 0o644)
		}
		res, err := Repair(dir, Options{noSync: true, NoParity: true})
		if err != nil || len(res.Lost) > 0 || !strings.Contains(strings.Join(res.Done, "\n"), "rebuilt") {
			t.Fatalf("%s: repair %+v %v", how, res, err)
		}
		allReadable(t, dir, objs)
	}
}

// TestRepairCommitAndParity: a damaged COMMIT is restored from its copy;
// a damaged pack sector is rewritten from parity, and so is a damaged
// sidecar; the archive then verifies, and a second repair does nothing.
func TestRepairCommitAndParity(t *testing.T) {
	dir, objs := repairArchive(t, false)
	flip := func(name string, at func(n int) int) {
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b[at(len(b))] ^= 0x5a
		os.WriteFile(p, b, 0o644)
	}
	flip(commitName, func(n int) int { return n / 2 })
	flip(packName(1), func(n int) int { return n / 3 })
	pars, _ := filepath.Glob(filepath.Join(dir, "*.idx.par"))
	flip(filepath.Base(pars[0]), func(n int) int { return n - 1 })
	res, err := Repair(dir, Options{noSync: true})
	if err != nil || len(res.Lost) > 0 {
		t.Fatalf("repair: %+v %v", res, err)
	}
	done := strings.Join(res.Done, "\n")
	for _, want := range []string{commitName + " rewritten", "rewritten from parity", "damaged parity rewritten"} {
		if !strings.Contains(done, want) {
			t.Errorf("repair did not say %q: %s", want, done)
		}
	}
	allReadable(t, dir, objs)
	if res, err := Repair(dir, Options{noSync: true}); err != nil || len(res.Done) > 0 {
		t.Fatalf("second repair: %+v %v", res, err)
	}
}

// TestRepairNamesLostFrame: without parity, a damaged frame is lost; repair
// rebuilds the index of the rest (the walk resynchronises past it) and
// names the lost range.
func TestRepairNamesLostFrame(t *testing.T) {
	dir, objs := repairArchive(t, true)
	p := filepath.Join(dir, packName(1))
	b, _ := os.ReadFile(p)
	b[len(b)/2] ^= 0x5a
	os.WriteFile(p, b, 0o644)
	// Also an index, so that repair rebuilds.
	idx, _ := filepath.Glob(filepath.Join(dir, "*.idx"))
	os.Remove(idx[0])
	res, err := Repair(dir, Options{noSync: true, NoParity: true})
	if err != nil || len(res.Lost) == 0 || !strings.Contains(res.Lost[0], packName(1)) {
		t.Fatalf("repair: %+v %v", res, err)
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	readable := 0
	for _, o := range objs {
		got, _, err := s.Get(Sum(o.data))
		if err == nil {
			if !bytes.Equal(got, o.data) {
				t.Fatal("wrong bytes")
			}
			readable++
		}
	}
	if readable == 0 || readable == len(objs) {
		t.Fatalf("%d of %d objects readable after losing one frame", readable, len(objs))
	}
}

// TestRepairPackHeader: without parity, a damaged pack header is written
// again (it holds only the pack's number), and every object reads again.
func TestRepairPackHeader(t *testing.T) {
	dir, objs := repairArchive(t, true)
	packs, _ := filepath.Glob(filepath.Join(dir, "*.pack"))
	b, _ := os.ReadFile(packs[0])
	for i := 0; i < 12; i++ {
		b[i] ^= 0x33
	}
	os.WriteFile(packs[0], b, 0o644)
	if s, err := Open(dir, Options{}); err == nil {
		_, _, err = s.Get(Sum(objs[0].data))
		s.Close()
		if err == nil {
			t.Fatal("an object reads from a pack whose header is damaged")
		}
	}
	res, err := Repair(dir, Options{noSync: true, NoParity: true})
	if err != nil || len(res.Lost) > 0 || !strings.Contains(strings.Join(res.Done, "\n"), "damaged header written again") {
		t.Fatalf("repair: %+v %v", res, err)
	}
	allReadable(t, dir, objs)
}

// TestRebuildIndexesDropsDamage: without parity, RebuildIndexes rewrites
// a pack with a damaged frame without it; the other objects read (those
// of frames dropped for their bases are returned as salvaged), and the
// archive verifies.
func TestRebuildIndexesDropsDamage(t *testing.T) {
	dir, objs := repairArchive(t, true)
	packs, _ := filepath.Glob(filepath.Join(dir, "*.pack"))
	b, _ := os.ReadFile(packs[0])
	for i := len(b) / 2; i < len(b)/2+40; i++ {
		b[i] ^= 0x33
	}
	os.WriteFile(packs[0], b, 0o644)
	res, err := RebuildIndexes(dir, Options{noSync: true, NoParity: true})
	if err != nil || len(res.Lost) == 0 {
		t.Fatalf("rebuild: %+v %v", res, err)
	}
	salvaged := map[ID]bool{}
	for _, o := range res.Salvaged {
		salvaged[Sum(o.Data)] = true
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var readable []obj
	lost := 0
	for _, o := range objs {
		got, _, err := s.Get(Sum(o.data))
		switch {
		case err == nil && !bytes.Equal(got, o.data):
			t.Fatal("an object reads wrong bytes")
		case err == nil:
			readable = append(readable, o)
		case !salvaged[Sum(o.data)]:
			lost++
		}
	}
	s.Close()
	if lost == 0 || len(readable) == 0 {
		t.Fatalf("%d objects lost, %d readable", lost, len(readable))
	}
	allReadable(t, dir, readable)
}
