package partition

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// This file turns the offset-keeping tree into visible text. It is the only
// place where the document's charset is decoded: blocks stay byte spans of
// the original input, and only their text is UTF-8.
//
// The whole document is rendered once, in one pre-order walk, into a single
// whitespace-normalised buffer; every node records where its text starts
// in that buffer, and every additive feature (links, images, ...) is kept
// as a prefix sum over the pre-order. The text and features of any block —
// at any level of the block tree — are then a slice and a few subtractions,
// so annotating every level costs one walk, not one walk per level.

// skipText lists elements whose content is never visible text.
var skipText = map[string]bool{
	"script": true, "style": true, "noscript": true, "template": true,
	"head": true, "title": true, "svg": true, "iframe": true, "object": true,
	"select": true, "datalist": true, "math": true, "rt": true, "rp": true,
}

// breakTags are elements that start a new line when rendered; their text
// is separated from the text around them by "\n" rather than by nothing.
var breakTags = map[string]bool{
	"address": true, "article": true, "aside": true, "blockquote": true,
	"br": true, "dd": true, "details": true, "dialog": true, "div": true,
	"dl": true, "dt": true, "fieldset": true, "figcaption": true,
	"figure": true, "footer": true, "form": true, "h1": true, "h2": true,
	"h3": true, "h4": true, "h5": true, "h6": true, "header": true,
	"hgroup": true, "hr": true, "li": true, "main": true, "nav": true,
	"ol": true, "p": true, "pre": true, "section": true, "summary": true,
	"table": true, "tbody": true, "thead": true, "tfoot": true, "tr": true,
	"td": true, "th": true, "ul": true, "caption": true, "legend": true,
	"option": true, "body": true, "html": true, "img": true, "textarea": true,
}

// Per-tag text flags, so the rendering walk does one table lookup per
// element (usually none: buildTree stores the tag's entry in Node.info)
// instead of a map lookup per question.
const (
	textSkip    uint8 = 1 << iota // in skipText
	textBreak                     // in breakTags
	textLink                      // a: a link when it has href
	textImage                     // img
	textForm                      // form
	textInput                     // input, textarea, button, select
	textHeading                   // h1-h6
	textPara                      // p
)

// textFlagsOf computes the text flags of a tag (tags.go stores them in
// tagTable at init).
func textFlagsOf(tag string) uint8 {
	var f uint8
	if skipText[tag] {
		f |= textSkip
	}
	if breakTags[tag] {
		f |= textBreak
	}
	switch tag {
	case "a":
		f |= textLink
	case "img":
		f |= textImage
	case "form":
		f |= textForm
	case "input", "textarea", "button", "select":
		f |= textInput
	case "h1", "h2", "h3", "h4", "h5", "h6":
		f |= textHeading
	case "p":
		f |= textPara
	}
	return f
}

// textFlags returns the text flags of an element's tag. Trees built by
// hand (tests) carry no tagInfo; every entry of tagTable has a class, so
// a zero class means "look it up".
func textFlags(n *Node) uint8 {
	if n.Kind != ElementNode {
		return 0
	}
	if n.info.class != ClassNone {
		return n.info.text
	}
	return tagTable[n.Tag].text
}

// docIndex is the per-document state shared by annotation and MainText:
// the nodes in pre-order, their subtree extents, the rendered text and
// prefix sums of the additive features. Index i of every cum* slice holds
// the total over nodes[0:i], so a subtree [i, end[i]) sums in O(1).
type docIndex struct {
	doc    []byte
	nodes  []*Node
	end    []int32         // index one past the last node of nodes[i]'s subtree
	hidden []bool          // the node or an ancestor is invisible / not text
	pos    map[*Node]int32 // built on first need, for nodes whose id is not their index

	text    []byte  // rendered text of the whole document
	textStr string  // the same text as a string: block texts are substrings of it
	textOff []int32 // text offset at entry of node i; len(nodes)+1 entries

	cumLinks, cumImages, cumForms, cumInputs, cumHeadings []int32
	cumLinkRunes, cumRunes, cumParas                      []int32
	cumWords                                              []int32 // words starting before textOff[i] (textWriter counts them)
	cumCont                                               []int32 // UTF-8 continuation bytes before textOff[i], for rune counts

	dec  Decoder // of the document's charset
	lang string  // page language, see detectLanguage

	// scratch is the main-text extractor's per-node tables, kept with
	// the index's so that the next page reuses their memory.
	scratch mainScratch
}

