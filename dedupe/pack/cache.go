package pack

import (
	"container/list"
	"os"
	"path/filepath"
	"sync"

	"github.com/blockwarc/blockwarc/dedupe/chunk"
)

type frameKey struct {
	pack uint32
	off  int64
}

// cacheKey is a frame's key in a frameCache: where it lies, in the
// namespace of its archive directory (0 for a Store's own cache; see
// Cache).
type cacheKey struct {
	ns uint32
	frameKey
}

// decodedFrame is a decompressed, checked frame.
type decodedFrame struct {
	plain []byte
	spans []objSpan
	depth uint8
	// reach bounds the plaintext bytes decoding this frame takes from
	// nothing: its own plus, per distinct base frame, that frame's reach
	// (frames shared further down are counted again, so it errs high).
	reach int64
	key   frameKey

	// refs counts holders (guarded by frameCache.mu): whoever got the
	// frame from frame() holds it until release. The plaintext buffer is
	// recycled for another decode only once the frame has left the cache
	// and nobody holds it, so object bytes stay valid while held.
	refs   int32
	cached bool
}

func (d *decodedFrame) cost() int64 { return int64(len(d.plain) + 12*len(d.spans) + 64) }

// frameCache is a byte-bounded LRU of decoded frames, so that reading the
// objects of one frame, or a popular delta base, decompresses it once.
type frameCache struct {
	mu    sync.Mutex
	max   int64
	used  int64
	added int64 // plaintext bytes of the frames put: decoded
	ll    *list.List
	items map[cacheKey]*list.Element

	// free holds plaintext buffers of frames gone from the cache, for
	// the next decodes: a fresh 4 MiB buffer costs its zeroing and page
	// faults, about a quarter of a restore's time. At most maxFree bytes.
	free     [][]byte
	freeUsed int64
	maxFree  int64
}

type cacheItem struct {
	key cacheKey
	f   *decodedFrame
}

func newFrameCache(limit int64) *frameCache {
	return &frameCache{max: limit, ll: list.New(), items: make(map[cacheKey]*list.Element), maxFree: min(64<<20, max(limit, 16<<20))}
}

// get returns the cached frame k, held (see release), or nil.
func (c *frameCache) get(k cacheKey) *decodedFrame {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.ll.MoveToFront(e)
		f := e.Value.(*cacheItem).f
		f.refs++
		return f
	}
	return nil
}

// release drops a hold on f taken by get or put.
func (c *frameCache) release(f *decodedFrame) {
	if f == nil { // an object restored from chunks holds no frame
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	f.refs--
	if f.refs == 0 && !f.cached {
		c.recycle(f)
	}
}

// recycle keeps f's buffer for a later decode; f must be unreachable
// from the cache and unheld. c.mu held.
func (c *frameCache) recycle(f *decodedFrame) {
	c.keep(f.plain)
	f.plain, f.spans = nil, nil
}

// keep adds b to the free buffers if they have room. c.mu held.
func (c *frameCache) keep(b []byte) {
	if cap(b) == 0 || c.freeUsed+int64(cap(b)) > c.maxFree {
		return
	}
	c.free = append(c.free, b[:0])
	c.freeUsed += int64(cap(b))
}

// take returns a recycled buffer of capacity at least n (the smallest
// one), or nil.
func (c *frameCache) take(n int) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	best := -1
	for i, b := range c.free {
		if cap(b) >= n && (best < 0 || cap(b) < cap(c.free[best])) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	b := c.free[best]
	c.free[best] = c.free[len(c.free)-1]
	c.free = c.free[:len(c.free)-1]
	c.freeUsed -= int64(cap(b))
	return b
}

// give returns a buffer that holds no frame (a failed decode) to the
// free list.
func (c *frameCache) give(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keep(b)
}

// put adds f. A frame larger than the whole cache replaces everything:
// the cache always keeps the frame decoded last, so that reading the
// objects of one large frame one after the other (the blocks of a page)
// decompresses it once. Memory is then that one frame.
//
// put returns the frame held for the caller: f, or the frame another
// reader cached under k meanwhile (f's buffer is then recycled).
func (c *frameCache) put(k cacheKey, f *decodedFrame) *decodedFrame {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		old := e.Value.(*cacheItem).f
		old.refs++
		c.recycle(f)
		return old
	}
	f.refs, f.cached = 1, true
	c.items[k] = c.ll.PushFront(&cacheItem{key: k, f: f})
	c.used += f.cost()
	c.added += int64(len(f.plain))
	for c.used > c.max && c.ll.Len() > 1 {
		e := c.ll.Back()
		it := e.Value.(*cacheItem)
		c.ll.Remove(e)
		delete(c.items, it.key)
		c.used -= it.f.cost()
		it.f.cached = false
		if it.f.refs == 0 {
			c.recycle(it.f)
		}
	}
	return f
}

