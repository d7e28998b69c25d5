package partition

import (
	"bytes"
	"strconv"
	"strings"
)

// Scripts, styles and data islands (<script type=application/json>,
// <template>) are not content: a browser renders none of them; nor are
// dialogs and consent banners the region they sit in (islandOf). Between
// blocks the rules leave them to the layout; inside a kept block they
// used to stay in the block, so a nonce, a counter or a build hash in an
// inline script marked a content block modified with no visible change,
// and a block of a few hundred visible characters could weigh hundreds of
// kilobytes. carveLeaves cuts them out of every leaf: the leaf is
// replaced, at its level, by the runs of its content between them and by
// its dialogs and consent banners.
//
// Scripts, styles and templates go to the layout, not to blocks of their
// own: such blocks were a reader's blocks with nothing in them (issue 35:
// most of the blocks of some news pages). The layout is stored as a delta
// of the URL's previous one, so a script that changes at every capture
// costs a delta either way, and the content around it stays unchanged.

// isIsland reports whether element n is never rendered content that pages
// change on their own schedule: script (any type, JSON and JSON-LD data
// islands included), style and template. Not noscript: inside content
// it mostly holds the real <img> of a lazy-loaded picture, as stable as
// the picture; cut out, it split every figure of an article in three
// (measured at level 3 on a ZDNet article of the benchmark: 31 leaves
// before any cut, 130 with noscript cut, 44 without). The tracking pixels in noscript that carry
// counters sit in the head or at the end of the body, between blocks.
func isIsland(n *Node) bool {
	switch n.Tag {
	case "script", "style", "template":
		return true
	}
	return false
}

// Kinds of island.
const (
	notIsland = iota
	islandScript
	islandDialog
	islandConsent
)

// Bounds on the visible text of a dialog or consent banner found by its
// name: beyond them the name is on a page wrapper (a class such as
// "cookie-consent-shown" or "modal-open" set on a container while the
// pop-up is open), not on the pop-up.
const (
	maxDialogText  = 5000
	maxConsentText = 3000
)

// islandOf says whether element n, with text visible characters in its
// subtree, is an island, and which: a script-like element (isIsland); a
// dialog (<dialog>, role=dialog or alertdialog, aria-modal=true, or a
// hidden element named modal, popup or lightbox: a pop-up waiting for a
// script); a cookie or consent banner, by its id or class (consentName).
// Dialogs and consent banners are not the region they sit in: they are
// drawn over the page, and consent banners change with the consent
// provider's versions, not with the page. The document's html, head,
// body and main elements are never islands, nor is an inline element
// (shown, not block-level): a link named cookie-settings inside a
// sentence ("change them in the cookie settings at any time") is part of
// the sentence, not a banner, and cut out it split the paragraph in
// three blocks.
func islandOf(n *Node, hidden, inline bool, text int32) uint8 {
	if isIsland(n) {
		return islandScript
	}
	switch n.Tag {
	case "html", "head", "body", "main":
		return notIsland
	}
	if inline && !hidden {
		return notIsland
	}
	// One pass over the attributes: this runs on every element.
	var id, class string
	dialog := n.Tag == "dialog"
	for _, a := range n.Attrs {
		switch a.Key {
		case "id":
			id = a.Val
		case "class":
			class = a.Val
		case "role", "aria-modal":
			dialog = dialog || dialogAttr(a)
		}
	}
	if text <= maxDialogText && (dialog || hidden && popupName(id, class)) {
		return islandDialog
	}
	if text <= maxConsentText && (id != "" || class != "") && consentName(id, class) && !inForm(n) {
		return islandConsent
	}
	return notIsland
}

// inForm reports whether n lies inside a <form>: a consent name there is
// a form's own consent field (WordPress's comment-form-cookies-consent,
// "save my name in this browser"), not a banner.
func inForm(n *Node) bool {
	for a := n.Parent; a != nil; a = a.Parent {
		if a.Kind == ElementNode && a.Tag == "form" {
			return true
		}
	}
	return false
}

// isDialog reports a dialog by its tag or ARIA attributes.
func isDialog(n *Node) bool {
	if n.Tag == "dialog" {
		return true
	}
	for _, a := range n.Attrs {
		if dialogAttr(a) {
			return true
		}
	}
	return false
}

// dialogAttr reports role=dialog or alertdialog, or aria-modal=true.
func dialogAttr(a Attr) bool {
	switch a.Key {
	case "role":
		return strings.EqualFold(a.Val, "dialog") || strings.EqualFold(a.Val, "alertdialog")
	case "aria-modal":
		return strings.EqualFold(a.Val, "true")
	}
	return false
}

// eachNameToken calls fn with each word of the class and id values vals,
// split as nameTokens splits them but not lower-cased and without
// allocating (this runs on every element), until fn returns true.
func eachNameToken(fn func(tok string) bool, vals ...string) bool {
	for _, v := range vals {
		start := -1
		prevLower := false
		for i := 0; i <= len(v); i++ {
			var c byte = ' '
			if i < len(v) {
				c = v[i]
			}
			// Non-ASCII bytes are letters: words in other scripts stay whole.
			letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
			upper := c >= 'A' && c <= 'Z'
			if start >= 0 && (!letter || upper && prevLower) {
				if fn(v[start:i]) {
					return true
				}
				start = -1
			}
			if letter && start < 0 {
				start = i
			}
			prevLower = letter && !upper
		}
	}
	return false
}

