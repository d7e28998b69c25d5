package chunk

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"runtime"
	"slices"

	"github.com/blockwarc/blockwarc/internal/zstdlib"

	"github.com/klauspost/compress/zstd"
)

// Defaults of Options.
const (
	DefaultAvgChunk     = 512
	DefaultFrameSize    = 4 << 20
	DefaultMaxFrames    = 8
	DefaultTableEntries = 1 << 21
	DefaultLevel        = 19
	DefaultSeedBytes    = 32 << 20
)

// Options configures a Writer. Zero values take the defaults.
type Options struct {
	// AvgChunk is the average chunk size (a power of two ≥ 128).
	AvgChunk int
	// FrameSize is the plaintext size at which the open frame is closed.
	FrameSize int
	// MaxFrames bounds the frames one version's restore decodes: when a
	// version would name chunks in more frames, the chunks it reuses from
	// the frames it needs least (fewest bytes) are stored again in the
	// open frame. Negative: no bound. A
	// version whose own new bytes span more frames than the bound touches
	// those frames and none older.
	MaxFrames int
	// TableEntries bounds the ingest-time table of chunk hashes (about
	// 60 bytes an entry). Beyond it the older half is forgotten: a chunk
	// seen only there is stored again, which costs size, never
	// correctness.
	TableEntries int
	// Level is the zstd level of the frames (the `zstd` command's scale).
	Level int
	// Workers compress closed frames concurrently (0: GOMAXPROCS).
	Workers int
	// Pending frames are closed and not yet written (compressing, or
	// compressed and waiting for an older one) before a flush writes the
	// oldest (0: Workers). It decides where a frame's bytes are written
	// among its owner's, so an owner whose output must not depend on
	// Workers fixes it; Workers then only sets how many of them compress
	// at once.
	Pending int
	// PureGo compresses with klauspost/compress even when the reference
	// library is built in (tests of the fallback, the fast tier).
	PureGo bool
	// GoLevel is klauspost's level when it compresses (PureGo, or a build
	// without the reference library); 0: zstd.SpeedBestCompression. The
	// fast tier gives its own level here: at the best level the frames of
	// chunks were a third of a fast-tier ingest's CPU.
	GoLevel zstd.EncoderLevel
	// Fitted compresses at Level with reference-library contexts kept
	// from frame to frame (zstdlib.Ctx), whose tables fit each frame and
	// its chain, where the library is built in and PureGo is not set: the
	// fast tier's frames. klauspost rebuilds its full-size tables for
	// every new dictionary, and zstdlib.Compress streams a large one into
	// a context of the level's full size: both cost more than a small
	// frame at a fast level. Unset, frames are what they always were.
	Fitted bool
	// ChainBytes: a frame whose body, with the bodies of the chain the
	// previous frame ends, holds at most ChainBytes is compressed with
	// those bodies as its dictionary (docs/FORMAT.md "Chains of frames of
	// chunks"), so small frames (an ingest's commits, one crawl at a
	// time) compress as one large frame would, and a restore still
	// decodes at most ChainBytes. 0: FrameSize; negative: no chains.
	ChainBytes int
	// SeedBytes: a Writer continuing a chunk file starts its table with
	// the chunks of the file's last frames, as many whole frames as hold
	// at most SeedBytes of chunks (0: DefaultSeedBytes; negative: none),
	// so that chunks other versions share are not stored again after
	// every commit. Read back from the file, never carried over from an
	// earlier Writer: what a Writer stores depends on the file alone.
	SeedBytes int
}

