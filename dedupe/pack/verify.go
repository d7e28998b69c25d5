package pack

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// VerifyResult summarises a Verify run.
type VerifyResult struct {
	Objects  int64 // objects whose plaintext matched their id
	Frames   int64 // frames decoded and checked
	Problems int64 // calls of the report function with a non-nil error
}

// Verify checks the whole committed archive: the body checksum and order
// of every index, every frame of every pack up to its committed length
// (header and data checksums, decompression, object table), every object
// against its id, and that index entries and frames agree one to one.
// report is called once per object (err nil when good) and once per
// problem that is not about one object (zero ID). Verify returns a non-nil
// error only when it cannot go on (the Store is closed); problems go to
// report and are counted.
func (s *Store) Verify(report func(ID, error)) (VerifyResult, error) {
	var res VerifyResult
	s.mu.RLock()
	m0, closed := s.m, s.closed
	s.mu.RUnlock()
	if !closed {
		// Parity first: damage is named, and what parity corrects is read
		// corrected by the checks below.
		s.verifyParity(m0, func(err error) { res.Problems++; report(ID{}, err) })
		// The redundancy itself: a sidecar or COMMIT.copy gone is no
		// damage yet, but the next damage there would not be corrected.
		s.verifyRedundancy(m0, func(err error) { res.Problems++; report(ID{}, err) })
	}
	m, idx, packs, release, err := s.snapshotAll()
	if err != nil {
		return res, err
	}
	defer release()
	// Check what is on disk now, not what an earlier read decoded.
	s.cache.purge()
	problem := func(id ID, err error) {
		res.Problems++
		report(id, err)
	}
	// Both commit files: the one that was not read may be damaged too.
	for _, name := range []string{commitName, commitCopy} {
		path := filepath.Join(s.dir, name)
		_, err := readManifestFile(path)
		switch {
		case errors.Is(err, ErrNotArchive) && name == commitCopy:
			// Archives written before the copy existed get one at their
			// next commit.
		case err != nil:
			problem(ID{}, err)
		}
		// A copy one generation behind is what a crash between the two
		// renames leaves: not damage (the next Begin rewrites it).
	}
	// Every frame in the committed packs, by position.
	frames := make(map[frameKey]bool)
	for _, p := range m.packs {
		if err := s.walkPack(p, func(off int64) { frames[frameKey{p.num, off}] = false }); err != nil {
			problem(ID{}, err)
		}
	}
	view := committedView{s}
	// Frames of chunks: each listed once, its number range in sequence
	// (chunkDirectory), and each decoded and checked.
	if _, crows, err := chunkDirectory(idx); err != nil {
		problem(ID{}, err)
	} else {
		for _, r := range crows {
			k := frameKey{r.pack, r.off}
			if seen, ok := frames[k]; !ok || seen {
				problem(ID{}, corrupt(filepath.Join(s.dir, packName(r.pack)), r.off, "chunk-frame row names no frame, or one listed twice"))
				continue
			}
			frames[k] = true
		}
		if cr, err := s.chunks(); err != nil {
			problem(ID{}, err)
		} else if err := cr.Verify(); err != nil {
			problem(ID{}, s.chunkError(err))
		}
	}
	for _, ix := range idx {
		var rows []frameRow
		if err := ix.scan(nil, func(_ uint32, r frameRow) error { rows = append(rows, r); return nil }); err != nil {
			problem(ID{}, err)
			continue
		}
		matched := uint64(0)
		var buf [maxEntrySize]byte
		for fi, row := range rows {
			k := frameKey{row.pack, row.off}
			seen, ok := frames[k]
			if !ok {
				problem(ID{}, corrupt(ix.path, 0, "frame row %d names %s offset %d, where no frame starts", fi, packName(row.pack), row.off))
				continue
			}
			if seen {
				problem(ID{}, corrupt(ix.path, 0, "frame row %d names a frame already indexed", fi))
				continue
			}
			frames[k] = true
			budget := maxDecodes
			fr, err := s.frame(view, row, packs[row.pack], s.opts.MaxChain, &budget)
			if err != nil {
				problem(ID{}, err)
				continue
			}
			res.Frames++
			file := filepath.Join(s.dir, packName(row.pack))
			for _, sp := range fr.spans {
				b := fr.plain[sp.off : sp.off+sp.len]
				n := sp.len
				if sp.kind&kindRefs != 0 {
					// The object is its chunks; its id is known once
					// they are restored.
					var err error
					if b, err = s.restoreRefs(b, maxFramePlain, file, row.off, ID{}); err != nil && !isLengthOnly(err) {
						problem(ID{}, err)
						continue
					}
					n = uint32(len(b))
				}
				id := Sum(b).truncate(m.idLen())
				e, ok, err := ix.find(id, buf[:])
				switch {
				case err != nil:
					problem(id, err)
				case !ok:
					problem(id, corrupt(file, row.off, "object %s of the frame is missing from %s", id, ix.path))
				case e.frame != uint32(fi) || e.off != sp.off || e.len != n || e.kind != sp.kind:
					problem(id, corrupt(ix.path, 0, "entry for %s does not match the frame at %s:%d", id, file, row.off))
				default:
					matched++
					res.Objects++
					report(id, nil)
				}
			}
			s.cache.release(fr)
		}
		if matched != ix.n {
			problem(ID{}, corrupt(ix.path, int64(ix.lay.entriesOff()), "%d of %d entries match no object", ix.n-matched, ix.n))
		}
	}
	for k, seen := range frames {
		if !seen {
			problem(ID{}, corrupt(filepath.Join(s.dir, packName(k.pack)), k.off, "frame is in no index"))
		}
	}
	return res, nil
}