// purge drops everything: used when a writer abandons uncommitted frames,
// whose pack offsets the next writer will reuse.
func (c *frameCache) purge() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.items {
		e.Value.(*cacheItem).f.cached = false // buffers go to the GC, not to free
	}
	c.ll.Init()
	clear(c.items)
	c.used = 0
}

// Cache holds decoded frames for the read-only Stores opened with it
// (Options.Cache): the views of archives that a server opens again at
// each commit an ingest publishes. Frames never change once committed,
// so a view opened after a commit starts with the frames the earlier
// views decoded, where a Store of its own would start cold. Safe for
// concurrent use; one Cache may serve several archive directories.
type Cache struct {
	frames *frameCache  // frames of objects (catalog segments, place-less objects)
	chunks *chunk.Cache // frames of chunks

	mu   sync.Mutex
	dirs map[string]cacheDir
	next uint32
}

// cacheDir is a directory's namespace in a Cache, and the directory's
// identity when it was given: a directory removed and created again (a
// new archive at the same path) gets a new namespace.
type cacheDir struct {
	ns uint32
	fi os.FileInfo
}

// NewCache returns a Cache of up to bytes of decoded frames: a quarter
// for frames of objects, the rest for frames of chunks, which hold the
// captures' bytes. Each part always keeps the frame added last, even a
// larger one; buffers of frames of objects gone from the cache are kept
// for later decodes, up to as many bytes again (see frameCache).
func NewCache(bytes int64) *Cache {
	if bytes <= 0 {
		bytes = DefaultCacheBytes
	}
	return &Cache{
		frames: newFrameCache(bytes / 4),
		chunks: chunk.NewCache(bytes - bytes/4),
		dirs:   map[string]cacheDir{},
	}
}

// DefaultCacheBytes is the size of a Cache when none is given.
const DefaultCacheBytes = 128 << 20

// namespace returns dir's namespace in c.
func (c *Cache) namespace(dir string) (uint32, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return 0, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.dirs[abs]; ok && os.SameFile(d.fi, fi) {
		return d.ns, nil
	}
	c.next++
	c.dirs[abs] = cacheDir{c.next, fi}
	return c.next, nil
}

// CacheStats say what a Cache holds and has decoded.
type CacheStats struct {
	// Objects and Chunks are the bytes of decoded frames held, of
	// objects and of chunks; Frames how many frames in all.
	Objects, Chunks int64
	Frames          int
	// Decoded is the plaintext bytes of every frame put in the cache
	// since it was made: what its Stores decompressed.
	Decoded int64
}

// Stats returns what c holds and has decoded.
func (c *Cache) Stats() CacheStats {
	c.frames.mu.Lock()
	st := CacheStats{Objects: c.frames.used, Frames: c.frames.ll.Len(), Decoded: c.frames.added}
	c.frames.mu.Unlock()
	var n int
	st.Chunks, n = c.chunks.Used()
	st.Frames += n
	st.Decoded += c.chunks.Added()
	return st
}
