package partition

import (
	"fmt"
	"strings"
	"testing"
)

// TestLabelsPageContext: the labels that depend on where a block sits or
// what its heading is, each with the case that must not match — the
// general causes of the labelled set's wrong labels (footer columns and
// fine print, an article's head, teaser cards in a sidebar, a header menu
// with a search box, a header menu past the middle of the page's bytes, a
// breadcrumb trail ending in a long title).
func TestLabelsPageContext(t *testing.T) {
	long := strings.Repeat("Plain sentence of the article body with words. ", 6)
	fine := strings.Repeat("The information on this site is not advice and may change. ", 3)
	excerpt := "An excerpt of the other story that runs on for a while, long enough to read as a paragraph of text, with no more links in it at all, as teaser cards are written. "
	menu := `<a href=/a>Tech</a> <a href=/b>Cars</a> <a href=/c>Games</a> <a href=/d>Science</a> <a href=/e>Reviews</a> <a href=/f>Columns</a>`
	page := func(body string) string { return `<body><main><p>` + long + long + `</p></main>` + body + `</body>` }
	head := func(body string) string { return `<body>` + body + `<main><p>` + long + long + `</p></main></body>` }
	// A long head puts the top of the body past the middle of the bytes.
	bigHead := func(body string) string {
		return `<head><style>` + strings.Repeat(".rule{color:red}\n", 800) + `</style></head>` + body
	}
	for _, c := range []struct {
		name, doc, id string
		want          Label
	}{
		{"footer column heading", page(`<div id=footer-wrapper><div class=col><h3 id=x>Site information</h3><a href=/about>About</a></div></div>`), "x", LabelFooter},
		{"footer fine print", page(`<footer><div class=row><div id=x>` + fine + `</div></div></footer>`), "x", LabelFooter},
		{"footer link column", page(`<footer><div id=x>` + menu + `</div></footer>`), "x", LabelNavigation},
		{"article's own footer", `<body><article><p>` + long + `</p><footer><div id=x>` + fine + `</div></footer></article></body>`, "x", LabelContent},
		{"footer of a card in the footer", page(`<footer><article><div id=x>` + fine + `</div></article></footer>`), "x", LabelContent},
		{"article's foot by name", page(`<div class=post-footer id=x>Tags: <a href=/t/a>news</a> <a href=/t/b>sport</a> <a href=/t/c>world</a></div>`), "x", LabelRelatedLinks},
		{"article head", page(`<div id=x><a href=/space>Space</a> / <a href=/impact>Impact</a><h1>The commercial moon shot: two firms bid to build the lunar lander</h1><p>By Laura Winter, 19 Nov 2019, updated 20 Nov 2019 at 9:08 GMT, with reporting from the agencies</p></div>`), "x", LabelTitle},
		{"h1 with its article", page(`<div id=x><h1>Title</h1><p>` + long + long + `</p></div>`), "x", LabelContent},
		{"teaser in an aside", page(`<aside><article id=x><a href=/other-story><img src=t.jpg><h3>Another story</h3></a><p>` + excerpt + `</p></article></aside>`), "x", LabelRelatedLinks},
		{"teaser by role", page(`<div role=complementary><div id=x><h3><a href=/other>Another story</a></h3><p>` + excerpt + `</p></div></div>`), "x", LabelRelatedLinks},
		{"section link in an aside", page(`<aside><div id=x><h3><a href=#more>More on this</a></h3><p>` + excerpt + `</p></div></aside>`), "x", LabelContent},
		{"card outside an aside", page(`<div><article id=x><a href=/other-story><h3>Another story</h3></a><p>` + excerpt + `</p></article></div>`), "x", LabelContent},
		{"menu with a search box", head(`<div id=x>` + menu + `<form action=/s><input name=q></form></div>`), "x", LabelNavigation},
		{"menu with a search box, low on the page", page(`<div id=x>` + menu + `<form action=/s><input name=q></form></div>`), "x", LabelNavigation},
		{"search form with a link", page(`<form id=x action=/s><input name=q><input type=submit> <a href=/help>Help</a></form>`), "x", LabelForm},
		{"figure and caption", page(`<figure id=x><img src=moon.jpg alt=""><figcaption>` + excerpt + `</figcaption></figure>`), "x", LabelMedia},
		{"figure of text", page(`<figure id=x><blockquote>` + long + long + `</blockquote><figcaption>A. Writer</figcaption></figure>`), "x", LabelContent},
		{"menu in the page's banner, low in bytes", bigHead(head(`<header id=x>` + menu + `</header>`)), "x", LabelNavigation},
		{"menu by role banner, low in bytes", bigHead(head(`<div role=banner id=x>` + menu + `</div>`)), "x", LabelNavigation},
		{"link list low in bytes, no banner", bigHead(head(`<div id=x>` + menu + `</div>`)), "x", LabelRelatedLinks},
		{"breadcrumb trail", head(`<div id=x class=breadcrumb-list><a href=/>Home</a> <a href=/world>World</a> Impeachment inquiry completely debunked, the White House says</div>`), "x", LabelNavigation},
	} {
		res := partitionString(t, c.doc, Options{})
		b := blockOfNode(res, func(n *Node, _ string, _ Features) bool { return n.Attr("id") == c.id })
		if b == nil {
			t.Errorf("%s: no #%s", c.name, c.id)
			continue
		}
		if b.Label != c.want {
			t.Errorf("%s: label %s, want %s (text %q)", c.name, b.Label, c.want, b.Text)
		}
	}
}

