package pack

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/blockwarc/blockwarc/dedupe/chunk"

	"github.com/klauspost/compress/zstd"
)

// Writer appends objects to an archive. It holds the archive lock from
// Begin until Close. Objects become visible to readers, and survive a
// crash, only when Commit returns. A Writer is used by one goroutine.
//
// Errors from writing files are sticky: after one, every call fails and
// the caller should Close and Begin again (the archive stays at its last
// commit).
type Writer struct {
	s    *Store
	opts Options
	lock *archiveLock
	err  error

	m   *manifest // last commit
	set Settings  // the archive's, resolved; recorded by every commit
	// setLost: the settings object the last commit names does not
	// read (lost with its frame): the next commit writes it again.
	setLost   bool
	nextIndex uint32
	pack      *os.File // current pack, nil until the first frame
	packNum   uint32
	packLen   int64
	dirty     map[uint32]int64 // packs written since the last commit

	pending   map[ID]pend
	refs      map[[RefLen]byte]int // pending objects by short reference, for Unique
	frames    []frameRow           // flushed frames since the last commit
	queue     []*frameJob          // flushed, not yet written: the last len(queue) frames
	slots     []*encSlot
	freeSlots []*encSlot // slots no background compression is using
	spare     [][]byte   // buffers of written frames (buffer, recycle)

	building // the frame being built

	hdrBuf []byte

	// Chunked objects (chunks.go); cw is nil when Options.Plain.
	cw        *chunk.Writer
	pendRefs  map[ID][]uint64 // ref lists of the pending chunked objects
	isChunk   []bool          // per frames entry: a frame of chunks
	chunkRows []chunkRow      // chunk frames written since the last commit

	// Place mode (places.go), nil otherwise: the place of each object
	// added or learned since the last commit, by the hash of its bytes,
	// and the ref lists of those places.
	places    map[ID]ID
	placeRefs map[uint64][]uint64

	// Digest rows (digest.go) this commit adds, and their places by
	// representative.
	digests  []digestRow
	pendReps map[[8]byte]uint64
	st       WriterStats
}

// WriterStats count what a Writer found.
type WriterStats struct {
	// DigestHits counts objects found through the digest tables of
	// earlier commits (stored once, whatever the tables held).
	DigestHits int64
	// CaptureMoved counts objects stored again to keep a capture's
	// restore within Settings.CaptureFrames (BoundCapture), and their
	// bytes.
	CaptureMoved      int64
	CaptureMovedBytes int64
}

// Stats returns what the writer found so far.
func (w *Writer) Stats() WriterStats { return w.st }

// building is the frame being built.
type building struct {
	cur     []curObj
	curSize int
	// curBuf holds the bytes of cur's objects (those Add copies), one
	// after the other; emptied when the frame is flushed.
	curBuf   []byte
	bases    []baseRef
	baseData [][]byte
	dictSize int
	curDepth uint8
	// baseReach sums the reach of the distinct frames the bases are in
	// (baseFrames): what a reader decodes for the frame besides itself.
	baseFrames map[frameKey]bool
	baseReach  int64
}

// pend is where an uncommitted object is: in frames[frame], or in the
// frame being built (frame < 0, cur[idx]).
type pend struct {
	frame    int32
	idx      int32
	off, len uint32
	kind     Kind
	plain    uint32 // a chunked object's length (len is its ref list's)
}

type curObj struct {
	id   ID
	kind Kind
	data []byte
}