// consentWords are the words of the ids and classes of cookie and consent
// banners: generic words and the consent-management platforms'
// names (OneTrust and its former name Optanon, Didomi, Usercentrics,
// Cookiebot by Cybot, iubenda, tarteaucitron, Axeptio, Klaro, TrustArc,
// Quantcast, Borlabs, Complianz, consentmanager's cmpbox). The bare
// token "cmp" is left out: Adobe's core components name every element
// cmp-text, cmp-image, cmp-container.
var consentWords = cues("cookie cookies consent gdpr cmpbox cmpwrapper onetrust optanon didomi usercentrics cookiebot cybot iubenda tarteaucitron axeptio klaro trustarc truste quantcast borlabs cmplz complianz")

func consentToken(tok string) bool {
	if len(tok) < 4 || len(tok) > 32 {
		return false
	}
	var buf [32]byte
	low := buf[:len(tok)]
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	// "cookiebanner", "cookienotice", "cookieconsent", "gdprbox": a
	// consent word run together with another.
	return consentWord(low) || bytes.HasPrefix(low, []byte("cookie")) ||
		bytes.Contains(low, []byte("consent")) || bytes.HasPrefix(low, []byte("gdpr"))
}

// consentWord is consentWords[string(low)] for a lower-case token of at
// most 32 bytes. Nearly every class and id token of a page asks it, and
// nearly all fail the length and first letter test, far cheaper than
// hashing the token.
func consentWord(low []byte) bool {
	if c := low[0]; 'a' <= c && c <= 'z' && consentFirst[len(low)]&(1<<(c-'a')) == 0 {
		return false
	}
	return consentWords[string(low)]
}

// consentFirst[n] has bit c-'a' set when a consent word of n bytes
// begins with letter c (all bits when one begins otherwise).
var consentFirst = func() (t [33]uint32) {
	for w := range consentWords {
		if len(w) > 32 {
			continue // longer than any token consentToken asks about
		}
		if c := w[0]; 'a' <= c && c <= 'z' {
			t[len(w)] |= 1 << (c - 'a')
		} else {
			t[len(w)] = ^uint32(0)
		}
	}
	return t
}()

// consentName reports a cookie or consent banner by its id or class.
func consentName(id, class string) bool {
	return eachNameToken(consentToken, id, class)
}

// popupName reports an id or class naming a pop-up container: the last
// word of the id, or a whole class, is modal, popup or lightbox ("modal
// fade", id "search_modal"; not "modal-header" or id "modalClose", parts
// of one).
func popupName(id, class string) bool {
	last := ""
	eachNameToken(func(tok string) bool { last = tok; return false }, id)
	if popupWord(last) {
		return true
	}
	for c := range strings.FieldsSeq(class) {
		if popupWord(c) || popupContainer(c) {
			return true
		}
	}
	return false
}

// popupContainer reports a class that is a pop-up word followed by one
// word for a container: "modal-window", "modalWindow", "popup-container",
// "lightbox-overlay" name the pop-up itself, as "modal" does; "modal-header"
// or "popup-close" name a part of one.
func popupContainer(c string) bool {
	n, first, ok := 0, true, true
	eachNameToken(func(tok string) bool {
		switch n++; {
		case n == 1:
			first = popupWord(tok)
		case n == 2:
			ok = containerWord(tok)
		}
		return n > 2
	}, c)
	return n == 2 && first && ok
}

func containerWord(w string) bool {
	for _, c := range [...]string{"window", "dialog", "box", "container", "wrapper", "wrap", "overlay", "layer"} {
		if strings.EqualFold(w, c) {
			return true
		}
	}
	return false
}

func popupWord(w string) bool {
	return strings.EqualFold(w, "modal") || strings.EqualFold(w, "popup") || strings.EqualFold(w, "lightbox")
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

// selfIsland reports whether n is itself an island: a dialog or consent
// banner kept as a block stays whole, scripts and all.
func (p *partitioner) selfIsland(n *Node) bool {
	return n.id >= 0 && int(n.id) < len(p.facts) && p.facts[n.id].island
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
		case c.Kind == ElementNode && p.facts[c.id].island && isIsland(c):
			// A script, style or template goes to the layout, as between
			// blocks: a block of its own would be a block with nothing to
			// see (on the article pages a third of the blocks with no
			// visible text were such islands).
			flush()
		case c.Kind == ElementNode && p.facts[c.id].island:
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
// run: a comment, or any node without visible extent (blank text, an
// empty or hidden element, a <link>), as rule 1 leaves such nodes in the
// layout between blocks. A run of them alone is no block: it would be a
// block with nothing to see.
func (p *partitioner) blankEdge(n *Node) bool {
	return n.Kind == CommentNode || !p.facts[n.id].valid
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
		} else if b.Node != nil && b.Node.Tag != "head" && !p.selfIsland(b.Node) && p.hasIslands(b.Node) {
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
