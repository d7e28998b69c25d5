package pack

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/blockwarc/blockwarc/dedupe/internal/testhooks"
	"github.com/klauspost/compress/zstd"
)

// Options tune a Store and its Writers. The zero value gives the defaults.
// Only the writer-side options influence the bytes written; a reader needs
// MaxChain at least as large as the writer's.
type Options struct {
	// FrameSize is the plaintext size at which the writer closes a frame
	// on its own (default 512 KiB). Restoring one object decompresses at
	// most one frame of this size, plus its bases'.
	FrameSize int
	// MaxChain bounds the delta depth (default 8): the writer does not
	// build deeper chains, the reader refuses them.
	MaxChain int
	// MaxBases bounds the bases of one frame (default 16, at most 64).
	MaxBases int
	// MaxDict bounds the summed size of a frame's bases (default 4 MiB).
	MaxDict int
	// PackSize is the size after which the writer starts a new pack
	// (default 1 GiB).
	PackSize int64
	// Level is the zstd level (default zstd.SpeedBestCompression, which in
	// a cgo build means the reference library's level 19).
	Level zstd.EncoderLevel
	// CacheBytes bounds each of the two caches of decoded frames, of
	// objects and of chunks (default 32 MiB); each always keeps the frame
	// decoded last, even a larger one. Buffers of
	// frames gone from the cache are kept for later decodes, up to as
	// many bytes again (at least 16, at most 64 MiB).
	CacheBytes int64
	// Cache, when set, holds the decoded frames instead, shared with
	// the other Stores opened with it (CacheBytes is then unused): the
	// successive views of a read-only server. A Store with a Cache is
	// read-only (Begin refuses it): a writer's uncommitted frames must
	// never reach other readers.
	Cache *Cache
	// NearReach lets Writer.AddNear take a base that is not free when a
	// full frame plus the frames its bases need stay within this many
	// plaintext bytes to decode (default 4 × FrameSize; negative: free
	// bases only). It trades restore work for cross-URL context; see
	// docs/FORMAT.md "Free bases" for what it does on the corpus.
	NearReach int64

	// Workers sets how many frames the writer compresses at once (default
	// 1: in Flush, on the caller's goroutine; more: in the background while
	// the caller goes on, Workers + 1 at most). Output bytes do not depend
	// on it. At the default level
	// each worker holds about 60–90 MB of reference-library state while it
	// compresses a frame (outside the Go heap), else up to two pure-Go
	// encoders of about 70 MB each.
	Workers int
	// Plain stores every object whole in frames, as format 2 did
	// (format 3 otherwise stores all but catalog segments as chunks,
	// docs/FORMAT.md "Chunked objects"): tests of the frame and delta
	// layer, and comparisons with the old layout.
	Plain bool
	// ChunkTable, ChainBytes, DigestMin and CaptureFrames set the
	// archive's Settings (see there; SeedBytes is for tests:
	// SetTestHooks; KeepSettings takes all of an archive's): Create records them
	// (zero: the defaults);
	// given non-zero to a writer of an existing archive, they replace
	// the recorded ones from its next commit on. Never derive them from
	// the machine (memory, cores): the archive's bytes would then depend
	// on it.
	//
	// ChunkTable: the writer's table of chunk hashes, in entries.
	ChunkTable int
	// ChainBytes bounds a chain of frames of chunks (0 the default,
	// chunk.DefaultFrameSize; negative no chains: every frame of chunks
	// compressed alone, a restore decodes no frame's chain). See
	// docs/FORMAT.md "Chains of frames of chunks"; ingest -chain. At
	// most MaxChainBytes.
	ChainBytes int
	// DigestMin: objects of at least this many bytes get digest rows
	// (0 the default, DefaultDigestMin; negative none).
	DigestMin int
	// CaptureFrames bounds the frames of chunks one capture's objects
	// decode together (Settings.CaptureFrames; 0: the archive's, none
	// for a new one; negative: none from the next commit on).
	CaptureFrames int
	// NoParity: commits write no parity sidecars (docs/FORMAT.md
	// "Parity"). Reads use the sidecars that are there either way.
	NoParity bool
	// hooks are the tests' (SetTestHooks): fault injection, and the
	// archive setting SeedBytes.
	hooks testhooks.Pack

	noSync bool // tests only: skip fsync
}

