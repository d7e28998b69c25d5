package partition

import (
	"strings"
	"testing"
)

// Issue 35, fifth round: causes found on the tune half of trafilatura's
// evaluation (blockwarc-compare -snippets), each a made-up page written
// from the cause.

// An inline SVG icon's <title/> closes itself (foreign content): read as
// HTML's <title>, it made the rest of the page title text.
func TestForeignContentNotRawText(t *testing.T) {
	for _, tc := range []struct {
		name, page string
		want, not  []string
	}{
		{"svg title closes itself",
			`<html><body><a href="/"><svg viewBox="0 0 9 9"><title/><path d="M0 0"/></svg></a><div><p>The words of the page.</p></div></body></html>`,
			[]string{"The words of the page."}, nil},
		{"svg style holds markup, not raw text",
			`<html><body><svg><style><b>Bold in svg</b></style></svg><p>After the icon.</p></body></html>`,
			[]string{"After the icon."}, nil},
		{"self-closed svg leaves scripts raw",
			`<html><body><svg/><script>var s = "<p>not text</p>";</script><p>Real text.</p></body></html>`,
			[]string{"Real text."}, []string{"not text"}},
		{"an unclosed svg ends at a paragraph",
			`<html><body><svg><g><path d="M0 0"><p>Para text.</p><style>.a<b{color:red}</style><p>More text.</p></body></html>`,
			[]string{"Para text.", "More text."}, []string{".a", "color"}},
	} {
		got := VisibleText(partitionString(t, tc.page, Options{}))
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q missing from %q", tc.name, w, got)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(got, w) {
				t.Errorf("%s: %q in %q", tc.name, w, got)
			}
		}
	}
}

// A page hidden whole (a frame buster's html{display:none}, an
// anti-flicker body{visibility:hidden}) waits for its script; what is
// hidden inside it stays hidden.
func TestRootHiddenWaitsForScript(t *testing.T) {
	for _, page := range []string{
		`<html><head><style>.gone{display:none} html{display:none}</style></head><body><p>Words of the page.</p><p class="gone">Hidden box.</p></body></html>`,
		`<html><head><style>.gone{display:none} body{visibility:hidden}</style></head><body><p>Words of the page.</p><p class="gone">Hidden box.</p></body></html>`,
		`<html style="display: none"><body style="visibility:hidden"><p>Words of the page.</p><p style="display:none">Hidden box.</p></body></html>`,
	} {
		got := VisibleText(partitionString(t, page, Options{}))
		if !strings.Contains(got, "Words of the page.") || strings.Contains(got, "Hidden box") {
			t.Errorf("%s: visible text %q", page, got)
		}
	}
}

// A soft hyphen is not seen: the word reads, is counted and is searched
// whole.
func TestSoftHyphenUnseen(t *testing.T) {
	res := partitionString(t, "<html><body><p>Das Mit&shy;tel&shy;al&shy;ter war Mit\u00adtel.</p></body></html>", Options{})
	if got := VisibleText(res); got != "Das Mittelalter war Mittel." {
		t.Errorf("visible text %q", got)
	}
	if len(res.Leaves) != 1 || res.Leaves[0].Features.Words != 4 {
		t.Errorf("leaves %d, words %+v", len(res.Leaves), res.Leaves)
	}
}

