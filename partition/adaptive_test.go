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
	// The same inside a wrapper the partition descends through: the
	// block is the named body (an id keeps it, rule 3), the paragraphs
	// are children of the wrapper inside it.
	doc := []byte(strings.Replace(strings.Replace(string(page(more)), "<div class=body>", "<div class=body id=story-body><div class=text>", 1), "</div></main>", "</div></div></main>", 1))
	res = mustPartition(t, doc, Options{})
	got = got[:0]
	for _, l := range res.Leaves {
		if strings.Contains(l.Text, "Paragraph") {
			got = append(got, fmt.Sprint(strings.Count(l.Text, "Paragraph")))
		}
	}
	if strings.Join(got, ",") != "5,5" {
		t.Fatalf("want the paragraphs in a wrapper joined as five and five, got %v (%s)", got, leafSig(res))
	}
}

// storyPage is a news template: a story (title, byline, a body of
// sections with a figure and a quote) beside a comments thread of
// comments comments.
func storyPage(comments int, long bool) []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><title>T</title></head><body><div class=top><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a></div>
<div class=wrap><div class=story><h1>Council passes the budget after a long night</h1><div class=byline>By A. Reporter, 3 May 2024</div><div class=body>`)
	paras := 12
	if long {
		paras = 48
	}
	for i := range paras {
		if i%4 == 0 {
			fmt.Fprintf(&b, "<h2>Part %d of the story</h2>", i/4)
		}
		fmt.Fprintf(&b, "<p>Paragraph %d of the story tells what the council decided, why, and what it will cost the town next year and after.</p>", i)
		if i == 5 {
			b.WriteString(`<figure><img src=a.jpg width=600 height=400><figcaption>The council chamber on Tuesday night</figcaption></figure><blockquote>We did what we had to do, said the mayor.</blockquote>`)
		}
	}
	b.WriteString(`</div></div><div class=comments><h2>Comments</h2>`)
	for i := range comments {
		fmt.Fprintf(&b, `<div class=comment><div class=who>reader%d</div><p>Comment %d: the council should have spent more of the money on the schools and less on the car park.</p></div>`, i, i)
	}
	b.WriteString(`</div></div><div class=foot>Copyright 2024 The Town Paper</div></body></html>`)
	return []byte(b.String())
}

// Issue 35: the same template cut a story holding most of the page's
// text into a block per section (or paragraph), and kept it whole when
// comments took the page's text past it. The story's body is one block
// whatever share of the page it holds.
func TestOneTextWhateverShare(t *testing.T) {
	storyBlocks := func(doc []byte) (spans []string, share float64) {
		res := mustPartition(t, doc, Options{})
		for _, l := range res.Leaves {
			if strings.Contains(l.Text, "Paragraph") {
				spans = append(spans, string(doc[l.Start:l.End]))
			}
		}
		for _, n := range res.nodes {
			if n.Kind == ElementNode && n.Attr("class") == "body" {
				share = float64(res.facts[n.id].text) / float64(res.facts[res.Root.id].text)
			}
		}
		return spans, share
	}
	few, fewShare := storyBlocks(storyPage(1, false))
	many, manyShare := storyBlocks(storyPage(30, false))
	if fewShare <= dominantShare || manyShare >= dominantShare {
		t.Fatalf("the pages should put the story's body on both sides of the dominant share: %.2f, %.2f", fewShare, manyShare)
	}
	if len(few) != 1 || len(many) != 1 {
		t.Fatalf("the story's body should be one block on both pages: %d blocks beside one comment, %d beside many", len(few), len(many))
	}
	// Beside one comment the story is most of the page and its title
	// and byline are blocks of their own (dominantShare); its body is
	// the same block.
	for _, b := range []string{few[0], many[0]} {
		if !strings.Contains(b, `<div class=body><h2>Part 0`) || !strings.Contains(b, "Paragraph 11 ") || strings.Contains(b, "Comment") {
			t.Fatalf("the story's block should hold its whole body and no comment:\n%.300s", b)
		}
	}
}

// A long text of many sections is still divided by them, and a page
// that is one long list of items splits into its items.
func TestLongListStillSplits(t *testing.T) {
	res := mustPartition(t, storyPage(1, true), Options{})
	n := 0
	for _, l := range res.Leaves {
		if strings.Contains(l.Text, "Paragraph") {
			n++
			if strings.Count(l.Text, "Paragraph") > 4 {
				t.Errorf("a block holds %d paragraphs, more than one section", strings.Count(l.Text, "Paragraph"))
			}
		}
	}
	if n != 12 {
		t.Errorf("a story of 12 sections over %d characters should be 12 section blocks, got %d: %s", maxSectionText, n, leafSig(res))
	}
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><body><header><a href="/">Home</a></header><main><h1>Deals of the day</h1>`)
	for i := range 25 {
		fmt.Fprintf(&b, `<h3>Deal %d: a kettle for less</h3><p>Item %d is a kettle at a third off its list price today, with free delivery to most of the country.</p>`, i, i)
	}
	b.WriteString(`</main><footer>Copyright</footer></body></html>`)
	res = mustPartition(t, []byte(b.String()), Options{})
	n = 0
	for _, l := range res.Leaves {
		if c := strings.Count(l.Text, "Item "); c > 1 {
			t.Fatalf("a block holds %d deals: %s", c, leafSig(res))
		} else if c == 1 {
			n++
		}
	}
	if n != 25 {
		t.Errorf("want a block per deal, got %d: %s", n, leafSig(res))
	}
}

// The page's title (h1) heading a text that holds most of the page is a
// block of its own, as it is where the title is outside the text: it is
// labelled title, not content.
func TestTitleNotInText(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><body><div class=top><a href="/">Home</a></div><div class=story><h1>Council passes the budget</h1>`)
	for i := range 6 {
		fmt.Fprintf(&b, "<p>Paragraph %d of the story tells what the council decided, why, and what it will cost the town next year.</p>", i)
	}
	b.WriteString(`</div><div class=foot>Copyright 2024 The Town Paper</div></body></html>`)
	res := mustPartition(t, []byte(b.String()), Options{})
	var got []string
	for _, l := range res.Leaves {
		if strings.Contains(l.Text, "Council") || strings.Contains(l.Text, "Paragraph") {
			got = append(got, fmt.Sprintf("%s:%d", l.Tag, strings.Count(l.Text, "Paragraph")))
		}
	}
	if strings.Join(got, " ") != "h1:0 :6" {
		t.Fatalf("want the title, then the six paragraphs as one block; got %v (%s)", got, leafSig(res))
	}
}
