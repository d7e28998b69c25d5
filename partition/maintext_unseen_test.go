package partition

import (
	"strings"
	"testing"
)

// Issue 35, second round: variants of the causes seen on unseen pages,
// each a made-up page in a shape the first round's pages
// (maintext_causes_test.go) do not have.

// prose returns n made-up sentences about a mill, numbered so no two
// are the same; withComma gives each sentence one comma.
func prose(topic string, n int, withComma bool) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(topic)
		b.WriteString(" entry ")
		b.WriteString(strings.Repeat("v", i+1))
		if withComma {
			b.WriteString(" turned the wheel all autumn, while the river ran high. ")
		} else {
			b.WriteString(" turned the wheel all autumn while the river ran high. ")
		}
	}
	return b.String()
}

// Cause 1: a box named with "text" inside a longer name (a subhead box,
// a poll) next to an article in unnamed divs.
func TestMainTextUnseenTextNames(t *testing.T) {
	article := `<div><div><p>` + prose("The mill", 3, true) + `</p><p>` + prose("The weir", 3, true) + `</p><p>` + prose("The sluice", 3, true) + `</p></div></div>`
	subhead := `<div class="text_topbox_subhead"><p>Read the whole story of the mill in our weekend paper.</p></div>`
	poll := `<div id="polltext"><p>Should the mill reopen as a museum next spring?</p><p>Yes, it should.</p><p>No, it should not.</p></div>`
	checkMainText(t, `<html><body>`+subhead+article+poll+`</body></html>`,
		[]string{"The mill entry v turned", "The sluice entry vvv"}, []string{"weekend paper", "museum next spring"})
}

// Cause 1 at its root: a content name is worth more than a paragraph,
// so a one-line box named "text" (a whole token) beat an article of
// three paragraphs in unnamed divs. The name counts for an element
// holding as much paragraph text as a main text needs.
func TestMainTextUnseenTextBox(t *testing.T) {
	article := `<div><div><p>` + prose("The mill", 3, true) + `</p><p>` + prose("The weir", 3, true) + `</p><p>` + prose("The sluice", 3, true) + `</p></div></div>`
	box := `<div class="text"><p>Get the valley news in your inbox every morning, for free.</p></div>`
	checkMainText(t, `<html><body>`+box+article+`</body></html>`, []string{"The mill entry v turned", "The sluice entry vvv"}, []string{"valley news"})
}

// Cause 2: an article of <br><br> paragraphs set in a <font> inside a
// table cell (the cell's own text is one inline element) against a
// column of one-line comments (passed before the second round too).
func TestMainTextUnseenBreaksInFont(t *testing.T) {
	var cell strings.Builder
	for i := range 6 {
		if i > 0 {
			cell.WriteString("<br><br>\n")
		}
		cell.WriteString("Part " + strings.Repeat("I", i+1) + " says how the old mill wheel was taken out of the river, and mended by hand over the winter. It turned again in March, to the joy of the village.")
	}
	var comments strings.Builder
	for i := range 8 {
		comments.WriteString(`<tr><td>Visitor ` + strings.Repeat("y", i+1) + ` thinks this is a lovely mill story, well done</td></tr>`)
	}
	page := `<html><body><table><tr><td><font face="Arial" size="2">` + cell.String() + `</font></td></tr></table><table>` + comments.String() + `</table></body></html>`
	checkMainText(t, page, []string{"Part I says how", "Part IIIIII says how"}, []string{"Visitor y thinks"})
}

// Cause 2 as a div: a story of <br><br> paragraphs in a div against
// eight one-line comments in divs.
func TestMainTextUnseenBreaksInDiv(t *testing.T) {
	var story strings.Builder
	for i := range 6 {
		if i > 0 {
			story.WriteString("<br />\n<br />\n")
		}
		story.WriteString("Section " + strings.Repeat("I", i+1) + " says how the old mill wheel was taken out of the river, and mended by hand over the winter. It turned again in March, to the joy of the village.")
	}
	var comments strings.Builder
	for i := range 8 {
		comments.WriteString(`<div class="c"><div>Visitor ` + strings.Repeat("y", i+1) + ` thinks this is a lovely mill story, well done</div></div>`)
	}
	page := `<html><body><div class="w"><div class="s"><span>` + story.String() + `</span></div></div><div class="list">` + comments.String() + `</div></body></html>`
	checkMainText(t, page, []string{"Section I says how", "Section IIIIII says how"}, []string{"Visitor y thinks"})
}

