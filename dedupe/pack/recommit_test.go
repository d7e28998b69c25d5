package pack

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/internal/testhooks"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
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

// TestRebuildCommitResumed: a RebuildCommit stopped after it wrote its
// index and before it published the commit (here: its check fails, as
// a kill there leaves it) and run again publishes the files one run
// publishes: the index it wrote, the highest on disk, is taken with its
// number, not passed by one more.
func TestRebuildCommitResumed(t *testing.T) {
	one := filepath.Join(t.TempDir(), "one.bwa")
	buildGolden(t, one)
	// An index file left by a merge that was killed, the highest on
	// disk: the rebuild writes past it.
	if err := os.WriteFile(filepath.Join(one, indexName(9)), bytes.Repeat([]byte{7}, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{commitName, commitCopy} {
		if err := os.Remove(filepath.Join(one, n)); err != nil {
			t.Fatal(err)
		}
	}
	two := filepath.Join(t.TempDir(), "two.bwa")
	sharedtest.CopyDir(t, one, two)
	root := func(*Store) ([]byte, error) { return []byte("root"), nil }
	ok := func(*Store) error { return nil }
	if _, err := RebuildCommit(one, Options{}, root, ok); err != nil {
		t.Fatal(err)
	}
	before := sharedtest.ArchiveFiles(t, two)
	if _, err := RebuildCommit(two, Options{}, root, func(*Store) error { return errors.New("killed") }); err == nil {
		t.Fatal("published though its check failed")
	}
	left := sharedtest.ArchiveFiles(t, two)
	added := 0
	for n := range left {
		if _, ok := before[n]; !ok && strings.HasSuffix(n, ".idx") {
			added++
		}
	}
	if added != 1 {
		t.Fatalf("the stopped rebuild left %d new index files, want 1: the test checks nothing", added)
	}
	if _, err := RebuildCommit(two, Options{}, root, ok); err != nil {
		t.Fatal(err)
	}
	got, want := sharedtest.ArchiveFiles(t, two), sharedtest.ArchiveFiles(t, one)
	for n, b := range want {
		if !bytes.Equal(got[n], b) {
			t.Errorf("%s differs from one run's (or is missing)", n)
		}
	}
	for n := range got {
		if _, ok := want[n]; !ok {
			t.Errorf("%s: not in one run's archive", n)
		}
	}
}

// TestRebuildKeepsSettings: the commit rebuilt after COMMIT and
// COMMIT.copy are both lost carries the settings the lost one recorded
// (from the settings object of the highest generation, docs/FORMAT.md
// "Settings object"), through changes of settings and back, and the
// next commit writes the same bytes as on the undamaged archive: with
// the defaults instead (seeding on, digest rows), it would not.
func TestRebuildKeepsSettings(t *testing.T) {
	a := Options{noSync: true, hooks: testhooks.Pack{SeedBytes: -1}, ChunkTable: 4096, DigestMin: -1, Level: 1}
	b := a
	b.ChunkTable = 8192
	dir := filepath.Join(t.TempDir(), "a.bwa")
	s, err := Create(dir, b)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	base := randomObjects(7, 40, 64<<10)
	for i, o := range []Options{b, a, b, a} {
		s, err := Open(dir, o)
		if err != nil {
			t.Fatal(err)
		}
		w, err := s.Begin()
		if err != nil {
			t.Fatal(err)
		}
		addAll(t, w, base[i*10:i*10+10])
		if err := w.Commit(nil); err != nil {
			t.Fatal(err)
		}
		w.Close()
		s.Close()
	}
	want := Settings{ChunkTable: 4096, SeedBytes: -1, ChainBytes: Settings{}.withDefaults().ChainBytes, DigestMin: -1}
	lost := filepath.Join(t.TempDir(), "b.bwa")
	sharedtest.CopyDir(t, dir, lost)
	os.Remove(filepath.Join(lost, commitName))
	os.Remove(filepath.Join(lost, commitCopy))
	if _, err := RebuildCommit(lost, Options{}, func(*Store) ([]byte, error) { return nil, nil }, func(*Store) error { return nil }); err != nil {
		t.Fatal(err)
	}
	// The next commit: edited copies of the first objects, which a
	// seeded chunk table would find.
	var next []obj
	for _, o := range base[:10] {
		d := bytes.Clone(o.data)
		if len(d) > 100 {
			d[len(d)/2] ^= 1
		}
		next = append(next, obj{kind: o.kind, data: d})
	}
	pre := filepath.Join(t.TempDir(), "c.bwa")
	sharedtest.CopyDir(t, dir, pre)
	packs := map[string][]byte{}
	// c.bwa is the undamaged archive's next commit under the defaults,
	// given explicitly: it must differ, or the settings would not bite.
	defaults := Options{noSync: true, Level: 1, ChunkTable: DefaultChunkTable, DigestMin: DefaultDigestMin, hooks: testhooks.Pack{SeedBytes: Settings{}.withDefaults().SeedBytes}}
	for _, d := range []string{dir, lost, pre} {
		o := Options{noSync: true, Level: 1}
		if d == pre {
			o = defaults
		}
		s, err := Open(d, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Settings(); got != want && d != pre {
			t.Fatalf("%s: settings %+v, want %+v", filepath.Base(d), got, want)
		}
		w, err := s.Begin()
		if err != nil {
			t.Fatal(err)
		}
		addAll(t, w, slices.Clone(next))
		if err := w.Commit(nil); err != nil {
			t.Fatal(err)
		}
		w.Close()
		s.Close()
		names, _ := filepath.Glob(filepath.Join(d, "*.pack"))
		for _, n := range names {
			b, _ := os.ReadFile(n)
			packs[filepath.Base(d)] = append(packs[filepath.Base(d)], b...)
		}
	}
	if !bytes.Equal(packs["a.bwa"], packs["b.bwa"]) {
		t.Fatalf("the next commit wrote other bytes after the rebuild (%d against %d pack bytes)", len(packs["b.bwa"]), len(packs["a.bwa"]))
	}
	if bytes.Equal(packs["a.bwa"], packs["c.bwa"]) {
		t.Fatal("the next commit writes the same bytes under the default settings: the test does not see them")
	}
}

// TestSettingsObjectLost: a commit that names a settings object the
// packs do not hold (as a repair that dropped its frame leaves it) is
// named by Verify as lost redundancy, and Repair writes the object
// again, so that a commit rebuilt later still has the settings.
func TestSettingsObjectLost(t *testing.T) {
	s, dir := mustCreate(t, Options{noSync: true, ChunkTable: 4096, Level: 1})
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	addAll(t, w, randomObjects(3, 10, 8<<10))
	if err := w.Commit([]byte("root")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	s.Close()
	m, _, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.setAt += 7 // no object of that generation exists
	if err := publishManifest(dir, m, &Options{noSync: true}); err != nil {
		t.Fatal(err)
	}
	verifyNames := func() []error {
		s, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var named []error
		s.Verify(func(_ ID, err error) {
			if err != nil {
				named = append(named, err)
			}
		})
		return named
	}
	named := verifyNames()
	if len(named) != 1 || !errors.Is(named[0], ErrRedundancy) || !strings.Contains(named[0].Error(), "settings object") {
		t.Fatalf("verify named %v, want the settings object missing", named)
	}
	res, err := Repair(dir, Options{})
	if err != nil || !strings.Contains(strings.Join(res.Done, "\n"), "settings object") {
		t.Fatalf("repair: %v %v", err, res)
	}
	if named := verifyNames(); len(named) != 0 {
		t.Fatalf("verify after repair: %v", named)
	}
	os.Remove(filepath.Join(dir, commitName))
	os.Remove(filepath.Join(dir, commitCopy))
	if _, err := RebuildCommit(dir, Options{}, func(*Store) ([]byte, error) { return []byte("root"), nil }, func(*Store) error { return nil }); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got := s2.Settings(); got.ChunkTable != 4096 || string(s2.Payload()) != "root" {
		t.Fatalf("rebuilt: settings %+v, payload %q", got, s2.Payload())
	}
}
