package partition

import "strings"

// LevelAdaptive is the Options.Level of the adaptive partition (the
// paper's Level Manager, done for today's HTML): instead of one depth for
// the whole page, every block is divided while it holds several regions
// and kept as soon as it is one. It is negative because no archive
// written before it stored a negative level (levels were 1 and up, 0 for
// "not partitioned"), so a Version's stored level keeps its meaning.
const LevelAdaptive = -1

// dominantShare: a block holding more than this share of the page's
// visible text holds several regions of it (an article and its
// neighbours, or the sections of a long text) and is divided, so that a
// change in one paragraph does not flag most of the page.
const dominantShare = 0.6

// Thresholds of the "table of contents beside an article" test: among a
// block's candidates one is mostly links (a menu, a table of contents)
// and another is mostly text (an article).
const (
	menuMinLinks   = 5   // a menu has at least this many links
	menuLinkShare  = 0.5 // and at least this share of its text in links
	textMinChars   = 200 // an article has at least this much visible text
	textLinkShareM = 0.3 // and less than this share of it in links
)

// regionFacts are the per-node extents the adaptive choice reads,
// computed in one bottom-up pass when the page is partitioned adaptively.
type regionFacts struct {
	linkText int32 // visible characters inside <a href>
	links    int32 // visible <a href>
	region   bool  // the subtree (node included) holds a landmark region
}

// isLandmark reports whether element n is a region of the page by its
// name: HTML sectioning content (nav, aside, main, article, section,
// search), a header or footer of the page (not one of an article or
// section: those are the article's, as ARIA scopes banner and
// contentinfo), or an ARIA landmark role.
func isLandmark(n *Node) bool {
	if n.Kind != ElementNode {
		return false
	}
	switch n.Tag {
	case "nav", "aside", "main", "article", "section", "search":
		return true
	case "header", "footer":
		for a := n.Parent; a != nil; a = a.Parent {
			switch a.Tag {
			case "article", "aside", "main", "nav", "section":
				return false
			}
		}
		return true
	}
	switch strings.ToLower(strings.TrimSpace(n.Attr("role"))) {
	case "banner", "navigation", "main", "contentinfo", "complementary", "search":
		return true
	}
	return false
}

// computeRegionFacts fills regionFacts bottom-up (reverse pre-order).
func computeRegionFacts(nodes []*Node, fs []facts, spare []regionFacts) []regionFacts {
	rf := zeroed(&spare, len(nodes))
	for i := len(nodes) - 1; i >= 0; i-- {
		n := nodes[i]
		r := &rf[i]
		if !fs[i].valid {
			continue
		}
		if n.Kind == ElementNode {
			if n.Tag == "a" && n.Attr("href") != "" {
				r.links++
				r.linkText = fs[i].text // nested links are invalid HTML: the outer one counts
			}
			if isLandmark(n) {
				r.region = true
			}
		}
		if p := n.Parent; p != nil {
			pr := &rf[p.id]
			pr.links += r.links
			if !(p.Kind == ElementNode && p.Tag == "a") {
				pr.linkText += r.linkText
			}
			pr.region = pr.region || r.region
		}
	}
	return rf
}

// nodeFacts sums what the adaptive choice needs of n (a fragment sums
// its children).
func (p *partitioner) nodeFacts(n *Node) (text, linkText, links int, region bool) {
	if n.Kind != FragmentNode {
		r := &p.regions[n.id]
		return int(p.facts[n.id].text), int(r.linkText), int(r.links), r.region
	}
	for _, c := range n.Children {
		t, lt, l, rg := p.nodeFacts(c)
		text, linkText, links, region = text+t, linkText+lt, links+l, region || rg
	}
	return
}

// severalRegions reports whether block node n, whose candidates are
// kids, holds several regions: two or more candidates are or hold
// landmark regions; one candidate is a menu and another an article (a
// table of contents beside the text); or n holds a dominant share of
// the page's visible text.
func (p *partitioner) severalRegions(n *Node, kids []*Node, pageText int) bool {
	if p.dominant(n, pageText) {
		return !p.oneText(n, kids)
	}
	regions, menu, article := 0, false, false
	for _, k := range kids {
		t, lt, l, rg := p.nodeFacts(k)
		if rg {
			regions++
		}
		if l >= menuMinLinks && float64(lt) >= menuLinkShare*float64(t) {
			menu = true
		}
		if t >= textMinChars && float64(lt) < textLinkShareM*float64(t) {
			article = true
		}
	}
	return regions >= 2 || menu && article
}

// Thresholds of the "one text" test (oneText).
const (
	oneTextMinParas  = 3   // at least this many paragraphs
	oneTextProse     = 0.7 // hold at least this share of the block's text with its headings
	oneTextLinkShare = 0.3 // the block has less than this share of its text in links
)

