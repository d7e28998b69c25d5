package partition

import (
	"bytes"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxTreeDepth bounds the depth of the offset-keeping tree. Elements
// opened deeper than this are kept as childless nodes of the deepest open
// element (their content becomes their siblings), so every walk over the
// tree is bounded whatever the nesting of the input (100k nested <div>s
// included). Real pages stay far below it.
const maxTreeDepth = 256

// maxScopeSearch bounds how far an end tag searches the stack of open
// elements for its start tag when a scope barrier may stop it, so that a
// flood of stray end tags stays linear.
const maxScopeSearch = 64

// treeBuilder turns tokens into the offset-keeping tree, applying the
// subset of the HTML5 tree-construction rules that decides where an
// element ends: implied end tags, void elements, stray end tags, the end
// of <head>. Nothing is re-serialised; nodes only record byte spans.
type treeBuilder struct {
	doc   []byte
	nodes []*Node // pre-order
	kids  []int32 // number of children of nodes[i], counted as they come
	stack []*Node // open elements; stack[0] is the document node
	// Open elements by name: known tags by tagInfo.idx, others by name.
	openKnown [256]int32
	openOther map[string]int
	foreign   int     // open <svg> and <math> elements
	ns        []uint8 // namespace of each open element (parallel to stack)

	// Allocation arenas: nodes and attribute slices come from slabs; the
	// attribute values (and keys that are not atoms) are gathered in
	// arena and become one string per arenaChunk bytes (finishAttrs), so
	// attributes cost no allocation of their own.
	slab     []Node
	attrSlab []Attr
	attrBuf  []Attr     // attributes of the current tag
	spanBuf  []attrText // their text in arena
	arena    []byte
	pending  []pendingAttr // attributes whose text finishAttrs fills in
	last     []*Node       // last child of each open element (parallel to stack)
	nameBuf  []byte        // scratch for tagName
	// scratch for rawAttrs
	attrSpans []attrSpan
	keyBuf    []byte
}

// lastChild returns the last child appended to the top element.
func (b *treeBuilder) lastChild() *Node { return b.last[len(b.last)-1] }

// attrText locates an attribute's key (keyStart < 0: the key is set
// already) and value in the arena.
type attrText struct {
	keyStart, keyEnd, valStart, valEnd int32
}

// pendingAttr is an attribute in a node's Attrs waiting for its text.
type pendingAttr struct {
	a *Attr
	attrText
}

// addAttr collects one attribute of the current tag: key is lower-case.
func (b *treeBuilder) addAttr(key, val []byte) {
	t := attrText{keyStart: -1}
	a := Attr{}
	if at := atom.Lookup(key); at != 0 {
		a.Key = at.String()
	} else {
		t.keyStart = int32(len(b.arena))
		b.arena = append(b.arena, key...)
		t.keyEnd = int32(len(b.arena))
	}
	t.valStart = int32(len(b.arena))
	b.arena = append(b.arena, val...)
	t.valEnd = int32(len(b.arena))
	b.attrBuf = append(b.attrBuf, a)
	b.spanBuf = append(b.spanBuf, t)
}

// attrs moves the collected attributes into a slab-backed slice of
// exactly their length; their text is filled in by finishAttrs.
func (b *treeBuilder) attrs() []Attr {
	k := len(b.attrBuf)
	if k == 0 {
		return nil
	}
	if len(b.attrSlab) < k {
		b.attrSlab = make([]Attr, max(256, k))
	}
	out := b.attrSlab[:k:k]
	b.attrSlab = b.attrSlab[k:]
	copy(out, b.attrBuf)
	for i, t := range b.spanBuf {
		b.pending = append(b.pending, pendingAttr{a: &out[i], attrText: t})
	}
	b.attrBuf, b.spanBuf = b.attrBuf[:0], b.spanBuf[:0]
	if len(b.arena) >= arenaChunk {
		b.finishAttrs()
	}
	return out
}

// arenaChunk is the size of text at which finishAttrs turns the arena
// into a string: one allocation per 8 KiB of attribute text, and
// nothing wasted (the arena's buffer is reused; strings are exact).
const arenaChunk = 8 << 10

// finishAttrs gives every attribute returned by attrs so far its key
// and value, slices of one string holding the arena, and empties the
// arena.
func (b *treeBuilder) finishAttrs() {
	if len(b.pending) == 0 {
		return
	}
	text := string(b.arena)
	for _, p := range b.pending {
		if p.keyStart >= 0 {
			p.a.Key = text[p.keyStart:p.keyEnd]
		}
		p.a.Val = text[p.valStart:p.valEnd]
	}
	clear(b.pending)
	b.pending, b.arena = b.pending[:0], b.arena[:0]
}

func (b *treeBuilder) newNode() *Node {
	if len(b.slab) == 0 {
		b.slab = make([]Node, 128)
	}
	n := &b.slab[0]
	b.slab = b.slab[1:]
	return n
}

func buildTree(doc []byte) (*Node, []*Node) {
	return new(treeBuilder).build(doc)
}

// build builds the tree of doc. The builder's scratch memory (attribute
// arena, stacks, counts) serves the next document; nothing of the
// returned tree lives in it, and build empties it of doc before
// returning, so a builder kept for reuse keeps no page alive.
func (b *treeBuilder) build(doc []byte) (*Node, []*Node) {
	root := &Node{Kind: DocumentNode, Start: 0, End: len(doc)}
	b.doc = doc
	b.nodes = make([]*Node, 0, 64+len(doc)/40)
	if b.arena == nil {
		b.arena = make([]byte, 0, min(arenaChunk+arenaChunk/2, 64+len(doc)/4))
		b.pending = make([]pendingAttr, 0, min(1024, 8+len(doc)/64))
	}
	b.kids = append(b.kids[:0], 0)
	b.nodes = append(b.nodes, root)
	b.stack = append(b.stack[:0], root)
	b.last = append(b.last[:0], nil)
	b.ns = append(b.ns[:0], nsHTML)

	z := html.NewTokenizer(bytes.NewReader(doc))
	off := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		start := off
		off += len(z.Raw())
		if off > len(doc) { // cannot happen: Raw spans tile the input
			break
		}
		switch tt {
		case html.TextToken:
			b.text(start, off)
		case html.CommentToken:
			b.leaf(CommentNode, start, off)
		case html.DoctypeToken:
			b.leaf(DoctypeNode, start, off)
		case html.StartTagToken, html.SelfClosingTagToken:
			tag, info := b.tagName(z, 1)
			if !b.rawAttrs(z.Raw(), 1) {
				// TagAttr returns a nil key only when the tag has no
				// (more) attributes: the tokenizer drops attributes with
				// empty keys.
				for k, v, more := z.TagAttr(); k != nil; k, v, more = z.TagAttr() {
					b.addAttr(k, v)
					if !more {
						break
					}
				}
			}
			attrs := b.attrs()
			foreign := b.inForeign(tag)
			if foreign && breaksOut(tag, attrs) {
				for b.inForeign(tag) {
					b.pop()
				}
				foreign = false
			}
			// In foreign content an element takes the namespace of the
			// one it is in (a <math> inside an <svg> is SVG's), and any
			// element may close itself; so may <svg/> and <math/>
			// anywhere (HTML5 acknowledges their self-closing flag).
			ns := nsHTML
			switch {
			case foreign:
				ns = b.ns[len(b.ns)-1]
			case tag == "svg":
				ns = nsSVG
			case tag == "math":
				ns = nsMathML
			}
			selfClosing := tt == html.SelfClosingTagToken && (info.void || foreign || tag == "svg" || tag == "math")
			b.start(tag, info, attrs, start, off, selfClosing, ns)
			if foreign {
				// An SVG icon's <title/> or <style> is no raw text: read
				// as HTML's, it swallowed the rest of the page.
				z.NextIsNotRawText()
			} else if e, ok := rawTextEnd(doc, off, tag); ok && e-off >= minRawSkip {
				// <plaintext>: everything to EOF is text; the tokenizer
				// knows, and so does the tree, since nothing after it can
				// close anything.
				// The tokenizer would read this raw text byte by byte;
				// its end is found here, and a fresh tokenizer resumes
				// at the end tag, in the state the old one would be in.
				if e > off {
					b.text(off, e)
				}
				off = e // at len(doc), the fresh tokenizer ends at once
				z = html.NewTokenizer(bytes.NewReader(doc[off:]))
			}
		case html.EndTagToken:
			tag, _ := b.tagName(z, 2)
			b.end(tag, off)
		}
	}
	// Bytes the tokenizer did not return (an unfinished tag at EOF) stay in
	// the span of the document node and of no other node.
	for len(b.stack) > 1 {
		b.pop()
	}
	b.finishAttrs()
	b.linkChildren()
	nodes := b.nodes
	b.reset()
	return root, nodes
}

