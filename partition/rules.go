package partition

import "bytes"

// The IsBlock rules decide, for one DOM node, whether it is a block that
// cannot be divided further (keep), a node to divide (its children are
// examined), or no block at all (skip: its bytes stay in the layout).
//
// Song et al. (J. Software 2008) give eleven ordered rules derived from
// VIPS's (Cai et al. 2003) thirteen, over three tag classes (Schema,
// Format, Function), children counts, size and colour. The rules below
// are that list as docs/PARTITION.md reconstructs and adapts it to
// today's HTML; the first rule that applies decides. Each rule carries
// its number in a comment and in the returned rule id, which tests use.

// decision is the outcome of IsBlock for one node.
type decision uint8

const (
	skip   decision = iota // not a block: invisible or empty; bytes go to the layout
	keep                   // a block that cannot be divided
	divide                 // divide: the node's children are candidate blocks
)

// Thresholds of the size rule (rule 5). Below them a region is too small
// to be worth dividing: a menu item, a caption, a button.
const (
	minDivideText  = 40  // visible characters
	minDivideMedia = 2   // images, controls, embedded media
	smallBoxPx     = 200 // a declared box at most this wide and high
	layoutFormText = 400 // a <form> with this much text and Schema children is page layout
	// maxSectionText: a section (a heading and the siblings up to the
	// next heading of its rank) without subsections is kept whole up to
	// this many visible characters; longer, it is divided by paragraphs
	// so that a change in one does not flag pages of text.
	maxSectionText = 4000
)

// facts are the per-node extents the rules read, computed in one
// bottom-up pass so that no rule ever walks a subtree.
type facts struct {
	text  int32  // visible non-space characters in the subtree
	media int32  // visible images, controls and embedded media in the subtree
	valid bool   // the node is rendered and has visible extent
	block bool   // the node's box is block-level (from CSS display or the tag)
	bg    string // effective background: own colour or the nearest ancestor's
	// island: the node is not content (a script, style, template,
	// noscript, dialog or consent banner: islandOf); islands: the
	// subtree, the node included, holds one. See carve.go.
	island, islands bool
}

// computeFacts fills the facts of every node: a top-down pass for the
// effective background, then a bottom-up pass (reverse pre-order) for
// the extents.
func computeFacts(doc []byte, nodes []*Node, styles *styleTable) []facts {
	fs := make([]facts, len(nodes))
	for _, n := range nodes {
		f := &fs[n.id]
		if n.Kind != ElementNode {
			// A non-element's style has no background.
			if n.Parent != nil {
				f.bg = fs[n.Parent.id].bg
			}
			continue
		}
		st := styles.elemStyle(n)
		f.bg = st.Background
		if f.bg == "" && n.Parent != nil {
			f.bg = fs[n.Parent.id].bg
		}
		d := st.Display
		f.block = !(d == "" || d == "none" || d == "contents" || len(d) >= 6 && d[:6] == "inline")
		if n.Parent != nil && !f.block && d != "none" && d != "contents" {
			// Flex and grid items are block-level whatever their
			// own display (CSS "blockification").
			switch styles.of(n.Parent).Display {
			case "flex", "grid", "inline-flex", "inline-grid":
				f.block = true
			}
		}
	}
	for i := len(nodes) - 1; i >= 0; i-- {
		n := nodes[i]
		f := &fs[i]
		hidden := styles.hidden(n)
		switch n.Kind {
		case TextNode:
			if !hidden {
				f.text = int32(visibleRunes(doc[n.Start:n.End]))
				if f.text <= maxBlankRunes && blankText(doc[n.Start:n.End]) {
					f.text = 0
				}
			}
		case ElementNode:
			if hidden {
				f.text, f.media = 0, 0
				break
			}
			if n.info.media && !spacer(styles.elemStyle(n)) {
				f.media++
			}
		}
		// f.text is final here (the children came first); a hidden
		// node's is 0.
		if n.Kind == ElementNode && islandOf(n, hidden, !f.block, f.text) != notIsland {
			f.island = true
			f.islands = true
		}
		if f.islands && n.Parent != nil {
			fs[n.Parent.id].islands = true
		}
		if hidden {
			continue
		}
		// Block-in-inline (CSS 2.1 §9.2.1.1): an inline element holding a
		// block-level box is broken around it, so the reader sees blocks,
		// not a line of text; treat it as a block-level container, so that
		// a page wrapped in <span>s divides like one wrapped in <div>s.
		if f.block && n.Kind == ElementNode && n.Parent != nil && n.Parent.Kind == ElementNode {
			if pf := &fs[n.Parent.id]; !pf.block {
				if d := styles.elemStyle(n.Parent).Display; d == "" || len(d) >= 6 && d[:6] == "inline" {
					pf.block = true
				}
			}
		}
		f.valid = f.text > 0 || f.media > 0
		if p := n.Parent; p != nil && !styles.hidden(p) {
			pf := &fs[p.id]
			pf.text += f.text
			pf.media += f.media
		}
	}
	if len(fs) > 0 {
		fs[0].valid = fs[0].text > 0 || fs[0].media > 0
	}
	return fs
}