// A grid of "more posts" cards beside a short article: each card's
// names (post, entry, excerpt) give it a content bonus, the article's
// wrapper a widget penalty. The article holds more prose than the grid.
func TestMainTextBesideTeaserGrid(t *testing.T) {
	card := func(n int) string {
		k := strings.Repeat("k", n)
		return `<article class="post entry"><div class="post-card"><h3 class="post-title"><a href="/news/` + k + `">Solar news item ` + k + ` for the week</a></h3>` +
			`<div class="post-excerpt"><p>Interest in solar power keeps rising, and more households choose it ` + k + ` as a clean source of power. Many firms, too, now fit panels on their roofs, and the grid takes what they do not use. According to</p></div>` +
			`<a class="read-more" href="/news/` + k + `">Read more</a><span class="date">22 June 2022</span></div></article>`
	}
	article := `<div class="widget widget-theme-post-content"><div class="widget-container"><p>` +
		prose("The battery", 4, true) + `<br>` + prose("The lead cell", 4, true) + `<br>` + prose("The lithium cell", 4, true) + `</p></div></div>`
	grid := `<div class="widget widget-posts"><div class="posts-container posts">` + card(1) + card(2) + card(3) + card(4) + `</div></div>`
	var menu strings.Builder
	for _, w := range strings.Fields("Photovoltaik Solarstrom Speicher Wallbox Wärmepumpe Förderung Ratgeber Lexikon Kontakt Impressum Datenschutz Karriere") {
		menu.WriteString(`<li><a href="/` + w + `">` + w + ` im Überblick</a></li>`)
	}
	// The page's menu in the same wrapper: its links keep the wrapper
	// from being taken whole.
	page := `<html><body><div class="wrap"><ul class="menu">` + menu.String() + `</ul><h1>Battery storage</h1>` + article + grid + `</div></body></html>`
	checkMainText(t, page, []string{"The battery entry v turned", "The lithium cell entry vvvv"}, []string{"Solar news item", "Interest in solar power"})

	// An index page: the list is the page's text.
	index := `<html><body><div class="wrap"><h1>News</h1><p>Latest items.</p>` + grid + `</div></body></html>`
	if got := MainText(partitionString(t, index, Options{})); !strings.Contains(got, "Interest in solar power") {
		t.Errorf("index page: %q", got)
	}
}

// A standfirst set beside the headline, apart from the body: in
// MainTextWithLead and MainTextWithTitle, not in MainText (schema.org's
// description, not its articleBody). A byline, a date and an image's
// caption between them are not standfirsts.
func TestMainTextStandfirst(t *testing.T) {
	dek := "Berlin has launched a five-year project to look again at its colonial past, and not everyone is pleased."
	page := `<html><body><article><header><h1>Colonial history</h1><p class="intro">` + dek + `</p>` +
		`<div class="byline">By Jane Doe, 3 May 2021</div>` +
		`<div class="image"><img src="/p.jpg" alt=""><p>In this file photo made available by the city, visitors walk past the old colonial museum on a rainy day.</p></div>` +
		`</header><div class="longtext"><p>` + prose("The street", 3, true) + `</p><p>` + prose("The museum", 3, true) + `</p><p>` + prose("The square", 3, true) + `</p></div></article></body></html>`
	res := partitionString(t, page, Options{})
	body := MainText(res)
	lead := MainTextWithLead(res)
	title := MainTextWithTitle(res)
	if strings.Contains(body, "five-year project") || !strings.Contains(body, "The square entry vvv") {
		t.Errorf("MainText %q", body)
	}
	if !strings.HasPrefix(lead, dek+"\n") || !strings.Contains(lead, "The square entry vvv") {
		t.Errorf("MainTextWithLead %q", lead)
	}
	if !strings.HasPrefix(title, "Colonial history\n"+dek+"\n") {
		t.Errorf("MainTextWithTitle %q", title)
	}
	for _, got := range []string{lead, title} {
		if strings.Contains(got, "file photo") || strings.Contains(got, "Jane Doe") {
			t.Errorf("caption or byline in %q", got)
		}
	}

	// The lead boxed in a div of its own before the body's box.
	boxed := `<html><body><div class="article"><h1>Work of children</h1><div class="leader"><p>` + dek + `</p></div>` +
		`<div class="text"><p>` + prose("The street", 3, true) + `</p><p>` + prose("The museum", 3, true) + `</p></div></div></body></html>`
	if got := MainTextWithLead(partitionString(t, boxed, Options{})); !strings.HasPrefix(got, dek) {
		t.Errorf("boxed lead: %q", got)
	}
	// And with no h1 to find it by: a box of prose just before the body.
	noH1 := strings.Replace(boxed, "<h1>Work of children</h1>", "", 1)
	res = partitionString(t, noH1, Options{})
	if got := MainTextWithLead(res); !strings.HasPrefix(got, dek) {
		t.Errorf("boxed lead without a headline: %q", got)
	}
	if got := MainText(res); strings.Contains(got, "five-year") {
		t.Errorf("MainText without a headline: %q", got)
	}

	// The lead set as a heading under the headline (an hgroup's h2, a
	// subtitle): a sentence, as long as a lead. A section heading over
	// the body is not one.
	for _, tag := range []string{"h2", "h3"} {
		hdek := `<html><body><article><header><hgroup><h1>Colonial history</h1><` + tag + `>` + dek + `</` + tag + `></hgroup></header>` +
			`<h2>The museum today</h2><div class="text"><p>` + prose("The street", 3, true) + `</p><p>` + prose("The museum", 3, true) + `</p></div></article></body></html>`
		res = partitionString(t, hdek, Options{})
		if got := MainTextWithLead(res); !strings.HasPrefix(got, dek+"\n") || strings.Contains(got, "The museum today\n"+dek) {
			t.Errorf("lead as %s: %q", tag, got)
		}
		if got := MainText(res); strings.Contains(got, "five-year") {
			t.Errorf("MainText, lead as %s: %q", tag, got)
		}
	}
}

