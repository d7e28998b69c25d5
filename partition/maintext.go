package partition

import (
	"bytes"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Main-content extraction (the "main text" output of Wang & Zhu 2012).
//
// The block tree says where the regions of a page are; which region is
// the article is decided by scoring, at every granularity at once:
//
//  1. Every paragraph-like element (p, pre, or a cell, quote or block
//     element with enough text of its own) scores by its length and
//     punctuation, each text counted once; the score flows to its
//     ancestors, halving and then thirding with distance. An ancestor
//     therefore scores high when it holds many such paragraphs: the best
//     content *subtree*, not a leaf.
//  2. Class/id names shift scores (article, content, post, entry, story,
//     body ... up, for an element holding a main text's worth of
//     paragraphs; comment, share, related, footer, sidebar ... down) and
//     link density scales them down.
//  3. The best subtree may be widened to its parent when the parent scores
//     higher, and siblings of it (or of the outermost wrapper holding it
//     alone) that score well and read as prose, or are clean paragraphs,
//     are merged in (small blocks next to the content block join it;
//     teasers of other pages do not).
//  4. Inside the chosen subtrees, boilerplate children are pruned: the
//     blocks the labeller marked navigation, advertisement, footer,
//     related links or form (unless one holds most of the page), notices,
//     datelines and print-only text, lists of teasers of other pages,
//     and link-dense or image-heavy lists and divs; quoted posts
//     (blockquotes) stay whatever their links.
//     docs/TOPICS-LABELS.md lists the rules and what each is worth on the
//     article benchmark's tune and held-out halves.
//  5. MainTextWithLead puts the standfirst first (prose paragraphs
//     between the headline and the content, outside it: standfirst);
//     MainTextWithTitle puts the page's headline before that (the h1
//     nearest before the content, when the content does not hold one);
//     MainText leaves both out: the article body alone.
//
// A page showing less than a main text's worth (a template its script
// fills in) is read as a browser without scripts shows it, from its
// <noscript> copy (showNoscript).

const (
	minParagraphRunes = 25
	// minMainRunes: below this the pruned extraction is judged to have
	// failed and is retried with less pruning, then with the whole text.
	minMainRunes = 250
	// gatherGain and gatherMaxLinkDensity: see gather.
	gatherGain           = 1.5
	gatherMaxLinkDensity = 0.25
)

// MainText returns the text of the page's article body in document
// order, paragraphs separated by "\n"; "" for a page without visible
// text. The headline is not in it, as in a schema.org articleBody, the
// article benchmark's ground truth and the article text of readability
// and trafilatura: it is the block labelled title (Block.Label), and
// MainTextWithTitle puts it first. Nor is a standfirst set apart from
// the body beside the headline (schema.org's description):
// MainTextWithLead puts it first.
func MainText(res *Result) string { return mainText(res, false, false) }

// MainTextWithLead is MainText with the standfirst first: the prose
// paragraphs between the headline and the body the scores chose (a
// lead or summary in the article's header), as a reader reads them.
func MainTextWithLead(res *Result) string { return mainText(res, false, true) }

// MainTextWithTitle is MainTextWithLead with the page's headline first:
// the h1 nearest before the content, or the one the content holds.
// It is the article as a reader reads it.
func MainTextWithTitle(res *Result) string { return mainText(res, true, true) }

// mainText is MainText, with the headline when withTitle is set and
// the standfirst when withLead is.
func mainText(res *Result, withTitle, withLead bool) string {
	if res == nil || res.Root == nil {
		return ""
	}
	if doc, ok := closeTitle(res); ok {
		if r, err := Partition(doc, Options{Charset: res.Charset}); err == nil {
			res = r
		}
	}
	x := buildIndex(res, Options{})
	if shown := x.runesAll(); shown < minMainRunes {
		if doc, ok := showNoscript(res); ok {
			if r, err := Partition(doc, Options{Charset: res.Charset}); err == nil {
				if rx := buildIndex(r, Options{}); rx.runesAll() > shown {
					res, x = r, rx
				}
			}
		}
	}
	m := &mainExtractor{x: x, res: res, withTitle: withTitle, withLead: withLead}
	m.prefixes()
	m.pruneLabels()
	return m.extract()
}

// closeTitle returns a copy of the document with "</title>" put before
// the first tag after its <title>, when the title is never closed (or
// closed only after the head's end or the body's start, by an inline
// SVG icon's </title>): the tokenizer then reads the rest of the page
// (up to that close) as title text (HTML5), and the page has nothing to
// show. Read the way its author meant it, the
// title ends where the markup starts again.
func closeTitle(res *Result) ([]byte, bool) {
	t := firstElement(res.Root, "title")
	if t == nil || len(t.Children) == 0 || t.Children[0].Kind != TextNode {
		return nil, false
	}
	off := t.Children[0].Start
	if off < 0 || off > len(res.Doc) {
		return nil, false
	}
	if e, ok := rawTextEnd(res.Doc, off, "title"); !ok || e < len(res.Doc) && !swallowsPage(res.Doc[off:e]) {
		return nil, false
	}
	k := bytes.IndexByte(res.Doc[off:], '<')
	if k < 0 {
		return nil, false
	}
	doc := make([]byte, 0, len(res.Doc)+len("</title>"))
	doc = append(doc, res.Doc[:off+k]...)
	doc = append(doc, "</title>"...)
	return append(doc, res.Doc[off+k:]...), true
}

// showNoscript returns a copy of the document with each <noscript>
// element replaced by its content, read as markup: the page as a
// browser without scripts shows it (a noscript style sheet in the head
// that shows what a script would have shown included). A page whose scripts
// write its text (a template filled in by script, a noscript copy for
// the rest) shows a reader almost nothing else; mainText reads it so
// when the page's visible text is below a main text's worth. ok is
// false when the page holds no noscript with content.
func showNoscript(res *Result) ([]byte, bool) {
	var spans [][2]int // the noscript elements' spans, then their content's
	var walk func(n *Node)
	walk = func(n *Node) {
		for _, c := range n.Children {
			if c.Kind == ElementNode && c.Tag == "noscript" {
				if len(c.Children) == 1 && c.Children[0].Kind == TextNode {
					t := c.Children[0]
					if c.Start <= t.Start && t.End <= c.End && c.End <= len(res.Doc) {
						spans = append(spans, [2]int{c.Start, c.End}, [2]int{t.Start, t.End})
					}
				}
				continue
			}
			walk(c)
		}
	}
	walk(res.Root)
	if len(spans) == 0 {
		return nil, false
	}
	doc := make([]byte, 0, len(res.Doc))
	at := 0
	for k := 0; k < len(spans); k += 2 {
		doc = append(doc, res.Doc[at:spans[k][0]]...)
		doc = append(doc, res.Doc[spans[k+1][0]:spans[k+1][1]]...)
		at = spans[k][1]
	}
	return append(doc, res.Doc[at:]...), true
}

// swallowsPage reports whether a title's text holds the end of the head
// or the start of the body: a title left open that a later </title>
// (an inline SVG icon's) closes, the page between read as its text.
func swallowsPage(t []byte) bool {
	for i := bytes.IndexByte(t, '<'); i >= 0; i = bytes.IndexByte(t, '<') {
		t = t[i+1:]
		if len(t) >= 5 && asciiEqualFold(t[:5], "/head") || len(t) >= 4 && asciiEqualFold(t[:4], "body") {
			return true
		}
	}
	return false
}

// firstElement returns the first element with tag in n's subtree, in
// document order, or nil.
func firstElement(n *Node, tag string) *Node {
	if n == nil {
		return nil
	}
	if n.Kind == ElementNode && n.Tag == tag {
		return n
	}
	for _, c := range n.Children {
		if f := firstElement(c, tag); f != nil {
			return f
		}
	}
	return nil
}

type mainExtractor struct {
	x         *docIndex
	res       *Result
	withTitle bool
	withLead  bool // standfirst: the paragraphs between headline and body
	// core is the best-scoring element of the run, before it is widened
	// to an ancestor and joined by siblings.
	core  int32
	score []float64
	// bonus is the content bonus of an element's name, which counts
	// when it holds enough paragraph text (run).
	bonus  []float64
	scored []bool
	para   []int32 // prefix sums over pre-order of the runes of voting paragraphs
	commas []int32 // prefix sums over pre-order of commas (, ， 、) in the text
	lis    []int32 // prefix sums over pre-order of <li> elements
	// blocks are prefix sums over pre-order of visible elements that
	// start a block of their own, <br> aside (hasBlock).
	blocks []int32
	// labelDrop marks nodes (by pre-order index) of blocks the labeller
	// classed as boilerplate.
	labelDrop map[int32]bool
	// marking makes a run record the text nodes it writes in marks
	// (each with the output length before it, so that text taken back
	// is unmarked) instead of returning the text, and titleNode the h1
	// it puts first (-1 when none): what the run took for the main text
	// (relabelByMainText).
	marking   bool
	marks     []textMark
	unl       []int8 // unlikelyFrom's answers: 1 yes, -1 no, 0 not yet
	titleNode int32
	// dates, replies and authors are prefix sums over pre-order of the
	// marks of a comment thread's entries, thread commentThread's
	// answers (comments.go).
	dates, replies, authors []int32
	thread                  []int8
	// lowBuf is scratch for lower-casing; noticeLo and noticeHi are the
	// text range of hasNotice's last answer, notice (when noticeSet).
	lowBuf  []byte
	weights map[[2]string]float64 // classWeight by class and id
	// coreKinds are the kindTokens of core kindsOf and of its
	// ancestors, computed once per core (namedAsCore).
	coreKinds [][]string
	kindsOf   int32
	// figs is toldInFigures' answer for the core figsOf-1.
	figs               bool
	figsOf             int32
	noticeLo, noticeHi int32
	noticeSet, notice  bool
}

// prefixes fills the comma, list-item and block prefix sums in one pass, so the
// per-element tests of scoring and pruning are O(1).
func (m *mainExtractor) prefixes() {
	x := m.x
	n := len(x.nodes)
	m.commas = zeroed(&x.scratch.commas, n+1)
	m.lis = zeroed(&x.scratch.lis, n+1)
	m.blocks = zeroed(&x.scratch.blocks, n+1)
	pos, commas := 0, int32(0)
	for i := 0; i <= n; i++ {
		if end := int(x.textOff[i]); pos < end {
			commas += countCommas(x.text, pos, end)
			pos = end
		}
		m.commas[i] = commas
		if i < n {
			m.lis[i+1] = m.lis[i]
			if x.nodes[i].Tag == "li" && !x.hidden[i] {
				m.lis[i+1]++
			}
			m.blocks[i+1] = m.blocks[i]
			if nd := x.nodes[i]; nd.Kind == ElementNode && breakTags[nd.Tag] && nd.Tag != "br" && !x.hidden[i] {
				m.blocks[i+1]++
			}
		}
	}
	m.threadMarks()
}

// countCommas counts the commas (, ， 、) that start in text[from:to],
// looking at text beyond to for the rest of a wide comma. The searches
// are bytes.Count and IndexByte rather than a switch per byte: prefixes
// runs over the whole text of every page.
func countCommas(text []byte, from, to int) int32 {
	n := int32(bytes.Count(text[from:to], []byte{','}))
	// '，' U+FF0C is EF BC 8C; '、' U+3001 is E3 80 81
	for _, w := range [2][3]byte{{0xEF, 0xBC, 0x8C}, {0xE3, 0x80, 0x81}} {
		for k := from; k < to; {
			j := bytes.IndexByte(text[k:to], w[0])
			if j < 0 {
				break
			}
			p := k + j
			if p+2 < len(text) && text[p+1] == w[1] && text[p+2] == w[2] {
				n++
			}
			k = p + 1
		}
	}
	return n
}

// pruneLabels records the boilerplate blocks of the block tree.
func (m *mainExtractor) pruneLabels() {
	m.labelDrop = make(map[int32]bool)
	// A block holding most of the page's text is not boilerplate
	// whatever its label (a wrapper labelled footer for the footer it
	// ends with): its children are judged instead.
	most := m.x.runesAll() / 2
	var visit func(b *Block)
	visit = func(b *Block) {
		switch b.Label {
		case LabelNavigation, LabelAdvert, LabelFooter, LabelForm, LabelDialog, LabelConsent:
			if b.Node == nil {
				return
			}
			i, ok := m.x.index(b.Node)
			if !ok {
				return
			}
			if m.runes(span{i, m.x.end[i]}) <= most {
				m.labelDrop[i] = true
				return
			}
		}
		for _, c := range b.Children {
			visit(c)
		}
	}
	for _, b := range m.res.Blocks {
		visit(b)
	}
}

func (m *mainExtractor) extract() string {
	out := m.run(true, true)
	if utf8.RuneCountInString(out) >= minMainRunes {
		return out
	}
	if alt := m.run(false, false); utf8.RuneCountInString(alt) > utf8.RuneCountInString(out) {
		out = alt
	}
	if utf8.RuneCountInString(out) >= minMainRunes/2 {
		return out
	}
	body := m.x.spanText(span{0, int32(len(m.x.nodes))})
	if utf8.RuneCountInString(out) == 0 || utf8.RuneCountInString(body) < minMainRunes {
		return body
	}
	return out
}

var (
	positiveNames = []string{"article", "body", "content", "entry", "hentry", "h-entry", "main", "page", "post", "blog", "story", "prose"}
	negativeNames = []string{"banner", "combx", "comment", "com-", "contact", "foot", "footer", "footnote", "gdpr", "masthead", "media", "meta", "outbrain", "promo", "related", "scroll", "share", "shoutbox", "sidebar", "skyscraper", "sponsor", "shopping", "tags", "tool", "widget", "social", "newsletter", "subscribe", "popup", "modal", "cookie", "byline", "author", "caption", "breadcrumb", "nav", "menu", "disclaimer", "recirc", "trending", "popular", "signup", "login", "ad-", "-ad", "ads"}
	// positiveTokens are content names that are also parts of other
	// words ("polltext", "text_topbox_subhead"): they count as whole
	// class or id tokens only.
	positiveTokens = []string{"text"}
	// negativeTokens are boilerplate names that are also parts of
	// layout names saying nothing of the element's own role: "hidden"
	// (an element the page hides) is whole only; Drupal's
	// "field--label-hidden" (a field whose label is hidden: every text
	// field), Tailwind's "overflow-hidden" and Bootstrap's "hidden-xs"
	// (hidden on phones, shown elsewhere) name visible content. What a
	// style sheet hides is dropped already (isHidden).
	negativeTokens = []string{"hidden"}
	// unlikelyNames mark candidates that are never the article itself.
	unlikelyNames = []string{"comment", "sidebar", "footer", "related", "share", "social", "cookie", "newsletter", "popup", "modal", "recirc", "promo", "sponsor", "nav", "menu", "breadcrumb", "outbrain", "taboola", "trending"}
)

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// hasToken reports whether one of the whitespace-separated class and id
// tokens of s is one of names: a whole token, so that "polltext" or
// "text_topbox_subhead" is not "text".
func hasToken(s string, names []string) bool {
	for _, tok := range strings.Fields(s) {
		for _, name := range names {
			if tok == name {
				return true
			}
		}
	}
	return false
}

func nameOf(n *Node) string {
	return strings.ToLower(n.Attr("class") + " " + n.Attr("id"))
}

// classWeight is ±25 for content and boilerplate names.
func classWeight(n *Node) float64 {
	s := nameOf(n)
	if len(s) <= 1 {
		return 0
	}
	w := 0.0
	if containsAny(s, negativeNames) || hasToken(s, negativeTokens) {
		w -= 25
	}
	if containsAny(s, positiveNames) || hasToken(s, positiveTokens) {
		w += 25
	}
	return w
}

// classWeight is classWeight(n) remembered by n's class and id, all it
// reads: a page repeats its names (one per item, card or row), and
// scoring and pruning ask for the same node.
func (m *mainExtractor) classWeight(n *Node) float64 {
	class, id := n.Attr("class"), n.Attr("id")
	if class == "" && id == "" {
		return 0
	}
	k := [2]string{class, id}
	if w, ok := m.weights[k]; ok {
		return w
	}
	w := classWeight(n)
	if m.weights == nil {
		m.weights = make(map[[2]string]float64)
	}
	m.weights[k] = w
	return w
}

func tagBase(tag string) float64 {
	switch tag {
	case "div", "article", "main", "section":
		return 5
	case "pre", "td", "blockquote":
		return 3
	case "address", "ol", "ul", "dl", "dd", "dt", "li", "form":
		return -3
	case "h1", "h2", "h3", "h4", "h5", "h6", "th":
		return -5
	}
	return 0
}

func (m *mainExtractor) runes(s span) int { return sum(m.x.cumRunes, s) }

func (m *mainExtractor) linkDensity(s span) float64 {
	r := m.runes(s)
	if r == 0 {
		return 0
	}
	return float64(sum(m.x.cumLinkRunes, s)) / float64(r)
}

// ownText counts the runes and commas of element i's own text: its text
// children and inline children (a, em, span), not the text of its block
// children, which vote for themselves. A block inside an inline child
// is a block all the same (a card's link wrapping its title and excerpt,
// <a><div>…</div><p>…</p></a>; a <p> in an unknown tag, which renders
// inline): the inline child is read through, so that no text counts
// for two voters.
func (m *mainExtractor) ownText(i int32) (runes, commas int) {
	x := m.x
	for j := i + 1; j < x.end[i]; j = x.end[j] {
		nd := x.nodes[j]
		if nd.Kind != TextNode && (nd.Kind != ElementNode || breakTags[nd.Tag]) {
			continue
		}
		s := span{j, x.end[j]}
		if nd.Kind == ElementNode && m.hasBlock(s) {
			r, c := m.ownText(j)
			runes, commas = runes+r, commas+c
			continue
		}
		runes += m.runes(s)
		commas += int(sum(m.commas, s))
	}
	return runes, commas
}

// hasBlock reports whether span s holds, below its root, a visible
// element that starts a block of its own, a line break aside.
func (m *mainExtractor) hasBlock(s span) bool {
	return sum(m.blocks, span{s.lo + 1, s.hi}) > 0
}

func (m *mainExtractor) initNode(i int32, tag string) {
	if !m.scored[i] {
		m.scored[i] = true
		w := m.classWeight(m.x.nodes[i])
		if w > 0 {
			m.bonus[i], w = w, 0
		}
		m.score[i] = tagBase(tag) + w
	}
}

func (m *mainExtractor) parentIndex(i int32) (int32, bool) {
	p := m.x.nodes[i].Parent
	if p == nil || p.Kind == DocumentNode {
		return 0, false
	}
	return m.x.index(p)
}

// run extracts once; strict enables the conditional pruning and the
// skipping of unlikely candidates.
func (m *mainExtractor) run(strict, useLabels bool) string {
	x := m.x
	n := len(x.nodes)
	m.score = zeroed(&x.scratch.score, n)
	m.scored = zeroed(&x.scratch.scored, n)
	m.bonus = zeroed(&x.scratch.bonus, n)
	m.figsOf = 0 // toldInFigures reads this run's paragraph text
	own := zeroed(&x.scratch.own, n)
	var segs []segment
	for i := int32(0); i < int32(n); i++ {
		nd := x.nodes[i]
		if nd.Kind != ElementNode || x.hidden[i] {
			continue
		}
		var textLen, commas int
		switch nd.Tag {
		case "p", "pre":
			s := span{i, x.end[i]}
			textLen, commas = m.runes(s), int(sum(m.commas, s))
		case "td", "blockquote", "div", "section", "article", "main", "li", "dd":
			// A container's own text (a cell's, a quote's): the text of
			// its paragraphs and nested cells votes once, for them, not
			// again for every level that holds them.
			textLen, commas = m.ownText(i)
		case "span", "font", "center":
			// Inline: its text is already its block's own text when the
			// block votes (<div><font><font>… counts once, not once per
			// level).
			if m.inVotingBlock(i) {
				continue
			}
			textLen, commas = m.ownText(i)
		default:
			continue
		}
		if textLen < minParagraphRunes {
			continue
		}
		if strict && m.unlikely(i) {
			continue
		}
		own[i] = int32(textLen)
		p, ok := m.parentIndex(i)
		if segs = m.breakParagraphs(i, segs[:0]); len(segs) >= 2 {
			// Paragraphs set apart by <br><br> (an article written as
			// one cell or div) are paragraphs each, as readability's
			// <br><br> to <p>: of the element itself, or of the parent
			// for a <p> or <pre>.
			if nd.Tag != "p" && nd.Tag != "pre" {
				p, ok = i, true
			}
			for _, sg := range segs {
				m.vote(p, ok, 1+float64(sg.commas)+min(float64(sg.runes/100), 3))
			}
			continue
		}
		sc := 1 + float64(commas) + min(float64(textLen/100), 3)
		switch nd.Tag {
		case "div", "section", "article", "main", "td", "blockquote":
			// Loose text beside blocks of a container is a paragraph of
			// the container, as if wrapped in a <p>: the container
			// scores it first, not only its parent. A div of inline
			// text alone is itself the paragraph (readability's div to
			// p).
			if m.hasBlockChild(i) {
				p, ok = i, true
			}
		}
		m.vote(p, ok, sc)
	}
	m.para = zeroed(&x.scratch.para, n+1)
	for i := 0; i < n; i++ {
		m.para[i+1] = m.para[i] + own[i]
	}
	top := int32(-1)
	best := 0.0
	for i := int32(0); i < int32(n); i++ {
		if !m.scored[i] {
			continue
		}
		// A content name counts for an element holding as much
		// paragraph text as a main text needs: a one-line box named
		// "text" or "content" is a box.
		if sum(m.para, span{i, x.end[i]}) >= minMainRunes {
			m.score[i] += m.bonus[i]
		}
		m.score[i] *= 1 - m.linkDensity(span{i, x.end[i]})
		if top < 0 || m.score[i] > best {
			top, best = i, m.score[i]
		}
	}
	if top < 0 {
		return ""
	}
	top = m.besideTeasers(top)
	m.core = top
	top = m.widen(top)
	top = m.gather(top)
	if alt := m.heavier(top); alt >= 0 {
		m.core = alt
		top = m.gather(m.widen(alt))
	}
	parts := m.siblings(m.soleWrapper(top))
	var b bytes.Buffer
	// The output is at most the parts' text, a title and line breaks:
	// room for it up front spares the buffer's doubling (and copies) on
	// long pages.
	need := 64 + 2*len(parts)
	for _, p := range parts {
		need += int(x.textOff[x.end[p]] - x.textOff[p])
	}
	b.Grow(need)
	hasTitle := false
	for _, p := range parts {
		if x.cumHeadings[x.end[p]]-x.cumHeadings[p] > 0 && m.hasH1(p) {
			hasTitle = true
		}
	}
	m.titleNode = -1
	if m.withTitle && !hasTitle {
		if t := m.titleBefore(parts[0]); t != "" {
			b.WriteString(t)
			b.WriteByte('\n')
		}
	}
	if m.withLead && !hasTitle {
		parts = append(m.standfirst(parts[0], strict), parts...)
	}
	for _, p := range parts {
		m.emit(&b, p, strict, useLabels, p)
		b.WriteByte('\n')
	}
	if m.marking {
		return ""
	}
	return strings.TrimSpace(collapseBreaks(b.String()))
}

// textMark is a text node a marking run wrote, at offset off of its
// output.
type textMark struct {
	node int32
	off  int
}

// vote adds a paragraph's score sc to p (when ok) and four of its
// ancestors: in full, ½, then 1/(3·level).
func (m *mainExtractor) vote(p int32, ok bool, sc float64) {
	for level := 0; ok && level < 5; level++ {
		m.initNode(p, m.x.nodes[p].Tag)
		div := 1.0
		if level == 1 {
			div = 2
		} else if level > 1 {
			div = float64(level * 3)
		}
		m.score[p] += sc / div
		p, ok = m.parentIndex(p)
	}
}

// segment is a run of an element's own inline text between paragraph
// breaks: its runes and commas.
type segment struct{ runes, commas int }

// breakParagraphs appends to segs the runs of element i's own inline
// text (text and inline children) that a run of two or more <br>
// (whitespace between them aside) sets apart, each of at least
// minParagraphRunes. The <br>s may be inside inline children (a cell
// whose text is one <font>): those are read through. It returns segs
// unchanged when there is no such run of <br>.
func (m *mainExtractor) breakParagraphs(i int32, segs []segment) []segment {
	x := m.x
	base := len(segs)
	var cur segment
	brs, split := 0, false
	flush := func() {
		if cur.runes >= minParagraphRunes {
			segs = append(segs, cur)
		}
		cur = segment{}
	}
	var walk func(i int32)
	walk = func(i int32) {
		for j := i + 1; j < x.end[i]; j = x.end[j] {
			nd := x.nodes[j]
			if x.hidden[j] {
				continue
			}
			s := span{j, x.end[j]}
			switch {
			case nd.Kind == TextNode && len(bytes.TrimSpace(x.text[x.textOff[j]:x.textOff[x.end[j]]])) == 0:
				continue // whitespace between <br>s
			case nd.Kind == ElementNode && nd.Tag == "br":
				if brs++; brs == 2 {
					flush()
					split = true
				}
				continue
			case nd.Kind == ElementNode && breakTags[nd.Tag]:
				flush() // a block child: its text is not the element's own
			case nd.Kind == ElementNode && m.hasTag(s, "br"):
				walk(j) // an inline child holding <br>s
				continue
			case nd.Kind == TextNode || nd.Kind == ElementNode:
				cur.runes += m.runes(s)
				cur.commas += int(sum(m.commas, s))
			}
			brs = 0
		}
	}
	walk(i)
	flush()
	if !split {
		return segs[:base]
	}
	return segs
}

// hasBlockChild reports whether element i has a visible child element
// that starts a block of its own (a line break is not one).
func (m *mainExtractor) hasBlockChild(i int32) bool {
	x := m.x
	for j := i + 1; j < x.end[i]; j = x.end[j] {
		if nd := x.nodes[j]; nd.Kind == ElementNode && breakTags[nd.Tag] && nd.Tag != "br" && !x.hidden[j] {
			return true
		}
	}
	return false
}

// inVotingBlock reports whether the nearest ancestor of i that is not
// inline is an element whose vote counts i's text: a paragraph-like
// element (all its text) or a container (its own inline text).
func (m *mainExtractor) inVotingBlock(i int32) bool {
	for p, ok := m.parentIndex(i); ok; p, ok = m.parentIndex(p) {
		tag := m.x.nodes[p].Tag
		if !breakTags[tag] && tag != "span" && tag != "font" && tag != "center" {
			// another inline element (a, em, b): part of the own text
			// of the block around it
			continue
		}
		switch tag {
		case "span", "font", "center":
			continue
		case "p", "pre", "td", "blockquote", "div", "section", "article", "main", "li", "dd":
			return true
		}
		return false
	}
	return false
}

// unlikely reports whether a paragraph sits inside a region whose name
// says it is not the article (comments, sidebars, related links ...).
func (m *mainExtractor) unlikely(i int32) bool {
	p, ok := m.parentIndex(i)
	return ok && m.unlikelyFrom(p)
}

// unlikelyFrom is unlikely's walk from ancestor p up, memoised per node
// (it depends on the tree and the label drops alone): every paragraph
// below an ancestor asks the same question of it.
func (m *mainExtractor) unlikelyFrom(p int32) bool {
	if m.unl == nil {
		m.unl = make([]int8, len(m.x.nodes))
	}
	if v := m.unl[p]; v != 0 {
		return v > 0
	}
	r := false
	nd := m.x.nodes[p]
	switch nd.Tag {
	case "aside", "nav", "footer":
		r = !m.holdsMost(p)
	case "body", "html", "article", "main":
	default:
		if s := nameOf(nd); len(s) > 1 && containsAny(s, unlikelyNames) && !containsAny(s, []string{"article", "content", "body", "main", "post", "story"}) && !m.holdsMost(p) || m.useLabelDrop(p) || m.commentThread(p) {
			r = true
		} else if q, ok := m.parentIndex(p); ok {
			r = m.unlikelyFrom(q)
		}
	}
	m.unl[p] = -1
	if r {
		m.unl[p] = 1
	}
	return r
}

// holdsMost reports whether element i holds more than half of the
// page's visible text: a wrapper, not a region, whatever its name or
// tag says (a div.above-footer around the whole page, say), as
// pruneLabels judges a block labelled boilerplate.
func (m *mainExtractor) holdsMost(i int32) bool {
	return m.runes(span{i, m.x.end[i]}) > m.x.runesAll()/2
}

// runesAll is the runes of the page's visible text.
func (x *docIndex) runesAll() int { return sum(x.cumRunes, span{0, int32(len(x.nodes))}) }

// holdsCore reports whether element i holds the run's core, the
// article the scores chose.
func (m *mainExtractor) holdsCore(i int32) bool { return i <= m.core && m.core < m.x.end[i] }

func (m *mainExtractor) useLabelDrop(i int32) bool {
	return m.labelDrop[i]
}

// besideTeasers returns the candidate to extract from instead of top
// when top lies in a list of teasers of other pages (teaserList, up to
// teaserClimb levels above it): the best-scoring candidate outside that
// list, not holding it, with at least as much paragraph text as the
// list. On an article page a grid of "more posts" cards can outscore a
// short article by the names its cards carry (post, entry, excerpt); on
// an index page nothing beside the list holds as much prose, and the
// list stays.
func (m *mainExtractor) besideTeasers(top int32) int32 {
	x := m.x
	list := int32(-1)
	p, ok := top, true
	for k := 0; ok && k <= teaserClimb; k++ {
		if t := x.nodes[p].Tag; t == "body" || t == "html" {
			break
		}
		if m.teaserList(p) {
			list = p
			break
		}
		p, ok = m.parentIndex(p)
	}
	if list < 0 {
		return top
	}
	if alt := m.bestApart(list, float64(sum(m.para, span{list, x.end[list]})), 1); alt >= 0 {
		return alt
	}
	return top
}

// heavier returns a candidate apart from top (neither inside nor
// around it) that holds heavierGain times top's voting paragraph text at
// a link density of at most gatherMaxLinkDensity, the best scoring of
// them; -1 when there is none. An article cut into many small boxes
// (a block editor's one paragraph per box) scores thinly at every
// level, and a compact box beside it (an "about the blog" blurb) can
// outscore it with a fraction of its text.
func (m *mainExtractor) heavier(top int32) int32 {
	return m.bestApart(top, heavierGain*float64(sum(m.para, span{top, m.x.end[top]})), gatherMaxLinkDensity)
}

// bestApart returns the best-scoring candidate with a positive score
// that is neither inside node j nor around it, holding at least need
// runes of voting paragraph text at a link density of at most maxLD;
// -1 when there is none.
func (m *mainExtractor) bestApart(j int32, need, maxLD float64) int32 {
	x := m.x
	alt := int32(-1)
	for i := int32(0); i < int32(len(x.nodes)); i++ {
		if !m.scored[i] || m.score[i] <= 0 || i >= j && i < x.end[j] || i < j && x.end[i] > j {
			continue
		}
		s := span{i, x.end[i]}
		if float64(sum(m.para, s)) < need || m.linkDensity(s) > maxLD {
			continue
		}
		if alt < 0 || m.score[i] > m.score[alt] {
			alt = i
		}
	}
	return alt
}

// heavierGain: see heavier.
const heavierGain = 3

// teaserClimb is how many levels above the best candidate besideTeasers
// looks for the teaser list holding it (an excerpt, its text box, its
// card, the card's wrapper, the list).
const teaserClimb = 5

// widen climbs from the top candidate while the parent scores higher:
// the article is often split over sibling containers that all feed it.
func (m *mainExtractor) widen(top int32) int32 {
	last := m.score[top]
	threshold := last / 3
	for p, ok := m.parentIndex(top); ok; p, ok = m.parentIndex(p) {
		if m.x.nodes[p].Tag == "body" {
			break
		}
		if !m.scored[p] {
			continue
		}
		if m.score[p] < threshold {
			break
		}
		if m.score[p] > last {
			return p
		}
		last = m.score[p]
	}
	return top
}

// gather climbs to an ancestor that holds clearly more paragraph text
// than the candidate while staying low in link density: articles split
// into sections around figures or pull quotes score as separate
// candidates, and their common ancestor is the article.
func (m *mainExtractor) gather(top int32) int32 {
	x := m.x
	best := top
	for p, ok := m.parentIndex(top); ok; p, ok = m.parentIndex(p) {
		if t := x.nodes[p].Tag; t == "body" || t == "html" {
			break
		}
		s := span{p, x.end[p]}
		if m.linkDensity(s) > gatherMaxLinkDensity {
			break
		}
		if float64(sum(m.para, s)) > gatherGain*float64(sum(m.para, span{best, x.end[best]})) {
			best = p
		}
	}
	return best
}

// soleWrapper climbs from top through the ancestors of which it is the
// only visible child (readability's "if the top candidate is the only
// child, use parent instead"): a wrapper around nothing else holds the
// same content, and the article's other parts (a first section in a
// column of its own beside the rest) are siblings of the outermost such
// wrapper, not of top, which has none.
func (m *mainExtractor) soleWrapper(top int32) int32 {
	x := m.x
	for {
		p, ok := m.parentIndex(top)
		if !ok {
			return top
		}
		if t := x.nodes[p].Tag; t == "body" || t == "html" {
			return top
		}
		if q, ok := m.parentIndex(p); !ok || x.nodes[q].Tag == "body" || x.nodes[q].Tag == "html" {
			// A child of the body is the page's layout: its siblings
			// are the page's header, sidebars and footer.
			return top
		}
		if m.runes(span{p, x.end[p]}) != m.runes(span{top, x.end[top]}) {
			return top
		}
		only := true
		for j := p + 1; j < x.end[p]; j = x.end[j] {
			if j != top && x.nodes[j].Kind == ElementNode && !x.hidden[j] {
				only = false
				break
			}
		}
		if !only {
			return top
		}
		top = p
	}
}

// siblings returns top and the siblings that belong with it, in order.
func (m *mainExtractor) siblings(top int32) []int32 {
	x := m.x
	p, ok := m.parentIndex(top)
	if !ok {
		return []int32{top}
	}
	threshold := max(10, m.score[top]*0.2)
	topClass := x.nodes[top].Attr("class")
	var out []int32
	for j := p + 1; j < x.end[p]; j = x.end[j] {
		if j == top {
			out = append(out, j)
			continue
		}
		nd := x.nodes[j]
		if nd.Kind != ElementNode || x.hidden[j] || m.isTeaser(j) {
			// a teaser of another page beside the article (each
			// related post an <article class=post>) is not a part of it
			continue
		}
		bonus := 0.0
		if topClass != "" && nd.Attr("class") == topClass {
			bonus = m.score[top] * 0.2
		}
		// A sibling joins on its score when it reads as prose: lines
		// without a sentence end (an address, a list of places) score
		// by their commas alone.
		if m.scored[j] && m.score[j]+bonus >= threshold && hasSentenceEnd(x.spanText(span{j, x.end[j]})) {
			out = append(out, j)
			continue
		}
		// With the standfirst, so is a box of prose before the body
		// (a lead in div.vorspann beside div.body).
		if nd.Tag == "p" || m.withLead && j < top && m.proseBox(j) {
			s := span{j, x.end[j]}
			l, ld := m.runes(s), m.linkDensity(s)
			t := x.spanText(s)
			if l > 80 && ld < 0.25 || l > 0 && l <= 80 && ld == 0 && (strings.HasSuffix(t, ".") || strings.Contains(t, ". ")) {
				out = append(out, j)
			}
		}
	}
	if len(out) == 0 {
		out = []int32{top}
	}
	return out
}

// proseBox reports whether element j is a paragraph in a box: a div,
// section or header holding only inline content and <p>s, no heading,
// picture, form or input (a standfirst in div.vorspann, a lead
// paragraph in div.leader). With the standfirst it joins the article
// as a <p> would; a box of inline text alone votes for its parent and
// is never scored itself, so the scores alone never take it.
func (m *mainExtractor) proseBox(j int32) bool {
	x := m.x
	switch x.nodes[j].Tag {
	case "div", "section", "header":
	default:
		return false
	}
	s := span{j, x.end[j]}
	if sum(x.cumHeadings, s)+sum(x.cumImages, s)+sum(x.cumForms, s)+sum(x.cumInputs, s) > 0 {
		return false
	}
	for k := j + 1; k < x.end[j]; k = x.end[k] {
		if nd := x.nodes[k]; nd.Kind == ElementNode && breakTags[nd.Tag] && nd.Tag != "br" && nd.Tag != "p" && !x.hidden[k] {
			return false
		}
	}
	return true
}

// hasSentenceEnd reports whether t holds the end of a sentence: a full
// stop, question or exclamation mark at the end or before a space, or
// an ideographic one anywhere.
func hasSentenceEnd(t string) bool {
	if strings.ContainsAny(t, "。！？") {
		return true
	}
	t = strings.TrimRight(t, " \n\"'”’»)")
	if strings.HasSuffix(t, ".") || strings.HasSuffix(t, "!") || strings.HasSuffix(t, "?") {
		return true
	}
	for _, e := range []string{". ", "! ", "? ", ".\n", "!\n", "?\n", ".\"", ".”"} {
		if strings.Contains(t, e) {
			return true
		}
	}
	return false
}

func (m *mainExtractor) hasH1(i int32) bool {
	for j := i; j < m.x.end[i]; j++ {
		if m.x.nodes[j].Tag == "h1" && !m.x.hidden[j] {
			return true
		}
	}
	return false
}

// titleBefore returns the text of the last visible h1 before node i
// that is not the site's logo (logoHeading). A page whose h1 is its
// logo sets the headline a rank lower: then it is the h2 nearest before
// i, with no more than a byline's text between them (nearHeading).
func (m *mainExtractor) titleBefore(i int32) string {
	logo := false
	for j := i - 1; j >= 0; j-- {
		if m.x.nodes[j].Tag == "h1" && !m.x.hidden[j] && m.x.end[j] <= i {
			if m.logoHeading(j) {
				logo = true
				continue
			}
			t := m.x.spanText(span{j, m.x.end[j]})
			if t == "" || countWords(t) > 40 {
				continue
			}
			m.titleNode = j
			return t
		}
	}
	if logo {
		if j := m.nearHeading(i, "h2"); j >= 0 {
			m.titleNode = j
			return m.x.spanText(span{j, m.x.end[j]})
		}
	}
	return ""
}

// standfirst returns the paragraphs between the page's headline and
// first, the start of the article's body: a standfirst or lead set in
// the article's header, beside the headline, rather than in the body
// the scores chose. The headline is the nearest h1 before first that
// is no logo, at most maxLeadGap runes before it; a paragraph is a <p>,
// a box of one (proseBox) or a heading (an hgroup's dek) of prose: at
// least leadMinRunes, under a quarter links, a sentence end, not under
// an unlikely name (a caption, a share bar) nor a teaser. Bylines,
// dates and kickers are short and stay out.
func (m *mainExtractor) standfirst(first int32, strict bool) []int32 {
	x := m.x
	h := int32(-1)
	for j := first - 1; j >= 0; j-- {
		if x.nodes[j].Kind == TextNode && m.runes(span{j, first}) > maxLeadGap {
			return nil
		}
		if x.nodes[j].Tag == "h1" && !x.hidden[j] && x.end[j] <= first && !m.logoHeading(j) {
			h = j
			break
		}
	}
	if h < 0 {
		return nil
	}
	var out []int32
	for k := x.end[h]; k < first; {
		nd := x.nodes[k]
		if nd.Kind != ElementNode || x.hidden[k] {
			k = max(k+1, x.end[k])
			continue
		}
		if x.end[k] > first {
			k++ // holds first: look inside
			continue
		}
		if nd.Tag == "p" || m.proseBox(k) || headingTags[nd.Tag] {
			s := span{k, x.end[k]}
			if m.runes(s) >= leadMinRunes && m.linkDensity(s) < 0.25 && hasSentenceEnd(x.spanText(s)) &&
				!(strict && m.unlikely(k)) && !m.isTeaser(k) && !m.caption(k) {
				out = append(out, k)
			}
			k = x.end[k]
			continue
		}
		k++
	}
	return out
}

// caption reports whether i is an image's caption: in a figure, or
// the text of a box that holds a picture and little else (div.image >
// img + p; div.box > img + div.caption-text).
func (m *mainExtractor) caption(i int32) bool {
	x := m.x
	if p, ok := m.parentIndex(i); ok {
		s := span{p, x.end[p]}
		if sum(x.cumImages, s) > 0 && float64(m.runes(span{i, x.end[i]})) >= 0.7*float64(m.runes(s)) {
			return true
		}
	}
	for p, ok := m.parentIndex(i); ok; p, ok = m.parentIndex(p) {
		if t := x.nodes[p].Tag; t == "figure" || t == "figcaption" {
			return true
		}
	}
	return false
}

// maxLeadGap bounds the text between a headline and the article's body
// that standfirst looks at; leadMinRunes is a standfirst's least length.
const (
	maxLeadGap   = 1500
	leadMinRunes = 80
)

// maxTitleGap bounds the text between a headline and the article's
// body: a kicker, a byline, a date, not a paragraph.
const maxTitleGap = 300

// nearHeading returns the last visible heading with tag before node i
// with under maxTitleGap runes of text between its end and i, or -1.
func (m *mainExtractor) nearHeading(i int32, tag string) int32 {
	x := m.x
	for j := i - 1; j >= 0; j-- {
		if x.nodes[j].Kind == TextNode && m.runes(span{j, i}) >= maxTitleGap {
			return -1
		}
		if x.nodes[j].Tag == tag && !x.hidden[j] && x.end[j] <= i && m.runes(span{x.end[j], i}) < maxTitleGap {
			if t := x.spanText(span{j, x.end[j]}); t != "" && countWords(t) <= 40 {
				return j
			}
		}
	}
	return -1
}

// logoHeading reports whether h1 j is the site's logo, not a headline:
// at most six words, nearly all of them a link to the home page (or an
// image in such a link). Themes set the site's name as the h1 of every
// page and the headline one rank lower.
func (m *mainExtractor) logoHeading(j int32) bool {
	x := m.x
	s := span{j, x.end[j]}
	if countWords(x.spanText(s)) > 6 {
		return false
	}
	if m.runes(s) > 0 && m.linkDensity(s) < 0.8 {
		return false
	}
	home := false
	for k := j; k < x.end[j]; k++ {
		if nd := x.nodes[k]; nd.Tag == "a" && !x.hidden[k] {
			if !homeLink(nd.Attr("href")) {
				return false
			}
			home = true
		}
	}
	return home
}

// homeLink reports whether href leads to a site's home page: its path,
// after any scheme and host, is empty, "/", "./" or an index file.
func homeLink(href string) bool {
	u := strings.TrimSpace(href)
	if u == "" || u[0] == '#' || strings.Contains(strings.ToLower(u[:min(len(u), 12)]), ":") && !strings.Contains(u, "//") {
		return false // this page's anchor, javascript:, mailto:
	}
	if k := strings.IndexAny(u, "?#"); k >= 0 {
		u = u[:k]
	}
	if k := strings.Index(u, "//"); k >= 0 && !strings.Contains(u[:k], "/") {
		// "https://host/path" or "//host/path": drop scheme and host
		rest := u[k+2:]
		if p := strings.IndexByte(rest, '/'); p >= 0 {
			u = rest[p:]
		} else {
			u = "/"
		}
	}
	u = strings.TrimPrefix(strings.TrimPrefix(u, "."), "/")
	switch strings.ToLower(u) {
	case "", "index.html", "index.htm", "index.php":
		return true
	}
	return false
}

// emit writes the text of node i's subtree minus pruned boilerplate and
// reports whether i was pruned.
func (m *mainExtractor) emit(b *bytes.Buffer, i int32, strict, useLabels bool, root int32) bool {
	x := m.x
	nd := x.nodes[i]
	if x.hidden[i] {
		return false
	}
	if nd.Kind == TextNode {
		if m.marking {
			m.marks = append(m.marks, textMark{i, b.Len()})
		}
		b.Write(x.text[x.textOff[i]:x.textOff[x.end[i]]])
		return false
	}
	if i != root && nd.Kind == ElementNode {
		if useLabels && m.labelDrop[i] {
			return true
		}
		if m.drop(i, strict) {
			b.WriteByte('\n')
			return true
		}
	}
	// A heading over a list of links that was pruned ("More:", "Related
	// links") goes with it: from the heading to the next one (or the end
	// of i) a list was pruned and nothing written. So does a heading
	// over a pruned comment thread or form ("3 Responses", "Leave a
	// Reply", "Subscribe").
	head, headEnd, prunedList := -1, 0, false
	closeSection := func() {
		if head >= 0 && prunedList && len(bytes.TrimSpace(b.Bytes()[headEnd:])) == 0 {
			b.Truncate(head)
			for len(m.marks) > 0 && m.marks[len(m.marks)-1].off >= head {
				m.marks = m.marks[:len(m.marks)-1]
			}
		}
		head = -1
	}
	for j := i + 1; j < x.end[i]; j = x.end[j] {
		isHead := strict && headingTags[x.nodes[j].Tag] && !x.hidden[j]
		if isHead {
			closeSection()
			head = b.Len()
		}
		if m.emit(b, j, strict, useLabels, root) && (x.nodes[j].Tag == "ul" || x.nodes[j].Tag == "ol" || m.commentThread(j) || sum(x.cumForms, span{j, x.end[j]}) > 0 || m.outsideCore(j) && (m.teaserList(j) || m.teaserRun(j))) {
			prunedList = true
		}
		if isHead {
			headEnd, prunedList = b.Len(), false
		}
	}
	closeSection()
	return false
}

var headingTags = map[string]bool{"h2": true, "h3": true, "h4": true, "h5": true, "h6": true}

// drop decides whether a descendant of the content is boilerplate.
func (m *mainExtractor) drop(i int32, strict bool) bool {
	x := m.x
	nd := x.nodes[i]
	if m.holdsCore(i) {
		// What its name, tag or links say is about what it holds
		// besides the core (a TYPO3 "ce--textmedia" element around the
		// text, a page-wide <form>), which its children answer for
		// themselves.
		return false
	}
	switch nd.Tag {
	case "nav", "aside", "footer", "form", "button", "select", "textarea", "input", "label", "dialog":
		return true
	case "figcaption":
		return !m.toldInFigures()
	case "figure":
		// A figure is a picture and its caption, or a table or a code
		// listing the article sets apart (HTML5): those are its text.
		s := span{i, x.end[i]}
		return !m.hasTag(s, "table") && !m.hasTag(s, "pre") && !m.toldInFigures()
	case "h1":
		return !m.withTitle
	}
	if !strict {
		return false
	}
	if m.tagLine(i) {
		return true
	}
	s := span{i, x.end[i]}
	w := m.classWeight(nd)
	sc := m.score[i]
	if w < 0 && m.namedAsCore(nd) {
		// The kind of element that holds the core (a CMS's "textmedia"
		// content element, one per run of paragraphs, an ad between
		// them): its name cannot say boilerplate for the others.
		sc, w = sc-w, 0
	}
	switch nd.Tag {
	case "article":
		// An <article> inside the content is a post of its own: one of
		// a run of teasers is pruned, nothing else.
		return m.outsideCore(i) && m.teaserRun(i)
	case "div", "section", "ul", "ol", "table", "header", "figure", "dl", "p", "aside":
	case "span":
		// Inline: pruning one breaks the sentence around it, so only
		// names that say boilerplate (share buttons, captions) count, and
		// pop-up cards (an image and links) hidden by script or CSS we do
		// not see — the innermost such card, so the anchor it hangs on
		// stays in the sentence.
		if w < 0 && m.linkDensity(s) > 0.5 {
			return true
		}
		// A dateline ("Updated <time>…</time>") set as a span beside the
		// headline: the <time> tells it from a sentence opening "By".
		if m.runes(s) < 100 && m.hasTag(s, "time") && isByline(x.spanText(s)) {
			return true
		}
		if !m.isCard(s) {
			return false
		}
		for j := i + 1; j < x.end[i]; j++ {
			if x.nodes[j].Tag == "span" && m.isCard(span{j, x.end[j]}) {
				return false
			}
		}
		return true
	default:
		return false
	}
	if (w < 0 || m.linkDensity(s) > 0.2) && m.isQuote(i) {
		// An embedded post (a tweet, an Instagram post) is a quotation the
		// article makes, whatever its wrapper's name ("social-media-embed")
		// and links (handles, the post's own link) say.
		return false
	}
	// A part of the core holding much of its paragraph text is article
	// text whatever its name says (a "subscriber-only" or "paywall"
	// rest of the story, a "media-body"): a name prunes boxes, not the
	// text. Regions named as comments or related links hold no such
	// text, their paragraphs do not vote (unlikely).
	own := w < 0 && m.ownParagraph(i)
	if w < 0 && (own || m.coreText(i)) {
		w = 0
	}
	if w < 0 && (nd.Tag != "p" || strings.Contains(nameOf(nd), "caption")) {
		return true
	}
	if printOnly(nd) {
		return true
	}
	// Readers' comments, however named: a run of dated entries with
	// reply links, or under a heading that counts them (comments.go).
	if m.commentThread(i) {
		return true
	}
	if m.outsideCore(i) && (m.teaserList(i) || m.teaserRun(i)) {
		return true
	}
	if l := m.runes(s); l < 300 && m.hasNotice(s) || l < 100 && isByline(x.spanText(s)) {
		return true
	}
	// A list scores because its items are paragraphs: its tag base
	// (-3) must not then make it boilerplate; lists are judged by their
	// links below.
	if m.scored[i] && sc+w < 0 && (nd.Tag != "ul" && nd.Tag != "ol" || w < 0) && !m.coreText(i) && !own {
		return true
	}
	if sum(m.commas, s) >= 10 {
		return false
	}
	paras := float64(sum(x.cumParas, s))
	imgs := float64(sum(x.cumImages, s))
	inputs := float64(sum(x.cumInputs, s))
	l := m.runes(s)
	ld := m.linkDensity(s)
	isList := nd.Tag == "ul" || nd.Tag == "ol"
	li := 0.0
	if !isList {
		// readability: only lists far longer than the paragraphs count
		li = float64(sum(m.lis, s)) - 100
	}
	heads := sum(x.cumHeadings, s)
	switch {
	case nd.Tag == "p":
		// A short paragraph goes when nearly all of it is links (a "read
		// more" line), not when a link carries most of a sentence ("Pro
		// tip: <a>get more meal ideas here</a>"); 0.8 as trafilatura's
		// link density test for short paragraphs. A quoted post's
		// paragraph is mostly handles and links, and is still the
		// quotation (see isQuote).
		return ld > 0.8 && l < 200 && !m.inQuote(i)
	case imgs > 1 && paras/imgs < 0.5 && l < 200:
		return true
	case !isList && li > paras:
		return true
	case inputs > paras/3:
		return true
	case !isList && l < minParagraphRunes && heads == 0 && (imgs == 0 || imgs > 2) && !(ld == 0 && containsAny(nameOf(nd), headingNames)) && !m.hasTag(s, "pre"):
		// A box of a few words is a label or a button, unless it holds
		// code (a one-line command in a copy-to-clipboard box).
		return true
	case w < 25 && ld > 0.2 && (!isList || ld > 0.5):
		return true
	case w >= 25 && ld > 0.5:
		return true
	}
	return false
}

// toldInFigures reports whether the core's figures hold most of its
// voting paragraph text: a gallery or a listicle tells its story in the
// captions of its slides (a figure per item, its heading and
// paragraphs in the figcaption), and those are the article; a caption
// beside an article's paragraphs is a fraction of them. Memoised per
// core.
func (m *mainExtractor) toldInFigures() bool {
	if m.figsOf == m.core+1 {
		return m.figs
	}
	x, c := m.x, m.core
	inFigs := 0
	for j := c + 1; j < x.end[c]; j++ {
		if x.nodes[j].Tag == "figure" && !x.hidden[j] {
			inFigs += sum(m.para, span{j, x.end[j]})
			j = x.end[j] - 1
		}
	}
	m.figs, m.figsOf = 2*inFigs > sum(m.para, span{c, x.end[c]}), m.core+1
	return m.figs
}

// namedAsCore reports whether nd's class names the kind of element the
// core or one of its ancestors is: the same class tokens, leaving out
// those with a digit (a page builder's id of each element,
// "elementor-element-0161dc5").
func (m *mainExtractor) namedAsCore(nd *Node) bool {
	kind := kindTokens(nd.Attr("class"))
	if len(kind) == 0 {
		return false
	}
	if m.coreKinds == nil || m.kindsOf != m.core {
		m.coreKinds, m.kindsOf = m.coreKinds[:0], m.core
		for q, ok := m.core, true; ok; q, ok = m.parentIndex(q) {
			m.coreKinds = append(m.coreKinds, kindTokens(m.x.nodes[q].Attr("class")))
		}
	}
	for _, k := range m.coreKinds {
		if slices.Equal(k, kind) {
			return true
		}
	}
	return false
}

// kindTokens returns the class tokens of class that hold no digit,
// sorted and without repeats.
func kindTokens(class string) []string {
	var out []string
	for _, t := range strings.Fields(class) {
		if !strings.ContainsAny(t, "0123456789") {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// outsideCore reports whether element i is not the run's core text:
// it neither holds nor is inside the core (it came in with widening or
// as a sibling), or it is inside it but holds less than half its text
// (the core may itself be the wrapper, an <article class=post> holding
// the article and its related posts).
func (m *mainExtractor) outsideCore(i int32) bool {
	c, end := m.core, m.x.end
	if i <= c && c < end[i] {
		return false
	}
	return !(c <= i && i < end[c]) || 2*m.runes(span{i, end[i]}) < m.runes(span{c, end[c]})
}

// coreText reports whether element i is inside the run's core and
// holds at least a third of the core's voting paragraph text, under 20 %
// of it in links.
func (m *mainExtractor) coreText(i int32) bool {
	c, end := m.core, m.x.end
	if i <= c || i >= end[c] {
		return false
	}
	s := span{i, end[i]}
	return 3*sum(m.para, s) >= sum(m.para, span{c, end[c]}) && sum(m.para, s) > 0 && m.linkDensity(s) < 0.2
}

// ownParagraph reports whether element i, inside the run's core, is a
// wrapper of one of the article's own paragraphs: a <p> holding 80 % of
// its text, with a sentence end, of a class that two or more other
// elements of the core holding voting paragraph text carry (<p> or
// <div>), and no picture and under 20 % links in it. CMSs
// set a paragraph in a wrapper named for what it may hold (a lead
// paragraph in a "leafmedia" slot); the name prunes boxes, and the
// paragraph's class says it is one of the article's.
func (m *mainExtractor) ownParagraph(i int32) bool {
	x := m.x
	c := m.core
	if i <= c || i >= x.end[c] {
		return false
	}
	s := span{i, x.end[i]}
	total := m.runes(s)
	if total == 0 || sum(x.cumImages, s) > 0 || m.linkDensity(s) >= 0.2 {
		return false
	}
	para := int32(-1)
	for k := i + 1; k < x.end[i]; k++ {
		if x.nodes[k].Tag == "p" && !x.hidden[k] && 5*m.runes(span{k, x.end[k]}) >= 4*total {
			para = k
			break
		}
	}
	if para < 0 {
		return false
	}
	class := strings.TrimSpace(x.nodes[para].Attr("class"))
	if class == "" || !hasSentenceEnd(x.spanText(span{para, x.end[para]})) {
		return false
	}
	same := 0
	for k := c + 1; k < x.end[c] && same < 2; k++ {
		if k == i {
			k = x.end[i] - 1
			continue
		}
		if nd := x.nodes[k]; nd.Kind == ElementNode && !x.hidden[k] && strings.TrimSpace(nd.Attr("class")) == class && sum(m.para, span{k, x.end[k]}) > 0 {
			same++
		}
	}
	return same >= 2
}

// teaserMaxRunes: a teaser (a linked headline and an excerpt) is
// shorter than this.
const teaserMaxRunes = 500

// teaserList reports whether element i is a list of teasers of other
// pages ("More in …", "Breaking News", related posts): two or more of
// its children are teasers, and they hold most of its text. Widening
// the best block to its parent brings such lists in, and their
// excerpts read like paragraphs whatever the markup (each may be an
// <article class=post>), so they are pruned by shape, outside the core
// text only (outsideCore): a list of that shape that is most of the
// best block is the article's own.
func (m *mainExtractor) teaserList(i int32) bool {
	x := m.x
	total := m.runes(span{i, x.end[i]})
	if total == 0 {
		return false
	}
	cards, inCards := 0, 0
	for j := i + 1; j < x.end[i]; j = x.end[j] {
		if m.isTeaser(j) {
			cards++
			inCards += m.runes(span{j, x.end[j]})
		}
	}
	return cards >= 2 && float64(inCards) >= 0.6*float64(total)
}

// isTeaser reports whether element j is a teaser: a short article,
// list item, div or section with a heading that is nearly all link (a
// headline leading to another page), or that opens with such a headline
// set apart (leadHeadline). A list item that merely opens with a link
// ("<a>The study</a> found …") is not one: articles hold such lists.
func (m *mainExtractor) isTeaser(j int32) bool {
	x := m.x
	nd := x.nodes[j]
	if nd.Kind != ElementNode || x.hidden[j] {
		return false
	}
	switch nd.Tag {
	case "article", "li", "div", "section":
	default:
		return false
	}
	s := span{j, x.end[j]}
	if r := m.runes(s); r == 0 || r > teaserMaxRunes || sum(x.cumLinks, s) == 0 {
		return false
	}
	for k := j + 1; k < x.end[j]; k++ {
		if x.hidden[k] {
			continue
		}
		if t := x.nodes[k].Tag; len(t) == 2 && t[0] == 'h' && t[1] >= '1' && t[1] <= '6' {
			hs := span{k, x.end[k]}
			if m.runes(hs) > 0 && m.linkDensity(hs) >= 0.8 && m.linksAway(hs) {
				return true
			}
		}
	}
	return m.leadHeadline(j)
}

// leadHeadline reports whether element j, holding no heading, opens
// with a headline set apart from the excerpt that follows: its first text is in an element that
// is nearly all link to another page, of 3 or more words, set as a
// block of its own or in bold (<a><strong>…</strong></a> …), with at
// least a paragraph's worth of other text after it. A link run into a
// sentence ("<a>The study</a> found …") is not set apart.
func (m *mainExtractor) leadHeadline(j int32) bool {
	x := m.x
	if sum(x.cumHeadings, span{j, x.end[j]}) > 0 {
		return false // its headings say what it is (isTeaser)
	}
	k := j + 1
	for ; k < x.end[j]; k++ {
		if x.nodes[k].Kind == TextNode && !x.hidden[k] && len(bytes.TrimSpace(x.text[x.textOff[k]:x.textOff[k+1]])) > 0 {
			break
		}
	}
	if k >= x.end[j] {
		return false
	}
	h := int32(-1)
	for a, ok := m.parentIndex(k); ok && a != j; a, ok = m.parentIndex(a) {
		if m.linkDensity(span{a, x.end[a]}) >= 0.8 {
			h = a
		}
	}
	if h < 0 {
		return false
	}
	hs := span{h, x.end[h]}
	if !m.linksAway(hs) || countWords(x.spanText(hs)) < 3 || m.runes(span{j, x.end[j]})-m.runes(hs) < minParagraphRunes {
		return false
	}
	if breakTags[x.nodes[h].Tag] {
		return true
	}
	for b := h; b < x.end[h]; b++ {
		if t := x.nodes[b].Tag; (t == "strong" || t == "b") && 5*m.runes(span{b, x.end[b]}) >= 4*m.runes(hs) {
			return true
		}
	}
	return false
}

// teaserRun reports whether element i is a teaser next to another: the
// teasers of a list set directly in the article's wrapper, one after
// the other, with no list element of their own around them.
func (m *mainExtractor) teaserRun(i int32) bool {
	if !m.isTeaser(i) {
		return false
	}
	p, ok := m.parentIndex(i)
	if !ok {
		return false
	}
	x := m.x
	prev := int32(-1)
	for j := p + 1; j < x.end[p]; j = x.end[j] {
		if x.nodes[j].Kind != ElementNode || x.hidden[j] {
			continue
		}
		if j == i {
			if prev >= 0 && m.isTeaser(prev) {
				return true
			}
			for k := x.end[i]; k < x.end[p]; k = x.end[k] {
				if x.nodes[k].Kind == ElementNode && !x.hidden[k] {
					return m.isTeaser(k)
				}
			}
			return false
		}
		prev = j
	}
	return false
}

// linksAway reports whether s holds a link to another page (not a
// "#section" anchor of this one: a heading linked to itself is not a
// headline of another page).
func (m *mainExtractor) linksAway(s span) bool {
	for j := s.lo; j < s.hi; j++ {
		if nd := m.x.nodes[j]; nd.Tag == "a" && !strings.HasPrefix(strings.TrimSpace(nd.Attr("href")), "#") {
			return true
		}
	}
	return false
}

// tagLine reports whether block element i is a post's taxonomy line
// ("Filed under: News | Mills", "Tags: …"): under 200 runes, every
// link in it marked rel=tag or rel=category (the rel-tag microformat
// WordPress and others write), a label of at most 40 runes before the
// first, and after it nothing but separators (punctuation, words of up
// to three letters: "and", "und"). A sentence with a tag link in it
// ("how <a rel=tag>hibernation</a> starts") is not one.
func (m *mainExtractor) tagLine(i int32) bool {
	x := m.x
	if !breakTags[x.nodes[i].Tag] {
		return false
	}
	s := span{i, x.end[i]}
	if r := m.runes(s); r == 0 || r >= 200 || sum(x.cumLinks, s) == 0 {
		return false
	}
	links, label := 0, 0
	for k := i + 1; k < x.end[i]; k++ {
		if x.hidden[k] {
			continue
		}
		nd := x.nodes[k]
		switch {
		case nd.Kind == ElementNode && nd.Tag == "a":
			if m.runes(span{k, x.end[k]}) > 0 {
				if !relTag(nd.Attr("rel")) {
					return false
				}
				links++
			}
			k = x.end[k] - 1
		case nd.Kind == TextNode:
			t := x.textStr[x.textOff[k]:x.textOff[k+1]]
			if links == 0 {
				if label += utf8.RuneCountInString(t); label > 40 {
					return false
				}
				continue
			}
			for _, w := range strings.FieldsFunc(t, func(r rune) bool { return !unicode.IsLetter(r) }) {
				if utf8.RuneCountInString(w) > 3 {
					return false
				}
			}
		}
	}
	return links > 0
}

// relTag reports whether a link's rel names a tag or a category.
func relTag(rel string) bool {
	for _, t := range strings.Fields(strings.ToLower(rel)) {
		if t == "tag" || t == "category" {
			return true
		}
	}
	return false
}

// printOnly reports whether n's class or id names it as shown only on
// paper (a print header repeating the page's address, a print footer):
// the style sheet that hides it on screen is rarely in the page. Text
// marked robots-nocontent (the convention that keeps it out of search
// indexes: "This slideshow requires JavaScript") counts the same.
func printOnly(n *Node) bool {
	// Every such token holds "print" or is "robots-nocontent", within
	// the class or the id: for ASCII names (where lower-casing is
	// ASCII's) a search in any case rules most out without building the
	// lower-case name and its fields.
	if class, id := n.Attr("class"), n.Attr("id"); isASCII(class) && isASCII(id) &&
		!hasFoldASCII(class, "print") && !hasFoldASCII(id, "print") &&
		!hasFoldASCII(class, "robots-nocontent") && !hasFoldASCII(id, "robots-nocontent") {
		return false
	}
	for _, tok := range strings.Fields(nameOf(n)) {
		if strings.HasPrefix(tok, "print-") || strings.HasPrefix(tok, "print_") || tok == "printonly" || strings.HasPrefix(tok, "visible-print") || tok == "robots-nocontent" {
			return true
		}
	}
	return false
}

// hasFoldASCII reports whether ASCII s holds w, a lower-case ASCII
// word starting with a letter, in any case: EqualFold runs only where
// the first letter matches.
func hasFoldASCII(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		if s[i]|0x20 == w[0] && strings.EqualFold(s[i:i+len(w)], w) {
			return true
		}
	}
	return false
}

// headingNames name a short element as a heading set in a div or span
// ("subheadline"): it is the article's, unlike other scraps of text.
var headingNames = []string{"subhead", "headline", "heading"}

// noticeCues mark legal notices and contact lines inside an article's
// container. A bare
// "copyright" is not enough there: articles about copyright exist.
var noticeCues = []string{"©", "all rights reserved", "subject to copyright", "alle rechte vorbehalten", "tous droits réservés", "todos los derechos reservados",
	// the author's or the site's contact line under an article
	"follow us on", "follow him on", "follow her on", "follow me on", "may be reached at", "can be reached at"}

func hasNotice(text string) bool {
	return noticeIn([]byte(strings.ToLower(text)))
}

// hasNotice is hasNotice(text) for drop, which asks it of a wrapper and
// then of its only child, the same text: the last answer is kept, and
// the text is lower-cased into a reused buffer.
func (m *mainExtractor) hasNotice(s span) bool {
	lo, hi := m.x.textOff[s.lo], m.x.textOff[s.hi]
	if m.noticeSet && lo == m.noticeLo && hi == m.noticeHi {
		return m.notice
	}
	m.lowBuf = appendLower(m.lowBuf[:0], m.x.spanText(s))
	m.notice = noticeIn(m.lowBuf)
	m.noticeSet, m.noticeLo, m.noticeHi = true, lo, hi
	return m.notice
}

// noticeIn is hasNotice of lower-cased text. It looks for every cue in
// one pass, by first byte: drop asks it of most elements, and a search
// per cue cost more than the rest of drop.
func noticeIn(low []byte) bool {
	for i, c := range low {
		for _, cue := range noticeCuesBy[c] {
			// the second byte first: most candidates fail there
			if len(low)-i >= len(cue) && (len(cue) < 2 || low[i+1] == cue[1]) && bytes.Equal(low[i:i+len(cue)], cue) {
				return true
			}
		}
	}
	// "Follow <the site> on Instagram, Facebook, Twitter and YouTube"
	if bytes.HasPrefix(low, []byte("follow ")) {
		networks := 0
		for _, n := range socialNetworkBytes {
			if bytes.Contains(low, n) {
				networks++
			}
		}
		return networks >= 2
	}
	return false
}

// noticeCuesBy holds noticeCues by their first byte; socialNetworkBytes
// is socialNetworks as bytes, converted once.
var noticeCuesBy, socialNetworkBytes = byFirstByte(noticeCues), toBytes(socialNetworks)

func byFirstByte(ss []string) *[256][][]byte {
	var t [256][][]byte
	for _, s := range ss {
		t[s[0]] = append(t[s[0]], []byte(s))
	}
	return &t
}

func toBytes(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

var socialNetworks = []string{"facebook", "twitter", "instagram", "youtube", "linkedin", "tiktok", "pinterest"}

// bylineStarts open the short credit and date lines above or below an
// article, which are not part of its text.
var bylineStarts = []string{"by ", "posted by ", "posted on ", "published ", "first published", "updated ", "last updated", "written by "}

func isByline(text string) bool {
	low := strings.ToLower(text)
	for _, c := range bylineStarts {
		if strings.HasPrefix(low, c) {
			if c == "by " {
				// "By Jane Doe", not "By 2020, …" or "by the way"
				r, _ := utf8.DecodeRuneInString(text[len(c):])
				return unicode.IsUpper(r)
			}
			return true
		}
	}
	return false
}

// isQuote reports whether nearly all of i's text is inside blockquotes.
func (m *mainExtractor) isQuote(i int32) bool {
	x := m.x
	total := m.runes(span{i, x.end[i]})
	if total == 0 {
		return false
	}
	quoted := 0
	for j := i + 1; j < x.end[i]; {
		if x.nodes[j].Tag == "blockquote" && !x.hidden[j] {
			quoted += m.runes(span{j, x.end[j]})
			j = x.end[j]
			continue
		}
		j++
	}
	return float64(quoted) >= 0.8*float64(total)
}

// hasTag reports whether s holds a visible element with tag.
func (m *mainExtractor) hasTag(s span, tag string) bool {
	for j := s.lo; j < s.hi; j++ {
		if m.x.nodes[j].Tag == tag && !m.x.hidden[j] {
			return true
		}
	}
	return false
}

// inQuote reports whether i is inside a blockquote.
func (m *mainExtractor) inQuote(i int32) bool {
	for p, ok := m.parentIndex(i); ok; p, ok = m.parentIndex(p) {
		if m.x.nodes[p].Tag == "blockquote" {
			return true
		}
	}
	return false
}

// isCard reports whether s looks like a pop-up card: an image and links
// that make up nearly all its text.
func (m *mainExtractor) isCard(s span) bool {
	return sum(m.x.cumImages, s) > 0 && sum(m.x.cumLinks, s) >= 2 && m.linkDensity(s) > 0.8
}

// collapseBreaks turns runs of line breaks (with the spaces around them)
// into one "\n".
func collapseBreaks(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	nl := false
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\n':
			nl = true
		case ' ':
			space = true
		default:
			if b.Len() > 0 {
				if nl {
					b.WriteByte('\n')
				} else if space {
					b.WriteByte(' ')
				}
			}
			nl, space = false, false
			b.WriteByte(c)
		}
	}
	return b.String()
}

// VisibleText returns the whole visible text of the page, rendered as
// Block.Text renders a block's (no script, style or template; whitespace
// normalised, block elements on lines of their own): its blocks' texts
// and the text outside every block (a cookie banner or heading in the
// layout), in document order. It returns "" for a page without text.
func VisibleText(res *Result) string {
	if res == nil || res.Root == nil {
		return ""
	}
	x := buildIndex(res, Options{})
	return x.spanText(span{0, int32(len(x.textOff) - 1)})
}