// visibleRunes counts the characters of p that are neither ASCII white
// space nor control characters (browsers drop NUL and render no other C0
// control); UTF-8 continuation bytes are not characters.
func visibleRunes(p []byte) int {
	k := 0
	for _, c := range p {
		k += int(visibleByte[c]) // a table: branches mispredict on mixed text
	}
	return k
}

// maxBlankRunes bounds the text nodes blankText reads: visibleRunes
// counts "&nbsp;" as 6 and U+00A0 as 1, so a text of more visible
// characters than this has something else in it.
const maxBlankRunes = 64

// blankText reports whether p, raw text of the document, renders as white
// space only: no-break spaces (U+00A0, &nbsp; &#160; &#xa0;) and zero-width
// spaces (U+200B, &#8203; &#x200b;) besides ASCII white space. Editors
// write "<p>&nbsp;</p>" to make vertical space; it holds nothing to read.
func blankText(p []byte) bool {
	for len(p) > 0 {
		c := p[0]
		switch {
		case c <= ' ' || c == 0x7f:
			p = p[1:]
			continue
		}
		n := blankPrefix(p)
		if n == 0 {
			return false
		}
		p = p[n:]
	}
	return true
}

// blankPrefix is the length of the white-space character or reference
// p starts with (blankText), or 0.
func blankPrefix(p []byte) int {
	for _, w := range blankForms {
		if len(p) >= len(w) && bytes.EqualFold(p[:len(w)], []byte(w)) {
			return len(w)
		}
	}
	return 0
}

// blankForms are the spellings blankText skips; references without their
// semicolon too, as browsers read "&nbsp" alone.
var blankForms = []string{"\u00a0", "\u200b", "&nbsp;", "&nbsp", "&#160;", "&#xa0;", "&#8203;", "&#x200b;"}

// spacer reports an image or other medium declared at most 2 px wide or
// high: a spacer GIF, a tracking pixel or a rule drawn as an image, seen
// as nothing by a reader, so it gives a node no visible extent.
func spacer(st *Style) bool {
	return st.Width > 0 && st.Width <= 2 || st.Height > 0 && st.Height <= 2
}

// visibleByte is 1 for the bytes visibleRunes counts.
var visibleByte = func() (t [256]uint8) {
	for c := range t {
		if !(c <= ' ' || c == 0x7f || c&0xC0 == 0x80) {
			t[c] = 1
		}
	}
	return t
}()

// Rule numbers, for tests and docs/PARTITION.md.
const (
	ruleInvalid     = 1
	ruleText        = 2
	ruleOneChild    = 3
	ruleFunction    = 4
	ruleSize        = 5
	ruleColour      = 6
	ruleLineBreak   = 7
	ruleVirtualText = 8
	ruleFormat      = 9
	ruleSchema      = 10
	ruleOther       = 11
	ruleMaxDepth    = 12 // not an IsBlock rule: ExtractBlock's depth bound
)

