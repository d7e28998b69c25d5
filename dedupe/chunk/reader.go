package chunk

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// DefaultCacheBytes is the decoded-frame cache of a Reader when none is
// given: one default frame.
const DefaultCacheBytes = 4 << 20

// Reader reads chunks and versions of a chunk file. It is safe for
// concurrent use: calls are serialised, except, with a shared Cache,
// restores and chunk copies whose frames are in the cache.
type Reader struct {
	mu     sync.Mutex
	ra     io.ReaderAt
	dir    Frames
	budget int64
	cache  []*frameData // most recently used last; unused with shared
	used   int64
	// shared, when set, holds the decoded frames instead of cache, under
	// the namespace ns.
	shared *Cache
	ns     uint32
	dec    *zstd.Decoder
	ddec   *zstd.Decoder // for frames with a chain: its dictionary changes per frame
	// dict holds the bodies of frames dictFrom.. of a chain, frame
	// dictFrom+k's ending at dictEnds[k] (load).
	dict     []byte
	dictEnds []int
	dictFrom int
	// dictCopied counts bytes copied into dict (tests).
	dictCopied int64
	raw        []byte
	// last holds the stored bytes of the frame a chain is decoded for,
	// read before its chain (whose frames are read into raw) to see
	// whether its body names the chain's dictionary at all.
	last  []byte
	table []byte
	// spare is the buffer of the frame evicted last, reused by the next
	// decode: a cold restore then allocates nothing frame-sized, which
	// keeps the garbage collector out of restore latency.
	spare []byte
	// Decoded counts plaintext bytes decompressed (cache misses).
	decoded int64
	// pin holds the frames of the restore under way (r.mu held, no
	// shared cache): evict leaves their buffers to them.
	pin *pinned
}

// pinned holds the frames one restore took, the frames of its chains
// before them included, until it returns: it decodes each at most once
// whatever the cache holds. A chain as long as the cache (4 MiB chains
// through a 4 MiB cache) pushed its own first frames out while it was
// decoded, and the next frame the restore named in it decoded the chain
// again: the restores of a sample of 200 captures decoded 13.7 MB at
// p99 where their chains held 7.1 MB.
type pinned struct {
	frames map[int]*frameData
	bytes  int64
}

// maxPinned bounds the bytes a restore pins (beyond it, frames come
// and go through the cache as before): as much as one decode may hold.
const maxPinned = maxChainPlain

func newPinned() *pinned { return &pinned{frames: map[int]*frameData{}} }

func (p *pinned) get(i int) *frameData {
	if p == nil {
		return nil
	}
	return p.frames[i]
}

func (p *pinned) put(fd *frameData) {
	if p == nil || p.frames[fd.idx] != nil || p.bytes+int64(cap(fd.buf)) > maxPinned {
		return
	}
	p.frames[fd.idx] = fd
	p.bytes += int64(cap(fd.buf))
}

// holds says whether fd is pinned.
func (p *pinned) holds(fd *frameData) bool { return p != nil && p.frames[fd.idx] == fd }

type frameData struct {
	idx   int
	f     Frame    // its directory row
	buf   []byte   // the whole decoded frame
	plain []byte   // its chunk bytes
	offs  []uint32 // chunk i is plain[offs[2i]:offs[2i+1]]
}

// FrameSource is a chunk file's io.ReaderAt that is told which frame it
// reads, all of it into p: a source that checks each frame itself (a
// store that corrects a frame through parity when its CRC fails) takes
// the frame's CRC from the directory the Reader already holds, instead of
// a map of its own from offset to CRC, O(frames) at every open.
type FrameSource interface {
	ReadFrame(p []byte, f Frame) error
}

// NewReader returns a Reader of the chunk file ra laid out by dir,
// keeping up to cacheBytes of decoded frames (and always the last one).
func NewReader(ra io.ReaderAt, dir Frames, cacheBytes int64) (*Reader, error) {
	if cacheBytes <= 0 {
		cacheBytes = DefaultCacheBytes
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<32))
	if err != nil {
		return nil, err
	}
	return &Reader{ra: ra, dir: dir, budget: cacheBytes, dec: dec}, nil
}

