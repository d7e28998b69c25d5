package pack

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/blockwarc/blockwarc/dedupe/parity"
	"github.com/blockwarc/blockwarc/warcio"
)

// Parity (docs/FORMAT.md "Parity"): each commit protects what it made
// final, the pack bytes it appended (one sidecar per pack and commit,
// NNNNNNNN.pack[.OFFSET].par) and the indexes it wrote (NNNNNNNN.idx.par),
// with Reed–Solomon parity from package parity. COMMIT needs none: its
// copy COMMIT.copy, published right after it, is a full replica of the
// same generation. Readers read the files as before; when a file's own
// checks fail (frame CRC, index checksums, pack header) the store scans
// that file against its sidecars once, keeps the corrected sectors in
// memory as patches laid over every later read of the file, and reports
// the correction (Store.Corrections). Bytes that parity cannot correct
// are never patched: the file's own check then fails as without parity.

// parityState is a store's record of files corrected through parity.
type parityState struct {
	mu      sync.Mutex
	patches map[string][]parity.Patch // by file name, sorted by offset
	tried   map[string]bool           // files scanned against their sidecars
	events  []string
	indexes bool // the indexes in force were all scanned (healIndexes)
}

// tailRange is the largest committed pack range whose sidecar a later
// commit may replace by one for the longer range. A range is built to
// correct a burst of 1/parity.BurstDivisor of the file it ends (up to
// parity.MaxBurst): coalescing until the range is BurstDivisor·MaxBurst
// long gives every range that later bytes follow the full MaxBurst, so
// that a burst of the file's size/32 (up to 1 MiB) anywhere in a pack is
// corrected, and no commit pays a full burst's parity for a short range
// for long: an ingest committing every few hundred KiB (one crawl at a
// time, or a small -commit) pays, coalesced, what one commit would.
const tailRange = parity.BurstDivisor * parity.MaxBurst

// nextSuffix marks a coalesced sidecar written by a commit and put in
// place (over the shorter one of the same range start) only after that
// commit is published: a crash before leaves the old sidecar, still
// right for the committed pack; cleanup rolls a finished one forward.
const nextSuffix = ".next"

// staged is a coalesced sidecar waiting for its commit: file, final name.
type staged struct{ from, to string }

// protectCommit writes the sidecars for what m adds over prev: the pack
// bytes appended since prev and the indexes prev does not name. Ranges
// that extend a small last range are protected with it as one
// (tailStart), under a staged name that putStaged installs after the
// commit is published.
func protectCommit(dir string, prev, m *manifest, o *Options) ([]staged, error) {
	old := make(map[uint32]int64, len(prev.packs))
	for _, p := range prev.packs {
		old[p.num] = p.size
	}
	var st []staged
	for _, p := range m.packs {
		from := old[p.num]
		if p.size <= from {
			continue
		}
		name := packName(p.num)
		if start := tailStart(dir, name, from); start < from {
			final := parity.SidecarName(name, start)
			if err := protectAs(dir, name, start, p.size, final+nextSuffix, o); err != nil {
				return st, err
			}
			st = append(st, staged{final + nextSuffix, final})
			continue
		}
		if _, err := protectRange(dir, name, from, p.size, o); err != nil {
			return st, err
		}
	}
	had := make(map[uint32]bool, len(prev.indexes))
	for _, r := range prev.indexes {
		had[r.num] = true
	}
	for _, r := range m.indexes {
		if !had[r.num] {
			if _, err := protectRange(dir, indexName(r.num), 0, r.size, o); err != nil {
				return st, err
			}
		}
	}
	return st, nil
}

// tailStart is where the sidecar for pack bytes appended from offset from
// should start: the start of the sidecar that ends at from when its range
// is shorter than tailRange and its bytes check clean against it (parity
// is never computed over damage), else from.
func tailStart(dir, name string, from int64) int64 {
	if from == 0 {
		return from
	}
	scs, _ := sidecars(dir, name, from)
	if len(scs) == 0 {
		return from
	}
	last := scs[len(scs)-1]
	if last.Off+last.Len != from || last.Len >= tailRange {
		return from
	}
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return from
	}
	defer f.Close()
	rep, err := last.Check(f)
	if err != nil || len(rep.Damaged) > 0 || rep.ParityBad > 0 {
		return from
	}
	return last.Off
}

