package diff

import (
	"html"
	"regexp"
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"

	"github.com/blockwarc/blockwarc/partition"
)

// newSideDoc returns the later capture's page of a -html page, parsed.
func newSideDoc(t *testing.T, page string) *xhtml.Node {
	t.Helper()
	m := regexp.MustCompile(`<iframe id="new"[^>]*srcdoc="([^"]*)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no later capture in the page")
	}
	doc, err := xhtml.Parse(strings.NewReader(html.UnescapeString(m[1])))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// dels returns the <del class="bw-del ..."> elements of doc with their
// text and the tags of their ancestors.
func dels(doc *xhtml.Node) (texts []string, classes []string, ancestors [][]string) {
	var walk func(n *xhtml.Node, up []string)
	walk = func(n *xhtml.Node, up []string) {
		if n.Type == xhtml.ElementNode && n.Data == "del" {
			var cls string
			for _, a := range n.Attr {
				if a.Key == "class" {
					cls = a.Val
				}
			}
			var b strings.Builder
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == xhtml.TextNode {
					b.WriteString(c.Data)
				}
			}
			texts, classes, ancestors = append(texts, strings.TrimSpace(b.String())), append(classes, cls), append(ancestors, up)
		}
		if n.Type == xhtml.ElementNode {
			up = append(up[:len(up):len(up)], n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, up)
		}
	}
	walk(doc, nil)
	return
}

// Issue 35: a block's deleted paragraphs were drawn as one run of
// struck words inside the element of the later capture where the edit
// resumed — a heading, so hundreds of deleted words read as one bold
// heading. Each deleted paragraph is its own struck block, between the
// later capture's paragraphs, never inside its heading; a word deleted
// inside a paragraph that stays is still struck in place.
func TestDeletedParagraphsKeepTheirShape(t *testing.T) {
	const tmpl = `<html><head><title>Guide</title></head><body><nav><a href="/">Home</a> <a href="/docs">Docs</a></nav>
<div class=doc><h2>Installing the tool</h2><p>Download the archive for your system and unpack it %s into a folder of your choice.</p>
%s<h3>Running it</h3><p>Start the program from a terminal and pass it the name of the folder to serve.</p>
</div><footer>Copyright 2024 The Tool Makers</footer></body></html>`
	gone := `<p>Older versions needed a separate runtime installed first, which the installer fetched from the <a href="/v">vendor</a>'s site.</p>
<p>On some systems the runtime also asked for a licence key, entered once and kept in the settings file.</p>
`
	part := func(doc string) *partition.Result {
		res, err := partition.Partition([]byte(doc), partition.Options{Level: 1})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	oldR, newR := part(sprintf(tmpl, "quickly", gone)), part(sprintf(tmpl, "", ""))
	blocks, sum := Compare(oldR, newR)
	if sum.TextChanged != 1 {
		t.Fatalf("want one text-changed block, got %+v", sum)
	}
	rep := NewReport("https://example.org/guide", 2, Side{Result: oldR}, Side{Result: newR}, blocks, sum)
	page := string(HTML(rep, oldR, newR, blocks))
	texts, classes, ups := dels(newSideDoc(t, page))
	want := []struct{ text, class, parent string }{
		{"quickly", "bw-del", "p"},
		{"Older versions needed a separate runtime installed first, which the installer fetched from the vendor's site.", "bw-del bw-del-p", "div"},
		{"On some systems the runtime also asked for a licence key, entered once and kept in the settings file.", "bw-del bw-del-p", "div"},
	}
	if len(texts) != len(want) {
		t.Fatalf("want %d deletions, got %d: %q", len(want), len(texts), texts)
	}
	for i, w := range want {
		up := ups[i]
		if texts[i] != w.text || classes[i] != w.class || up[len(up)-1] != w.parent {
			t.Errorf("deletion %d: %q (class %q) in %v; want %q (class %q) in <%s>", i, texts[i], classes[i], up, w.text, w.class, w.parent)
		}
		for _, a := range up {
			if a == "h3" || a == "h2" {
				t.Errorf("deletion %d is drawn inside a heading: %v", i, up)
			}
		}
	}
	// Where they were: after the paragraph before them, before the
	// heading after them.
	if d, h := strings.Index(page, "Older versions"), strings.Index(page, "&lt;h3&gt;Running it"); d < 0 || h < 0 || d > h || strings.Index(page, "Download the archive") > d {
		t.Errorf("the deleted paragraphs are not between the paragraph and the heading they stood between")
	}
}

// The tail of a paragraph deleted just before a heading is not drawn
// inside the heading, where the edit resumes: it becomes a struck
// block of its own before it.
func TestDeletedTailNotInHeading(t *testing.T) {
	const tmpl = `<html><head><title>Guide</title></head><body><nav><a href="/">Home</a> <a href="/docs">Docs</a></nav>
<div class=doc><h2>Installing the tool</h2><p>Download the archive for your system and unpack it into a folder of your choice.%s</p>
<h3>Running it</h3><p>Start the program from a terminal and pass it the name of the folder to serve.</p>
</div><footer>Copyright 2024 The Tool Makers</footer></body></html>`
	part := func(doc string) *partition.Result {
		res, err := partition.Partition([]byte(doc), partition.Options{Level: 1})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	oldR, newR := part(sprintf(tmpl, " Then restart the shell.")), part(sprintf(tmpl, ""))
	blocks, sum := Compare(oldR, newR)
	rep := NewReport("https://example.org/guide", 2, Side{Result: oldR}, Side{Result: newR}, blocks, sum)
	texts, classes, ups := dels(newSideDoc(t, string(HTML(rep, oldR, newR, blocks))))
	if len(texts) != 1 || texts[0] != "Then restart the shell." || classes[0] != "bw-del bw-del-p" || ups[0][len(ups[0])-1] != "div" {
		t.Fatalf("want the deleted tail as a struck block in the div, got %q %q %v", texts, classes, ups)
	}
}