// NewCachedReader returns a Reader of the chunk file ra laid out by dir
// that keeps its decoded frames in c, shared with the other Readers of c.
// ns tells chunk files apart in c: Readers of one file at any of its
// lengths (each frame of the shorter file where the longer one has it)
// take the same ns, Readers of different files different ones.
func NewCachedReader(ra io.ReaderAt, dir Frames, c *Cache, ns uint32) (*Reader, error) {
	r, err := NewReader(ra, dir, DefaultCacheBytes)
	if err != nil {
		return nil, err
	}
	r.shared, r.ns = c, ns
	return r, nil
}

// key is frame f's key in a shared Cache.
func (r *Reader) key(f Frame) cacheKey {
	return cacheKey{ns: r.ns, prefix: f.Prefix, size: f.Size, crc: f.CRC, off: f.Offset}
}

// Frames returns the directory of the frames the Reader reads.
func (r *Reader) Frames() Frames { return r.dir }

// DecodedBytes returns the plaintext bytes decompressed so far.
func (r *Reader) DecodedBytes() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.decoded
}

// ErrNoChunk says a chunk number lies past the chunks a file holds.
var ErrNoChunk = errors.New("chunk: no chunk")

// ErrDamaged is matched by an error of a Reader's io.ReaderAt that
// reports damaged bytes, found by checks of its own (a pack's checksum
// and parity), as opposed to a failure to read.
var ErrDamaged = errors.New("chunk: frame damaged")

// damaged says err reports damage to the chunks read (a frame that does
// not decode or that its source reports damaged, a chunk the file does
// not hold), not a failure to read.
func damaged(err error) bool {
	var ce *CorruptError
	return errors.As(err, &ce) || errors.Is(err, ErrNoChunk) || errors.Is(err, ErrDamaged)
}

// CorruptError reports a frame that fails its checks.
type CorruptError struct {
	Frame  int
	Offset int64
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("chunk: frame %d at offset %d: %s", e.Frame, e.Offset, e.Reason)
}

// frameShared returns frame i to a caller not holding r.mu, with a shared
// cache only (its frames' buffers are never reused, so they stay valid
// without the lock): a hit takes no lock of r's, so restores of cached
// frames go on while another restore decodes; a miss decodes under r.mu,
// once however many callers want the frame.
func (r *Reader) frameShared(i int) (*frameData, error) {
	f, err := r.dir.Frame(i)
	if err != nil {
		return nil, err
	}
	if fd := r.shared.get(r.key(f)); fd != nil {
		return fd, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.frame(i)
}

// frame returns frame i, from the cache or decoded (r.mu held).
func (r *Reader) frame(i int) (*frameData, error) { return r.framePinned(i, nil) }

// framePinned is frame, from and into p too (nil: none).
func (r *Reader) framePinned(i int, p *pinned) (*frameData, error) {
	if fd := p.get(i); fd != nil {
		return fd, nil
	}
	fd, err := r.cached(i)
	if err != nil {
		return nil, err
	}
	if fd == nil {
		if fd, err = r.load(i, p); err != nil {
			return nil, err
		}
		r.add(fd)
	}
	p.put(fd)
	return fd, nil
}

// getter returns how the restore pinning p gets its frames: with r.mu
// held (and r.pin p) without a shared cache, else taking r.mu for a miss
// only.
func (r *Reader) getter(p *pinned) func(int) (*frameData, error) {
	if r.shared == nil {
		return func(i int) (*frameData, error) { return r.framePinned(i, p) }
	}
	return func(i int) (*frameData, error) {
		if fd := p.get(i); fd != nil {
			return fd, nil
		}
		f, err := r.dir.Frame(i)
		if err != nil {
			return nil, err
		}
		if fd := r.shared.get(r.key(f)); fd != nil {
			p.put(fd)
			return fd, nil
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.framePinned(i, p)
	}
}

// lockPinned takes r.mu for a restore pinning p when the cache is r's
// own, and returns what gives it back.
func (r *Reader) lockPinned(p *pinned) func() {
	if r.shared != nil {
		return func() {}
	}
	r.mu.Lock()
	r.pin = p
	return func() {
		r.pin = nil
		r.mu.Unlock()
	}
}

// cached returns frame i from the cache (nil if not there), making it the
// most recently used.
func (r *Reader) cached(i int) (*frameData, error) {
	if r.shared != nil {
		f, err := r.dir.Frame(i)
		if err != nil {
			return nil, err
		}
		return r.shared.get(r.key(f)), nil
	}
	for k := len(r.cache) - 1; k >= 0; k-- {
		if fd := r.cache[k]; fd.idx == i {
			if k != len(r.cache)-1 {
				copy(r.cache[k:], r.cache[k+1:])
				r.cache[len(r.cache)-1] = fd
			}
			return fd, nil
		}
	}
	return nil, nil
}

// add puts a decoded frame in the cache, evicting beyond the budget.
func (r *Reader) add(fd *frameData) {
	if r.shared != nil {
		r.shared.put(r.key(fd.f), fd)
		return
	}
	r.cache = append(r.cache, fd)
	r.used += int64(cap(fd.buf))
	for len(r.cache) > 1 && r.used > r.budget {
		r.evict()
	}
}

// evict drops the least recently used frame, keeping its buffer.
func (r *Reader) evict() {
	fd := r.cache[0]
	r.used -= int64(cap(fd.buf))
	if cap(fd.buf) > cap(r.spare) && !r.pin.holds(fd) {
		r.spare = fd.buf[:0]
	}
	r.cache[0] = nil
	r.cache = r.cache[1:]
}

// spareSlack: a spare buffer up to this much larger than twice the
// frame is still reused (small frames vary a little in size).
const spareSlack = 64 << 10

// dropCache empties the cache (benchmarks of cold restores).
func (r *Reader) dropCache() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.cache) > 0 {
		r.evict()
	}
}

