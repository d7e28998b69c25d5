package pack

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/blockwarc/blockwarc/dedupe/chunk"
	"github.com/blockwarc/blockwarc/dedupe/parity"

	"github.com/klauspost/compress/zstd"
)

// RepairResult says what Repair did and what it could not restore.
type RepairResult struct {
	Done []string // actions taken, one sentence each
	Lost []string // damage left: file, place, why
	// Salvaged are the objects that read in frames RebuildIndexes dropped
	// (a frame with an object that does not restore, or whose delta base
	// did not): stored again, whole, in the commit that dropped them.
	Salvaged []Salvaged
}

// Salvaged is an object read from a dropped frame.
type Salvaged struct {
	Kind Kind
	Data []byte
}

// Repair salvages the archive in dir under the writer lock: it restores
// a damaged COMMIT from its copy (or the copy from COMMIT), rewrites the
// sectors parity corrects, rewrites damaged or missing parity of intact
// files, and rebuilds the indexes from the packs' frames when one is
// damaged beyond parity (a frame's object table names its objects; ids
// are their hashes), publishing the rebuilt index in a new commit. What
// stays damaged (pack frames parity does not correct) is listed in Lost;
// the objects in it are gone, and the caller names the captures that
// needed them (dedupe.Archive.Verify).
func Repair(dir string, opts Options) (RepairResult, error) {
	res, err := repair(dir, opts, false)
	if err == nil && len(res.Lost) == 0 {
		err = RestoreSettings(dir, opts, &res)
	}
	return res, err
}

// RepairFrames is Repair without its last step, RestoreSettings. A
// caller that re-ingests lost captures next calls RestoreSettings after
// the re-ingest, whose first commit writes the settings object anyway:
// then a repair killed after any commit and run again makes the commits
// one uninterrupted run makes, in the same order.
func RepairFrames(dir string, opts Options) (RepairResult, error) {
	return repair(dir, opts, false)
}

// RebuildIndexes is Repair that rebuilds the indexes from the packs'
// frames even when they check: afterwards no index names an object whose
// frame does not read, so that a writer stores such an object again
// instead of taking it as stored (dedupe.Reingest).
func RebuildIndexes(dir string, opts Options) (RepairResult, error) {
	return repair(dir, opts, true)
}

