package partition

import (
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// foreignDoc writes a random page mixing HTML with SVG and MathML the
// way pages do (icons with <title/> and <style>, an integration point
// holding HTML, an unclosed <svg>, <svg/>), in shapes both this tree
// builder and HTML5's agree on outside foreign content: blocks and
// inline elements properly nested, no formatting elements to
// reconstruct, no tables.
func foreignDoc(r *rand.Rand) string {
	var b strings.Builder
	var html func(depth int)
	var svg func(depth int, closeIt bool)
	text := func() {
		b.WriteString([]string{"words ", "a &amp; b ", "x &lt; y ", "more text "}[r.IntN(4)])
	}
	svg = func(depth int, closeIt bool) {
		switch r.IntN(3) {
		case 0:
			b.WriteString("<svg/>")
			return
		case 1:
			b.WriteString(`<svg viewBox="0 0 9 9">`)
		default:
			b.WriteString("<math>")
			for n := r.IntN(3); n > 0; n-- {
				switch r.IntN(3) {
				case 0:
					b.WriteString("<mi>x</mi>")
				case 1:
					b.WriteString("<mi><span>in mi</span></mi>")
				default:
					b.WriteString("<mo/>")
				}
			}
			b.WriteString("</math>")
			return
		}
		for n := r.IntN(4); n > 0; n-- {
			switch r.IntN(8) {
			case 0:
				b.WriteString("<title/>")
			case 1:
				b.WriteString("<title>icon <b>bold</b></title>")
			case 2:
				b.WriteString("<style>.a<b{fill:red}</style>")
			case 3:
				b.WriteString(`<path d="M0 0"/>`)
			case 4:
				b.WriteString("<g>")
				if depth < 3 {
					svg(depth+1, true)
				}
				b.WriteString("</g>")
			case 5:
				b.WriteString("<foreignObject><div>")
				if depth < 3 {
					html(depth + 1)
				}
				b.WriteString("</div></foreignObject>")
			case 6:
				b.WriteString("<desc><style>p<i>{}</style></desc>")
			default:
				b.WriteString("<script>if (a<b) {}</script>")
			}
		}
		if closeIt {
			b.WriteString("</svg>")
		}
	}
	html = func(depth int) {
		for n := 1 + r.IntN(4); n > 0; n-- {
			switch r.IntN(7) {
			case 0, 1:
				text()
			case 2:
				b.WriteString("<p>")
				text()
				b.WriteString("<span>")
				text()
				b.WriteString("</span></p>")
			case 3:
				b.WriteString("<div>")
				if depth < 4 {
					html(depth + 1)
				}
				b.WriteString("</div>")
			case 4:
				b.WriteString(`<a href="/">`)
				svg(depth, true)
				b.WriteString("</a>")
			case 5:
				// An unclosed <svg>, ended by the block after it.
				b.WriteString("<div>")
				svg(depth, false)
				b.WriteString("<p>after</p></div>")
			default:
				b.WriteString("<script>var s = '<p>no</p>';</script><style>p<b>{}</style>")
			}
		}
	}
	b.WriteString("<!DOCTYPE html><html><head><title>T</title></head><body>")
	html(0)
	b.WriteString("</body></html>")
	return b.String()
}

// elements lists, in document order, the element names under the body
// of x/net/html's tree (lower case: SVG's camelCase names are adjusted
// there) and the number of text characters each holds directly.
func parsedElements(t *testing.T, doc string) []string {
	root, err := html.Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(n *html.Node, in bool)
	walk = func(n *html.Node, in bool) {
		if n.Type == html.ElementNode {
			if in {
				out = append(out, strings.ToLower(n.Data)+":"+directText(n))
			}
			in = in || n.Data == "body"
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, in)
		}
	}
	walk(root, false)
	return out
}

func directText(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// builtElements is parsedElements of this package's tree.
func builtElements(t *testing.T, doc string) []string {
	res := partitionString(t, doc, Options{})
	var out []string
	var walk func(n *Node, in bool)
	walk = func(n *Node, in bool) {
		if n.Kind == ElementNode {
			if in {
				var b strings.Builder
				for _, c := range n.Children {
					if c.Kind == TextNode {
						b.WriteString(html.UnescapeString(string(res.Doc[c.Start:c.End])))
					}
				}
				out = append(out, n.Tag+":"+strings.Join(strings.Fields(b.String()), " "))
			}
			in = in || n.Tag == "body"
		}
		for _, c := range n.Children {
			walk(c, in)
		}
	}
	walk(res.Root, false)
	return out
}

// The tree's elements and their text under <body> are HTML5's (x/net/
// html's parser) on pages mixing SVG and MathML with HTML: no raw text
// in foreign content, self-closing tags there and for <svg/>, breakout
// of an unclosed <svg>, HTML inside integration points.
func TestForeignContentAsHTML5(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 5))
	for i := range 3000 {
		doc := foreignDoc(r)
		want, got := parsedElements(t, doc), builtElements(t, doc)
		if strings.Join(want, "|") != strings.Join(got, "|") {
			t.Fatalf("page %d %q:\n got %q\nwant %q", i, doc, got, want)
		}
	}
}
