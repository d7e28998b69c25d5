package partition

import (
	"strconv"
	"strings"
)

// Bounds on style-sheet work, so that a giant or hostile sheet costs at
// most a fixed amount per page. What lies beyond them is ignored, as a
// property the partition cannot know.
const (
	maxSheetBytes = 1 << 20 // bytes of one sheet that are parsed
	maxRules      = 20000   // selector rules kept per page
	maxMatchSteps = 4 << 20 // compound-selector tests per page
)

// The properties the partition reads; everything else is dropped at
// parse time.
const (
	propFontSize = iota
	propFontWeight
	propColor
	propBackground
	propWidth
	propHeight
	propDisplay
	propVisibility
	numProps
)

func propIndex(name string) int {
	switch name {
	case "font-size":
		return propFontSize
	case "font-weight":
		return propFontWeight
	case "color":
		return propColor
	case "background-color", "background":
		return propBackground
	case "width":
		return propWidth
	case "height":
		return propHeight
	case "display":
		return propDisplay
	case "visibility":
		return propVisibility
	}
	return -1
}

type cssDecl struct {
	prop      int
	val       string
	important bool
}

// compound is one compound selector: tag, id and classes, all of which
// must match. An empty tag (or "*") matches any element.
type compound struct {
	tag     string
	id      string
	classes []string
	sig     featureSig // of tag (unless "*"), id and classes: set once parsed
}

// featureSig is a 128-bit Bloom signature of element features (tag, id,
// classes), one bit each: an element set's signature is the union of
// its elements'. When a compound's bits are not all in the signature of
// an element's ancestors, no ancestor can match it.
type featureSig [2]uint64

// featureBit returns the signature bit of feature s of kind ('t' tag,
// '#' id, '.' class): FNV-1a of kind and s.
func featureBit(kind byte, s string) featureSig {
	h := (uint64(14695981039346656037) ^ uint64(kind)) * 1099511628211
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	var sig featureSig
	sig[h>>6&1] = 1 << (h & 63)
	return sig
}

func (a *featureSig) add(b featureSig) { a[0] |= b[0]; a[1] |= b[1] }

// covers reports whether every bit of b is in a.
func (a featureSig) covers(b featureSig) bool { return a[0]&b[0] == b[0] && a[1]&b[1] == b[1] }

// featuresOf returns the signature of a tag, id and classes.
func featuresOf(tag, id string, classes []string) featureSig {
	var sig featureSig
	if tag != "" && tag != "*" {
		sig.add(featureBit('t', tag))
	}
	if id != "" {
		sig.add(featureBit('#', id))
	}
	for _, c := range classes {
		sig.add(featureBit('.', c))
	}
	return sig
}

// cssRule is one selector of a rule with the rule's declarations;
// parts[len-1] is the subject, combs[i] joins parts[i] and parts[i+1]
// (' ' descendant, '>' child).
type cssRule struct {
	parts []compound
	combs []byte
	spec  int // specificity: ids<<16 | classes<<8 | tags
	order int // source order across all sheets
	decls []cssDecl
}

// styleSheets is every rule of a page, indexed by the subject compound's
// most selective part.
type styleSheets struct {
	byID    map[string][]*cssRule
	byClass map[string][]*cssRule
	byTag   map[string][]*cssRule
	any     []*cssRule
	all     []*cssRule // every rule in source order
	n       int
}

func newStyleSheets() *styleSheets {
	return &styleSheets{byID: map[string][]*cssRule{}, byClass: map[string][]*cssRule{}, byTag: map[string][]*cssRule{}}
}