// SetTestHooks sets the hooks only tests set (testhooks.Pack: fault
// injection, the archive setting SeedBytes). The type is
// internal to dedupe/: no caller outside the archive's packages can
// give one.
func (o *Options) SetTestHooks(h testhooks.Pack) {
	o.hooks = h
}

// fault is what the Faults hook says of op on path, as the *fs.PathError
// the system would give.
func (o *Options) fault(op, path string) error {
	if o.hooks.Faults == nil {
		return nil
	}
	if err := o.hooks.Faults(op, path); err != nil {
		return &fs.PathError{Op: op, Path: path, Err: err}
	}
	return nil
}

// NativeMemory is how much memory outside the Go heap a Writer with
// these options may hold at once: the reference zstd library's state for
// each frame compressing (a context of about 90 MiB at level 19, plus a
// digested dictionary that the library frees only when the Go collector
// finalizes it: 160 MiB is what keeps ingest's peak RSS within -mem +
// 256 MiB, BenchmarkIngestRSS) and for each frame of chunks compressing,
// 0 in a build without cgo. Callers that
// bound the Go heap (debug.SetMemoryLimit) leave this much room.
func (o Options) NativeMemory() int64 {
	o = o.withDefaults()
	if !haveLibzstd || o.Level != zstd.SpeedBestCompression {
		return 0
	}
	n := int64(o.Workers)
	if n > 1 {
		n++ // Writer.Flush lets Workers + 1 frames compress
	}
	// Frames of chunks compress beside the pack's frames, each in a
	// context of its own (startChunks).
	return n*160<<20 + int64(min(chunkFrames, o.Workers))*chunkFrameNative
}

// chunkFrameNative is what the reference library holds while it
// compresses one frame of chunks at level 19: a context of about 70 MiB
// with a 4 MiB dictionary (the chain before it), rounded up.
const chunkFrameNative = 80 << 20

// settings are the Settings o gives explicitly (zero fields unset).
func (o *Options) settings() Settings {
	return Settings{ChunkTable: o.ChunkTable, SeedBytes: o.hooks.SeedBytes, ChainBytes: o.ChainBytes, DigestMin: o.DigestMin,
		CaptureFrames: o.CaptureFrames}
}

func (o Options) withDefaults() Options {
	if o.FrameSize <= 0 {
		o.FrameSize = 512 << 10
	}
	if o.FrameSize > maxFramePlain/2 {
		o.FrameSize = maxFramePlain / 2
	}
	if o.MaxChain <= 0 {
		o.MaxChain = 8
	}
	if o.MaxChain > 255 {
		o.MaxChain = 255
	}
	if o.MaxBases <= 0 {
		o.MaxBases = 16
	}
	if o.MaxBases > maxBases {
		o.MaxBases = maxBases
	}
	if o.MaxDict <= 0 {
		o.MaxDict = 4 << 20
	}
	if o.PackSize <= 0 {
		o.PackSize = 1 << 30
	}
	if o.Level == 0 {
		o.Level = zstd.SpeedBestCompression
	}
	if o.NearReach == 0 {
		o.NearReach = 4 * int64(o.FrameSize)
	}
	if o.Workers <= 0 {
		o.Workers = 1
	}
	if o.Workers > 64 {
		o.Workers = 64
	}
	if o.CacheBytes <= 0 {
		o.CacheBytes = 32 << 20
	}
	return o
}

// maxDecodes bounds the frames one lookup may decompress (itself and all
// its bases, recursively), whatever the data says.
const maxDecodes = 512