// reset drops every reference to the last document: the nodes and
// slabs belong to its tree, and the stacks' backing arrays still point
// into it.
func (b *treeBuilder) reset() {
	b.doc, b.nodes, b.slab, b.attrSlab = nil, nil, nil, nil
	clear(b.stack[:cap(b.stack)])
	clear(b.last[:cap(b.last)])
	b.openKnown = [len(b.openKnown)]int32{}
	clear(b.openOther)
	b.foreign = 0
	if cap(b.arena) > 4*arenaChunk {
		b.arena = nil // grown by a tag with huge attributes: not for keeps
	}
}

// minRawSkip is the shortest raw text that rawTextEnd finds itself: a
// fresh tokenizer costs a buffer, which only long texts repay.
const minRawSkip = 1024

// rawTextEnd returns where the raw text that follows a <tag> start tag
// ending at off ends, as x/net/html's tokenizer finds it (the first
// "</tag" in any letter case followed by white space, '/' or '>'; len(doc)
// when there is none), for the tags the tokenizer reads as raw text
// (readStartTag; the tokenizer does this also for a self-closing tag).
// ok is false when the tokenizer must read the text itself: <plaintext>,
// or a script with "<!--" before its end (the script-data escape states
// of readScript can move the end).
func rawTextEnd(doc []byte, off int, tag string) (int, bool) {
	switch tag {
	case "script", "style", "iframe", "noembed", "noframes", "noscript", "textarea", "title", "xmp":
	default:
		return 0, false
	}
	script := tag == "script"
	i := off
	for {
		j := bytes.IndexByte(doc[i:], '<')
		if j < 0 {
			return len(doc), true
		}
		i += j
		if script && bytes.HasPrefix(doc[i+1:], []byte("!--")) {
			return 0, false
		}
		if i+2+len(tag) < len(doc) && doc[i+1] == '/' && asciiEqualFold(doc[i+2:i+2+len(tag)], tag) {
			switch doc[i+2+len(tag)] {
			case ' ', '\n', '\r', '\t', '\f', '/', '>':
				return i, true
			}
		}
		i++
	}
}

