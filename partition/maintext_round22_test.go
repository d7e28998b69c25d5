package partition

import (
	"fmt"
	"strings"
	"testing"
)

// Issue 35, third round: causes left open by the second round's review,
// each a made-up page written from the cause, not from a corpus page.

// millArticle is an article body of six paragraphs about a mill.
func millArticle() string {
	var b strings.Builder
	for i := range 6 {
		b.WriteString("<p>" + prose("The mill "+strings.Repeat("w", i+1), 2, true) + "</p>")
	}
	return b.String()
}

// reader returns the text of reader n's comment: two sentences with
// commas, as long as a paragraph.
func reader(n int) string {
	return "Comment " + strings.Repeat("k", n) + " here: I grew up near that mill, and my father took the grain there every autumn. It is good news, really, that it turns again."
}

// Cause 1: a comment thread named neither "comment" nor schema.org
// Comment (a section of "responses", items of class "r"): each item has
// an avatar, an author, a <time> and a Reply link, under a heading "3
// Responses". It is not the article.
func TestMainTextCommentThreadUnnamed(t *testing.T) {
	item := func(n int) string {
		return `<li class="r"><div class="r-head"><img class="pic" src="/a/` + strings.Repeat("k", n) + `.png" alt=""><cite>Reader ` + strings.Repeat("K", n) + `</cite> <time datetime="2026-05-0` + string(rune('0'+n)) + `">May ` + string(rune('0'+n)) + `, 2026 at 10:04 am</time></div><p>` + reader(n) + `</p><a class="r-link" href="?replyto=` + string(rune('0'+n)) + `#respond">Reply</a></li>`
	}
	thread := `<section class="responses"><h3>3 Responses to “Mill reopens”</h3><ol class="list">` + item(1) + item(2) + item(3) + `</ol></section>`
	page := `<html><body><div class="wrap"><h1>Mill reopens</h1><div class="body">` + millArticle() + `</div>` + thread + `</div></body></html>`
	checkMainText(t, page, []string{"Mill reopens", "The mill w entry v", "The mill wwwwww entry vv"}, []string{"Comment k here", "Comment kkk here", "Responses", "Reader K"})
	checkLabels(t, page, map[string]Label{"Comment kk here": LabelOther, "The mill www entry v": LabelContent})
}

// Cause 1 without list or heading: the comments are divs one after the
// other, each with a <time> and a Reply link, in an unnamed wrapper
// inside the article's body, after its paragraphs.
func TestMainTextCommentThreadReplyLinks(t *testing.T) {
	item := func(n int) string {
		return `<div class="c` + string(rune('0'+n)) + `"><div class="who"><b>Reader ` + strings.Repeat("K", n) + `</b> <time datetime="2026-05-03T10:0` + string(rune('0'+n)) + `">3 May</time></div><div class="said">` + reader(n) + `</div><a class="rl" href="#f">Reply</a></div>`
	}
	page := `<html><body><article><h1>Mill reopens</h1><div>` + millArticle() + `<div class="x">` + item(1) + item(2) + item(3) + item(4) + `</div></div></article></body></html>`
	checkMainText(t, page, []string{"Mill reopens", "The mill w entry v", "The mill wwwwww entry vv"}, []string{"Comment k here", "Comment kkkk here"})
}

// Cause 1 with only a heading to tell it: "4 Comments" over repeated
// items each opening with an author line and a date in text ("Ann
// says: 3 May 2026 at 10:04"), no <time>, no Reply link.
func TestMainTextCommentThreadHeading(t *testing.T) {
	item := func(n int) string {
		return `<div class="item"><p class="who">Reader ` + strings.Repeat("K", n) + ` says:<br>May ` + string(rune('0'+n)) + `, 2026 at 10:04 am</p><p>` + reader(n) + `</p></div>`
	}
	page := `<html><body><div class="wrap"><h1>Mill reopens</h1><div class="body">` + millArticle() + `</div><h2>4 Comments</h2><div class="list">` + item(1) + item(2) + item(3) + item(4) + `</div></div></body></html>`
	checkMainText(t, page, []string{"Mill reopens", "The mill w entry v", "The mill wwwwww entry vv"}, []string{"Comment k here", "Comment kkkk here", "4 Comments"})
}

