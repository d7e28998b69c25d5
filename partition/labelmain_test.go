package partition

import (
	"strings"
	"testing"
)

// relabelPage is an article page: a head with the h1, a standfirst and a
// byline (over maxTitleBlock characters), the body, an aside with an
// "about me" box of plain sentences and a teaser of another article, and
// a comment thread with its heading and a comment.
func relabelPage() string {
	para := func(i int) string {
		return "<p>The council voted on the new budget in paragraph " + strings.Repeat("x", i%3) +
			", which, as the mayor said, will fund schools, roads and the library for another year, and the debate went on late into the night.</p>"
	}
	var body strings.Builder
	for i := range 8 {
		body.WriteString(para(i))
		if i == 3 {
			body.WriteString("<div>The meeting ended at two after six hours.</div>")
		}
	}
	return `<!DOCTYPE html><html><head><title>Council passes budget</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a> <a href="/culture">Culture</a> <a href="/about">About</a></nav>
<div class="layout">
<header class="head-of-story"><span>Local politics</span><h1>Council passes the budget after a long night of debate</h1>
<div>The vote ends a month of arguments between the mayor and the opposition over the cost of schools, roads and the new library, and opens a year of work for every department of the town hall.</div>
<div>By Jane Reporter, city hall correspondent. Published on the nineteenth of November, updated at six in the morning.</div></header>
<div class="story">` + body.String() + `</div>
<aside class="bio"><div>About me. I am a reporter who has covered this town for twenty years and I like long walks by the river with my dog.</div></aside>
<div class="teaser"><a href="/other">Schools across the town get new roofs before the winter</a> Work on the roofs of four schools starts next week, the council says.</div>
<div id="comments"><section><h3>Leave a Reply to this story</h3></section>
<section><p>I think the budget is far too generous to the roads department and the library could have waited another year, frankly.</p></section>
<section><p>The roads have needed the money for years: anyone who drives down the high street in winter knows that well, I would say.</p></section></div>
</div></body></html>`
}

func leafWith(t *testing.T, res *Result, words string) *Block {
	t.Helper()
	for _, l := range res.Leaves {
		if strings.Contains(normSpace(l.Text), words) {
			return l
		}
	}
	t.Fatalf("no kept block holds %q", words)
	return nil
}

// TestRelabelByMainText: labels follow the page's main text. The head
// holding the h1 is the title though longer than maxTitleBlock; a box of
// plain sentences beside the article is not content, a teaser of another
// article is a related link, and the comment thread's heading and
// comments are neither title nor content; the article's paragraphs stay
// content, and the main text is the same as the rules' labels give.
func TestRelabelByMainText(t *testing.T) {
	doc := []byte(relabelPage())
	res := mustPartition(t, doc, Options{})
	for _, c := range []struct {
		words string
		want  []Label
	}{
		{"Council passes the budget after", []Label{LabelTitle}},
		{"The council voted on the new budget", []Label{LabelContent}},
		{"The meeting ended at two", []Label{LabelContent}},
		{"About me. I am a reporter", []Label{LabelOther}},
		{"Schools across the town", []Label{LabelRelatedLinks}},
		{"Leave a Reply to this story", []Label{LabelOther}},
		{"far too generous to the roads", []Label{LabelOther}},
	} {
		l := leafWith(t, res, c.words)
		if !containsLabel(c.want, l.Label) {
			t.Errorf("block %q (<%s class=%q>, %d chars): label %s, want %v", c.words, l.Tag, l.Class, l.Features.TextLen, l.Label, c.want)
		}
	}
	main := MainText(res)
	if !strings.Contains(main, "The council voted") || strings.Contains(main, "About me") || strings.Contains(main, "far too generous") {
		t.Errorf("main text moved with the labels: %q", main)
	}
}

func containsLabel(ls []Label, l Label) bool {
	for _, x := range ls {
		if x == l {
			return true
		}
	}
	return false
}

// A headline that links to the page itself (a permalink, its canonical
// address) is the page's title though its block is mostly link text; a
// headline linking elsewhere is not.
func TestRelabelSelfLinkedHeadline(t *testing.T) {
	page := func(href string) []byte {
		return []byte(strings.Replace(relabelPage(),
			`<header class="head-of-story"><span>Local politics</span><h1>Council passes the budget after a long night of debate</h1>`,
			`<header class="head-of-story"><h1><a href="`+href+`">Council passes the budget after a long night of debate</a></h1><a href="/politics">Local politics</a> <a href="/author/jane">Jane Reporter, city hall correspondent</a>`, 1))
	}
	for _, c := range []struct {
		href  string
		title bool
	}{{"https://Example.com/2019/11/budget/#top", true}, {"https://example.com/2019/11/other-story/", false}} {
		doc := page(c.href)
		doc = []byte(strings.Replace(string(doc), "<title>", `<link rel="canonical" href="http://example.com/2019/11/budget/"><title>`, 1))
		// The head's standfirst and byline go: the head is its links.
		doc = []byte(strings.Replace(string(doc), `<div>The vote ends a month`, `<div hidden>The vote ends a month`, 1))
		doc = []byte(strings.Replace(string(doc), `<div>By Jane Reporter`, `<div hidden>By Jane Reporter`, 1))
		res := mustPartition(t, doc, Options{})
		l := leafWith(t, res, "Council passes the budget after")
		if (l.Label == LabelTitle) != c.title {
			t.Errorf("headline linking to %s: label %s (links %d, link share %.2f), want title %v", c.href, l.Label, l.Features.Links, l.Features.LinkTextRatio, c.title)
		}
	}
}
