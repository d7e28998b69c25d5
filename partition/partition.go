package partition

import (
	"strconv"
)

// maxDocBytes is the largest document Partition accepts: node ids are
// 32-bit, and a single HTML payload beyond a gigabyte is not a page.
const maxDocBytes = 1 << 30

// maxLevel bounds Options.Level.
const maxLevel = 64

// DefaultLevel is the partition level kept when Options.Level is 0: the
// adaptive partition (LevelAdaptive). It is the one default of the
// product: ingest, the tables and the blocks command all use it (a URL
// with history keeps the level it was archived at, which the archive
// records).
const DefaultLevel = LevelAdaptive

// partitioner holds the per-document tables ExtractBlock reads.
type partitioner struct {
	doc      []byte
	facts    []facts
	styles   *styleTable
	maxDepth int
	regions  []regionFacts // adaptive partition only
	guide    *spanGuide    // PartitionStored: the stored blocks decide the adaptive division
}

// Partition splits doc into blocks and a layout. It tokenizes the
// original bytes (no decoding, no re-serialisation), so every block is a
// byte span of doc and Reassemble(res.Layout, leaves) == doc. It is
// deterministic and does not panic on any input; the only error is a
// document too large to be a page. To partition many pages, give each
// worker a Partitioner: same results, less work.
func Partition(doc []byte, opts Options) (*Result, error) {
	return NewPartitioner().Partition(doc, opts)
}

// partition is Partition for a document within bounds.
func (pp *Partitioner) partition(doc []byte, opts Options, guide *spanGuide) *Result {
	level := opts.Level
	if level == 0 {
		level = DefaultLevel
	}
	if level < 0 {
		level = LevelAdaptive
	}
	level = min(level, maxLevel)

	root, nodes := pp.tree.build(doc)
	styles := pp.computeStyles(nodes, pp.styleSheets(doc, nodes, opts.StyleSheets))
	res := &Result{Doc: doc, Root: root, styles: styles, nodes: nodes, keys: &leafKeyCache{}}
	res.Charset = resolveCharset(doc, opts.Charset, opts.ContentType)
	p := &partitioner{doc: doc, styles: &res.styles, facts: computeFacts(doc, nodes, &res.styles), maxDepth: opts.MaxDepth, guide: guide,
		regions: pp.regions}
	res.facts = p.facts
	res.Blocks = p.newBlocks(nil, withHead(root, p.extractBlock(root)), 1)
	frontier := res.Blocks
	if level == LevelAdaptive {
		prior := opts.Prior
		if guide != nil {
			prior = nil
		}
		res.plan = p.adaptive(res.Blocks, nodes, root, prior)
		pp.regions = p.regions // no Result keeps them: the next page reuses the memory
		frontier = nil
	}
	for lv := 2; lv <= level && len(frontier) > 0; lv++ {
		var next []*Block
		for _, b := range frontier {
			kids := p.extractBlock(b.Node)
			if len(kids) < 2 {
				continue // cannot be divided: stays as it is (paper, figure 6)
			}
			b.Children = p.newBlocks(b, kids, lv)
			next = append(next, b.Children...)
		}
		frontier = next
	}
	if blocks, changed := p.carveLeaves(res.Blocks); changed {
		res.Blocks = blocks
		renumber(res.Blocks, "")
	}
	res.Leaves = collectLeaves(res.Blocks)
	res.Layout = newLayout(doc, res.Leaves)
	if !opts.SkipAnnotation {
		pp.index, pp.topic = annotate(res, opts, &pp.stems, pp.index, pp.topic)
	}
	return res
}

// BlockBytes returns the bytes of b in the document (not a copy).
func (r *Result) BlockBytes(b *Block) []byte { return r.Doc[b.Start:b.End] }

// extractBlock is ExtractBlock of the paper for one level: starting at
// n, it descends through nodes the rules divide and that have a single
// candidate child (wrappers), and returns the candidate blocks found at
// the first node that divides into several, or the node where the rules
// say keep. A result of fewer than two blocks means n cannot be divided
// at this level. Iterative: the descent is bounded by the tree depth.
func (p *partitioner) extractBlock(n *Node) []*Node {
	cur := n
	for {
		d, _ := p.isBlock(cur)
		switch d {
		case skip:
			return nil
		case keep:
			return []*Node{cur}
		}
		segs := p.segments(cur)
		switch {
		case len(segs) == 0:
			return nil
		case len(segs) == 1:
			s := segs[0]
			if s.Kind != ElementNode {
				return []*Node{cur}
			}
			cur = s
		default:
			// Headings are ranked before tightening: a bold-only
			// paragraph tightens to its <strong>.
			ranks := make([]int8, len(segs))
			tight := make([]*Node, len(segs))
			for i, s := range segs {
				ranks[i] = int8(headingRank(p.doc, s))
				tight[i] = p.tighten(s)
			}
			return p.sections(cur, segs, tight, ranks)
		}
	}
}