// mainScratch holds the memory of a mainExtractor's per-node tables.
type mainScratch struct {
	score, bonus                                                  []float64
	scored                                                        []bool
	own, para, commas, lis, blocks, dates, replies, authors, kept []int32
	marks                                                         []textMark
}

// zeroed returns *s resized to n zero elements, reusing its memory when
// it has room (make's result, without the allocation), and keeps it in
// *s for the next call.
func zeroed[T any](s *[]T, n int) []T {
	if cap(*s) >= n {
		*s = (*s)[:n]
		clear(*s)
	} else {
		*s = make([]T, n)
	}
	return *s
}

// decodeString converts raw bytes of the document to valid UTF-8 and
// resolves character references. Invalid sequences become U+FFFD.
func (x *docIndex) decodeString(raw []byte, unescape bool) string {
	s := x.dec.String(raw)
	if unescape && strings.IndexByte(s, '&') >= 0 {
		s = html.UnescapeString(s)
	}
	return s
}

// attrText returns an attribute value as UTF-8 text (attribute values
// come from the raw bytes, so they carry the document's charset).
func (x *docIndex) attrText(n *Node, key string) string {
	v := n.Attr(key)
	if v == "" {
		return ""
	}
	if !x.dec.UTF8() || !utf8.ValidString(v) {
		v = x.decodeString([]byte(v), false)
	}
	return joinFields(v)
}

// joinFields is strings.Join(strings.Fields(v), " "), returning v itself
// when it is ASCII already in that form (the common case).
func joinFields(v string) string {
	prevSpace := true // a leading space needs the general case
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= utf8.RuneSelf || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
			return strings.Join(strings.Fields(v), " ")
		case c == ' ':
			if prevSpace {
				return strings.Join(strings.Fields(v), " ")
			}
			prevSpace = true
		default:
			prevSpace = false
		}
	}
	if prevSpace && v != "" {
		return strings.Join(strings.Fields(v), " ")
	}
	return v
}

// isHidden reports whether n is not rendered: the hidden attribute, an
// inline display:none / visibility:hidden, or what the style sheets say.
func isHidden(res *Result, n *Node) bool {
	if n.Kind != ElementNode {
		return false
	}
	for _, a := range n.Attrs {
		switch a.Key {
		case "hidden":
			return true
		case "type":
			if n.Tag == "input" && strings.EqualFold(a.Val, "hidden") {
				return true
			}
		case "style":
			// The page's root hidden whole waits for a script (see
			// resolveStyle).
			if hiddenInline(a.Val) && n.Tag != "html" && n.Tag != "body" {
				return true
			}
		}
	}
	return res != nil && res.hiddenOf(n)
}

func hiddenInline(style string) bool {
	if !strings.Contains(style, "none") && !strings.Contains(style, "hidden") {
		return false
	}
	s := strings.ToLower(strings.Join(strings.Fields(style), ""))
	return strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden")
}

// textWriter appends whitespace-normalised text: runs of white space
// become one space, or one "\n" when a line break (a break element's
// boundary) falls inside the run; nothing is emitted before the first
// visible character.
//
// It also counts words as countWords does, while it writes (words,
// inWord), so the per-node word prefix sums need no second scan of the
// text: a separator (white space or a line break) always ends a word.
type textWriter struct {
	buf     []byte
	pending byte  // 0, ' ' or '\n'
	words   int32 // words started in buf so far
	cont    int32 // UTF-8 continuation bytes in buf so far
	inWord  bool  // the last rune written continues a word
}

func (w *textWriter) lineBreak() { w.pending = '\n'; w.inWord = false }

// write appends s and returns the number of runes of s that were emitted,
// not counting the separator flushed before them.
func (w *textWriter) write(s string) int { return writeText(w, s) }

func writeText[T string | []byte](w *textWriter, s T) int {
	n, _ := writeTextChecked(w, s, false)
	return n
}