// asciiEqualFold reports whether b is s (lower-case letters) in any
// letter case.
func asciiEqualFold(b []byte, s string) bool {
	for k := range len(s) {
		if c := b[k]; c != s[k] && c != s[k]-('a'-'A') {
			return false
		}
	}
	return true
}

// Byte classes of tag syntax (tagClass), as the tokenizer's readTag,
// readTagName, readTagAttrKey and readTagAttrVal tell them apart.
const (
	clSpace   = 1 << iota // ' ', '\n', '\r', '\t', '\f'
	clNameEnd             // white space, '/', '>': ends a tag name
	clKeyEnd              // white space, '/', '>', '=': ends an attribute key
	clUnqEnd              // white space, '>': ends an unquoted value
	clUpper               // 'A'-'Z': TagName and TagAttr lower-case it
	clNUL                 // TagName and TagAttr replace it
	clValue               // NUL, '&', '\r': TagAttr changes the value
)

// tagClass holds the classes of every byte; built at init, read only.
var tagClass = func() (t [256]uint8) {
	for _, c := range []byte(" \n\r\t\f") {
		t[c] |= clSpace | clNameEnd | clKeyEnd | clUnqEnd
	}
	t['/'] |= clNameEnd | clKeyEnd
	t['>'] |= clNameEnd | clKeyEnd | clUnqEnd
	t['='] |= clKeyEnd
	for c := 'A'; c <= 'Z'; c++ {
		t[c] |= clUpper
	}
	t[0] |= clNUL | clValue
	t['&'] |= clValue
	t['\r'] |= clValue
	return t
}()