func (o Options) withDefaults() Options {
	if o.AvgChunk == 0 {
		o.AvgChunk = DefaultAvgChunk
	}
	if o.FrameSize <= 0 {
		o.FrameSize = DefaultFrameSize
	}
	if o.MaxFrames == 0 {
		o.MaxFrames = DefaultMaxFrames
	}
	if o.TableEntries <= 0 {
		o.TableEntries = DefaultTableEntries
	}
	if o.Level <= 0 {
		o.Level = DefaultLevel
	}
	if o.GoLevel == 0 {
		o.GoLevel = zstd.SpeedBestCompression
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Pending <= 0 {
		o.Pending = o.Workers
	}
	if o.ChainBytes == 0 {
		o.ChainBytes = o.FrameSize
	}
	if o.SeedBytes == 0 {
		o.SeedBytes = DefaultSeedBytes
	}
	return o
}

// Stats counts what a Writer stored.
type Stats struct {
	Versions      int64
	Chunks        int64 // chunk refs written, new or not
	Bytes         int64 // bytes of the versions stored
	NewChunks     int64 // chunks appended to frames (including re-stored)
	NewBytes      int64
	Restored      int64 // chunks stored again to bound restore work
	RestoredBytes int64
	Evicted       int64 // table entries forgotten to stay within TableEntries
	Frames        int   // frames written by this Writer
	FrameBytes    int64 // their compressed bytes
}

type hashKey [16]byte

// Writer appends versions to a chunk file. Not safe for concurrent use.
type Writer struct {
	opts  Options
	out   io.Writer
	prior *Reader
	split *splitter
	enc   *zstd.Encoder

	dir      Directory // frames written
	firsts   []uint64  // first chunk of every frame, written or compressing
	starts   []int     // the frame its chain starts at, of every frame written or compressing
	plains   []int64   // the body bytes of every frame written or compressing
	runStart uint64    // first chunk number of this Writer

	open     [Classes][]byte // open frame's chunk bytes, by class
	openSize int             // their total
	openLens []uint32        // length<<2 | class of each of its chunks, in number order
	openNext uint64          // next chunk number

	cur, old map[hashKey]uint64 // two generations of the table
	learnt   map[int]bool       // committed frames entered whole (seed, LearnFrame)
	seeded   bool               // the seed is in the table (on first use: a commit that stores nothing reads none)
	pre      preCut             // the cut Rep made, for the Put that follows

	// The chain the last frame ends: its frames' bodies, in order (nil
	// when the last frame starts no chain another may extend), and their
	// total. A prior's chain is loaded at the first flush.
	chain      [][]byte
	chainBytes int
	chainReady bool

	dencs   chan *zstd.Encoder // klauspost encoders for frames with a dictionary
	fits    chan *fitted       // contexts of Options.Fitted
	pending []*frameJob
	sem     chan struct{}
	err     error
	st      Stats

	// drop, during PutDrop and PutChunkDrop: the frames whose chunks
	// are stored again rather than reused (GroupDrop).
	drop map[int]bool

	// per-Put scratch
	chunks [][]byte
	class  []uint8
	keys   []hashKey
	isNew  []bool
	local  map[hashKey]uint64
}

// preCut is the data Rep cut (its chunks, classes and keys are in the
// writer's scratch), so that the next Put of the same data reuses them.
type preCut struct {
	data  []byte
	class uint8
	ok    bool
}

type frameJob struct {
	prefix uint8
	level  int // zstd level of the body (frameLevel)
	first  uint64
	chunks uint32
	plain  uint32 // body plaintext bytes
	table  uint32 // compressed bytes of the chunk table
	out    []byte
	err    error
	done   chan struct{}
}

// NewWriter returns a Writer appending frames to out. prior, when not
// nil, reads the chunk file out continues (its frames keep their
// numbers; out must be positioned at its end): a version may then reuse
// the chunks of the previous capture it is given.
func NewWriter(out io.Writer, prior *Reader, opts Options) (*Writer, error) {
	opts = opts.withDefaults()
	sp, err := newSplitter(opts.AvgChunk)
	if err != nil {
		return nil, err
	}
	w := &Writer{opts: opts, out: out, prior: prior, split: sp,
		cur: map[hashKey]uint64{}, local: map[hashKey]uint64{}, learnt: map[int]bool{},
		sem: make(chan struct{}, opts.Workers), dencs: make(chan *zstd.Encoder, opts.Workers),
		fits: make(chan *fitted, opts.Workers)}
	if prior != nil {
		d, err := prior.dir.Whole()
		if err != nil {
			return nil, err
		}
		w.dir = slices.Clone(d)
		for i, f := range w.dir {
			w.firsts = append(w.firsts, f.FirstChunk)
			w.starts = append(w.starts, w.dir.ChainStart(i))
			w.plains = append(w.plains, int64(f.Plain))
		}
	}
	w.runStart = w.dir.NextChunk()
	w.openNext = w.runStart
	if !haveLibzstd || opts.PureGo {
		w.enc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(opts.GoLevel),
			zstd.WithWindowSize(windowFor(opts.FrameSize)), zstd.WithEncoderCRC(false),
			zstd.WithEncoderConcurrency(opts.Workers))
		if err != nil {
			return nil, err
		}
	}
	return w, nil
}

// windowFor is the smallest power-of-two zstd window covering a frame.
func windowFor(frame int) int {
	w := zstd.MinWindowSize
	for w < frame && w < zstd.MaxWindowSize {
		w <<= 1
	}
	return w
}

func hashOf(c []byte) hashKey {
	s := sha256.Sum256(c)
	return hashKey(s[:16])
}

func (w *Writer) lookup(k hashKey) (uint64, bool) {
	if r, ok := w.cur[k]; ok {
		return r, true
	}
	if r, ok := w.old[k]; ok {
		w.insert(k, r) // still in use: keep it past the next rotation
		return r, true
	}
	return 0, false
}

func (w *Writer) insert(k hashKey, r uint64) {
	if len(w.cur) >= w.opts.TableEntries/2 {
		w.st.Evicted += int64(len(w.old))
		w.old, w.cur = w.cur, make(map[hashKey]uint64, len(w.cur))
	}
	w.cur[k] = r
}

// frameOf returns the frame that holds or will hold chunk c.
func (w *Writer) frameOf(c uint64) int {
	i, found := slices.BinarySearch(w.firsts, c)
	if !found {
		i--
	}
	return i
}

// Classes is the number of chunk classes.
const Classes = 4

// Part is a piece of a version. Class (0 to Classes-1) groups similar
// bytes: within a frame, new chunks are laid out class by class (each in
// walk order), so that, say, WARC headers sit next to WARC headers and
// HTML next to HTML for the compressor. The benchmark uses 0 for WARC
// headers, 1 for HTTP headers, 2 for HTML and 3 for other payloads.
type Part struct {
	Data  []byte
	Class uint8
}