// load reads, checks and decodes frame i, and the chain before it when
// it has one and its zstd frame names the chain's dictionary (frames of
// the chain in neither p nor the cache are decoded once each, in order,
// each with the bodies before it as dictionary, and cached; those it
// takes are pinned in p, nil for none). A frame in a chain
// that names no dictionary (the writer compressed it alone) is decoded
// alone: the decoder would take no dictionary for it anyway.
func (r *Reader) load(i int, p *pinned) (*frameData, error) {
	f, err := r.dir.Frame(i)
	if err != nil {
		return nil, err
	}
	if f.Prefix == 0 {
		return r.decode(i, f, nil)
	}
	chain, err := r.chain(i, f)
	if err != nil {
		return nil, err
	}
	last, err := r.read(i, f, r.last)
	if err != nil {
		return nil, err
	}
	r.last = last
	if !namesDict(last[f.Table:]) {
		return r.decodeRead(i, f, last, nil)
	}
	// r.dict keeps the chain's bodies from one decode to the next: the
	// frames of a chain read in order (the seed of an ingest's chunk
	// table, a restore of many captures, compaction) each append one
	// body, where building every frame's dictionary anew copied the
	// chain's prefix once per frame, quadratic in its length (half of a
	// small crawl's ingest into a large archive). It is allocated at the
	// prefix a frame needs (clearing a whole chain's worth cost a
	// single-frame restore more than it decoded), then at the chain's
	// size.
	start := i - int(f.Prefix)
	if r.dictFrom != start || len(r.dictEnds) == 0 {
		r.dict, r.dictEnds, r.dictFrom = r.dict[:0], r.dictEnds[:0], start
	}
	if have := start + len(r.dictEnds); have < i {
		need := 0
		for j := have; j < i; j++ {
			need += int(chain[j-start].Plain)
		}
		if cap(r.dict)-len(r.dict) < need {
			// The prefix needed the first time, the whole chain when it
			// is extended (frames read in order): one copy at most.
			size := len(r.dict) + need
			if len(r.dict) > 0 {
				size = max(size, r.chainDictSize(start))
			}
			d := make([]byte, len(r.dict), size) // slices.Grow would clear what is copied
			copy(d, r.dict)
			r.dict = d
		}
		for j := have; j < i; j++ {
			fd := p.get(j)
			if fd == nil {
				if fd, err = r.cached(j); err != nil {
					return nil, err
				}
			}
			if fd == nil {
				if fd, err = r.decode(j, chain[j-start], r.dict[:len(r.dict):len(r.dict)]); err != nil {
					return nil, err
				}
				r.add(fd)
			}
			p.put(fd)
			r.dict = append(r.dict, fd.plain...)
			r.dictEnds = append(r.dictEnds, len(r.dict))
			r.dictCopied += int64(len(fd.plain))
		}
	}
	// A frame before the ones held takes their prefix, which stays.
	n := r.dictEnds[i-start-1]
	return r.decodeRead(i, f, last, r.dict[:n:n])
}

