package partition

// Issue 35, second round: labels of the article's neighbours on made-up
// pages, as the main text places them (labelmain.go).

import (
	"strings"
	"testing"
)

// millPage is an article page: head is put before the body's six
// paragraphs and after after them, both inside an <article class=post>.
func millPage(head, after string) string {
	var body strings.Builder
	for i := range 6 {
		body.WriteString("<p>" + prose("The mill "+strings.Repeat("w", i+1), 2, true) + "</p>")
	}
	return `<!DOCTYPE html><html><head><title>Mill reopens | Valley Post</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a> <a href="/culture">Culture</a> <a href="/about">About</a></nav>
<div class="layout"><article class="post">` + head + `<div class="body">` + body.String() + `</div>` + after + `</article></div>
<footer><p>Valley Post, Mill Lane 1, Riverside.</p></footer></body></html>`
}

// checkLabels checks the label of the kept block holding each of want's
// words.
func checkLabels(t *testing.T, page string, want map[string]Label) {
	t.Helper()
	res := mustPartition(t, []byte(page), Options{})
	for words, l := range want {
		b := leafWith(t, res, words)
		if b.Label != l {
			t.Errorf("block %q (<%s class=%q>, %d chars): label %s, want %s", words, b.Tag, b.Class, b.Features.TextLen, b.Label, l)
		}
	}
}

// The headline is an h2 under the site's h1 logo.
func TestLabelsUnseenHeadlineH2(t *testing.T) {
	page := millPage(`<h2 class="entry-title">The old mill on the river turns again after forty years</h2><div class="meta">By Ann Miller, 3 May</div>`, "")
	page = strings.Replace(page, `<div class="layout">`, `<div class="layout"><h1 class="logo"><a href="/">Valley Post</a></h1>`, 1)
	checkLabels(t, page, map[string]Label{"The old mill on the river turns": LabelTitle, "The mill w entry v": LabelContent})
}

// The headline h1 is inside the article's wrapper.
func TestLabelsUnseenHeadlineInside(t *testing.T) {
	page := millPage(`<h1>The old mill on the river turns again after forty years</h1>`, "")
	checkLabels(t, page, map[string]Label{"The old mill on the river turns": LabelTitle, "The mill w entry v": LabelContent})
}

// The headline is a div named headline.
func TestLabelsUnseenHeadlineDiv(t *testing.T) {
	page := millPage(`<div class="headline">The old mill on the river turns again after forty years</div>`, "")
	checkLabels(t, page, map[string]Label{"The old mill on the river turns": LabelTitle, "The mill w entry v": LabelContent})
}

// Teasers of related posts after the article's body, each an
// <article class=post> of a linked heading and an excerpt: related
// links, not titles (the rules call a short block with a heading one),
// and not joined to the main text as siblings of the body.
func TestLabelsUnseenRelatedRun(t *testing.T) {
	teaser := func(n int) string {
		return `<article class="post"><h3><a href="/r` + strings.Repeat("x", n) + `">Related mill post ` + strings.Repeat("I", n) + `</a></h3><p>Excerpt ` + strings.Repeat("I", n) + `: the miller, the baker, the river and the weather, all of it, this week.</p></article>`
	}
	page := millPage(`<h1>The old mill on the river turns again after forty years</h1>`, teaser(1)+teaser(2)+teaser(3)+teaser(4))
	checkLabels(t, page, map[string]Label{"Excerpt II": LabelRelatedLinks, "The mill w entry v": LabelContent})
	checkMainText(t, page, []string{"The mill w entry v", "The mill wwwwww entry vv"}, []string{"Related mill post", "Excerpt I"})
}
