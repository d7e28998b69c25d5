// Package blockview holds what the views of a page's blocks share (the
// blocks command's tree and -html page, diff's text and -html page): how
// a block is named (BlockTag), a field kept on one line (OneLine), and
// the marks inserted into a captured page's own bytes: where a <style>
// goes (StyleOffset), where attributes go on a block's start tag
// (StartTagNameEnd, TagNameEnd), the end marker of an inserted wrapper
// (WrapEnd) and attribute values that survive any charset (AttrEscape).
package blockview

import (
	"bytes"
	"html"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/blockwarc/blockwarc/partition"
)

// BlockTag names a block as a selector would: its tag ("#run" for a run
// of siblings kept as one block), #id and .classes.
func BlockTag(b *partition.Block) string {
	var sb strings.Builder
	tag := b.Tag
	if tag == "" {
		tag = "#run" // a run of siblings kept as one block
	}
	sb.WriteString(tag)
	if b.ID != "" {
		sb.WriteString("#" + b.ID)
	}
	for _, c := range strings.Fields(b.Class) {
		sb.WriteString("." + c)
	}
	return sb.String()
}

// OneLine keeps a field of a view on one line and at most n runes.
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > n {
		r := []rune(s)
		s = string(r[:n-1]) + "…"
	}
	return s
}

// WrapEnd marks the end tag of an inserted <span>, so that the inserted
// bytes can be told from the page's own.
const WrapEnd = "<!--/bw-->"

// StartTagNameEnd returns the offset just after the tag name of b's own
// start tag, when b begins with it.
func StartTagNameEnd(doc []byte, b *partition.Block) (int, bool) {
	if b.Node == nil || b.Node.Kind != partition.ElementNode || b.Node.Start != b.Start {
		return 0, false
	}
	i, ok := TagNameEnd(doc, b.Start, b.End)
	if !ok || !strings.EqualFold(string(doc[b.Start+1:i]), b.Node.Tag) {
		return 0, false
	}
	return i, true
}

// TagNameEnd returns the offset just after the tag name of the start tag
// at doc[start] (before end), where an attribute can be inserted.
func TagNameEnd(doc []byte, start, end int) (int, bool) {
	if start+1 >= len(doc) || doc[start] != '<' {
		return 0, false
	}
	i := start + 1
	for i < len(doc) && i < end && !isTagNameEnd(doc[i]) {
		i++
	}
	if i >= len(doc) || i == start+1 {
		return 0, false
	}
	return i, true
}

func isTagNameEnd(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '/' || c == '>'
}

// StyleOffset is where the <style> element goes: after the start tag of
// the page's own <head> or <body>, or at the end of a page without them
// (a style element in the body still applies).
func StyleOffset(res *partition.Result) int {
	doc := res.Doc
	var found int = -1
	var visit func(n *partition.Node, depth int)
	visit = func(n *partition.Node, depth int) {
		if found >= 0 || depth > 3 {
			return
		}
		if n.Kind == partition.ElementNode && (n.Tag == "head" || n.Tag == "body") &&
			n.Start+len(n.Tag)+1 <= len(doc) && doc[n.Start] == '<' &&
			strings.EqualFold(string(doc[n.Start+1:n.Start+1+len(n.Tag)]), n.Tag) {
			if end := startTagEnd(doc, n.Start); end > 0 {
				found = end
			}
			return
		}
		for _, c := range n.Children {
			visit(c, depth+1)
		}
	}
	if res.Root != nil {
		visit(res.Root, 0)
	}
	if found < 0 {
		return len(doc)
	}
	return found
}

// startTagEnd returns the offset after the '>' closing the start tag at
// start, skipping quoted attribute values, or -1.
func startTagEnd(doc []byte, start int) int {
	var quote byte
	for i := start + 1; i < len(doc); i++ {
		c := doc[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			// Quotes open values only after '='; good enough for head/body.
			if bytes.LastIndexByte(doc[start:i], '=') >= 0 {
				quote = c
			}
		case c == '>':
			return i + 1
		}
	}
	return -1
}

// AttrEscape escapes s for a double-quoted attribute value, writing
// non-ASCII as character references so the caption survives whatever
// charset the page is in.
func AttrEscape(s string) string {
	var sb strings.Builder
	for _, r := range html.EscapeString(s) {
		if r < 0x80 {
			sb.WriteRune(r)
		} else {
			sb.WriteString("&#" + strconv.Itoa(int(r)) + ";")
		}
	}
	return sb.String()
}