// Put stores one version made of parts, in order: each part is chunked
// on its own, so a chunk never straddles two parts. prev is the ref list
// of the URL's previous capture (nil for none): when an earlier Writer
// stored it, its chunks are read back through prior and entered in the
// table, so they are reused although this Writer never saw them. Put
// returns the version's ref list; the bytes of parts are not retained.
func (w *Writer) Put(parts []Part, prev []uint64) ([]uint64, error) {
	if err := w.ready(); err != nil {
		return nil, err
	}
	cut := w.pre.ok && len(parts) == 1 && parts[0].Class == w.pre.class && sameBytes(parts[0].Data, w.pre.data)
	w.pre = preCut{}
	if err := w.learnPrior(prev); err != nil {
		return nil, err
	}
	if !cut {
		w.chunks, w.class = w.chunks[:0], w.class[:0]
		var err error
		for _, p := range parts {
			if p.Class >= Classes {
				return nil, fmt.Errorf("chunk: part class %d ≥ %d", p.Class, Classes)
			}
			k := len(w.chunks)
			if w.chunks, err = w.split.split(w.chunks, p.Data); err != nil {
				return nil, err
			}
			for range len(w.chunks) - k {
				w.class = append(w.class, p.Class)
			}
		}
	}
	n := len(w.chunks)
	refs := make([]uint64, n)
	w.keys = slices.Grow(w.keys[:0], n)[:n]
	w.isNew = slices.Grow(w.isNew[:0], n)[:n]
	for i, c := range w.chunks {
		if !cut {
			w.keys[i] = hashOf(c)
		}
		r, ok := w.lookup(w.keys[i])
		refs[i], w.isNew[i] = r, !ok
		w.st.Bytes += int64(len(c))
	}
	if w.opts.MaxFrames > 0 {
		w.bound(refs)
	}
	if w.drop != nil {
		w.restoreDropped(refs)
	}
	clear(w.local)
	for i, c := range w.chunks {
		if !w.isNew[i] {
			continue
		}
		if r, ok := w.local[w.keys[i]]; ok { // repeated within the version
			refs[i] = r
			continue
		}
		r, err := w.appendChunk(c, w.class[i])
		if err != nil {
			return nil, err
		}
		refs[i] = r
		w.local[w.keys[i]] = r
		w.insert(w.keys[i], r)
	}
	w.st.Versions++
	w.st.Chunks += int64(n)
	return refs, nil
}

// Rep cuts data as Put cuts one part of class and returns its
// representative: the least of its chunks' hashes (their first 8
// bytes). An edited copy of data most often has the same one (the least
// of a set changes only when the chunk holding it does; the chance that
// two sets share it is their Jaccard similarity), so it names a family
// of near-duplicates. The cut is kept for the next Put of the same
// data, which then neither cuts nor hashes it again.
func (w *Writer) Rep(data []byte, class uint8) ([8]byte, error) {
	var rep [8]byte
	if err := w.ready(); err != nil {
		return rep, err
	}
	if class >= Classes {
		return rep, fmt.Errorf("chunk: class %d ≥ %d", class, Classes)
	}
	var err error
	if w.chunks, err = w.split.split(w.chunks[:0], data); err != nil {
		return rep, err
	}
	n := len(w.chunks)
	w.class = w.class[:0]
	w.keys = slices.Grow(w.keys[:0], n)[:n]
	for i, c := range w.chunks {
		w.class = append(w.class, class)
		w.keys[i] = hashOf(c)
		if k := [8]byte(w.keys[i][:8]); i == 0 || bytes.Compare(k[:], rep[:]) < 0 {
			rep = k
		}
	}
	w.pre = preCut{data: data, class: class, ok: true}
	return rep, nil
}

// sameBytes reports whether a and b are the same slice.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// PutChunk stores c as one chunk of the class, not cut: a chunk with the
// same bytes already in the table (prev's chunks are entered first, as by
// Put) is reused, and isNew is false. Objects named by place store their
// ref lists so (pack.PlaceID).
func (w *Writer) PutChunk(c []byte, class uint8, prev []uint64) (ref uint64, isNew bool, err error) {
	if err := w.ready(); err != nil {
		return 0, false, err
	}
	if class >= Classes {
		return 0, false, fmt.Errorf("chunk: class %d ≥ %d", class, Classes)
	}
	if err := w.learnPrior(prev); err != nil {
		return 0, false, err
	}
	k := hashOf(c)
	if r, ok := w.lookup(k); ok && !w.dropped(r) {
		return r, false, nil
	}
	if ref, err = w.appendChunk(c, class); err != nil {
		return 0, false, err
	}
	w.insert(k, ref)
	w.st.Bytes += int64(len(c))
	w.st.Chunks++
	return ref, true, nil
}

// LearnObject enters the chunks refs of an earlier Writer, the chunks of
// one object, into the table, as Put does for prev (a version that
// shares chunks with them reuses them without naming them as its
// previous capture), and returns the object's bytes appended to dst:
// each chunk is read once, for both. It fails, having entered the chunks
// before, at a chunk that does not read.
func (w *Writer) LearnObject(dst []byte, refs []uint64) ([]byte, error) {
	if err := w.ready(); err != nil {
		return dst, err
	}
	if w.prior == nil {
		return dst, errors.New("chunk: learn: no earlier writer")
	}
	for _, r := range refs {
		at := len(dst)
		var err error
		if dst, err = w.prior.AppendChunk(dst, r); err != nil {
			return dst, fmt.Errorf("chunk: learn: %w", err)
		}
		k := hashOf(dst[at:])
		if _, ok := w.cur[k]; !ok {
			w.insert(k, r)
		}
	}
	return dst, nil
}

// ready seeds the table before its first use, so that a writer that
// stores nothing (the one a commit starts after an ingest's last)
// reads no frame back; the seed depends on prior alone, so when it is
// read does not change what is stored.
func (w *Writer) ready() error {
	if w.err != nil {
		return w.err
	}
	if !w.seeded {
		w.seeded = true
		if err := w.seed(); err != nil {
			w.err = err
			return err
		}
	}
	return nil
}

// seed enters into the table the chunks of prior's last frames, up to
// SeedBytes of them, oldest first, so that a chunk stored twice (the
// restore bound) is found at its newer copy. A damaged frame is left out
// (the table only saves bytes); a failure to read stops the writer.
func (w *Writer) seed() error {
	if w.prior == nil || w.opts.SeedBytes <= 0 {
		return nil
	}
	// At most a quarter of the table, so that the seed does not push
	// itself out of it.
	first, sum, chunks := len(w.dir), 0, 0
	for first > 0 && sum+int(w.dir[first-1].Plain) <= w.opts.SeedBytes &&
		chunks+int(w.dir[first-1].Chunks) <= w.opts.TableEntries/4 {
		first--
		sum += int(w.dir[first].Plain)
		chunks += int(w.dir[first].Chunks)
	}
	for i := first; i < len(w.dir); i++ {
		w.learnt[i] = true
		err := w.prior.eachChunk(i, func(n uint64, c []byte) { w.insert(hashOf(c), n) })
		if damaged(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("chunk: seed the table: %w", err)
		}
	}
	return nil
}

