package pack

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestSeedDamagedFrame: a frame of chunks among the archive's last ones
// is damaged (no parity, not repaired yet). The next writer begins, its
// table seeded from the frames that read: edited copies of the objects
// whose chunks the damaged frame holds are stored again, never named by
// the damaged chunks, and read back; so do the others'.
func TestSeedDamagedFrame(t *testing.T) {
	for _, chain := range []int{-1, 0} {
		s, dir := mustCreate(t, Options{noSync: true, NoParity: true, ChainBytes: chain})
		w, err := s.Begin()
		if err != nil {
			t.Fatal(err)
		}
		var commits [][]obj
		for c := range 3 {
			objs := randomObjects(uint64(40+c), 4, 20<<10)
			addAll(t, w, objs)
			if err := w.Commit([]byte{byte(c)}); err != nil {
				t.Fatal(err)
			}
			commits = append(commits, objs)
		}
		w.Close()
		cr, _ := s.chunks()
		d := wholeDir(t, cr)
		if len(d) != 3 {
			t.Fatalf("%d frames of chunks, want one a commit", len(d))
		}
		f := d[1]
		s.Close()
		p := filepath.Join(dir, packName(uint32(f.Offset>>chunkPackShift)))
		b, _ := os.ReadFile(p)
		b[f.Offset&(1<<chunkPackShift-1)+int64(f.Size)/2] ^= 0x40
		os.WriteFile(p, b, 0o644)

		s, err = Open(dir, Options{noSync: true})
		if err != nil {
			t.Fatal(err)
		}
		lost := 0
		for _, o := range commits[1] {
			if _, _, err := s.Get(o.id); err != nil {
				lost++
			}
		}
		if lost == 0 {
			t.Fatalf("chains %d: the objects of the damaged frame read: the test damages nothing", chain)
		}
		w, err = s.Begin()
		if err != nil {
			t.Fatalf("chains %d: begin over a damaged frame of chunks: %v", chain, err)
		}
		var edited []obj
		for _, objs := range commits {
			for _, o := range objs {
				e := append(bytes.Clone(o.data), " edited"...)
				edited = append(edited, obj{kind: o.kind, data: e})
			}
		}
		addAll(t, w, edited)
		if err := w.Commit([]byte("after")); err != nil {
			t.Fatalf("chains %d: commit: %v", chain, err)
		}
		w.Close()
		checkAll(t, s, edited)
		checkAll(t, s, commits[0])
		s.Close()
	}
}
