package pack

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// Archives of formats 2 and 3 extended by this writer: the old objects
// read as before, the new ones go to a new pack of this format, and the
// whole verifies.
func TestExtendOldFormats(t *testing.T) {
	for _, g := range []string{goldenOld[0], goldenOld[2], goldenOld[4]} {
		t.Run(filepath.Base(g), func(t *testing.T) { extendOld(t, g) })
	}
}

func extendOld(t *testing.T, golden string) {
	old := buildGolden(t, filepath.Join(t.TempDir(), "g.bwa"))
	dir := filepath.Join(t.TempDir(), "x.bwa")
	sharedtest.CopyDir(t, golden, dir)
	s, err := Open(dir, Options{noSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	packsBefore := len(s.m.packs)
	h, err := os.ReadFile(filepath.Join(dir, packName(s.m.packs[packsBefore-1].num)))
	if err != nil {
		t.Fatal(err)
	}
	oldVersion := fileVersion(h)
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	// Versions of old objects, as ingest adds a new capture against the
	// previous one.
	var objs []obj
	for i, o := range old {
		if i%3 != 0 {
			continue
		}
		d := append(bytes.Clone(o.data), []byte(" and a little more")...)
		objs = append(objs, obj{id: Sum(d), kind: o.kind, data: d})
		if _, _, err := w.AddDelta(o.kind, d, o.id); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit([]byte("extended")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if oldVersion < formatVersion && len(s.m.packs) != packsBefore+1 {
		t.Fatalf("%d packs after extending, want a new one beside the %d of format %d", len(s.m.packs), packsBefore, oldVersion)
	}
	// An archive keeps the ids it was created with: whole SHA-256 ids in
	// its new index too.
	if s.m.short || s.idLen() != 32 {
		t.Fatal("extending an archive of whole ids switched it to short ids")
	}
	for _, ix := range s.idx {
		if ix.lay.id != 32 {
			t.Fatalf("%s: %d-byte ids in an archive of whole ids", ix.path, ix.lay.id)
		}
	}
	last := s.m.packs[len(s.m.packs)-1]
	h, err = os.ReadFile(filepath.Join(dir, packName(last.num)))
	if err != nil || fileVersion(h) != formatVersion {
		t.Fatalf("new pack: version %d (%v)", fileVersion(h), err)
	}
	checkAll(t, s, old)
	checkAll(t, s, objs)
	res := verifyClean(t, s)
	// And the settings object the extending commit wrote.
	if res.Objects != int64(len(old)+len(objs)+1) {
		t.Fatalf("verify checked %d objects, want %d", res.Objects, len(old)+len(objs)+1)
	}
	st, err := s.Stats()
	if err != nil || st.ChunkFrames == 0 {
		t.Fatalf("stats: %d chunk frames (%v)", st.ChunkFrames, err)
	}
}

// Objects that repeat most of each other's bytes share chunks: the
// archive holds little more than one copy.
func TestChunkedDedup(t *testing.T) {
	s, dir := mustCreate(t, Options{noSync: true})
	base := randomObjects(7, 1, 200<<10)[0].data
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	var objs []obj
	for i := range 20 {
		d := bytes.Clone(base)
		copy(d[(i*9973)%len(d):], []byte("a changed token"))
		objs = append(objs, obj{id: Sum(d), kind: KindBlock, data: d})
		if _, _, err := w.Add(KindBlock, d); err != nil {
			t.Fatal(err)
		}
		if i == 9 { // across a commit too
			if err := w.Commit(nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	w.Close()
	checkAll(t, s, objs)
	verifyClean(t, s)
	var size int64
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		fi, _ := e.Info()
		size += fi.Size()
	}
	// Random bytes do not compress: two copies (one per commit, each
	// starting its chunk table empty) and the changed chunks.
	if size > int64(len(base))*5/2 {
		t.Fatalf("20 near-copies of %d random bytes take %d bytes", len(base), size)
	}
}

// A flipped byte in a frame of chunks is an error naming the pack, never
// wrong bytes; with parity, it is corrected on read.
func TestChunkFrameCorruption(t *testing.T) {
	for _, noParity := range []bool{true, false} {
		chunkFrameCorruption(t, noParity)
	}
}

func chunkFrameCorruption(t *testing.T, noParity bool) {
	s, dir := mustCreate(t, Options{noSync: true, NoParity: noParity})
	objs := randomObjects(3, 40, 20000)
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	addAll(t, w, objs)
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	w.Close()
	_, rows, err := chunkDirectory(s.idx)
	if err != nil || len(rows) == 0 {
		t.Fatalf("%d chunk frames (%v)", len(rows), err)
	}
	s.Close()
	path := filepath.Join(dir, packName(rows[0].pack))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[rows[0].off+int64(rows[0].len)/2] ^= 0x40
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !noParity {
		checkAll(t, s, objs)
		if len(s.Corrections()) == 0 {
			t.Fatal("the flipped byte was not reported as corrected by parity")
		}
		return
	}
	failed := 0
	for _, o := range objs {
		got, _, err := s.Get(o.id)
		switch {
		case err == nil && !bytes.Equal(got, o.data):
			t.Fatalf("%s: wrong bytes with no error", o.id)
		case err != nil:
			failed++
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.File != path {
				t.Fatalf("%s: %v, want a corruption error naming %s", o.id, err, path)
			}
		}
	}
	if failed == 0 {
		t.Fatal("no object read failed after a flipped byte in its frame of chunks")
	}
	res, err := s.Verify(func(ID, error) {})
	if err != nil || res.Problems == 0 {
		t.Fatalf("verify found %d problems (%v)", res.Problems, err)
	}
}

// zstdFrameLen finds where the chunk table's zstd frame ends in every
// frame of chunks: the length the index recorded.
func TestZstdFrameLen(t *testing.T) {
	s, dir := mustCreate(t, Options{noSync: true, Level: 1})
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	addAll(t, w, randomObjects(5, 200, 60000))
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	w.Close()
	_, rows, err := chunkDirectory(s.idx)
	if err != nil || len(rows) < 2 {
		t.Fatalf("%d chunk frames (%v)", len(rows), err)
	}
	for _, r := range rows {
		b, err := os.ReadFile(filepath.Join(dir, packName(r.pack)))
		if err != nil {
			t.Fatal(err)
		}
		data := b[r.off+frameFixedSize+4 : r.off+int64(r.len)]
		n, err := zstdFrameLen(data)
		if err != nil || n != int(r.table) {
			t.Fatalf("frame at %d: table frame of %d bytes (%v), index says %d", r.off, n, err, r.table)
		}
		if m, err := zstdFrameLen(data[n:]); err != nil || n+m != len(data) {
			t.Fatalf("frame at %d: chunks frame of %d bytes (%v), %d left", r.off, m, err, len(data)-n)
		}
		if _, err := zstdFrameLen(data[:n-1]); err == nil {
			t.Fatal("a truncated frame has a length")
		}
	}
}

// Stats.Add sums every field: a field it forgot would make a sharded
// archive's report lose bytes.
func TestStatsAdd(t *testing.T) {
	var a, b Stats
	v := reflect.ValueOf(&b).Elem()
	n := int64(1)
	var fill func(reflect.Value)
	fill = func(f reflect.Value) {
		switch f.Kind() {
		case reflect.Int64:
			f.SetInt(n)
			n++
		case reflect.Array:
			for i := range f.Len() {
				fill(f.Index(i))
			}
		case reflect.Struct:
			for i := range f.NumField() {
				fill(f.Field(i))
			}
		default:
			t.Fatalf("Stats has a field of kind %s: sum it in Add and here", f.Kind())
		}
	}
	fill(v)
	a.Add(b)
	a.Add(b)
	var twice Stats
	tv := reflect.ValueOf(&twice).Elem()
	var double func(dst, src reflect.Value)
	double = func(dst, src reflect.Value) {
		switch src.Kind() {
		case reflect.Int64:
			dst.SetInt(2 * src.Int())
		case reflect.Array:
			for i := range src.Len() {
				double(dst.Index(i), src.Index(i))
			}
		case reflect.Struct:
			for i := range src.NumField() {
				double(dst.Field(i), src.Field(i))
			}
		}
	}
	double(tv, v)
	if a != twice {
		t.Fatalf("Add of a Stats twice:\n%+v\nwant\n%+v", a, twice)
	}
}