// A shop's product grid, each card with its own "add to basket" form, is
// a list of items, not a form; a sign-up form among links stays a form.
func TestLabelItemCards(t *testing.T) {
	card := func(i int) string {
		return fmt.Sprintf(`<article><a href=/p%d><img src=p%d.jpg alt=""></a><h3><a href=/p%d>Book number %d</a></h3><p>£%d.99</p><p>In stock</p><form action=/basket method=post><button type=submit>Add to basket</button></form></article>`, i, i, i, i, 10+i)
	}
	grid := `<div id=x>`
	for i := range 6 {
		grid += card(i)
	}
	grid += `</div>`
	body := `<body><header><a href=/>Shop</a></header><main><h1>Books</h1>` + grid + `</main><footer>Copyright 2024 Shop Ltd</footer></body>`
	res := partitionString(t, body, Options{})
	b := blockOfNode(res, func(n *Node, _ string, _ Features) bool { return n.Attr("id") == "x" })
	if b == nil || b.Label == LabelForm {
		t.Errorf("product grid: %v, want not a form", b)
	}
	signup := `<body><main><p>` + strings.Repeat("Text of the page. ", 20) + `</p></main><div id=y><form action=/s><input name=email><input name=name><button>Sign up</button></form><a href=/privacy>Privacy</a></div></body>`
	res = partitionString(t, signup, Options{})
	if b := blockOfNode(res, func(n *Node, _ string, _ Features) bool { return n.Attr("id") == "y" }); b == nil || b.Label != LabelForm {
		t.Errorf("sign-up form: %v, want form", b)
	}
}

// A form element with no field or button is not a form a reader fills in.
func TestLabelFormWithoutFields(t *testing.T) {
	body := `<body><main><p>` + strings.Repeat("Text of the page. ", 20) + `</p></main><form id=x action=/list>1000 results - showing 1 to 20.</form><div id=y><form action=/s><input name=q><button>Search</button></form></div></body>`
	res := partitionString(t, body, Options{})
	if b := blockOfNode(res, func(n *Node, _ string, _ Features) bool { return n.Attr("id") == "x" }); b == nil || b.Label == LabelForm {
		t.Errorf("form of text only: %v, want not a form", b)
	}
	if b := blockOfNode(res, func(n *Node, _ string, _ Features) bool { return n.Attr("id") == "y" }); b == nil || b.Label != LabelForm {
		t.Errorf("search form: %v, want form", b)
	}
}
