package pack

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/blockwarc/blockwarc/dedupe/chunk"
)

// Objects named by place (docs/FORMAT.md "Objects named by place"): a
// writer in place mode (Writer.NamePlaces) stores an object as its chunks
// plus one more chunk, its *place record* (kind, length, ref list), and
// names it by that chunk's number (PlaceID) instead of by the hash of
// its bytes. No index entry is written for it: chunk numbers already lead
// to frames through the indexes' chunk-frame tables, so an archive's
// index shrinks to its catalog segments and frame tables. Finding an
// object to reuse needs no stored hash: the writer keeps, until the next
// commit, the hash of every object it added or was told about (Learn).

// placeClass is the chunk class of place records: small binary ref
// lists, kept away from the HTML and the headers in a frame's body.
const placeClass = 3

// appendPlaceRecord appends the place record of an object of kind and
// length n whose chunks are refs.
func appendPlaceRecord(b []byte, kind Kind, n int, refs []uint64) []byte {
	b = append(b, byte(kind))
	b = binary.AppendUvarint(b, uint64(n))
	return chunk.EncodeRefs(b, refs, nil)
}

// decodePlaceRecord reads a place record (see appendPlaceRecord) of an
// archive of end chunks.
func decodePlaceRecord(c []byte, end uint64) (Kind, int, []uint64, error) {
	if len(c) < 2 {
		return 0, 0, nil, errors.New("place record too short")
	}
	k := Kind(c[0])
	if !k.Valid() || k == KindVersionCatalog {
		return 0, 0, nil, fmt.Errorf("place record of kind %d", c[0])
	}
	n, w := binary.Uvarint(c[1:])
	if w <= 0 || n > maxFramePlain {
		return 0, 0, nil, errors.New("place record: bad length")
	}
	refs, err := chunk.DecodeRefsBelow(nil, c[1+w:], nil, int(n), end)
	if err != nil {
		return 0, 0, nil, fmt.Errorf("place record: %w", err)
	}
	return k, int(n), refs, nil
}

// chunkFrameAt names the pack file and frame offset of the frame of
// chunk n, for errors; "" when no frame holds it.
func (s *Store) chunkFrameAt(dir chunk.Frames, n uint64) (string, int64) {
	i, f, err := dir.Find(n)
	if err != nil || i < 0 {
		return "", 0
	}
	off := f.Offset
	return filepath.Join(s.dir, packName(uint32(off>>chunkPackShift))), off&(1<<chunkPackShift-1) - frameFixedSize - 4
}

// placeRecord reads the place record of the committed object id (place
// n).
func (s *Store) placeRecord(id ID, n uint64) (*chunk.Reader, Kind, int, []uint64, error) {
	cr, err := s.chunks()
	if err != nil {
		return nil, 0, 0, nil, err
	}
	if n >= cr.Frames().NextChunk() {
		return nil, 0, 0, nil, ErrNotFound
	}
	// A copy: readers share cr, whose cache another decode may reuse.
	c, err := cr.AppendChunk(nil, n)
	if err != nil {
		return nil, 0, 0, nil, fmt.Errorf("object %s: %w", id, s.chunkError(err))
	}
	k, size, refs, err := decodePlaceRecord(c, cr.Frames().NextChunk())
	if err != nil {
		file, off := s.chunkFrameAt(cr.Frames(), n)
		return nil, 0, 0, nil, corrupt(file, off, "object %s: %v", id, err)
	}
	return cr, k, size, refs, nil
}

// placeObject restores the committed object id, named by place n.
func (s *Store) placeObject(id ID, n uint64) ([]byte, Kind, []uint64, error) {
	cr, k, size, refs, err := s.placeRecord(id, n)
	if err != nil {
		return nil, 0, nil, err
	}
	b, err := cr.Restore(make([]byte, 0, min(size, 1<<20)), refs)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("object %s: %w", id, s.chunkError(err))
	}
	if len(b) != size {
		file, off := s.chunkFrameAt(cr.Frames(), n)
		return nil, 0, nil, corrupt(file, off, "object %s restores to %d bytes, its place record says %d", id, len(b), size)
	}
	return b, k, refs, nil
}