// putStaged installs the coalesced sidecars of a published commit. A
// failure leaves the staged file, which cleanup installs later.
func putStaged(dir string, st []staged, nosync bool) {
	for _, s := range st {
		if os.Rename(filepath.Join(dir, s.from), filepath.Join(dir, s.to)) != nil {
			return
		}
	}
	if len(st) > 0 && !nosync {
		warcio.SyncDir(dir)
	}
}

// settleStaged deals with a staged sidecar that a crash left (name ends
// in nextSuffix): installed when m commits the whole range it protects,
// removed otherwise (its commit was not published: the sidecar it would
// have replaced is still right).
func settleStaged(dir, name string, m *manifest) error {
	final := strings.TrimSuffix(name, nextSuffix)
	f, off, ok := parity.ParseSidecarName(final)
	path := filepath.Join(dir, name)
	if ok {
		if sc, err := parity.OpenMeta(path); err == nil && sc.Name == f && sc.Off == off {
			for _, p := range m.packs {
				if packName(p.num) == f && sc.Off+sc.Len <= p.size {
					return os.Rename(path, filepath.Join(dir, final))
				}
			}
		}
	}
	return os.Remove(path)
}

// protectRange writes the sidecar of bytes [from, to) of file name and
// returns its size.
func protectRange(dir, name string, from, to int64, o *Options) (int64, error) {
	if to <= from {
		return 0, nil
	}
	if err := o.fault("write", filepath.Join(dir, parity.SidecarName(name, from))); err != nil {
		return 0, fmt.Errorf("commit: write parity: %w", err)
	}
	sc, n, err := parity.Protect(dir, name, from, to, o.noSync)
	if err != nil {
		return 0, fmt.Errorf("commit: %w", err)
	}
	path := filepath.Join(dir, sc)
	// The sidecar is in place by now: a failed sync leaves one for bytes
	// no commit names, which cleanup removes (staleParity).
	if err := o.fault("sync", path); err != nil {
		return 0, fmt.Errorf("commit: sync parity: %w", err)
	}
	return n, nil
}

// protectAs is protectRange under the staged name scName.
func protectAs(dir, name string, from, to int64, scName string, o *Options) error {
	path := filepath.Join(dir, scName)
	if err := o.fault("write", path); err != nil {
		return fmt.Errorf("commit: write parity: %w", err)
	}
	if _, _, err := parity.ProtectAs(dir, name, from, to, scName, o.noSync); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if err := o.fault("sync", path); err != nil {
		return fmt.Errorf("commit: sync parity: %w", err)
	}
	return nil
}

// isParityName reports whether name is a sidecar of one of this
// package's files (or the temp file of one being written).
func isParityName(name string) bool {
	name = strings.TrimSuffix(name, ".tmp")
	name = strings.TrimSuffix(name, nextSuffix)
	f, _, ok := parity.ParseSidecarName(name)
	return ok && ownName(f)
}

// staleParity says whether sidecar name protects nothing m names: a file
// m does not name, or a pack range beyond its committed length (an
// interrupted commit's).
func staleParity(name string, m *manifest) bool {
	if strings.HasSuffix(name, ".tmp") {
		return true
	}
	f, off, _ := parity.ParseSidecarName(name)
	for _, p := range m.packs {
		if f == packName(p.num) {
			return off >= p.size
		}
	}
	for _, r := range m.indexes {
		if f == indexName(r.num) {
			return off != 0
		}
	}
	return true
}

// sidecars opens the sidecars of file name whose ranges lie within its
// first limit bytes, by range start.
func sidecars(dir, name string, limit int64) ([]*parity.Sidecar, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []*parity.Sidecar
	var errs []error
	for _, e := range ents {
		f, _, ok := parity.ParseSidecarName(e.Name())
		if !ok || f != name {
			continue
		}
		sc, err := parity.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if sc.Name != name || sc.Off+sc.Len > limit {
			continue
		}
		out = append(out, sc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Off < out[j].Off })
	return out, errors.Join(errs...)
}