// LearnFrame enters into the table the chunks of the frame of an earlier
// Writer that holds chunk n, once per Writer (the seed's frames count as
// entered): an object found again far from where it was stored brings
// its neighbours along. A damaged frame is left out; a failure to read
// stops the writer.
func (w *Writer) LearnFrame(n uint64) error {
	if err := w.ready(); err != nil {
		return err
	}
	if w.prior == nil || n >= w.runStart {
		return nil
	}
	i := w.frameOf(n)
	if i < 0 || w.learnt[i] {
		return nil
	}
	w.learnt[i] = true
	err := w.prior.eachChunk(i, func(c uint64, b []byte) {
		if k := hashOf(b); !w.has(k) {
			w.insert(k, c)
		}
	})
	if damaged(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("chunk: learn a frame: %w", err)
	}
	return nil
}

// has reports whether k is in the current generation.
func (w *Writer) has(k hashKey) bool {
	_, ok := w.cur[k]
	return ok
}

// learnPrior enters into the table the chunks of prev stored by an
// earlier Writer, read back through prior. A prev that names a chunk of
// this Writer was itself stored through this table (or copied from a
// version that was): its chunks are known already. A damaged chunk (its
// frame lost, after a repair without the original files) is left out:
// the table only saves bytes, and a URL whose last capture was lost can
// still take new ones. A failure to read stops the writer.
func (w *Writer) learnPrior(prev []uint64) error {
	if w.prior == nil || len(prev) == 0 {
		return nil
	}
	for _, r := range prev {
		if r >= w.runStart {
			return nil
		}
	}
	var c []byte
	for _, r := range prev {
		// A copy: prior is the archive's reader, which other goroutines
		// read through while this writer runs (ingest's history), and a
		// decode of theirs may reuse the buffer a chunk lies in.
		var err error
		if c, err = w.prior.AppendChunk(c[:0], r); damaged(err) {
			continue
		} else if err != nil {
			return fmt.Errorf("chunk: previous capture: %w", err)
		}
		k := hashOf(c)
		if _, ok := w.cur[k]; !ok {
			w.insert(k, r)
		}
	}
	return nil
}

// bound turns the reused chunks of some frames a version names into new
// chunks until its restore decodes at most MaxFrames frames: the frames
// it reuses the fewest bytes from go first.
func (w *Writer) bound(refs []uint64) {
	var newBytes int
	inOpen := false
	byFrame := map[int]int{} // reused frame → bytes reused from it
	for i, c := range w.chunks {
		switch {
		case w.isNew[i]:
			newBytes += len(c)
		case refs[i] >= w.openNext-uint64(len(w.openLens)):
			inOpen = true
		default:
			byFrame[w.frameOf(refs[i])] += len(c)
		}
	}
	total := func() int {
		t := len(byFrame)
		if newBytes > 0 {
			t += (w.openSize + newBytes + w.opts.FrameSize - 1) / w.opts.FrameSize
		} else if inOpen {
			t++
		}
		return t
	}
	if total() <= w.opts.MaxFrames {
		return
	}
	frames := make([]int, 0, len(byFrame))
	for f := range byFrame {
		frames = append(frames, f)
	}
	// Fewest reused bytes first, older first among equals: the same
	// number of frames dropped for the fewest bytes stored again (oldest
	// first stored 2–8× more on the corpus, up to 27 % larger archives).
	slices.SortFunc(frames, func(a, b int) int {
		if d := byFrame[a] - byFrame[b]; d != 0 {
			return d
		}
		return a - b
	})
	drop := map[int]bool{}
	for _, f := range frames {
		if total() <= w.opts.MaxFrames {
			break
		}
		drop[f] = true
		newBytes += byFrame[f]
		delete(byFrame, f)
	}
	for i, c := range w.chunks {
		if !w.isNew[i] && refs[i] < w.openNext-uint64(len(w.openLens)) && drop[w.frameOf(refs[i])] {
			w.isNew[i] = true
			w.st.Restored++
			w.st.RestoredBytes += int64(len(c))
		}
	}
}

func (w *Writer) appendChunk(c []byte, class uint8) (uint64, error) {
	if w.openSize > 0 && w.openSize+len(c) > w.opts.FrameSize {
		if err := w.flush(); err != nil {
			return 0, err
		}
	}
	if len(w.openLens) == 0 {
		w.firsts = append(w.firsts, w.openNext)
	}
	w.open[class] = append(w.open[class], c...)
	w.openSize += len(c)
	w.openLens = append(w.openLens, uint32(len(c))<<2|uint32(class))
	r := w.openNext
	w.openNext++
	w.st.NewChunks++
	w.st.NewBytes += int64(len(c))
	return r, nil
}