// tighten descends from a candidate block through wrappers: by rule 3 a
// node with a single valid (non-text) child is divided, so it is not a
// block itself; its child is. The wrappers' tags go to the layout, which
// keeps a block's bytes the same when a redesign adds or drops wrappers.
// A wrapper that names its region — an HTML5 landmark or sectioning
// element, or an element with an id or a role — is kept as the block:
// its name is what labels the region (rule 3 comes from VIPS, which
// predates landmarks).
func (p *partitioner) tighten(n *Node) *Node {
	for n.Kind == ElementNode && !namesRegion(n) {
		d, rule := p.isBlock(n)
		if d != divide || rule != ruleOneChild {
			return n
		}
		_, only := p.validChildren(n)
		n = only
	}
	return n
}

// sections groups the segments of a flat region by its headings
// (headingRank: h1-h6, role=heading with aria-level, and below h6
// bold-only paragraphs): when two or more segments are headings of the
// same rank r (the highest rank that occurs twice), each such heading and the segments after it up to
// the next heading of rank r or higher become one section (a
// FragmentNode that the next level divides again). Segments before the
// first such heading, and headings of higher rank, stay as they are.
// This gives a long text-only page a block tree by its outline rather
// than a flat list of paragraphs.
func (p *partitioner) sections(n *Node, segs, tight []*Node, ranks []int8) []*Node {
	var count [boldRank + 1]int
	for _, r := range ranks {
		count[r]++
	}
	rank := 0
	for r := 1; r <= boldRank; r++ {
		if count[r] >= 2 {
			rank = r
			break
		}
	}
	if rank == 0 {
		return tight
	}
	out := make([]*Node, 0, len(segs))
	first, last := -1, -1 // the segments of the current section
	from := 0             // index into n.Children where the next section's search starts
	flush := func() {
		switch {
		case first < 0:
		case first == last:
			out = append(out, tight[first])
		default:
			// A section spans its segments as they are, not tightened.
			out = append(out, p.sectionNode(n, segs[first].Start, segs[last].End, &from))
		}
		first, last = -1, -1
	}
	for i := range segs {
		h := int(ranks[i])
		switch {
		case h > 0 && h < rank:
			// A heading above the rank (a page title, a section's
			// own heading above its subsections) leads the segments
			// up to the next heading: heading and lead paragraphs.
			flush()
			first, last = i, i
		case h == rank:
			flush()
			first, last = i, i
		case first >= 0:
			last = i
		default:
			out = append(out, tight[i])
		}
	}
	flush()
	if len(out) < 2 {
		return tight
	}
	return out
}

// sectionNode makes the section FragmentNode covering [start, end) of
// n's children (the children of a fragment are real nodes). Sections come
// in document order, so the search resumes at *from: linear overall.
func (p *partitioner) sectionNode(n *Node, start, end int, from *int) *Node {
	i := *from
	for i < len(n.Children) && n.Children[i].Start < start {
		i++
	}
	j := i
	for j < len(n.Children) && n.Children[j].End <= end {
		j++
	}
	*from = j
	return &Node{Kind: FragmentNode, Parent: n, Children: n.Children[i:j:j], Start: start, End: end,
		id: -1, depth: childDepth(n), section: true}
}

// childDepth is the DOM depth of n's children (a fragment's children
// are its parent's children).
func childDepth(n *Node) int16 {
	if n.Kind == FragmentNode {
		return n.depth
	}
	return n.depth + 1
}

// segments returns the candidate blocks among n's children: each valid
// block-level child is one; consecutive inline content (text and
// text-level elements, single <br>s) forms one run, broken by
// block-level children, <hr> and runs of two or more <br>. A run of one
// node is that node; a longer run is a FragmentNode covering exactly the
// run. Invisible children and separators go to the layout.
func (p *partitioner) segments(n *Node) []*Node {
	var segs, run, pending []*Node
	brs := 0
	// There are at most as many segments as children: room for them at
	// the first spares growing the slice one append at a time.
	grow := func() {
		if segs == nil {
			segs = make([]*Node, 0, len(n.Children))
		}
	}
	flush := func() {
		switch len(run) {
		case 0:
		case 1:
			grow()
			segs = append(segs, run[0])
		default:
			fr := &Node{Kind: FragmentNode, Parent: n, Children: run, Start: run[0].Start,
				End: run[len(run)-1].End, id: -1, depth: childDepth(n)}
			grow()
			segs = append(segs, fr)
		}
		run, pending, brs = nil, nil, 0
	}
	for _, c := range n.Children {
		f := &p.facts[c.id]
		switch {
		case c.Kind == ElementNode && c.Tag == "br":
			if len(run) > 0 {
				pending = append(pending, c)
				brs++
			}
		case c.Kind == ElementNode && c.Tag == "hr":
			flush()
		case c.Kind == ElementNode && f.block && !p.styles.elemStyle(c).Hidden:
			flush()
			if f.valid {
				grow()
				segs = append(segs, c)
			}
		case f.valid && (c.Kind == TextNode || c.Kind == ElementNode):
			if brs >= 2 {
				flush()
			}
			if len(run) > 0 {
				run = append(run, pending...)
			}
			run = append(run, c)
			pending, brs = pending[:0:0], 0
		default:
			// White space, comments, invisible elements: inside a run
			// only if more content follows.
			if len(run) > 0 {
				pending = append(pending, c)
			}
		}
	}
	flush()
	return segs
}