// tagName returns the interned name of the current tag token, and its
// tagTable entry (zero for unknown tags), whose name
// starts at Raw()[skip] ("<" or "</" before it). It reads the name from
// Raw() as the tokenizer's readTagName delimits it (up to white space, '/'
// or '>') and lower-cases it as TagName does, without TagName's copy of the
// name; a name with a NUL byte, which TagName replaces, goes through
// TagName itself.
func (b *treeBuilder) tagName(z *html.Tokenizer, skip int) (string, tagInfo) {
	raw := z.Raw()
	i, seen := skip, uint8(0)
	for ; i < len(raw); i++ {
		c := tagClass[raw[i]]
		if c&clNameEnd != 0 {
			break
		}
		seen |= c
	}
	name := raw[skip:i]
	if seen&clNUL != 0 {
		n, _ := z.TagName()
		tag := intern(n)
		return tag, infoOf(tag)
	}
	if seen&clUpper != 0 {
		buf := b.nameBuf[:0]
		for _, c := range name {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf = append(buf, c)
		}
		b.nameBuf, name = buf, buf
	}
	if e := lookupTag(name); e != nil {
		return e.name, e.info
	}
	return intern(name), tagInfo{}
}

// maxRawAttrs bounds the attributes rawAttrs handles (it finds duplicate
// keys by a linear search); tags with more go through TagAttr.
const maxRawAttrs = 16

func skipTagSpace(raw []byte, i int) int {
	for i < len(raw) && tagClass[raw[i]]&clSpace != 0 {
		i++
	}
	return i
}

// rawAttrs collects (addAttr) the attributes of the current start tag,
// whose name starts at raw[skip], from its raw bytes, delimiting them as
// the tokenizer's readTag, readTagAttrKey and readTagAttrVal do, keeping
// the first of duplicate keys and dropping empty ones as readTag does. It
// covers the common case, where TagAttr would only copy and lower-case:
// no NUL byte in keys or values, no '&' or '\r' in values (TagAttr
// unescapes and converts those). Anything else — or a tag that does not
// end as the tokenizer ended it — makes it return false having added
// nothing, and the caller asks TagAttr, which is exact. TagAttr
// allocates two slices per attribute; this allocates nothing.
func (b *treeBuilder) rawAttrs(raw []byte, skip int) bool {
	spans := b.attrSpans[:0]
	keys := b.keyBuf[:0]
	i := skip
	for i < len(raw) && tagClass[raw[i]]&clNameEnd == 0 {
		i++ // the tag name
	}
	if i < len(raw) && tagClass[raw[i]]&clSpace != 0 {
		i++
	}
	i = skipTagSpace(raw, i)
	for {
		if i >= len(raw) {
			return false
		}
		if raw[i] == '>' {
			break
		}
		// readTagAttrKey: up to white space, '/', '>' or a '=' that is
		// not the key's first byte.
		ks := i
		seen := uint8(0)
		if raw[i] == '=' {
			i++
		}
		for ; i < len(raw); i++ {
			c := tagClass[raw[i]]
			if c&clKeyEnd != 0 {
				break
			}
			seen |= c
		}
		if i >= len(raw) || seen&clNUL != 0 {
			return false
		}
		ke := i
		// readTagAttrVal.
		vs, ve := i, i
		j := skipTagSpace(raw, i)
		if j >= len(raw) {
			return false
		}
		switch raw[j] {
		case '/':
			i = j + 1
		case '=':
			j = skipTagSpace(raw, j+1)
			if j >= len(raw) {
				return false
			}
			switch q := raw[j]; q {
			case '>':
				i = j
			case '\'', '"':
				k := bytes.IndexByte(raw[j+1:], q)
				if k < 0 {
					return false
				}
				vs, ve = j+1, j+1+k
				i = ve + 1
			default:
				k := j + 1
				for k < len(raw) && tagClass[raw[k]]&clUnqEnd == 0 {
					k++
				}
				if k >= len(raw) {
					return false
				}
				vs, ve = j, k
				i = k
				if tagClass[raw[k]]&clSpace != 0 {
					i++
				}
			}
		default:
			i = j
		}
		for _, c := range raw[vs:ve] {
			if tagClass[c]&clValue != 0 {
				return false
			}
		}
		if ke > ks {
			// The lower-cased key, checked against the keys kept so far.
			start := len(keys)
			keys = append(keys, raw[ks:ke]...)
			key := keys[start:]
			if seen&clUpper != 0 {
				for k, c := range key {
					if 'A' <= c && c <= 'Z' {
						key[k] = c + 'a' - 'A'
					}
				}
			}
			dup := false
			for _, sp := range spans {
				if string(keys[sp.keyStart:sp.keyEnd]) == string(key) {
					dup = true
					break
				}
			}
			if dup {
				keys = keys[:start]
			} else {
				if len(spans) == maxRawAttrs {
					return false
				}
				spans = append(spans, attrSpan{keyStart: int32(start), keyEnd: int32(len(keys)), valStart: int32(vs), valEnd: int32(ve)})
			}
		}
		i = skipTagSpace(raw, i)
	}
	if i != len(raw)-1 {
		return false // not where the tokenizer ended the tag
	}
	for _, sp := range spans {
		b.addAttr(keys[sp.keyStart:sp.keyEnd], raw[sp.valStart:sp.valEnd])
	}
	b.attrSpans, b.keyBuf = spans, keys
	return true
}

