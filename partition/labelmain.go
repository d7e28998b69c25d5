package partition

import (
	"strings"
)

// Labels by position relative to the main text (issue 35). The rule
// table labels a block by what it is alone: a teaser with an excerpt, an
// author box, a newsletter pitch or a sidebar widget of plain sentences
// reads as "content" like a paragraph of the article. Which text is the
// article is what the main-text extractor decides for the whole page
// (scoring paragraphs, maintext.go), so after the rules have labelled
// every block, one strict extraction run is made and the kept blocks are
// labelled by where they lie relative to its text:
//
//   - a block labelled content of which the extraction kept no text is
//     not the article's: related links when it links elsewhere (at
//     least one link, a third of its text in links), other otherwise;
//   - a heading or text outside the main text inside a comment thread
//     (an element named comment, comments, disqus, respond, reply,
//     discussion, or marked schema.org Comment) is other: readers'
//     comments and the form to write one are not the article;
//   - a block labelled title outside the main text that is a teaser of
//     another page (a short block whose heading is a link away, over an
//     excerpt: isTeaser) is related links;
//   - a block labelled other or related links of which the extraction
//     kept nearly all (mainShareContent) and whose text is not mostly
//     links is a part of the article: content;
//   - a block outside the main text whose h1s are all the site's logo
//     (a short link to the home page: logoHeading) is other;
//   - the block holding the heading the extraction put first (the headline
//     above the article's body) is its title when it is short, and so is
//     a block outside the main text holding an h1 with at most
//     maxHeadBlock characters, mostly not links: the article's head (a
//     section name, the headline, a standfirst, a byline and a date).
//
// Nothing else moves: navigation, footers, forms, adverts, dialogs,
// consent banners, media, scripts and titles keep the rules' labels, so
// the extraction, which prunes those labels, reads the same blocks after
// this as before (MainText is unchanged by it). When the extraction
// finds too little text (a page that is not an article), labels stay as
// the rules gave them.

// mainShareContent: a block of which the main text holds at least this
// share of its text is a part of it.
const mainShareContent = 0.9

// maxHeadBlock bounds the text of an article's head outside its main
// text: longer, the block holds more than a head.
const maxHeadBlock = 2 * maxTitleBlock

// relabelByMainText applies the rules above to res.Leaves, with x the
// page's index as annotate built it.
func relabelByMainText(res *Result, x *docIndex) {
	if len(x.nodes) == 0 {
		return
	}
	m := &mainExtractor{x: x, res: res, withTitle: true}
	m.prefixes()
	m.pruneLabels()
	m.marking = true
	m.marks = x.scratch.marks[:0]
	defer func() { x.scratch.marks = m.marks[:0] }()
	m.run(true, true)
	// kept[i]: bytes of main text before node i.
	kept := zeroed(&x.scratch.kept, len(x.nodes)+1)
	runes := 0
	for _, mk := range m.marks {
		i := mk.node
		kept[i+1] = x.textOff[i+1] - x.textOff[i]
		runes += int(kept[i+1] - (x.cumCont[i+1] - x.cumCont[i]))
	}
	if runes < minMainRunes {
		return
	}
	for i := range x.nodes {
		kept[i+1] += kept[i]
	}
	self := pageURLs(res)
	for _, b := range res.Leaves {
		s := x.blockSpan(b)
		total := x.textOff[s.hi] - x.textOff[s.lo]
		if total == 0 || b.Features.TextLen == 0 {
			continue
		}
		share := float64(kept[s.hi]-kept[s.lo]) / float64(total)
		f := b.Features
		switch {
		case m.titleNode >= 0 && s.lo <= m.titleNode && m.titleNode < s.hi && f.TextLen <= maxTitleBlock &&
			(b.Label == LabelContent || b.Label == LabelOther):
			b.Label = LabelTitle
		case share == 0 && (b.Label == LabelTitle || b.Label == LabelContent || b.Label == LabelOther) && m.logoBlock(s):
			// The site's name set as an h1 (a link home) heads every
			// page of the site: it is not this page's title.
			b.Label = LabelOther
		case share == 0 && (b.Label == LabelContent || b.Label == LabelOther || b.Label == LabelRelatedLinks) && f.TextLen <= maxHeadBlock &&
			b.Node != nil && holdsTopHeading(x.doc, b.Node) && (f.LinkTextRatio < 0.5 && b.Label != LabelRelatedLinks || selfLinkedHeading(x.doc, b.Node, self)):
			b.Label = LabelTitle
		case share == 0 && (b.Label == LabelContent || b.Label == LabelTitle) && b.Node != nil && (inCommentThread(b.Node) || m.nodeInThread(b.Node)):
			b.Label = LabelOther
		case share == 0 && b.Label == LabelTitle && m.teaserBlock(b):
			// A teaser of another page (a linked headline over a short
			// excerpt) reads as a heading to the rules; outside the main
			// text it is a related link.
			b.Label = LabelRelatedLinks
		case b.Label == LabelContent && share == 0:
			if f.Links >= 1 && f.LinkTextRatio >= 1.0/3 {
				b.Label = LabelRelatedLinks
			} else {
				b.Label = LabelOther
			}
		case (b.Label == LabelOther || b.Label == LabelRelatedLinks) && share >= mainShareContent && f.LinkTextRatio < 0.5:
			b.Label = LabelContent
		}
	}
}