// proseKind classifies a candidate of a block for oneText and
// proseRuns: a paragraph (p, blockquote, pre, a run of loose text, a
// paragraph tightened to its only <em> or <strong>), a part of a text
// (a heading, a picture or figure, a list mostly not links, anything
// with no visible text: an empty ad slot), or neither (a landmark
// region, a list of links: at least three links and half its text in
// them, a section, any other element).
func (p *partitioner) proseKind(k *Node) (para, part bool) {
	t, lt, l, rg := p.nodeFacts(k)
	if rg || l >= 3 && 2*lt >= t {
		return false, false
	}
	if k.Kind == FragmentNode {
		return !k.section, !k.section
	}
	if k.Kind != ElementNode {
		return false, t == 0
	}
	switch k.Tag {
	case "p", "blockquote", "pre", "em", "strong", "i", "b":
		return true, true
	case "figure", "img", "picture", "video", "audio", "iframe", "ul", "ol", "dl", "hr", "br":
		return false, true
	}
	return false, isHeadingTag(k.Tag) || t == 0
}

// oneTextSectionParas: sections of one text hold this many paragraphs
// on average; titled items of one paragraph each (a page of deals, an
// FAQ) are a list, whose items are blocks.
const oneTextSectionParas = 2

// oneText reports whether block node n, whose candidates are kids, is
// one text a reader reads through (an article's body): every candidate
// is a paragraph, a part of a text (proseKind) or a section of the text
// (a heading and its paragraphs, under oneTextLinkShare of its text in
// links, made of the same), oneTextMinParas paragraphs or more (a
// section counts at least one) holding, with the headings, at least
// oneTextProse of its text, and under oneTextLinkShare of n's text in
// links; the page's title (h1) is not part of it. Such a block is kept
// whole however much of the page's text it holds: cut into paragraph or
// section blocks, a reader sees one article as a dozen blocks, and the
// same template kept it whole where comments took the page's text past
// it. A text with sections longer than
// maxSectionText is not one: it is divided by them, as rule 7 divides a
// longer section; nor is a list of items titled so (a page of deals, an
// FAQ: under oneTextSectionParas paragraphs a section). A changed
// paragraph is still said by the diff's parts (docs/DIFF.md, step 5).
func (p *partitioner) oneText(n *Node, kids []*Node) bool {
	text, linkText, _, _ := p.nodeFacts(n)
	if text == 0 || float64(linkText) >= oneTextLinkShare*float64(text) {
		return false
	}
	paras, prose, sections, inSections := p.textParts(kids)
	return paras >= oneTextMinParas && float64(prose) >= oneTextProse*float64(text) &&
		!(sections >= 2 && (text > maxSectionText || inSections < oneTextSectionParas*sections))
}

// textParts counts the paragraphs and sections of candidates kids, the
// paragraphs inside those sections and the visible text of paragraphs
// and headings, or returns -1 paragraphs when one of them is none of
// the things one text is made of (oneText).
func (p *partitioner) textParts(kids []*Node) (paras, prose, sections, inSections int) {
	for _, k := range kids {
		para, part := p.proseKind(k)
		t, lt, _, _ := p.nodeFacts(k)
		switch {
		case para:
			paras++
			prose += t
		case part && k.Kind == ElementNode && k.Tag == "h1":
			// The page's title is a region of its own (labelled
			// title), not part of the text it heads.
			return -1, 0, 0, 0
		case part:
			if k.Kind == ElementNode && isHeadingTag(k.Tag) {
				prose += t
			}
		case k.Kind == FragmentNode && k.section && float64(lt) < oneTextLinkShare*float64(t):
			pa, pr, _, _ := p.textParts(p.sectionParts(k))
			if pa < 0 {
				return -1, 0, 0, 0
			}
			paras, prose, sections, inSections = paras+max(pa, 1), prose+pr, sections+1, inSections+pa
		default:
			return -1, 0, 0, 0
		}
	}
	return paras, prose, sections, inSections
}

// proseRuns returns kids with each run of consecutive paragraphs and
// parts of a text (proseKind) that holds oneTextMinParas paragraphs or
// more replaced by one FragmentNode over the children of n that hold
// them: the article's text between a promo box, a list of links or an
// ad's caption is kept as one block (oneText) instead of a block per
// paragraph, and what interrupts it stays a block of its own. It
// returns kids itself when no run is joined.
func (p *partitioner) proseRuns(n *Node, kids []*Node) []*Node {
	var out []*Node
	joined := false
	for i := 0; i < len(kids); {
		j, paras := i, 0
		for j < len(kids) {
			para, part := p.proseKind(kids[j])
			if !part || j == i && kids[j].Kind == ElementNode && kids[j].Tag == "h1" {
				// The page's title does not open a run: it is a
				// region of its own, labelled title.
				break
			}
			if para {
				paras++
			}
			j++
		}
		if paras >= oneTextMinParas && j-i >= 2 {
			if fr := p.runUnder(n, kids[i], kids[j-1].End); fr != nil {
				out = append(out, fr)
				joined = true
				i = j
				continue
			}
		}
		if j == i {
			j = i + 1
		}
		out = append(out, kids[i:j]...)
		i = j
	}
	if !joined {
		return kids
	}
	return out
}

