package pack

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
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
			b[entriesAt(t, idx[0])+10] ^= 0x21 // an entry's id
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
// of frames dropped for their bases are stored again in the same commit,
// and listed as salvaged), and the archive verifies.
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
		if salvaged[Sum(o.data)] && err != nil {
			t.Fatalf("a salvaged object does not read after the repair's commit: %v", err)
		}
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
	t.Logf("%d objects lost, %d readable, %d salvaged", lost, len(readable), len(salvaged))
	allReadable(t, dir, readable)
}

// TestRebuildIndexesCrashSafe fails, one at a time, every file operation
// RebuildIndexes makes while it drops a damaged frame (writing and
// syncing the new packs, their parity, the index and its parity, the
// commit and its copy: a crash there leaves what an error leaves). After
// each, the archive is at its old commit (still repairable) or at the new
// one (verifying), never returns wrong bytes, and a re-run completes with
// the objects of an uninterrupted repair. The archive has frames of chunks
// in several packs, so that the packs after the damaged one move too.
func TestRebuildIndexesCrashSafe(t *testing.T) {
	opts := Options{noSync: true, FrameSize: 4 << 10, PackSize: 24 << 10}
	s, dir := mustCreate(t, opts)
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	var objs []obj
	for c := uint64(0); c < 3; c++ {
		o := randomObjects(200+c, 24, 2500)
		addAll(t, w, o)
		if err := w.Commit([]byte{byte(c)}); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, o...)
	}
	w.Close()
	s.Close()
	packs, _ := filepath.Glob(filepath.Join(dir, "*.pack"))
	if len(packs) < 3 {
		t.Fatalf("want several packs, got %v", packs)
	}
	// Damage beyond parity (its sidecars go) to a frame of objects of a
	// pack that is not the last to hold frames of chunks: the frames of
	// chunks all stay, and the packs after it must keep their order.
	var target string
	var at int64
	chunky := 0
	for _, p := range packs {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := f.Stat()
		var objFrame int64
		hasChunks := false
		scanFrames(f, fi.Size(), func(off int64, length uint32) {
			hb := make([]byte, min(int64(length), int64(frameHeaderSize(maxBases))))
			f.ReadAt(hb, off)
			h, hl, err := parseFrameHeader(hb, "", off)
			switch {
			case err != nil:
				t.Fatal(err)
			case h.flags&frameChunks != 0:
				hasChunks = true
			case objFrame == 0 && h.clen > 64:
				objFrame = off + int64(hl) + int64(h.clen)/2
			}
		}, func(int64, int64) { t.Fatal("a frame does not read") })
		f.Close()
		if hasChunks {
			chunky++
		}
		if target == "" && hasChunks && objFrame > 0 {
			target, at, chunky = p, objFrame, 1
		}
	}
	if target == "" || chunky < 2 {
		t.Fatalf("no pack with frames of objects and of chunks followed by another with chunks: %v", packs)
	}
	pars, _ := filepath.Glob(target + "*.par")
	for _, p := range pars {
		os.Remove(p)
	}
	b, _ := os.ReadFile(target)
	for i := at; i < at+8; i++ {
		b[i] ^= 0x33
	}
	os.WriteFile(target, b, 0o644)
	seq := func(dir string) uint64 {
		m, err := readManifestFile(filepath.Join(dir, commitName))
		if err != nil {
			t.Fatal(err)
		}
		return m.seq
	}
	before := seq(dir)
	// readable lists the objects that read (wrong bytes fail the test).
	readable := func(dir string) map[ID]bool {
		s, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		got := map[ID]bool{}
		for _, o := range objs {
			b, _, err := s.Get(o.id)
			if err == nil && !bytes.Equal(b, o.data) {
				t.Fatal("an object reads wrong bytes")
			}
			got[o.id] = err == nil
		}
		return got
	}
	verifies := func(dir string) bool {
		s, err := Open(dir, Options{})
		if err != nil {
			return false
		}
		defer s.Close()
		res, err := s.Verify(func(ID, error) {})
		return err == nil && res.Problems == 0
	}
	if verifies(dir) {
		t.Fatal("the damage is not seen")
	}

	ref := filepath.Join(t.TempDir(), "ref.bwa")
	sharedtest.CopyDir(t, dir, ref)
	var ops []string
	ro := opts
	ro.hooks.Faults = func(op, path string) error {
		ops = append(ops, op+" "+filepath.Base(path))
		return nil
	}
	res, err := RebuildIndexes(ref, ro)
	if err != nil {
		t.Fatal(err)
	}
	done := strings.Join(res.Done, "\n")
	if !strings.Contains(done, "without what does not read") || !strings.Contains(done, "copied to") {
		t.Fatalf("the reference repair did not move the packs:\n%s", done)
	}
	want := readable(ref)
	if !verifies(ref) {
		t.Fatal("the reference repair does not verify")
	}
	if _, err := os.Stat(filepath.Join(ref, filepath.Base(target))); err == nil {
		t.Fatal("the damaged pack is still there after the repair's commit")
	}

	for i, op := range ops {
		a := filepath.Join(t.TempDir(), "a.bwa")
		sharedtest.CopyDir(t, dir, a)
		n := 0
		fo := opts
		fo.hooks.Faults = func(string, string) error {
			if n++; n == i+1 {
				return syscall.EIO
			}
			return nil
		}
		if _, err := RebuildIndexes(a, fo); !errors.Is(err, syscall.EIO) {
			t.Fatalf("%s failing: repair returned %v", op, err)
		}
		switch got := seq(a); {
		case got == before:
			readable(a) // no wrong bytes; the damage is still there
		case got == before+1 && verifies(a):
		default:
			t.Fatalf("%s failing: the archive is at generation %d (was %d), verifies %v", op, got, before, verifies(a))
		}
		if _, err := RebuildIndexes(a, opts); err != nil {
			t.Fatalf("%s failing: re-run: %v", op, err)
		}
		if !verifies(a) {
			t.Fatalf("%s failing: the re-run does not verify", op)
		}
		if got := readable(a); !maps.Equal(got, want) {
			t.Fatalf("%s failing: after the re-run the objects that read differ from an uninterrupted repair's", op)
		}
	}
	t.Logf("%d operations failed in turn: %v", len(ops), ops)
}