// Cause 3: text in nested layout cells counts once, not once per cell
// level: a teaser four tables deep does not beat the story or join it.
func TestMainTextUnseenNestedCells(t *testing.T) {
	story := `<div><p>` + prose("The mill", 2, true) + `</p><p>` + prose("The weir", 2, true) + `</p><p>` + prose("The sluice", 2, true) + `</p><p>` + prose("The race", 2, true) + `</p></div>`
	teaser := `<table><tr><td><table><tr><td><table><tr><td><table><tr><td>Also today: the bakery, the smithy, the inn, the chapel, the school, the ferry, the bridge, the market, the mill pond, the fair, the races, the dances, the lanes, the farms and the fields, all of them, this week, in pictures.</td></tr></table></td></tr></table></td></tr></table></td></tr></table>`
	checkMainText(t, `<html><body>`+teaser+story+`</body></html>`, []string{"The mill entry v turned", "The race entry vv"}, []string{"Also today"})
}

// Cause 4: the part of an article behind a subscription is the article,
// whatever its container's name says.
func TestMainTextUnseenSubscriberText(t *testing.T) {
	page := articlePageHTML(`<div class="subscriber-only"><p>` + prose("The mill", 3, true) + `</p><p>` + prose("The weir", 3, true) + `</p><p>` + prose("The sluice", 3, true) + `</p></div>`)
	checkMainText(t, page, []string{"The mill entry v turned", "The sluice entry vvv"}, nil)
}

// Cause 4: an article of loose text with single <br>s in a div, against
// a footer of address lines in paragraphs: the article wins, and the
// footer, next to it and scoring by its commas, does not join it.
func TestMainTextUnseenLooseText(t *testing.T) {
	body := strings.ReplaceAll(prose("The mill", 8, true), ". ", ".<br>\n")
	var foot strings.Builder
	for i := range 3 {
		foot.WriteString(`<p>Mill Lane ` + strings.Repeat("1", i+1) + `, Riverside, Westshire, the Old Country, postcode AB1 2CD</p>`)
	}
	page := `<html><body><div class="page"><div id="c1">` + body + `</div></div><div class="bottom"><div>` + foot.String() + `</div></div></body></html>`
	checkMainText(t, page, []string{"The mill entry v turned", "The mill entry vvvvvvvv turned"}, []string{"Mill Lane 1,"})
}

// Cause 5: widening to the parent brings in a "More in …" list of
// teasers whose headlines are linked lines, not headings.
func TestMainTextUnseenTeaserLines(t *testing.T) {
	teaser := func(n int) string {
		return `<div class="item"><div class="t"><a href="/m` + strings.Repeat("x", n) + `">Another mill story ` + strings.Repeat("I", n) + ` from the valley</a></div><p>Excerpt ` + strings.Repeat("I", n) + `: the miller, the baker, the river, the weather, all of it, this week and next.</p></div>`
	}
	page := `<html><body><div class="col"><div class="story"><p>` + prose("The mill", 3, true) + `</p><p>` + prose("The weir", 3, true) + `</p><p>` + prose("The sluice", 3, true) + `</p></div>` +
		`<div class="more"><div class="label">More in Valley</div>` + teaser(1) + teaser(2) + teaser(3) + teaser(4) + `</div></div></body></html>`
	checkMainText(t, page, []string{"The mill entry v turned", "The sluice entry vvv"}, []string{"Another mill story", "Excerpt I"})
}

// Cause 5: a "Breaking News" list beside the story whose items open
// with a bold linked headline run into an excerpt (no heading element):
// gathering the story's parent for its paragraph text brings it in.
func TestMainTextUnseenBreakingList(t *testing.T) {
	item := func(n int) string {
		return `<li><a href="/b` + strings.Repeat("x", n) + `"><strong>Breaking story ` + strings.Repeat("I", n) + ` in the valley</strong></a> The council, the miller and the baker met today, and more news will follow, says the desk.</li>`
	}
	page := `<html><body><div class="col"><div class="story"><p>` + prose("The mill", 3, true) + `</p><p>` + prose("The weir", 3, true) + `</p><p>` + prose("The sluice", 3, true) + `</p></div>` +
		`<div class="box"><h2>Breaking News</h2><ul>` + item(1) + item(2) + item(3) + item(4) + `</ul></div></div></body></html>`
	checkMainText(t, page, []string{"The mill entry v turned", "The sluice entry vvv"}, []string{"Breaking story", "Breaking News"})
}