// newBlocks wraps the nodes found under parent at level lv.
func (p *partitioner) newBlocks(parent *Block, nodes []*Node, lv int) []*Block {
	out := make([]*Block, 0, len(nodes))
	slab := make([]Block, len(nodes)) // one allocation for the siblings
	prefix := ""
	if parent != nil {
		prefix = parent.Path + "."
	}
	for i, n := range nodes {
		b := &slab[i]
		*b = Block{Path: prefix + strconv.Itoa(i+1), Depth: int(n.depth), Level: lv, Node: n,
			Start: n.Start, End: n.End, Tag: n.Tag, Parent: parent}
		if n.Kind == ElementNode {
			b.ID, b.Class = n.Attr("id"), n.Attr("class")
		}
		out = append(out, b)
	}
	return out
}

// collectLeaves returns the leaves of the block forest in document order.
func collectLeaves(blocks []*Block) []*Block {
	var out []*Block
	stack := make([]*Block, 0, 64)
	for i := len(blocks) - 1; i >= 0; i-- {
		stack = append(stack, blocks[i])
	}
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if len(b.Children) == 0 {
			out = append(out, b)
			continue
		}
		for i := len(b.Children) - 1; i >= 0; i-- {
			stack = append(stack, b.Children[i])
		}
	}
	return out
}

// styleSheets returns the rules of the caller's sheets then of every
// <style> element in document order, each sheet parsed once per
// Partitioner (nil when there is no sheet).
func (pp *Partitioner) styleSheets(doc []byte, nodes []*Node, extra []string) *styleSheets {
	var parsed []*parsedSheet
	for _, s := range extra {
		parsed = append(parsed, pp.sheets.get([]byte(s)))
	}
	for _, n := range nodes {
		if n.Kind == ElementNode && n.Tag == "style" {
			for _, c := range n.Children {
				if c.Kind == TextNode {
					parsed = append(parsed, pp.sheets.get(doc[c.Start:c.End]))
				}
			}
		}
	}
	if len(parsed) == 0 {
		return nil
	}
	return pp.joined.get(parsed)
}

// namesRegion reports whether n names the region it wraps.
func namesRegion(n *Node) bool {
	switch n.Tag {
	case "header", "footer", "nav", "aside", "main", "article", "section", "search", "form", "dialog", "figure", "address":
		return true
	}
	for _, a := range n.Attrs {
		if a.Key == "id" || a.Key == "role" {
			return true
		}
	}
	return false
}

// withHead adds the document's <head> element, when it has one, to the
// level-1 blocks in document order. The head is not visible, so the
// rules never make it a block; but it is the page's metadata region and
// the part that changes most often without any visible change (build
// hashes, preload links, analytics settings). Left in the layout, it
// would change the layout of nearly every capture; as a block of its own
// it leaves the layout the page's skeleton. It is never divided.
func withHead(root *Node, level1 []*Node) []*Node {
	var head *Node
	for _, c := range root.Children {
		if c.Kind == ElementNode && c.Tag == "head" {
			head = c
		}
		if c.Kind == ElementNode && c.Tag == "html" {
			for _, d := range c.Children {
				if d.Kind == ElementNode && d.Tag == "head" {
					head = d
					break
				}
			}
		}
		if head != nil {
			break
		}
	}
	if head == nil || head.End <= head.Start {
		return level1
	}
	i := 0
	for i < len(level1) && level1[i].End <= head.Start {
		i++
	}
	if i < len(level1) && level1[i].Start < head.End {
		return level1 // a block already covers the head
	}
	out := make([]*Node, 0, len(level1)+1)
	out = append(out, level1[:i]...)
	out = append(out, head)
	return append(out, level1[i:]...)
}