// Guards for cause 1: dated entries that are the article's — a timeline
// of the mill's history (each item a <time> and a paragraph) and a live
// blog (each entry a <time>, an author's picture and text) — stay.
func TestMainTextDatedEntriesStay(t *testing.T) {
	var timeline strings.Builder
	for i := range 4 {
		y := string(rune('5'+i)) + "0"
		timeline.WriteString(`<li><time datetime="18` + y + `">18` + y + `</time> <p>` + prose("The year 18"+y, 1, true) + `</p></li>`)
	}
	page := `<html><body><div class="wrap"><h1>Mill reopens</h1><div class="body">` + millArticle() + `<ul>` + timeline.String() + `</ul></div></div></body></html>`
	checkMainText(t, page, []string{"The mill w entry v", "The year 1850 entry v", "The year 1880 entry v"}, nil)

	var live strings.Builder
	for i := range 5 {
		live.WriteString(`<div class="entry-` + string(rune('a'+i)) + `"><time datetime="2026-05-03T1` + string(rune('0'+i)) + `:00">1` + string(rune('0'+i)) + `:00</time><img src="/p/ann.png" alt="Ann"><p>` + prose("Update "+strings.Repeat("u", i+1), 2, true) + `</p></div>`)
	}
	page = `<html><body><div class="wrap"><h1>Mill reopens: live</h1><div class="feed">` + live.String() + `</div></div></body></html>`
	checkMainText(t, page, []string{"Update u entry v", "Update uuuuu entry vv"}, nil)
}

// logoPage is an article page whose site name is an h1 in the page's
// header, a link to the home page; the headline is an h2 above the
// article's body, with a byline between them, inside the body's
// wrapper or (outside) beside it.
func logoPage(logo string, outside bool) string {
	head := `<h2 class="title">The old mill on the river turns again after forty years</h2><div class="meta">By Ann Miller, 3 May</div>`
	body := `<div class="post">` + head + `<div class="text-wrap">` + millArticle() + `</div></div>`
	if outside {
		body = head + `<div class="post"><div class="text-wrap">` + millArticle() + `</div></div>`
	}
	return `<html><body><header class="top">` + logo + `<p class="tag">News from the valley</p></header>` +
		`<div class="main">` + body + `</div><footer><p>Valley Post, Mill Lane 1.</p></footer></body></html>`
}

// Cause 2: a logo h1 (the site's name, a link to the home page) above
// an h2 headline came first as the title; the headline is the heading
// nearest the main text.
func TestMainTextLogoH1(t *testing.T) {
	for name, logo := range map[string]string{
		"link":  `<h1 class="site"><a href="/">Valley Post</a></h1>`,
		"image": `<h1><a href="https://valley.example/"><img src="/logo.png" alt="Valley Post"></a></h1>`,
	} {
		for _, outside := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/outside=%v", name, outside), func(t *testing.T) {
				page := logoPage(logo, outside)
				got := MainTextWithTitle(partitionString(t, page, Options{}))
				if strings.Contains(got, "Valley Post") {
					t.Errorf("logo kept in %q", got)
				}
				if !strings.HasPrefix(got, "The old mill on the river turns again") {
					t.Errorf("main text does not open with the headline: %q", got[:min(len(got), 120)])
				}
				want := map[string]Label{"The old mill on the river turns": LabelTitle}
				if name == "link" {
					want["Valley Post"] = LabelOther // the site's name, not the page's title
				}
				checkLabels(t, page, want)
			})
		}
	}
}

