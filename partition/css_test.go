package partition

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// styleOfFirst partitions doc and returns the Style of the first element
// with the given id attribute.
func styleOfFirst(t *testing.T, doc string, opts Options, id string) Style {
	t.Helper()
	res, err := Partition([]byte(doc), opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range res.nodes {
		if n.Kind == ElementNode && n.Attr("id") == id {
			return res.StyleOf(n)
		}
	}
	t.Fatalf("no element id=%q", id)
	return Style{}
}

func TestCSSCascade(t *testing.T) {
	sheet := `
/* comment with { braces } */
body { font-size: 10px; color: #333 }
.note { color: red; font-weight: bold }
div.note { color: blue }
#main .note { color: green }
#main > p { background: #fff url(x.png) no-repeat }
ul li a { font-size: 2em }
p:hover { color: pink }
a[href] { color: pink }
h1 + p { color: pink }
@media print { .note { color: pink } }
@media (max-width: 639px) { .wide { display: none } }
@media screen and (min-width: 40em) and (max-width: 2000px) { #s1 { font-weight: bold } }
@media (prefers-color-scheme: dark) { .wide { color: pink } }
@media screen and (min-width: 10px) { .wide { width: 300px; height: 40px } }
@font-face { font-family: x; src: url(x) }
@import url(other.css);
.imp { color: #010101 !important }
`
	doc := `<html><head><style>` + sheet + `</style></head><body>
<div id=main><p id=p1 class=note>x</p><div id=d1 class="note imp" style="color: #abcdef">y</div>
<ul><li><a id=a1 href=#>link</a></li></ul><span id=s1 class=wide>w</span>
<font id=f1 size=5 color=Navy>big</font><table bgcolor="ffcc00" id=t1><tr><td id=td1>c</td></tr></table>
<h2 id=h2>head</h2><small id=sm>s</small><div id=hid style="display:none"><b id=inhid>x</b></div>
<div style="visibility:hidden"><b id=vis style="visibility:visible">v</b><i id=invis>i</i></div>
<div style="display:none"><b id=stillhid style="visibility:visible">v</b></div>
<p id=p2 style="font-size: 150%; font-weight: 700; color: rgb(255, 0, 0)">z</p>
</div></body></html>`
	cases := []struct {
		id    string
		check func(Style) bool
		want  string
	}{
		{"p1", func(s Style) bool { return s.Color == "#008000" }, "#main .note beats .note (specificity): green"},
		{"p1", func(s Style) bool { return s.Bold }, ".note sets bold"},
		{"p1", func(s Style) bool { return s.Background == "#ffffff" }, "#main > p background shorthand colour"},
		{"p1", func(s Style) bool { return s.FontSize == 10 }, "font size inherited from body"},
		{"d1", func(s Style) bool { return s.Color == "#010101" }, "!important beats inline style"},
		{"a1", func(s Style) bool { return s.FontSize == 20 }, "2em of 10px = 20px (descendant selector)"},
		{"s1", func(s Style) bool { return s.Width == 300 && s.Height == 40 }, "@media screen rules apply"},
		{"s1", func(s Style) bool { return !s.Hidden && s.Bold }, "media queries are evaluated for a 1280px desktop screen"},
		{"f1", func(s Style) bool { return s.FontSize == 24 && s.Color == "#000080" }, "<font size=5 color=Navy>"},
		{"t1", func(s Style) bool { return s.Background == "#ffcc00" }, "bare hex bgcolor"},
		{"td1", func(s Style) bool { return s.Background == "" && s.Display == "block" }, "background is not inherited"},
		{"h2", func(s Style) bool { return s.Bold && math.Abs(s.FontSize-15) < 0.01 }, "h2 default 1.5em bold"},
		{"sm", func(s Style) bool { return s.FontSize < 10 }, "small is smaller"},
		{"hid", func(s Style) bool { return s.Hidden && s.Display == "none" }, "display:none hides"},
		{"inhid", func(s Style) bool { return s.Hidden }, "hidden is inherited"},
		{"vis", func(s Style) bool { return !s.Hidden }, "visibility:visible undoes an inherited visibility:hidden"},
		{"invis", func(s Style) bool { return s.Hidden }, "visibility:hidden is inherited"},
		{"stillhid", func(s Style) bool { return s.Hidden }, "visibility:visible cannot undo display:none"},
		{"p2", func(s Style) bool { return s.FontSize == 15 && s.Bold && s.Color == "#ff0000" }, "inline %, 700, rgb()"},
	}
	for _, c := range cases {
		s := styleOfFirst(t, doc, Options{}, c.id)
		if !c.check(s) {
			t.Errorf("#%s: %s; got %+v", c.id, c.want, s)
		}
	}
	// Pseudo-classes, attribute selectors and sibling combinators never
	// apply; @media print does not either: nothing above is pink.
	res, _ := Partition([]byte(doc), Options{})
	for _, n := range res.nodes {
		if res.StyleOf(n).Color == "#ffc0cb" {
			t.Errorf("<%s id=%s> got pink from an unmatchable selector", n.Tag, n.Attr("id"))
		}
	}
}

func TestCSSOptionSheetsAndOrder(t *testing.T) {
	doc := `<style>.x { color: #222222 }</style><p id=a class=x>t</p><p id=b class=y>u</p>`
	opts := Options{StyleSheets: []string{".x { color: #111111 } .y { color: #333333; font-size: 20pt }"}}
	if s := styleOfFirst(t, doc, opts, "a"); s.Color != "#222222" {
		t.Errorf("later page sheet should win at equal specificity, got %q", s.Color)
	}
	if s := styleOfFirst(t, doc, opts, "b"); s.Color != "#333333" || math.Abs(s.FontSize-80.0/3) > 0.01 {
		t.Errorf("option sheet not applied: %+v", s)
	}
}

func TestCSSSelectorParse(t *testing.T) {
	ok := []string{"div", "#a", ".b.c", "div#a.b", "ul > li a", "*", "body>div", "  p  "}
	bad := []string{"a:hover", "a[href]", "h1 + p", "h1 ~ p", "::before", "", "a >", "> a", "svg|rect", "p.", "a\\:b"}
	for _, s := range ok {
		if _, good := parseSelector(s); !good {
			t.Errorf("parseSelector(%q) rejected", s)
		}
	}
	for _, s := range bad {
		if _, good := parseSelector(s); good {
			t.Errorf("parseSelector(%q) accepted", s)
		}
	}
	r, _ := parseSelector("#a .b > p")
	if r.spec != 1<<16|1<<8|1 || len(r.parts) != 3 || string(r.combs) != " >" {
		t.Errorf("#a .b > p: spec %x parts %d combs %q", r.spec, len(r.parts), r.combs)
	}
}

func TestCSSColors(t *testing.T) {
	cases := map[string]string{
		"#ABC": "#aabbcc", "#a1b2c3": "#a1b2c3", "#a1b2c3ff": "#a1b2c3", "#a1b2c300": "", "white": "#ffffff",
		"rgb(0, 128, 255)": "#0080ff", "rgba(1,2,3,0)": "", "rgb(100%, 0%, 0%)": "#ff0000", "transparent": "",
		"inherit": "", "#ggg": "", "abcdef": "#abcdef", "rgb(1,2)": "",
	}
	for in, want := range cases {
		if got := normColor(in); got != want {
			t.Errorf("normColor(%q) = %q, want %q", in, got, want)
		}
	}
	if got := backgroundColor("url(a.png) #fff repeat-x"); got != "#ffffff" {
		t.Errorf("background shorthand: %q", got)
	}
	if got := backgroundColor("linear-gradient(red, blue)"); got != "" {
		t.Errorf("gradient has no single colour, got %q", got)
	}
}

// TestCSSPathological: giant and hostile sheets cost bounded time.
func TestCSSPathological(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 60000; i++ {
		b.WriteString("div div div div div div div div .c")
		b.WriteString(strings.Repeat(" div", 20))
		b.WriteString(" { color: red }\n")
	}
	sheets := []string{
		b.String(),
		strings.Repeat("{", 1<<20),
		strings.Repeat("}", 1<<20),
		strings.Repeat("@media screen {", 50000),
		"/*" + strings.Repeat("x", 1<<20),
		strings.Repeat("a,", 200000) + "b { color: red }",
	}
	doc := strings.Repeat("<div class=c>", 200) + "text" + strings.Repeat("</div>", 200)
	start := time.Now()
	res, err := Partition([]byte(doc), Options{StyleSheets: sheets})
	if err != nil {
		t.Fatal(err)
	}
	ptCheckInvariants(t, []byte(doc), res)
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("pathological sheets took %v", d)
	}
}