// chain returns frames i-Prefix..i, the chain frame i (f) ends, checked
// (checkChain). A Directory's is a slice of it.
func (r *Reader) chain(i int, f Frame) ([]Frame, error) {
	p := int(f.Prefix)
	bad := func(err error) error { return &CorruptError{Frame: i, Offset: f.Offset, Reason: err.Error()} }
	if p > i {
		return nil, bad(errChainStart(i, p))
	}
	var chain []Frame
	if d, ok := r.dir.(Directory); ok {
		chain = d[i-p : i+1]
	} else {
		chain = make([]Frame, p+1)
		chain[p] = f
		for j := range p {
			var err error
			if chain[j], err = r.dir.Frame(i - p + j); err != nil {
				return nil, err
			}
		}
	}
	if err := checkChain(i, chain); err != nil {
		return nil, bad(err)
	}
	return chain, nil
}

// chainDictSize is the plaintext of the chain that starts at frame start,
// its last frame left out (no frame takes it as dictionary), within
// maxChainPlain: the frames after one read are not checked yet.
func (r *Reader) chainDictSize(start int) int {
	var size int64
	f, err := r.dir.Frame(start)
	for j := start; err == nil && j+1 < r.dir.Len(); j++ {
		next, e := r.dir.Frame(j + 1)
		if e != nil || int(next.Prefix) != j+1-start {
			break // a frame that does not read: its decode says so
		}
		if size += int64(f.Plain); size > maxChainPlain {
			return maxChainPlain
		}
		f = next
	}
	return int(size)
}

// decode reads, checks and decodes frame i, whose dictionary (the bodies
// of its chain) is dict.
func (r *Reader) decode(i int, f Frame, dict []byte) (*frameData, error) {
	raw, err := r.read(i, f, r.raw)
	if err != nil {
		return nil, err
	}
	r.raw = raw
	return r.decodeRead(i, f, raw, dict)
}

// read reads frame i's stored bytes (f) into buf (grown as needed) and
// checks them.
func (r *Reader) read(i int, f Frame, buf []byte) ([]byte, error) {
	buf = slices.Grow(buf[:0], int(f.Size))[:f.Size]
	var err error
	if fs, ok := r.ra.(FrameSource); ok {
		err = fs.ReadFrame(buf, f)
	} else {
		_, err = r.ra.ReadAt(buf, f.Offset)
	}
	if err != nil {
		return buf, fmt.Errorf("chunk: read frame %d: %w", i, err)
	}
	if crc32.Checksum(buf, castagnoli) != f.CRC {
		return buf, &CorruptError{Frame: i, Offset: f.Offset, Reason: "CRC-32C mismatch"}
	}
	if f.Table > f.Size {
		return buf, &CorruptError{Frame: i, Offset: f.Offset, Reason: "table frame larger than the frame"}
	}
	return buf, nil
}