// isBlock applies the eleven ordered rules to n and returns the decision
// with the number of the rule that made it.
func (p *partitioner) isBlock(n *Node) (decision, int) {
	if n.Kind == FragmentNode {
		// Rule 7 (headings separate regions) made a section: divide it
		// when it is large enough (rule 5); an inline run is virtual
		// text (rule 8).
		if !n.section {
			return keep, ruleVirtualText
		}
		text, media := 0, 0
		for _, c := range n.Children {
			text += int(p.facts[c.id].text)
			media += int(p.facts[c.id].media)
		}
		if text < minDivideText && media < minDivideMedia {
			return keep, ruleSize
		}
		// A heading with the paragraphs of its section is one region
		// as a reader sees it: divided, a policy page became a dozen
		// blocks that are a heading alone. A section with headings of
		// its own below its first (subsections) is divided by them.
		if text <= maxSectionText && !p.hasSubHeading(n) {
			return keep, ruleLineBreak
		}
		return divide, ruleLineBreak
	}
	f := &p.facts[n.id]
	st := p.styles.of(n)

	// Rule 1: a node that is not rendered (comment, doctype, hidden,
	// display:none, script/style/head) or has no visible extent (no
	// text, no image, no control) is no block.
	if !f.valid || n.Kind == CommentNode || n.Kind == DoctypeNode || st.Hidden {
		return skip, ruleInvalid
	}
	// Rule 2: a text node cannot be divided.
	if n.Kind == TextNode {
		return keep, ruleText
	}
	if p.maxDepth > 0 && int(n.depth) >= p.maxDepth {
		return keep, ruleMaxDepth
	}
	valid, only := p.validChildren(n)
	// Rule 3: a node with a single valid child is divided (it is a
	// wrapper: the child is the same region) unless that child is text,
	// in which case the node is the text's block.
	if valid == 1 && n.Kind != DocumentNode {
		if only.Kind == TextNode {
			return keep, ruleOneChild
		}
		return divide, ruleOneChild
	}
	if valid == 0 {
		// Visible only through itself: an image, a control, an iframe.
		return keep, ruleOneChild
	}
	info := n.info
	// Rule 4: a Function node (form, link, control, media) is one unit;
	// a <form> that wraps page layout (ASP.NET pages wrap the whole body
	// in one) is treated as Schema instead.
	if info.class == ClassFunction && !(n.Tag == "form" && f.text >= layoutFormText && p.hasSchemaChild(n)) {
		return keep, ruleFunction
	}
	// Rule 5: a node smaller than the size threshold is not divided: by
	// visible text and media, or by a small declared box.
	if f.text < minDivideText && f.media < minDivideMedia && n.Kind != DocumentNode {
		return keep, ruleSize
	}
	if st.Width > 0 && st.Height > 0 && st.Width <= smallBoxPx && st.Height <= smallBoxPx {
		return keep, ruleSize
	}
	// Rule 6: a child whose background colour differs from this node's
	// is a separate region: divide.
	if p.childBackgroundDiffers(n) {
		return divide, ruleColour
	}
	// Rule 7: line-break nodes — an <hr>, a run of two or more <br>, or
	// a heading among the children separates regions: divide.
	if p.hasLineBreak(n) {
		return divide, ruleLineBreak
	}
	// Rule 8: a virtual text node (all valid children are inline: text
	// and text-level elements) is one block.
	if !p.hasBlockChild(n) {
		return keep, ruleVirtualText
	}
	// Rule 9: a Format node that makes a paragraph (p, h1-h6, pre,
	// caption, ...) is one block even when it holds block-level children.
	if info.class == ClassFormat && info.block {
		return keep, ruleFormat
	}
	// Rule 10: a Schema node (table, tr, td, div, the HTML5 sectioning
	// elements, lists, body) with several valid children is divided.
	if info.class == ClassSchema || n.Kind == DocumentNode || n.Tag == "form" {
		return divide, ruleSchema
	}
	// Rule 11: any other node with block-level children (custom
	// elements, inline elements used as containers) is divided.
	return divide, ruleOther
}

// validChildren counts n's valid children and returns the last one.
func (p *partitioner) validChildren(n *Node) (int, *Node) {
	k := 0
	var last *Node
	for _, c := range n.Children {
		if p.facts[c.id].valid && c.Kind != CommentNode && c.Kind != DoctypeNode {
			k++
			last = c
		}
	}
	return k, last
}

func (p *partitioner) hasSchemaChild(n *Node) bool {
	for _, c := range n.Children {
		if c.Kind == ElementNode && p.facts[c.id].valid && c.info.class == ClassSchema {
			return true
		}
	}
	return false
}

func (p *partitioner) hasBlockChild(n *Node) bool {
	for _, c := range n.Children {
		if c.Kind == ElementNode && p.facts[c.id].valid && p.facts[c.id].block {
			return true
		}
	}
	return false
}

func (p *partitioner) childBackgroundDiffers(n *Node) bool {
	bg := p.facts[n.id].bg
	for _, c := range n.Children {
		if c.Kind != ElementNode || !p.facts[c.id].valid {
			continue
		}
		if cb := p.styles.elemStyle(c).Background; cb != "" && cb != bg {
			return true
		}
	}
	return false
}

// hasLineBreak reports an <hr> child, two or more <br> in a row (white
// space and comments between them do not count), or a heading child
// (headingRank: h1-h6, role=heading, a bold-only paragraph).
func (p *partitioner) hasLineBreak(n *Node) bool {
	brs := 0
	for _, c := range n.Children {
		switch {
		case c.Kind == ElementNode && c.Tag == "br":
			brs++
			if brs >= 2 {
				return true
			}
		case c.Kind == ElementNode && (c.Tag == "hr" || p.facts[c.id].valid && headingRank(p.doc, c) > 0):
			return true
		case c.Kind == CommentNode || !p.facts[c.id].valid:
		default:
			brs = 0
		}
	}
	return false
}

// hasSubHeading reports whether section fragment n holds a heading
// (headingRank) after its first child, the section's own heading.
func (p *partitioner) hasSubHeading(n *Node) bool {
	for i, c := range n.Children {
		if i > 0 && c.Kind == ElementNode && p.facts[c.id].valid && headingRank(p.doc, c) > 0 {
			return true
		}
	}
	return false
}