// committedView resolves ids in the committed archive only.
type committedView struct{ s *Store }

func (v committedView) locate(id ID) (loc, bool, error) { return v.s.locate(id) }

// walkPack reads a pack's frame headers from the start to its committed
// length, checking the header and data checksums of each frame.
func (s *Store) walkPack(p fileRef, frame func(off int64)) error {
	path := filepath.Join(s.dir, packName(p.num))
	f, err := s.packFile(p.num)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat pack: %w", err)
	}
	if st.Size() < p.size && !s.patchedTo(packName(p.num), p.size) {
		return corrupt(path, st.Size(), "pack is %d bytes, shorter than its committed length %d", st.Size(), p.size)
	}
	hb := make([]byte, frameHeaderSize(maxBases))
	// at checks the frame at off and returns where it ends.
	at := func(off int64) (int64, error) {
		n := min(int64(len(hb)), p.size-off)
		got, err := f.ReadAt(hb[:n], off)
		if err != nil && err != io.EOF {
			return 0, fmt.Errorf("read pack %s at %d: %w", path, off, err)
		}
		s.overlay(packName(p.num), hb[:n], off, got)
		h, hl, err := parseFrameHeader(hb[:n], path, off)
		if err != nil {
			return 0, err
		}
		end := off + int64(hl) + int64(h.clen)
		if end > p.size {
			return 0, corrupt(path, off, "frame runs past the committed length %d", p.size)
		}
		data := make([]byte, h.clen)
		got, err = f.ReadAt(data, off+int64(hl))
		if s.overlay(packName(p.num), data, off+int64(hl), got) == len(data) {
			err = nil
		}
		if err != nil {
			return 0, fmt.Errorf("read pack %s at %d: %w", path, off, err)
		}
		if crc(data) != h.dcrc {
			return 0, corrupt(path, off, "frame data checksum mismatch")
		}
		return end, nil
	}
	var errs []error
	off := int64(packHeaderSize)
	for off < p.size {
		end, err := at(off)
		if err == nil {
			frame(off)
			off = end
			continue
		}
		// Past damage, the walk goes on at the next frame magic where a
		// frame checks, so that one damaged frame is one problem and the
		// frames after it are verified.
		errs = append(errs, err)
		off = nextFrame(f, off+1, p.size, func(q int64) bool { _, err := at(q); return err == nil })
	}
	return errors.Join(errs...)
}