// attrSpan is one attribute found by rawAttrs: its lower-cased key in
// keyBuf and its value in the tag's raw bytes.
type attrSpan struct {
	keyStart, keyEnd, valStart, valEnd int32
}

// intern returns the canonical string of a lower-case tag or attribute
// name, without allocating for known names.
func intern(name []byte) string {
	if a := atom.Lookup(name); a != 0 {
		return a.String()
	}
	return string(name)
}

// addOpen adds d to the count of open elements named tag.
func (b *treeBuilder) addOpen(tag string, info tagInfo, d int) {
	if info.idx != 0 {
		b.openKnown[info.idx] += int32(d)
		return
	}
	if b.openOther == nil {
		b.openOther = make(map[string]int)
	}
	b.openOther[tag] += d
}

// openCount returns the number of open elements named tag.
func (b *treeBuilder) openCount(tag string) int {
	if e := lookupTag(tag); e != nil {
		return int(b.openKnown[e.info.idx])
	}
	return b.openOther[tag]
}

func (b *treeBuilder) top() *Node { return b.stack[len(b.stack)-1] }

// appendChild makes n the next child of the top element. Children
// slices are filled once at the end (linkChildren) from one backing
// array, instead of growing one slice per node.
func (b *treeBuilder) appendChild(n *Node) {
	p := b.top()
	n.Parent = p
	n.depth = p.depth + 1
	n.id = int32(len(b.nodes))
	b.nodes = append(b.nodes, n)
	b.kids = append(b.kids, 0)
	b.kids[p.id]++
	b.last[len(b.last)-1] = n
}

// linkChildren fills every node's Children from the Parent links: nodes
// are in pre-order, so each parent's children come in document order.
func (b *treeBuilder) linkChildren() {
	count := b.kids
	backing := make([]*Node, len(b.nodes)-1)
	at := 0
	for i, n := range b.nodes {
		k := int(count[i])
		if k > 0 {
			n.Children = backing[at : at : at+k]
			at += k
		}
	}
	for _, n := range b.nodes[1:] {
		n.Parent.Children = append(n.Parent.Children, n)
	}
}

func (b *treeBuilder) leaf(kind NodeKind, start, end int) {
	n := b.newNode()
	n.Kind, n.Start, n.End = kind, start, end
	b.appendChild(n)
}

func (b *treeBuilder) text(start, end int) {
	p := b.top()
	if p.Tag == "head" && !isSpace(b.doc[start:end]) {
		// Non-blank text ends the head (HTML5 "in head" → "after head").
		b.closeTo("head")
	}
	if last := b.lastChild(); last != nil && last.Kind == TextNode && last.End == start {
		last.End = end
		return
	}
	b.leaf(TextNode, start, end)
}

func (b *treeBuilder) start(tag string, info tagInfo, attrs []Attr, start, end int, selfClosing bool, ns uint8) {
	b.implyEnds(tag)
	n := b.newNode()
	n.Kind, n.Tag, n.info, n.Attrs, n.Start, n.End = ElementNode, tag, info, attrs, start, end
	b.appendChild(n)
	if selfClosing || info.void || len(b.stack) > maxTreeDepth {
		return
	}
	b.stack = append(b.stack, n)
	b.last = append(b.last, nil)
	b.ns = append(b.ns, ns)
	b.addOpen(tag, info, 1)
	if tag == "svg" || tag == "math" {
		b.foreign++
	}
}