// A table or a code listing set apart in a figure, and a one-line
// command in a box of its own, are the article's text.
func TestMainTextFigureTableAndCode(t *testing.T) {
	page := `<html><body><div class="content"><p>` + prose("The exchange", 3, true) + `</p>` +
		`<figure class="comparison-table"><table><tr><th>Fee</th><td>1 GBP withdrawal</td></tr><tr><th>Limit</th><td>No daily limit</td></tr></table></figure>` +
		`<p>` + prose("The wallet", 3, true) + `</p><div class="snippet-clipboard"><pre><code>poetry add yapapi</code></pre></div>` +
		`<p>` + prose("The network", 3, true) + `</p><figure><img src="/chart.png" alt=""><figcaption>A chart of the fees</figcaption></figure></div></body></html>`
	checkMainText(t, page, []string{"1 GBP withdrawal", "poetry add yapapi", "The network entry vvv"}, []string{"A chart of the fees"})
}

// An article cut into one box per paragraph (a block editor's) scores
// thinly at every level; a compact "about the blog" box beside it,
// named as content, outscored it with a fraction of its text.
func TestMainTextArticleInManyBoxes(t *testing.T) {
	var body strings.Builder
	for _, topic := range []string{"The harbour", "The lighthouse", "The dunes", "The ferry", "The market", "The chapel", "The beach", "The inn"} {
		body.WriteString(`<div class="block html-block"><div class="block-content"><p>` + prose(topic, 3, false) + `</p></div></div>`)
		body.WriteString(`<div class="block image-block"><div class="block-content"><img src="/i.jpg" alt=""></div></div>`)
	}
	about := `<div class="sidebar-about entry-content"><p>Is it time, at last, for all that makes life rich? For a relaxed, easy, confident view of life, of women over fifty, who feel better, calmer, freer than ever, and show it, every day, in every way. This blog, written by one of them, is about travel, style, food, friends, and the places, near and far, where life is good.</p></div>`
	// Five levels of layout between the paragraphs' boxes and the
	// article: no paragraph's vote reaches it.
	page := `<html><body><div class="layout"><div class="main"><article class="post"><h1>Montauk</h1><div class="wrapper"><div class="item"><div class="grid"><div class="row"><div class="col">` + body.String() +
		`</div></div></div></div></div></article></div></div><div class="bottom"><div class="side">` + about + `</div></div></body></html>`
	checkMainText(t, page, []string{"The harbour entry v turned", "The inn entry vvv turned"}, []string{"women over fifty"})
}