// Begin takes the archive lock and returns a Writer. It fails with a
// *LockedError (errors.Is(err, ErrLocked)) if another writer, in this or
// another process, holds it. Begin rereads the last commit and removes what
// an interrupted writer left behind.
func (s *Store) Begin() (*Writer, error) {
	s.mu.RLock()
	closed := s.closed
	busy := s.writer != nil
	s.mu.RUnlock()
	if closed {
		return nil, ErrClosed
	}
	if busy {
		return nil, &LockedError{Path: filepath.Join(s.dir, lockName)}
	}
	if s.opts.Cache != nil {
		return nil, ErrSharedCache
	}
	lock, err := lockDir(s.dir)
	if err != nil {
		return nil, err
	}
	if err := s.reload(); err != nil {
		unlock(lock)
		return nil, fmt.Errorf("begin: %w", err)
	}
	s.mu.Lock()
	m := s.m
	s.mu.Unlock()
	if err := cleanup(s.dir, m); err != nil {
		unlock(lock)
		return nil, fmt.Errorf("begin: %w", err)
	}
	// A copy that is missing (an archive from before copies), behind (a
	// crash between the two renames) or damaged is rewritten now, so the
	// archive does not hang on COMMIT alone until the next commit.
	if cm, err := readManifestFile(filepath.Join(s.dir, commitCopy)); err != nil || cm.seq != m.seq {
		if err := publishFile(s.dir, commitCopy, m.encode(), &s.opts); err != nil {
			unlock(lock)
			return nil, fmt.Errorf("begin: %w", err)
		}
	}
	w := &Writer{
		s: s, opts: s.opts, lock: lock, m: m,
		dirty:   make(map[uint32]int64),
		pending: make(map[ID]pend),
		refs:    make(map[[RefLen]byte]int),
	}
	w.set = Settings{}.withDefaults()
	if m.settings != nil {
		w.set = *m.settings
	}
	w.set = w.set.override(s.opts.settings())
	if err := w.set.check(); err != nil {
		unlock(lock)
		return nil, fmt.Errorf("begin: %w", err)
	}
	w.setLost = m.settingsObjectLost(s)
	w.nextIndex = 1
	if n := len(m.indexes); n > 0 {
		w.nextIndex = m.indexes[n-1].num + 1
	}
	if !s.opts.Plain {
		if err := w.startChunks(); err != nil {
			unlock(lock)
			return nil, err
		}
	}
	s.mu.Lock()
	s.writer = w
	s.mu.Unlock()
	return w, nil
}

// cleanup removes the temp commit and the pack and index files the commit
// does not name: leftovers of an interrupted writer (or repair). Only
// names of the archive's own patterns are touched.
func cleanup(dir string, m *manifest) error {
	if err := os.Remove(filepath.Join(dir, commitTemp)); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("remove temp commit: %w", err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("list archive: %w", err)
	}
	named := make(map[string]bool)
	for _, r := range m.packs {
		named[packName(r.num)] = true
	}
	for _, r := range m.indexes {
		named[indexName(r.num)] = true
	}
	for _, e := range ents {
		name := e.Name()
		if strings.HasSuffix(name, nextSuffix) && isParityName(name) {
			if err := settleStaged(dir, name, m); err != nil {
				return fmt.Errorf("install parity %s: %w", name, err)
			}
			continue
		}
		// NAME.tmp of a pack or index is parity.Sidecar.Fix's copy, left
		// by a repair killed before its rename (the file it copies is
		// still there): no pattern took it, and it stayed, a pack's size.
		fixCopy := strings.HasSuffix(name, ".tmp") && ownName(strings.TrimSuffix(name, ".tmp"))
		if named[name] || !ownName(name) && !fixCopy && !(isParityName(name) && staleParity(name, m)) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("remove uncommitted %s: %w", name, err)
		}
	}
	return nil
}

// ownName reports whether name is one this package generates for packs
// and indexes.
func ownName(name string) bool {
	base, ok := strings.CutSuffix(name, ".pack")
	if !ok {
		base, ok = strings.CutSuffix(name, ".idx")
	}
	if !ok || len(base) != 8 {
		return false
	}
	n, err := strconv.ParseUint(base, 16, 32)
	return err == nil && fmt.Sprintf("%08x", n) == base
}

func (w *Writer) usable() error {
	if w.lock == nil {
		return ErrClosed
	}
	return w.err
}

func (w *Writer) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return err
}

// Add stores data (copied) as an object of the given kind in the current
// frame and returns its id; isNew is false when the archive or this writer
// already holds the same bytes, in which case nothing is stored (and the
// kind given first stays the object's kind).
func (w *Writer) Add(kind Kind, data []byte) (id ID, isNew bool, err error) {
	return w.add(kind, data, nil, false)
}

