package pack

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLockFileDeleted deletes the LOCK file while a writer holds the
// archive, as a user clearing a "stale" lock would: a second writer is
// still refused, because the lock that counts is on the directory.
func TestLockFileDeleted(t *testing.T) {
	s1, dir := mustCreate(t, Options{})
	s2, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	for try := range 10 {
		w, err := s1.Begin()
		if err != nil {
			t.Fatalf("try %d: %v", try, err)
		}
		if err := os.Remove(filepath.Join(dir, lockName)); err != nil {
			t.Fatal(err)
		}
		if w2, err := s2.Begin(); !errors.Is(err, ErrLocked) {
			if w2 != nil {
				w2.Close()
			}
			t.Fatalf("try %d: second Begin with LOCK deleted: %v, want ErrLocked", try, err)
		} else if !strings.Contains(err.Error(), dir) {
			t.Fatalf("lock error %q does not name the archive", err)
		}
		if _, _, err := w.Add(KindOther, []byte{byte(try)}); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(nil); err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
	if res, err := s1.Verify(func(id ID, err error) {
		if err != nil {
			t.Errorf("verify: %v", err)
		}
	}); err != nil || res.Problems != 0 {
		t.Fatalf("verify: %+v %v", res, err)
	}
}

// TestCommitConflict makes a commit appear under a writer (what a lock
// flock does not see would allow): the writer's commit is refused and
// the other commit stays.
func TestCommitConflict(t *testing.T) {
	s, dir := mustCreate(t, Options{})
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	other := &manifest{seq: w.m.seq + 1, payload: []byte("other writer")}
	if err := publishManifest(dir, other, &Options{noSync: true}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.Add(KindOther, []byte("mine")); err != nil {
		t.Fatal(err)
	}
	err = w.Commit([]byte("mine"))
	var ce *ConflictError
	if !errors.Is(err, ErrConflict) || !errors.As(err, &ce) || ce.Began != other.seq-1 || ce.Found != other.seq {
		t.Fatalf("commit over another generation: %v, want a ConflictError", err)
	}
	m, _, err := readManifest(dir)
	if err != nil || m.seq != other.seq || string(m.payload) != "other writer" {
		t.Fatalf("commit after the refused one: %+v %v", m, err)
	}
}

// TestCommitCopy damages COMMIT: the archive opens from COMMIT.copy,
// says so, restores every object, and the next writer heals COMMIT.
// With both damaged, opening fails naming COMMIT.
func TestCommitCopy(t *testing.T) {
	s, dir := mustCreate(t, Options{})
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	var ids []ID
	for i := range 50 {
		data := bytes.Repeat([]byte{byte(i)}, 100+i)
		id, _, err := w.Add(KindBlock, data)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := w.Commit([]byte("root")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	s.Close()
	commit := filepath.Join(dir, commitName)
	good, err := os.ReadFile(commit)
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []int{0, 5, 9, len(good) / 2, len(good) - 1} {
		bad := bytes.Clone(good)
		bad[off] ^= 0x40
		if err := os.WriteFile(commit, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(dir, Options{})
		if err != nil {
			t.Fatalf("flip at %d: open: %v", off, err)
		}
		if r := s.Recovered(); !strings.Contains(r, commitCopy) || !strings.Contains(r, commit) {
			t.Errorf("flip at %d: Recovered() = %q, want it to name both files", off, r)
		}
		if string(s.Payload()) != "root" {
			t.Errorf("flip at %d: payload %q", off, s.Payload())
		}
		for i, id := range ids {
			if got, _, err := s.Get(id); err != nil || len(got) != 100+i {
				t.Fatalf("flip at %d: object %d: %v", off, i, err)
			}
		}
		found := false
		s.Verify(func(_ ID, err error) {
			var ce *CorruptError
			found = found || errors.As(err, &ce) && ce.File == commit
		})
		if !found {
			t.Errorf("flip at %d: verify did not name %s", off, commit)
		}
		s.Close()
	}
	// A writer heals it.
	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err = s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Commit([]byte("root")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	s.Close()
	s, err = Open(dir, Options{})
	if err != nil || s.Recovered() != "" {
		t.Fatalf("after a commit: %v, recovered %q", err, s.Recovered())
	}
	s.Close()
	// Both damaged: refused, naming COMMIT.
	for _, name := range []string{commitName, commitCopy} {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		b[len(b)/2] ^= 1
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	if _, err := Open(dir, Options{}); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), commit) {
		t.Fatalf("both commit files damaged: %v", err)
	}
}
