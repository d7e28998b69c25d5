package chunk

import (
	"container/list"
	"sync"
)

// Cache is a byte-bounded LRU of decoded frames that several Readers
// share: the Readers of one chunk file at successive lengths (the views
// of an archive at successive commits, which a server opens as an
// ingest commits). A frame never changes once written, so a Reader
// opened after a commit finds the frames an earlier one decoded instead
// of starting cold. Safe for concurrent use.
//
// A frame is known by its namespace (one per chunk file: see
// NewCachedReader), its offset, checksum, size and prefix, never by its
// number in a directory. Frames leaving the cache are left to the
// garbage collector, never reused for a decode: a Reader may still be
// copying from one without holding the cache's lock.
type Cache struct {
	mu    sync.Mutex
	max   int64
	used  int64
	added int64     // plaintext bytes of the frames put: decoded
	ll    list.List // of *cacheEntry, most recently used first
	items map[cacheKey]*list.Element
}

type cacheKey struct {
	ns     uint32
	prefix uint8
	size   uint32
	crc    uint32
	off    int64
}

type cacheEntry struct {
	key cacheKey
	fd  *frameData
}

// NewCache returns a Cache of up to bytes of decoded frames (it always
// keeps the frame added last, even a larger one).
func NewCache(bytes int64) *Cache {
	if bytes <= 0 {
		bytes = DefaultCacheBytes
	}
	return &Cache{max: bytes, items: map[cacheKey]*list.Element{}}
}

// get returns the frame of k, or nil.
func (c *Cache) get(k cacheKey) *frameData {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.ll.MoveToFront(e)
		return e.Value.(*cacheEntry).fd
	}
	return nil
}

// put adds fd under k, evicting the least recently used frames beyond
// the bound.
func (c *Cache) put(k cacheKey, fd *frameData) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok { // decoded by two Readers at once
		c.ll.MoveToFront(e)
		return
	}
	c.items[k] = c.ll.PushFront(&cacheEntry{k, fd})
	c.used += int64(cap(fd.buf))
	c.added += int64(len(fd.buf))
	for c.used > c.max && c.ll.Len() > 1 {
		e := c.ll.Back()
		it := e.Value.(*cacheEntry)
		c.ll.Remove(e)
		delete(c.items, it.key)
		c.used -= int64(cap(it.fd.buf))
	}
}

// Used returns the bytes of decoded frames the cache holds and how many
// frames.
func (c *Cache) Used() (bytes int64, frames int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used, c.ll.Len()
}

// Added returns the plaintext bytes of every frame put in the cache since
// it was made: the bytes its Readers decoded.
func (c *Cache) Added() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.added
}
