package pack

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/parity"
)

// verifyProblems verifies dir and returns its problems, one a line.
func verifyProblems(t *testing.T, dir string) string {
	t.Helper()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out []string
	res, err := s.Verify(func(_ ID, err error) {
		if err != nil {
			out = append(out, err.Error())
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Problems != int64(len(out)) {
		t.Fatalf("verify counted %d problems, reported %d", res.Problems, len(out))
	}
	return strings.Join(out, "\n")
}

// flipAt flips a byte of dir/name at off.
func flipAt(t *testing.T, dir, name string, off int64) {
	t.Helper()
	p := filepath.Join(dir, name)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[off] ^= 0x5a
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLostRedundancy (issue 34): a pack's sidecar, an index's sidecar
// or COMMIT.copy deleted, or a sidecar damaged, is named by Verify as a
// problem; Repair writes it again from the intact data, after which
// Verify is clean; and damage to the file it protects is then corrected
// again (before, a deleted sidecar went unnoticed, the next commit
// protected only its own range, and one flipped byte there lost the
// pack's objects).
func TestLostRedundancy(t *testing.T) {
	for _, tc := range []struct {
		name string
		// lose removes or damages the redundancy and returns what
		// Verify must name, and the file and offset to damage after
		// Repair, which parity (or the copy) must then correct.
		lose func(t *testing.T, dir string) (want, file string, off int64)
	}{
		{"pack sidecar deleted, then a commit", func(t *testing.T, dir string) (string, string, int64) {
			sc := filepath.Join(dir, packName(1)+".par")
			meta := mustMeta(t, sc)
			if err := os.Remove(sc); err != nil {
				t.Fatal(err)
			}
			// The next commit protects its own range only.
			s, err := Open(dir, Options{noSync: true})
			if err != nil {
				t.Fatal(err)
			}
			w, err := s.Begin()
			if err != nil {
				t.Fatal(err)
			}
			addAll(t, w, randomObjects(7, 10, 3000))
			if err := w.Commit([]byte{9}); err != nil {
				t.Fatal(err)
			}
			w.Close()
			s.Close()
			return "parity of " + filepath.Join(dir, packName(1)) + " bytes 0..", packName(1), meta.Len / 2
		}},
		{"index sidecar deleted", func(t *testing.T, dir string) (string, string, int64) {
			pars, _ := filepath.Glob(filepath.Join(dir, "*.idx.par"))
			if len(pars) == 0 {
				t.Fatal("no index sidecar")
			}
			if err := os.Remove(pars[0]); err != nil {
				t.Fatal(err)
			}
			name := strings.TrimSuffix(filepath.Base(pars[0]), ".par")
			return "parity of " + filepath.Join(dir, name) + " bytes 0..", name, entriesAt(t, pars[0][:len(pars[0])-len(".par")]) + 10
		}},
		{"COMMIT.copy deleted", func(t *testing.T, dir string) (string, string, int64) {
			if err := os.Remove(filepath.Join(dir, commitCopy)); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(dir, commitCopy) + " is missing", commitName, 20
		}},
		{"COMMIT.copy of another generation", func(t *testing.T, dir string) (string, string, int64) {
			m, err := readManifestFile(filepath.Join(dir, commitName))
			if err != nil {
				t.Fatal(err)
			}
			old := *m
			old.seq -= 2
			if err := os.WriteFile(filepath.Join(dir, commitCopy), old.encode(), 0o644); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(dir, commitCopy) + " (generation 1) is not a copy of COMMIT (generation 3)", commitName, 20
		}},
		{"pack sidecar damaged", func(t *testing.T, dir string) (string, string, int64) {
			sc := filepath.Join(dir, packName(1)+".par")
			meta := mustMeta(t, sc)
			fi, err := os.Stat(sc)
			if err != nil {
				t.Fatal(err)
			}
			flipAt(t, dir, packName(1)+".par", fi.Size()/2) // a parity sector
			return "parity sectors damaged", packName(1), meta.Len / 2
		}},
		{"pack sidecar unreadable", func(t *testing.T, dir string) (string, string, int64) {
			sc := filepath.Join(dir, packName(1)+".par")
			meta := mustMeta(t, sc)
			if err := os.WriteFile(sc, []byte("not parity"), 0o644); err != nil {
				t.Fatal(err)
			}
			return packName(1) + ".par", packName(1), meta.Len / 2
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, objs := repairArchive(t, false)
			if got := verifyProblems(t, dir); got != "" {
				t.Fatalf("verify before: %s", got)
			}
			want, file, off := tc.lose(t, dir)
			got := verifyProblems(t, dir)
			if !strings.Contains(got, want) {
				t.Fatalf("verify says %q, want it to name %q", got, want)
			}
			res, err := Repair(dir, Options{noSync: true})
			if err != nil || len(res.Lost) > 0 || len(res.Done) == 0 {
				t.Fatalf("repair: %+v %v", res, err)
			}
			allReadable(t, dir, objs)
			// The redundancy is back: damage is corrected again.
			flipAt(t, dir, file, off)
			s, err := Open(dir, Options{})
			if err != nil {
				t.Fatalf("open after damage to %s: %v", file, err)
			}
			for _, o := range objs {
				if got, _, err := s.Get(Sum(o.data)); err != nil || !bytes.Equal(got, o.data) {
					t.Fatalf("after damage to %s: %v", file, err)
				}
			}
			s.Close()
			if got := verifyProblems(t, dir); got == "" {
				t.Fatalf("verify after damage to %s named nothing", file)
			} else if file != commitName && !strings.Contains(got, "corrected by parity") {
				t.Fatalf("verify after damage to %s: %s", file, got)
			}
			if res, err := Repair(dir, Options{noSync: true}); err != nil || len(res.Lost) > 0 {
				t.Fatalf("repair after damage: %+v %v", res, err)
			}
			allReadable(t, dir, objs)
		})
	}
}

// TestNoParityNotMissing: an archive written without parity has no
// sidecar at all, and Verify names none as missing; one ingest with
// parity into it leaves the earlier ranges without, which are then
// named, and Repair protects them.
func TestNoParityNotMissing(t *testing.T) {
	dir, objs := repairArchive(t, true)
	if got := verifyProblems(t, dir); got != "" {
		t.Fatalf("verify of an archive without parity: %s", got)
	}
	s, err := Open(dir, Options{noSync: true})
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	more := randomObjects(8, 10, 3000)
	addAll(t, w, more)
	if err := w.Commit([]byte{9}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	s.Close()
	got := verifyProblems(t, dir)
	if !strings.Contains(got, "parity of "+filepath.Join(dir, packName(1))+" bytes 0..") {
		t.Fatalf("verify after a commit with parity: %q", got)
	}
	res, err := Repair(dir, Options{noSync: true})
	if err != nil || len(res.Lost) > 0 {
		t.Fatalf("repair: %+v %v", res, err)
	}
	allReadable(t, dir, append(objs, more...))
}

// TestRedundancyErrorIs: a missing sidecar is reported as a
// RedundancyError matching ErrRedundancy, naming the file.
// TestRedundancyErrorIs: a missing sidecar is reported as a
// RedundancyError matching ErrRedundancy, naming the file.
func TestRedundancyErrorIs(t *testing.T) {
	dir, _ := repairArchive(t, false)
	if err := os.Remove(filepath.Join(dir, packName(1)+".par")); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	found := false
	s.Verify(func(_ ID, err error) {
		var re *RedundancyError
		if errors.Is(err, ErrRedundancy) && errors.As(err, &re) && re.File == filepath.Join(dir, packName(1)) {
			found = true
		}
	})
	if !found {
		t.Fatal("no RedundancyError naming the pack")
	}
}

func mustMeta(t *testing.T, path string) struct{ Off, Len int64 } {
	t.Helper()
	sc, err := openMeta(path)
	if err != nil {
		t.Fatal(err)
	}
	return struct{ Off, Len int64 }{sc.Off, sc.Len}
}

var openMeta = parity.OpenMeta