// placeObjects restores the committed objects ids[i], i in idx, all
// named by place, into out[i]: their place records in chunk order, then
// their chunks, in one chunk.Reader.RestoreRecords, so that a capture's
// objects decode each frame once whatever the cache holds (the records'
// frames and their chains too: read apart, they were decoded again when
// the cache could not hold the chains). On any error it restores them
// one by one, for the error that names the object.
func (s *Store) placeObjects(ids []ID, idx []int, out [][]byte) error {
	type rec struct {
		i    int
		n    uint64
		size int
	}
	recs := make([]rec, len(idx))
	for k, i := range idx {
		n, _ := ids[i].Place()
		recs[k] = rec{i: i, n: n}
	}
	slices.SortStableFunc(recs, func(a, b rec) int { return cmp.Compare(a.n, b.n) })
	oneByOne := func() error {
		for _, i := range idx {
			b, _, err := s.get(s, ids[i])
			if err != nil {
				return err
			}
			out[i] = b
		}
		return nil
	}
	cr, err := s.chunks()
	if err != nil {
		return oneByOne()
	}
	end := cr.Frames().NextChunk()
	nums := make([]uint64, len(recs))
	for k, r := range recs {
		if r.n >= end {
			return oneByOne()
		}
		nums[k] = r.n
	}
	bs, err := cr.RestoreRecords(nums, func(k int, c []byte) ([]uint64, error) {
		_, size, refs, err := decodePlaceRecord(c, end)
		recs[k].size = size
		return refs, err
	})
	if err != nil {
		return oneByOne()
	}
	for k, r := range recs {
		if len(bs[k]) != r.size {
			return oneByOne()
		}
		out[r.i] = bs[k]
	}
	return nil
}

// NamePlaces puts the writer in place mode: from now on an object other
// than a catalog segment is named by place (PlaceID), with no index
// entry. Readers need no mode: a place id says what it is. It fails for
// a writer without chunks (Options.Plain).
func (w *Writer) NamePlaces() error {
	if w.cw == nil {
		return errors.New("pack: objects are named by place only in chunks")
	}
	if w.places == nil {
		w.places, w.placeRefs, w.pendReps = map[ID]ID{}, map[uint64][]uint64{}, map[[8]byte]uint64{}
	}
	return nil
}

// addPlace stores data as its chunks and its place record, or finds an
// object with the same bytes among those added or learned since the last
// commit. base (an earlier version of the object, by place or by id) lends
// its chunks: an object equal to it gets its place.
func (w *Writer) addPlace(kind Kind, data []byte, id ID, base *ID) (ID, bool, error) {
	if p, ok := w.places[id]; ok {
		return p, false, nil
	}
	// Objects of DigestMin bytes or more are looked up in the digest
	// tables by their representative (chunk.Writer.Rep): an object
	// with the same bytes takes its place; near-duplicates bring their
	// chunks along.
	digest := w.set.DigestMin > 0 && len(data) >= w.set.DigestMin
	var rep [8]byte
	hasRow := false
	if digest {
		var err error
		if rep, err = w.cw.Rep(data, chunkClass(kind)); err != nil {
			return ID{}, false, w.fail(fmt.Errorf("add object: %w", err))
		}
		if _, ok := w.pendReps[rep]; ok {
			hasRow = true
		} else if p, found, any := w.findDigest(rep, id); any {
			hasRow = true
			if found {
				return p, false, nil
			}
		}
	}
	newBefore := w.cw.Stats().NewBytes
	var prev, prevRec []uint64
	if base != nil {
		prev, prevRec = w.baseRefs(*base)
	}
	refs, err := w.cw.Put([]chunk.Part{{Data: data, Class: chunkClass(kind)}}, prev)
	if err != nil {
		return ID{}, false, w.fail(fmt.Errorf("add object: %w", err))
	}
	n, isNew, err := w.cw.PutChunk(appendPlaceRecord(nil, kind, len(data), refs), placeClass, prevRec)
	if err != nil {
		return ID{}, false, w.fail(fmt.Errorf("add object: %w", err))
	}
	p := PlaceID(n)
	w.remember(id, p, refs)
	// A row for a new family, or for an object mostly new although its
	// family is known (rewritten more than edited): a row for every
	// version of an edited object would cost a few per cent of an
	// archive of small edits, and an edited version is found through
	// its family's row, less its edits.
	if digest && isNew && (!hasRow || 2*(w.cw.Stats().NewBytes-newBefore) >= int64(len(data))) {
		if n > maxPlace {
			return ID{}, false, w.fail(fmt.Errorf("add object: place %d over the digest table's limit", n))
		}
		w.digests = append(w.digests, digestRow{key: rep, place: n})
		w.pendReps[rep] = n
	}
	return p, isNew, nil
}

