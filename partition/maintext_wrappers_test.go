package partition

import (
	"strings"
	"testing"
)

// Issue 35, sixth round: causes found on the tune half of trafilatura's
// evaluation (blockwarc-compare -snippets -tune-pages), each a made-up
// page written from the cause.

// articleParas is an article's worth of paragraphs (well over
// minMainRunes), each a sentence a test can look for.
func articleParas(n int) string { return parasFrom(0, n) }

// parasFrom is n paragraphs "Paragraph x of the story…", x from the
// from-th letter.
func parasFrom(from, n int) string {
	var b strings.Builder
	for i := from; i < from+n; i++ {
		b.WriteString("<p>Paragraph ")
		b.WriteByte(byte('a' + i))
		b.WriteString(" of the story, with words enough to be read as prose, a comma, and a full stop at its end.</p>\n")
	}
	return b.String()
}

// A wrapper around the whole page whose name says boilerplate
// (div.above-footer, a <footer> holding the page) is not a region: the
// article inside it votes, and a notice box outside it does not win.
func TestUnlikelyWrapperOfThePage(t *testing.T) {
	// The notice holds a main text's worth (minMainRunes) on its own,
	// so that no retry without the name rules rescues the article.
	notice := `<section class="disclosure-body"><p>Many of the offers on this site come from companies that pay us, which may change where and how they appear, and in what order; see our policy page.</p>` +
		`<p>Opinions here are the author's alone, not those of any bank, issuer, airline or hotel chain, and have not been reviewed, approved or otherwise endorsed by any of them.</p></section>`
	for _, tc := range []struct{ name, open, close string }{
		{"named wrapper", `<div class="above-footer">`, `</div>`},
		{"footer element as wrapper", `<footer class="page">`, `</footer>`},
	} {
		page := `<html><body>` + notice + tc.open +
			`<div class="post-content"><h1>Headline</h1><div class="article-body">` + articleParas(8) + `</div></div>` +
			`<div class="site-footer"><p>Copyright and the address of the company.</p></div>` + tc.close + `</body></html>`
		got := MainText(partitionString(t, page, Options{}))
		if !strings.Contains(got, "Paragraph a of the story") || !strings.Contains(got, "Paragraph h of the story") {
			t.Errorf("%s: the article is missing: %q", tc.name, got)
		}
		if strings.Contains(got, "Many of the offers") {
			t.Errorf("%s: the notice box was taken: %q", tc.name, got)
		}
	}
	// A region so named that holds less than half of the page's text
	// still does not vote: the article beside a long footer wins.
	page := `<html><body><div class="article-body">` + articleParas(8) + `</div>` +
		`<div class="site-footer"><p>` + strings.Repeat("Footer sentence about the company, its offices, and its people. ", 6) + `</p></div></body></html>`
	got := MainText(partitionString(t, page, Options{}))
	if strings.Contains(got, "Footer sentence") || !strings.Contains(got, "Paragraph a of the story") {
		t.Errorf("a footer beside the article: %q", got)
	}
}

// A page whose script writes its text from a template, with a
// <noscript> copy for browsers without scripts (and a noscript style
// that shows what the script would have shown): the page is read as a
// browser without scripts shows it, when it shows almost nothing
// otherwise.
func TestNoscriptCopyOfAScriptedPage(t *testing.T) {
	body := `<div class="post-body"><script type="text/template">` + articleParas(6) + `</script><noscript>` + articleParas(6) + `</noscript></div>`
	for _, tc := range []struct{ name, head, open string }{
		{"noscript copy", ``, `<div>`},
		{"noscript copy in a wrapper the noscript style shows", `<style>.loading{visibility:hidden}</style><noscript><style>.loading{visibility:visible}</style></noscript>`, `<div class="wrapper loading">`},
	} {
		page := `<html><head>` + tc.head + `</head><body><div class="header"><h2>Site name</h2><p>The site's tag line.</p></div>` + tc.open + body + `</div></body></html>`
		res := partitionString(t, page, Options{})
		if strings.Contains(VisibleText(res), "Paragraph a") {
			t.Fatalf("%s: the page shows the article already; the test needs a page that does not", tc.name)
		}
		got := MainText(res)
		if strings.Count(got, "Paragraph a of the story") != 1 || !strings.Contains(got, "Paragraph f of the story") {
			t.Errorf("%s: main text %q", tc.name, got)
		}
	}
	// A page with text of its own keeps its noscript hidden (a
	// "please enable JavaScript" note, a tracking pixel).
	page := `<html><body><div class="article">` + articleParas(6) + `</div><noscript><p>Please enable JavaScript to see the comments of this page, written by readers.</p></noscript></body></html>`
	if got := MainText(partitionString(t, page, Options{})); strings.Contains(got, "enable JavaScript") {
		t.Errorf("a page with its own text took its noscript: %q", got)
	}
}