// heal scans file name (committed length limit) against its sidecars
// once per store and keeps the corrected sectors. It reports whether
// the file has corrected sectors, found by this scan or an earlier one:
// a second reader of a file healed before (a commit's index merge after
// the open read the index) takes its corrected view too.
func (s *Store) heal(name string, limit int64) bool {
	s.par.mu.Lock()
	defer s.par.mu.Unlock()
	if s.par.tried == nil {
		s.par.tried = make(map[string]bool)
		s.par.patches = make(map[string][]parity.Patch)
	}
	if s.par.tried[name] {
		return len(s.par.patches[name]) > 0
	}
	s.par.tried[name] = true
	patches, msg := scanFile(s.dir, name, limit)
	if msg != "" {
		s.par.events = append(s.par.events, msg)
	}
	if len(patches) == 0 {
		return false
	}
	s.par.patches[name] = patches
	return true
}

// scanFile checks file name against all its sidecars and returns the
// corrected sectors and a sentence for the user ("" when all is well).
func scanFile(dir, name string, limit int64) ([]parity.Patch, string) {
	scs, serr := sidecars(dir, name, limit)
	if len(scs) == 0 {
		if serr != nil {
			return nil, fmt.Sprintf("%s: damaged, and its parity is unreadable: %v", name, serr)
		}
		return nil, ""
	}
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return nil, fmt.Sprintf("%s: %v", name, err)
	}
	defer f.Close()
	var patches []parity.Patch
	var damaged, corrected int
	var lost []string
	for _, sc := range scs {
		p, rep, err := sc.Scan(f)
		damaged += len(rep.Damaged)
		if err != nil {
			lost = append(lost, err.Error())
			continue
		}
		corrected += rep.Corrected
		patches = append(patches, p...)
	}
	var msg string
	switch {
	case len(lost) > 0:
		msg = fmt.Sprintf("%s: %d damaged 4 KiB sectors, %d corrected by parity; not correctable: %s", name, damaged, corrected, strings.Join(lost, "; "))
	case corrected > 0:
		msg = fmt.Sprintf("%s: %d damaged 4 KiB sectors (first at offset %d), corrected by parity (blockwarc repair rewrites them)", name, corrected, patches[0].Off)
	}
	return patches, msg
}

// overlay lays the corrected sectors of file name over b, read at off.
// It returns how many bytes from the start of b are now good: n, the
// count the read gave, extended over patches that cover what a short
// read (a truncated file) missed.
func (s *Store) overlay(name string, b []byte, off int64, n int) int {
	s.par.mu.Lock()
	ps := s.par.patches[name]
	s.par.mu.Unlock()
	return applyPatches(ps, b, off, n)
}

func applyPatches(ps []parity.Patch, b []byte, off int64, n int) int {
	if len(ps) == 0 {
		return n
	}
	end := off + int64(len(b))
	i := sort.Search(len(ps), func(i int) bool { return ps[i].Off+int64(len(ps[i].Data)) > off })
	for ; i < len(ps) && ps[i].Off < end; i++ {
		p := ps[i]
		lo, hi := max(p.Off, off), min(p.Off+int64(len(p.Data)), end)
		copy(b[lo-off:hi-off], p.Data[lo-p.Off:hi-p.Off])
		if lo-off <= int64(n) && hi-off > int64(n) {
			n = int(hi - off)
		}
	}
	return n
}

// readChecked reads n bytes of file name at off through f and check; when
// the read or the check fails, it scans the file against its parity and
// tries again with the corrected sectors. The error is the first one when
// parity does not help.
func (s *Store) readChecked(name string, f io.ReaderAt, limit, off int64, n int, check func([]byte) error) ([]byte, error) {
	b := make([]byte, n)
	try := func() error {
		got, err := f.ReadAt(b, off)
		if got = s.overlay(name, b, off, got); got == n {
			err = nil
		} else if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return corrupt(filepath.Join(s.dir, name), off, "read: %v", err)
		}
		return check(b)
	}
	err := try()
	if err == nil {
		return b, nil
	}
	if s.heal(name, limit) {
		if err2 := try(); err2 == nil {
			return b, nil
		}
	}
	return nil, err
}