// maxDigestCandidates bounds the places of one representative that a
// writer reads back: the newest.
const maxDigestCandidates = 4

// findDigest looks rep up in the digest tables of the committed indexes
// (docs/FORMAT.md "Digest table"). Each candidate (the newest few) is
// read back and hashed (Learn), so a candidate with id's bytes is found
// (found, its place) and never a false one; and the frame of each
// candidate's place record is entered into the chunk table, so that a
// near-duplicate stores only what differs, and the objects stored next
// to it (the other blocks of its page, the next pages of a mirrored
// site) are found too. any says whether rep had rows. A table that does
// not read only costs the saving.
func (w *Writer) findDigest(rep [8]byte, id ID) (p ID, found, any bool) {
	w.s.mu.RLock()
	idx := slices.Clone(w.s.idx)
	w.s.mu.RUnlock()
	var cands []uint64
	for _, ix := range idx {
		ix.pin()
		ix.findDigest(rep, func(n uint64) { cands = append(cands, n) })
		ix.unpin()
	}
	if len(cands) == 0 {
		return ID{}, false, false
	}
	slices.Sort(cands)
	cands = slices.Compact(cands)
	for _, n := range cands[max(0, len(cands)-maxDigestCandidates):] {
		w.Learn(PlaceID(n))
		if err := w.cw.LearnFrame(n); err != nil {
			w.fail(fmt.Errorf("add object: %w", err))
			return ID{}, false, true
		}
	}
	if p, ok := w.places[id]; ok {
		w.st.DigestHits++
		return p, true, true
	}
	return ID{}, false, true
}

// remember enters an object in the writer's table. The table holds at
// most a quarter of the chunk table's entries (each costs a few times
// more), then starts again empty, as the chunk table drops a generation:
// a forgotten object is stored again, which costs size, never
// correctness, and what is forgotten depends on the objects added alone.
func (w *Writer) remember(id, p ID, refs []uint64) {
	if len(w.places) >= max(w.set.ChunkTable/4, 1024) {
		clear(w.places)
		clear(w.placeRefs)
	}
	n, _ := p.Place()
	w.places[id] = p
	w.placeRefs[n] = refs
}

// baseRefs returns the ref list of base and, when base is named by
// place, its place record's chunk (so that an object equal to base gets
// its place); nil when base is unknown or does not read: a base only
// saves bytes.
func (w *Writer) baseRefs(base ID) (refs, rec []uint64) {
	if p, ok := w.places[base]; ok {
		base = p
	}
	n, ok := base.Place()
	if !ok {
		return w.refsOf(base), nil
	}
	if r, ok := w.placeRefs[n]; ok {
		return r, []uint64{n}
	}
	_, _, _, r, err := w.s.placeRecord(base, n)
	if err != nil {
		return nil, nil
	}
	return r, []uint64{n}
}

// Learn tells the writer of committed objects named by place (other ids
// are skipped): until the next commit, an object added with the same
// bytes as one of them gets its place instead of being stored again. An
// ingest learns each URL's previous capture. An object that does not
// read is skipped: it would only have saved bytes.
func (w *Writer) Learn(ids ...ID) {
	if w.places == nil {
		return
	}
	for _, id := range ids {
		n, ok := id.Place()
		if !ok {
			continue
		}
		if _, ok := w.placeRefs[n]; ok {
			continue
		}
		_, _, size, refs, err := w.s.placeRecord(id, n)
		if err != nil {
			continue
		}
		// Its chunks too, read once for both: a changed version of it (a
		// block edited since) then stores only the chunks that changed.
		b, err := w.cw.LearnObject(nil, refs)
		if err != nil || len(b) != size {
			continue
		}
		if sum := w.s.Sum(b); w.places[sum] == (ID{}) {
			w.remember(sum, id, refs)
		}
	}
}