// flush closes the open frame and hands it to a compression worker.
//
// A frame is two zstd frames: its chunk table (uvarint chunk count, then
// uvarint length<<2 | class of each chunk in number order), then its body
// (the bytes of the chunks of class 0 in number order, of class 1, and so
// on). Compressed apart, the table costs about a third less than inside
// the body (its numbers would disturb the body's statistics), and a reader
// knows where every chunk lies before it decodes the body.
func (w *Writer) flush() error {
	if len(w.openLens) == 0 {
		return nil
	}
	table := binary.AppendUvarint(make([]byte, 0, 2*len(w.openLens)+8), uint64(len(w.openLens)))
	for _, l := range w.openLens {
		table = binary.AppendUvarint(table, uint64(l))
	}
	body := make([]byte, 0, w.openSize)
	for k := range w.open {
		body = append(body, w.open[k]...)
		w.open[k] = w.open[k][:0]
	}
	j := &frameJob{first: w.openNext - uint64(len(w.openLens)), chunks: uint32(len(w.openLens)),
		plain: uint32(len(body)), done: make(chan struct{})}
	w.openSize, w.openLens = 0, w.openLens[:0]
	dict, err := w.joinChain(j, body)
	if err != nil {
		return err
	}
	w.starts = append(w.starts, len(w.starts)-int(j.prefix))
	w.plains = append(w.plains, int64(len(body)))
	j.level = w.frameLevel(len(body), len(dict))
	w.sem <- struct{}{}
	go func() {
		defer func() { <-w.sem; close(j.done) }()
		var tbl, bd []byte
		ok := false
		if w.enc == nil && w.opts.Fitted {
			tbl, bd, ok = w.compressFitted(table, body, dict, j.level)
		}
		if w.enc == nil && tbl == nil {
			if tbl, j.err = libzstdCompress(nil, table, w.opts.Level, nil); j.err != nil {
				return
			}
			bd, ok = w.compressC(body, dict, j.level)
		} else if w.enc != nil {
			tbl = w.enc.EncodeAll(table, nil)
		}
		if !ok {
			if bd, j.err = w.compressGo(body, dict); j.err != nil {
				return
			}
		}
		j.table = uint32(len(tbl))
		j.out = append(tbl, bd...)
	}()
	w.pending = append(w.pending, j)
	// Frames are written in order; at most Pending wait.
	for len(w.pending) > w.opts.Pending {
		if err := w.writeHead(); err != nil {
			return err
		}
	}
	return nil
}

// joinChain decides whether the frame j (of plaintext body) extends the
// chain the last frame ends, and returns its dictionary (nil if not).
func (w *Writer) joinChain(j *frameJob, body []byte) ([]byte, error) {
	if w.opts.ChainBytes < 0 {
		return nil, nil
	}
	if !w.chainReady {
		w.chainReady = true
		if w.prior != nil && len(w.dir) > 0 && len(w.dir) == w.prior.dir.Len() {
			// A damaged chain (a frame not yet repaired) is not
			// extended: the new frames start their own.
			bodies, err := w.prior.ChainBodies(len(w.dir)-1, w.opts.ChainBytes)
			if damaged(err) {
				bodies = nil
			} else if err != nil {
				return nil, fmt.Errorf("chunk: the chain before this writer: %w", err)
			}
			w.chain, w.chainBytes = bodies, 0
			for _, b := range bodies {
				w.chainBytes += len(b)
			}
		}
	}
	var dict []byte
	if len(w.chain) > 0 && len(w.chain) <= MaxPrefix && w.chainBytes+len(body) <= w.opts.ChainBytes {
		dict = make([]byte, 0, w.chainBytes)
		for _, b := range w.chain {
			dict = append(dict, b...)
		}
		// A body the chain does not pay for is compressed alone but
		// stays in the chain (its zstd frame names no dictionary, which
		// the readers' decoder takes as none): ending the chain there
		// took the context of every frame after it. Crawls of many
		// sites ingested one at a time interleave, and a new site's
		// first crawl (new bytes) reset the chain for all the others:
		// the chains of 351 one-crawl ingests of the four corpus sites
		// held 1.1–2.4 MB of their 4 MiB, and their frames took 733 KB
		// where the same bodies take 623 KB in full chains.
		j.prefix = uint8(len(w.chain))
		if !dictPays(body, dict) {
			dict = nil
		}
	} else {
		w.chain, w.chainBytes = w.chain[:0], 0
	}
	w.chain = append(w.chain, body)
	w.chainBytes += len(body)
	return dict, nil
}

// frameLevel is the zstd level of a body of n bytes whose dictionary
// holds d: Level, unless the dictionary is more than dictRatio times the
// body, then at most chainLevel. At the best levels (13 and up: binary
// trees) the library indexes a dictionary as it would compress it, so a
// small frame at the end of a long chain — an ingest of one crawl that
// adds 40 KB of new bytes after 4 MiB of earlier ones — cost a third of
// a second, 80 % of such an ingest; a lazy hash-chain level indexes the
// same dictionary many times faster and finds the same long repeats.
// Frames of a large ingest (bodies near the frame size,
// dictionaries a few of them) keep Level. The level depends on the
// frame and its chain alone, so the bytes still depend on the inputs
// and the archive's settings alone.
func (w *Writer) frameLevel(n, d int) int {
	if d > dictRatio*n {
		return min(w.opts.Level, chainLevel)
	}
	return w.opts.Level
}

// dictRatio and chainLevel: see frameLevel. 64 keeps Level for every
// frame but the small ones at the end of long chains: on 150 one-crawl
// ingests of a corpus site, CPU 52.7 → 21.7 s for 0.6 % more frame
// bytes (16: 16.3 s, +4.0 %; any dictionary: 14.8 s, +6.1 %), with
// level 12. Level 7 since chains run through frames compressed alone
// (joinChain), so that their dictionaries are longer: the frames of 351
// one-crawl ingests of the corpus sites mixed took 613.6 KB in 134 s
// of compression at 12, 623.4 KB in 40 s at 7, 639.9 KB at 5 (34 s and
// 732.7 KB with the chains cut as before).
const (
	dictRatio  = 64
	chainLevel = 7
)