// Corrections lists what reads corrected through parity, one sentence a
// file, since the store was opened. Callers say it (the archive on disk
// is damaged; blockwarc repair rewrites it).
func (s *Store) Corrections() []string {
	s.par.mu.Lock()
	defer s.par.mu.Unlock()
	return slices.Clone(s.par.events)
}

// patchedIndex is an index file read with corrected sectors laid over it.
type patchedIndex struct {
	indexSource
	name    string
	size    int64
	patches []parity.Patch
}

func (p *patchedIndex) ReadAt(b []byte, off int64) (int, error) {
	n, err := p.indexSource.ReadAt(b, off)
	n = applyPatches(p.patches, b, off, n)
	if n == len(b) {
		err = nil
	}
	return n, err
}

func (p *patchedIndex) Size() (int64, error) { return p.size, nil }

// openIndexHealed opens an index; when its checks fail, or full is set
// and its body checksum fails, it reads it through parity instead.
func (s *Store) openIndexHealed(num uint32, size int64, full bool) (*indexFile, error) {
	path := filepath.Join(s.dir, indexName(num))
	ix, err := openIndex(path, num, size)
	if err == nil && full {
		if err = ix.scan(nil, nil); err != nil {
			ix.f.Close()
		}
	}
	if err == nil {
		s.checkIndexReads(ix)
		return ix, nil
	}
	if errors.Is(err, os.ErrNotExist) && !s.hasParity(indexName(num)) {
		return nil, err
	}
	if !s.heal(indexName(num), size) {
		return nil, err
	}
	return s.openPatchedIndex(num, size, err)
}

func (s *Store) hasParity(name string) bool {
	_, err := os.Stat(filepath.Join(s.dir, parity.SidecarName(name, 0)))
	return err == nil
}

func (s *Store) openPatchedIndex(num uint32, size int64, orig error) (*indexFile, error) {
	name := indexName(num)
	path := filepath.Join(s.dir, name)
	s.par.mu.Lock()
	ps := s.par.patches[name]
	s.par.mu.Unlock()
	var src indexSource
	f, err := os.Open(path)
	if err != nil {
		// Gone entirely: parity restores only damaged sectors of a file
		// that is there (a missing file is beyond one fault).
		return nil, orig
	}
	src = osIndex{f}
	ix := &indexFile{num: num, path: path, f: &patchedIndex{indexSource: src, name: name, size: size, patches: ps}}
	if err := ix.load(size); err != nil {
		f.Close()
		return nil, orig
	}
	if err := ix.scan(nil, nil); err != nil {
		f.Close()
		return nil, orig
	}
	return ix, nil
}

// healIndexes scans every index in force against its parity (once per
// store) and replaces a damaged one by its corrected view: a lookup that
// missed, or found an entry its frame does not confirm, may have read a
// damaged entry. It reports whether any index changed.
func (s *Store) healIndexes() bool {
	s.par.mu.Lock()
	done := s.par.indexes
	s.par.indexes = true
	s.par.mu.Unlock()
	if done {
		return false
	}
	s.mu.RLock()
	m, idx := s.m, slices.Clone(s.idx)
	s.mu.RUnlock()
	changed := false
	for i, ix := range idx {
		if _, ok := ix.f.(*patchedIndex); ok {
			continue
		}
		if !s.heal(indexName(ix.num), ix.size) {
			continue
		}
		nix, err := s.openPatchedIndex(ix.num, ix.size, nil)
		if err != nil || nix == nil {
			continue
		}
		idx[i], changed = nix, true
	}
	s.mu.RLock()
	same := s.m == m
	s.mu.RUnlock()
	if changed && same {
		s.install(m, idx)
	}
	return changed
}

// packLimit is pack num's committed length (0 when not committed).
func (s *Store) packLimit(num uint32) int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.packs[num]
}