// CaptureObject is an object a capture's restore reads, for
// BoundCapture.
type CaptureObject struct {
	// ID names it: the id it was added under (its hash, which the
	// writer maps to its place) or its place.
	ID ID
	// Kind is its kind; 0 when unknown (read from its place record).
	Kind Kind
	// Data are its bytes.
	Data []byte
}

// BoundCapture applies the archive's CaptureFrames (Settings) to the
// objects one capture's restore reads, all added or learned already:
// when together they name chunks in frames whose restore decodes more
// than CaptureFrames frames (chunk.Writer.GroupCost), the objects with
// chunks in the frames they need least are stored again
// (chunk.Writer.GroupDrop: their chunks there copied forward into the
// open frame, with a new place record) and get new places. It returns
// the name each object goes by (objs[i].ID, or the new place of an
// object stored again) and how many were stored again. Without the setting, or objects named by place, it
// changes nothing. What it stores depends on the objects and the
// writer's frames alone.
func (w *Writer) BoundCapture(objs []CaptureObject) (names []ID, moved int, err error) {
	names = make([]ID, len(objs))
	for i, o := range objs {
		names[i] = o.ID
	}
	max := w.set.CaptureFrames
	if max <= 0 || w.places == nil || w.cw == nil {
		return names, 0, nil
	}
	if err := w.usable(); err != nil {
		return names, 0, err
	}
	type item struct {
		i    int
		n    uint64
		kind Kind
		refs []uint64
	}
	var items []item
	var lists [][]uint64
	var sizes []int64
	seen := map[uint64]bool{}
	places := make([]uint64, len(objs)) // the place each names (valid where it has one)
	for i := range places {
		places[i] = noPlace
	}
	for i, o := range objs {
		id := o.ID
		if p, ok := w.places[id]; ok {
			id = p
		}
		n, ok := id.Place()
		if !ok {
			continue
		}
		places[i] = n
		if seen[n] {
			continue
		}
		seen[n] = true
		it := item{i: i, n: n, kind: o.Kind}
		if r, ok := w.placeRefs[n]; ok && it.kind != 0 {
			it.refs = r
		} else if w.cw.FrameOf(n) >= 0 && n < w.committedChunks() {
			_, k, _, r, err := w.s.placeRecord(id, n)
			if err != nil {
				continue // not read: left where it is
			}
			it.kind, it.refs = k, r
		} else if r, ok := w.placeRefs[n]; ok {
			it.refs = r // its kind unknown: counted, never stored again
		} else {
			continue
		}
		items = append(items, it)
		lists = append(lists, append([]uint64{n}, it.refs...))
		sizes = append(sizes, int64(len(o.Data)+8+2*len(it.refs)))
	}
	drop := w.cw.GroupDrop(lists, sizes, int64(max)*int64(w.cw.FrameSize()))
	if drop == nil {
		return names, 0, nil
	}
	renamed := map[uint64]ID{}
	for k, it := range items {
		touches := false
		for _, c := range lists[k] {
			if drop[w.cw.FrameOf(c)] {
				touches = true
				break
			}
		}
		if !touches || it.kind == 0 {
			continue
		}
		data := objs[it.i].Data
		refs, err := w.cw.PutDrop([]chunk.Part{{Data: data, Class: chunkClass(it.kind)}}, nil, drop)
		if err != nil {
			return names, moved, w.fail(fmt.Errorf("bound capture: %w", err))
		}
		n, _, err := w.cw.PutChunkDrop(appendPlaceRecord(nil, it.kind, len(data), refs), placeClass, nil, drop)
		if err != nil {
			return names, moved, w.fail(fmt.Errorf("bound capture: %w", err))
		}
		p := PlaceID(n)
		w.remember(w.s.Sum(data), p, refs)
		renamed[it.n] = p
		moved++
		w.st.CaptureMoved++
		w.st.CaptureMovedBytes += int64(len(data))
	}
	for i, n := range places {
		if p, ok := renamed[n]; ok && n != noPlace {
			names[i] = p
		}
	}
	return names, moved, nil
}

// noPlace marks an object BoundCapture found no place for.
const noPlace = ^uint64(0)

// committedChunks is the number of chunks of the committed archive (the
// chunks a place record can be read back from).
func (w *Writer) committedChunks() uint64 {
	cr, err := w.s.chunks()
	if err != nil {
		return 0
	}
	return cr.Frames().NextChunk()
}