func repair(dir string, opts Options, rebuild bool) (RepairResult, error) {
	var res RepairResult
	opts = opts.withDefaults()
	opts.Cache = nil // repair reads what is on disk and writes
	lock, err := lockDir(dir)
	if err != nil {
		return res, err
	}
	defer unlock(lock)
	done := func(f string, a ...any) { res.Done = append(res.Done, fmt.Sprintf(f, a...)) }
	lost := func(f string, a ...any) { res.Lost = append(res.Lost, fmt.Sprintf(f, a...)) }

	// 1. The commit: either file that passes its checks restores the other.
	c1, e1 := readManifestFile(filepath.Join(dir, commitName))
	c2, e2 := readManifestFile(filepath.Join(dir, commitCopy))
	m := c1
	switch {
	case e1 != nil && e2 != nil:
		if commitLost(dir, e1, e2) {
			return res, fmt.Errorf("repair %s: %w (%v; %v): the archive's list of files is lost", dir, ErrCommitLost, e1, e2)
		}
		return res, fmt.Errorf("repair %s: %w", dir, ErrNotArchive)
	case e1 != nil:
		m = c2
	case e2 == nil && c2.seq > c1.seq && filesPresent(dir, c2) == nil:
		m = c2
	}
	// A copy of the same generation with other bytes is no replica.
	differ := e1 == nil && e2 == nil && c1.seq == c2.seq && !sameFile(filepath.Join(dir, commitName), filepath.Join(dir, commitCopy))
	// An archive written without parity gets none from a repair either
	// (WithoutParity).
	if len(m.packs)+len(m.indexes) > 0 && !hasParity(dir, m) {
		opts.NoParity = true
	}
	if e1 != nil || e2 != nil || c1.seq != c2.seq || differ {
		if err := cleanup(dir, m); err != nil {
			return res, fmt.Errorf("repair: %w", err)
		}
		if err := publishManifest(dir, m, &opts); err != nil {
			return res, fmt.Errorf("repair: %w", err)
		}
		switch {
		case e1 != nil:
			done("%s rewritten from %s (generation %d): it was %v", commitName, commitCopy, m.seq, e1)
		case e2 != nil && !errors.Is(e2, ErrNotArchive):
			done("%s rewritten from %s (generation %d): it was %v", commitCopy, commitName, m.seq, e2)
		case e2 != nil:
			done("%s was missing: written again from %s (generation %d)", commitCopy, commitName, m.seq)
		case differ:
			done("%s was not a copy of %s: written again from it (generation %d)", commitCopy, commitName, m.seq)
		default:
			done("%s brought to generation %d", commitCopy, m.seq)
		}
	} else if err := cleanup(dir, m); err != nil {
		return res, fmt.Errorf("repair: %w", err)
	}

	// 2. Parity: rewrite what it corrects; rewrite damaged sidecars of
	// intact ranges.
	files := make(map[string]int64)
	var names []string
	for _, p := range m.packs {
		files[packName(p.num)] = p.size
		names = append(names, packName(p.num))
	}
	for _, r := range m.indexes {
		files[indexName(r.num)] = r.size
		names = append(names, indexName(r.num))
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return res, fmt.Errorf("repair: %w", err)
	}
	var unreadable []string // sidecars that do not open
	for _, e := range ents {
		if f, _, ok := parity.ParseSidecarName(e.Name()); ok && files[f] > 0 {
			if _, err := parity.Open(filepath.Join(dir, e.Name())); err != nil {
				unreadable = append(unreadable, e.Name())
			}
		}
	}
	for _, name := range names {
		scs, _ := sidecars(dir, name, files[name])
		for _, sc := range scs {
			n, err := sc.Fix(dir, opts.noSync)
			if err != nil {
				lost("%s bytes %d to %d: %v", name, sc.Off, sc.Off+sc.Len, err)
				continue
			}
			if n > 0 {
				done("%s: %d damaged 4 KiB sectors rewritten from parity", name, n)
			}
			bad, _ := sc.ParityDamaged()
			if sc.MetaDamaged || bad > 0 {
				if _, _, err := parity.Protect(dir, name, sc.Off, sc.Off+sc.Len, opts.noSync); err != nil {
					return res, fmt.Errorf("repair: %w", err)
				}
				done("%s: damaged parity rewritten", filepath.Base(sc.Path))
			}
		}
	}

	// A pack header damaged beyond parity is written again: it holds
	// nothing but the pack's number (and the format version, which only
	// tells a writer whether to append to the pack). Without it, no frame
	// of the pack would read.
	for _, p := range m.packs {
		name := packName(p.num)
		path := filepath.Join(dir, name)
		head := make([]byte, packHeaderSize)
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			continue // said by the rebuild below, if it matters
		}
		if _, err := f.ReadAt(head, 0); err == nil && checkFileHeader(head, packMagic, p.num, path) != nil {
			_, err = f.WriteAt(appendFileHeader(nil, packMagic, p.num), 0)
			if err == nil {
				err = fsync(f, opts.noSync)
			}
			if err != nil {
				f.Close()
				return res, fmt.Errorf("repair: %w", err)
			}
			done("%s: damaged header written again", name)
			scs, _ := sidecars(dir, name, p.size)
			for _, sc := range scs {
				if sc.Off == 0 && !opts.NoParity {
					if _, _, err := parity.Protect(dir, name, 0, sc.Len, opts.noSync); err != nil {
						f.Close()
						return res, fmt.Errorf("repair: %w", err)
					}
				}
			}
		}
		f.Close()
	}

	// 3. Indexes: any that fails its checks now is rebuilt, with all the
	// others, into one index from the frames of the packs.
	s := &Store{dir: dir, opts: opts, files: make(map[uint32]*os.File), decs: make(chan *decoder, runtime.GOMAXPROCS(0))}
	s.cache = newFrameCache(s.opts.CacheBytes)
	s.m = m
	s.packs = make(map[uint32]int64)
	for _, p := range m.packs {
		s.packs[p.num] = p.size
	}
	defer s.Close()
	var good []*indexFile
	var bad []string
	for _, r := range m.indexes {
		ix, err := openIndex(filepath.Join(dir, indexName(r.num)), r.num, r.size)
		if err == nil {
			if err = ix.scan(nil, nil); err != nil {
				ix.f.Close()
			}
		}
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s (%v)", indexName(r.num), err))
			continue
		}
		good = append(good, ix)
	}
	s.idx = good
	if len(bad) > 0 || rebuild {
		err := s.rebuildIndexes(m, &res, rebuild)
		if err != nil && !errors.Is(err, errIndexesCurrent) {
			return res, err
		}
		if errors.Is(err, errIndexesCurrent) {
			// Nothing done: the indexes name what the frames hold.
		} else if len(bad) > 0 {
			done("indexes rebuilt from the packs' frames, replacing damaged %v", bad)
		} else {
			done("indexes rebuilt from the packs' frames")
		}
	}
	// Sidecars that did not open: the files they protected are checked
	// now (a pack by its frames, an index by its checksums); when intact,
	// their parity is written again.
	if !opts.NoParity && len(unreadable) > 0 {
		m2, _ := readManifestFile(filepath.Join(dir, commitName))
		for _, sc := range unreadable {
			name, off, _ := parity.ParseSidecarName(sc)
			if err := s.reprotect(m2, name, off); err != nil {
				lost("%s: unreadable, and not rewritten: %v", sc, err)
				continue
			}
			done("%s: unreadable parity rewritten", sc)
		}
	}
	// Parity that should be there and is not (docs/FORMAT.md "Lost
	// redundancy"): written again over each range once its bytes check.
	if !opts.NoParity {
		m3, err := readManifestFile(filepath.Join(dir, commitName))
		if err != nil {
			return res, fmt.Errorf("repair: reread the commit: %w", err)
		}
		gaps, err := missingParity(dir, m3)
		if err != nil {
			return res, fmt.Errorf("repair: %w", err)
		}
		for _, g := range gaps {
			if err := s.protectGap(m3, g); err != nil {
				lost("parity of %s bytes %d..%d is missing and was not written again: %v", g.name, g.from, g.to, err)
				continue
			}
			done("parity of %s bytes %d..%d was missing: written again", g.name, g.from, g.to)
		}
	}
	return res, nil
}