func TestMediaQueries(t *testing.T) {
	cases := map[string]bool{
		"": true, "screen": true, "all": true, "print": false, "only screen": true, "not print": true,
		"(max-width: 639px)": false, "(min-width: 640px)": true, "screen and (min-width: 40em)": true,
		"(min-width: 1400px)": false, "print, (min-width: 100px)": true, "(orientation: portrait)": false,
		"(prefers-color-scheme: dark)": false, "(prefers-reduced-motion: reduce)": false, "(hover: hover)": true,
		"not screen and (max-width: 600px)": true, "screen and (max-width: 2000px) and (min-height: 500px)": true,
	}
	for q, want := range cases {
		if got := mediaMatches(q); got != want {
			t.Errorf("mediaMatches(%q) = %v, want %v", q, got, want)
		}
	}
}

// refMatch is cssMatcher.match without the ancestor signatures: it walks
// every candidate ancestor. It returns the match and the steps taken.
func refMatch(m *cssMatcher, r *cssRule, n *Node) (bool, int) {
	steps := 1
	last := len(r.parts) - 1
	if !r.parts[last].matches(&m.keys[n.id]) {
		return false, steps
	}
	cur := n
	for i := last - 1; i >= 0; i-- {
		p := cur.Parent
		found := false
		for p != nil && p.Kind == ElementNode {
			steps++
			if r.parts[i].matches(&m.keys[p.id]) {
				found = true
				break
			}
			if r.combs[i] == '>' {
				break
			}
			p = p.Parent
		}
		if !found {
			return false, steps
		}
		cur = p
	}
	return true, steps
}