// verifyParity checks every committed file against its sidecars (Verify
// calls it first): damaged sectors are reported, naming the file, and
// said corrected when parity rebuilds them (the rest of Verify then reads
// the corrected bytes); damaged sidecars are reported naming the
// sidecar. It returns the files that hold corrected sectors.
func (s *Store) verifyParity(m *manifest, problem func(error)) {
	files := make(map[string]int64)
	for _, p := range m.packs {
		files[packName(p.num)] = p.size
	}
	for _, r := range m.indexes {
		files[indexName(r.num)] = r.size
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		limit := files[name]
		path := filepath.Join(s.dir, name)
		scs, serr := sidecars(s.dir, name, limit)
		if serr != nil {
			problem(serr)
		}
		if len(scs) == 0 {
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			continue // the checks below name it
		}
		var patches []parity.Patch
		for _, sc := range scs {
			if sc.MetaDamaged {
				problem(corrupt(sc.Path, 0, "one of the two copies of the parity header is damaged (blockwarc repair rewrites it)"))
			}
			if n, err := sc.ParityDamaged(); err != nil || n > 0 {
				problem(corrupt(sc.Path, 0, "%d parity sectors damaged (blockwarc repair rewrites them)", n))
			}
			p, rep, err := sc.Scan(f)
			switch {
			case err != nil:
				problem(corrupt(path, sc.Off, "%d damaged 4 KiB sectors, not all correctable: %v", len(rep.Damaged), err))
			case rep.Corrected > 0:
				problem(corrupt(path, rep.Damaged[0], "%d damaged 4 KiB sectors, corrected by parity: nothing lost (blockwarc repair rewrites them)", rep.Corrected))
			}
			patches = append(patches, p...)
		}
		f.Close()
		s.par.mu.Lock()
		if s.par.tried == nil {
			s.par.tried = make(map[string]bool)
			s.par.patches = make(map[string][]parity.Patch)
		}
		s.par.tried[name] = true
		if len(patches) > 0 {
			s.par.patches[name] = patches
		}
		s.par.mu.Unlock()
	}
	s.healIndexes()
}

// patchedTo reports whether corrected sectors of file name reach end (a
// truncated file whose lost tail parity rebuilt).
func (s *Store) patchedTo(name string, end int64) bool {
	s.par.mu.Lock()
	defer s.par.mu.Unlock()
	ps := s.par.patches[name]
	return len(ps) > 0 && ps[len(ps)-1].Off+int64(len(ps[len(ps)-1].Data)) >= end
}

// checkedIndex reads an index whose sidecar is there sector by sector,
// each sector checked against the sidecar's checksum: a lookup reads a
// few entries and never the body checksum, so without this a damaged
// entry would make it miss or resolve a prefix to a wrong id. A sector
// that fails is corrected through parity (Store.heal) or the read fails.
type checkedIndex struct {
	osIndex
	s    *Store
	name string
	size int64
	sc   *parity.Sidecar
}

// sectorBufs holds buffers of two sectors for checkedIndex (a channel,
// not a sync.Pool, which drops buffers at random under the race detector).
var sectorBufs = make(chan *[2 * parity.SectorSize]byte, 64)

func (c *checkedIndex) ReadAt(b []byte, off int64) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	end := off + int64(len(b))
	if off < 0 || end > c.size {
		return c.osIndex.ReadAt(b, off)
	}
	first, last := c.sc.SectorOf(off), c.sc.SectorOf(end-1)
	fs, _ := c.sc.SectorSpan(first)
	_, fe := c.sc.SectorSpan(last)
	var buf []byte
	if fe-fs <= 2*parity.SectorSize {
		// Most reads touch one or two sectors: reused buffers keep
		// lookups from allocating.
		var sb *[2 * parity.SectorSize]byte
		select {
		case sb = <-sectorBufs:
		default:
			sb = new([2 * parity.SectorSize]byte)
		}
		defer func() {
			select {
			case sectorBufs <- sb:
			default:
			}
		}()
		buf = sb[:fe-fs]
	} else {
		buf = make([]byte, fe-fs)
	}
	err := c.readSectors(buf, first, last, fs)
	if err != nil && c.s.heal(c.name, c.size) {
		err = c.readSectors(buf, first, last, fs)
	}
	if err != nil {
		return 0, err
	}
	copy(b, buf[off-fs:])
	return len(b), nil
}