// KindStats is what one kind of object costs.
type KindStats struct {
	Objects int64 // distinct objects
	Plain   int64 // plaintext bytes
	Stored  int64 // pack bytes, frames apportioned by plaintext share
	// The part of the above in frames that have bases (objects added with
	// Writer.AddDelta, and whatever shared their frame): objects stored as
	// deltas. Objects−DeltaObjects were stored whole (compressed only
	// against their frame neighbours).
	DeltaObjects int64
	DeltaPlain   int64
	DeltaStored  int64
}

// Stats is the storage account of the committed archive, for the storage
// report: bytes by kind plus the bytes of the structures around them.
type Stats struct {
	Kinds       [numKinds]KindStats // indexed by Kind
	Frames      int64
	ChunkFrames int64 // frames of chunks (format 3)
	ChunkBytes  int64 // their bytes, headers included
	// ChainedFrames: of the frames of chunks, those that extend a chain
	// (prefix above 0, format 4: docs/FORMAT.md "Chains of frames of
	// chunks"); none in an archive of -chain off.
	ChainedFrames int64
	PackBytes     int64 // committed pack bytes, headers included
	IndexBytes    int64
	CommitBytes   int64 // COMMIT and its copy
	ParityBytes   int64 // parity sidecars of the committed packs and indexes
}

// Add adds o's figures to s (the stores of a sharded archive): every
// field, so that a new one is summed too.
func (s *Stats) Add(o Stats) {
	for k := range s.Kinds {
		a, b := &s.Kinds[k], o.Kinds[k]
		a.Objects += b.Objects
		a.Plain += b.Plain
		a.Stored += b.Stored
		a.DeltaObjects += b.DeltaObjects
		a.DeltaPlain += b.DeltaPlain
		a.DeltaStored += b.DeltaStored
	}
	s.Frames += o.Frames
	s.ChunkFrames += o.ChunkFrames
	s.ChunkBytes += o.ChunkBytes
	s.ChainedFrames += o.ChainedFrames
	s.PackBytes += o.PackBytes
	s.IndexBytes += o.IndexBytes
	s.CommitBytes += o.CommitBytes
	s.ParityBytes += o.ParityBytes
}

// IndexedObjects is how many objects the committed indexes list: the
// total of the objects Verify reports checked.
func (s *Store) IndexedObjects() (int64, error) {
	idx, _, release, err := s.snapshot()
	if err != nil {
		return 0, err
	}
	defer release()
	var n int64
	for _, ix := range idx {
		n += int64(ix.n)
	}
	return n, nil
}

// Stats streams every index once (memory: one frame table at a time) and
// reads the fixed part of every frame header, to tell delta frames (with
// bases) from whole ones.
func (s *Store) Stats() (Stats, error) { return s.StatsWith(nil) }

