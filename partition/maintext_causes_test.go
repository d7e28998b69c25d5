package partition

import (
	"strings"
	"testing"
)

// Issue 35: causes of main-text errors on pages nobody here had looked
// at. Each case is a made-up page that shows one cause: what must be
// kept and what must not be.

// sentences returns n made-up sentences about a harbour, each with a
// comma, numbered so no two are the same.
func sentences(topic string, n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(topic)
		b.WriteString(" number ")
		b.WriteString(strings.Repeat("i", i+1))
		b.WriteString(" was built in the spring, and the town paid for it with a loan. ")
	}
	return b.String()
}

func checkMainText(t *testing.T, page string, keep, drop []string) {
	t.Helper()
	checkExtracted(t, MainTextWithTitle, page, keep, drop)
}

// checkExtracted checks what extract makes of page: each of keep in it,
// none of drop.
func checkExtracted(t *testing.T, extract func(*Result) string, page string, keep, drop []string) {
	t.Helper()
	got := extract(partitionString(t, page, Options{}))
	for _, k := range keep {
		if !strings.Contains(got, k) {
			t.Errorf("%q missing from %q", k, got)
		}
	}
	for _, d := range drop {
		if strings.Contains(got, d) {
			t.Errorf("%q kept in %q", d, got)
		}
	}
}

// A class name holding "text" as part of a longer word (a poll box, a
// subhead box) is not a content name.
func TestMainTextNameInsideWord(t *testing.T) {
	page := `<html><body><div id="x1"><p>` + sentences("The pier", 2) + `</p><p>` + sentences("The quay", 2) + `</p><p>` + sentences("The dock", 2) + `</p></div>` +
		`<div class="polltext"><p>Should the town build another pier next year?</p><p>Vote now and see what your neighbours think of it.</p></div></body></html>`
	checkMainText(t, page, []string{"The pier number i was built"}, []string{"Should the town build", "Vote now"})
}

// An article set as one cell of <br><br>-separated paragraphs is many
// paragraphs, not one: it outscores a column of one-line comments.
func TestMainTextBreakParagraphs(t *testing.T) {
	var cell strings.Builder
	for i := range 6 {
		if i > 0 {
			cell.WriteString("<br>\n<br>")
		}
		cell.WriteString("Paragraph " + strings.Repeat("I", i+1) + " tells how the harbour wall was rebuilt in stone after the storm of the winter before last and what it cost the town")
	}
	var comments strings.Builder
	for i := range 8 {
		comments.WriteString(`<div class="c"><p>Reader ` + strings.Repeat("x", i+1) + ` says this was a fine piece of work</p></div>`)
	}
	page := `<html><body><table><tr><td class="cell">` + cell.String() + `</td></tr></table><div class="thread">` + comments.String() + `</div></body></html>`
	checkMainText(t, page, []string{"Paragraph I tells how", "Paragraph IIIIII tells how"}, []string{"Reader x says"})
}

// Text inside nested inline tags counts once, not once per tag.
func TestMainTextNestedInline(t *testing.T) {
	article := `<div class="w"><div id="x2"><p>` + sentences("The pier", 2) + `</p><p>` + sentences("The quay", 2) + `</p><p>` + sentences("The dock", 2) + `</p></div></div>`
	blurb := `<div><div><font><font><font>About the town: a small place by the sea, with a harbour, a market, a school, a church and a mill, and a ferry twice a day in summer, since the old bridge fell. It has a museum of the sea as well, open on weekdays from nine until five in the evening, and on Saturdays in the summer months.</font></font></font></div></div>`
	checkMainText(t, `<html><body>`+article+blurb+`</body></html>`, []string{"The pier number i was built"}, []string{"About the town"})
}

// A paywall container holds the rest of the article: it is not pruned
// for its name.
func TestMainTextPaywall(t *testing.T) {
	page := articlePageHTML(`<div class="paywall"><p>` + sentences("The ferry", 3) + `</p><p>` + sentences("The lighthouse", 3) + `</p></div>`)
	checkMainText(t, page, []string{"The ferry number i", "The lighthouse number iii"}, nil)
}

// Loose text directly in a div scores the div itself, as a paragraph
// wrapped in it would: the div, not the wrapper around it and its
// neighbours, is the content.
func TestMainTextLooseText(t *testing.T) {
	page := `<html><body><div class="wrap"><div class="a">` + sentences("The pier", 4) + `<h2>The quay</h2>` + sentences("The quay", 4) + `</div>` +
		`<div class="b"><p>Sign up for the weekly harbour letter today</p></div><div class="d"><p>Tide tables for the coming week</p></div></div></body></html>`
	checkMainText(t, page, []string{"The pier number i was", "The quay number iiii"}, []string{"harbour letter", "Tide tables"})
}