// readSectors reads sectors first..last (starting at file offset fs)
// into buf, with the store's corrected sectors laid over, and checks each.
func (c *checkedIndex) readSectors(buf []byte, first, last int, fs int64) error {
	n, err := c.osIndex.ReadAt(buf, fs)
	if c.s.overlay(c.name, buf, fs, n) == len(buf) {
		err = nil
	} else if err == nil {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return err
	}
	for i := first; i <= last; i++ {
		ss, se := c.sc.SectorSpan(i)
		if !c.sc.SectorOK(i, buf[ss-fs:se-fs]) {
			return corrupt(filepath.Join(c.s.dir, c.name), ss, "index sector checksum mismatch (parity sidecar)")
		}
	}
	return nil
}

// checkIndexReads makes ix read through its sidecar's sector checksums
// when it has a sidecar for the whole file.
func (s *Store) checkIndexReads(ix *indexFile) {
	o, ok := ix.f.(osIndex)
	if !ok {
		return
	}
	name := indexName(ix.num)
	sc, err := parity.OpenMeta(filepath.Join(s.dir, parity.SidecarName(name, 0)))
	if err != nil || sc.Name != name || sc.Off != 0 || sc.Len != ix.size {
		return
	}
	ix.f = &checkedIndex{osIndex: o, s: s, name: name, size: ix.size, sc: sc}
}

// parityBytes sums the sizes of the sidecars of the committed files.
func (s *Store) parityBytes() int64 {
	s.mu.RLock()
	m := s.m
	s.mu.RUnlock()
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range ents {
		if isParityName(e.Name()) && !staleParity(e.Name(), m) {
			if fi, err := e.Info(); err == nil {
				n += fi.Size()
			}
		}
	}
	return n
}

// RedundancyError says that redundancy the archive should have is gone
// or damaged (a parity sidecar missing, COMMIT.copy missing or not the
// commit in force): nothing is lost yet, but damage there would no
// longer be corrected. blockwarc repair writes it again from the intact
// data. It matches ErrRedundancy (errors.Is).
type RedundancyError struct {
	File   string // path of the file whose redundancy is lost
	Reason string // the whole sentence, in the user's terms
}

func (e *RedundancyError) Error() string { return e.Reason }

// Is makes errors.Is(err, ErrRedundancy) true.
func (e *RedundancyError) Is(target error) bool { return target == ErrRedundancy }

// gap is a committed range of file name that no sidecar protects.
type gap struct {
	name     string
	from, to int64
}

// missingParity lists the committed ranges of m that should have parity
// and have none (docs/FORMAT.md "Parity", "Lost redundancy"). Which
// sidecars should exist follows from the commit: every committed pack
// byte and every index is protected by the commit that made it final,
// so the sidecars of a file cover it whole, from 0 to its committed
// length. The archive records nothing of -parity=false: an archive with
// no sidecar of any committed file was written without parity (or
// before it existed), and nothing is missing; once any committed file
// has a sidecar, every committed range without one is missing parity
// (an ingest with -parity=false into an archive with parity leaves such
// ranges too: repair protects them). A file with no sidecar at all
// whose header version is older than what this writer writes (packs
// before format 4, indexes before version 5) is not named: an older
// blockwarc wrote it, before parity existed or with -parity=false, and
// extending the archive (new packs and indexes beside the old ones) does
// not make it missing. A file of the current version with no sidecar,
// or any file whose sidecars leave a gap, is named.
//
// A sidecar counts when its name parses and its range lies within the
// committed length (staged ones, NAME.par.next, included: the next
// writer or repair installs them); one that does not open counts for
// the range from its start to the next sidecar (Verify names it as
// unreadable, and repair rewrites it).
func missingParity(dir string, m *manifest) ([]gap, error) {
	return parityGaps(dir, m, true)
}