// AddDelta is Add with a hint: base (an object already stored, committed or
// not) resembles data, so the current frame is compressed with base's
// plaintext as dictionary. Reading the object then needs base. If base is
// in the current frame already, or its chain is at Options.MaxChain, the
// object is stored without the dictionary. A missing base is ErrNotFound.
func (w *Writer) AddDelta(kind Kind, data []byte, base ID) (id ID, isNew bool, err error) {
	base = w.canon(base)
	return w.add(kind, data, &base, false)
}

// canon is id as this archive names objects: cut to ShortID bytes in an
// archive with short ids, so that a whole SHA-256 names its object too.
func (w *Writer) canon(id ID) ID { return id.truncate(w.m.idLen()) }

// AddNear is AddDelta for a base that is worth having only when it costs
// readers nothing: base is used only when it is in the frame the object
// goes into, or in the frame of one of that frame's bases already (so
// reading the frame needs no more frames than before), and fits its
// dictionary; else the object is added as by Add. A missing base is not
// an error.
func (w *Writer) AddNear(kind Kind, data []byte, base ID) (id ID, isNew bool, err error) {
	base = w.canon(base)
	return w.add(kind, data, &base, true)
}

// AddSummed is Add (base nil), AddDelta (base set) or AddNear (base set,
// near) of data whose id the caller has computed with Store.Sum: an ingest
// hashes each object once to plan and check its record, and need not hash
// it again. An id that is not data's names data wrongly in the archive:
// only the owner of the Sum may call this.
func (w *Writer) AddSummed(kind Kind, data []byte, id ID, base *ID, near bool) (ID, bool, error) {
	if base != nil {
		b := w.canon(*base)
		base = &b
	}
	return w.addID(kind, data, id, base, near)
}

func (w *Writer) add(kind Kind, data []byte, base *ID, nearOnly bool) (ID, bool, error) {
	return w.addID(kind, data, ID{}, base, nearOnly)
}

// addID adds data under id, or under its Sum when id is zero.
func (w *Writer) addID(kind Kind, data []byte, id ID, base *ID, nearOnly bool) (ID, bool, error) {
	if err := w.usable(); err != nil {
		return ID{}, false, err
	}
	if !kind.Valid() {
		return ID{}, false, fmt.Errorf("add object: invalid kind %d", kind)
	}
	if len(data) > maxFramePlain-16 {
		return ID{}, false, fmt.Errorf("add object: %d bytes is over the limit of %d", len(data), maxFramePlain-16)
	}
	if id == (ID{}) {
		id = w.s.Sum(data)
	}
	if _, ok := w.pending[id]; ok {
		return id, false, nil
	}
	// The catalog and settings objects stay whole: an index rebuilt from
	// the frames names them.
	whole := kind == KindVersionCatalog || isSettingsObject(kind, data)
	if w.places != nil && !whole {
		if p, ok := w.places[id]; ok {
			return p, false, nil
		}
	}
	if ok, err := w.s.Has(id); err != nil {
		return id, false, fmt.Errorf("add object: %w", err)
	} else if ok {
		return id, false, nil
	}
	if w.places != nil && !whole {
		return w.addPlace(kind, data, id, base)
	}
	if w.cw != nil && !whole {
		// The catalog stays whole: finding a URL then decodes its
		// segment alone.
		return w.addChunked(kind, data, id, base)
	}
	if len(w.cur) > 0 && w.curSize+len(data) > w.opts.FrameSize {
		if err := w.Flush(); err != nil {
			return id, false, err
		}
	}
	var bdata []byte
	var bframe baseFrame
	if base != nil && nearOnly {
		free, err := w.near(*base)
		if err == nil && !free {
			// Not free: taken only within reach; fetched once here.
			bdata, bframe, err = w.withinReach(*base)
			if bdata == nil {
				base = nil
			}
		}
		if err != nil {
			return id, false, fmt.Errorf("add delta: base %s: %w", *base, err)
		}
	}
	useBase := false
	if base != nil && *base != id && !w.inDict(*base) {
		if p, ok := w.pending[*base]; !ok || p.frame >= 0 {
			if bdata == nil {
				b, bf, err := w.baseObject(*base)
				if err != nil {
					return id, false, fmt.Errorf("add delta: base %s: %w", *base, err)
				}
				bdata, bframe = b, bf
			}
			useBase = int(bframe.depth) < w.opts.MaxChain && len(bdata) <= w.opts.MaxDict
		}
	}
	if useBase && len(w.cur) > 0 && (len(w.bases) >= w.opts.MaxBases || w.dictSize+len(bdata) > w.opts.MaxDict) {
		if err := w.Flush(); err != nil {
			return id, false, err
		}
	}
	if useBase {
		w.bases = append(w.bases, baseRef{id: *base, size: uint32(len(bdata))})
		w.baseData = append(w.baseData, bdata)
		w.dictSize += len(bdata)
		w.curDepth = max(w.curDepth, bframe.depth+1)
		if !w.baseFrames[bframe.key] {
			if w.baseFrames == nil {
				w.baseFrames = make(map[frameKey]bool)
			}
			w.baseFrames[bframe.key] = true
			w.baseReach += bframe.reach
		}
	}
	w.pending[id] = pend{frame: -1, idx: int32(len(w.cur)), kind: kind}
	w.refs[[RefLen]byte(id[:RefLen])]++
	// Copied into curBuf rather than each into memory of its own: the
	// frame's objects are short-lived and curBuf is reused frame after
	// frame. A curBuf that grows leaves the earlier objects in the old
	// array, which they keep.
	w.curBuf = append(w.curBuf, data...)
	w.cur = append(w.cur, curObj{id: id, kind: kind, data: w.curBuf[len(w.curBuf)-len(data) : len(w.curBuf) : len(w.curBuf)]})
	w.curSize += len(data)
	return id, true, nil
}

