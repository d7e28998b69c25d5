package warcio

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRemoveStaleWalkDirs: a walk directory no process holds (what a
// killed Walk leaves) is removed; a live Walk's is kept, and removed by
// its own release.
func TestRemoveStaleWalkDirs(t *testing.T) {
	parent := t.TempDir()
	stale := filepath.Join(parent, walkDirPrefix+"123")
	if err := os.MkdirAll(filepath.Join(stale, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(stale, "run-1.zst"), []byte("x"), 0o644)
	other := filepath.Join(parent, "keep-me")
	os.Mkdir(other, 0o755)
	live, release, err := makeWalkDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	removed, err := RemoveStaleWalkDirs(parent)
	if err != nil || !slices.Equal(removed, []string{filepath.Base(stale)}) {
		t.Fatalf("removed %v (%v), want the stale one only", removed, err)
	}
	for _, p := range []string{live, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale walk dir kept: %v", err)
	}
	release()
	if _, err := os.Stat(live); !os.IsNotExist(err) {
		t.Errorf("released walk dir kept: %v", err)
	}
}