// parityGaps is missingParity; with lenient unset, every committed range
// without a sidecar is a gap, in an archive with no sidecar at all and in
// files an older writer left without one too (ParityCoverage).
func parityGaps(dir string, m *manifest, lenient bool) ([]gap, error) {
	limits := make(map[string]int64, len(m.packs)+len(m.indexes))
	var names []string
	for _, p := range m.packs {
		limits[packName(p.num)] = p.size
		names = append(names, packName(p.num))
	}
	for _, r := range m.indexes {
		limits[indexName(r.num)] = r.size
		names = append(names, indexName(r.num))
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	type span struct {
		off, end int64 // end -1: unknown (the sidecar does not open)
	}
	cover := make(map[string][]span)
	found := false
	for _, e := range ents {
		sc := strings.TrimSuffix(e.Name(), nextSuffix)
		f, off, ok := parity.ParseSidecarName(sc)
		limit, committed := limits[f]
		if !ok || !committed || off >= limit {
			continue
		}
		meta, err := parity.OpenMeta(filepath.Join(dir, e.Name()))
		switch {
		case err != nil:
			cover[f] = append(cover[f], span{off, -1})
		case meta.Name == f && meta.Off == off && meta.Off+meta.Len <= limit:
			cover[f] = append(cover[f], span{off, off + meta.Len})
		default:
			continue
		}
		found = true
	}
	if !found && lenient {
		return nil, nil
	}
	var out []gap
	for _, name := range names {
		limit := limits[name]
		sp := cover[name]
		if len(sp) == 0 && lenient && olderWriter(dir, name) {
			continue
		}
		sort.Slice(sp, func(i, j int) bool { return sp[i].off < sp[j].off || sp[i].off == sp[j].off && sp[i].end > sp[j].end })
		at := int64(0)
		for i, s := range sp {
			if s.end < 0 {
				s.end = limit
				if i+1 < len(sp) {
					s.end = max(sp[i+1].off, s.off)
				}
			}
			if s.off > at {
				out = append(out, gap{name, at, s.off})
			}
			at = max(at, s.end)
		}
		if at < limit {
			out = append(out, gap{name, at, limit})
		}
	}
	return out, nil
}

// ParityCoverage says how far the parity sidecars protect the committed
// archive: Files counts its committed packs and indexes, Unprotected
// names those with committed bytes no sidecar covers (all of them in an
// archive written with -parity=false). COMMIT needs none: COMMIT.copy
// replicates it (Verify checks the copy). A sidecar that is there is
// counted whether or not it reads: Verify says which do not.
type ParityCoverage struct {
	Files       int
	Unprotected []string
}

// ParityCoverage reports the parity coverage of the commit in force.
func (s *Store) ParityCoverage() (ParityCoverage, error) {
	s.mu.RLock()
	m := s.m
	s.mu.RUnlock()
	c := ParityCoverage{Files: len(m.packs) + len(m.indexes)}
	gaps, err := parityGaps(s.dir, m, false)
	for _, g := range gaps {
		if !slices.Contains(c.Unprotected, g.name) {
			c.Unprotected = append(c.Unprotected, g.name)
		}
	}
	return c, err
}

// olderWriter reports whether pack or index file name has a header of
// an older version than this writer writes (false when the header does
// not read: the file's own checks name that).
func olderWriter(dir, name string) bool {
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return false
	}
	defer f.Close()
	var h [8]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return false
	}
	v := fileVersion(h[:])
	if strings.HasSuffix(name, ".idx") {
		return string(h[:4]) == indexMagic && v < currentIndex
	}
	return string(h[:4]) == packMagic && v < formatVersion
}

// missingParityError is the problem Verify reports for g.
func missingParityError(dir string, g gap) error {
	return &RedundancyError{File: filepath.Join(dir, g.name), Reason: fmt.Sprintf(
		"parity of %s bytes %d..%d is missing: a damaged sector there can no longer be corrected; run blockwarc repair (it writes the parity again from the intact bytes)",
		filepath.Join(dir, g.name), g.from, g.to)}
}

