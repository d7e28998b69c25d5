package warcio

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRemoveStaleWalkDirs: a walk directory no process holds (what a
// killed Walk leaves, under its name or under the hidden one it has
// before its rename) is removed, by the next walk directory made and by
// RemoveStaleWalkDirs; a live Walk's is kept, and removed by its own
// release.
func TestRemoveStaleWalkDirs(t *testing.T) {
	parent := t.TempDir()
	plant := func(stale, hidden string) (string, string) {
		t.Helper()
		s := filepath.Join(parent, walkDirPrefix+stale)
		if err := os.MkdirAll(filepath.Join(s, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(s, "run-1.zst"), []byte("x"), 0o644)
		h := filepath.Join(parent, "."+walkDirPrefix+hidden)
		if err := os.Mkdir(h, 0o755); err != nil {
			t.Fatal(err)
		}
		return s, h
	}
	gone := func(paths ...string) {
		t.Helper()
		for _, p := range paths {
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Errorf("stale walk dir %s kept: %v", p, err)
			}
		}
	}
	stale, hidden := plant("123", "456")
	other := filepath.Join(parent, "keep-me")
	os.Mkdir(other, 0o755)
	live, release, err := makeWalkDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	gone(stale, hidden)
	stale, hidden = plant("789", "012")
	removed, err := RemoveStaleWalkDirs(parent)
	if slices.Sort(removed); err != nil || !slices.Equal(removed, []string{filepath.Base(hidden), filepath.Base(stale)}) {
		t.Fatalf("removed %v (%v), want the two stale ones only", removed, err)
	}
	for _, p := range []string{live, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	gone(stale, hidden)
	release()
	if _, err := os.Stat(live); !os.IsNotExist(err) {
		t.Errorf("released walk dir kept: %v", err)
	}
}

// TestMakeLockedTempRace: a directory MakeLockedTemp is making while
// another process or goroutine removes stale ones (the shards of a
// pipeline starting at once on one worker) is never taken for stale:
// made under another name, it is locked before it bears the prefix.
func TestMakeLockedTempRace(t *testing.T) {
	parent := t.TempDir()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				RemoveStaleTemp(parent, "race-")
			}
		}
	}()
	var releases []func()
	for i := range 300 {
		dir, release, err := MakeLockedTemp(parent, "race-")
		if err != nil {
			close(stop)
			<-done
			t.Fatalf("make %d: %v", i, err)
		}
		releases = append(releases, release)
		if _, err := os.Stat(dir); err != nil {
			close(stop)
			<-done
			t.Fatalf("made %d, then removed as stale: %v", i, err)
		}
	}
	close(stop)
	<-done
	for _, r := range releases {
		r()
	}
	if left, _ := os.ReadDir(parent); len(left) != 0 {
		t.Errorf("%d directories left after their release", len(left))
	}
}

// TestWalkRemovesKilledWalkDir: the sorted runs a walk killed (kill -9)
// left in TempDir, up to the inputs' size, are removed by the next walk
// there; every killed ingest re-run left one more before.
func TestWalkRemovesKilledWalkDir(t *testing.T) {
	tmp := t.TempDir()
	stale := filepath.Join(tmp, walkDirPrefix+"123")
	if err := os.Mkdir(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(stale, "run-1.zst"), []byte("x"), 0o600)
	live, release, err := makeWalkDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	in := filepath.Join("..", "testdata", "samples", "ota-lovescout24-20220120143355.warc.gz")
	if _, err := Walk(context.Background(), []string{in}, WalkOptions{TempDir: tmp}, func(*Capture) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(stale); err == nil {
		t.Error("a killed walk's directory is still there")
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live walk's directory was removed: %v", err)
	}
}
