package partition

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
)

// ErrSpans says the spans given to PartitionSpans are not disjoint byte
// ranges of the document in order.
var ErrSpans = errors.New("spans are not ordered, disjoint ranges of the document")

// PartitionSpans is Partition for a document whose kept blocks are
// already known — the byte spans an archive stored as its blocks — so the
// result describes those blocks, whichever partitioner (an older version,
// another level) cut them: the same bytes always give the same blocks.
// Each span becomes one leaf, annotated as Partition annotates (text,
// features, topic, label); the leaves are also the top-level blocks
// (Level 1, paths "1", "2", … unless the caller renames them). Layout and
// leaves reassemble to doc exactly. A span is the bytes of one node, or of
// a run of sibling nodes (a FragmentNode) — what a partition's leaves
// always are; any other span still becomes a block, over the nodes
// inside it.
func (p *Partitioner) PartitionSpans(doc []byte, spans [][2]int, opts Options) (res *Result, err error) {
	if len(doc) > maxDocBytes {
		return nil, fmt.Errorf("partition document: %d bytes exceeds the %d-byte limit", len(doc), maxDocBytes)
	}
	at := 0
	for _, s := range spans {
		if s[0] < at || s[1] < s[0] || s[1] > len(doc) {
			return nil, fmt.Errorf("span [%d, %d) after offset %d of %d bytes: %w", s[0], s[1], at, len(doc), ErrSpans)
		}
		at = s[1]
	}
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("partition document of %d bytes by spans: internal error: %v", len(doc), r)
			p.styleKeys, p.styleClasses, p.styleNone, p.styleShare, p.index, p.topic, p.regions = nil, nil, nil, nil, nil, nil, nil
			p.tree = treeBuilder{}
		}
	}()
	root, nodes := p.tree.build(doc)
	styles := p.computeStyles(nodes, p.styleSheets(doc, nodes, opts.StyleSheets))
	res = &Result{Doc: doc, Root: root, styles: styles, nodes: nodes, keys: &leafKeyCache{}}
	res.Charset = resolveCharset(doc, opts.Charset, opts.ContentType)
	res.facts = computeFacts(doc, nodes, &res.styles)
	part := &partitioner{doc: doc, styles: &res.styles, facts: res.facts}
	found := make([]*Node, len(spans))
	for i, s := range spans {
		found[i] = spanNode(root, s[0], s[1])
	}
	res.Blocks = part.newBlocks(nil, found, 1)
	for i, b := range res.Blocks {
		b.Path = strconv.Itoa(i + 1)
	}
	res.Leaves = res.Blocks
	res.Layout = newLayout(doc, res.Leaves)
	p.index, p.topic = annotate(res, opts, &p.stems, p.index, p.topic)
	if len(doc) > maxScratchDoc {
		p.styleKeys, p.styleClasses, p.styleNone, p.styleShare, p.index, p.topic, p.regions = nil, nil, nil, nil, nil, nil, nil
		p.tree = treeBuilder{}
	}
	return res, nil
}

// spanNode returns the node whose bytes are exactly [s, e), or a
// FragmentNode over the children of the smallest node containing the
// span that lie in it.
func spanNode(root *Node, s, e int) *Node {
	n := root
	if n.Start == s && n.End == e {
		return n
	}
	for {
		ch := n.Children
		k := sort.Search(len(ch), func(k int) bool { return ch[k].End > s })
		if k == len(ch) || ch[k].Start > s || ch[k].End < e || (ch[k].Start == ch[k].End && s == e) {
			break
		}
		if ch[k].Start == s && ch[k].End == e {
			return ch[k]
		}
		n = ch[k]
	}
	ch := n.Children
	i := sort.Search(len(ch), func(k int) bool { return ch[k].Start >= s })
	j := i
	for j < len(ch) && ch[j].End <= e {
		j++
	}
	return &Node{Kind: FragmentNode, Parent: n, Children: ch[i:j:j], Start: s, End: e, id: -1, depth: childDepth(n)}
}