// cheapDict is the longest dictionary a frame always takes (a quarter of
// a second to index at the best level).
const cheapDict = 1 << 20

// dictPays says whether compressing body with dict (the chain's bodies)
// is worth what it costs. At the best levels the library indexes a
// dictionary as it would compress it (about 0.25 s a MiB here: as long as
// the frame itself when the chain is nearly full), whether or not the
// body repeats it: the small last frame of an ingest of four sites, new
// bytes of the last site, took a second to save 82 of 3,348 bytes. So a
// dictionary up to cheapDict is always taken, and a longer one when at
// least a sixteenth of the body repeats it (sharedAnchors) or the body is
// too short to tell (under 16 anchors): the frames of an ingest that adds
// a crawl to an archive, new versions of the previous crawl's pages,
// repeat it mostly. A body that does not take it still joins the chain
// (joinChain), so the frames after it keep the chain's context.
// A fast zstd level cannot tell: its tables keep a few positions of a
// long dictionary, and it found nothing in one the body repeated.
func dictPays(body, dict []byte) bool {
	if len(dict) <= cheapDict {
		return true
	}
	shared, anchors := sharedAnchors(body, dict)
	return anchors < 16 || shared*16 >= anchors
}

// sharedAnchors samples body at content-defined anchors (about one
// position in 64, where a gear hash of the bytes before is 0 in its top 6
// bits) and returns how many of its anchors dict also has, by the hash,
// which depends on the 64 bytes before the anchor: a share of the body
// that repeats dict in runs of 64 bytes or more.
func sharedAnchors(body, dict []byte) (shared, anchors int) {
	seen := make(map[uint64]struct{}, len(dict)>>anchorBits)
	eachAnchor(dict, func(h uint64) { seen[h] = struct{}{} })
	eachAnchor(body, func(h uint64) {
		anchors++
		if _, ok := seen[h]; ok {
			shared++
		}
	})
	return shared, anchors
}

const anchorBits = 6

func eachAnchor(b []byte, f func(h uint64)) {
	var h uint64
	for i, c := range b {
		h = h<<1 + anchorGear[c]
		if i >= 63 && h>>(64-anchorBits) == 0 {
			f(h)
		}
	}
}

// anchorGear is a fixed table of 256 pseudo-random words (splitmix64).
var anchorGear = func() (g [256]uint64) {
	x := uint64(0x9e3779b97f4a7c15)
	for i := range g {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		g[i] = z ^ z>>31
	}
	return g
}()

// chainDictID is the dictionary id a frame with a prefix names.
const chainDictID = 1

// compressGo compresses body with klauspost/compress, with dict as raw
// dictionary (id chainDictID) when non-nil. Encoders for dictionaries are
// kept and reset per frame: a new one allocates its tables (a tenth of a
// second at the best level).
func (w *Writer) compressGo(body, dict []byte) ([]byte, error) {
	if dict == nil && w.enc != nil {
		return w.enc.EncodeAll(body, nil), nil
	}
	var enc *zstd.Encoder
	select {
	case enc = <-w.dencs:
	default:
		var err error
		enc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(w.opts.GoLevel),
			zstd.WithWindowSize(windowFor(w.opts.FrameSize+max(w.opts.ChainBytes, 0))), zstd.WithEncoderCRC(false),
			zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, err
		}
	}
	defer func() {
		select {
		case w.dencs <- enc:
		default:
			enc.Close()
		}
	}()
	opt := zstd.WithEncoderDictDelete()
	if dict != nil {
		opt = zstd.WithEncoderDictRaw(chainDictID, dict)
	}
	if err := enc.ResetWithOptions(nil, opt); err != nil {
		return nil, err
	}
	return enc.EncodeAll(body, nil), nil
}

// compressC compresses body with the reference library and reports
// whether it did. A frame with a dictionary is decoded again by the
// readers' decoder first: the two libraries must agree on every frame,
// and one they would not agree on is left to compressGo.
func (w *Writer) compressC(body, dict []byte, level int) ([]byte, bool) {
	z, err := libzstdCompress(nil, body, level, dict)
	if err != nil {
		return nil, false
	}
	if dict == nil {
		return z, true
	}
	if z, err = zstdlib.NameDict(z, chainDictID); err != nil {
		return nil, false
	}
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<32),
		zstd.WithDecoderDictRaw(chainDictID, dict))
	if err != nil {
		return nil, false
	}
	defer d.Close()
	back, err := d.DecodeAll(z, make([]byte, 0, len(body)))
	if err != nil || !bytes.Equal(back, body) {
		return nil, false
	}
	return z, true
}

// fitted is a context of Options.Fitted and the readers' decoder that
// checks its frames.
type fitted struct {
	ctx  *zstdlib.Ctx
	dec  *zstd.Decoder
	back []byte // the last body decoded, its capacity kept for the next
}

// compressFitted compresses a frame's chunk table and body (with dict,
// when non-nil, as raw dictionary) at level in a pooled context, and
// reports whether it did; the body is decoded again by the readers'
// decoder first, as in compressC. On false the caller compresses as
// without Fitted.
func (w *Writer) compressFitted(table, body, dict []byte, level int) (tbl, bd []byte, ok bool) {
	var f *fitted
	select {
	case f = <-w.fits:
	default:
		ctx, err := zstdlib.NewCtx()
		if err != nil {
			return nil, nil, false
		}
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<32))
		if err != nil {
			ctx.Close()
			return nil, nil, false
		}
		f = &fitted{ctx: ctx, dec: dec}
	}
	defer func() {
		select {
		case w.fits <- f:
		default:
			f.close()
		}
	}()
	tbl, err := f.ctx.Compress(nil, table, level, nil)
	if err != nil {
		return nil, nil, false
	}
	if bd, err = f.ctx.Compress(nil, body, level, dict); err != nil {
		return nil, nil, false
	}
	opt := zstd.WithDecoderDictDelete(chainDictID)
	if dict != nil {
		if bd, err = zstdlib.NameDict(bd, chainDictID); err != nil {
			return nil, nil, false
		}
		opt = zstd.WithDecoderDictRaw(chainDictID, dict)
	}
	if err := f.dec.ResetWithOptions(nil, opt); err != nil {
		return nil, nil, false
	}
	back, err := f.dec.DecodeAll(bd, f.back[:0])
	f.back = back
	if err != nil || !bytes.Equal(back, body) {
		return nil, nil, false
	}
	return tbl, bd, true
}

