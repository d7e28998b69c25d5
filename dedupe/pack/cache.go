package pack

import (
	"container/list"
	"sync"
)

type frameKey struct {
	pack uint32
	off  int64
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
	ll    *list.List
	items map[frameKey]*list.Element

	// free holds plaintext buffers of frames gone from the cache, for
	// the next decodes: a fresh 4 MiB buffer costs its zeroing and page
	// faults, about a quarter of a restore's time. At most maxFree bytes.
	free     [][]byte
	freeUsed int64
	maxFree  int64
}

type cacheItem struct {
	key frameKey
	f   *decodedFrame
}

func newFrameCache(limit int64) *frameCache {
	return &frameCache{max: limit, ll: list.New(), items: make(map[frameKey]*list.Element), maxFree: min(64<<20, max(limit, 16<<20))}
}

// get returns the cached frame k, held (see release), or nil.
func (c *frameCache) get(k frameKey) *decodedFrame {
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
func (c *frameCache) put(k frameKey, f *decodedFrame) *decodedFrame {
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