// Store is a read view of an archive at its last commit (as of Open or of
// the last Commit of its own Writer). It is safe for concurrent use.
type Store struct {
	dir   string
	opts  Options
	cache *frameCache
	ns    uint32 // the directory's namespace in opts.Cache (0 without)
	decs  chan *decoder

	decoded atomic.Int64 // plaintext bytes decompressed, for DecodedBytes

	mu     sync.RWMutex
	m      *manifest
	packs  map[uint32]int64 // committed lengths
	idx    []*indexFile     // oldest first
	closed bool
	writer *Writer
	// recovered says why the commit was read from COMMIT.copy ("" when
	// COMMIT was good): Recovered.
	recovered string

	fmu   sync.Mutex
	files map[uint32]*os.File // pack read handles

	cv *chunkView // the chunks of the current view, read on first use
	// retired holds index files of earlier views still open (install).
	retired []*indexFile
	par     parityState // corrections through parity (parity.go)

	// Set by RebuildCommit on the store that rebuilds the indexes: the
	// number the new index gets at least, and the step that gives the
	// commit its payload and checks it before it is published.
	nextIndex     uint32
	beforePublish func(*manifest) error
}

// Create makes a new, empty archive in dir (created if missing; it must
// not already hold an archive), with short ids, and opens it.
func Create(dir string, opts Options) (*Store, error) {
	set := opts.settings().withDefaults()
	if err := set.check(); err != nil {
		return nil, fmt.Errorf("create archive %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("create archive: %w", err)
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	defer unlock(lock)
	if _, err := os.Stat(filepath.Join(dir, commitName)); err == nil {
		return nil, fmt.Errorf("create archive %s: %w", dir, fs.ErrExist)
	}
	if err := publishManifest(dir, &manifest{short: true, settings: &set}, &opts); err != nil {
		return nil, fmt.Errorf("create archive %s: %w", dir, err)
	}
	return Open(dir, opts)
}

// Open opens the archive in dir at its last commit. Bytes that an
// interrupted writer left beyond the commit are ignored.
func Open(dir string, opts Options) (*Store, error) {
	s := &Store{
		dir:   dir,
		opts:  opts.withDefaults(),
		files: make(map[uint32]*os.File),
		decs:  make(chan *decoder, runtime.GOMAXPROCS(0)),
	}
	if c := s.opts.Cache; c != nil {
		ns, err := c.namespace(dir)
		if err != nil {
			return nil, fmt.Errorf("open archive: %w", err)
		}
		s.cache, s.ns = c.frames, ns
	} else {
		s.cache = newFrameCache(s.opts.CacheBytes)
	}
	if err := s.reload(); err != nil {
		return nil, err
	}
	return s, nil
}

// Reload moves the view to the archive's latest commit, e.g. one a writer
// in another process published since Open.
func (s *Store) Reload() error {
	s.mu.RLock()
	closed := s.closed
	s.mu.RUnlock()
	if closed {
		return ErrClosed
	}
	return s.reload()
}

// reload reads COMMIT and opens the indexes it names. A writer compacting
// indexes may remove a file between the two steps, so a vanished index
// makes it read COMMIT again.
func (s *Store) reload() error {
	var err error
	for try := 0; try < 5; try++ {
		var m *manifest
		var recovered string
		if m, recovered, err = readManifest(s.dir); err != nil {
			return err
		}
		s.mu.Lock()
		s.recovered = recovered
		s.mu.Unlock()
		var idx []*indexFile
		idx, err = s.openIndexes(m)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		s.install(m, idx)
		return nil
	}
	return err
}

func (s *Store) openIndexes(m *manifest) ([]*indexFile, error) {
	s.mu.RLock()
	have := make(map[uint32]*indexFile, len(s.idx))
	for _, ix := range s.idx {
		have[ix.num] = ix
	}
	s.mu.RUnlock()
	idx := make([]*indexFile, 0, len(m.indexes))
	for _, r := range m.indexes {
		if ix := have[r.num]; ix != nil && ix.size == r.size {
			idx = append(idx, ix)
			continue
		}
		ix, err := s.openIndexHealed(r.num, r.size, false)
		if err == nil && int(ix.lay.id) != m.idLen() {
			ix.f.Close()
			err = corrupt(ix.path, ix.size-trailerSize+15, "index has %d-byte ids, the archive %d-byte ones", ix.lay.id, m.idLen())
		}
		if err != nil {
			for _, o := range idx {
				if have[o.num] != o {
					o.f.Close()
				}
			}
			return nil, err
		}
		idx = append(idx, ix)
	}
	return idx, nil
}

// install makes (m, idx) the current view; index files no longer named are
// closed.
func (s *Store) install(m *manifest, idx []*indexFile) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keep := make(map[*indexFile]bool, len(idx))
	for _, ix := range idx {
		keep[ix] = true
	}
	for _, ix := range s.idx {
		if !keep[ix] {
			ix.retire()
			s.retired = append(s.retired, ix)
		}
	}
	// Those a chunk directory still reads stay open until it is dropped
	// (lazyDirectory), and are closed by Close at the latest.
	s.retired = slices.DeleteFunc(s.retired, func(ix *indexFile) bool { return !ix.lingers() })
	s.m, s.idx = m, idx
	s.cv = &chunkView{}
	s.packs = make(map[uint32]int64, len(m.packs))
	for _, p := range m.packs {
		s.packs[p.num] = p.size
	}
}

// Close releases open files. A Writer still open is closed first.
func (s *Store) Close() error {
	s.mu.Lock()
	w := s.writer
	s.mu.Unlock()
	if w != nil {
		w.Close()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	for _, ix := range slices.Concat(s.idx, s.retired) {
		ix.shut()
	}
	s.retired = nil
	s.fmu.Lock()
	for _, f := range s.files {
		f.Close()
	}
	s.fmu.Unlock()
	for {
		select {
		case d := <-s.decs:
			d.d.Close()
		default:
			return nil
		}
	}
}

// Recovered says, when COMMIT was unreadable and its copy served
// instead, what was wrong ("" otherwise). Callers say it loudly; the
// next commit rewrites both files.
func (s *Store) Recovered() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.recovered
}

// Dir returns the archive directory.
func (s *Store) Dir() string { return s.dir }

// Sum returns the id of an object whose plaintext is data, as this archive
// names objects: its SHA-256, cut to ShortID bytes in an archive with
// short ids (docs/FORMAT.md "Object ids"). Get, Has and Stat accept a
// whole SHA-256 as well.
func (s *Store) Sum(data []byte) ID { return Sum(data).truncate(s.idLen()) }

// idLen is the length of the archive's ids (ShortID or 32).
func (s *Store) idLen() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.m == nil {
		return len(ID{})
	}
	return s.m.idLen()
}

