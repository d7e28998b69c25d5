package pack

import (
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/internal/testhooks"
)

// TestSetTestHooks: the hooks tests give through SetTestHooks (issue
// 37: out of the public options) reach the writer: the Faults hook sees
// the commit's writes, and SeedBytes becomes the archive's setting,
// recorded and read back, as the public field did (ChainBytes, a hook
// until ingest -chain, beside it).
func TestSetTestHooks(t *testing.T) {
	var o Options
	o.noSync = true
	ops := map[string]int{}
	o.SetTestHooks(testhooks.Pack{
		Faults:    func(op, _ string) error { ops[op]++; return nil },
		SeedBytes: -1,
	})
	o.ChainBytes = 64 << 10
	s, dir := mustCreate(t, o)
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.Add(KindBlock, []byte("an object to commit")); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	if ops["write"] == 0 || ops["sync"] == 0 || ops["rename"] == 0 {
		t.Errorf("the Faults hook saw %v; want writes, syncs and renames", ops)
	}
	s.Close()
	s2, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got := s2.Settings(); got.SeedBytes != -1 || got.ChainBytes != 64<<10 {
		t.Errorf("settings read back %+v; want SeedBytes -1, ChainBytes 65536", got)
	}
}

// TestKeepSettings: KeepSettings (compact: the copy keeps its source's
// settings) fills only what the options leave unset.
func TestKeepSettings(t *testing.T) {
	src := Settings{ChunkTable: 4096, SeedBytes: -1, ChainBytes: 1 << 20, DigestMin: 2048}
	o := Options{ChunkTable: 8192}
	o.KeepSettings(src)
	want := Settings{ChunkTable: 8192, SeedBytes: -1, ChainBytes: 1 << 20, DigestMin: 2048}
	if got := o.settings(); got != want {
		t.Errorf("KeepSettings: %+v; want %+v", got, want)
	}
	var h Options
	h.SetTestHooks(testhooks.Pack{SeedBytes: 1 << 10})
	h.KeepSettings(src)
	if got := h.settings(); got.SeedBytes != 1<<10 || got.ChainBytes != 1<<20 {
		t.Errorf("KeepSettings over a hook: %+v; want the hook's SeedBytes kept", got)
	}
}
