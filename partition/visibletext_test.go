package partition

import (
	"strings"
	"testing"
)

// TestPageVisibleText: a page's visible text holds its blocks' texts and a
// banner's words loose in <body> between them, in document order, and
// no script or style. (Today's partition makes loose text a block of its
// own, as here; VisibleText reads the document, not the blocks, so text
// a partition leaves in the layout is in it too.)
func TestPageVisibleText(t *testing.T) {
	doc := []byte(`<html><head><title>T</title><style>p{color:red}</style></head><body>
<div id="a"><h2>First section</h2><p>The first block has a paragraph of ordinary words in it.</p></div>
We use cookies to improve your experience on this site.
<div id="b"><h2>Second section</h2><p>The second block has another paragraph of words.</p></div>
<script>var hidden = "not visible";</script></body></html>`)
	res, err := Partition(doc, Options{Level: 1})
	if err != nil {
		t.Fatal(err)
	}
	const loose = "We use cookies to improve your experience on this site."
	got := VisibleText(res)
	first, cookie, second := strings.Index(got, "The first block"), strings.Index(got, loose), strings.Index(got, "The second block")
	if first < 0 || cookie < first || second < cookie || strings.Contains(got, "not visible") || strings.Contains(got, "color") {
		t.Errorf("VisibleText = %q: want both blocks' text and the loose text between them, no script or style", got)
	}
}