// logoBlock reports whether the nodes s hold an h1 and every h1 among
// them is the site's logo (logoHeading).
func (m *mainExtractor) logoBlock(s span) bool {
	logos := 0
	for j := s.lo; j < s.hi; j++ {
		if m.x.nodes[j].Tag == "h1" && !m.x.hidden[j] {
			if !m.logoHeading(j) {
				return false
			}
			logos++
		}
	}
	return logos > 0
}

// teaserBlock reports whether block b is a teaser of another page as
// the extraction defines one (isTeaser), not holding the page's top
// heading (the article's head, its headline a link to its permalink).
func (m *mainExtractor) teaserBlock(b *Block) bool {
	if b.Node == nil {
		return false
	}
	i, ok := m.x.index(b.Node)
	return ok && m.isTeaser(i) && !holdsTopHeading(m.x.doc, b.Node)
}

// nodeInThread reports whether n is or lies in a comment thread found
// by its shape (commentThread), or is the heading over one.
func (m *mainExtractor) nodeInThread(n *Node) bool {
	i, ok := m.x.index(n)
	if !ok {
		return false
	}
	if m.inThread(i) {
		return true
	}
	if m.isCommentHeading(i) {
		for j := m.x.end[i]; j < int32(len(m.x.nodes)); j = m.x.end[j] {
			if m.x.nodes[j].Kind == ElementNode && !m.x.hidden[j] && m.runes(span{j, m.x.end[j]}) > 0 {
				return m.commentThread(j)
			}
		}
	}
	return false
}

// inCommentThread reports whether n lies inside an element named as a
// comment thread (commentCues) or marked schema.org Comment.
func inCommentThread(n *Node) bool {
	for a := n; a != nil; a = a.Parent {
		if a.Kind != ElementNode {
			continue
		}
		if hasNameCue(commentCues, a.Attr("id"), a.Attr("class")) || strings.Contains(a.Attr("itemtype"), "schema.org/Comment") {
			return true
		}
	}
	return false
}

// pageURLs returns the page's own addresses as its head declares them
// (link rel=canonical, meta property=og:url), normalised (normURL).
func pageURLs(res *Result) []string {
	var out []string
	head := firstElement(res.Root, "head")
	var walk func(n *Node)
	walk = func(n *Node) {
		if n.Kind == ElementNode {
			switch {
			case n.Tag == "link" && strings.EqualFold(strings.TrimSpace(n.Attr("rel")), "canonical"):
				out = append(out, normURL(n.Attr("href")))
			case n.Tag == "meta" && strings.EqualFold(n.Attr("property"), "og:url"):
				out = append(out, normURL(n.Attr("content")))
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	if head != nil {
		walk(head)
	}
	return out
}

// normURL drops the scheme, a fragment and a trailing slash, and
// lower-cases the host: the forms of one address that pages mix.
func normURL(u string) string {
	u = strings.TrimSpace(u)
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u = u[:i]
	}
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	host, path, _ := strings.Cut(u, "/")
	return strings.TrimSuffix(strings.ToLower(host)+"/"+path, "/")
}

// selfLinkedHeading reports whether the first rank-1 heading in n's
// subtree holds links and every one of them leads to one of the page's
// own addresses (self, from pageURLs).
func selfLinkedHeading(doc []byte, n *Node, self []string) bool {
	if len(self) == 0 {
		return false
	}
	var h *Node
	var find func(c *Node)
	find = func(c *Node) {
		if h != nil {
			return
		}
		if c.Kind == ElementNode && headingRank(doc, c) == 1 {
			h = c
			return
		}
		for _, k := range c.Children {
			find(k)
		}
	}
	find(n)
	if h == nil {
		return false
	}
	links, own := 0, 0
	var walk func(c *Node)
	walk = func(c *Node) {
		if c.Kind == ElementNode && c.Tag == "a" && c.Attr("href") != "" {
			links++
			u := normURL(c.Attr("href"))
			for _, s := range self {
				if u == s {
					own++
					break
				}
			}
		}
		for _, k := range c.Children {
			walk(k)
		}
	}
	walk(h)
	return links > 0 && own == links
}