// sameFile reports whether files a and b hold the same bytes.
func sameFile(a, b string) bool {
	x, err1 := os.ReadFile(a)
	y, err2 := os.ReadFile(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// protectGap writes the sidecar of committed range g (which no sidecar
// protects), once the file checks intact: a pack by the frames of its
// committed length, an index by its checksums. Parity is never computed
// over damage.
func (s *Store) protectGap(m *manifest, g gap) error {
	for _, r := range m.indexes {
		if indexName(r.num) != g.name {
			continue
		}
		ix, err := openIndex(filepath.Join(s.dir, g.name), r.num, r.size)
		if err != nil {
			return err
		}
		err = ix.scan(nil, nil)
		ix.f.Close()
		if err != nil {
			return err
		}
		_, err = protectRange(s.dir, g.name, g.from, g.to, &s.opts)
		return err
	}
	for _, p := range m.packs {
		if packName(p.num) != g.name {
			continue
		}
		if err := s.walkPack(fileRef{num: p.num, size: p.size}, func(int64) {}); err != nil {
			return err
		}
		_, err := protectRange(s.dir, g.name, g.from, g.to, &s.opts)
		return err
	}
	return errors.New("not a committed file")
}

// reprotect rewrites the sidecar of the range of name starting at off,
// once the range is checked intact.
func (s *Store) reprotect(m *manifest, name string, off int64) error {
	if m == nil {
		return errors.New("no commit")
	}
	for _, r := range m.indexes {
		if indexName(r.num) == name {
			ix, err := openIndex(filepath.Join(s.dir, name), r.num, r.size)
			if err != nil {
				return err
			}
			err = ix.scan(nil, nil)
			ix.f.Close()
			if err != nil {
				return err
			}
			_, _, err = parity.Protect(s.dir, name, 0, r.size, s.opts.noSync)
			return err
		}
	}
	for _, p := range m.packs {
		if packName(p.num) != name {
			continue
		}
		// The range ends where the next sidecar starts, else at the
		// committed length.
		end := p.size
		scs, _ := sidecars(s.dir, name, p.size)
		for _, sc := range scs {
			if sc.Off > off && sc.Off < end {
				end = sc.Off
			}
		}
		if err := s.walkPack(fileRef{num: p.num, size: p.size}, func(int64) {}); err != nil {
			return err
		}
		_, _, err := parity.Protect(s.dir, name, off, end, s.opts.noSync)
		return err
	}
	return errors.New("not a committed file")
}

// errIndexesCurrent says rebuildIndexes found nothing to rebuild.
var errIndexesCurrent = errors.New("the indexes name what the frames hold")

// indexesCurrent reports whether the indexes in force (s.idx) name the
// objects of locs and no other, each in a frame that reads (frames),
// with the frames of chunks chunkRows, in order.
func (s *Store) indexesCurrent(locs mapLocator, frames []frameRow, chunkRows []chunkRow) bool {
	read := make(map[frameRow]bool, len(frames))
	for _, f := range frames {
		read[f] = true
	}
	seen := make(map[ID]bool, len(locs))
	var chunks []chunkRow
	for _, ix := range s.idx {
		rows := map[uint32]frameRow{}
		ok := true
		err := ix.scan(nil, func(i uint32, r frameRow) error { rows[i] = r; return nil })
		if err == nil {
			err = ix.scan(func(_ int64, e entry) error {
				if _, in := locs[e.id]; !in || !read[rows[e.frame]] {
					ok = false
				}
				seen[e.id] = true
				return nil
			}, nil)
		}
		if err != nil || !ok {
			return false
		}
		cr, err := ix.chunkRows()
		if err != nil {
			return false
		}
		chunks = append(chunks, cr...)
	}
	if len(seen) != len(locs) || len(chunks) != len(chunkRows) {
		return false
	}
	for i := range chunks {
		if chunks[i] != chunkRows[i] {
			return false
		}
	}
	return true
}

// mapLocator resolves ids through a map (the index being rebuilt).
type mapLocator map[ID]loc

func (m mapLocator) locate(id ID) (loc, bool, error) {
	l, ok := m[id]
	return l, ok, nil
}

// rebuildIndexes writes one index of every frame of the committed packs
// (their object tables give the objects, hashing gives the ids) and
// publishes it in a new commit in place of the old indexes. A frame that
// does not read is skipped and resynchronised past (frames start with a
// magic and a checksummed header); it is listed in res.Lost.
//
// With rewrite, a pack with damage is first written to a new pack
// without what does not read (docs/FORMAT.md "Re-ingesting lost
// captures"): its ranges no frame could be read from, the frames that do
// not decode, the frames of chunks past a lost one, and the frames
// holding an object that does not restore or whose delta base is in such
// a frame (their readable objects are stored again, and listed in
// res.Salvaged); the commit then names the new pack instead (dropDamage).
// The archive then verifies, with the objects of what was dropped
// missing: re-ingest puts them back.
func (s *Store) rebuildIndexes(m *manifest, res *RepairResult, rewrite bool) error {
	damaged := map[uint32]bool{} // packs with something dropped
	badFrame := map[int]bool{}   // frames of objects (index in frames) to drop
	locs := make(mapLocator)
	var entries []entry
	var frames []frameRow
	// Format 3: frames of chunks get their first chunk number from the
	// order they were written in (packs in number order, frames in file
	// order); chunked objects are hashed from their restored bytes.
	type refObj struct {
		frame uint32
		row   frameRow
		limit int64
		sp    objSpan
		code  []byte
	}
	var refObjs []refObj
	var chunkRows []chunkRow
	var nextChunk uint64
	numbering := true
	for _, p := range m.packs {
		path := filepath.Join(s.dir, packName(p.num))
		f, err := os.Open(path)
		if err != nil {
			// A deleted pack loses every frame: rewritten (empty) to a
			// new number, so that the commit no longer names a file
			// that is not there and re-ingest can put its objects back.
			// Whether it held frames of chunks is not known: the
			// numbers of every later one are then unknown too.
			res.Lost = append(res.Lost, fmt.Sprintf("%s: %v", packName(p.num), err))
			damaged[p.num] = true
			numbering = false
			continue
		}
		err = scanFrames(f, p.size, func(off int64, length uint32) {
			row := frameRow{pack: p.num, off: off, len: length}
			if cr, ok, err := chunkRowAt(f, row, nextChunk); ok || err != nil {
				// A frame of chunks: numbered in the order written.
				if err == nil && cr.prefix > 0 && (len(chunkRows) == 0 || chunkRows[len(chunkRows)-1].prefix != cr.prefix-1) {
					// Its chain lost a frame (in a range no frame could be
					// read from): its number and its bytes are unknown.
					err = fmt.Errorf("the frame before it in its chain is lost")
				}
				if err != nil || !numbering {
					numbering = false
					damaged[p.num] = true
					res.Lost = append(res.Lost, fmt.Sprintf("%s frame of chunks at %d: not listed (%v): the objects stored in it and after it are named as lost", packName(p.num), off, err))
					return
				}
				chunkRows = append(chunkRows, cr)
				nextChunk += uint64(cr.chunks)
				return
			}
			budget := maxDecodes
			fr, err := s.frame(locs, row, p.size, s.opts.MaxChain, &budget)
			if err != nil {
				damaged[p.num] = true
				res.Lost = append(res.Lost, fmt.Sprintf("%s frame at %d: %v", packName(p.num), off, err))
				return
			}
			fi := uint32(len(frames))
			frames = append(frames, row)
			for _, sp := range fr.spans {
				if sp.kind&kindRefs != 0 {
					// Hashed once the frames of chunks are all known.
					refObjs = append(refObjs, refObj{frame: fi, row: row, limit: p.size, sp: sp,
						code: bytes.Clone(fr.plain[sp.off : sp.off+sp.len])})
					continue
				}
				id := Sum(fr.plain[sp.off : sp.off+sp.len]).truncate(m.idLen())
				if _, dup := locs[id]; dup {
					continue
				}
				locs[id] = loc{frameRow: row, objOff: sp.off, objLen: sp.len, kind: sp.kind, limit: p.size}
				entries = append(entries, entry{id: id, frame: fi, off: sp.off, len: sp.len, kind: sp.kind})
			}
			s.cache.release(fr)
		}, func(off, skipped int64) {
			damaged[p.num] = true
			res.Lost = append(res.Lost, fmt.Sprintf("%s bytes %d to %d: no readable frame", packName(p.num), off, off+skipped))
		})
		f.Close()
		if err != nil {
			return fmt.Errorf("repair: %w", err)
		}
	}
	var cr *chunk.Reader
	if len(refObjs) > 0 || rewrite {
		dir, err := directoryOf(chunkRows)
		if err != nil {
			return fmt.Errorf("repair: %w", err)
		}
		packs := make(map[uint32]int64, len(m.packs))
		for _, p := range m.packs {
			packs[p.num] = p.size
		}
		if cr, err = s.newChunkReader(dir, packs); err != nil {
			return fmt.Errorf("repair: %w", err)
		}
		// Said once per frame: a lost frame of chunks fails many objects.
		failed, firstErr := map[frameRow]int{}, map[frameRow]error{}
		var failedRows []frameRow
		defer func() {
			for _, r := range failedRows {
				res.Lost = append(res.Lost, fmt.Sprintf("%s frame at %d: %d object(s) stored as chunks do not restore (%v)", packName(r.pack), r.off, failed[r], firstErr[r]))
			}
		}()
		for _, o := range refObjs {
			file := filepath.Join(s.dir, packName(o.row.pack))
			b, err := s.restoreWith(cr, o.code, maxFramePlain, file, o.row.off, ID{})
			if err != nil && !isLengthOnly(err) {
				badFrame[int(o.frame)], damaged[o.row.pack] = true, true
				if failed[o.row] == 0 {
					firstErr[o.row] = err
					failedRows = append(failedRows, o.row)
				}
				failed[o.row]++
				continue
			}
			id := Sum(b).truncate(m.idLen())
			if _, dup := locs[id]; dup {
				continue
			}
			locs[id] = loc{frameRow: o.row, objOff: o.sp.off, objLen: uint32(len(b)), kind: o.sp.kind, limit: o.limit}
			entries = append(entries, entry{id: id, frame: o.frame, off: o.sp.off, len: uint32(len(b)), kind: o.sp.kind})
		}
	}
	if rewrite && len(damaged) > 0 {
		return s.dropDamage(m, res, locs, frames, chunkRows, badFrame, damaged, cr)
	}
	if rewrite && len(s.idx) == len(m.indexes) && s.indexesCurrent(locs, frames, chunkRows) {
		// Nothing to drop, and the indexes in force name exactly the
		// objects of the frames that read: a rebuild would only take a
		// new number and generation, so that a repair run again after
		// a kill would not leave the files one run leaves.
		return errIndexesCurrent
	}
	slices.SortFunc(entries, func(a, b entry) int { return bytes.Compare(a.id[:], b.id[:]) })
	num := max(uint32(1), s.nextIndex)
	if n := len(m.indexes); n > 0 {
		num = m.indexes[n-1].num + 1
	}
	// The digest rows of the indexes that still read are kept; those of
	// a lost one are gone (objects stored again if they come back: size,
	// never correctness).
	digests := s.keptDigests(m, chunkRows)
	var size int64
	var err error
	if prev := filepath.Join(s.dir, indexName(num-1)); s.beforePublish != nil && num > 1 &&
		holdsIndex(prev, num-1, entries, frames, chunkRows, digests, m.idLen()) {
		// RebuildCommit killed after it wrote this very index and before
		// it published the commit: the highest file on disk, which set
		// num and the generation one past it. It is taken with its
		// number and generation, so that run again it publishes what
		// one run publishes.
		num--
		m.seq--
		fi, err := os.Stat(prev)
		if err != nil {
			return fmt.Errorf("repair: %w", err)
		}
		size = fi.Size()
	} else if size, err = writeIndex(filepath.Join(s.dir, indexName(num)), num, entries, frames, chunkRows, digests, m.idLen(), &s.opts); err != nil {
		return fmt.Errorf("repair: %w", err)
	}
	if !s.opts.NoParity {
		if _, err := protectRange(s.dir, indexName(num), 0, size, &s.opts); err != nil {
			return err
		}
	}
	nm := &manifest{seq: m.seq + 1, short: m.short, packs: m.packs, indexes: []fileRef{{num: num, size: size}}, settings: m.settings, setAt: m.setAt, payload: m.payload}
	if s.beforePublish != nil {
		// A commit made again (RebuildCommit): there is none to compare
		// with, and it is published only once its payload checks.
		if err := s.beforePublish(nm); err != nil {
			return fmt.Errorf("rebuild the commit: %w", err)
		}
	} else if cur, _, err := readManifest(s.dir); err != nil {
		// Compare and swap, as a writer's commit does (the lock is held).
		return fmt.Errorf("repair: reread the commit: %w", err)
	} else if cur.seq != m.seq {
		return &ConflictError{Dir: s.dir, Began: m.seq, Found: cur.seq}
	}
	if err := publishManifest(s.dir, nm, &s.opts); err != nil {
		return fmt.Errorf("repair: %w", err)
	}
	// Only now do the packs moved and the indexes replaced go.
	return cleanup(s.dir, nm)
}

// scanFrames calls frame for every frame of the pack's first size bytes
// whose header and data checksums hold, in order; past damage it looks
// for the next frame magic whose frame checks, and calls skip with the
// bytes passed over.
func scanFrames(f io.ReaderAt, size int64, frame func(off int64, length uint32), skip func(off, n int64)) error {
	hb := make([]byte, frameHeaderSize(maxBases))
	check := func(off int64) (uint32, bool) {
		n := min(int64(len(hb)), size-off)
		if n < frameFixedSize+4 {
			return 0, false
		}
		if _, err := f.ReadAt(hb[:n], off); err != nil && err != io.EOF {
			return 0, false
		}
		h, hl, err := parseFrameHeader(hb[:n], "", off)
		if err != nil || off+int64(hl)+int64(h.clen) > size {
			return 0, false
		}
		data := make([]byte, h.clen)
		if _, err := f.ReadAt(data, off+int64(hl)); err != nil || crc(data) != h.dcrc {
			return 0, false
		}
		return uint32(hl) + h.clen, true
	}
	off := int64(packHeaderSize)
	for off < size {
		if n, ok := check(off); ok {
			frame(off, n)
			off += int64(n)
			continue
		}
		// Resynchronise: the next magic at which a frame checks.
		from := off
		next := nextFrame(f, off+1, size, func(q int64) bool { _, ok := check(q); return ok })
		skip(from, next-from)
		off = next
	}
	return nil
}

// nextFrame returns the first offset q in [from, size) where the frame
// magic starts and ok(q) holds, else size: where a walk of the frames
// goes on past damage (a frame's header and data checksums make a false
// match of the magic harmless).
func nextFrame(f io.ReaderAt, from, size int64, ok func(q int64) bool) int64 {
	buf := make([]byte, 1<<20)
	for p := from; p < size; p += int64(len(buf)) - 3 {
		n, _ := f.ReadAt(buf[:min(int64(len(buf)), size-p)], p)
		for i := 0; i+4 <= n; {
			j := bytes.Index(buf[i:n], []byte(frameMagic))
			if j < 0 {
				break
			}
			if ok(p + int64(i+j)) {
				return p + int64(i+j)
			}
			i += j + 1
		}
		if n < len(buf) {
			break
		}
	}
	return size
}

// dropDamage writes the damaged packs of m to new packs without what
// does not read (rebuildIndexes with rewrite: frames lists the frames of
// objects that decoded, badFrame those of them to drop, chunkRows the
// frames of chunks kept), with the readable objects of the frames dropped
// stored again, then rebuilds the indexes over the new packs and
// publishes them in one commit.
func (s *Store) dropDamage(m *manifest, res *RepairResult, locs mapLocator, frames []frameRow, chunkRows []chunkRow, badFrame map[int]bool, damaged map[uint32]bool, cr *chunk.Reader) error {
	at := make(map[frameRow]int, len(frames))
	for fi, row := range frames {
		at[row] = fi
	}
	limits := make(map[uint32]int64, len(m.packs))
	for _, p := range m.packs {
		limits[p.num] = p.size
	}
	// A frame whose delta base is in a dropped frame would not decode
	// once it is gone: dropped too (bases precede, so this settles).
	for changed := true; changed; {
		changed = false
		for fi, row := range frames {
			if badFrame[fi] {
				continue
			}
			for _, b := range s.frameBases(row) {
				if l, ok := locs[b.id.truncate(m.idLen())]; ok && badFrame[at[l.frameRow]] {
					badFrame[fi], damaged[row.pack], changed = true, true, true
					break
				}
			}
		}
	}
	// The readable objects of the frames dropped, read while their bases
	// are still there.
	for fi, row := range frames {
		if !badFrame[fi] {
			continue
		}
		budget := maxDecodes
		fr, err := s.frame(locs, row, limits[row.pack], s.opts.MaxChain, &budget)
		if err != nil {
			continue
		}
		file := filepath.Join(s.dir, packName(row.pack))
		for _, sp := range fr.spans {
			b := bytes.Clone(fr.plain[sp.off : sp.off+sp.len])
			if sp.kind&kindRefs != 0 {
				if b, err = s.restoreWith(cr, b, maxFramePlain, file, row.off, ID{}); err != nil && !isLengthOnly(err) {
					continue
				}
			}
			res.Salvaged = append(res.Salvaged, Salvaged{Kind: sp.kind &^ kindRefs, Data: b})
		}
		s.cache.release(fr)
	}
	s.cache.purge()

	// The kept frames go to new packs, numbered after the last, and the
	// damaged packs are deleted only once the commit naming the new ones
	// is published: a crash leaves the old commit in force (the new packs
	// are leftovers the next writer removes) or the new one. A rebuild
	// from the frames numbers the frames of chunks in pack order, then
	// file order: once a moved pack keeps a frame of chunks, every later
	// pack holding one moves too, in order, so that the order of chunk
	// numbers, which ref lists and chains depend on, stays the order of
	// the packs (docs/FORMAT.md "Re-ingesting lost captures").
	hasChunks := map[uint32]bool{}
	for _, c := range chunkRows {
		hasChunks[c.pack] = true
	}
	move := map[uint32]bool{}
	from := uint32(math.MaxUint32)
	for num := range damaged {
		move[num] = true
		if hasChunks[num] {
			from = min(from, num)
		}
	}
	for num := range hasChunks {
		if num > from {
			move[num] = true
		}
	}
	salv, err := s.salvageFrames(res.Salvaged)
	if err != nil {
		return fmt.Errorf("repair: %w", err)
	}
	nm := &manifest{seq: m.seq, short: m.short, indexes: m.indexes, settings: m.settings, setAt: m.setAt, payload: m.payload}
	next := m.packs[len(m.packs)-1].num + 1
	var last uint32
	for _, p := range m.packs {
		if move[p.num] {
			last = p.num
		}
	}
	// The packs that stay come first: a moved pack takes a number after
	// the last, so listing it in its old place would put a higher
	// number before a lower one (a damaged pack of catalog frames
	// before an intact one), which no COMMIT may hold.
	for _, p := range m.packs {
		if !move[p.num] {
			nm.packs = append(nm.packs, p)
		}
	}
	for _, p := range m.packs {
		if !move[p.num] {
			continue
		}
		var keep []frameRow
		for fi, row := range frames {
			if row.pack == p.num && !badFrame[fi] {
				keep = append(keep, row)
			}
		}
		for _, c := range chunkRows {
			if c.pack == p.num {
				keep = append(keep, frameRow{pack: c.pack, off: c.off, len: c.len})
			}
		}
		slices.SortFunc(keep, func(a, b frameRow) int { return int(a.off - b.off) })
		var extra [][]byte
		if p.num == last {
			extra = salv
		}
		size, err := s.movePack(p, next, keep, extra)
		if err != nil {
			return fmt.Errorf("repair: %w", err)
		}
		if damaged[p.num] {
			res.Done = append(res.Done, fmt.Sprintf("%s written as %s without what does not read: %d frames kept, %d of %d bytes dropped", packName(p.num), packName(next), len(keep), p.size-(size-frameBytes(extra)), p.size))
		} else {
			res.Done = append(res.Done, fmt.Sprintf("%s copied to %s (its frames of chunks follow those of a rewritten pack)", packName(p.num), packName(next)))
		}
		if len(extra) > 0 {
			res.Done = append(res.Done, fmt.Sprintf("%d object(s) read from the frames dropped stored again in %s", len(res.Salvaged), packName(next)))
		}
		nm.packs = append(nm.packs, fileRef{num: next, size: size})
		s.packs[next] = size
		next++
	}
	s.m = nm
	return s.rebuildIndexes(nm, res, false)
}

// frameBytes sums the lengths of frames.
func frameBytes(frames [][]byte) int64 {
	var n int64
	for _, f := range frames {
		n += int64(len(f))
	}
	return n
}

// salvageFrames encodes objects as frames of whole objects (no delta
// bases, no chunks: they then depend on no other frame), cut at the
// frame size.
func (s *Store) salvageFrames(objs []Salvaged) ([][]byte, error) {
	if len(objs) == 0 {
		return nil, nil
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false))
	if err != nil {
		return nil, err
	}
	defer enc.Close()
	var out [][]byte
	for len(objs) > 0 {
		n, size := 0, 0
		for n < len(objs) && (n == 0 || size+len(objs[n].Data) <= s.opts.FrameSize) {
			size += len(objs[n].Data)
			n++
		}
		kinds, lens := make([]Kind, n), make([]int, n)
		for i, o := range objs[:n] {
			kinds[i], lens[i] = o.Kind, len(o.Data)
		}
		plain := appendTable(nil, kinds, lens)
		for _, o := range objs[:n] {
			plain = append(plain, o.Data...)
		}
		if len(plain) > maxFramePlain {
			return nil, fmt.Errorf("salvaged object of %d bytes over the frame limit", size)
		}
		data := enc.EncodeAll(plain, nil)
		h := frameHeader{clen: uint32(len(data)), ulen: uint32(len(plain)), count: uint32(n), dcrc: crc(data)}
		out = append(out, append(h.appendTo(nil), data...))
		objs = objs[n:]
	}
	return out, nil
}

// frameBases lists the delta bases of the frame at row (none when its
// header does not read: the frame was checked already).
func (s *Store) frameBases(row frameRow) []baseRef {
	f, err := s.packFile(row.pack)
	if err != nil {
		return nil
	}
	hb := make([]byte, min(int(row.len), frameHeaderSize(maxBases)))
	if _, err := f.ReadAt(hb, row.off); err != nil {
		return nil
	}
	h, _, err := parseFrameHeader(hb, "", row.off)
	if err != nil {
		return nil
	}
	return h.bases
}

// movePack writes pack p as the new pack num: a header (p's, with the
// new number) and the frames keep (in file order, byte for byte: frames
// name their bases by id, not by place), then extra (whole frames), and
// protects it with parity. It returns its length. Pack p stays as it
// is: it goes once a commit names num instead.
func (s *Store) movePack(p fileRef, num uint32, keep []frameRow, extra [][]byte) (int64, error) {
	old, err := os.Open(filepath.Join(s.dir, packName(p.num)))
	if errors.Is(err, fs.ErrNotExist) && len(keep) == 0 {
		old = nil // a deleted pack: a header (and extra) alone
	} else if err != nil {
		return 0, err
	} else {
		defer old.Close()
	}
	name := packName(num)
	path := filepath.Join(s.dir, name)
	if err := s.opts.fault("write", path); err != nil {
		return 0, fmt.Errorf("write pack: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return 0, fmt.Errorf("write pack: %w", err)
	}
	size, err := func() (int64, error) {
		head := make([]byte, packHeaderSize)
		if old == nil {
			head = appendFileHeader(nil, packMagic, num)
		} else if _, err := old.ReadAt(head, 0); err == nil && checkFileHeader(head, packMagic, p.num, old.Name()) == nil {
			// The pack's format version is kept: it tells a writer
			// whether to append to the pack.
			le.PutUint32(head[8:], num)
			le.PutUint32(head[12:], crc(head[:12]))
		} else {
			head = appendFileHeader(nil, packMagic, num)
		}
		bw := bufio.NewWriterSize(f, 1<<20)
		bw.Write(head)
		n := int64(packHeaderSize)
		for _, r := range keep {
			if _, err := io.Copy(bw, io.NewSectionReader(old, r.off, int64(r.len))); err != nil {
				return 0, err
			}
			n += int64(r.len)
		}
		for _, b := range extra {
			bw.Write(b)
			n += int64(len(b))
		}
		if err := bw.Flush(); err != nil {
			return 0, fmt.Errorf("write pack %s: %w", path, err)
		}
		if err := s.opts.fault("sync", path); err != nil {
			return 0, fmt.Errorf("sync pack %s: %w", path, err)
		}
		if err := fsync(f, s.opts.noSync); err != nil {
			return 0, fmt.Errorf("sync pack %s: %w", path, err)
		}
		return n, nil
	}()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	if !s.opts.NoParity {
		if _, err := protectRange(s.dir, name, 0, size, &s.opts); err != nil {
			return 0, err
		}
	}
	return size, nil
}