// Namespaces of open elements: HTML, or SVG and MathML (foreign
// content).
const (
	nsHTML uint8 = iota
	nsSVG
	nsMathML
)

// inForeign reports whether a start tag of tag is read as foreign
// content (HTML5 §13.2.6, the tree construction dispatcher): the
// current node is an SVG or MathML element and not an integration
// point where HTML's rules apply (SVG's foreignObject, desc and title;
// MathML's text integration points, except for mglyph and malignmark;
// an annotation-xml for an <svg>).
func (b *treeBuilder) inForeign(tag string) bool {
	top := len(b.stack) - 1
	switch b.ns[top] {
	case nsSVG:
		switch b.stack[top].Tag {
		case "foreignobject", "desc", "title":
			return false
		}
	case nsMathML:
		switch b.stack[top].Tag {
		case "mi", "mo", "mn", "ms", "mtext":
			return tag == "mglyph" || tag == "malignmark"
		case "annotation-xml":
			return tag != "svg"
		}
	default:
		return false
	}
	return true
}

// breaksOut reports whether a start tag ends foreign content (HTML5
// §13.2.6.5): an unclosed <svg> does not swallow the page after it.
func breaksOut(tag string, attrs []Attr) bool {
	switch tag {
	case "b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt", "em", "embed",
		"h1", "h2", "h3", "h4", "h5", "h6", "head", "hr", "i", "img", "li", "listing", "menu", "meta",
		"nobr", "ol", "p", "pre", "ruby", "s", "small", "span", "strong", "strike", "sub", "sup", "table",
		"tt", "u", "ul", "var":
		return true
	case "font":
		for _, a := range attrs {
			if a.Key == "color" || a.Key == "face" || a.Key == "size" {
				return true
			}
		}
	}
	return false
}

// implyEnds closes the open elements that the start of tag ends
// implicitly (HTML5 §13.2.6.4.7, simplified to what decides spans).
func (b *treeBuilder) implyEnds(tag string) {
	if b.foreign > 0 {
		return
	}
	if b.openKnown[idxHead] > 0 && !headTag(tag) {
		b.closeTo("head")
	}
	switch tag {
	case "li":
		b.closeListItem(func(t string) bool { return t == "li" })
	case "dt", "dd":
		b.closeListItem(func(t string) bool { return t == "dt" || t == "dd" })
	case "option":
		if b.top().Tag == "option" {
			b.pop()
		}
	case "optgroup":
		if b.top().Tag == "option" {
			b.pop()
		}
		if b.top().Tag == "optgroup" {
			b.pop()
		}
	case "tr":
		b.closeInTable(func(t string) bool { return t == "tr" }, isSection)
	case "td", "th":
		b.closeInTable(func(t string) bool { return t == "td" || t == "th" },
			func(t string) bool { return t == "tr" || isSection(t) })
	case "thead", "tbody", "tfoot":
		b.closeInTable(isSection, func(string) bool { return false })
	case "h1", "h2", "h3", "h4", "h5", "h6":
		if headingLevel(b.top().Tag) > 0 {
			b.pop()
		}
	case "a":
		if b.openKnown[idxA] > 0 {
			b.closeInScope("a")
		}
	}
	if closesP(tag) && b.openKnown[idxP] > 0 {
		b.closeInScope("p")
	}
}

// closeListItem implements the <li>/<dt>/<dd> start-tag step: close the
// nearest open item unless a special element other than address, div
// and p comes first.
func (b *treeBuilder) closeListItem(match func(string) bool) {
	for i, k := len(b.stack)-1, 0; i > 0 && k < maxScopeSearch; i, k = i-1, k+1 {
		t := b.stack[i].Tag
		if match(t) {
			b.popTo(i)
			b.pop()
			return
		}
		if specialTag(t) {
			return
		}
	}
}

// closeInTable closes the nearest open element matching match, unless a
// table boundary or an element for which stop holds comes first (a new
// cell never closes its row, a new row never closes its section).
func (b *treeBuilder) closeInTable(match, stop func(string) bool) {
	for i, k := len(b.stack)-1, 0; i > 0 && k < maxScopeSearch; i, k = i-1, k+1 {
		t := b.stack[i].Tag
		if match(t) {
			b.popTo(i)
			b.pop()
			return
		}
		if tableBarrier(t) || stop(t) {
			return
		}
	}
}