// Seq returns the sequence number of the commit the store sees.
func (s *Store) Seq() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.m.seq
}

// Payload returns a copy of the caller payload of the commit the store sees.
func (s *Store) Payload() []byte {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return bytes.Clone(s.m.payload)
}

// snapshot returns the current indexes, pinned so that a concurrent
// commit that merges them away does not close them while in use, and the
// committed pack lengths. release unpins.
func (s *Store) snapshot() ([]*indexFile, map[uint32]int64, func(), error) {
	_, idx, packs, release, err := s.snapshotAll()
	return idx, packs, release, err
}

// snapshotAll is snapshot that also returns the commit the view belongs to.
func (s *Store) snapshotAll() (*manifest, []*indexFile, map[uint32]int64, func(), error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, nil, nil, nil, ErrClosed
	}
	idx := s.idx
	for _, ix := range idx {
		ix.pin()
	}
	return s.m, idx, s.packs, func() {
		for _, ix := range idx {
			ix.unpin()
		}
	}, nil
}

// loc is where an object lives.
type loc struct {
	frameRow
	objOff, objLen uint32
	kind           Kind
	limit          int64 // readable length of the pack
}

// locator resolves ids: the store's committed view, or a writer's view
// that also sees its uncommitted frames.
type locator interface {
	locate(id ID) (loc, bool, error)
}