// add parses one sheet and indexes its rules. The parser is tolerant:
// whatever it cannot read (unknown at-rules, unsupported selectors,
// unbalanced text) it skips to the next rule.
func (ss *styleSheets) add(text string) {
	if len(text) > maxSheetBytes {
		text = text[:maxSheetBytes]
	}
	text = stripCSSComments(text)
	i := 0
	for i < len(text) && ss.n < maxRules {
		// Skip white space and stray braces or semicolons (the closing
		// brace of an @media block we stepped into lands here).
		c := text[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '}' || c == ';' {
			i++
			continue
		}
		if c == '@' {
			j := i + 1
			for j < len(text) && isIdentByte(text[j]) {
				j++
			}
			kw := strings.ToLower(text[i+1 : j])
			k := j
			for k < len(text) && text[k] != '{' && text[k] != ';' {
				k++
			}
			if k >= len(text) {
				return
			}
			if text[k] == ';' {
				i = k + 1
				continue
			}
			switch kw {
			case "media", "supports", "layer", "document", "container", "scope":
				// Media queries are evaluated for a desktop screen
				// (mediaMatches); the other conditional groups are read
				// as if they applied.
				if kw == "media" && !mediaMatches(text[j:k]) {
					i = skipBlock(text, k)
					continue
				}
				i = k + 1
			default:
				i = skipBlock(text, k)
			}
			continue
		}
		k := strings.IndexByte(text[i:], '{')
		if k < 0 {
			return
		}
		prelude := text[i : i+k]
		end := skipBlock(text, i+k)
		body := text[i+k+1 : max(i+k+1, end-1)]
		i = end
		decls := parseDecls(body)
		if len(decls) == 0 {
			continue
		}
		for _, sel := range strings.Split(prelude, ",") {
			r, ok := parseSelector(sel)
			if !ok {
				continue
			}
			r.order = ss.n
			r.decls = decls
			ss.index(r)
			if ss.n >= maxRules {
				return
			}
		}
	}
}

func (ss *styleSheets) index(r *cssRule) {
	ss.n++
	ss.all = append(ss.all, r)
	s := r.parts[len(r.parts)-1]
	switch {
	case s.id != "":
		ss.byID[s.id] = append(ss.byID[s.id], r)
	case len(s.classes) > 0:
		ss.byClass[s.classes[0]] = append(ss.byClass[s.classes[0]], r)
	case s.tag != "" && s.tag != "*":
		ss.byTag[s.tag] = append(ss.byTag[s.tag], r)
	default:
		ss.any = append(ss.any, r)
	}
}

// skipBlock returns the index just past the '}' that closes the block
// opened at text[open] == '{', or len(text).
func skipBlock(text string, open int) int {
	// Fast path: most blocks hold no nested brace, so the first '}' closes
	// them; IndexByte finds it far faster than the loop below.
	if c := strings.IndexByte(text[open+1:], '}'); c >= 0 && strings.IndexByte(text[open+1:open+1+c], '{') < 0 {
		return open + 1 + c + 1
	}
	depth := 0
	for i := open; i < len(text); i++ {
		switch text[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(text)
}

func stripCSSComments(s string) string {
	if !strings.Contains(s, "/*") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "/*")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteByte(' ')
		j := strings.Index(s[i+2:], "*/")
		if j < 0 {
			return b.String()
		}
		s = s[i+2+j+2:]
	}
}

func isIdentByte(c byte) bool {
	return c == '-' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// parseDecls keeps the declarations of the properties the partition
// reads, in source order.
func parseDecls(body string) []cssDecl {
	var out []cssDecl
	for body != "" {
		d := body
		if i := strings.IndexByte(body, ';'); i >= 0 {
			d, body = body[:i], body[i+1:]
		} else {
			body = ""
		}
		colon := strings.IndexByte(d, ':')
		if colon < 0 {
			continue
		}
		p := propIndex(asciiLowerTrim(d[:colon]))
		if p < 0 {
			continue
		}
		v := strings.TrimSpace(d[colon+1:])
		imp := false
		if k := strings.LastIndexByte(v, '!'); k >= 0 && strings.EqualFold(strings.TrimSpace(v[k+1:]), "important") {
			imp = true
			v = strings.TrimSpace(v[:k])
		}
		if v == "" {
			continue
		}
		out = append(out, cssDecl{prop: p, val: strings.ToLower(v), important: imp})
	}
	return out
}

// asciiLowerTrim trims white space and lower-cases s, allocating only
// when s has upper-case letters.
func asciiLowerTrim(s string) string {
	s = strings.TrimSpace(s)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// parseSelector reads one complex selector made of type, universal, id
// and class selectors joined by descendant or child combinators. Any
// other construct (attributes, pseudo-classes, sibling combinators) makes
// the selector unmatchable here, and it is dropped: a rule that might
// apply only on hover or to some attribute value must not be taken as
// applying always.
func parseSelector(sel string) (*cssRule, bool) {
	sel = strings.TrimSpace(sel)
	if sel == "" || len(sel) > 512 {
		return nil, false
	}
	r := &cssRule{}
	var cur compound
	have := false
	pending := byte(0) // combinator seen since the last compound
	flush := func() {
		if !have {
			return
		}
		if len(r.parts) > 0 {
			c := pending
			if c == 0 {
				c = ' '
			}
			r.combs = append(r.combs, c)
		}
		r.parts = append(r.parts, cur)
		cur = compound{}
		have = false
		pending = 0
	}
	i := 0
	for i < len(sel) {
		c := sel[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			flush()
			i++
		case c == '>':
			flush()
			if len(r.parts) == 0 {
				return nil, false
			}
			pending = '>'
			i++
		case c == '*':
			if have {
				return nil, false
			}
			cur.tag = "*"
			have = true
			i++
		case c == '#' || c == '.':
			j := i + 1
			for j < len(sel) && isIdentByte(sel[j]) {
				j++
			}
			if j == i+1 {
				return nil, false
			}
			if c == '#' {
				cur.id = sel[i+1 : j]
			} else {
				cur.classes = append(cur.classes, sel[i+1:j])
			}
			have = true
			i = j
		case isIdentByte(c):
			if have {
				return nil, false
			}
			j := i
			for j < len(sel) && isIdentByte(sel[j]) {
				j++
			}
			cur.tag = strings.ToLower(sel[i:j])
			have = true
			i = j
		default:
			return nil, false
		}
	}
	flush()
	if pending != 0 || len(r.parts) == 0 || len(r.parts) > 32 {
		return nil, false
	}
	for i := range r.parts {
		p := &r.parts[i]
		p.sig = featuresOf(p.tag, p.id, p.classes)
	}
	ids, classes, tags := 0, 0, 0
	for _, p := range r.parts {
		if p.id != "" {
			ids++
		}
		classes += len(p.classes)
		if p.tag != "" && p.tag != "*" {
			tags++
		}
	}
	r.spec = min(ids, 255)<<16 | min(classes, 255)<<8 | min(tags, 255)
	return r, true
}

// elemKey is what a compound selector can test on an element.
type elemKey struct {
	tag     string
	id      string
	classes []string
	self    featureSig // of tag, id and classes
	above   featureSig // union of the element ancestors' self
}

func (c *compound) matches(e *elemKey) bool {
	if c.tag != "" && c.tag != "*" && c.tag != e.tag {
		return false
	}
	if c.id != "" && c.id != e.id {
		return false
	}
	for _, want := range c.classes {
		found := false
		for _, have := range e.classes {
			if have == want {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// cssMatcher applies the page's sheets to elements within a step budget.
type cssMatcher struct {
	ss    *styleSheets
	keys  []elemKey // per node id
	steps int
}

// match reports whether rule r matches node n. Combinators are matched
// right to left greedily: a descendant combinator takes the nearest
// ancestor that fits, which never matches wrongly and misses only rare
// selectors mixing '>' and ' ' in ambiguous ways.
func (m *cssMatcher) match(r *cssRule, n *Node) bool {
	last := len(r.parts) - 1
	m.steps++
	if !r.parts[last].matches(&m.keys[n.id]) {
		return false
	}
	cur := n
	for i := last - 1; i >= 0; i-- {
		comb := r.combs[i]
		if comb == ' ' && !m.keys[cur.id].above.covers(r.parts[i].sig) {
			// No ancestor can match: the walk below would visit every
			// element ancestor of cur (depth-1 of them: all but the
			// document node) and fail. Counted all the same, so that
			// the step budget runs out where it always did.
			m.steps += int(cur.depth) - 1
			return false
		}
		p := cur.Parent
		found := false
		for p != nil && p.Kind == ElementNode {
			m.steps++
			if r.parts[i].matches(&m.keys[p.id]) {
				found = true
				break
			}
			if comb == '>' {
				break
			}
			p = p.Parent
		}
		if !found {
			return false
		}
		cur = p
	}
	return true
}

// setKeys fills m.keys (len(nodes) long) for every element of nodes, in
// pre-order, appending their class lists to classes, which it returns.
func (m *cssMatcher) setKeys(nodes []*Node, classes []string) []string {
	for _, n := range nodes {
		if n.Kind != ElementNode {
			continue
		}
		k := elemKey{tag: n.Tag, id: n.Attr("id")}
		if c := n.Attr("class"); c != "" {
			at := len(classes)
			for f := range strings.FieldsSeq(c) {
				classes = append(classes, f)
			}
			if len(classes) > at {
				k.classes = classes[at:len(classes):len(classes)]
			}
		}
		k.self = featuresOf(k.tag, k.id, k.classes)
		if p := n.Parent; p != nil && p.Kind == ElementNode {
			pk := &m.keys[p.id]
			k.above = pk.above
			k.above.add(pk.self)
		}
		m.keys[n.id] = k
	}
	return classes
}

// winner is the best declaration seen so far for one property.
type winner struct {
	val  string
	prio int64
	set  bool
}

func (w *winner) offer(val string, prio int64) {
	if !w.set || prio >= w.prio {
		w.val, w.prio, w.set = val, prio, true
	}
}

const (
	prioSheetImportant  = int64(1) << 50
	prioInline          = int64(1) << 48
	prioInlineImportant = int64(1) << 52
)

// cascade returns the winning declared value of every property for n:
// presentational attributes lose to any sheet rule, sheet rules are
// ordered by specificity then source order, inline style beats sheets,
// and !important beats everything of its origin.
func (m *cssMatcher) cascade(n *Node, out *[numProps]winner) {
	*out = [numProps]winner{}
	presentational(n, out)
	if m.ss != nil && m.steps < maxMatchSteps {
		k := &m.keys[n.id]
		if k.id != "" {
			m.apply(m.ss.byID[k.id], n, out)
		}
		for _, c := range k.classes {
			m.apply(m.ss.byClass[c], n, out)
		}
		m.apply(m.ss.byTag[k.tag], n, out)
		m.apply(m.ss.any, n, out)
	}
	if st := n.Attr("style"); st != "" {
		for i, d := range parseDecls(st) {
			prio := prioInline + int64(i)
			if d.important {
				prio = prioInlineImportant + int64(i)
			}
			out[d.prop].offer(d.val, prio)
		}
	}
}

// apply offers the declarations of every rule of rules that matches n.
func (m *cssMatcher) apply(rules []*cssRule, n *Node, out *[numProps]winner) {
	for _, r := range rules {
		if m.steps >= maxMatchSteps {
			return
		}
		if !m.match(r, n) {
			continue
		}
		for _, d := range r.decls {
			prio := int64(r.spec)<<24 | int64(r.order) + 1
			if d.important {
				prio += prioSheetImportant
			}
			out[d.prop].offer(d.val, prio)
		}
	}
}

// presentational turns HTML attributes into the lowest-priority
// declarations (HTML's "presentational hints").
func presentational(n *Node, out *[numProps]winner) {
	for _, a := range n.Attrs {
		switch a.Key {
		case "bgcolor":
			out[propBackground].offer(strings.ToLower(a.Val), 0)
		case "color":
			if n.Tag == "font" {
				out[propColor].offer(strings.ToLower(a.Val), 0)
			}
		case "width":
			out[propWidth].offer(strings.ToLower(a.Val), 0)
		case "height":
			out[propHeight].offer(strings.ToLower(a.Val), 0)
		case "size":
			if n.Tag == "font" {
				if px, ok := fontSizeAttr(a.Val); ok {
					out[propFontSize].offer(strconv.FormatFloat(px, 'f', -1, 64)+"px", 0)
				}
			}
		}
	}
}

// fontSizeAttr maps <font size=1..7> (and +N/-N relative to 3) to px.
func fontSizeAttr(v string) (float64, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	base := 0
	switch v[0] {
	case '+':
		base, v = 3, v[1:]
	case '-':
		base = 3
	}
	k, err := strconv.Atoi(v)
	if err != nil {
		return 0, false
	}
	k += base
	sizes := [...]float64{10, 13, 16, 18, 24, 32, 48}
	k = max(1, min(7, k))
	return sizes[k-1], true
}

// joinSheets indexes the rules of parsed sheets, in order, as one
// page's rules: source order runs across sheets and at most maxRules are
// kept, as if the sheets' texts were parsed one after another.
func joinSheets(parsed []*parsedSheet) *styleSheets {
	n := 0
	for _, ps := range parsed {
		n += len(ps.rules)
	}
	n = min(n, maxRules)
	rules := make([]cssRule, 0, n)
	ss := newStyleSheets()
	for _, ps := range parsed {
		for i := range ps.rules {
			if len(rules) >= n {
				return ss
			}
			rules = append(rules, ps.rules[i])
			r := &rules[len(rules)-1]
			r.order = ss.n
			ss.index(r)
		}
	}
	return ss
}

// computeStyles resolves the Style of every element in one pre-order
// pass (parents before children), inheriting font size, weight, colour
// and hiddenness.
func (pp *Partitioner) computeStyles(nodes []*Node, ss *styleSheets) styleTable {
	elem := make([]int32, len(nodes))
	ne := int32(0)
	for _, n := range nodes {
		if n.Kind == ElementNode {
			elem[n.id] = ne
			ne++
		} else {
			elem[n.id] = -1
		}
	}
	t := styleTable{styles: make([]Style, ne), elem: elem}
	m := &cssMatcher{ss: ss}
	if ss != nil && ss.n > 0 {
		if cap(pp.styleKeys) < len(nodes) {
			pp.styleKeys = make([]elemKey, len(nodes))
		}
		m.keys = pp.styleKeys[:len(nodes)] // every element's entry is set below
		defer clear(m.keys)
		// The class lists share one backing array, kept for the next page.
		classes := m.setKeys(nodes, pp.styleClasses[:0])
		pp.styleClasses = classes
		defer clear(classes)
	} else {
		m.ss = nil
	}
	// none[i]: node i is inside (or is) an element that is not rendered
	// at all (display:none, the hidden attribute, invisible tags); unlike
	// visibility:hidden, no descendant can undo that.
	if cap(pp.styleNone) < len(nodes) {
		pp.styleNone = make([]bool, len(nodes))
	}
	none := pp.styleNone[:len(nodes)] // every entry is set before it is read
	var w [numProps]winner
	for _, n := range nodes {
		parentNone := false
		if n.Parent != nil {
			parentNone = none[n.Parent.id]
		}
		if n.Kind != ElementNode {
			none[n.id] = parentNone
			continue
		}
		var parent *Style
		var derived Style
		switch {
		case n.Parent == nil:
			derived = Style{FontSize: 16}
			parent = &derived
		case elem[n.Parent.id] >= 0:
			parent = &t.styles[elem[n.Parent.id]]
		default:
			derived = t.of(n.Parent)
			parent = &derived
		}
		m.cascade(n, &w)
		none[n.id] = resolveStyle(n, parent, parentNone, &w, &t.styles[elem[n.id]])
	}
	return t
}

// resolveStyle computes n's Style (into s) from the winning declarations
// and its parent's style; it reports whether n is not rendered at all.
func resolveStyle(n *Node, parent *Style, parentNone bool, w *[numProps]winner, s *Style) bool {
	info := n.info
	*s = Style{FontSize: parent.FontSize, Bold: parent.Bold, Color: parent.Color, Hidden: parent.Hidden}
	// Browser defaults for the tags that change font size or weight.
	if h := headingLevel(n.Tag); h > 0 {
		s.FontSize = parent.FontSize * [...]float64{2, 1.5, 1.17, 1, 0.83, 0.67}[h-1]
		s.Bold = true
	}
	switch n.Tag {
	case "b", "strong", "th":
		s.Bold = true
	case "small", "sub", "sup":
		s.FontSize = parent.FontSize * 0.83
	case "big":
		s.FontSize = parent.FontSize * 1.2
	}
	if v := w[propFontSize]; v.set {
		if px, ok := fontSize(v.val, parent.FontSize); ok {
			s.FontSize = px
		}
	}
	if v := w[propFontWeight]; v.set {
		switch v.val {
		case "bold", "bolder":
			s.Bold = true
		case "normal", "lighter":
			s.Bold = false
		default:
			if k, err := strconv.Atoi(v.val); err == nil {
				s.Bold = k >= 600
			}
		}
	}
	if v := w[propColor]; v.set {
		if c := normColor(v.val); c != "" {
			s.Color = c
		}
	}
	if v := w[propBackground]; v.set {
		s.Background = backgroundColor(v.val)
	}
	if v := w[propWidth]; v.set {
		s.Width = lengthPx(v.val, s.FontSize)
	}
	if v := w[propHeight]; v.set {
		s.Height = lengthPx(v.val, s.FontSize)
	}
	switch {
	case info.invisible:
		s.Display = "none"
	case n.Tag == "dialog" && !hasAttr(n, "open"):
		// The UA sheet's dialog:not([open]) { display: none }: a closed
		// dialog is a pop-up waiting for a script to show it.
		s.Display = "none"
	case info.block:
		s.Display = "block"
	default:
		s.Display = "inline"
	}
	if v := w[propDisplay]; v.set && v.val != "inherit" && v.val != "initial" && !strings.HasPrefix(v.val, "var(") {
		s.Display = v.val
	}
	none := parentNone || s.Display == "none"
	if _, ok := attr(n, "hidden"); ok {
		none = true
	}
	if n.Tag == "input" && strings.EqualFold(n.Attr("type"), "hidden") {
		none = true
	}
	// visibility inherits, and a descendant may set it back to visible.
	if v := w[propVisibility]; v.set {
		switch v.val {
		case "hidden", "collapse":
			s.Hidden = true
		case "visible":
			s.Hidden = false
		}
	}
	if none {
		s.Hidden = true
	}
	return none
}

func attr(n *Node, key string) (string, bool) {
	for _, a := range n.Attrs {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// fontSize resolves a CSS font-size against the parent's size in px.
func fontSize(v string, parent float64) (float64, bool) {
	switch v {
	case "xx-small":
		return 9, true
	case "x-small":
		return 10, true
	case "small":
		return 13, true
	case "medium":
		return 16, true
	case "large":
		return 18, true
	case "x-large":
		return 24, true
	case "xx-large":
		return 32, true
	case "xxx-large":
		return 48, true
	case "smaller":
		return parent * 0.83, true
	case "larger":
		return parent * 1.2, true
	}
	var px float64
	if strings.HasSuffix(v, "%") {
		if x, err := strconv.ParseFloat(strings.TrimSpace(v[:len(v)-1]), 64); err == nil {
			px = parent * x / 100
		}
	} else {
		px = lengthPx(v, parent)
	}
	if px <= 0 || px > 1000 {
		return 0, false
	}
	return px, true
}

// lengthPx converts a CSS or attribute length to px; relative lengths
// resolve against em (the element's font size). Percentages and anything
// needing a viewport are unknown (0).
func lengthPx(v string, em float64) float64 {
	v = strings.TrimSpace(v)
	i := 0
	for i < len(v) && (v[i] >= '0' && v[i] <= '9' || v[i] == '.' || v[i] == '-' || v[i] == '+') {
		i++
	}
	if i == 0 {
		return 0
	}
	x, err := strconv.ParseFloat(v[:i], 64)
	if err != nil || x < 0 {
		return 0
	}
	switch strings.TrimSpace(v[i:]) {
	case "", "px":
		return x
	case "pt":
		return x * 4 / 3
	case "pc":
		return x * 16
	case "in":
		return x * 96
	case "cm":
		return x * 96 / 2.54
	case "mm":
		return x * 96 / 25.4
	case "em":
		return x * em
	case "rem":
		return x * 16
	}
	return 0
}

// backgroundColor finds the colour in a background or background-color
// value; "" means none or unknown (transparent, images, gradients only).
func backgroundColor(v string) string {
	if c := normColor(v); c != "" {
		return c
	}
	for _, f := range splitCSSValue(v) {
		if c := normColor(f); c != "" {
			return c
		}
	}
	return ""
}

// splitCSSValue splits a value on spaces outside parentheses.
func splitCSSValue(v string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ' ', '\t', '\n':
			if depth == 0 {
				if i > start {
					out = append(out, v[start:i])
				}
				start = i + 1
			}
		}
	}
	if start < len(v) {
		out = append(out, v[start:])
	}
	return out
}

var namedColors = map[string]string{
	"black": "#000000", "white": "#ffffff", "red": "#ff0000", "green": "#008000", "blue": "#0000ff",
	"yellow": "#ffff00", "gray": "#808080", "grey": "#808080", "silver": "#c0c0c0", "maroon": "#800000",
	"purple": "#800080", "fuchsia": "#ff00ff", "magenta": "#ff00ff", "lime": "#00ff00", "olive": "#808000",
	"navy": "#000080", "teal": "#008080", "aqua": "#00ffff", "cyan": "#00ffff", "orange": "#ffa500",
	"lightgray": "#d3d3d3", "lightgrey": "#d3d3d3", "darkgray": "#a9a9a9", "darkgrey": "#a9a9a9",
	"whitesmoke": "#f5f5f5", "gainsboro": "#dcdcdc", "beige": "#f5f5dc", "ivory": "#fffff0",
	"darkblue": "#00008b", "darkred": "#8b0000", "darkgreen": "#006400", "lightblue": "#add8e6",
	"lightyellow": "#ffffe0", "pink": "#ffc0cb", "brown": "#a52a2a", "gold": "#ffd700",
}

// normColor normalises a colour value to "#rrggbb" (lower case); it
// returns "" for transparent, keywords it cannot resolve, and non-colours.
func normColor(v string) string {
	v = strings.TrimSpace(strings.ToLower(v))
	if v == "" {
		return ""
	}
	if c, ok := namedColors[v]; ok {
		return c
	}
	if v[0] == '#' {
		h := v[1:]
		for i := 0; i < len(h); i++ {
			if !isHex(h[i]) {
				return ""
			}
		}
		switch len(h) {
		case 3, 4:
			return "#" + string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
		case 6, 8:
			if len(h) == 8 && h[6:] == "00" {
				return ""
			}
			return "#" + h[:6]
		}
		return ""
	}
	if strings.HasPrefix(v, "rgb(") || strings.HasPrefix(v, "rgba(") {
		open, end := strings.IndexByte(v, '('), strings.IndexByte(v, ')')
		if end < open {
			return ""
		}
		f := strings.FieldsFunc(v[open+1:end], func(r rune) bool { return r == ',' || r == ' ' || r == '/' })
		if len(f) < 3 {
			return ""
		}
		if len(f) >= 4 {
			if a, err := strconv.ParseFloat(strings.TrimSuffix(f[3], "%"), 64); err == nil && a == 0 {
				return ""
			}
		}
		var b [3]byte
		for i := 0; i < 3; i++ {
			s := f[i]
			pct := strings.HasSuffix(s, "%")
			x, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
			if err != nil {
				return ""
			}
			if pct {
				x = x * 255 / 100
			}
			b[i] = byte(max(0, min(255, x+0.5)))
		}
		const hexd = "0123456789abcdef"
		return string([]byte{'#', hexd[b[0]>>4], hexd[b[0]&15], hexd[b[1]>>4], hexd[b[1]&15], hexd[b[2]>>4], hexd[b[2]&15]})
	}
	// Old pages write bare hex in bgcolor attributes ("ffcc00").
	if len(v) == 6 {
		for i := 0; i < 6; i++ {
			if !isHex(v[i]) {
				return ""
			}
		}
		return "#" + v
	}
	return ""
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

// The viewport media queries are evaluated against: a desktop browser
// window, the view an archive's visitor most likely had.
const (
	viewportWidth  = 1280.0
	viewportHeight = 800.0
)

// mediaMatches evaluates a media query list for a screen of
// viewportWidth × viewportHeight px in light mode. A list matches when
// any query does; a query matches when its media type is screen or all
// and every feature it tests holds. Features it cannot evaluate count as
// holding, except user preferences, which hold only at their defaults.
func mediaMatches(list string) bool {
	list = strings.ToLower(strings.TrimSpace(list))
	if list == "" {
		return true
	}
	for _, q := range strings.Split(list, ",") {
		if mediaQueryMatches(strings.TrimSpace(q)) {
			return true
		}
	}
	return false
}

func mediaQueryMatches(q string) bool {
	negate := false
	if rest, ok := strings.CutPrefix(q, "not "); ok {
		negate, q = true, strings.TrimSpace(rest)
	}
	q = strings.TrimSpace(strings.TrimPrefix(q, "only "))
	ok := true
	for _, part := range strings.Split(q, " and ") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if part[0] != '(' {
			switch part {
			case "screen", "all":
			default:
				ok = false // print, speech, tv, ...
			}
			continue
		}
		if !mediaFeatureHolds(strings.Trim(part, "() ")) {
			ok = false
		}
	}
	return ok != negate
}

func mediaFeatureHolds(f string) bool {
	name, val, _ := strings.Cut(f, ":")
	name, val = strings.TrimSpace(name), strings.TrimSpace(val)
	px := func() float64 { return lengthPx(val, 16) }
	switch name {
	case "min-width":
		return px() <= viewportWidth
	case "max-width":
		return px() >= viewportWidth
	case "width":
		return px() == viewportWidth
	case "min-height":
		return px() <= viewportHeight
	case "max-height":
		return px() >= viewportHeight
	case "orientation":
		return val == "landscape"
	case "prefers-color-scheme":
		return val == "light"
	case "prefers-reduced-motion", "prefers-reduced-transparency", "prefers-contrast", "forced-colors", "prefers-reduced-data":
		return val == "no-preference" || val == "none"
	}
	return true
}