func (f *fitted) close() {
	f.ctx.Close()
	f.dec.Close()
}

// FrameWriter is an output that takes a frame with its directory entry
// (an archive that keeps frames inside files of its own and the
// directory in its indexes). Frame.Offset is then the Writer's running
// offset, meaningful to the owner only if it makes it so.
type FrameWriter interface {
	WriteFrame(f Frame, data []byte) error
}

func (w *Writer) writeHead() error {
	j := w.pending[0]
	w.pending = w.pending[1:]
	<-j.done
	if j.err != nil {
		w.err = fmt.Errorf("chunk: compress frame: %w", j.err)
		return w.err
	}
	f := Frame{Offset: w.dir.End(), Size: uint32(len(j.out)), Table: j.table, Plain: j.plain,
		FirstChunk: j.first, Chunks: j.chunks, CRC: crc32.Checksum(j.out, castagnoli), Prefix: j.prefix}
	var err error
	if fw, ok := w.out.(FrameWriter); ok {
		err = fw.WriteFrame(f, j.out)
	} else {
		_, err = w.out.Write(j.out)
	}
	if err != nil {
		w.err = fmt.Errorf("chunk: write frame: %w", err)
		return w.err
	}
	w.dir = append(w.dir, f)
	w.st.Frames++
	w.st.FrameBytes += int64(len(j.out))
	return nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Flush closes the open frame and writes it and every frame still
// compressing, in order: after Flush every chunk Put returned is in a
// written frame. The Writer stays usable (a commit point of its owner).
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if err := w.flush(); err != nil {
		return err
	}
	for len(w.pending) > 0 {
		if err := w.writeHead(); err != nil {
			return err
		}
	}
	return nil
}

// Close writes the open frame and every frame still compressing, and
// returns the directory of the whole chunk file (the prior frames and
// this Writer's). The Writer cannot be used afterwards.
func (w *Writer) Close() (Directory, error) {
	if w.err == nil {
		w.err = w.flush()
	}
	for len(w.pending) > 0 {
		if err := w.writeHead(); err != nil && w.err == nil {
			w.err = err
		}
	}
	w.closeEncoders()
	if w.err != nil {
		return nil, w.err
	}
	w.err = errors.New("chunk: writer closed")
	return w.dir, nil
}

// Abort drops the open frame and the frames still compressing, writing
// nothing more (the owner discards what was not committed). The Writer
// cannot be used afterwards.
func (w *Writer) Abort() {
	for _, j := range w.pending {
		<-j.done
	}
	w.pending = nil
	w.closeEncoders()
	w.err = errors.New("chunk: writer aborted")
}

func (w *Writer) closeEncoders() {
	if w.enc != nil {
		w.enc.Close()
	}
	for {
		select {
		case e := <-w.dencs:
			e.Close()
		case f := <-w.fits:
			f.close()
		default:
			return
		}
	}
}

// Stats reports what the Writer stored so far.
func (w *Writer) Stats() Stats { return w.st }

// dropped says whether chunk r, reused, lies in a frame of the drop set
// of PutDrop or PutChunkDrop (never the open frame: its chunks are new).
func (w *Writer) dropped(r uint64) bool {
	return w.drop != nil && r < w.openNext-uint64(len(w.openLens)) && w.drop[w.frameOf(r)]
}

// restoreDropped turns the reused chunks of the drop set's frames into
// new chunks (PutDrop).
func (w *Writer) restoreDropped(refs []uint64) {
	for i, c := range w.chunks {
		if !w.isNew[i] && w.dropped(refs[i]) {
			w.isNew[i] = true
			w.st.Restored++
			w.st.RestoredBytes += int64(len(c))
		}
	}
}

// PutDrop is Put storing again, in the open frame, the chunks it would
// reuse from the frames of drop: a version copied forward out of those
// frames, so that a group of versions restored together (a capture's
// objects, GroupDrop) decodes fewer frames.
func (w *Writer) PutDrop(parts []Part, prev []uint64, drop map[int]bool) ([]uint64, error) {
	w.drop = drop
	defer func() { w.drop = nil }()
	return w.Put(parts, prev)
}

// PutChunkDrop is PutChunk storing c again when the copy it would reuse
// lies in a frame of drop.
func (w *Writer) PutChunkDrop(c []byte, class uint8, prev []uint64, drop map[int]bool) (uint64, bool, error) {
	w.drop = drop
	defer func() { w.drop = nil }()
	return w.PutChunk(c, class, prev)
}

// FrameOf returns the frame that holds or will hold chunk c, among the
// frames of the file and of this Writer (the open one included); -1 for
// a chunk past them.
func (w *Writer) FrameOf(c uint64) int {
	if c >= w.openNext {
		return -1
	}
	return w.frameOf(c)
}

// openFrame is the index the open frame has (or the next one will).
func (w *Writer) openFrame() int {
	if len(w.openLens) > 0 {
		return len(w.firsts) - 1
	}
	return len(w.firsts)
}