// TestMatchSignatures checks that the ancestor signatures change nothing
// the matcher decides: on every test page and on a deep synthetic page,
// every rule matches every element as the full walk does, counting the
// same steps (the step budget must run out where it always did).
func TestMatchSignatures(t *testing.T) {
	type page struct {
		doc    []byte
		sheets []string
	}
	var deep strings.Builder
	for i := range 40 {
		fmt.Fprintf(&deep, "<div id=d%d class='c%d x'><section class=s%d>", i, i%7, i%3)
	}
	deep.WriteString("<p class=leaf>text</p>")
	pages := []page{{doc: []byte(deep.String()), sheets: []string{
		"div p, #d3 .leaf, .c5 > section p, .c1.x .s2 > p, article p, #nope p, .c6 div .leaf, div > div > p, section > p { color: red }\n" +
			"* .leaf, .x section .s0, body .c2, .missing .x, #d39 > section > p, span * p { color: blue }",
	}}}
	for _, name := range testPageNames(t) {
		pages = append(pages, page{doc: testPage(t, name)})
	}
	pairs, rejected := 0, 0
	for _, pg := range pages {
		pp := NewPartitioner()
		_, nodes := buildTree(pg.doc)
		ss := pp.styleSheets(pg.doc, nodes, pg.sheets)
		if ss == nil || ss.n == 0 {
			continue
		}
		var rules []*cssRule
		seen := map[*cssRule]bool{}
		add := func(rs []*cssRule) {
			for _, r := range rs {
				if !seen[r] {
					seen[r] = true
					rules = append(rules, r)
				}
			}
		}
		for _, rs := range ss.byID {
			add(rs)
		}
		for _, rs := range ss.byClass {
			add(rs)
		}
		for _, rs := range ss.byTag {
			add(rs)
		}
		add(ss.any)
		m := &cssMatcher{ss: ss, keys: make([]elemKey, len(nodes))}
		m.setKeys(nodes, nil)
		for _, n := range nodes {
			if n.Kind != ElementNode {
				continue
			}
			for _, r := range rules {
				before := m.steps
				got := m.match(r, n)
				want, steps := refMatch(m, r, n)
				if got != want || m.steps-before != steps {
					t.Fatalf("rule %+v on <%s> at %d: match %v in %d steps, full walk %v in %d", r.parts, n.Tag, n.Start, got, m.steps-before, want, steps)
				}
				if steps > 1 && !want {
					rejected++
				}
				pairs++
			}
		}
	}
	if pairs < 50000 || rejected < 1000 {
		t.Fatalf("only %d rule-element pairs compared, %d failing after a walk", pairs, rejected)
	}
	t.Logf("%d pairs, %d failing after a walk", pairs, rejected)
}