// verifyRedundancy names the redundancy of m that is gone: sidecars
// missing (missingParity) and COMMIT.copy missing or not the commit in
// force (Verify calls it after verifyParity, which names damaged and
// unreadable sidecars). A file a writer deleted since m was read (an
// index merged away) is not named.
func (s *Store) verifyRedundancy(m *manifest, problem func(error)) {
	gaps, err := missingParity(s.dir, m)
	if err != nil {
		problem(err)
	}
	var cur *manifest
	for _, g := range gaps {
		if _, err := os.Stat(filepath.Join(s.dir, g.name)); err != nil {
			continue // the file itself is missing: its checks name it
		}
		if cur == nil {
			cur, _ = readManifestFile(filepath.Join(s.dir, commitName))
		}
		if cur != nil && cur.seq != m.seq {
			if again, _ := missingParity(s.dir, cur); !slices.Contains(again, g) {
				continue // a writer changed it meanwhile
			}
		}
		problem(missingParityError(s.dir, g))
	}
	if err := commitCopyProblem(s.dir); err != nil {
		problem(err)
	}
	if err := s.settingsObjectProblem(m); err != nil {
		problem(err)
	}
}

// commitCopyProblem says what is wrong with COMMIT.copy as the replica
// of COMMIT (nil when it is one): missing, of another generation than
// COMMIT and the one before it (what a crash between the two renames
// leaves, and the next Begin rewrites), or of the same generation with
// other bytes. A copy that fails its checks is named by Verify's check
// of both commit files, and a damaged COMMIT too: neither is repeated
// here. An archive last written before the copy existed (COMMIT of
// version 2 and no parity sidecar at all) has none, and is not named.
func commitCopyProblem(dir string) error {
	cb, err := os.ReadFile(filepath.Join(dir, commitName))
	if err != nil {
		return nil
	}
	c1, err := decodeManifest(cb, filepath.Join(dir, commitName))
	if err != nil {
		return nil
	}
	copyPath := filepath.Join(dir, commitCopy)
	kb, err := os.ReadFile(copyPath)
	if errors.Is(err, os.ErrNotExist) {
		// Generation 0 is a new, empty archive: a crash between writing
		// COMMIT and its copy leaves it so (the first Begin writes the
		// copy), and it holds nothing a lost copy would lose.
		if fileVersion(cb) == 2 && !hasAnySidecar(dir) || c1.seq == 0 {
			return nil
		}
		return &RedundancyError{File: copyPath, Reason: fmt.Sprintf(
			"%s is missing: a damaged COMMIT could no longer be read from its copy (the archive's list of files would be lost); run blockwarc repair (it writes the copy again from COMMIT)", copyPath)}
	}
	if err != nil {
		return &RedundancyError{File: copyPath, Reason: fmt.Sprintf("%s: %v; run blockwarc repair", copyPath, err)}
	}
	c2, err := decodeManifest(kb, copyPath)
	if err != nil {
		return nil
	}
	switch {
	case c2.seq == c1.seq && !bytes.Equal(cb, kb), c2.seq > c1.seq, c2.seq+1 < c1.seq:
		return &RedundancyError{File: copyPath, Reason: fmt.Sprintf(
			"%s (generation %d) is not a copy of COMMIT (generation %d): a damaged COMMIT could no longer be read from its copy; run blockwarc repair (it writes the copy again from COMMIT)", copyPath, c2.seq, c1.seq)}
	}
	return nil
}

// hasAnySidecar reports whether dir holds a parity sidecar of any pack
// or index.
func hasAnySidecar(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if isParityName(e.Name()) {
			return true
		}
	}
	return false
}

// WithoutParity reports whether the archive in dir was written without
// parity: its commit names files and no sidecar of any of them is there
// (ingest -parity=false, or a blockwarc before parity). A repair writes
// none into such an archive either (Repair, RebuildIndexes, and
// dedupe.Reingest follow it): a few sidecars beside files without any
// would make Verify name the rest as missing parity.
func WithoutParity(dir string) bool {
	m, _, err := readManifest(dir)
	if err != nil || len(m.packs)+len(m.indexes) == 0 {
		return false
	}
	return !hasParity(dir, m)
}

// hasParity reports whether dir holds a sidecar of a file m names.
func hasParity(dir string, m *manifest) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	named := make(map[string]bool, len(m.packs)+len(m.indexes))
	for _, p := range m.packs {
		named[packName(p.num)] = true
	}
	for _, r := range m.indexes {
		named[indexName(r.num)] = true
	}
	for _, e := range ents {
		if f, _, ok := parity.ParseSidecarName(strings.TrimSuffix(e.Name(), nextSuffix)); ok && named[f] {
			return true
		}
	}
	return false
}
