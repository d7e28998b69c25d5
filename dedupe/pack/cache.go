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
}

type cacheItem struct {
	key frameKey
	f   *decodedFrame
}

func newFrameCache(max int64) *frameCache {
	return &frameCache{max: max, ll: list.New(), items: make(map[frameKey]*list.Element)}
}

func (c *frameCache) get(k frameKey) *decodedFrame {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.ll.MoveToFront(e)
		return e.Value.(*cacheItem).f
	}
	return nil
}

// put adds f. A frame larger than the whole cache replaces everything:
// the cache always keeps the frame decoded last, so that reading the
// objects of one large frame one after the other (the blocks of a page)
// decompresses it once. Memory is then that one frame.
func (c *frameCache) put(k frameKey, f *decodedFrame) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[k]; ok {
		return
	}
	c.items[k] = c.ll.PushFront(&cacheItem{key: k, f: f})
	c.used += f.cost()
	for c.used > c.max && c.ll.Len() > 1 {
		e := c.ll.Back()
		it := e.Value.(*cacheItem)
		c.ll.Remove(e)
		delete(c.items, it.key)
		c.used -= it.f.cost()
	}
}

// purge drops everything: used when a writer abandons uncommitted frames,
// whose pack offsets the next writer will reuse.
func (c *frameCache) purge() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ll.Init()
	clear(c.items)
	c.used = 0
}