// Flush closes the current frame: the next object starts a new one. The
// frame is compressed and appended to the pack now, or, with
// Options.Workers > 1, compressed in the background (at most Workers + 1
// frames at a time) while the caller goes on, and appended in Flush
// order. Flushed objects are still uncommitted.
func (w *Writer) Flush() error {
	if err := w.usable(); err != nil {
		return err
	}
	if len(w.cur) == 0 {
		return nil
	}
	kinds := make([]Kind, len(w.cur))
	lens := make([]int, len(w.cur))
	for i, o := range w.cur {
		kinds[i], lens[i] = o.kind, len(o.data)
	}
	plain := appendTable(w.buffer(tableLen(lens)+w.curSize), kinds, lens)
	seq := int32(len(w.frames))
	for _, o := range w.cur {
		p := w.pending[o.id]
		w.pending[o.id] = pend{frame: seq, off: uint32(len(plain)), len: uint32(len(o.data)), kind: o.kind, plain: p.plain}
		plain = append(plain, o.data...)
	}
	job := &frameJob{seq: int(seq), plain: plain, count: uint32(len(w.cur)), depth: w.curDepth, bases: w.bases,
		reach: int64(len(plain)) + w.baseReach}
	if len(w.bases) > 0 {
		job.dict = w.buffer(w.dictSize)
		for _, b := range w.baseData {
			job.dict = append(job.dict, b...)
		}
	}
	w.frames = append(w.frames, frameRow{}) // filled in when written
	w.isChunk = append(w.isChunk, false)
	w.queue = append(w.queue, job)
	clear(w.cur)
	w.cur = w.cur[:0]
	w.curBuf = w.curBuf[:0]
	w.curSize, w.dictSize, w.curDepth = 0, 0, 0
	w.bases, w.baseData = nil, nil
	w.baseFrames, w.baseReach = nil, 0
	if w.opts.Workers == 1 {
		return w.drain()
	}
	// Several workers: the frame is compressed in the background while
	// the caller goes on building the next ones, and they are written in
	// Flush order. Up to Workers + 1 frames are in flight: a catalog
	// segment flushed right after a data frame then need not wait for
	// the frames before them.
	w.start(job)
	for len(w.queue) > w.opts.Workers+1 {
		if err := w.writeOldest(); err != nil {
			return err
		}
	}
	return nil
}

