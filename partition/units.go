package partition

// Span is the byte range [Start, End) of a page. Element says it is
// exactly one element (start tag to end tag), not a run of inline
// content or a whole block.
type Span struct {
	Start, End int
	Element    bool
}

// Units returns the finest block-level parts of block b, in document
// order: its paragraphs, headings, list items, table cells, code blocks —
// what a reader points at when saying where in a block something
// changed. A unit is a block-level element with no block-level element
// inside (by its tag: HTML's default display, as the rules read it
// before style sheets), or a run of inline content (text and inline
// elements) between block-level siblings. White space and comments
// between units belong to none. A block without block-level structure
// inside, or without its node, is one unit. Blocks are kept at the level
// a reader sees as one region; units are for saying where a change
// inside one happened (package diff), not for storing. The recursion is
// bounded by the tree depth (maxTreeDepth).
func (r *Result) Units(b *Block) []Span {
	if b == nil || b.Node == nil {
		return nil
	}
	n := b.Node
	var spans []Span
	var hasBlock bool
	if n.Kind == FragmentNode || n.Kind == ElementNode && !n.info.void {
		spans, hasBlock = childUnits(r.Doc, n.Children, nil)
	}
	if !hasBlock || len(spans) == 0 {
		return []Span{{Start: b.Start, End: b.End}}
	}
	return spans
}

// childUnits appends to out the units among children, and reports
// whether any child is or holds a block-level element (else the caller's
// element is one unit and out is not used).
func childUnits(doc []byte, children []*Node, out []Span) ([]Span, bool) {
	hasBlock := false
	run := Span{Start: -1, End: -1} // the inline run being gathered, not yet in out
	flush := func() {
		if run.Start >= 0 {
			// A run's text nodes carry the white space around it.
			for run.Start < run.End && isSpace(doc[run.Start:run.Start+1]) {
				run.Start++
			}
			for run.End > run.Start && isSpace(doc[run.End-1:run.End]) {
				run.End--
			}
			out = append(out, run)
		}
		run = Span{Start: -1, End: -1}
	}
	extend := func(c *Node) {
		if run.Start < 0 {
			run.Start = c.Start
		}
		run.End = c.End
	}
	for _, c := range children {
		switch c.Kind {
		case ElementNode:
			if c.info.invisible {
				// A script or style is no unit of its own; inside a
				// run it is covered by the run.
				continue
			}
			mark := len(out)
			var inner bool
			if !c.info.void {
				out, inner = childUnits(doc, c.Children, out)
			}
			if !inner && !c.info.block {
				out = out[:mark] // an inline element: part of the run
				extend(c)
				continue
			}
			hasBlock = true
			if !inner {
				// A block-level element with only inline content: one
				// unit. The run before it ends here.
				out = out[:mark]
				flush()
				out = append(out, Span{Start: c.Start, End: c.End, Element: true})
				continue
			}
			// c's own units are in out after mark; the run before c
			// goes before them.
			if run.Start >= 0 {
				kids := append([]Span(nil), out[mark:]...)
				out = out[:mark]
				flush()
				out = append(out, kids...)
			}
		case TextNode:
			// White space neither starts a run nor ends one: a run
			// spans from its first to its last visible piece.
			if !isSpace(doc[c.Start:c.End]) {
				extend(c)
			}
		}
	}
	flush()
	return out, hasBlock
}
