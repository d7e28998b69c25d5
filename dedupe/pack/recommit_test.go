package pack

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCommitLostNotNew: an archive whose COMMIT and COMMIT.copy were both
// deleted is not taken for a new one (whose first commit would delete
// every pack): Open says ErrCommitLost, not ErrNotArchive, and
// RebuildCommit makes the commit again with every object readable.
func TestCommitLostNotNew(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "g.bwa")
	objs := buildGolden(t, dir)
	for _, n := range []string{commitName, commitCopy} {
		if err := os.Remove(filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Open(dir, Options{})
	if !errors.Is(err, ErrCommitLost) || errors.Is(err, ErrNotArchive) {
		t.Fatalf("open without commit files: %v, want ErrCommitLost", err)
	}
	if _, err := Repair(dir, Options{}); !errors.Is(err, ErrCommitLost) {
		t.Fatalf("repair: %v, want ErrCommitLost", err)
	}
	var checked bool
	res, err := RebuildCommit(dir, Options{}, func(*Store) ([]byte, error) { return []byte("root"), nil }, func(s *Store) error {
		checked = string(s.Payload()) == "root"
		return nil
	})
	if err != nil || !checked {
		t.Fatalf("rebuild: %v (payload checked: %v) %v", err, checked, res)
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkAll(t, s, objs)
	verifyClean(t, s)
	// A payload that does not check is never published.
	dir2 := filepath.Join(t.TempDir(), "h.bwa")
	buildGolden(t, dir2)
	os.Remove(filepath.Join(dir2, commitName))
	os.Remove(filepath.Join(dir2, commitCopy))
	if _, err := RebuildCommit(dir2, Options{}, func(*Store) ([]byte, error) { return nil, nil }, func(*Store) error { return errors.New("no") }); err == nil {
		t.Fatal("a commit whose check failed was published")
	}
	if _, err := os.Stat(filepath.Join(dir2, commitName)); err == nil {
		t.Fatal("COMMIT written though its check failed")
	}
}