// ensurePack opens the pack to append to: the last committed one
// (truncated to its committed length) while it is below Options.PackSize,
// else a new one.
func (w *Writer) ensurePack(need int64) error {
	if w.pack != nil && (w.packLen <= packHeaderSize || w.packLen+need <= w.opts.PackSize) {
		return nil
	}
	if w.pack != nil {
		if err := w.syncPack(); err != nil {
			return fmt.Errorf("sync pack %d: %w", w.packNum, err)
		}
		w.pack.Close()
		w.pack = nil
		return w.newPack(w.packNum + 1)
	}
	if n := len(w.m.packs); n > 0 {
		last := w.m.packs[n-1]
		if last.size+need <= w.opts.PackSize {
			path := filepath.Join(w.s.dir, packName(last.num))
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				return fmt.Errorf("open pack: %w", err)
			}
			if st, err := f.Stat(); err != nil || st.Size() < last.size {
				f.Close()
				if err == nil {
					err = corrupt(path, st.Size(), "pack is %d bytes, shorter than its committed length %d", st.Size(), last.size)
				}
				return fmt.Errorf("open pack for append: %w", err)
			}
			var h [packHeaderSize]byte
			if _, err := f.ReadAt(h[:], 0); err != nil || checkFileHeader(h[:], packMagic, last.num, path) != nil || fileVersion(h[:]) != formatVersion {
				// A pack of an older format (or unreadable here) is left
				// as it is: new frames go to a new pack of this version.
				f.Close()
				return w.newPack(last.num + 1)
			}
			if err := f.Truncate(last.size); err != nil {
				f.Close()
				return fmt.Errorf("truncate pack %s to its committed length: %w", path, err)
			}
			w.pack, w.packNum, w.packLen = f, last.num, last.size
			return nil
		}
		return w.newPack(last.num + 1)
	}
	return w.newPack(1)
}

// syncPack makes the current pack durable.
func (w *Writer) syncPack() error {
	if err := w.opts.fault("sync", w.pack.Name()); err != nil {
		return err
	}
	return fsync(w.pack, w.opts.noSync)
}

func (w *Writer) newPack(num uint32) error {
	path := filepath.Join(w.s.dir, packName(num))
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return fmt.Errorf("create pack: %w", err)
	}
	if _, err := f.Write(appendFileHeader(nil, packMagic, num)); err != nil {
		f.Close()
		return fmt.Errorf("write pack %s: %w", path, err)
	}
	w.pack, w.packNum, w.packLen = f, num, packHeaderSize
	w.dirty[num] = packHeaderSize
	return nil
}

