package pack

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/parity"
)

// packSidecars lists the sidecars of the packs in dir.
func packSidecars(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if f, _, ok := parity.ParseSidecarName(e.Name()); ok && strings.HasSuffix(f, ".pack") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestParityTail: many small commits to one pack cost parity as a few
// large ones would (the last small range is re-protected with the next),
// every committed byte stays protected (a damaged sector in the first
// commit's range is corrected), and a crash between writing a coalesced
// sidecar and publishing its commit leaves the old one in force.
func TestParityTail(t *testing.T) {
	const commits = 30
	write := func(t *testing.T, dir string, s *Store) []obj {
		w, err := s.Begin()
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		var all []obj
		for c := uint64(0); c < commits; c++ {
			objs := randomObjects(500+c, 3, 2000)
			addAll(t, w, objs)
			if err := w.Commit([]byte{byte(c)}); err != nil {
				t.Fatal(err)
			}
			all = append(all, objs...)
		}
		return all
	}
	s, dir := mustCreate(t, Options{noSync: true})
	objs := write(t, dir, s)
	st, err := s.Stats()
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	scs := packSidecars(t, dir)
	packs, _ := filepath.Glob(filepath.Join(dir, "*.pack"))
	var packBytes int64
	for _, p := range packs {
		fi, _ := os.Stat(p)
		packBytes += fi.Size()
	}
	// One sidecar per tailRange of pack, not one per commit.
	if want := int(packBytes/tailRange) + len(packs); len(scs) > want {
		t.Fatalf("%d pack sidecars for %d commits of %d pack bytes, want at most %d: %v", len(scs), commits, packBytes, want, scs)
	}
	// Parity for a burst of 1/BurstDivisor of the pack (two sectors at
	// least, one more for an unaligned burst, one for rounding to whole
	// stripes), and a header with the sector checksums (twice) per
	// sidecar; uncoalesced, every commit paid two sectors and the headers
	// of its own.
	var scBytes int64
	for _, n := range scs {
		fi, _ := os.Stat(filepath.Join(dir, n))
		scBytes += fi.Size()
	}
	if want := packBytes/parity.BurstDivisor + int64(len(scs))*(3*parity.SectorSize+1024); scBytes > want || st.ParityBytes < scBytes {
		t.Fatalf("pack parity %d B (store says %d in all) for %d B of pack, want at most %d", scBytes, st.ParityBytes, packBytes, want)
	}

	// Every byte of every pack is in one sidecar's range.
	for _, p := range packs {
		name := filepath.Base(p)
		fi, _ := os.Stat(p)
		ranges, _ := sidecars(dir, name, fi.Size())
		var at int64
		for _, sc := range ranges {
			if sc.Off != at {
				t.Fatalf("%s: sidecar at %d, want %d", name, sc.Off, at)
			}
			at += sc.Len
		}
		if at != fi.Size() {
			t.Fatalf("%s: protected up to %d of %d", name, at, fi.Size())
		}
	}

	// A flipped byte in the first commit's range is corrected on read.
	b, _ := os.ReadFile(packs[0])
	b[len(b)/20] ^= 0x5a
	os.WriteFile(packs[0], b, 0o644)
	s2, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		got, _, err := s2.Get(Sum(o.data))
		if err != nil || !bytes.Equal(got, o.data) {
			t.Fatalf("read through parity: %v", err)
		}
	}
	if len(s2.Corrections()) == 0 {
		t.Fatal("the flip was not reported corrected")
	}
	s2.Close()
}

// TestParityTailCrash: a staged sidecar of an unpublished commit is
// dropped and the old sidecar kept; one of a published commit whose
// rename did not happen is installed by the next writer.
func TestParityTailCrash(t *testing.T) {
	s, dir := mustCreate(t, Options{noSync: true})
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	objs := randomObjects(7, 3, 2000)
	addAll(t, w, objs)
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	w.Close()
	before := packSidecars(t, dir)
	if len(before) != 1 {
		t.Fatalf("sidecars %v", before)
	}
	old, _ := os.ReadFile(filepath.Join(dir, before[0]))
	pack := strings.TrimSuffix(before[0], ".par")
	fi, _ := os.Stat(filepath.Join(dir, pack))

	// Unpublished: a staged sidecar for a range past the commit.
	f, _ := os.OpenFile(filepath.Join(dir, pack), os.O_APPEND|os.O_WRONLY, 0)
	f.Write(bytes.Repeat([]byte{9}, 5000))
	f.Close()
	if _, _, err := parity.ProtectAs(dir, pack, 0, fi.Size()+5000, before[0]+nextSuffix, true); err != nil {
		t.Fatal(err)
	}
	w, err = s.Begin() // cleanup runs here
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, before[0]+nextSuffix)); !os.IsNotExist(err) {
		t.Fatalf("staged sidecar of an unpublished commit kept: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, before[0])); !bytes.Equal(got, old) {
		t.Fatal("the committed sidecar changed")
	}
	// Published, rename lost: commit a second range, then put the
	// coalesced sidecar back under its staged name as if the rename had
	// not happened.
	addAll(t, w, randomObjects(8, 3, 2000))
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	w.Close()
	after := packSidecars(t, dir)
	if len(after) != 1 || after[0] != before[0] {
		t.Fatalf("second commit's sidecars %v, want %v coalesced", after, before)
	}
	os.Rename(filepath.Join(dir, after[0]), filepath.Join(dir, after[0]+nextSuffix))
	os.WriteFile(filepath.Join(dir, after[0]), old, 0o644)
	w, err = s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	sc, err := parity.OpenMeta(filepath.Join(dir, after[0]))
	if err != nil {
		t.Fatal(err)
	}
	fi, _ = os.Stat(filepath.Join(dir, pack))
	if sc.Off != 0 || sc.Len != fi.Size() {
		t.Fatalf("installed sidecar covers [%d,+%d), pack is %d B", sc.Off, sc.Len, fi.Size())
	}
	s.Close()
	allReadable(t, dir, objs)
}
