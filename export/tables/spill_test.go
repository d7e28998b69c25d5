package tables

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/blockwarc/blockwarc/warcio"
)

// TestBlockSpillKilledLeftover: the spill file a tables or report run
// killed (kill -9) left in -tmp, the blocks table's size, is removed by
// the next run's spill; a live run's is not, and a spill closed leaves
// nothing.
func TestBlockSpillKilledLeftover(t *testing.T) {
	tmp := t.TempDir()
	stale := filepath.Join(tmp, "blockwarc-blocks-123")
	if err := os.Mkdir(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stale, "blocks-1.gob.zst"), []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	live, release, err := warcio.MakeLockedTemp(tmp, "blockwarc-blocks-")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	s, err := newBlockSpill(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.add(&Block{BlockID: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(stale); err == nil {
		t.Error("a killed run's spill is still there")
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live run's spill was removed: %v", err)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 1 {
		t.Errorf("%d entries in -tmp after close, want the live one's alone", len(ents))
	}
}