// writeTextChecked is writeText; with check, it stops and reports false
// at the first '&' or invalid UTF-8 byte of s, having written part of s
// (the caller restores w): text that needs decoding first. One pass
// instead of a search for '&', a validation pass and the copy.
func writeTextChecked[T string | []byte](w *textWriter, s T, check bool) (int, bool) {
	runes := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if isASCIISpace(c) {
				i++
				if w.pending == 0 {
					w.pending = ' '
				}
				w.inWord = false
				continue
			}
			if c == '&' {
				// Ends the ASCII runs below (its class is classStop), so
				// that check sees it; otherwise it is punctuation.
				if check {
					return runes, false
				}
				w.flush()
				w.buf = append(w.buf, '&')
				runes++
				w.inWord = false
				i++
				continue
			}
			// A run of ASCII non-space bytes is copied at once, with the
			// single spaces between them: a ' ' followed by such a byte is
			// the separator flush would write there (the run has written a
			// byte before it), so the run goes on through it.
			w.flush()
			j := i
			spaces := 0
			inWord, words := w.inWord, w.words
		run:
			for ; j < len(s); j++ {
				switch byteClass[s[j]] {
				case classWord:
					if !inWord {
						words++
						inWord = true
					}
				case classApos:
				case classOther:
					inWord = false
				default: // white space, '&' or a non-ASCII byte
					if s[j] == ' ' && j+1 < len(s) && byteClass[s[j+1]] != classStop {
						spaces++
						inWord = false
						continue
					}
					break run
				}
			}
			w.buf = append(w.buf, s[i:j]...)
			runes += j - i - spaces
			w.inWord, w.words = inWord, words
			i = j
			continue
		}
		r, size := decodeRuneAt(s, i)
		if check && size == 1 && r == utf8.RuneError {
			return runes, false
		}
		i += size
		if r == '\u00ad' {
			// A soft hyphen is not seen unless a line breaks there:
			// "Mit&shy;tel&shy;al&shy;ter" reads, and is searched, as
			// one word.
			continue
		}
		if unicode.IsSpace(r) {
			if w.pending == 0 {
				w.pending = ' '
			}
			w.inWord = false
			continue
		}
		w.flush()
		w.buf = append(w.buf, s[i-size:i]...)
		w.cont += int32(size - 1)
		runes++
		switch {
		case r >= 0x1100 && isCJK(r):
			w.words++
			w.inWord = false
		case isWordRuneSlow(r):
			if !w.inWord {
				w.words++
				w.inWord = true
			}
		case r == '’' && w.inWord:
		default:
			w.inWord = false
		}
	}
	return runes, true
}

// Byte classes of writeText's ASCII run loop.
const (
	classOther = iota // ASCII punctuation: ends a word
	classWord         // ASCII letter or digit
	classApos         // '\'': inside a word, keeps it going
	classStop         // white space, '&' or a non-ASCII byte: ends the run
)

var byteClass = func() (t [256]uint8) {
	for c := range t {
		switch {
		case c >= utf8.RuneSelf || isASCIISpace(byte(c)) || c == '&':
			t[c] = classStop
		case asciiWord[c]:
			t[c] = classWord
		case c == '\'':
			t[c] = classApos
		}
	}
	return t
}()

// isASCIISpace reports the ASCII white space writeText collapses.
func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v'
}

func (w *textWriter) flush() {
	if w.pending != 0 && len(w.buf) > 0 {
		w.buf = append(w.buf, w.pending)
	}
	w.pending = 0
}

// buildIndex walks res.Root once. It never fails: a nil tree gives an
// empty index.
func buildIndex(res *Result, opts Options) *docIndex {
	return buildIndexReusing(nil, res, opts)
}

