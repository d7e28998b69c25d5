package pack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/chunk"
	"github.com/blockwarc/blockwarc/dedupe/internal/testhooks"
)

// TestPlaces stores objects named by place and reads them back: no index
// entry, the same bytes get the same place until the commit, a base
// equal to the object lends its place, and after a commit only what the
// writer learns is found again (without the seed of the chunk table,
// which finds them in the archive's last frames: TestPlacesSeeded).
func TestPlaces(t *testing.T) {
	s, dir := mustCreate(t, Options{noSync: true, hooks: testhooks.Pack{SeedBytes: -1}, DigestMin: -1})
	objs := randomObjects(11, 6, 40<<10)
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.NamePlaces(); err != nil {
		t.Fatal(err)
	}
	kinds := []Kind{KindBlock, KindLayout, KindWARCHeader, KindHTTPHeader, KindPayload, KindRecord}
	var ids []ID
	for i, o := range objs {
		id, isNew, err := w.Add(kinds[i], o.data)
		if err != nil || !isNew {
			t.Fatalf("add %d: %v, new %v", i, err, isNew)
		}
		if _, ok := id.Place(); !ok {
			t.Fatalf("add %d: id %s is no place", i, id)
		}
		ids = append(ids, id)
	}
	if again, isNew, _ := w.Add(KindBlock, objs[0].data); again != ids[0] || isNew {
		t.Errorf("the same bytes again: %s (new %v), want %s", again, isNew, ids[0])
	}
	// A delta of an object with the same bytes: the base's place.
	if got, isNew, _ := w.AddDelta(KindBlock, bytes.Clone(objs[1].data), ids[1]); got != ids[1] || isNew {
		t.Errorf("delta equal to its base: %s (new %v), want %s", got, isNew, ids[1])
	}
	// The catalog stays named by hash, and indexed.
	seg := []byte("a catalog segment")
	segID, _, err := w.Add(KindVersionCatalog, seg)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := segID.Place(); ok {
		t.Fatal("a catalog segment named by place")
	}
	if err := w.Commit([]byte("one")); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		b, k, err := s.Get(id)
		if err != nil || !bytes.Equal(b, objs[i].data) || k != kinds[i] {
			t.Fatalf("get %s: %v, kind %s, equal %v", id, err, k, bytes.Equal(b, objs[i].data))
		}
		if k, n, err := s.Stat(id); err != nil || k != kinds[i] || n != len(objs[i].data) {
			t.Errorf("stat %s: %s %d %v", id, k, n, err)
		}
		if ok, err := s.Has(id); err != nil || !ok {
			t.Errorf("has %s: %v %v", id, ok, err)
		}
	}
	many, err := s.GetMany([]ID{ids[2], segID, ids[0]})
	if err != nil || !bytes.Equal(many[0], objs[2].data) || !bytes.Equal(many[1], seg) || !bytes.Equal(many[2], objs[0].data) {
		t.Fatalf("get many: %v", err)
	}
	if ok, _ := s.Has(PlaceID(1 << 40)); ok {
		t.Error("a place past the last chunk is there")
	}
	if _, _, err := s.Get(PlaceID(1 << 40)); !errors.Is(err, ErrNotFound) {
		t.Errorf("a place past the last chunk: %v", err)
	}
	// Two index entries: the segment's and the settings object's.
	st, err := s.Stats()
	if err != nil {
		t.Fatal(err)
	}
	n := int64(0)
	for _, k := range st.Kinds {
		n += k.Objects
	}
	if n != 2 {
		t.Errorf("the indexes list %d objects, want the segment and the settings object", n)
	}
	stp, err := s.StatsWith(ids)
	if err != nil || stp.Kinds[KindBlock].Objects != 1 || stp.Kinds[KindPayload].Plain != int64(len(objs[4].data)) || stp.Kinds[KindBlock].Stored == 0 {
		t.Errorf("stats with places: %+v, %v", stp.Kinds, err)
	}
	verifyClean(t, s)

	// After the commit: forgotten, unless learnt.
	if got, isNew, _ := w.Add(KindBlock, objs[0].data); got == ids[0] || !isNew {
		t.Errorf("after the commit, the same bytes: %s (new %v), want a new place", got, isNew)
	}
	w.Learn(ids[3], segID, PlaceID(1<<40)) // an id and a place that does not read are skipped
	if got, isNew, _ := w.Add(KindHTTPHeader, objs[3].data); got != ids[3] || isNew {
		t.Errorf("learnt: %s (new %v), want %s", got, isNew, ids[3])
	}
	// A learnt object's chunks are known too: an edited copy of it,
	// added with no base, stores the chunks around the edit alone.
	w.Learn(ids[5])
	edited := bytes.Clone(objs[5].data)
	copy(edited[len(edited)/2:], "an edit")
	before := w.cw.Stats().NewBytes
	if _, isNew, err := w.Add(KindRecord, edited); err != nil || !isNew {
		t.Fatalf("edited: new %v, %v", isNew, err)
	}
	if n := w.cw.Stats().NewBytes - before; n > int64(len(edited))/4 {
		t.Errorf("an edit of a learnt object of %d bytes stored %d new chunk bytes", len(edited), n)
	}
	if err := w.Commit([]byte("two")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if file, off, n, err := s.Locate(ids[0]); err != nil || n <= 0 || off <= 0 || filepath.Ext(file) != ".pack" {
		t.Errorf("locate %s: %s %d %d %v", ids[0], file, off, n, err)
	}
	// What a reader opening the archive afresh sees.
	s2, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	for i, id := range ids {
		if b, _, err := s2.Get(id); err != nil || !bytes.Equal(b, objs[i].data) {
			t.Fatalf("reopened, get %s: %v", id, err)
		}
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
}

// TestPlacesSeeded: after a commit, an object with the bytes of one the
// commit stored gets its place, and an edited copy stores the chunks
// around the edit alone, though the writer was told of neither: the
// chunk table starts with the chunks of the archive's last frames, the
// place record's among them.
func TestPlacesSeeded(t *testing.T) {
	s, _ := mustCreate(t, Options{noSync: true})
	objs := randomObjects(12, 2, 40<<10)
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.NamePlaces(); err != nil {
		t.Fatal(err)
	}
	var ids []ID
	for _, o := range objs {
		id, _, err := w.Add(KindBlock, o.data)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := w.Commit([]byte("one")); err != nil {
		t.Fatal(err)
	}
	if got, isNew, err := w.Add(KindBlock, objs[0].data); err != nil || got != ids[0] || isNew {
		t.Errorf("after the commit, the same bytes: %s (new %v, %v), want %s", got, isNew, err, ids[0])
	}
	edited := bytes.Clone(objs[1].data)
	copy(edited[len(edited)/2:], "an edit")
	before := w.cw.Stats().NewBytes
	if _, isNew, err := w.Add(KindBlock, edited); err != nil || !isNew {
		t.Fatalf("edited: new %v, %v", isNew, err)
	}
	if n := w.cw.Stats().NewBytes - before; n > int64(len(edited))/4 {
		t.Errorf("an edit of an object of %d bytes stored %d new chunk bytes", len(edited), n)
	}
}

// TestPlaceID checks place ids against hashed ones.
func TestPlaceID(t *testing.T) {
	for _, n := range []uint64{0, 1, 1<<40 + 7, 1<<64 - 1} {
		id := PlaceID(n)
		if got, ok := id.Place(); !ok || got != n {
			t.Errorf("PlaceID(%d).Place() = %d, %v", n, got, ok)
		}
		if id.truncate(ShortID) != id || id.Short() != id {
			t.Errorf("a place id is cut as a short id")
		}
	}
	for _, id := range []ID{{}, Sum([]byte("x")), Sum([]byte("x")).Short()} {
		if _, ok := id.Place(); ok {
			t.Errorf("%s is taken for a place", id)
		}
	}
	if s := PlaceID(42).String(); s != "place:42" {
		t.Errorf("String() = %q", s)
	}
}

// TestPlaceRecord checks the place record's coding and that malformed
// records are refused.
func TestPlaceRecord(t *testing.T) {
	refs := []uint64{5, 6, 7, 2, 100}
	rec := appendPlaceRecord(nil, KindBlock, 3000, refs)
	k, n, got, err := decodePlaceRecord(rec, 1<<20)
	if err != nil || k != KindBlock || n != 3000 || len(got) != len(refs) {
		t.Fatalf("decode: %s %d %v %v", k, n, got, err)
	}
	for i := range refs {
		if got[i] != refs[i] {
			t.Fatalf("refs %v, want %v", got, refs)
		}
	}
	bad := map[string][]byte{
		"empty":           nil,
		"catalog kind":    appendPlaceRecord(nil, KindVersionCatalog, 3, []uint64{1}),
		"kind 0":          append([]byte{0}, rec[1:]...),
		"more refs":       appendPlaceRecord(nil, KindBlock, 2, refs),
		"trailing bytes":  append(bytes.Clone(rec), 0),
		"cut":             rec[:len(rec)-1],
		"absurd length":   append([]byte{byte(KindBlock), 0xff, 0xff, 0xff, 0xff, 0x0f}, chunk.EncodeRefs(nil, refs, nil)...),
		"length overflow": {byte(KindBlock), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
		// A billion refs in 8 bytes of code, past the archive's chunks.
		"run past the chunks": binary.AppendVarint(binary.AppendUvarint(binary.AppendUvarint(binary.AppendUvarint([]byte{byte(KindBlock)}, 1<<30), 1<<30), (1<<30-1)<<1|1), 0),
	}
	for name, b := range bad {
		if _, _, _, err := decodePlaceRecord(b, 1<<16); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

// FuzzPlaceRecord: a place record read from a damaged or hostile archive
// never panics, holds no more refs than bytes, and what decodes encodes
// to a record that decodes the same (varints may have been written
// longer than needed).
func FuzzPlaceRecord(f *testing.F) {
	f.Add(appendPlaceRecord(nil, KindBlock, 3000, []uint64{5, 6, 7, 2, 100}))
	f.Add(appendPlaceRecord(nil, KindPayload, 0, nil))
	f.Add([]byte{2, 0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		k, n, refs, err := decodePlaceRecord(b, 1<<16)
		if err != nil {
			return
		}
		if len(refs) > n {
			t.Fatalf("%x: %d refs for %d bytes", b, len(refs), n)
		}
		k2, n2, refs2, err := decodePlaceRecord(appendPlaceRecord(nil, k, n, refs), 1<<16)
		if err != nil || k2 != k || n2 != n || !slices.Equal(refs2, refs) {
			t.Fatalf("%x decodes to %s %d %v, which does not round-trip: %v", b, k, n, refs, err)
		}
	})
}

// TestPlacesConcurrent reads objects named by place from several
// goroutines through one store, whose chunk reader's cache holds about
// one frame: a place record read while another goroutine's decode
// reuses its buffer would decode wrong.
func TestPlacesConcurrent(t *testing.T) {
	s, _ := mustCreate(t, Options{noSync: true})
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.NamePlaces(); err != nil {
		t.Fatal(err)
	}
	// About 12 MiB of text no two objects share: three frames of chunks.
	rng := rand.New(rand.NewPCG(7, 7))
	words := strings.Fields("archive block layout capture crawl frame chunk place record index catalog segment parity repair ingest restore verify")
	var objs [][]byte
	var ids []ID
	for range 48 {
		var b []byte
		for len(b) < 256<<10 {
			b = append(b, words[rng.IntN(len(words))]...)
			b = append(b, ' ')
			b = strconv.AppendUint(b, rng.Uint64N(1<<20), 10)
			b = append(b, ' ')
		}
		id, _, err := w.Add(KindBlock, b)
		if err != nil {
			t.Fatal(err)
		}
		objs, ids = append(objs, b), append(ids, id)
	}
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if st, _ := s.Stats(); st.ChunkFrames < 3 {
		t.Fatalf("%d frames of chunks, want several", st.ChunkFrames)
	}
	err = concurrently(4, func(g int) error {
		r := rand.New(rand.NewPCG(uint64(g), 1))
		for range 60 {
			i := r.IntN(len(ids))
			b, _, err := s.Get(ids[i])
			if err == nil && !bytes.Equal(b, objs[i]) {
				return fmt.Errorf("%s: wrong bytes", ids[i])
			}
			if err != nil {
				return err
			}
			next := (i + 1) % len(ids)
			if _, n, err := s.Stat(ids[next]); err != nil || n != len(objs[next]) {
				return fmt.Errorf("stat %s: %d, %v", ids[next], n, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}