func (s *Store) locate(id ID) (loc, bool, error) {
	idx, packs, release, err := s.snapshot()
	if err != nil {
		return loc{}, false, err
	}
	defer release()
	var buf [maxEntrySize]byte
	for i := len(idx) - 1; i >= 0; i-- {
		ix := idx[i]
		e, ok, err := ix.find(id, buf[:])
		if err != nil {
			return loc{}, false, err
		}
		if !ok {
			continue
		}
		row, err := ix.frame(e.frame, buf[:])
		if err != nil {
			return loc{}, false, err
		}
		limit, ok := packs[row.pack]
		if !ok {
			return loc{}, false, corrupt(ix.path, 0, "entry for %s names pack %d, which the commit does not list", id, row.pack)
		}
		return loc{frameRow: row, objOff: e.off, objLen: e.len, kind: e.kind, limit: limit}, true, nil
	}
	return loc{}, false, nil
}

// Locate says where the committed object id is stored: the pack file's
// name, and the offset and length of its frame in it (a chunked object:
// of the frame that holds its chunk list). ErrNotFound when no index
// names it. For diagnostics and tests that damage one object's frame.
func (s *Store) Locate(id ID) (file string, frameOff int64, frameLen int, err error) {
	if n, ok := id.Place(); ok {
		// The frame of its place record.
		cr, err := s.chunks()
		if err != nil {
			return "", 0, 0, err
		}
		dir := cr.Frames()
		i, f, err := dir.Find(n)
		if err != nil {
			return "", 0, 0, err
		}
		if i < 0 {
			return "", 0, 0, fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		file, off := s.chunkFrameAt(dir, n)
		return filepath.Base(file), off, int(f.Size) + frameFixedSize + 4, nil
	}
	l, ok, err := s.locate(id)
	if err != nil {
		return "", 0, 0, err
	}
	if !ok {
		return "", 0, 0, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return packName(l.pack), l.off, int(l.len), nil
}

// RefLen is the length of a short reference to an object: the first
// RefLen bytes of its id (see Resolve and Writer.Unique).
const RefLen = 6

// Resolve returns the id of the oldest committed object whose id starts
// with prefix (1 to 32 bytes): the one written first (lowest pack number,
// then offset in the pack, then offset in its frame). Objects are never
// moved or removed, so a prefix that named a single object when it was
// written (Writer.Unique) names that object forever, however many objects
// sharing it are added later. ErrNotFound when none has it.
func (s *Store) Resolve(prefix []byte) (ID, error) {
	if len(prefix) == 0 || len(prefix) > len(ID{}) {
		return ID{}, fmt.Errorf("resolve: prefix of %d bytes", len(prefix))
	}
	idx, _, release, err := s.snapshot()
	if err != nil {
		return ID{}, err
	}
	defer release()
	var buf [maxEntrySize]byte
	var best ID
	var bestLoc [3]int64
	found := false
	for _, ix := range idx {
		err := ix.findPrefix(prefix, buf[:], func(e entry) error {
			var rb [frameRowSize]byte
			row, err := ix.frame(e.frame, rb[:])
			if err != nil {
				return err
			}
			l := [3]int64{int64(row.pack), row.off, int64(e.off)}
			if !found || l[0] < bestLoc[0] || l[0] == bestLoc[0] && (l[1] < bestLoc[1] || l[1] == bestLoc[1] && l[2] < bestLoc[2]) {
				best, bestLoc, found = e.id, l, true
			}
			return nil
		})
		if err != nil {
			return ID{}, fmt.Errorf("resolve %x: %w", prefix, err)
		}
		if found {
			// Index files are in commit order and every object of one was
			// written before any object of a later one (merges join
			// neighbours only), so the first index with a match holds the
			// oldest.
			break
		}
	}
	if !found {
		return ID{}, fmt.Errorf("resolve %x: %w", prefix, ErrNotFound)
	}
	return best, nil
}

// othersWithPrefix counts the committed objects other than id whose ids
// start with prefix.
func (s *Store) othersWithPrefix(id ID, prefix []byte) (int, error) {
	idx, _, release, err := s.snapshot()
	if err != nil {
		return 0, err
	}
	defer release()
	var buf [maxEntrySize]byte
	others := 0
	for _, ix := range idx {
		err := ix.findPrefix(prefix, buf[:], func(e entry) error {
			if e.id != id {
				others++
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	return others, nil
}

// NextChunk is the number the committed archive's next chunk takes: how
// many chunk numbers its directory holds.
func (s *Store) NextChunk() (uint64, error) {
	cr, err := s.chunks()
	if err != nil {
		return 0, err
	}
	return cr.Frames().NextChunk(), nil
}

// Has reports whether the committed archive holds id.
func (s *Store) Has(id ID) (bool, error) {
	if n, ok := id.Place(); ok {
		next, err := s.NextChunk()
		return err == nil && n < next, err
	}
	_, ok, err := s.locate(id)
	return ok, err
}

// Stat returns an object's kind and plaintext length from the index
// alone, without reading its frame.
func (s *Store) Stat(id ID) (Kind, int, error) {
	if n, ok := id.Place(); ok {
		_, k, size, _, err := s.placeRecord(id, n)
		if err != nil {
			return 0, 0, fmt.Errorf("stat %s: %w", id, err)
		}
		return k, size, nil
	}
	l, ok, err := s.locate(id)
	if err != nil {
		return 0, 0, fmt.Errorf("stat %s: %w", id, err)
	}
	if !ok {
		return 0, 0, fmt.Errorf("stat %s: %w", id, ErrNotFound)
	}
	return l.kind.plain(), int(l.objLen), nil
}

// GetMany returns fresh copies of the plaintexts of ids, in the order
// given, as Get would. It reads them grouped by frame, so that objects
// sharing a frame (the blocks of a page) cost one decompression even when
// the cache holds a single frame.
func (s *Store) GetMany(ids []ID) ([][]byte, error) {
	type item struct {
		i   int
		pos [2]int64 // pack number, frame offset
	}
	items := make([]item, 0, len(ids))
	var places []int
	for i, id := range ids {
		if _, ok := id.Place(); ok {
			places = append(places, i)
			continue
		}
		l, ok, err := s.locate(id)
		if (err != nil || !ok) && s.healIndexes() {
			l, ok, err = s.locate(id) // a damaged index entry may have hidden it
		}
		if err != nil {
			return nil, fmt.Errorf("get %s: %w", id, err)
		}
		if !ok {
			return nil, fmt.Errorf("get %s: %w", id, ErrNotFound)
		}
		items = append(items, item{i, [2]int64{int64(l.pack), l.off}})
	}
	sort.SliceStable(items, func(a, b int) bool {
		pa, pb := items[a].pos, items[b].pos
		return pa[0] < pb[0] || pa[0] == pb[0] && pa[1] < pb[1]
	})
	out := make([][]byte, len(ids))
	if len(places) > 0 {
		// Restored from their chunks, all at once.
		if err := s.placeObjects(ids, places, out); err != nil {
			return nil, err
		}
	}
	for _, it := range items {
		b, _, err := s.get(s, ids[it.i])
		if err != nil {
			return nil, err
		}
		out[it.i] = b
	}
	return out, nil
}

// Get returns a fresh copy of the object's plaintext and its kind, the
// plaintext checked against id.
func (s *Store) Get(id ID) ([]byte, Kind, error) {
	return s.get(s, id)
}

func (s *Store) get(r locator, id ID) ([]byte, Kind, error) {
	if n, ok := id.Place(); ok {
		b, k, _, err := s.placeObject(id, n)
		if err != nil {
			return nil, 0, fmt.Errorf("get %s: %w", id, err)
		}
		return b, k, nil
	}
	budget := maxDecodes
	b, k, fr, err := s.object(r, id, s.opts.MaxChain, &budget, true)
	if err != nil && s.healIndexes() {
		// A damaged index entry may have hidden or misplaced it.
		budget = maxDecodes
		b, k, fr, err = s.object(r, id, s.opts.MaxChain, &budget, true)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("get %s: %w", id, err)
	}
	b = bytes.Clone(b)
	s.cache.release(fr)
	return b, k, nil
}

// object returns the object's plaintext inside its cached frame (do not
// modify) and that frame, held: the caller must s.cache.release it, and
// not use the plaintext after. chain is how many more base levels may be
// followed.
func (s *Store) object(r locator, id ID, chain int, budget *int, verify bool) ([]byte, Kind, *decodedFrame, error) {
	l, ok, err := r.locate(id)
	if err != nil {
		return nil, 0, nil, err
	}
	if !ok {
		return nil, 0, nil, ErrNotFound
	}
	fr, err := s.frame(r, l.frameRow, l.limit, chain, budget)
	if err != nil {
		return nil, 0, nil, err
	}
	file := filepath.Join(s.dir, packName(l.pack))
	sp, ok := fr.span(l)
	if !ok {
		s.cache.release(fr)
		return nil, 0, nil, corrupt(file, l.off, "index entry for %s (offset %d, length %d, kind %s) matches no object of the frame", id, l.objOff, l.objLen, l.kind.plain())
	}
	b := fr.plain[sp.off : sp.off+sp.len]
	if l.kind&kindRefs != 0 {
		// A chunked object: restored from its chunks into a buffer of
		// its own, so the frame of ref lists is let go here.
		b, err = s.restoreRefs(b, l.objLen, file, l.off, id)
		s.cache.release(fr)
		fr = nil
		if err != nil {
			return nil, 0, nil, err
		}
	}
	if verify && s.Sum(b) != id.truncate(s.idLen()) {
		if fr != nil {
			s.cache.release(fr)
		}
		return nil, 0, nil, corrupt(file, l.off, "object %s: plaintext does not match its id", id)
	}
	return b, l.kind.plain(), fr, nil
}

func (s *Store) packFile(num uint32) (*os.File, error) {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	if f := s.files[num]; f != nil {
		return f, nil
	}
	path := filepath.Join(s.dir, packName(num))
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open pack: %w", err)
	}
	if _, err := s.readChecked(packName(num), f, s.packLimit(num), 0, packHeaderSize, func(h []byte) error {
		return checkFileHeader(h, packMagic, num, path)
	}); err != nil {
		f.Close()
		return nil, err
	}
	s.files[num] = f
	return f, nil
}

// frame returns the decoded frame at row, held (release it), reading,
// checking and decompressing it (and its bases) if it is not cached.
func (s *Store) frame(r locator, row frameRow, limit int64, chain int, budget *int) (*decodedFrame, error) {
	key := frameKey{row.pack, row.off}
	if fr := s.cache.get(cacheKey{s.ns, key}); fr != nil {
		if int(fr.depth) > chain {
			s.cache.release(fr)
			return nil, ErrChainTooLong
		}
		return fr, nil
	}
	if *budget <= 0 {
		return nil, fmt.Errorf("lookup needs more than %d frames: %w", maxDecodes, ErrChainTooLong)
	}
	*budget--
	file := filepath.Join(s.dir, packName(row.pack))
	if row.off < packHeaderSize || row.off+int64(row.len) > limit || row.len < frameFixedSize+4 {
		return nil, corrupt(file, row.off, "frame of %d bytes at %d lies outside the committed pack (%d bytes)", row.len, row.off, limit)
	}
	f, err := s.packFile(row.pack)
	if err != nil {
		return nil, err
	}
	var h frameHeader
	var hl int
	buf, err := s.readChecked(packName(row.pack), f, limit, row.off, int(row.len), func(buf []byte) error {
		if h, hl, err = parseFrameHeader(buf, file, row.off); err != nil {
			return err
		}
		if uint64(hl)+uint64(h.clen) != uint64(row.len) {
			return corrupt(file, row.off, "frame length %d does not match the index (%d)", hl+int(h.clen), row.len)
		}
		if crc(buf[hl:]) != h.dcrc {
			return corrupt(file, row.off, "frame data checksum mismatch")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if h.flags&frameChunks != 0 {
		return nil, corrupt(file, row.off, "frame row names a frame of chunks")
	}
	data := buf[hl:]
	if int(h.depth) > chain {
		return nil, fmt.Errorf("%w: %w", corrupt(file, row.off, "frame delta depth %d exceeds the bound %d", h.depth, chain), ErrChainTooLong)
	}
	var dict []byte
	reach := int64(h.ulen)
	if len(h.bases) > 0 {
		var total uint64
		for _, b := range h.bases {
			total += uint64(b.size)
		}
		if total > maxDictSize {
			return nil, corrupt(file, row.off, "frame bases total %d bytes", total)
		}
		dict = make([]byte, 0, total)
		seen := make(map[frameKey]bool, 2)
		for _, b := range h.bases {
			bl, _, bf, err := s.object(r, b.id, int(h.depth)-1, budget, true)
			if err != nil {
				if errors.Is(err, ErrNotFound) {
					return nil, corrupt(file, row.off, "frame base %s is missing", b.id)
				}
				return nil, fmt.Errorf("read base %s of frame at %s:%d: %w", b.id, file, row.off, err)
			}
			if uint32(len(bl)) != b.size {
				s.cache.release(bf)
				return nil, corrupt(file, row.off, "frame base %s is %d bytes, frame recorded %d", b.id, len(bl), b.size)
			}
			dict = append(dict, bl...)
			if !seen[bf.key] {
				seen[bf.key] = true
				reach += bf.reach
			}
			s.cache.release(bf)
		}
	}
	plain, err := s.decode(data, dict, int(h.ulen))
	if err != nil {
		return nil, corrupt(file, row.off, "decompress frame: %v", err)
	}
	spans, err := parseTable(plain, h.count, file, row.off)
	if err != nil {
		s.cache.give(plain)
		return nil, err
	}
	fr := &decodedFrame{plain: plain, spans: spans, depth: h.depth, reach: reach, key: key}
	return s.cache.put(cacheKey{s.ns, key}, fr), nil
}

func (s *Store) decode(data, dict []byte, ulen int) ([]byte, error) {
	var d *decoder
	select {
	case d = <-s.decs:
	default:
		zd, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true),
			zstd.WithDecoderMaxMemory(maxFramePlain), zstd.WithDecoderMaxWindow(1<<31))
		if err != nil {
			return nil, err
		}
		d = &decoder{d: zd}
	}
	defer func() {
		select {
		case s.decs <- d:
		default:
			d.d.Close()
		}
	}()
	if dict != nil {
		if err := d.d.ResetWithOptions(nil, zstd.WithDecoderDictRaw(dictID, dict)); err != nil {
			return nil, err
		}
		d.hasDict = true
	} else if d.hasDict {
		if err := d.d.ResetWithOptions(nil, zstd.WithDecoderDictDelete(dictID)); err != nil {
			return nil, err
		}
		d.hasDict = false
	}
	buf := s.cache.take(ulen)
	if buf == nil {
		buf = make([]byte, 0, ulen)
	}
	out, err := d.d.DecodeAll(data, buf[:0])
	s.decoded.Add(int64(len(out)))
	if err == nil && len(out) != ulen {
		err = fmt.Errorf("frame decompressed to %d bytes, header says %d", len(out), ulen)
	}
	if err != nil {
		s.cache.give(buf)
		return nil, err
	}
	return out, nil
}

// DecodedBytes is how many frame plaintext bytes the store has
// decompressed since it was opened (cache misses, dictionaries included):
// the machine-independent cost of reads, which benchmarks report.
func (s *Store) DecodedBytes() int64 {
	n := s.decoded.Load()
	// And the frames of chunks (formats 3 and 4), which the chunk reader
	// of the committed view decodes.
	if cr, err := s.chunks(); err == nil {
		n += cr.DecodedBytes()
	}
	return n
}

// decoder is a pooled zstd decoder that remembers whether a dictionary is
// registered, so plain frames skip the option reset.
type decoder struct {
	d       *zstd.Decoder
	hasDict bool
}
