package pack

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// genObject returns deterministic test data: text-like (compressible,
// similar across seeds) or random bytes.
func genObject(r *rand.Rand, size int) []byte {
	b := make([]byte, size)
	if r.IntN(3) == 0 {
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	words := []string{"<div>", "</div>", "block", "archive", "warc", "html", " ", "\n", "<p class=x>", "news", "2024"}
	var s strings.Builder
	for s.Len() < size {
		s.WriteString(words[r.IntN(len(words))])
	}
	return []byte(s.String()[:size])
}

func mustCreate(t testing.TB, opts Options) (*Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "a.bwa")
	s, err := Create(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

type obj struct {
	id   ID
	kind Kind
	data []byte
}

func addAll(t testing.TB, w *Writer, objs []obj) {
	t.Helper()
	for i := range objs {
		id, _, err := w.Add(objs[i].kind, objs[i].data)
		if err != nil {
			t.Fatal(err)
		}
		if want := Sum(objs[i].data).truncate(w.m.idLen()); id != want {
			t.Fatalf("Add returned id %s, want SHA-256 %s", id, want)
		}
		objs[i].id = id
		if i%7 == 6 {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func randomObjects(seed uint64, n, maxSize int) []obj {
	r := rand.New(rand.NewPCG(seed, 1))
	objs := make([]obj, n)
	for i := range objs {
		objs[i] = obj{kind: Kind(1 + r.IntN(int(KindOther))), data: genObject(r, r.IntN(maxSize))}
	}
	return objs
}

func checkAll(t testing.TB, s *Store, objs []obj) {
	t.Helper()
	for _, o := range objs {
		got, k, err := s.Get(o.id)
		if err != nil {
			t.Fatalf("Get %s: %v", o.id, err)
		}
		if !bytes.Equal(got, o.data) {
			t.Fatalf("Get %s: %d bytes differ from the %d stored", o.id, len(got), len(o.data))
		}
		if k != o.kind {
			// A duplicate keeps the kind of its first Add.
			if !slices_containsKind(objs, o.id, k) {
				t.Fatalf("Get %s: kind %s, want %s", o.id, k, o.kind)
			}
		}
	}
}

func slices_containsKind(objs []obj, id ID, k Kind) bool {
	for _, o := range objs {
		if o.id == id && o.kind == k {
			return true
		}
	}
	return false
}

func verifyClean(t testing.TB, s *Store) VerifyResult {
	t.Helper()
	res, err := s.Verify(func(id ID, err error) {
		if err != nil {
			t.Errorf("verify: %s: %v", id, err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestWriterGetPlain(t *testing.T) {
	s, _ := mustCreate(t, Options{Plain: true, FrameSize: 16 << 10})
	objs := randomObjects(1, 50, 5000)
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	addAll(t, w, objs)
	if got, _, err := w.Get(objs[0].id); err != nil || !bytes.Equal(got, objs[0].data) {
		t.Fatalf("writer Get of an uncommitted object: %v", err)
	}
}

func TestRoundTrip(t *testing.T) {
	s, dir := mustCreate(t, Options{FrameSize: 16 << 10})
	objs := randomObjects(1, 300, 5000)
	objs = append(objs, objs[3], objs[10]) // duplicates within a commit
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	addAll(t, w, objs)
	// Uncommitted objects are known to the writer, not to the store
	// (their chunks are readable once committed; TestWriterGetPlain reads
	// uncommitted objects of the plain layout).
	if ok, err := w.Has(objs[0].id); err != nil || !ok {
		t.Fatalf("writer Has of an uncommitted object: %v %v", ok, err)
	}
	if ok, _ := s.Has(objs[0].id); ok {
		t.Fatal("store sees an uncommitted object")
	}
	if err := w.Commit([]byte("first")); err != nil {
		t.Fatal(err)
	}
	more := randomObjects(2, 200, 3000)
	more = append(more, objs[:50]...) // duplicates across commits
	var fresh int
	for i := range more {
		id, isNew, err := w.Add(more[i].kind, more[i].data)
		if err != nil {
			t.Fatal(err)
		}
		more[i].id = id
		if isNew {
			fresh++
		}
	}
	if fresh > 200 {
		t.Fatalf("%d objects reported new; the 50 repeats of committed objects must not be", fresh)
	}
	if err := w.Commit([]byte("second")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	checkAll(t, s, objs)
	checkAll(t, s, more)
	s.Close()

	s2, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if s2.Seq() != 2 || string(s2.Payload()) != "second" {
		t.Fatalf("reopened at seq %d payload %q, want 2 %q", s2.Seq(), s2.Payload(), "second")
	}
	checkAll(t, s2, objs)
	checkAll(t, s2, more)
	distinct := map[ID]bool{}
	for _, o := range append(append([]obj{}, objs...), more...) {
		distinct[o.id] = true
	}
	res := verifyClean(t, s2)
	// And the settings object of the first commit.
	if res.Objects != int64(len(distinct))+1 {
		t.Fatalf("verify checked %d objects, archive holds %d distinct and a settings object", res.Objects, len(distinct))
	}
	if k, n, err := s2.Stat(more[0].id); err != nil || n != len(more[0].data) || k != more[0].kind {
		t.Fatalf("Stat: %s %d %v, want %s %d", k, n, err, more[0].kind, len(more[0].data))
	}
	if _, _, err := s2.Get(Sum([]byte("never stored"))); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a missing id: %v, want ErrNotFound", err)
	}
	st, err := s2.Stats()
	if err != nil {
		t.Fatal(err)
	}
	var n, plain int64
	for _, k := range st.Kinds {
		n += k.Objects
		plain += k.Plain
	}
	var want int64
	for id := range distinct {
		b, _, _ := s2.Get(id)
		want += int64(len(b))
	}
	// The settings object of the first commit counts too.
	set := settingsObject(s2.Settings(), 1)
	if ok, _ := s2.Has(s2.Sum(set)); !ok {
		t.Fatal("no settings object of generation 1")
	}
	want += int64(len(set))
	if n != int64(len(distinct))+1 || plain != want || st.IndexBytes == 0 || st.PackBytes == 0 {
		t.Fatalf("stats %+v: %d objects %d bytes, want %d and %d", st, n, plain, len(distinct), want)
	}
}

func TestEmptyObjectAndEmptyCommit(t *testing.T) {
	s, _ := mustCreate(t, Options{})
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Commit(nil); err != nil { // nothing added: still a commit
		t.Fatal(err)
	}
	id, _, err := w.Add(KindOther, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	got, k, err := s.Get(id)
	if err != nil || len(got) != 0 || k != KindOther {
		t.Fatalf("empty object: %q %s %v", got, k, err)
	}
	if s.Seq() != 2 {
		t.Fatalf("seq %d after two commits", s.Seq())
	}
	verifyClean(t, s)
}

func TestDeterminism(t *testing.T) {
	build := func(workers int) string {
		s, dir := mustCreate(t, Options{FrameSize: 8 << 10, PackSize: 64 << 10, Workers: workers, noSync: true, Level: zstd.SpeedBetterCompression})
		w, err := s.Begin()
		if err != nil {
			t.Fatal(err)
		}
		objs := randomObjects(7, 150, 4000)
		addAll(t, w, objs)
		if err := w.Commit([]byte("p")); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(9, 9))
		for i := 0; i < 40; i++ {
			b := objs[r.IntN(len(objs))]
			d := append(bytes.Clone(b.data), genObject(r, 50)...)
			if _, _, err := w.AddDelta(KindPayload, d, b.id); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Commit([]byte("q")); err != nil {
			t.Fatal(err)
		}
		w.Close()
		return dir
	}
	// Same calls, same bytes, whatever the number of compression workers.
	a, b := build(1), build(4)
	ents, _ := os.ReadDir(a)
	if len(ents) < 5 {
		t.Fatalf("expected several packs and indexes, found %d files", len(ents))
	}
	for _, e := range ents {
		x, _ := os.ReadFile(filepath.Join(a, e.Name()))
		y, err := os.ReadFile(filepath.Join(b, e.Name()))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two identical runs (%v)", e.Name(), err)
		}
	}
}

func TestLock(t *testing.T) {
	s1, dir := mustCreate(t, Options{})
	s2, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	w, err := s1.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Store{s1, s2} {
		_, err = s.Begin()
		var le *LockedError
		if !errors.Is(err, ErrLocked) || !errors.As(err, &le) {
			t.Fatalf("second Begin: %v, want ErrLocked", err)
		}
		if !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "another ingest") {
			t.Fatalf("lock error %q does not name the archive and say why", err)
		}
	}
	// Readers need no lock, and see a commit made elsewhere after Reload.
	id, _, _ := w.Add(KindOther, []byte("seen after reload"))
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	if ok, err := s2.Has(id); ok || err != nil {
		t.Fatalf("Has before Reload: %v %v, want false", ok, err)
	}
	if err := s2.Reload(); err != nil {
		t.Fatal(err)
	}
	if ok, err := s2.Has(id); !ok || err != nil {
		t.Fatalf("Has after Reload: %v %v, want true", ok, err)
	}
	w.Close()
	w2, err := s2.Begin()
	if err != nil {
		t.Fatalf("Begin after the first writer closed: %v", err)
	}
	w2.Close()
}

func TestCreateExisting(t *testing.T) {
	_, dir := mustCreate(t, Options{})
	if _, err := Create(dir, Options{}); err == nil {
		t.Fatal("Create over an existing archive succeeded")
	}
	if _, err := Open(t.TempDir(), Options{}); !errors.Is(err, ErrNotArchive) {
		t.Fatalf("Open of an empty directory: %v, want ErrNotArchive", err)
	}
}

func TestAbortDiscards(t *testing.T) {
	s, dir := mustCreate(t, Options{})
	w, _ := s.Begin()
	kept := randomObjects(3, 20, 2000)
	addAll(t, w, kept)
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	lost := randomObjects(4, 20, 2000)
	addAll(t, w, lost)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	for _, o := range lost {
		if ok, _ := s.Has(o.id); ok {
			t.Fatal("an aborted object is visible")
		}
	}
	w, _ = s.Begin()
	again := randomObjects(5, 20, 2000)
	addAll(t, w, again)
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	w.Close()
	s2, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	checkAll(t, s2, kept)
	checkAll(t, s2, again)
	verifyClean(t, s2)
	_ = fmt.Sprint()
}

// TestResolve checks short references: a prefix resolves to the oldest
// object having it, across commits (several index files, merged or not),
// whatever is added later; Unique is true only for an id no other object
// shares the prefix with. Ids are SHA-256, so prefixes of one byte stand
// in for the rare RefLen-byte collisions.
func TestResolve(t *testing.T) {
	s, _ := mustCreate(t, Options{noSync: true, FrameSize: 4 << 10})
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	oldest := map[byte]ID{}
	skip := map[byte]bool{}
	count := map[byte]int{}
	var all []ID
	for c := range 3 {
		for _, o := range randomObjects(uint64(10+c), 300, 2000) {
			id, isNew, err := w.Add(o.kind, o.data)
			if err != nil {
				t.Fatal(err)
			}
			if !isNew {
				continue
			}
			if _, ok := oldest[id[0]]; !ok {
				oldest[id[0]] = id
			}
			count[id[0]]++
			all = append(all, id)
		}
		if err := w.Commit(nil); err != nil {
			t.Fatal(err)
		}
		if c == 0 {
			// The first commit wrote the settings object too: its
			// prefix is left out.
			sid := s.Sum(settingsObject(w.Settings(), 1))
			if ok, _ := s.Has(sid); !ok {
				t.Fatal("the first commit wrote no settings object")
			}
			skip[sid[0]] = true
		}
		for b, want := range oldest {
			if skip[b] {
				continue
			}
			if got, err := s.Resolve([]byte{b}); err != nil || got != want {
				t.Fatalf("commit %d: Resolve(%02x) = %s, %v; want the oldest, %s", c, b, got, err, want)
			}
		}
	}
	for _, id := range all[:50] {
		if got, err := s.Resolve(id[:RefLen]); err != nil || got != id {
			t.Fatalf("Resolve(%x) = %s, %v; want %s", id[:RefLen], got, err, id)
		}
		if n, err := s.othersWithPrefix(id, id[:1]); err != nil || n != count[id[0]]-1 {
			t.Fatalf("%d other objects share %02x, want %d (%v)", n, id[0], count[id[0]]-1, err)
		}
		if u, err := w.Unique(id); err != nil || !u {
			t.Fatalf("Unique(%s) = %v, %v", id, u, err)
		}
	}
	// A pending object sharing the reference makes it ambiguous.
	id := all[0]
	w.refs[[RefLen]byte(id[:RefLen])]++
	if u, err := w.Unique(id); err != nil || u {
		t.Fatalf("Unique with a pending twin = %v, %v; want false", u, err)
	}
	if _, err := s.Resolve(make([]byte, RefLen)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Resolve of an absent prefix: %v, want ErrNotFound", err)
	}
}

// TestGetMany checks that GetMany returns what Get returns, in the order
// asked (repeats included, across frames read out of order), and fails
// with ErrNotFound for a missing id.
func TestGetMany(t *testing.T) {
	s, _ := mustCreate(t, Options{noSync: true, FrameSize: 8 << 10, CacheBytes: 1})
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	objs := randomObjects(7, 60, 3000)
	addAll(t, w, objs)
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	var ids []ID
	for i := len(objs) - 1; i >= 0; i -= 3 {
		ids = append(ids, objs[i].id, objs[(i*7)%len(objs)].id)
	}
	got, err := s.GetMany(ids)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		want, _, err := s.Get(id)
		if err != nil || !bytes.Equal(got[i], want) {
			t.Fatalf("GetMany[%d] (%s) differs from Get (%v)", i, id, err)
		}
	}
	if _, err := s.GetMany(append(ids, Sum([]byte("absent")))); !errors.Is(err, ErrNotFound) {
		t.Fatalf("GetMany with a missing id: %v, want ErrNotFound", err)
	}
}