// decodeRead decodes frame i (f) from raw, its stored bytes (read), with
// dict as its dictionary when it has a chain (nil: it names none).
func (r *Reader) decodeRead(i int, f Frame, raw, dict []byte) (*frameData, error) {
	bad := func(format string, a ...any) error {
		return &CorruptError{Frame: i, Offset: f.Offset, Reason: fmt.Sprintf(format, a...)}
	}
	dec := r.dec
	if f.Prefix > 0 && dict != nil {
		var err error
		if dec, err = r.chainDecoder(dict); err != nil {
			return nil, err
		}
	}
	table, err := r.dec.DecodeAll(raw[:f.Table], r.table[:0])
	if err != nil {
		return nil, bad("zstd (chunk table): %v", err)
	}
	r.table = table
	// The spare buffer is taken only when it fits the frame closely: the
	// cache counts a frame by its buffer's capacity, so a 4 MiB spare
	// under a 40 KB frame made the cache hold one frame, and a version
	// whose chunks alternate between two chains decoded each chain again
	// at every switch (warm restores decoding 50 MB where cold ones
	// decoded 4).
	var dst []byte
	if cap(r.spare) >= int(f.Plain) && cap(r.spare) <= 2*int(f.Plain)+spareSlack {
		dst, r.spare = r.spare[:0], nil
	} else {
		dst = make([]byte, 0, f.Plain)
	}
	plain, err := dec.DecodeAll(raw[f.Table:], dst)
	if err != nil {
		return nil, bad("zstd: %v", err)
	}
	if len(plain) != int(f.Plain) {
		return nil, bad("%d plaintext bytes, directory says %d", len(plain), f.Plain)
	}
	r.decoded += int64(len(plain))
	n, k := binary.Uvarint(table)
	if k <= 0 || n != uint64(f.Chunks) {
		return nil, bad("chunk count does not match the directory")
	}
	if n > uint64(len(table)) {
		return nil, bad("chunk count past the table")
	}
	lens := make([]uint64, n)
	pos := k
	var classSum [Classes]uint64
	for j := range n {
		l, k := binary.Uvarint(table[pos:])
		if k <= 0 || l>>2 > uint64(len(plain)) {
			return nil, bad("corrupt chunk table")
		}
		pos += k
		lens[j] = l
		classSum[l&3] += l >> 2
	}
	var at [Classes]uint32 // where each class's next chunk starts
	var sum uint64
	for c, n := range classSum {
		at[c] = uint32(sum)
		sum += n
	}
	if pos != len(table) {
		return nil, bad("%d bytes after the chunk table", len(table)-pos)
	}
	if sum != uint64(len(plain)) {
		return nil, bad("chunk lengths sum to %d, frame holds %d", sum, len(plain))
	}
	// Chunks are laid out class by class, each class in number order.
	offs := make([]uint32, 2*n)
	for j, l := range lens {
		c, n := l&3, uint32(l>>2)
		offs[2*j], offs[2*j+1] = at[c], at[c]+n
		at[c] += n
	}
	return &frameData{idx: i, f: f, buf: plain, plain: plain, offs: offs}, nil
}

// namesDict says whether body, a frame's body (its second zstd frame,
// after the chunk table), names a dictionary in its frame header
// (Dictionary_ID present and not 0), as the readers' decoder takes it:
// one that names none is decoded without the chain's. A header that
// does not read says true: the frame is decoded as before, and its
// decoder says what is wrong.
func namesDict(body []byte) bool {
	var h zstd.Header
	return h.Decode(body) != nil || h.Skippable || h.DictionaryID != 0
}

// chainDecoder returns the decoder of frames with a chain, set up with
// dict.
func (r *Reader) chainDecoder(dict []byte) (*zstd.Decoder, error) {
	if r.ddec == nil {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<32))
		if err != nil {
			return nil, err
		}
		r.ddec = d
	}
	if err := r.ddec.ResetWithOptions(nil, zstd.WithDecoderDictRaw(chainDictID, dict)); err != nil {
		return nil, err
	}
	return r.ddec, nil
}

// ChainBodies returns copies of the bodies of the chain frame last ends
// (frames ChainStart(last)..last) when they hold at most limit bytes in
// all, else nil: a Writer continuing the file extends that chain.
func (r *Reader) ChainBodies(last int, limit int) ([][]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if last < 0 || last >= r.dir.Len() {
		return nil, nil
	}
	f, err := r.dir.Frame(last)
	if err != nil {
		return nil, err
	}
	chain, err := r.chain(last, f)
	if err != nil {
		return nil, err
	}
	var sum int
	for _, g := range chain {
		sum += int(g.Plain)
	}
	if sum > limit {
		return nil, nil
	}
	var out [][]byte
	for j := last - int(f.Prefix); j <= last; j++ {
		fd, err := r.frame(j)
		if err != nil {
			return nil, err
		}
		out = append(out, bytes.Clone(fd.plain))
	}
	return out, nil
}

// Chunk returns the bytes of chunk c. They alias the cache: valid until
// the next call on r from any goroutine (a decode may reuse the buffer of
// the frame they live in).
func (r *Reader) Chunk(c uint64) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.chunk(c, r.frame)
}