// buildIndexReusing is buildIndex taking its tables' memory from spare,
// the index of an earlier document that is no longer used (nil: none).
func buildIndexReusing(spare *docIndex, res *Result, opts Options) *docIndex {
	if spare == nil {
		spare = &docIndex{}
	}
	x := &docIndex{doc: res.Doc, scratch: spare.scratch}
	x.dec = NewDecoder(res.Charset)
	if res.Root == nil {
		x.textOff = []int32{0}
		for _, c := range []*[]int32{&x.cumLinks, &x.cumImages, &x.cumForms, &x.cumInputs, &x.cumHeadings, &x.cumLinkRunes, &x.cumRunes, &x.cumParas, &x.cumWords, &x.cumCont} {
			*c = []int32{0}
		}
		return x
	}
	// The partition's own pre-order list, when there is one, sizes the
	// tables exactly.
	if n := len(res.nodes) + 1; n > 1 {
		x.nodes = reuseSlice(spare.nodes, n)
		x.end = reuseSlice(spare.end, n)
		x.hidden = reuseSlice(spare.hidden, n)
		x.textOff = reuseSlice(spare.textOff, n)
		for i, c := range x.cumTables() {
			*c = reuseSlice(*spare.cumTables()[i], n)
		}
	}
	w := &textWriter{buf: reuseSlice(spare.text, len(res.Doc)/4)}
	var links, images, forms, inputs, headings, linkRunes, runes, paras int32
	// pushTotals appends the running totals: before each node, and once at
	// the end so the last subtree has its upper bound.
	pushTotals := func() {
		x.textOff = append(x.textOff, int32(len(w.buf)))
		x.cumLinks = append(x.cumLinks, links)
		x.cumImages = append(x.cumImages, images)
		x.cumForms = append(x.cumForms, forms)
		x.cumInputs = append(x.cumInputs, inputs)
		x.cumHeadings = append(x.cumHeadings, headings)
		x.cumLinkRunes = append(x.cumLinkRunes, linkRunes)
		x.cumRunes = append(x.cumRunes, runes)
		x.cumParas = append(x.cumParas, paras)
		x.cumWords = append(x.cumWords, w.words)
		x.cumCont = append(x.cumCont, w.cont)
	}
	var walk func(n *Node, hidden, inLink bool)
	walk = func(n *Node, parentHidden, inLink bool) {
		i := int32(len(x.nodes))
		x.nodes = append(x.nodes, n)
		x.end = append(x.end, 0)
		tf := textFlags(n)
		hidden := parentHidden || tf&textSkip != 0 || n.Kind == CommentNode || n.Kind == DoctypeNode || isHidden(res, n)
		// The prefix entries hold the totals before node i; node i's own
		// counts are added after, so subtree i sums as cum[end[i]]-cum[i].
		x.hidden = append(x.hidden, hidden)
		pushTotals()
		visible := n.Kind == ElementNode && (!hidden || n.Tag == "select" && !parentHidden && !isHidden(res, n))
		if visible {
			if tf&textBreak != 0 {
				w.lineBreak()
			}
			switch {
			case tf&textLink != 0:
				if hasAttr(n, "href") {
					links++
					inLink = true
				}
			case tf&textImage != 0:
				images++
			case tf&textForm != 0:
				forms++
			case tf&textInput != 0:
				inputs++
			case tf&textHeading != 0:
				headings++
			case tf&textPara != 0:
				paras++
			}
		}
		if n.Kind == TextNode && !hidden && n.Start >= 0 && n.End <= len(x.doc) && n.Start < n.End {
			raw := x.doc[n.Start:n.End]
			var k int32
			ok := false
			if x.dec.UTF8() {
				// Common case: UTF-8 without character references, written
				// as it stands (no copy).
				save := *w
				var n int
				if n, ok = writeTextChecked(w, raw, true); ok {
					k = int32(n)
				} else {
					*w = save
				}
			}
			if !ok {
				k = int32(w.write(x.decodeString(raw, true)))
			}
			runes += k
			if inLink {
				linkRunes += k
			}
		}
		for _, c := range n.Children {
			walk(c, hidden, inLink)
		}
		if !hidden && tf&textBreak != 0 {
			w.lineBreak()
		}
		x.end[i] = int32(len(x.nodes))
	}
	walk(res.Root, false, false)
	x.text = w.buf
	x.textStr = string(w.buf)
	pushTotals()
	x.lang = detectLanguage(x)
	return x
}

// cumTables returns the prefix-count tables of x.
func (x *docIndex) cumTables() [10]*[]int32 {
	return [...]*[]int32{&x.cumLinks, &x.cumImages, &x.cumForms, &x.cumInputs, &x.cumHeadings, &x.cumLinkRunes, &x.cumRunes, &x.cumParas, &x.cumWords, &x.cumCont}
}

// reuseSlice returns s emptied when it can hold n elements, else a new
// slice of capacity n.
func reuseSlice[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:0]
	}
	return make([]T, 0, n)
}

