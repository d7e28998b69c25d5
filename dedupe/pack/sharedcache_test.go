package pack

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestSharedCache: Stores of one archive opened with one Cache at
// successive commits (a server's views) decode an object's frames once;
// a Store sharing a cache refuses to write; an archive created again at
// the same path (another directory) gets none of the old one's frames.
func TestSharedCache(t *testing.T) {
	commit := func(s *Store, objs []obj) {
		t.Helper()
		w, err := s.Begin()
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		addAll(t, w, objs)
		if err := w.Commit(nil); err != nil {
			t.Fatal(err)
		}
	}
	s, dir := mustCreate(t, Options{noSync: true, Level: 1, FrameSize: 8 << 10})
	first := randomObjects(31, 60, 3000)
	commit(s, first)
	c := NewCache(64 << 20)
	open := func() *Store {
		t.Helper()
		v, err := Open(dir, Options{Cache: c})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { v.Close() })
		return v
	}
	v1 := open()
	checkAll(t, v1, first)
	d1 := c.Stats().Decoded
	if d1 == 0 {
		t.Fatal("the first view decoded nothing into the cache")
	}
	commit(s, randomObjects(32, 30, 3000))
	v2 := open()
	checkAll(t, v2, first)
	if d := c.Stats().Decoded - d1; d != 0 {
		t.Errorf("the view after a commit decoded %d bytes of frames the first view decoded", d)
	}
	if _, err := v2.Begin(); !errors.Is(err, ErrSharedCache) {
		t.Errorf("Begin on a store sharing a cache: %v, want ErrSharedCache", err)
	}

	// Another archive, written beside the first and moved to its path.
	other := filepath.Join(t.TempDir(), "b.bwa")
	s2, err := Create(other, Options{noSync: true, Level: 1, FrameSize: 8 << 10})
	if err != nil {
		t.Fatal(err)
	}
	again := randomObjects(33, 60, 3000)
	commit(s2, again)
	s2.Close()
	s.Close()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, dir); err != nil {
		t.Fatal(err)
	}
	checkAll(t, open(), again)
}