func isSection(t string) bool { return t == "thead" || t == "tbody" || t == "tfoot" }

// closeInScope closes the nearest open tag unless a scope barrier comes
// first; it reports whether it closed anything.
func (b *treeBuilder) closeInScope(tag string) bool {
	if b.openCount(tag) == 0 {
		return false
	}
	tableTag := false
	switch tag {
	case "table", "tbody", "thead", "tfoot", "tr", "td", "th", "caption":
		tableTag = true
	}
	for i, k := len(b.stack)-1, 0; i > 0 && k < maxScopeSearch; i, k = i-1, k+1 {
		t := b.stack[i].Tag
		if t == tag {
			b.popTo(i)
			b.pop()
			return true
		}
		if tableTag && tableBarrier(t) || !tableTag && scopeBarrier(t) {
			return false
		}
		if (tag == "li" && (t == "ul" || t == "ol")) || (tag == "p" && t == "button") {
			return false
		}
	}
	return false
}

// closeTo closes the nearest open tag without a scope check.
func (b *treeBuilder) closeTo(tag string) {
	for i := len(b.stack) - 1; i > 0; i-- {
		if b.stack[i].Tag == tag {
			b.popTo(i)
			b.pop()
			return
		}
	}
}

// end handles an end tag whose last byte is at end-1. A matching open
// element is closed with everything opened inside it; a stray end tag is
// ignored (its bytes stay in its parent's span, between children).
func (b *treeBuilder) end(tag string, end int) {
	if b.openCount(tag) == 0 {
		if tag == "p" || tag == "br" {
			// HTML5 turns a stray </p> into <p></p> and </br> into <br>;
			// both are still bytes between nodes here, which is all that
			// matters for spans.
		}
		return
	}
	if b.foreign > 0 && tag != "svg" && tag != "math" {
		// Foreign content closes by name without HTML scope rules.
		for i, k := len(b.stack)-1, 0; i > 0 && k < maxScopeSearch; i, k = i-1, k+1 {
			if b.stack[i].Tag == tag {
				b.popTo(i)
				b.stack[len(b.stack)-1].End = end
				b.pop()
				return
			}
		}
		return
	}
	if tag == "body" || tag == "html" {
		// Content after </body> still belongs to the body in HTML5: the
		// element stays open so trailing content nests, but its span
		// reaches at least to the end of its end tag.
		for i := len(b.stack) - 1; i > 0; i-- {
			if b.stack[i].Tag == tag {
				b.stack[i].End = max(b.stack[i].End, end)
				break
			}
		}
		return
	}
	var closed bool
	for i, k := len(b.stack)-1, 0; i > 0 && k < maxScopeSearch; i, k = i-1, k+1 {
		t := b.stack[i].Tag
		if t == tag {
			b.popTo(i)
			b.top().End = end
			b.pop()
			closed = true
			break
		}
		switch tag {
		case "table", "tbody", "thead", "tfoot", "tr", "td", "th", "caption":
			if tableBarrier(t) {
				return
			}
		case "li":
			if t == "ul" || t == "ol" || scopeBarrier(t) {
				return
			}
		default:
			if scopeBarrier(t) {
				return
			}
		}
	}
	_ = closed
}

// popTo pops every element above stack index i, leaving stack[i] on top.
func (b *treeBuilder) popTo(i int) {
	for len(b.stack)-1 > i {
		b.pop()
	}
}

// pop closes the top element. Its End is the end of its explicit end tag
// when end set it already; otherwise (implied or missing end tag) it is
// the end of its last child or of its own start tag.
func (b *treeBuilder) pop() {
	n := b.top()
	if last := b.lastChild(); last != nil && last.End > n.End {
		n.End = last.End
	}
	b.stack = b.stack[:len(b.stack)-1]
	b.last = b.last[:len(b.last)-1]
	b.ns = b.ns[:len(b.ns)-1]
	b.addOpen(n.Tag, n.info, -1)
	if n.Tag == "svg" || n.Tag == "math" {
		b.foreign--
	}
}

func isSpace(p []byte) bool {
	for _, c := range p {
		switch c {
		case ' ', '\t', '\n', '\r', '\f':
		default:
			return false
		}
	}
	return true
}