// Commit makes every object added so far durable and visible, together
// with payload (opaque to this package, at most 16 MiB), atomically: after
// a crash the archive is either at the previous commit or at this one. The
// writer stays usable for the next commit.
func (w *Writer) Commit(payload []byte) error {
	if err := w.usable(); err != nil {
		return err
	}
	if len(payload) > maxPayload {
		return fmt.Errorf("commit: payload of %d bytes over the limit of %d", len(payload), maxPayload)
	}
	set, setAt := w.set, w.m.setAt
	if w.m.settings == nil || *w.m.settings != set || setAt == 0 || w.setLost {
		// The settings are written again as an object whenever they
		// change (and once in an archive that has none), so that a
		// commit rebuilt after COMMIT and COMMIT.copy are both lost
		// keeps them (docs/FORMAT.md "Settings object").
		setAt = w.m.seq + 1
		if _, _, err := w.add(KindOther, settingsObject(set, setAt), nil, false); err != nil {
			return w.fail(err)
		}
	}
	if w.cw != nil {
		if err := w.cw.Flush(); err != nil {
			return w.fail(err)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := w.drain(); err != nil {
		return err
	}
	if w.pack != nil {
		if err := w.syncPack(); err != nil {
			return w.fail(fmt.Errorf("sync pack %d: %w", w.packNum, err))
		}
	}
	m := &manifest{seq: w.m.seq + 1, short: w.m.short, payload: bytes.Clone(payload),
		indexes: slices.Clone(w.m.indexes), settings: &set, setAt: setAt}
	for _, p := range w.m.packs {
		if n, ok := w.dirty[p.num]; ok {
			p.size = n
		}
		m.packs = append(m.packs, p)
	}
	for num, n := range w.dirty {
		if !slices.ContainsFunc(m.packs, func(r fileRef) bool { return r.num == num }) {
			m.packs = append(m.packs, fileRef{num: num, size: n})
		}
	}
	slices.SortFunc(m.packs, func(a, b fileRef) int { return int(int64(a.num) - int64(b.num)) })
	// A commit of objects named by place alone still lists its frames of
	// chunks.
	wrote := len(w.pending) > 0 || len(w.chunkRows) > 0
	if wrote {
		// Frames of chunks are listed apart (with their chunk numbers):
		// the frame table holds the frames of objects.
		remap := make([]uint32, len(w.frames))
		frames := make([]frameRow, 0, len(w.frames))
		for i, r := range w.frames {
			if !w.isChunk[i] {
				remap[i] = uint32(len(frames))
				frames = append(frames, r)
			}
		}
		entries := make([]entry, 0, len(w.pending))
		for id, p := range w.pending {
			e := entry{id: id, frame: remap[p.frame], off: p.off, len: p.len, kind: p.kind}
			if p.kind&kindRefs != 0 {
				e.len = p.plain
			}
			entries = append(entries, e)
		}
		slices.SortFunc(entries, func(a, b entry) int { return bytes.Compare(a.id[:], b.id[:]) })
		num := w.nextIndex
		size, err := writeIndex(filepath.Join(w.s.dir, indexName(num)), num, entries, frames, w.chunkRows, sortDigests(w.digests), w.m.idLen(), &w.opts)
		if err != nil {
			return w.fail(err)
		}
		m.indexes = append(m.indexes, fileRef{num: num, size: size})
		w.nextIndex++
	}
	var merged []fileRef
	if j := mergeFrom(m.indexes); wrote && j < len(m.indexes) {
		ref, err := w.merge(m.indexes[j:])
		if err != nil {
			return w.fail(err)
		}
		merged = slices.Clone(m.indexes[j:])
		m.indexes = append(m.indexes[:j], ref)
	}
	var st []staged
	if !w.opts.NoParity {
		var err error
		if st, err = protectCommit(w.s.dir, w.m, m, &w.opts); err != nil {
			return w.fail(err)
		}
	}
	// Compare and swap, as git does with refs: publish only over the
	// generation this writer began from. With the lock held nothing else
	// commits; this catches what would slip past a lock (an archive
	// copied or shared in ways flock does not see).
	if cur, _, err := readManifest(w.s.dir); err != nil {
		return w.fail(fmt.Errorf("commit: reread the commit: %w", err))
	} else if cur.seq != w.m.seq {
		return w.fail(&ConflictError{Dir: w.s.dir, Began: w.m.seq, Found: cur.seq})
	}
	if err := publishManifest(w.s.dir, m, &w.opts); err != nil {
		return w.fail(fmt.Errorf("commit: %w", err))
	}
	putStaged(w.s.dir, st, w.opts.noSync)
	for _, r := range merged {
		// Open readers keep their descriptors; a failure leaves a file that
		// the next Begin removes.
		os.Remove(filepath.Join(w.s.dir, indexName(r.num)))
		os.Remove(filepath.Join(w.s.dir, indexName(r.num)+".par"))
	}
	w.m, w.setLost = m, false
	clear(w.pending)
	clear(w.refs)
	clear(w.dirty)
	clear(w.pendRefs)
	clear(w.places)
	clear(w.placeRefs)
	clear(w.pendReps)
	w.digests = w.digests[:0]
	w.frames, w.isChunk, w.chunkRows = w.frames[:0], w.isChunk[:0], w.chunkRows[:0]
	idx, err := w.s.openIndexes(m)
	if err != nil {
		return w.fail(fmt.Errorf("reopen after commit: %w", err))
	}
	w.s.install(m, idx)
	if w.cw != nil {
		// A chunk writer per commit: what the next commit writes depends
		// on the committed archive alone, not on what this writer saw
		// before, so a writer resuming after a crash writes the same
		// bytes as one that went on (docs/FORMAT.md "Determinism").
		if _, err := w.cw.Close(); err != nil {
			return w.fail(err)
		}
		if err := w.startChunks(); err != nil {
			return w.fail(err)
		}
	}
	return nil
}

// merge writes one index replacing refs (see mergeFrom).
func (w *Writer) merge(refs []fileRef) (fileRef, error) {
	ins := make([]*indexFile, 0, len(refs))
	defer func() {
		for _, ix := range ins {
			ix.f.Close()
		}
	}()
	for _, r := range refs {
		// Checked whole (and corrected through parity) first: the merge
		// would otherwise carry a damaged entry into a new checksum.
		ix, err := w.s.openIndexHealed(r.num, r.size, true)
		if err != nil {
			return fileRef{}, fmt.Errorf("merge indexes: %w", err)
		}
		ins = append(ins, ix)
	}
	num := w.nextIndex
	size, err := mergeIndexes(filepath.Join(w.s.dir, indexName(num)), num, ins, &w.opts)
	if err != nil {
		return fileRef{}, err
	}
	w.nextIndex++
	return fileRef{num: num, size: size}, nil
}

// Unique reports whether id is the only object, committed or added to
// this writer, whose id starts with id[:RefLen]: then the short reference
// id[:RefLen] names it, through Store.Resolve, from now on. id must be
// stored (committed or added).
func (w *Writer) Unique(id ID) (bool, error) {
	if err := w.usable(); err != nil {
		return false, err
	}
	id = w.canon(id)
	n := w.refs[[RefLen]byte(id[:RefLen])]
	if _, ok := w.pending[id]; ok {
		n-- // itself
	}
	if n > 0 {
		return false, nil
	}
	others, err := w.s.othersWithPrefix(id, id[:RefLen])
	if err != nil {
		return false, fmt.Errorf("check reference of %s: %w", id, err)
	}
	return others == 0, nil
}

// pendingPack marks the frame keys frameOf gives this writer's own
// frames: their sequence number stands for the offset, so that a frame
// has the same key before and after it is written.
const pendingPack = ^uint32(0)

// FrameBytes returns the plaintext bytes of the objects in the frame
// being built (0 right after Flush).
func (w *Writer) FrameBytes() int { return w.curSize }

// Has reports whether id is stored, committed or not.
func (w *Writer) Has(id ID) (bool, error) {
	id = w.canon(id)
	if _, ok := w.pending[id]; ok {
		return true, nil
	}
	if n, ok := id.Place(); ok && w.placeRefs[n] != nil {
		return true, nil
	}
	return w.s.Has(id)
}

// Get is Store.Get that also sees this writer's uncommitted objects.
func (w *Writer) Get(id ID) ([]byte, Kind, error) {
	if err := w.usable(); err != nil {
		return nil, 0, err
	}
	id = w.canon(id)
	if p, ok := w.pending[id]; ok && p.frame < 0 {
		o := w.cur[p.idx]
		return bytes.Clone(o.data), o.kind, nil
	}
	return w.s.get(w, id)
}

func (w *Writer) locate(id ID) (loc, bool, error) {
	id = w.canon(id)
	if p, ok := w.pending[id]; ok {
		if p.frame < 0 {
			return loc{}, false, errors.New("object is in the unflushed frame")
		}
		if int(p.frame) >= len(w.frames)-len(w.queue) {
			if err := w.drain(); err != nil {
				return loc{}, false, err
			}
		}
		row := w.frames[p.frame]
		n := p.len
		if p.kind&kindRefs != 0 {
			n = p.plain
		}
		return loc{frameRow: row, objOff: p.off, objLen: n, kind: p.kind, limit: row.off + int64(row.len)}, true, nil
	}
	return w.s.locate(id)
}

// Close discards everything added since the last Commit and releases the
// lock. The bytes already appended to a pack stay on disk beyond its
// committed length until the next writer truncates them.
func (w *Writer) Close() error {
	if w.lock == nil {
		return nil
	}
	w.wait() // background compressions use the slots and the store
	if w.cw != nil {
		w.cw.Abort()
		w.cw = nil
	}
	if len(w.pending) > 0 || len(w.frames) > 0 {
		w.s.cache.purge()
	}
	if w.pack != nil {
		w.pack.Close()
		w.pack = nil
	}
	for _, sl := range w.slots {
		for _, e := range []*zstd.Encoder{sl.by[0][0], sl.by[0][1], sl.by[1][0], sl.by[1][1]} {
			if e != nil {
				e.Close()
			}
		}
		sl.ctx.Close()
	}
	w.queue = nil
	unlock(w.lock)
	w.lock = nil
	w.s.mu.Lock()
	if w.s.writer == w {
		w.s.writer = nil
	}
	w.s.mu.Unlock()
	return nil
}
