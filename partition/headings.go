package partition

import (
	"strconv"
	"strings"
)

// Headings as a reader sees them. Many pages — policies, terms, pages
// written in a CMS editor — mark their section titles not with h1-h6
// but with a paragraph that is all bold (<p><strong>1. Data we
// collect</strong></p>), or with role=heading and aria-level. Seen only
// as paragraphs they did not group their sections: a policy page became
// 38 blocks, 12 of them a heading alone.

// boldRank is the rank of a bold-only paragraph: below h6, so that real
// headings of a page always outrank it, and the paragraphs group by it
// only where no real heading rank occurs twice.
const boldRank = 7

// maxBoldHeading bounds the visible characters (white space excluded)
// of a bold-only paragraph that is a heading: longer, it is an
// emphasised paragraph.
const maxBoldHeading = 120

// headingRank returns the heading rank of element n (1 = h1) or 0: an
// h1-h6 element; an element with role=heading (rank aria-level, 2 when
// absent or not 1-9 as ARIA says; ranks over 6 count as 6); a bold-only
// paragraph or a list of one bold-only item (boldRank).
func headingRank(doc []byte, n *Node) int {
	if n.Kind != ElementNode {
		return 0
	}
	if r := headingLevel(n.Tag); r > 0 {
		return r
	}
	if role := n.Attr("role"); role != "" && strings.EqualFold(strings.TrimSpace(role), "heading") {
		r, err := strconv.Atoi(strings.TrimSpace(n.Attr("aria-level")))
		if err != nil || r < 1 || r > 9 {
			r = 2
		}
		return min(r, 6)
	}
	if n.Tag == "p" && boldParagraph(doc, n) {
		return boldRank
	}
	if (n.Tag == "ol" || n.Tag == "ul") && boldItem(doc, n) {
		return boldRank
	}
	return 0
}

// boldItem reports a list of one item that is a bold-only paragraph
// (<ol start=3><li><strong><u>Your rights</u></strong></li></ol>): editors
// number a page's section titles so, one list per title; seen as lists,
// the sections were not grouped.
func boldItem(doc []byte, n *Node) bool {
	var item *Node
	for _, c := range n.Children {
		switch {
		case c.Kind == CommentNode || c.Kind == TextNode && visibleRunes(doc[c.Start:c.End]) == 0:
		case c.Kind == ElementNode && c.Tag == "li" && item == nil:
			item = c
		default:
			return false
		}
	}
	return item != nil && boldParagraph(doc, item)
}

// boldParagraph reports a paragraph whose whole visible text is one
// <strong> or <b> (white space and comments beside it), of at most
// maxBoldHeading characters, with a letter or digit, not ending in a
// full stop, comma or semicolon (a sentence in bold is emphasis, not a
// title), and without a link, image or control in it (a bold link is a
// link).
func boldParagraph(doc []byte, n *Node) bool {
	var bold *Node
	for _, c := range n.Children {
		switch c.Kind {
		case CommentNode:
		case TextNode:
			if visibleRunes(doc[c.Start:c.End]) > 0 {
				return false
			}
		case ElementNode:
			if bold != nil || c.Tag != "strong" && c.Tag != "b" {
				return false
			}
			bold = c
		default:
			return false
		}
	}
	if bold == nil {
		return false
	}
	chars := 0
	var last []byte // the last text with visible characters
	alnum := false
	ok := true
	var walk func(m *Node, depth int)
	walk = func(m *Node, depth int) {
		for _, c := range m.Children {
			if !ok {
				return
			}
			switch c.Kind {
			case TextNode:
				t := doc[c.Start:c.End]
				if visibleRunes(t) > 0 {
					last = t
				}
				for _, b := range t {
					if visibleByte[b] == 1 {
						chars++
						if b >= '0' && b <= '9' || b|0x20 >= 'a' && b|0x20 <= 'z' || b >= 0x80 {
							alnum = true
						}
					}
				}
				if chars > maxBoldHeading {
					ok = false
				}
			case ElementNode:
				if c.Tag == "a" || c.info.media || c.info.invisible || c.info.block || depth > 4 {
					ok = false
					return
				}
				walk(c, depth+1)
			}
		}
	}
	walk(bold, 0)
	if !ok || chars == 0 || !alnum {
		return false
	}
	switch lastChar(last) {
	case '.', ',', ';':
		return false
	}
	return true
}

// lastChar returns the last visible byte of text, character references
// at the end (&nbsp;, &#160;) and white space skipped.
func lastChar(text []byte) byte {
	for {
		i := len(text) - 1
		for i >= 0 && visibleByte[text[i]] == 0 && text[i] < 0x80 {
			i--
		}
		if i < 0 {
			return 0
		}
		text = text[:i+1]
		if text[i] != ';' {
			return text[i]
		}
		j := i - 1
		for j >= 0 && i-j <= 32 && (text[j] == '#' || text[j]|0x20 >= 'a' && text[j]|0x20 <= 'z' || text[j] >= '0' && text[j] <= '9') {
			j--
		}
		if j < 0 || text[j] != '&' || j == i-1 {
			return ';'
		}
		text = text[:j]
	}
}
