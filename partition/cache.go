package partition

import (
	"container/list"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
)

// Bounds of a Partitioner's caches. They are what one worker keeps
// between pages, whatever the pages: a few dozen sites' style sheets and
// the vocabulary of a few languages.
const (
	// maxSheetCacheBytes bounds the text bytes of the sheets whose parsed
	// rules are kept (parsed rules take a few times their text: under
	// ~20 MiB in all); maxSheetCacheEntries bounds their number.
	maxSheetCacheBytes   = 4 << 20
	maxSheetCacheEntries = 256
	// maxStemCacheEntries bounds the words whose stems are kept; when
	// full, the cache is emptied and refills with the words in use.
	maxStemCacheEntries = 1 << 16
	// maxScratchDoc is the largest document whose scratch tables (style
	// keys, text index, topic tables: a few times the document's size)
	// are kept for the next page; a larger one's are dropped.
	maxScratchDoc = 16 << 20
)

// Partitioner partitions documents one after another, keeping what does
// not depend on the document between calls: the parsed rules of style
// sheets it has seen (a site repeats the same <style> blocks from page
// to page and capture to capture; one sheet of tens of KB costs more to
// parse than the rest of a small page) and the stems of words. Its
// caches are bounded (maxSheetCacheBytes, maxSheetCacheEntries,
// maxStemCacheEntries) and never change a result: Partitioner.Partition
// gives exactly what Partition gives, whatever came before. It also
// reuses the memory of its per-page scratch tables (never part of a
// Result), sized by the largest page up to maxScratchDoc it has seen.
//
// A Partitioner is not safe for concurrent use: give each worker its
// own. Results do not share memory with it, so they stay valid after
// later calls.
type Partitioner struct {
	sheets sheetCache
	joined joinCache
	stems  stemCache

	// Per-page scratch that no Result keeps, reused by the next page
	// (and emptied after use, so it keeps no page alive).
	styleKeys    []elemKey
	styleClasses []string // backing of styleKeys' class lists
	styleNone    []bool
	styleShare   []styleShare
	tree         treeBuilder   // scratch of the tree builder
	index        *docIndex     // tables of the last text index
	topic        *topicer      // tables of the last topicer
	regions      []regionFacts // scratch of the adaptive partition
}

// NewPartitioner returns a Partitioner with empty caches.
func NewPartitioner() *Partitioner {
	return &Partitioner{
		sheets: sheetCache{byKey: map[uint64]*list.Element{}, seed: maphash.MakeSeed(), maxBytes: maxSheetCacheBytes, maxEntries: maxSheetCacheEntries},
		stems:  stemCache{m: map[stemKey]string{}, max: maxStemCacheEntries},
	}
}

// parsedSheet is the rules of one sheet, in source order, with order
// counted from 0 within the sheet. At most maxRules are kept, which is
// all any page can use of one sheet. Parsed sheets are shared by pages
// and never modified.
type parsedSheet struct {
	key   uint64
	text  string // what was parsed, to confirm a hit
	size  int
	rules []cssRule
}

// sheetCache is an LRU of parsed sheets keyed by a hash of their text,
// a hit being confirmed by comparing the texts (parsing depends on
// nothing else: media queries are evaluated for one fixed screen).
type sheetCache struct {
	byKey map[uint64]*list.Element // of *parsedSheet
	seed  maphash.Seed
	lru   list.List // front: most recently used
	bytes int       // sum of the cached sheets' sizes

	maxBytes, maxEntries int // the bounds (tests lower them)
}