// Ruby annotations: the reading (rt) set above a kanji and the
// fallback brackets (rp) are not text of the sentence.
func TestRubyAnnotationsNotText(t *testing.T) {
	page := `<html><body><p>子どもへの<ruby>虐待<rp>(</rp><rt>ぎゃくたい</rt><rp>)</rp></ruby>をなくすための<ruby>法律<rt>ほうりつ</rt></ruby>ができました。</p></body></html>`
	got := VisibleText(partitionString(t, page, Options{}))
	if !strings.Contains(got, "子どもへの虐待をなくすための法律ができました。") {
		t.Errorf("visible text %q, want the base text alone", got)
	}
	for _, w := range []string{"ぎゃくたい", "ほうりつ", "("} {
		if strings.Contains(got, w) {
			t.Errorf("visible text %q holds %q", got, w)
		}
	}
}

// "hidden" as a part of a layout name says nothing of the element:
// Drupal writes field--label-hidden on every text field (its label is
// hidden, not its text), so each section of a page so built is a
// field; none of them is boilerplate.
func TestHiddenLabelNameIsContent(t *testing.T) {
	section := func(name, text string) string {
		return `<div class="paragraph paragraph--type--text"><div class="field field--name-field-text field--label-hidden field__item"><h2>` + name + `</h2><p>` + text + `</p></div></div>`
	}
	page := `<html><body><nav><a href="/">Home</a> <a href="/about">About</a></nav><article class="page"><div class="content">` +
		`<div class="field field--name-field-intro field--label-hidden field__item">` + articleParas(6) + `</div>` +
		section("Membership", "Members hold a vote at the general assembly, one each, whatever their share, and elect the board for two years.") +
		section("History", "The voice lab was founded in 1995 and began with telephone services for local participation in Vienna.") +
		`</div></article><footer><p>Imprint and the address.</p></footer></body></html>`
	got := MainText(partitionString(t, page, Options{}))
	for _, w := range []string{"Paragraph a of the story", "Members hold a vote", "The voice lab was founded in 1995"} {
		if !strings.Contains(got, w) {
			t.Errorf("%q missing from %q", w, got)
		}
	}
	// A box named hidden, whole, is still boilerplate.
	page = `<html><body><div class="story">` + articleParas(6) + `<div class="hidden"><p>Text of a box the page keeps hidden until a click, with words.</p></div></div></body></html>`
	if got := MainText(partitionString(t, page, Options{})); strings.Contains(got, "until a click") {
		t.Errorf("a box named hidden was kept: %q", got)
	}
}

// An element holding the run's core is never pruned by its name, tag
// or links: the article the scores chose is inside it. TYPO3 wraps the
// text of an article in "ce ce--textmedia" elements ("media" is a
// boilerplate name); once the extraction widens above one, the wrapper
// took the core with it.
func TestWrapperOfTheCoreKept(t *testing.T) {
	page := `<html><body><nav><a href="/">Home</a></nav><main><div class="grid">` +
		`<div class="ce ce--text"><div class="rte-wrapper">` + parasFrom(0, 4) + `</div></div>` +
		`<div class="ce ce--textmedia"><div class="rte-wrapper">` + parasFrom(4, 6) + `</div></div>` +
		`</div></main></body></html>`
	got := MainText(partitionString(t, page, Options{}))
	for _, w := range []string{"Paragraph a of the story", "Paragraph e of the story", "Paragraph j of the story"} {
		if !strings.Contains(got, w) {
			t.Errorf("%q missing from %q", w, got)
		}
	}
}