// AppendChunk appends the bytes of chunk c to dst: a copy, safe from
// other goroutines' calls on r.
func (r *Reader) AppendChunk(dst []byte, c uint64) ([]byte, error) {
	get := r.frameShared
	if r.shared == nil {
		r.mu.Lock()
		defer r.mu.Unlock()
		get = r.frame
	}
	b, err := r.chunk(c, get)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// eachChunk calls fn with the number and bytes of every chunk of frame
// i, in number order; the bytes are valid during the call only, and fn
// must not call r (its lock is held).
func (r *Reader) eachChunk(i int, fn func(n uint64, c []byte)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	fd, err := r.frame(i)
	if err != nil {
		return err
	}
	for o := range uint64(fd.f.Chunks) {
		fn(fd.f.FirstChunk+o, fd.plain[fd.offs[2*o]:fd.offs[2*o+1]])
	}
	return nil
}

// chunk returns the bytes of chunk c, from the frame get gives.
func (r *Reader) chunk(c uint64, get func(int) (*frameData, error)) ([]byte, error) {
	i, _, err := r.frameOf(c)
	if err != nil {
		return nil, err
	}
	fd, err := get(i)
	if err != nil {
		return nil, err
	}
	o := c - fd.f.FirstChunk
	return fd.plain[fd.offs[2*o]:fd.offs[2*o+1]], nil
}

// frameOf returns the index of the frame holding chunk c, and the frame;
// ErrNoChunk when none does.
func (r *Reader) frameOf(c uint64) (int, Frame, error) {
	i, f, err := r.dir.Find(c)
	if err == nil && i < 0 {
		err = fmt.Errorf("%w: %d (file holds %d)", ErrNoChunk, c, r.dir.NextChunk())
	}
	return i, f, err
}

// Restore appends to dst the bytes of the version whose ref list is refs.
// Each frame it names is decoded at most once, whatever the order of the
// refs and the cache size.
func (r *Reader) Restore(dst []byte, refs []uint64) ([]byte, error) {
	p := newPinned()
	defer r.lockPinned(p)()
	return r.restore(dst, refs, nil, r.getter(p))
}

// RestoreMany restores the versions whose ref lists are lists (the
// objects of one capture), each frame they name decoded at most once for
// all of them: restored one by one, versions whose chunks alternate
// between frames decoded a frame again at each switch once the cache
// held fewer frames than they name (a capture's objects of a one-ingest
// archive through a 4 MiB cache: 58 MB decoded at p99). The results are
// slices of one buffer.
func (r *Reader) RestoreMany(lists [][]uint64) ([][]byte, error) {
	p := newPinned()
	defer r.lockPinned(p)()
	return r.restoreMany(lists, r.getter(p))
}

// RestoreRecords restores the versions whose ref lists are in the chunks
// recs (an owner's records of its objects: refsOf reads record k, its
// bytes valid during the call only), as RestoreMany: the records and
// the versions' chunks together decode each frame at most once, the
// frames of their chains included. refsOf must not call r.
func (r *Reader) RestoreRecords(recs []uint64, refsOf func(k int, rec []byte) ([]uint64, error)) ([][]byte, error) {
	p := newPinned()
	defer r.lockPinned(p)()
	get := r.getter(p)
	lists := make([][]uint64, len(recs))
	for k, c := range recs {
		b, err := r.chunk(c, get)
		if err != nil {
			return nil, err
		}
		if lists[k], err = refsOf(k, b); err != nil {
			return nil, err
		}
	}
	return r.restoreMany(lists, get)
}

// restoreMany is RestoreMany, its frames from get.
func (r *Reader) restoreMany(lists [][]uint64, get func(int) (*frameData, error)) ([][]byte, error) {
	var all []uint64
	for _, l := range lists {
		all = append(all, l...)
	}
	lens := make([]int, len(all))
	buf, err := r.restore(nil, all, lens, get)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(lists))
	pos, k := 0, 0
	for i, l := range lists {
		n := 0
		for range l {
			n += lens[k]
			k++
		}
		out[i] = buf[pos : pos+n : pos+n]
		pos += n
	}
	return out, nil
}

