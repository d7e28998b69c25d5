package partition

import "strconv"

// Scripts, styles, data islands (<script type=application/json>,
// <template>) and <noscript> are not content: a browser with scripting
// renders none of them. Between blocks the rules already leave them to the
// layout; inside a kept block they used to stay in the block, so a nonce,
// a counter or a build hash in an inline script marked a content block
// modified with no visible change, and a block of a few hundred visible
// characters could weigh hundreds of kilobytes. carveLeaves cuts them out
// of every leaf as blocks of their own (label script): the leaf is
// replaced, at its level, by the runs of its content between them and by
// the islands themselves.
//
// Own blocks rather than layout: the layout is stored per capture, and a
// page whose inline scripts change at every capture would then change its
// layout at every capture (the reason the <head> is a block); an island
// block changes alone, and its unchanged neighbours stay shared.

// isIsland reports whether element n is never rendered content that pages
// change on their own schedule: script (any type, JSON and JSON-LD data
// islands included), style, template and noscript (with scripting on, as
// readers browse, its content is not shown; it mostly holds tracking
// pixels whose URLs carry counters).
func isIsland(n *Node) bool {
	switch n.Tag {
	case "script", "style", "template", "noscript":
		return true
	}
	return false
}

// hasIslands reports whether n's span holds an island.
func (p *partitioner) hasIslands(n *Node) bool {
	if n.Kind == FragmentNode {
		for _, c := range n.Children {
			if c.id >= 0 && p.facts[c.id].islands {
				return true
			}
		}
		return false
	}
	return n.id >= 0 && int(n.id) < len(p.facts) && p.facts[n.id].islands
}

// carve appends to out the pieces of n with its islands cut out: each
// island, and each run of consecutive siblings without one (a run of one
// node is that node, a longer run a FragmentNode). A child that holds an
// island deeper is carved in turn, and its own tags go to the layout.
// White space and comments at the edges of a run go to the layout too.
// The recursion is bounded by the tree depth.
func (p *partitioner) carve(n *Node, out []*Node) []*Node {
	parent := n
	if n.Kind == FragmentNode {
		parent = n.Parent
	}
	var run []*Node
	flush := func() {
		i, j := 0, len(run)
		for i < j && p.blankEdge(run[i]) {
			i++
		}
		for j > i && p.blankEdge(run[j-1]) {
			j--
		}
		switch j - i {
		case 0:
		case 1:
			out = append(out, run[i])
		default:
			out = append(out, &Node{Kind: FragmentNode, Parent: parent, Children: run[i:j:j],
				Start: run[i].Start, End: run[j-1].End, id: -1, depth: childDepth(n)})
		}
		run = nil
	}
	for _, c := range n.Children {
		switch {
		case c.Kind == ElementNode && isIsland(c):
			flush()
			out = append(out, c)
		case p.facts[c.id].islands:
			flush()
			out = p.carve(c, out)
		default:
			run = append(run, c)
		}
	}
	flush()
	return out
}

// blankEdge reports a node that may go to the layout at the edge of a
// run: a comment, or text without visible characters.
func (p *partitioner) blankEdge(n *Node) bool {
	return n.Kind == CommentNode || n.Kind == TextNode && !p.facts[n.id].valid
}

// carveLeaves replaces, in the block forest, every leaf that holds an
// island by its carved pieces, at the leaf's level. The <head> block is
// left whole: it is the page's metadata region, scripts and all. It
// reports whether anything changed (paths must then be renumbered).
func (p *partitioner) carveLeaves(blocks []*Block) ([]*Block, bool) {
	var out []*Block // nil until the first change
	changed := false
	for i, b := range blocks {
		if len(b.Children) > 0 {
			if kids, ch := p.carveLeaves(b.Children); ch {
				b.Children, changed = kids, true
			}
		} else if b.Node != nil && b.Node.Tag != "head" && p.hasIslands(b.Node) {
			if pieces := p.carve(b.Node, nil); len(pieces) > 0 {
				if out == nil {
					out = append(make([]*Block, 0, len(blocks)+len(pieces)), blocks[:i]...)
				}
				out = append(out, p.newBlocks(b.Parent, pieces, b.Level)...)
				changed = true
				continue
			}
		}
		if out != nil {
			out = append(out, b)
		}
	}
	if out == nil {
		return blocks, changed
	}
	return out, true
}

// renumber sets the paths of blocks (the children of the block whose path
// is prefix, or the level-1 blocks for "") and of their descendants.
func renumber(blocks []*Block, prefix string) {
	for i, b := range blocks {
		b.Path = prefix + strconv.Itoa(i+1)
		renumber(b.Children, b.Path+".")
	}
}
