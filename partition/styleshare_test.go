package partition

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// unsharedStyles is computeStyles without style sharing: every element
// cascaded and resolved on its own, the reference sharing must equal.
func unsharedStyles(nodes []*Node, ss *styleSheets) styleTable {
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
		m.keys = make([]elemKey, len(nodes))
		m.setKeys(nodes, nil)
	} else {
		m.ss = nil
	}
	none := make([]bool, len(nodes))
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

// budgetPage is a page of many identical siblings under a sheet whose
// matching runs out of steps (maxMatchSteps) part way down the list:
// shared styles must count the steps their cascades would have, or the
// budget runs out at another element.
func budgetPage() (string, []string) {
	var doc strings.Builder
	doc.WriteString("<html><body><div class=top><ul class=list>")
	for i := range 3000 {
		fmt.Fprintf(&doc, "<li class='item c%d'><span class=v>x</span></li>", i/2%3)
		if i%4 == 3 {
			doc.WriteString("<li class=item style='color: blue'></li>")
		}
	}
	doc.WriteString("</ul></div></body></html>")
	var sheet strings.Builder
	for i := range 300 {
		fmt.Fprintf(&sheet, ".top .nothing%d .item { color: #%06x } .list li span.v { font-size: %dpx }\n", i, i, 10+i%9)
	}
	sheet.WriteString(".c1 { display: none } .item { font-weight: bold }\n")
	return doc.String(), []string{sheet.String()}
}

// TestStyleSharing: styles shared between siblings are the styles each
// element's own cascade gives, on the test pages, the shared corpus's
// pages and a page where the match budget runs out.
func TestStyleSharing(t *testing.T) {
	type page struct {
		name   string
		doc    []byte
		sheets []string
	}
	doc, sheets := budgetPage()
	pages := []page{{name: "budget", doc: []byte(doc), sheets: sheets}}
	for _, name := range testPageNames(t) {
		pages = append(pages, page{name: name, doc: testPage(t, name)})
	}
	if !testing.Short() {
		for _, f := range sharedtest.CorpusFiles(t) {
			for _, r := range ptReadWARCHTML(t, f) {
				pages = append(pages, page{name: r.URI, doc: r.Payload})
			}
		}
	}
	pp := NewPartitioner()
	shared, budgetCut := 0, false
	for _, pg := range pages {
		_, nodes := buildTree(pg.doc)
		ss := pp.styleSheets(pg.doc, nodes, pg.sheets)
		got := pp.computeStyles(nodes, ss)
		want := unsharedStyles(nodes, ss)
		if !reflect.DeepEqual(got, want) {
			for i := range want.styles {
				if got.styles[i] != want.styles[i] {
					t.Fatalf("%s: element %d: style %+v shared, %+v cascaded", pg.name, i, got.styles[i], want.styles[i])
				}
			}
			t.Fatalf("%s: styles differ", pg.name)
		}
		for _, n := range nodes {
			if n.Kind == ElementNode && n.Parent != nil {
				for k, c := range n.Parent.Children {
					if c == n && k > 0 && sameStyleInputs(n.Parent.Children[k-1], n) {
						shared++
					}
				}
			}
		}
		if pg.name == "budget" {
			// The budget ran out: the last items lost the sheet's bold.
			last := want.styles[len(want.styles)-1]
			budgetCut = !last.Bold
		}
	}
	if shared == 0 || !budgetCut {
		t.Fatalf("%d elements after a sibling with the same attributes, budget cut %v: the test tests nothing", shared, budgetCut)
	}
}