// runUnder returns runNode of the nearest ancestor of first, up to n,
// whose children hold the run from first to end: extractBlock descends
// through wrappers, so the candidates are children of a node below n.
func (p *partitioner) runUnder(n, first *Node, end int) *Node {
	for a := first.Parent; a != nil; a = a.Parent {
		if a.End >= end {
			if fr := p.runNode(a, first.Start, end); fr != nil {
				return fr
			}
		}
		if a == n {
			break
		}
	}
	return nil
}

// runNode returns a FragmentNode over the children of n that hold the
// bytes [start, end) (candidates may be tightened into them), or nil
// when they are not whole children of n or are one child.
func (p *partitioner) runNode(n *Node, start, end int) *Node {
	i := 0
	for i < len(n.Children) && n.Children[i].End <= start {
		i++
	}
	j := i
	for j < len(n.Children) && n.Children[j].Start < end {
		j++
	}
	if j-i < 2 || n.Children[i].Start > start || n.Children[j-1].End < end {
		return nil
	}
	return &Node{Kind: FragmentNode, Parent: n, Children: n.Children[i:j:j], Start: n.Children[i].Start,
		End: n.Children[j-1].End, id: -1, depth: childDepth(n)}
}

// dominant reports whether n holds more than dominantShare of the
// page's visible text.
func (p *partitioner) dominant(n *Node, pageText int) bool {
	text, _, _, _ := p.nodeFacts(n)
	return pageText > 0 && float64(text) > dominantShare*float64(pageText)
}

// sectionParts divides a section fragment into its heading and
// paragraphs (its segments, tightened), as rule 7 does a longer one.
func (p *partitioner) sectionParts(n *Node) []*Node {
	segs := p.segments(n)
	for i, s := range segs {
		segs[i] = p.tighten(s)
	}
	return segs
}

// planKey names a divided block for Options.Prior: its path in the block
// tree and its node's tag, id and class. A block of the new capture with
// the same key is taken to be the same region.
func planKey(b *Block) string {
	return b.Path + "|" + b.Tag + "#" + b.ID + "." + b.Class
}

// adapt divides blocks (the level-lv blocks under one parent) as the
// adaptive partition chooses and records every divided block's key in
// plan. With a prior plan it follows it instead — divides exactly the
// blocks the prior capture divided — and reports false when the layout
// no longer holds: a block the plan divides is gone or cannot be
// divided, or a block it keeps now holds several landmark regions.
func (p *partitioner) adapt(blocks []*Block, lv, pageText int, prior map[string]bool, plan map[string]bool) bool {
	if lv >= maxLevel {
		return true
	}
	for _, b := range blocks {
		if b.Node == nil || b.Node.Tag == "head" {
			continue
		}
		kids := p.extractBlock(b.Node)
		if len(kids) < 2 && b.Node.Kind == FragmentNode && b.Node.section && p.dominant(b.Node, pageText) {
			// A section is kept whole up to maxSectionText (rule 7);
			// one that holds most of the page's text is divided by its
			// paragraphs, or a one-word change flags most of the page.
			kids = p.sectionParts(b.Node)
		}
		key := planKey(b)
		divided := len(kids) >= 2
		if p.guide != nil {
			// Reading a stored partition: divided where the archive's
			// blocks say it was (PartitionStored).
			divided = divided && p.guide.divides(p, b)
		} else if prior != nil {
			switch {
			case prior[key] && !divided:
				return false // the region the plan divides is no longer divisible
			case !prior[key] && divided && p.landmarkKids(kids) >= 2:
				return false // a kept block now holds several regions
			}
			divided = prior[key]
		} else {
			divided = divided && p.severalRegions(b.Node, kids, pageText)
			if divided && p.dominant(b.Node, pageText) {
				kids = p.proseRuns(b.Node, kids)
			}
		}
		if !divided {
			b.oneText = len(kids) >= 2 && p.dominant(b.Node, pageText) && p.oneText(b.Node, kids)
			continue
		}
		plan[key] = true
		b.Children = p.newBlocks(b, kids, lv+1)
		if !p.adapt(b.Children, lv+1, pageText, prior, plan) {
			return false
		}
	}
	return true
}

// landmarkKids counts the candidates that are or hold landmark regions.
func (p *partitioner) landmarkKids(kids []*Node) int {
	k := 0
	for _, c := range kids {
		if _, _, _, rg := p.nodeFacts(c); rg {
			k++
		}
	}
	return k
}

// adaptive builds the block tree below the level-1 blocks adaptively,
// following prior's plan while the layout holds it (every block it
// divides is still there and divisible, no block it keeps has come to
// hold several landmark regions), else choosing afresh. It returns the
// plan used.
func (p *partitioner) adaptive(blocks []*Block, nodes []*Node, root *Node, prior *Result) map[string]bool {
	p.regions = computeRegionFacts(nodes, p.facts, p.regions)
	pageText := int(p.facts[root.id].text)
	if prior != nil && prior.plan != nil {
		plan := map[string]bool{}
		if p.adapt(blocks, 1, pageText, prior.plan, plan) && len(plan) == len(prior.plan) {
			return plan
		}
		for _, b := range blocks {
			b.Children = nil
		}
	}
	plan := map[string]bool{}
	p.adapt(blocks, 1, pageText, nil, plan)
	return plan
}