// openChainStart is where the chain the open frame would extend, were it
// closed now, starts (the open frame itself when it would start one).
func (w *Writer) openChainStart() int {
	o := w.openFrame()
	if w.opts.ChainBytes < 0 {
		return o
	}
	n, sum := len(w.chain), w.chainBytes
	if !w.chainReady {
		n, sum = 0, 0
		if w.prior != nil && len(w.dir) > 0 && len(w.dir) == w.prior.dir.Len() {
			last := len(w.dir) - 1
			for j := w.dir.ChainStart(last); j <= last; j++ {
				n++
				sum += int(w.dir[j].Plain)
			}
			if sum > w.opts.ChainBytes {
				n, sum = 0, 0
			}
		}
	}
	if n > 0 && n <= MaxPrefix && sum+w.openSize <= w.opts.ChainBytes {
		return o - n
	}
	return o
}

// GroupCost returns the plaintext bytes a cold restore of the chunks
// lists decodes, named together (Directory.Cost: the frames named and
// the chains before them), the open frame counted as it is now, with the
// chain it would extend were it closed now.
func (w *Writer) GroupCost(lists [][]uint64) int64 {
	named := map[int]bool{}
	for _, l := range lists {
		for _, c := range l {
			if f := w.FrameOf(c); f >= 0 {
				named[f] = true
			}
		}
	}
	return w.plainOf(w.decodes(named))
}

// plainOf sums the body bytes of frames (the open frame's so far).
func (w *Writer) plainOf(frames map[int]bool) (n int64) {
	for f := range frames {
		if f < len(w.plains) {
			n += w.plains[f]
		} else {
			n += int64(w.openSize)
		}
	}
	return n
}

// chainStart is where frame f's chain starts (f may be the open frame).
func (w *Writer) chainStart(f int) int {
	if f < len(w.starts) {
		return w.starts[f]
	}
	return w.openChainStart()
}

// decodes is the set of frames a cold restore naming the frames named
// decodes.
func (w *Writer) decodes(named map[int]bool) map[int]bool {
	out := map[int]bool{}
	for f := range named {
		for j := w.chainStart(f); j <= f; j++ {
			out[j] = true
		}
	}
	return out
}

// GroupDrop returns the frames whose chunks a group of versions (the
// chunk lists of one capture's objects, restored together; sizes[i] the
// bytes of lists[i]'s chunks, or 0 when not known: the average chunk
// size each) should store again (PutDrop, PutChunkDrop) so that its
// restore decodes at most max plaintext bytes (GroupCost), or as few
// more as it can; nil when it already does, or when storing again would
// not make it decode less. The chunks stored again go to the open frame,
// so once a frame is dropped the open frame and the chain it extends
// are decoded, and its bytes grow by those stored again: a frame is
// dropped only when it saves dropRatio times the bytes decoded that it
// stores again, so a capture whose frames it mostly fills is left over
// the bound rather than copied whole at every crawl.
// Frames go by the fewest bytes stored again for each byte no longer
// decoded, only the newest named frame of a chain counting (the chain
// is decoded up to it); ties go to the older frame. The choice depends
// on the lists and the Writer's frames alone, so what is stored does
// not depend on the machine.
func (w *Writer) GroupDrop(lists [][]uint64, sizes []int64, max int64) map[int]bool {
	weight := map[int]int64{} // named frame → bytes named there (estimated)
	for i, l := range lists {
		size := int64(len(l)) * int64(w.opts.AvgChunk)
		if i < len(sizes) && sizes[i] > 0 {
			size = sizes[i]
		}
		for _, c := range l {
			if f := w.FrameOf(c); f >= 0 {
				weight[f] += size / int64(len(l))
			}
		}
	}
	named := make(map[int]bool, len(weight))
	for f := range weight {
		named[f] = true
	}
	cost0 := w.plainOf(w.decodes(named))
	if cost0 <= max {
		return nil
	}
	open := w.openFrame()
	named[open] = true
	keep := map[int]bool{}
	for j := w.openChainStart(); j <= open; j++ {
		keep[j] = true
	}
	cost := w.plainOf(w.decodes(named))
	drop := map[int]bool{}
	for cost > max {
		best, bestW, bestSave := -1, int64(0), int64(0)
		for f := range named {
			if keep[f] {
				continue
			}
			// Only the newest named frame of its chain saves anything.
			top := true
			for g := range named {
				if g > f && !keep[g] && w.chainStart(g) <= f {
					top = false
					break
				}
			}
			if !top {
				continue
			}
			delete(named, f)
			save := cost - w.plainOf(w.decodes(named))
			named[f] = true
			if save < dropRatio*weight[f] {
				continue
			}
			// Fewest bytes stored again per byte no longer decoded:
			// weight/save, compared as cross products; ties to the
			// older frame.
			if best < 0 || weight[f]*bestSave < bestW*save || weight[f]*bestSave == bestW*save && f < best {
				best, bestW, bestSave = f, weight[f], save
			}
		}
		if best < 0 {
			break
		}
		drop[best] = true
		delete(named, best)
		cost -= bestSave - bestW
	}
	if cost >= cost0 || len(drop) == 0 {
		return nil
	}
	return drop
}

// FrameSize is the plaintext size at which the Writer closes a frame.
func (w *Writer) FrameSize() int { return w.opts.FrameSize }

// dropRatio: GroupDrop drops a frame only when the bytes it saves
// decoding are at least dropRatio times those it stores again. On the
// corpus ingested a crawl at a time with the bounds scaled (16 KiB
// frames and chains) and CaptureFrames 20, 4 stored 2.9 % more bytes
// where 1 (any saving) stored 3.7 % more, for the same bytes decoded at
// p99 (BenchmarkScaleCapture).
const dropRatio = 4