// Guard for cause 2: an h1 that is the headline, though short and a
// link (to the article's own address), is still put first.
func TestMainTextShortH1Headline(t *testing.T) {
	page := `<html><body><h1><a href="/2026/05/mill-reopens">Mill reopens</a></h1><div class="post"><div class="text-wrap">` + millArticle() + `</div></div></body></html>`
	got := MainTextWithTitle(partitionString(t, page, Options{}))
	if !strings.HasPrefix(got, "Mill reopens\n") {
		t.Errorf("headline not first: %q", got[:min(len(got), 120)])
	}
}

// Cause 3 (from the tune half: an article whose first paragraph sits
// alone in a wrapper named for media): a wrapper is pruned for a
// boilerplate name, but a paragraph in it of the class the article's
// own paragraphs (<p> or <div>) carry is the article's, when nothing
// else is in the wrapper (no picture, no links to speak of).
func TestMainTextOwnParagraphInNamedWrapper(t *testing.T) {
	for _, wrap := range []string{"lead-media-slot", "overflow-hidden", "div"} {
		// the article's other paragraphs are <p>, or <div> of that class
		tag := "p"
		if wrap == "div" {
			wrap, tag = "lead-media-slot", "div"
		}
		var rest strings.Builder
		for i := range 5 {
			rest.WriteString(`<` + tag + ` class="story-para">` + prose("The mill "+strings.Repeat("w", i+1), 2, true) + `</` + tag + `>`)
		}
		page := `<html><body><article><h1>Mill reopens</h1><div class="story-body">` +
			`<div class="` + wrap + `"><p class="story-para"><cite>Riverside (Valley Post)</cite> The old mill on the river turned again on Monday, and the whole village came out to watch it.</p></div>` +
			rest.String() +
			`<div class="newsletter-promo"><p>Sign up for the Valley Post letter, and get the news every morning.</p></div>` +
			`<div class="media"><img src="/m.jpg" alt=""><p class="story-para">The mill in 1950, as the river ran high.</p></div>` +
			`</div></article></body></html>`
		checkMainText(t, page, []string{"The old mill on the river turned again on Monday", "The mill w entry v", "The mill wwwww entry vv"}, []string{"Sign up for the Valley Post", "The mill in 1950"})
	}
}

// Cause 4 (from the tune half: a post ending in "Filed under: <a
// rel="category tag">…</a>"): a short line whose links are all the
// post's tags or categories (rel=tag, the rel-tag microformat) is its
// taxonomy, not its text, whatever words label it.
func TestMainTextTagLine(t *testing.T) {
	for _, line := range []string{
		`<p class="info">Filed under: <a href="/c/mills/" rel="category tag">Mills</a> | </p>`,
		`<div class="x">Abgelegt unter <a href="/t/muehle" rel="tag">Mühle</a>, <a href="/t/fluss" rel="tag">Fluss</a></div>`,
		`<p><span>Posted in <a href="/c/news" rel="category">News</a></span></p>`,
	} {
		page := `<html><body><article><h1>Mill reopens</h1><div class="body">` + millArticle() + line + `</div></article></body></html>`
		checkMainText(t, page, []string{"The mill w entry v", "The mill wwwwww entry vv"}, []string{"Filed under", "Mills", "Mühle", "News"})
	}
	// a sentence that links to a tag page is still the article's, and
	// so is a tag link inside one
	page := `<html><body><article><h1>Mill reopens</h1><div class="body">` + millArticle() + `<p>More about the valley's <a href="/t/mills" rel="tag">mills</a> is in our series, which ran all summer, and in the book the village wrote.</p></div></article></body></html>`
	checkMainText(t, page, []string{"which ran all summer"}, nil)
	page = `<html><body><article><h1>Mill reopens</h1><div class="body">` + millArticle() + `<p>They studied how <a href="/t/hibernation" rel="tag">hibernation</a> starts.</p></div></article></body></html>`
	checkMainText(t, page, []string{"They studied how hibernation starts."}, nil)
}

