package tables

import (
	"html"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/partition"
)

// linkState is what a URL's next capture needs to write its links: the
// links of each block of the last capture with blocks, and the links of
// the URL's last capture with links.
type linkState struct {
	blocks  map[pack.ID][]*Link // BlockNo, Version and Ordinal unset: shared by captures
	prev    []*Link
	version *int32 // captures.links_version of that capture
}

// capture sets row's links_version and, when the capture's links (all its
// blocks', in page order) differ from the URL's last capture with links,
// gives c their rows. A capture repeating its predecessor's links
// writes none, so a page crawled unchanged a hundred times keeps its
// navigation's links once, while every capture still names its links.
func (ls *linkState) capture(c *capOut, row *Capture, links []*Link) {
	if len(links) == 0 {
		// No links (an error page, a stub): links_version null. The
		// last links stay the reference, so the page coming back with
		// them writes nothing again.
		return
	}
	if !sameLinks(ls.prev, links) {
		v := row.Version
		ls.version = &v
		c.links = make([]*Link, len(links))
		for i, l := range links {
			r := *l // the rows belong to the sink; the block's list is reused
			r.Version, r.Ordinal = v, int32(i+1)
			c.links[i] = &r
		}
	}
	ls.prev = links
	row.LinksVersion = ls.version
}

// sameLinks says whether two captures' links read the same: the blocks
// holding them may differ (a paragraph reworded around its links).
func sameLinks(a, b []*Link) bool {
	if len(a) != len(b) {
		return false
	}
	for i, x := range a {
		y := b[i]
		if x.Tag != y.Tag || x.Href != y.Href || x.AnchorText != y.AnchorText ||
			!sameStr(x.TargetURL, y.TargetURL) || !sameStr(x.Rel, y.Rel) {
			return false
		}
	}
	return true
}

func sameStr(a, b *string) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// linkPage reads the links of one page: the document's base URL and the
// decoder of its charset, shared by its blocks.
type linkPage struct {
	res  *partition.Result
	base *url.URL // nil when the page URL does not parse
	dec  partition.Decoder
}

func newLinkPage(res *partition.Result, pageURL string) *linkPage {
	lp := &linkPage{res: res, dec: partition.NewDecoder(res.Charset)}
	base, err := url.Parse(pageURL)
	if err != nil {
		return lp
	}
	lp.base = base
	// The first <base href> sets the document's base URL (HTML, "The
	// document base URL"), resolved against the page's own URL.
	if n := findElement(res.Root, "base", "href"); n != nil {
		if b, err := base.Parse(lp.attr(n, "href")); err == nil && b.IsAbs() {
			lp.base = b
		}
	}
	return lp
}

// findElement returns the first element (document order) named tag with
// attribute attr, or nil.
func findElement(n *partition.Node, tag, attr string) *partition.Node {
	if n == nil {
		return nil
	}
	if n.Kind == partition.ElementNode && n.Tag == tag {
		for _, a := range n.Attrs {
			if a.Key == attr {
				return n
			}
		}
	}
	for _, c := range n.Children {
		if f := findElement(c, tag, attr); f != nil {
			return f
		}
	}
	return nil
}

// attr returns attribute key of n as UTF-8 (the tokenizer has resolved
// character references; the bytes are still the page's charset), trimmed
// of the ASCII whitespace URL parsing strips.
func (lp *linkPage) attr(n *partition.Node, key string) string {
	return strings.Trim(lp.decode(n.Attr(key)), " \t\n\f\r")
}

func (lp *linkPage) decode(s string) string {
	if lp.dec.UTF8() && utf8.ValidString(s) {
		return s // no copy
	}
	return lp.dec.String([]byte(s))
}

// links returns the link rows of block b on the page whose URL is key:
// every <a href> and <area href> in the block, in document order, except
// hrefs that name no other resource (empty, fragment-only, javascript:).
func (lp *linkPage) links(key, blockID string, b *partition.Block) []*Link {
	var out []*Link
	var walk func(n *partition.Node)
	walk = func(n *partition.Node) {
		if n.Kind == partition.ElementNode && (n.Tag == "a" || n.Tag == "area") && hasAttr(n, "href") {
			if l := lp.link(n); l != nil {
				l.URLSURTKey, l.BlockID = key, blockID // BlockNo: set by the builder
				out = append(out, l)
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	if b.Node != nil {
		walk(b.Node)
	}
	return out
}

func hasAttr(n *partition.Node, key string) bool {
	for _, a := range n.Attrs {
		if a.Key == key {
			return true
		}
	}
	return false
}

func (lp *linkPage) link(n *partition.Node) *Link {
	href := lp.attr(n, "href")
	if href == "" || href[0] == '#' || len(href) >= 11 && strings.EqualFold(href[:11], "javascript:") {
		return nil
	}
	l := &Link{Tag: n.Tag, Href: href}
	if lp.base != nil {
		if u, err := lp.base.Parse(href); err == nil && u.IsAbs() {
			// Without the fragment: it names a place in the target, not
			// another resource, and would break joins with url.
			u.Fragment, u.RawFragment = "", ""
			s := u.String()
			l.TargetURL = &s
		}
	}
	if hasAttr(n, "rel") {
		r := strings.Join(strings.Fields(lp.decode(n.Attr("rel"))), " ")
		l.Rel = &r
	}
	if n.Tag == "area" {
		l.AnchorText = strings.Join(strings.Fields(lp.attr(n, "alt")), " ")
	} else {
		var sb strings.Builder
		lp.text(&sb, n)
		l.AnchorText = strings.Join(strings.Fields(sb.String()), " ")
	}
	return l
}

// text appends the text of n's subtree, without script, style and
// template, with img alt text standing for the image (what a reader of an
// image link sees of it).
func (lp *linkPage) text(sb *strings.Builder, n *partition.Node) {
	switch n.Kind {
	case partition.TextNode:
		raw := lp.res.Doc[n.Start:n.End]
		s := lp.decode(string(raw))
		if strings.IndexByte(s, '&') >= 0 {
			s = html.UnescapeString(s)
		}
		sb.WriteString(s)
		return
	case partition.ElementNode:
		switch n.Tag {
		case "script", "style", "template", "noscript":
			return
		case "img":
			sb.WriteString(" " + lp.attr(n, "alt") + " ")
			return
		case "br":
			sb.WriteByte(' ')
		}
	}
	for _, c := range n.Children {
		lp.text(sb, c)
	}
	if breaksText[n.Tag] {
		sb.WriteByte(' ')
	}
}

// breaksText are the elements a link may hold that separate words (block
// boxes and line breaks); inline elements (b, span…) join their text.
var breaksText = map[string]bool{
	"br": true, "p": true, "div": true, "li": true, "td": true, "th": true, "tr": true, "dt": true, "dd": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "section": true, "article": true,
	"figure": true, "figcaption": true, "header": true, "footer": true, "ul": true, "ol": true, "table": true,
}
