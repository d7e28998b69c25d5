package partition

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// TestRawSpansTile checks the premise of byte-exactness: the tokenizer's
// Raw() spans cover the input from the start without gap or overlap, and
// what they leave out is only an unfinished tag at EOF.
func TestRawSpansTile(t *testing.T) {
	inputs := map[string]string{
		"plain":              "<p>a<b>b</b></p>",
		"unterminated tag":   "abc<a href='x",
		"bare tag start":     "<a",
		"unterminated end":   "</a b",
		"comment to EOF":     "<!--abc",
		"script to EOF":      "<script>abc</scr",
		"cdata":              "<![CDATA[x]]>y",
		"nul bytes":          "a\x00b<p\x00>c\x00</p>",
		"processing instr":   "<?xml version='1.0'?><x/>",
		"lone lt":            "x<",
		"empty end":          "</>x",
		"doctype to EOF":     "<!DOCTYPE",
		"invalid utf8":       "\xff\xfe<p>\xc3</p>",
		"textarea raw":       "<textarea><p>not a tag</textarea>",
		"plaintext":          "<plaintext></plaintext><p>",
		"attr without value": "<input disabled checked=checked value=\"a>b\">",
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			z := html.NewTokenizer(strings.NewReader(in))
			var got []byte
			for z.Next() != html.ErrorToken {
				got = append(got, z.Raw()...)
			}
			if !strings.HasPrefix(in, string(got)) {
				t.Fatalf("Raw spans %q are not a prefix of %q", got, in)
			}
			rest := in[len(got):]
			if rest != "" && !strings.HasPrefix(rest, "<") {
				t.Fatalf("tokenizer dropped %q, which is not an unfinished tag", rest)
			}
		})
	}
}

// span returns the bytes of the first element named tag (pre-order).
func elemSpan(t *testing.T, doc string, root *Node, tag string) string {
	t.Helper()
	stack := []*Node{root}
	for len(stack) > 0 {
		n := stack[0]
		stack = stack[1:]
		if n.Kind == ElementNode && n.Tag == tag {
			return doc[n.Start:n.End]
		}
		stack = append(n.Children, stack...)
	}
	t.Fatalf("no <%s> in %q", tag, doc)
	return ""
}