// get returns the parsed rules of text, parsing it on a miss.
func (c *sheetCache) get(text []byte) *parsedSheet {
	if len(text) > maxSheetBytes {
		text = text[:maxSheetBytes] // all that parsing reads
	}
	key := maphash.Bytes(c.seed, text)
	if e, ok := c.byKey[key]; ok {
		if ps := e.Value.(*parsedSheet); ps.text == string(text) {
			c.lru.MoveToFront(e)
			return ps
		}
		c.remove(e) // another text with the same hash: replaced below
	}
	ps := parseSheet(string(text))
	ps.key = key
	if ps.size > c.maxBytes || c.maxEntries <= 0 {
		return ps
	}
	for c.lru.Len() >= c.maxEntries || c.bytes+ps.size > c.maxBytes {
		c.remove(c.lru.Back())
	}
	c.byKey[key] = c.lru.PushFront(ps)
	c.bytes += ps.size
	return ps
}

// remove drops entry e from the cache.
func (c *sheetCache) remove(e *list.Element) {
	o := e.Value.(*parsedSheet)
	c.lru.Remove(e)
	delete(c.byKey, o.key)
	c.bytes -= o.size
}

// parseSheet parses text (a copy: a cached sheet must not keep its
// page alive) into a parsedSheet.
func parseSheet(text string) *parsedSheet {
	ss := newStyleSheets()
	ss.add(text)
	ps := &parsedSheet{text: text, size: len(text), rules: make([]cssRule, 0, ss.n)}
	for _, r := range ss.all {
		ps.rules = append(ps.rules, *r)
	}
	return ps
}

// stemKey is a word for one stemmer.
type stemKey struct {
	stemmer, word string
}

// stemCache maps words to their snowball stems across documents.
type stemCache struct {
	m   map[stemKey]string
	max int // the bound on len(m) (tests lower it)
}

func (c *stemCache) get(stemmer, w string) (string, bool) {
	s, ok := c.m[stemKey{stemmer, w}]
	return s, ok
}

func (c *stemCache) put(stemmer, w, s string) {
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[stemKey{stemmer, strings.Clone(w)}] = strings.Clone(s)
}

// Partition is the package-level Partition using p's caches.
func (p *Partitioner) Partition(doc []byte, opts Options) (res *Result, err error) {
	if len(doc) > maxDocBytes {
		return nil, fmt.Errorf("partition document: %d bytes exceeds the %d-byte limit", len(doc), maxDocBytes)
	}
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("partition document of %d bytes: internal error: %v", len(doc), r)
			// The scratch tables may be half-filled: start afresh.
			p.styleKeys, p.styleClasses, p.styleNone, p.styleShare, p.index, p.topic, p.regions = nil, nil, nil, nil, nil, nil, nil
			p.tree = treeBuilder{}
		}
	}()
	res = p.partition(doc, opts, nil)
	if len(doc) > maxScratchDoc {
		p.styleKeys, p.styleClasses, p.styleNone, p.styleShare, p.index, p.topic, p.regions = nil, nil, nil, nil, nil, nil, nil
		p.tree = treeBuilder{}
	}
	return res, nil
}

// maxJoinCacheEntries bounds joinCache: the pages of one site share a few
// sets of sheets.
const maxJoinCacheEntries = 4

// joinCache keeps the last few page rule sets (joinSheets), keyed by the
// parsed sheets they join, in order: pages of a site repeat the same
// sheets, and indexing tens of thousands of rules costs more than many a
// page. Parsed sheets are never changed once parsed, and neither is a
// joined set after joinSheets, so a hit gives what joinSheets would.
type joinCache struct {
	entries []joinEntry // most recently used last
}

type joinEntry struct {
	key []*parsedSheet
	ss  *styleSheets
}

// get returns joinSheets(parsed), from the cache when it holds it.
func (c *joinCache) get(parsed []*parsedSheet) *styleSheets {
	for i, e := range c.entries {
		if slices.Equal(e.key, parsed) {
			copy(c.entries[i:], c.entries[i+1:])
			c.entries[len(c.entries)-1] = e
			return e.ss
		}
	}
	ss := joinSheets(parsed)
	if len(c.entries) == maxJoinCacheEntries {
		copy(c.entries, c.entries[1:])
		c.entries = c.entries[:len(c.entries)-1]
	}
	c.entries = append(c.entries, joinEntry{key: parsed, ss: ss})
	return ss
}