// restore is Restore, its frames from get (getter); lens, when not nil, gets the length of each ref's chunk.
func (r *Reader) restore(dst []byte, refs []uint64, lens []int, get func(int) (*frameData, error)) ([]byte, error) {
	// Versions mostly name one or two frames, in runs: the common case
	// copies straight to dst while the frame stays the same.
	type span struct{ off, n int }
	var order []int            // frames in first-use order
	byFrame := map[int][]int{} // frame → indexes of refs
	// Consecutive refs are mostly in one frame: it is looked up once.
	last, lf := -1, Frame{}
	for k, c := range refs {
		if last < 0 || c < lf.FirstChunk || c-lf.FirstChunk >= uint64(lf.Chunks) {
			var err error
			if last, lf, err = r.frameOf(c); err != nil {
				return dst, err
			}
		}
		if _, ok := byFrame[last]; !ok {
			order = append(order, last)
		}
		byFrame[last] = append(byFrame[last], k)
	}
	if len(order) == 1 {
		fd, err := get(order[0])
		if err != nil {
			return dst, err
		}
		first := fd.f.FirstChunk
		if dst == nil {
			n := 0
			for _, c := range refs {
				n += int(fd.offs[2*(c-first)+1] - fd.offs[2*(c-first)])
			}
			dst = make([]byte, 0, n)
		}
		for k, c := range refs {
			o := c - first
			b := fd.plain[fd.offs[2*o]:fd.offs[2*o+1]]
			if lens != nil {
				lens[k] = len(b)
			}
			dst = append(dst, b...)
		}
		return dst, nil
	}
	if r.shared != nil {
		// Frames of a shared cache are never reused for another decode:
		// with every frame in hand, the chunks go straight to dst, in
		// one allocation of the version's size.
		byRef := make([]*frameData, len(refs))
		for _, i := range order {
			fd, err := get(i)
			if err != nil {
				return dst, err
			}
			for _, k := range byFrame[i] {
				byRef[k] = fd
			}
		}
		n := 0
		for k, c := range refs {
			fd := byRef[k]
			o := c - fd.f.FirstChunk
			n += int(fd.offs[2*o+1] - fd.offs[2*o])
		}
		dst = slices.Grow(dst, n)
		for k, c := range refs {
			fd := byRef[k]
			o := c - fd.f.FirstChunk
			b := fd.plain[fd.offs[2*o]:fd.offs[2*o+1]]
			if lens != nil {
				lens[k] = len(b)
			}
			dst = append(dst, b...)
		}
		return dst, nil
	}
	spans := make([]span, len(refs))
	var arena []byte
	for _, i := range order {
		fd, err := get(i)
		if err != nil {
			return dst, err
		}
		first := fd.f.FirstChunk
		for _, k := range byFrame[i] {
			o := refs[k] - first
			b := fd.plain[fd.offs[2*o]:fd.offs[2*o+1]]
			spans[k] = span{len(arena), len(b)}
			if lens != nil {
				lens[k] = len(b)
			}
			arena = append(arena, b...)
		}
	}
	for _, s := range spans {
		dst = append(dst, arena[s.off:s.off+s.n]...)
	}
	return dst, nil
}

// Cost returns the frames a restore of refs decodes with a cold cache
// (those it names and the chains before them) and their plaintext bytes.
func (d Directory) Cost(refs []uint64) (frames int, plain int64) {
	seen := map[int]bool{}
	for _, c := range refs {
		i := d.FrameOf(c)
		if i < 0 || seen[i] {
			continue
		}
		for j := d.ChainStart(i); j <= i; j++ {
			if !seen[j] {
				seen[j] = true
				frames++
				plain += int64(d[j].Plain)
			}
		}
	}
	return frames, plain
}

// Verify decodes every frame and checks it against the directory (CRC-32C
// of the stored bytes, plaintext size, chunk table). Versions are checked
// by their owner against the digests recorded at ingest.
func (r *Reader) Verify() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.dir.Len()
	for i := range n {
		var next Frame
		if i+1 < n {
			var err error
			if next, err = r.dir.Frame(i + 1); err != nil {
				return err
			}
		}
		if next.Prefix > 0 {
			// The next frame's dictionary: kept in the cache for it.
			if _, err := r.frame(i); err != nil {
				return err
			}
			continue
		}
		fd, err := r.load(i, nil)
		if err != nil {
			return err
		}
		r.spare = fd.buf[:0] // not cached: its buffer serves the next frame
	}
	return nil
}
