package partition

import (
	"fmt"
	"sort"
	"strconv"
)

// How a Result of PartitionStored relates to the blocks an archive
// stored.
const (
	// StoredCut: the partition cuts exactly the stored blocks, with its
	// full block tree and paths (the archive was written by this
	// partition, following the URL's earlier captures or not).
	StoredCut = iota
	// StoredSpans: today's partition does not cut the stored blocks (an
	// archive written by an older partition, or at options since
	// changed); the leaves are the stored blocks read at their spans
	// (PartitionSpans), named by today's blocks holding them.
	StoredSpans
)

// PartitionStored partitions doc, whose kept blocks an archive stored at
// spans, so that the result's leaves are exactly those blocks: the
// partition the archive holds, which is not always what Partition gives
// afresh. Ingest partitions a URL's capture with the previous capture's
// partition as Options.Prior (the adaptive choice kept while the layout
// holds), so a capture's stored blocks depend on its history; readers
// (blocks, diff, the tables) must show those, not a fresh choice.
//
// At the adaptive level the stored blocks decide which blocks are
// divided (a block is kept when it is a stored block, or carves into
// exactly the stored ones); at a fixed level the partition is the
// level's. When that cuts the stored spans, the result is that partition
// (StoredCut). Otherwise the spans are read by PartitionSpans and each is
// named by the path of the guided partition's block with exactly its
// bytes, else of the smallest block holding it, with "~k" appended when
// several spans would share a name (StoredSpans): every path is unique.
// opts.Prior is not read.
func (pp *Partitioner) PartitionStored(doc []byte, spans [][2]int, opts Options) (res *Result, how int, err error) {
	if len(doc) > maxDocBytes {
		return nil, 0, fmt.Errorf("partition document: %d bytes exceeds the %d-byte limit", len(doc), maxDocBytes)
	}
	at := 0
	for _, s := range spans {
		if s[0] < at || s[1] < s[0] || s[1] > len(doc) {
			return nil, 0, fmt.Errorf("span [%d, %d) after offset %d of %d bytes: %w", s[0], s[1], at, len(doc), ErrSpans)
		}
		at = s[1]
	}
	opts.Prior = nil
	var guide *spanGuide
	if opts.Level < 0 || opts.Level == 0 && DefaultLevel < 0 {
		guide = newSpanGuide(spans)
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				res, err = nil, fmt.Errorf("partition document of %d bytes: internal error: %v", len(doc), r)
				pp.styleKeys, pp.styleClasses, pp.styleNone, pp.styleShare, pp.index, pp.topic, pp.regions = nil, nil, nil, nil, nil, nil, nil
				pp.tree = treeBuilder{}
			}
		}()
		res = pp.partition(doc, opts, guide)
	}()
	if err != nil {
		return nil, 0, err
	}
	if SameSpans(res.Leaves, spans) {
		if len(doc) > maxScratchDoc {
			pp.styleKeys, pp.styleClasses, pp.styleNone, pp.styleShare, pp.index, pp.topic, pp.regions = nil, nil, nil, nil, nil, nil, nil
			pp.tree = treeBuilder{}
		}
		return res, StoredCut, nil
	}
	// Paths first: the Partitioner reuses its tables for the next
	// document, res's included.
	paths := SpanPaths(res, spans)
	if res, err = pp.PartitionSpans(doc, spans, opts); err != nil {
		return nil, 0, err
	}
	for i, b := range res.Leaves {
		b.Path = paths[i]
	}
	return res, StoredSpans, nil
}

// SameSpans tells whether the leaves lie exactly at the spans.
func SameSpans(leaves []*Block, spans [][2]int) bool {
	if len(leaves) != len(spans) {
		return false
	}
	for i, b := range leaves {
		if b.Start != spans[i][0] || b.End != spans[i][1] {
			return false
		}
	}
	return true
}

// SpanPaths names each span by the path of res's block (at any level)
// with exactly its bytes, else of the smallest block containing it, else
// "~N" (N its 1-based place) for a span no block of res holds. Names
// several spans would share get "~k" appended (k from 1 in document
// order), so that every name is unique.
func SpanPaths(res *Result, spans [][2]int) []string {
	out := make([]string, len(spans))
	var all []*Block
	var walk func(bs []*Block)
	walk = func(bs []*Block) {
		for _, b := range bs {
			all = append(all, b)
			walk(b.Children)
		}
	}
	walk(res.Blocks)
	count := map[string]int{}
	for i, s := range spans {
		out[i] = "~" + strconv.Itoa(i+1)
		best := -1
		for k, b := range all {
			if b.Start <= s[0] && s[1] <= b.End && (best < 0 || b.End-b.Start < all[best].End-all[best].Start) {
				best = k
			}
		}
		if best >= 0 {
			out[i] = all[best].Path
		}
		count[out[i]]++
	}
	seen := map[string]int{}
	for i, p := range out {
		if count[p] > 1 {
			seen[p]++
			out[i] = p + "~" + strconv.Itoa(seen[p])
		}
	}
	return out
}

// spanGuide holds the stored spans that decide the adaptive division in
// PartitionStored.
type spanGuide struct {
	spans [][2]int    // in document order
	ends  map[int]int // start → end of each non-empty span
}

func newSpanGuide(spans [][2]int) *spanGuide {
	g := &spanGuide{spans: spans, ends: make(map[int]int, len(spans))}
	for _, s := range spans {
		if s[1] > s[0] {
			g.ends[s[0]] = s[1]
		}
	}
	return g
}

// divides tells whether block b, which the rules can divide, was divided
// when the stored blocks were cut: not when b is a stored block, or when
// the pieces carveLeaves would cut a kept b into are exactly the stored
// blocks inside it.
func (g *spanGuide) divides(p *partitioner, b *Block) bool {
	if e, ok := g.ends[b.Start]; ok && e == b.End {
		return false
	}
	if b.Node == nil || b.Node.Tag == "head" || p.selfIsland(b.Node) || !p.hasIslands(b.Node) {
		return true
	}
	pieces := p.carve(b.Node, nil)
	i := sort.Search(len(g.spans), func(i int) bool { return g.spans[i][0] >= b.Start })
	for _, n := range pieces {
		if i >= len(g.spans) || g.spans[i][0] != n.Start || g.spans[i][1] != n.End {
			return true
		}
		i++
	}
	// Kept and carved only if no further stored block lies inside b.
	return len(pieces) == 0 || i < len(g.spans) && g.spans[i][0] < b.End
}
