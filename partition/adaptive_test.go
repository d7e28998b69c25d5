package partition

import (
	"fmt"
	"strings"
	"testing"
)

func leafSig(res *Result) string {
	var got []string
	for _, l := range res.Leaves {
		s := l.Path + " " + l.Tag
		if l.ID != "" {
			s += "#" + l.ID
		}
		got = append(got, s)
	}
	return strings.Join(got, ",")
}

// dividedSig lists the divided blocks: the partition's choice.
func dividedSig(res *Result) string {
	var got []string
	var walk func([]*Block)
	walk = func(bs []*Block) {
		for _, b := range bs {
			if len(b.Children) > 0 {
				got = append(got, b.Path+" "+b.Tag)
				walk(b.Children)
			}
		}
	}
	walk(res.Blocks)
	return strings.Join(got, ",")
}

// The docs-site template: a wrapper holding navbar, table of contents
// and article (most of the page) beside a footer. Level 1 keeps the
// wrapper whole; the adaptive partition divides it down to single
// regions and no further.
func TestAdaptiveDividesSeveralRegions(t *testing.T) {
	var links, body strings.Builder
	for i := range 8 {
		links.WriteString(`<li><a href="/p` + string(rune('a'+i)) + `">Chapter number ` + string(rune('a'+i)) + `</a></li>`)
	}
	for i := range 4 {
		body.WriteString(`<h2>Section ` + string(rune('a'+i)) + `</h2><p>` + strings.Repeat("Words of the article go here. ", 12) + `</p>`)
	}
	doc := []byte(`<!DOCTYPE html><html><head><title>Docs</title></head><body>
<div class="wrapper"><nav id=top><a href="/">Home</a> <a href="/about">About us</a> <a href="/blog">Our blog</a></nav>
<div class="row"><div class="toc"><ul>` + links.String() + `</ul></div>
<div class="article">` + body.String() + `</div></div></div>
<footer>Copyright 2024 Example Incorporated, all rights reserved</footer></body></html>`)
	one := mustPartition(t, doc, Options{Level: 1})
	if got := leafSig(one); got != "1 head,2 div,3 footer" {
		t.Fatalf("level 1 = %s", got)
	}
	res := mustPartition(t, doc, Options{})
	// wrapper: nav and a row (2 regions by name? no: nav only) — it holds
	// 95% of the text, so it is divided; the row holds a menu beside an
	// article; the article (most of the text) by its sections.
	want := "1 head,2.1 nav#top,2.2.1 ul,2.2.2.1 ,2.2.2.2 ,2.2.2.3 ,2.2.2.4 ,3 footer"
	if got := leafSig(res); got != want {
		t.Fatalf("adaptive = %s\nwant       %s", got, want)
	}
	if toc := res.Leaves[2]; toc.Features.Links != 8 {
		t.Errorf("the table of contents should be one block, got %d links", toc.Features.Links)
	}
}

// A block of one region is not divided however deep it goes: the header
// (a few links) stays whole, and two articles in main are two regions.
func TestAdaptiveStopsAtOneRegion(t *testing.T) {
	para := func(s string) string { return "<p>" + strings.Repeat(s+" text of the paragraph. ", 8) + "</p>" }
	doc := []byte(`<!DOCTYPE html><html><head><title>T</title></head><body>
<header><div><a href="/">Home</a> <a href="/x">Elsewhere</a></div><div><a href="/y">Yonder</a> and more words here</div></header>
<main><article id=a1>` + para("a1p1") + para("a1p2") + `</article>
<article id=a2>` + para("a2p1") + para("a2p2") + `</article></main>
<footer>Copyright 2024 Example</footer></body></html>`)
	res := mustPartition(t, doc, Options{})
	if got, want := leafSig(res), "1 head,2 header,3.1 article#a1,3.2 article#a2,4 footer"; got != want {
		t.Fatalf("adaptive = %s, want %s", got, want)
	}
}