// StatsWith is Stats with the objects named by place that places lists
// (no index lists them; an archive's catalog does): each is counted in
// its kind from its place record (so each place's frame of chunks is
// read), and the bytes of the frames of chunks that no indexed object
// accounts for are charged to kinds by the places' plaintext.
func (s *Store) StatsWith(places []ID) (Stats, error) {
	var st Stats
	var free int64 // bytes of frames of chunks no index entry accounts for
	idx, packs, release, err := s.snapshot()
	if err != nil {
		return st, err
	}
	defer release()
	for _, n := range packs {
		st.PackBytes += n
	}
	for _, name := range []string{commitName, commitCopy} {
		if fi, err := os.Stat(filepath.Join(s.dir, name)); err == nil {
			st.CommitBytes += fi.Size()
		}
	}
	st.ParityBytes = s.parityBytes()
	for _, ix := range idx {
		st.IndexBytes += ix.size
		type acc struct {
			row   frameRow
			plain [numKinds]int64
			objs  [numKinds]int64 // objects stored whole
			refs  [numKinds]int64 // objects stored as ref lists
		}
		fr := make([]acc, ix.nf)
		var chunkBytes int64
		var chunked [numKinds]int64
		err := ix.scanAll(func(_ int64, e entry) error {
			k := e.kind.plain()
			if e.kind&kindRefs != 0 {
				// Its bytes are in frames of chunks, apportioned below.
				chunked[k] += int64(e.len)
				fr[e.frame].refs[k]++
			} else {
				fr[e.frame].plain[k] += int64(e.len)
				fr[e.frame].objs[k]++
			}
			st.Kinds[k].Objects++
			st.Kinds[k].Plain += int64(e.len)
			return nil
		}, func(i uint32, r frameRow) error { fr[i].row = r; return nil },
			func(r chunkRow) error {
				chunkBytes += int64(r.len)
				st.ChunkFrames++
				if r.prefix > 0 {
					st.ChainedFrames++
				}
				return nil
			})
		if err != nil {
			return st, fmt.Errorf("stats: %w", err)
		}
		st.Frames += int64(len(fr))
		// The frames of chunks an index lists hold the new chunks of the
		// objects it lists: charged to kinds by their share of those
		// objects' bytes (chunks shared between kinds make it a share,
		// not an exact account).
		if chunked == ([numKinds]int64{}) {
			free += chunkBytes
		}
		for k, n := range apportion(chunkBytes, &chunked) {
			st.Kinds[k].Stored += n
		}
		st.ChunkBytes += chunkBytes
		for _, a := range fr {
			delta, err := s.frameHasBases(a.row, packs)
			if err != nil {
				return st, fmt.Errorf("stats: %w", err)
			}
			w := &a.plain
			if a.plain == ([numKinds]int64{}) {
				// Ref lists alone: charged to kinds by how many they are
				// (their lengths are not in the index).
				w = &a.refs
			}
			share := apportion(int64(a.row.len), w)
			for k := range share {
				st.Kinds[k].Stored += share[k]
				if delta {
					st.Kinds[k].DeltaObjects += a.objs[k]
					st.Kinds[k].DeltaPlain += a.plain[k]
					st.Kinds[k].DeltaStored += share[k]
				}
			}
		}
	}
	var placed [numKinds]int64
	for _, id := range places {
		k, n, err := s.Stat(id)
		if err != nil {
			return st, fmt.Errorf("stats: %w", err)
		}
		st.Kinds[k].Objects++
		st.Kinds[k].Plain += int64(n)
		placed[k] += int64(n)
	}
	for k, n := range apportion(free, &placed) {
		st.Kinds[k].Stored += n
	}
	return st, nil
}

// apportion splits a frame's n stored bytes among kinds by their share of
// its plaintext; the shares sum to n exactly (the last kind present takes
// the rounding).
func apportion(n int64, plain *[numKinds]int64) (share [numKinds]int64) {
	var total int64
	for _, p := range plain {
		total += p
	}
	left, last := n, -1
	for k, p := range plain {
		if p == 0 {
			continue
		}
		share[k] = int64(float64(n) * float64(p) / float64(total))
		left -= share[k]
		last = k
	}
	if last >= 0 {
		share[last] += left
	}
	return share
}

// frameHasBases reads the fixed part of the frame header at row and
// reports whether the frame has bases (is a delta).
func (s *Store) frameHasBases(row frameRow, packs map[uint32]int64) (bool, error) {
	path := filepath.Join(s.dir, packName(row.pack))
	limit, ok := packs[row.pack]
	if !ok || row.off < packHeaderSize || row.off+frameFixedSize+4 > limit {
		return false, corrupt(path, row.off, "frame row lies outside the committed pack")
	}
	f, err := s.packFile(row.pack)
	if err != nil {
		return false, err
	}
	var h [frameFixedSize]byte
	if _, err := f.ReadAt(h[:], row.off); err != nil {
		return false, corrupt(path, row.off, "read frame header: %v", err)
	}
	if string(h[:4]) != frameMagic {
		return false, corrupt(path, row.off, "bad frame magic %q", h[:4])
	}
	return le.Uint16(h[6:]) > 0, nil
}