// A list of teasers (a linked headline and an excerpt each: "More in
// …") after the article is not article text, even when each teaser is
// marked up as a post, and does not widen the choice to its wrapper.
func TestMainTextTeaserList(t *testing.T) {
	teaser := func(n int) string {
		return `<article class="post"><h3><a href="/story` + strings.Repeat("x", n) + `">Another story number ` + strings.Repeat("I", n) + ` from the coast</a></h3><p>Excerpt ` + strings.Repeat("I", n) + `: the fishermen, the council, the tourists and the weather, all of it, this week.</p></article>`
	}
	page := `<html><body><article class="post"><h1>Pier reopens</h1><div class="inner"><p>` + sentences("The pier", 3) + `</p><p>` + sentences("The quay", 3) + `</p><p>` + sentences("The dock", 3) + `</p><p>` + sentences("The wall", 3) + `</p></div>` +
		`<section><h2>More in Coast</h2>` + teaser(1) + teaser(2) + teaser(3) + teaser(4) + `</section></article></body></html>`
	checkMainText(t, page, []string{"The pier number i was", "The quay number iii"}, []string{"More in Coast", "Another story", "Excerpt I"})
}

// A <title> that is never closed would make the rest of the page title
// text (HTML5); the page is read as if it ended at the first tag.
func TestMainTextUnclosedTitle(t *testing.T) {
	page := `<html><head><title>Pier reopens</head><body><div><p>` + sentences("The pier", 3) + `</p><p>` + sentences("The quay", 3) + `</p></div></body></html>`
	checkMainText(t, page, []string{"The pier number i was", "The quay number iii"}, nil)
}

// An article set as a run of content elements of one class (a CMS's
// "textmedia" element, a name holding "media"), with an ad inside the
// first: the other elements' paragraphs are article text like the
// core's, since their name is the one that holds the core. A box with another
// name holding "media" beside it is still pruned.
func TestMainTextSharedElementName(t *testing.T) {
	elem := func(body string) string {
		return `<section class="ce ce-textmedia"><div class="ce-bodytext">` + body + `</div></section>`
	}
	ad := `<ins class="x"><a href="https://ads.example/click"><img src="banner.jpg" alt=""></a></ins>`
	page := `<html><body><h1>Pier reopens</h1><section class="content">` +
		elem(`<p>`+sentences("The opening", 2)+`</p>`+ad) +
		elem(`<p>`+sentences("The pier", 3)+`</p><p>`+sentences("The quay", 3)+`</p><p>`+sentences("The dock", 3)+`</p>`) +
		elem(`<p>`+sentences("The wall", 3)+`</p><p>`+sentences("The ferry", 2)+`</p>`) +
		`<div class="social-media-box"><p>Follow the harbour office on every network, for photos and news.</p></div>` +
		`</section></body></html>`
	checkMainText(t, page, []string{"The opening number i was built", "The dock number iii", "The ferry number ii"}, []string{"Follow the harbour office"})
}

// The same with a page builder's widgets, each class naming the element
// by an id of its own besides its kind ("widget" a boilerplate name):
// the widgets of the core's kind are article text, a widget of another
// kind is not.
func TestMainTextSharedWidgetKind(t *testing.T) {
	widget := func(id, kind, body string) string {
		return `<div class="pb-element pb-element-` + id + ` pb-widget pb-widget-` + kind + `"><div class="pb-widget-container"><div class="pb-text-editor">` + body + `</div></div></div>`
	}
	page := `<html><body><h1>About the harbour</h1><div class="pb-widget-wrap">` +
		widget("0a1f", "text-editor", `<p>`+sentences("The founding", 3)+`</p>`) +
		widget("7c2e", "text-editor", `<p>`+sentences("The pier", 3)+`</p><p>`+sentences("The quay", 3)+`</p><p>`+sentences("The dock", 3)+`</p>`) +
		widget("9d4b", "text-editor", `<p>`+sentences("The book", 3)+`</p>`) +
		widget("3e8a", "share-buttons", `<p>Share this page with your friends, on any network you like.</p>`) +
		`</div></body></html>`
	checkMainText(t, page, []string{"The founding number ii was built", "The dock number iii", "The book number ii"}, []string{"Share this page"})
}