// spare returns x's tables for the next document's index (emptied of
// pointers, so they keep no page alive); x must not be used afterwards.
func (x *docIndex) spare() *docIndex {
	clear(x.nodes)
	s := &docIndex{nodes: x.nodes, end: x.end, hidden: x.hidden, textOff: x.textOff, text: x.text, scratch: x.scratch}
	for i, c := range x.cumTables() {
		*s.cumTables()[i] = *c
	}
	return s
}

// words counts the words of span s as countWords would count its text:
// a word cut by the span's start (a block that begins inside a word run,
// "foo<b>bar</b>") counts in the span too.
func (x *docIndex) words(s span) int {
	n := int(x.cumWords[s.hi] - x.cumWords[s.lo])
	if a, b := int(x.textOff[s.lo]), int(x.textOff[s.hi]); x.splitsWord(a, b) {
		n++ // counted where it began, before the span: countWords starts it anew
	}
	return n
}

// splitsWord reports whether the span's text x.text[a:b] starts inside
// a word of the whole text: its first word rune, after any apostrophes,
// continues a word (countWords: apostrophes inside a word keep it going).
func (x *docIndex) splitsWord(a, b int) bool {
	plainWord := func(r rune) bool { return isWordRune(r) && !(r >= 0x1100 && isCJK(r)) }
	apostrophe := func(r rune) bool { return r == '\'' || r == '’' }
	j := a
	for j < b {
		r, size := utf8.DecodeRune(x.text[j:b])
		if !apostrophe(r) {
			if !plainWord(r) {
				return false
			}
			break
		}
		j += size
	}
	if j >= b {
		return false
	}
	for i := a; i > 0; {
		p, size := utf8.DecodeLastRune(x.text[:i])
		if !apostrophe(p) {
			return plainWord(p)
		}
		i -= size
	}
	return false
}

func hasAttr(n *Node, key string) bool {
	for _, a := range n.Attrs {
		if a.Key == key {
			return true
		}
	}
	return false
}

// span is a contiguous run of nodes in pre-order, [lo, hi).
type span struct{ lo, hi int32 }

// index returns n's pre-order index. Trees from buildTree carry it as
// n.id; other trees (built by hand) fall back to a map.
func (x *docIndex) index(n *Node) (int32, bool) {
	if n == nil || n.Kind == FragmentNode {
		return 0, false
	}
	if n.id >= 0 && int(n.id) < len(x.nodes) && x.nodes[n.id] == n {
		return n.id, true
	}
	if x.pos == nil {
		x.pos = make(map[*Node]int32, len(x.nodes))
		for i, m := range x.nodes {
			x.pos[m] = int32(i)
		}
	}
	i, ok := x.pos[n]
	return i, ok
}

// nodeSpan returns the nodes of n's subtree.
func (x *docIndex) nodeSpan(n *Node) (span, bool) {
	i, ok := x.index(n)
	if !ok {
		return span{}, false
	}
	return span{i, x.end[i]}, true
}

// byteSpan returns the nodes whose start lies in [start, end): a block
// that is not exactly one node (a run of siblings) still maps to a
// contiguous pre-order run because spans nest and follow document order.
func (x *docIndex) byteSpan(start, end int) span {
	lo := sort.Search(len(x.nodes), func(i int) bool { return x.nodes[i].Start >= start })
	hi := sort.Search(len(x.nodes), func(i int) bool { return x.nodes[i].Start >= end })
	if hi < lo {
		hi = lo
	}
	return span{int32(lo), int32(hi)}
}

// blockSpan maps a block to its nodes.
func (x *docIndex) blockSpan(b *Block) span {
	if b.Node != nil && b.Node.Start == b.Start && b.Node.End == b.End {
		if s, ok := x.nodeSpan(b.Node); ok {
			return s
		}
	}
	return x.byteSpan(b.Start, b.End)
}

// spanText returns the trimmed rendered text of a span.
func (x *docIndex) spanText(s span) string {
	return strings.Trim(x.textStr[x.textOff[s.lo]:x.textOff[s.hi]], " \n")
}

func sum(c []int32, s span) int { return int(c[s.hi] - c[s.lo]) }

// decodeRuneAt is utf8.DecodeRune of s[i:], for a string or a byte slice.
func decodeRuneAt[T string | []byte](s T, i int) (rune, int) {
	switch v := any(s).(type) {
	case string:
		return utf8.DecodeRuneInString(v[i:])
	case []byte:
		return utf8.DecodeRune(v[i:])
	}
	panic("unreachable")
}