// homeLink: what leads to a site's home page, for logoHeading.
func TestHomeLink(t *testing.T) {
	for href, want := range map[string]bool{
		"/": true, "": false, "./": true, "index.html": true, "https://valley.example/": true, "https://valley.example": true,
		"//valley.example/?ref=logo": true, "/2026/05/mill": false, "#": false, "#top": false, "javascript:void(0)": false,
		"mailto:desk@valley.example": false, "https://valley.example/news/": false,
	} {
		if got := homeLink(href); got != want {
			t.Errorf("homeLink(%q) = %v, want %v", href, got, want)
		}
	}
}

// Cause 1 with nested replies, the thread inside the article's body:
// an entry holding the replies to it is longer than a comment, and
// still an entry of the thread.
func TestMainTextCommentThreadNested(t *testing.T) {
	item := func(n int, kids string) string {
		return `<li><span>Reader ` + strings.Repeat("K", n) + `</span> <time>3 May 2026</time><p>` + reader(n) + `</p><a href="#r">Reply</a>` + kids + `</li>`
	}
	var kids strings.Builder
	for k := range 22 {
		kids.WriteString(item(k+4, ""))
	}
	page := `<html><body><div class="wrap"><h1>Mill reopens</h1><div class="body">` + millArticle() + `<ol class="list">` + item(1, "") + item(2, "") + item(3, `<ol>`+kids.String()+`</ol>`) + `</ol></div></div></body></html>`
	checkMainText(t, page, []string{"Mill reopens", "The mill w entry v"}, []string{"Comment k here", "Comment kkkk here"})
}

// Cause 1's companion: the heading over the form to write a comment
// ("Leave a Reply") goes with the form, as a heading over a pruned list
// of links does.
func TestMainTextReplyFormHeading(t *testing.T) {
	form := `<form action="/post" method="post"><p><label>Name</label><input name="n"></p><p><textarea name="c"></textarea></p><p><input type="submit" value="Post"></p></form>`
	for _, end := range []string{
		`<div class="x"><h3 class="t">Leave a Reply</h3>` + form + `</div>`, // passed before
		`<h3 class="t">Leave a Reply</h3>` + form,
		`<h3 class="t">Leave a Reply</h3><div class="f">` + form + `</div>`,
	} {
		page := `<html><body><article><h1>Mill reopens</h1><div class="body">` + millArticle() + end + `</div></article></body></html>`
		checkMainText(t, page, []string{"The mill w entry v", "The mill wwwwww entry vv"}, []string{"Leave a Reply"})
	}
}

// MainText is the article body: the headline is in MainTextWithTitle
// and labelled title, never in MainText, whether it stands before the
// content or inside it (an h1 in the article's wrapper).
func TestMainTextLeavesHeadlineOut(t *testing.T) {
	for name, page := range map[string]string{
		"before": `<html><body><h1>Mill reopens</h1><div class="post">` + millArticle() + `</div></body></html>`,
		"inside": `<html><body><div class="post"><h1>Mill reopens</h1>` + millArticle() + `</div></body></html>`,
	} {
		t.Run(name, func(t *testing.T) {
			res := partitionString(t, page, Options{})
			body, titled := MainText(res), MainTextWithTitle(res)
			if strings.Contains(body, "Mill reopens") || !strings.Contains(body, "The mill w entry v") {
				t.Errorf("MainText %q: want the body without the headline", body[:min(len(body), 120)])
			}
			if !strings.HasPrefix(titled, "Mill reopens\n") || !strings.HasSuffix(titled, body) {
				t.Errorf("MainTextWithTitle %q: want the headline, then MainText", titled[:min(len(titled), 120)])
			}
			checkLabels(t, page, map[string]Label{"Mill reopens": LabelTitle})
		})
	}
}
