package partition

import (
	"strconv"
	"strings"
)

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
	// share[i]: the last element child of node i so far whose style may be
	// shared (styleShare).
	if cap(pp.styleShare) < len(nodes) {
		pp.styleShare = make([]styleShare, len(nodes))
	}
	share := pp.styleShare[:len(nodes)]
	defer clear(share)
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
		var sh *styleShare
		if n.Parent != nil {
			sh = &share[n.Parent.id]
		}
		if sh != nil && sh.sib != nil && sameStyleInputs(sh.sib, n) && m.steps+int(sh.steps) < maxMatchSteps {
			sib := sh.sib
			m.steps += int(sh.steps)
			t.styles[elem[n.id]] = t.styles[elem[sib.id]]
			none[n.id] = none[sib.id]
			continue
		}
		before := m.steps
		m.cascade(n, &w)
		none[n.id] = resolveStyle(n, parent, parentNone, &w, &t.styles[elem[n.id]])
		if sh != nil {
			*sh = styleShare{}
			if m.steps < maxMatchSteps {
				*sh = styleShare{sib: n, steps: int32(m.steps - before)}
			}
		}
	}
	return t
}

// styleShare is an element whose style a later sibling may share, as
// browsers share computed styles between siblings: an element's
// cascade and style depend only on its tag and attributes, its
// ancestors' tags, ids and classes (all that cssMatcher.match tests: no
// sibling or structural selectors) and its parent's style, so a sibling
// with the same tag and attributes gets the same style. Sharing is taken only when
// the step budget (maxMatchSteps) cuts neither cascade: steps is what
// sib's cascade counted, and the sibling counts as many, so that the
// budget runs out where it always did.
type styleShare struct {
	sib   *Node
	steps int32
}

// sameStyleInputs reports whether elements a and b, siblings, have the
// same tag and the same attributes in the same order.
func sameStyleInputs(a, b *Node) bool {
	if a.Tag != b.Tag || a.info != b.info || len(a.Attrs) != len(b.Attrs) {
		return false
	}
	for i, x := range a.Attrs {
		if y := b.Attrs[i]; x.Key != y.Key || x.Val != y.Val {
			return false
		}
	}
	return true
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
	root := n.Tag == "html" || n.Tag == "body"
	if root && s.Display == "none" {
		// A page hidden whole waits for its script (a frame buster's
		// html{display:none}, an anti-flicker snippet): what a reader
		// sees is the page the script shows.
		s.Display = "block"
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
			s.Hidden = !root
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