// childTags lists the element children of the first element named tag.
func childTags(root *Node, tag string) []string {
	var found *Node
	var walk func(n *Node)
	walk = func(n *Node) {
		if found != nil {
			return
		}
		if n.Kind == ElementNode && n.Tag == tag {
			found = n
			return
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(root)
	if found == nil {
		return nil
	}
	var out []string
	for _, c := range found.Children {
		if c.Kind == ElementNode {
			out = append(out, c.Tag)
		}
	}
	return out
}

func TestTreeImpliedEnds(t *testing.T) {
	cases := []struct {
		name, doc, tag, want string
	}{
		{"p closed by p", "<p>one<p>two", "p", "<p>one"},
		{"p closed by div", "<p>one\n<div>x</div>", "p", "<p>one\n"},
		{"li closed by li", "<ul><li>a<li>b</ul>", "li", "<li>a"},
		{"li through div", "<ul><li><div>a</div><li>b</ul>", "li", "<li><div>a</div>"},
		{"td closed by td", "<table><tr><td>a<td>b</table>", "td", "<td>a"},
		{"tr closed by tr", "<table><tr><td>a<tr><td>b</table>", "tr", "<tr><td>a"},
		{"tbody closed by tbody", "<table><tbody><tr><td>a<tbody><tr><td>b</table>", "tbody", "<tbody><tr><td>a"},
		{"option closed by option", "<select><option>a<option>b</select>", "option", "<option>a"},
		{"dt closed by dd", "<dl><dt>a<dd>b</dl>", "dt", "<dt>a"},
		{"explicit end", "<div><span>a</span>b</div>c", "div", "<div><span>a</span>b</div>"},
		{"unclosed at EOF", "<div><span>a", "div", "<div><span>a"},
		{"stray end ignored", "<div>a</span>b</div>", "div", "<div>a</span>b</div>"},
		{"end closes inner", "<div><b>a</div>c", "b", "<b>a"},
		{"void img", "<div><img src=x>text</div>", "img", "<img src=x>"},
		{"self-closing div opens", "<div/>a</div>", "div", "<div/>a</div>"},
		{"svg self-closing", "<svg><path/><g>x</g></svg>", "path", "<path/>"},
		{"script raw text", "<script>if (a<b) {}</div></script><p>x", "script", "<script>if (a<b) {}</div></script>"},
		{"title raw", "<title><b>t</title>", "title", "<title><b>t</title>"},
		{"head ends at body tag", "<head><meta charset=utf-8><div>x</div>", "head", "<head><meta charset=utf-8>"},
		{"head ends at text", "<head><title>t</title>hello<p>x", "head", "<head><title>t</title>"},
		{"heading closes heading", "<h1>a<h2>b</h2>", "h1", "<h1>a"},
		{"nested a", "<a href=1>one<a href=2>two</a>", "a", "<a href=1>one"},
		{"end div does not cross td", "<div><table><tr><td>x</div>y</td></tr></table></div>z", "td", "<td>x</div>y</td>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, _ := buildTree([]byte(c.doc))
			if got := elemSpan(t, c.doc, root, c.tag); got != c.want {
				t.Fatalf("<%s> span = %q, want %q", c.tag, got, c.want)
			}
		})
	}
}

func TestTreeStructure(t *testing.T) {
	doc := "<!DOCTYPE html><html><head><title>t</title></head><body><ul><li>a<li>b<li>c</ul><p>x<p>y</body></html>"
	root, nodes := buildTree([]byte(doc))
	if got := strings.Join(childTags(root, "ul"), ","); got != "li,li,li" {
		t.Fatalf("ul children = %s, want li,li,li", got)
	}
	if got := strings.Join(childTags(root, "body"), ","); got != "ul,p,p" {
		t.Fatalf("body children = %s, want ul,p,p", got)
	}
	for i, n := range nodes {
		if int(n.id) != i {
			t.Fatalf("node %d has id %d", i, n.id)
		}
		if n.Parent != nil && n.depth != n.Parent.depth+1 {
			t.Fatalf("node %d depth %d under parent depth %d", i, n.depth, n.Parent.depth)
		}
	}
	// Tag names are interned: two <li> share one string header.
	if ClassOf("li") != ClassSchema || ClassOf("p") != ClassFormat || ClassOf("img") != ClassFunction || ClassOf("x-card") != ClassNone {
		t.Fatal("tag classes wrong")
	}
}

func TestTreeTextMerged(t *testing.T) {
	// "a < b" makes the tokenizer return text in more than one piece;
	// the tree keeps one text node per run of text.
	doc := "<p>a < b <<< c</p>"
	root, _ := buildTree([]byte(doc))
	var p *Node
	for _, c := range root.Children {
		if c.Tag == "p" {
			p = c
		}
	}
	if p == nil || len(p.Children) != 1 || p.Children[0].Kind != TextNode {
		t.Fatalf("want <p> with one text child, got %+v", p)
	}
	if got := doc[p.Children[0].Start:p.Children[0].End]; got != "a < b <<< c" {
		t.Fatalf("text = %q", got)
	}
}

// TestTreeDeepNesting: 100k nested elements build in bounded time with a
// bounded tree depth, and the partition still reassembles.
func TestTreeDeepNesting(t *testing.T) {
	for _, tag := range []string{"div", "span", "table", "li", "b"} {
		doc := []byte(strings.Repeat("<"+tag+">", 100000) + "deep text here" + strings.Repeat("</"+tag+">", 100000))
		start := time.Now()
		res, err := Partition(doc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		maxDepth := int16(0)
		for _, n := range res.nodes {
			maxDepth = max(maxDepth, n.depth)
		}
		if maxDepth > maxTreeDepth+1 {
			t.Fatalf("<%s>: tree depth %d exceeds the bound %d", tag, maxDepth, maxTreeDepth)
		}
		ptCheckInvariants(t, doc, res)
		if d := time.Since(start); d > 20*time.Second {
			t.Fatalf("<%s>: 100k nesting took %v", tag, d)
		}
	}
}

// TestTreeStrayEndTagFlood: many stray or barrier-blocked end tags stay
// linear.
func TestTreeStrayEndTagFlood(t *testing.T) {
	doc := []byte("<table><tr><td>" + strings.Repeat("<span>", 200) + strings.Repeat("</div>", 200000) + "x")
	doc = append([]byte("<div>"), doc...)
	start := time.Now()
	res, err := Partition(doc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ptCheckInvariants(t, doc, res)
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("stray end tags took %v", d)
	}
}

func TestTreeUnfinishedTagAtEOF(t *testing.T) {
	doc := []byte("<div><p>hello world</p><a href='x")
	res, err := Partition(doc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ptCheckInvariants(t, doc, res)
	if !bytes.HasSuffix(res.Layout.Gaps[len(res.Layout.Gaps)-1], []byte("<a href='x")) {
		t.Fatalf("unfinished tag should end the layout, got gaps %q", res.Layout.Gaps)
	}
}

// TestTreeBuilderReuse checks that a builder kept for the next page (as
// a Partitioner keeps one) builds the same tree as a fresh one, and
// that between pages it holds nothing of the last one: no document, no
// node in its stacks' backing arrays, no open-element counts.
func TestTreeBuilderReuse(t *testing.T) {
	docs := [][]byte{
		[]byte("<html><head><title>t</title></head><body><div class=a id=b><p>x<p>y</div><svg><g/></svg><custom-el k=v>z"),
		[]byte("<ul><li>a<li>b</ul><table><tr><td>1<td>2</table><a href=x>l</a><x-y><x-y>deep"),
	}
	for _, name := range testPageNames(t) {
		docs = append(docs, testPage(t, name))
	}
	var b treeBuilder
	for _, doc := range docs {
		_, got := b.build(doc)
		_, want := buildTree(doc)
		if len(got) != len(want) {
			t.Fatalf("reused builder: %d nodes, fresh: %d", len(got), len(want))
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.Kind != w.Kind || g.Tag != w.Tag || g.Start != w.Start || g.End != w.End || g.depth != w.depth ||
				len(g.Children) != len(w.Children) || fmt.Sprint(g.Attrs) != fmt.Sprint(w.Attrs) ||
				(g.Parent == nil) != (w.Parent == nil) || g.Parent != nil && g.Parent.id != w.Parent.id {
				t.Fatalf("node %d: reused builder %+v, fresh %+v", i, g, w)
			}
		}
		if b.doc != nil || b.nodes != nil || b.slab != nil || b.attrSlab != nil || len(b.pending) != 0 || len(b.openOther) != 0 {
			t.Fatal("builder keeps the last page")
		}
		for _, n := range append(b.stack[:cap(b.stack)], b.last[:cap(b.last)]...) {
			if n != nil {
				t.Fatal("builder's stacks keep a node of the last page")
			}
		}
		if b.openKnown != [len(b.openKnown)]int32{} || b.foreign != 0 {
			t.Fatal("builder keeps open-element counts")
		}
	}
}