// A list of sources in the article, each opening with a link run into
// its sentence, is the article's.
func TestMainTextUnseenLinkLedList(t *testing.T) {
	item := func(n int) string {
		return `<li><a href="/s` + strings.Repeat("x", n) + `">The survey number ` + strings.Repeat("I", n) + `</a> found that the mill, the weir and the race were older than anyone thought.</li>`
	}
	page := `<html><body><div class="story"><p>` + prose("The mill", 3, true) + `</p><ul>` + item(1) + item(2) + item(3) + `</ul><p>` + prose("The sluice", 3, true) + `</p></div></body></html>`
	checkMainText(t, page, []string{"The mill entry v turned", "The survey number I found", "The survey number III found", "The sluice entry vvv"}, nil)
}

// Cause 6: related posts set directly in the article wrapper, one after
// the other, not in a list of their own.
func TestMainTextUnseenTeasersInWrapper(t *testing.T) {
	teaser := func(n int) string {
		return `<article class="post"><h3><a href="/r` + strings.Repeat("x", n) + `">Related mill post ` + strings.Repeat("I", n) + `</a></h3><p>Excerpt ` + strings.Repeat("I", n) + `: the miller, the baker, the river and the weather, all of it, this week.</p></article>`
	}
	page := `<html><body><article class="post"><h1>Mill reopens</h1><p>` + prose("The mill", 3, true) + `</p><p>` + prose("The weir", 3, true) + `</p><p>` + prose("The sluice", 3, true) + `</p><p>` + prose("The race", 3, true) + `</p>` +
		teaser(1) + teaser(2) + teaser(3) + teaser(4) + teaser(5) + teaser(6) + `</article></body></html>`
	checkMainText(t, page, []string{"The mill entry v turned", "The race entry vvv"}, []string{"Related mill post", "Excerpt I"})
}

// Sections of one article whose headings link to themselves (a
// "#anchor") are not teasers of other pages.
func TestMainTextUnseenAnchoredSections(t *testing.T) {
	section := func(n int) string {
		id := "s" + strings.Repeat("x", n)
		return `<section id="` + id + `"><h2><a href="#` + id + `">Step ` + strings.Repeat("I", n) + `</a></h2><p>Step ` + strings.Repeat("I", n) + ` of the repair: the wheel, the axle, the paddles and the gears, one by one.</p></section>`
	}
	page := `<html><body><article class="post"><h1>Mending a mill</h1><p>` + prose("The mill", 3, true) + `</p>` +
		section(1) + section(2) + section(3) + section(4) + `<p>` + prose("The race", 2, true) + `</p></article></body></html>`
	checkMainText(t, page, []string{"The mill entry v turned", "Step I of the repair", "Step IIII of the repair", "The race entry vv"}, nil)
}

// Cause 7: an unclosed <TITLE> in capitals with an attribute.
func TestMainTextUnseenUnclosedTitle(t *testing.T) {
	page := `<!DOCTYPE html><HTML><HEAD><TITLE lang="en">Mill reopens<META charset="utf-8"></HEAD><BODY><DIV><P>` + prose("The mill", 3, true) + `</P><P>` + prose("The weir", 3, true) + `</P></DIV></BODY></HTML>`
	checkMainText(t, page, []string{"The mill entry v turned", "The weir entry vvv"}, nil)
}

// Cause 7: an unclosed <title> that an inline SVG icon's </title> in
// the body closes: the head and the article up to the icon were title
// text.
func TestMainTextUnseenTitleClosedLater(t *testing.T) {
	page := `<html><head><title>Mill reopens<meta name="x" content="y"></head><body><div><p>` + prose("The mill", 3, true) + `</p><p>` + prose("The weir", 3, true) + `</p></div><svg><title>icon</title></svg></body></html>`
	checkMainText(t, page, []string{"The mill entry v turned", "The weir entry vvv"}, nil)
}
