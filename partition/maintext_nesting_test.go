package partition

import (
	"strings"
	"testing"
)

// Issue 35, eighth round: causes in how nesting is scored, read on the
// tune half of trafilatura's evaluation. Each is a made-up page that
// shows one cause, written from the cause, not copied from a page.

// checkMain is checkMainText for MainText itself (no headline, no
// standfirst).
func checkMain(t *testing.T, page string, keep, drop []string) {
	t.Helper()
	checkExtracted(t, MainText, page, keep, drop)
}

// A block inside an inline element is a block all the same: a card
// whose link wraps its title box and its excerpt counted that text for
// the card (the link is inline) and again for the title box and the
// paragraph. A grid of such cards beside an article then held twice its
// text, enough for the article's wrapper to look like a larger article
// and be taken whole, with the box beside the article in it.
func TestMainTextBlockInsideLink(t *testing.T) {
	var cards strings.Builder
	for _, topic := range []string{"The pier", "The quay", "The dock"} {
		cards.WriteString(`<div class="card"><a href="/` + strings.ToLower(topic[4:]) + `"><div class="card-title">` + topic + ` reopens after a long winter of repairs</div><p>` + topic + ` was mended by the town over the winter and opens again in May.</p></a></div>`)
	}
	article := `<div class="story"><p>` + prose("The mill", 3, true) + `</p><p>` + prose("The weir", 3, true) + `</p><p>` + prose("The sluice", 3, true) + `</p><p>` + prose("The race", 3, true) + `</p><p>` + prose("The wheel", 3, true) + `</p></div>`
	box := `<div class="box"><p>Our weekly letter tells you what the harbour board decided, and why it matters to you.</p></div>`
	page := `<html><body><div class="layout"><div class="column">` + article + `<div class="grid">` + cards.String() + `</div>` + box + `</div></div></body></html>`
	checkMain(t, page, []string{"The mill entry v turned", "The race entry vvv turned"}, []string{"weekly letter"})
}

// The article's first part set in a column of its own (its summary and
// first paragraphs), the rest deep in wrappers that hold nothing else
// (a CMS's entity > content > field): the rest scores best, and its
// innermost box has no siblings to join. Its outermost sole wrapper has
// the first part beside it.
func TestMainTextSoleWrapperSiblings(t *testing.T) {
	first := `<div class="col"><p>` + prose("The harbour", 2, true) + `</p><p>` + prose("The lighthouse", 2, true) + `</p></div>`
	var rest strings.Builder
	for _, topic := range []string{"The mill", "The weir", "The sluice", "The race", "The wheel", "The dam", "The bridge", "The ford"} {
		rest.WriteString(`<p>` + prose(topic, 3, true) + `</p>`)
	}
	nav := `<div class="more"><a href="/a">Other stories from the valley</a> <a href="/b">The valley in pictures</a></div>`
	page := `<html><body><div class="page"><div class="region">` + first +
		`<div class="entity"><div class="inner"><div class="field">` + rest.String() + `</div></div></div>` + nav +
		`</div></div></body></html>`
	checkMain(t, page, []string{"The harbour entry v turned", "The lighthouse entry vv turned", "The ford entry vvv turned"}, []string{"Other stories"})
}

// A gallery or listicle tells its story in the captions of its slides,
// a heading and paragraphs in each figcaption: those are the article,
// not captions to prune. A caption beside an article's paragraphs is
// still pruned (TestMainTextFigureTableAndCode).
func TestMainTextToldInFigures(t *testing.T) {
	var slides strings.Builder
	for i, topic := range []string{"The harbour", "The lighthouse", "The dunes", "The ferry", "The market", "The chapel"} {
		slides.WriteString(`<figure class="slide"><img src="/s` + strings.Repeat("i", i+1) + `.jpg" alt=""><figcaption><h3>` + topic + `</h3><p>` + prose(topic, 2, true) + `</p><p>What you need: a day, a map, and good shoes.</p></figcaption></figure>`)
	}
	page := `<html><body><article class="post"><h1>Six places to see by the sea</h1><div class="intro"><p>Short trips, all of them, and none of them costly.</p></div><div class="slides">` + slides.String() + `</div></article></body></html>`
	checkMain(t, page, []string{"The harbour entry v turned", "The chapel entry vv turned"}, nil)
}