// A URL keeps its partition while its layout holds: with the prior
// capture's partition, a capture whose text shifted the shares keeps the
// same blocks; when a kept block comes to hold several regions the
// partition is chosen afresh.
func TestAdaptivePriorPlan(t *testing.T) {
	page := func(a1, a2 int, extra string) []byte {
		return []byte(`<!DOCTYPE html><html><head><title>T</title></head><body><header>Site header with a name</header>
<main><div id=c><div class=x>` + strings.Repeat("<p><a href=/a>Alpha words of the</a> first part.</p>", a1) + `</div>
<div class=y>` + strings.Repeat("<p><a href=/b>Beta words of the</a> second part.</p>", a2) + `</div></div>` + extra + `</main>
<footer>Footer text of the page</footer></body></html>`)
	}
	first := mustPartition(t, page(2, 12, ""), Options{})
	fresh2 := mustPartition(t, page(12, 2, ""), Options{})
	if dividedSig(first) == dividedSig(fresh2) {
		t.Fatalf("test pages should partition differently when chosen afresh: %s", dividedSig(first))
	}
	kept := mustPartition(t, page(12, 2, ""), Options{Prior: first})
	if dividedSig(kept) != dividedSig(first) {
		t.Errorf("with the prior plan: %s, want the prior's %s", dividedSig(kept), dividedSig(first))
	}
	// New regions in a block the plan keeps: the layout changed.
	changed := page(12, 2, `<nav>A <a href=/a>menu</a> of links</nav><aside>An aside with words</aside>`)
	got := mustPartition(t, changed, Options{Prior: first})
	if want := mustPartition(t, changed, Options{}); dividedSig(got) != dividedSig(want) {
		t.Errorf("layout changed: %s, want the fresh choice %s", dividedSig(got), dividedSig(want))
	}
	// A fixed-level prior has no plan: chosen afresh.
	fixed := mustPartition(t, page(2, 12, ""), Options{Level: 1})
	if got := mustPartition(t, page(12, 2, ""), Options{Prior: fixed}); dividedSig(got) != dividedSig(fresh2) {
		t.Errorf("a fixed-level prior should not constrain the partition")
	}
}

// An article's body that holds most of the page's text is one text: kept
// as one block, not a block per paragraph. A list of links inside it (a
// "More in ..." box) stays a block of its own between the two runs of
// paragraphs, each one block; the header and footer are not merged in.
func TestOneTextKeptWhole(t *testing.T) {
	para := func(i int) string {
		return fmt.Sprintf("<p>Paragraph %d of the story tells what the council decided, why, and what it will cost the town next year.</p>", i)
	}
	page := func(middle string) []byte {
		var b strings.Builder
		b.WriteString(`<!DOCTYPE html><html><head><title>T</title></head><body><header><a href="/">Home</a> <a href="/news">News</a></header>
<main><h1>Council passes the budget</h1><div class=body>`)
		for i := range 10 {
			b.WriteString(para(i))
			if i == 4 {
				b.WriteString(middle)
			}
		}
		b.WriteString(`</div></main><footer>Copyright 2024 The Town Paper</footer></body></html>`)
		return []byte(b.String())
	}
	res := mustPartition(t, page(""), Options{})
	var body []*Block
	for _, l := range res.Leaves {
		if strings.Contains(l.Text, "Paragraph") {
			body = append(body, l)
		}
	}
	if len(body) != 1 || !strings.Contains(body[0].Text, "Paragraph 0") || !strings.Contains(body[0].Text, "Paragraph 9") ||
		strings.Contains(body[0].Text, "Copyright") || strings.Contains(body[0].Text, "Home") {
		t.Fatalf("the story's paragraphs should be one block without header or footer: %s", leafSig(res))
	}
	more := `<ul class=more><li><a href="/a">Schools get new roofs before winter</a></li><li><a href="/b">Bridge closed for repairs all week</a></li><li><a href="/c">Library opens on Sundays from March</a></li></ul>`
	res = mustPartition(t, page(more), Options{})
	var got []string
	for _, l := range res.Leaves {
		switch {
		case strings.Contains(l.Text, "Schools get new roofs"):
			if strings.Contains(l.Text, "Paragraph") {
				t.Fatalf("the list of links is merged into the story: %q", l.Text)
			}
			got = append(got, "list")
		case strings.Contains(l.Text, "Paragraph"):
			got = append(got, fmt.Sprintf("%d-%d", strings.Count(l.Text, "Paragraph"), len(l.Text)))
		}
	}
	if len(got) != 3 || got[1] != "list" || !strings.HasPrefix(got[0], "5-") || !strings.HasPrefix(got[2], "5-") {
		t.Fatalf("want five paragraphs, the list, five paragraphs; got %v (%s)", got, leafSig(res))
	}
}