// TestCleanupKilledFix: a repair killed while parity rewrote a pack or
// an index (Sidecar.Fix copies the whole file to NAME.tmp, then renames
// it over NAME) left the copy; the next writer or repair removes it,
// and nothing of another name.
func TestCleanupKilledFix(t *testing.T) {
	for _, next := range []string{"repair", "writer"} {
		dir, objs := repairArchive(t, false)
		var left []string
		for _, pat := range []string{"*.pack", "*.idx"} {
			m, _ := filepath.Glob(filepath.Join(dir, pat))
			if len(m) == 0 {
				t.Fatalf("no %s", pat)
			}
			b, err := os.ReadFile(m[0])
			if err != nil {
				t.Fatal(err)
			}
			n := filepath.Base(m[0]) + ".tmp"
			os.WriteFile(filepath.Join(dir, n), b[:len(b)/2], 0o644)
			left = append(left, n)
		}
		os.WriteFile(filepath.Join(dir, "notes.tmp"), []byte("mine"), 0o644)
		if next == "repair" {
			if _, err := Repair(dir, Options{noSync: true}); err != nil {
				t.Fatal(err)
			}
		} else {
			s, err := Open(dir, Options{noSync: true})
			if err != nil {
				t.Fatal(err)
			}
			w, err := s.Begin()
			if err != nil {
				t.Fatal(err)
			}
			w.Close()
			s.Close()
		}
		for _, n := range left {
			if _, err := os.Lstat(filepath.Join(dir, n)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s: a killed Fix's %s is still there (%v)", next, n, err)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "notes.tmp")); err != nil {
			t.Errorf("%s: removed a file of no name of the archive's: %v", next, err)
		}
		allReadable(t, dir, objs)
	}
}
