package pack

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// ErrCommitLost means COMMIT and COMMIT.copy are both damaged or missing
// while pack files are there: the archive's list of files is lost, and
// RebuildCommit makes it again from the files on disk.
var ErrCommitLost = errors.New("both commit files are lost")

// CatalogObject is an object of kind KindVersionCatalog, with the ids of
// its frame's delta bases (a catalog segment is a delta of its run's
// previous one: the bases tell the runs apart).
type CatalogObject struct {
	ID    ID
	Bases []ID
}

// CatalogObjects lists the objects of kind KindVersionCatalog the
// committed indexes name, in the order they were written (pack, frame,
// place in the frame).
func (s *Store) CatalogObjects() ([]CatalogObject, error) {
	s.mu.RLock()
	idx := s.idx
	s.mu.RUnlock()
	type at struct {
		row frameRow
		off uint32
		id  ID
	}
	var all []at
	for _, ix := range idx {
		rows := map[uint32]frameRow{}
		err := ix.scan(nil, func(i uint32, r frameRow) error { rows[i] = r; return nil })
		if err == nil {
			err = ix.scan(func(_ int64, e entry) error {
				if e.kind == KindVersionCatalog {
					all = append(all, at{rows[e.frame], e.off, e.id})
				}
				return nil
			}, nil)
		}
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(all, func(a, b at) int {
		if a.row.pack != b.row.pack {
			return int(a.row.pack) - int(b.row.pack)
		}
		if a.row.off != b.row.off {
			return int(a.row.off - b.row.off)
		}
		return int(a.off) - int(b.off)
	})
	out := make([]CatalogObject, 0, len(all))
	for _, a := range all {
		o := CatalogObject{ID: a.id}
		for _, b := range s.frameBases(a.row) {
			o.Bases = append(o.Bases, b.id.truncate(s.idLen()))
		}
		out = append(out, o)
	}
	return out, nil
}

// commitLost reports whether dir holds pack files while neither commit
// file reads (e1, e2: why each did not).
func commitLost(dir string, e1, e2 error) bool {
	if !errors.Is(e1, ErrNotArchive) || !errors.Is(e2, ErrNotArchive) {
		return true
	}
	packs, _ := packsOnDisk(dir)
	return len(packs) > 0
}

// packsOnDisk lists the pack numbers of the files named NNNNNNNN.pack in
// dir, increasing.
func packsOnDisk(dir string) ([]uint32, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var nums []uint32
	for _, e := range ents {
		n, ok := strings.CutSuffix(e.Name(), ".pack")
		if !ok || len(n) != 8 {
			continue
		}
		if v, err := strconv.ParseUint(n, 16, 32); err == nil && packName(uint32(v)) == e.Name() {
			nums = append(nums, uint32(v))
		}
	}
	slices.Sort(nums)
	return nums, nil
}

// RebuildCommit makes the commit of the archive in dir again when COMMIT
// and COMMIT.copy are both lost (ErrCommitLost), from the files on disk:
// every pack file, up to the end of its last frame that checks; one
// index rebuilt from those frames (as repair rebuilds a lost index); the
// id length of the indexes that open (else short ids, what every writer
// since short ids writes); the settings of the settings object of the
// highest generation (none in an archive written before them: the
// defaults from the next commit on, as for an archive created before
// settings were recorded);
// and the payload payload returns, given a view of the archive with that
// list of files and no payload. check is then given the view with the
// payload, and only when it returns nil is the commit published, as a
// generation after every one an index on disk was written by.
func RebuildCommit(dir string, opts Options, payload func(*Store) ([]byte, error), check func(*Store) error) (RepairResult, error) {
	var res RepairResult
	opts = opts.withDefaults()
	opts.Cache = nil // it publishes a commit of its own reading
	lock, err := lockDir(dir)
	if err != nil {
		return res, err
	}
	defer unlock(lock)
	_, e1 := readManifestFile(filepath.Join(dir, commitName))
	_, e2 := readManifestFile(filepath.Join(dir, commitCopy))
	if e1 == nil || e2 == nil || !commitLost(dir, e1, e2) {
		return res, fmt.Errorf("rebuild the commit of %s: a commit file reads, or there is no pack", dir)
	}
	nums, err := packsOnDisk(dir)
	if err != nil {
		return res, fmt.Errorf("rebuild the commit: %w", err)
	}
	m := &manifest{short: true}
	// The ids' length, and the generation and index number: past every
	// index on disk, so that the new index replaces none before the
	// commit names it (the old generation number is lost with COMMIT).
	ents, _ := os.ReadDir(dir)
	var seq uint64 = 1
	shortSeen, longSeen := false, false
	for _, e := range ents {
		n, ok := strings.CutSuffix(e.Name(), ".idx")
		if !ok || len(n) != 8 {
			continue
		}
		v, err := strconv.ParseUint(n, 16, 32)
		if err != nil {
			continue
		}
		seq = max(seq, v+1)
		fi, err := e.Info()
		if err != nil {
			continue
		}
		if ix, err := openIndex(filepath.Join(dir, e.Name()), uint32(v), fi.Size()); err == nil {
			if ix.lay.id == 32 {
				longSeen = true
			} else {
				shortSeen = true
			}
			ix.f.Close()
		}
	}
	m.short = shortSeen || !longSeen
	m.seq = seq
	headers := 0
	for _, num := range nums {
		path := filepath.Join(dir, packName(num))
		f, err := os.Open(path)
		if err != nil {
			return res, fmt.Errorf("rebuild the commit: %w", err)
		}
		head := make([]byte, packHeaderSize)
		if _, err := f.ReadAt(head, 0); err == nil && checkFileHeader(head, packMagic, num, path) == nil {
			headers++
		}
		fi, err := f.Stat()
		end := int64(packHeaderSize)
		if err == nil {
			err = scanFrames(f, fi.Size(), func(off int64, n uint32) { end = off + int64(n) }, func(int64, int64) {})
		}
		f.Close()
		if err != nil {
			return res, fmt.Errorf("rebuild the commit: %w", err)
		}
		if fi.Size() > end {
			res.Lost = append(res.Lost, fmt.Sprintf("%s bytes %d to %d: no frame ends there (not committed, or damaged): left out", packName(num), end, fi.Size()))
		}
		m.packs = append(m.packs, fileRef{num: num, size: end})
	}
	if headers == 0 {
		// Files named like packs, none of them one: not an archive, and
		// nothing is written.
		return res, fmt.Errorf("rebuild the commit of %s: %w", dir, ErrNotArchive)
	}
	s := &Store{dir: dir, opts: opts, files: make(map[uint32]*os.File), decs: make(chan *decoder, runtime.GOMAXPROCS(0))}
	s.cache = newFrameCache(s.opts.CacheBytes)
	defer s.Close()
	s.m = m
	s.nextIndex = uint32(seq)
	s.packs = make(map[uint32]int64)
	for _, p := range m.packs {
		s.packs[p.num] = p.size
	}
	s.beforePublish = func(nm *manifest) error {
		view := func(nm *manifest) (*Store, error) {
			v := &Store{dir: dir, opts: opts, files: make(map[uint32]*os.File), decs: make(chan *decoder, runtime.GOMAXPROCS(0))}
			v.cache = newFrameCache(v.opts.CacheBytes)
			idx, err := v.openIndexes(nm)
			if err != nil {
				return nil, err
			}
			v.install(nm, idx)
			return v, nil
		}
		v, err := view(nm)
		if err != nil {
			return err
		}
		if set, at, ok := v.recordedSettings(); ok {
			nm.settings, nm.setAt = &set, at
		}
		p, err := payload(v)
		v.Close()
		if err != nil {
			return err
		}
		nm.payload = p
		if v, err = view(nm); err != nil {
			return err
		}
		defer v.Close()
		return check(v)
	}
	// The indexes on disk are not trusted to be the last commit's (a
	// merge's inputs may be there too): one is written from the frames.
	if err := s.rebuildIndexes(m, &res, false); err != nil {
		return res, err
	}
	res.Done = append(res.Done, fmt.Sprintf("%s and %s were lost: the list of files rebuilt from %d pack(s) on disk, with one index rebuilt from their frames, as generation %d", commitName, commitCopy, len(m.packs), m.seq+1))
	return res, nil
}
