package partition

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestHeadingRank(t *testing.T) {
	for _, c := range []struct {
		html string
		want int
	}{
		{`<h3>Title</h3>`, 3},
		{`<p><strong>1. Data we collect</strong></p>`, boldRank},
		{`<p> <b>Your rights</b> <!-- x --> </p>`, boldRank},
		{`<p><strong>What do we share?</strong></p>`, boldRank},
		{`<p><strong>Kontakt&nbsp;</strong></p>`, boldRank},
		{`<p><strong>Note:</strong></p>`, boldRank},
		{`<p><strong>Daten <em>die wir</em> erheben</strong></p>`, boldRank},
		{`<p><strong>This is a sentence in bold.</strong></p>`, 0},
		{`<p><strong>Ends with an entity.&nbsp;</strong></p>`, 0},
		{`<p><strong>Title</strong> and more text</p>`, 0},
		{`<p><strong>One</strong><strong>Two</strong></p>`, 0},
		{`<p><strong><a href=/x>A bold link</a></strong></p>`, 0},
		{`<p><strong><img src=x.png></strong></p>`, 0},
		{`<p><strong>` + strings.Repeat("long ", 40) + `</strong></p>`, 0},
		{`<p><strong>***</strong></p>`, 0},
		{`<div><strong>Title</strong></div>`, 0},
		{`<div role=heading aria-level=4>Title</div>`, 4},
		{`<div role="Heading">Title</div>`, 2},
		{`<span role=heading aria-level=9>Title</span>`, 6},
		{`<div role=heading aria-level=x>Title</div>`, 2},
	} {
		res := mustPartition(t, []byte(c.html), Options{})
		var el *Node
		for _, n := range res.nodes {
			if n.Kind == ElementNode && n.Tag != "html" && n.Tag != "head" && n.Tag != "body" {
				el = n
				break
			}
		}
		if got := headingRank(res.Doc, el); got != c.want {
			t.Errorf("%s: rank %d, want %d", c.html, got, c.want)
		}
	}
}

// policyPage is a policy page whose section titles are bold paragraphs
// (or role=heading divs): an h1, an introduction, then n sections of a
// title and two paragraphs.
func policyPage(n int, title func(i int) string) []byte {
	var b strings.Builder
	b.WriteString("<html><body><main><h1>Privacy Policy</h1><p>" + longText + "</p>\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s\n<p>%s</p>\n<p>%s Section %d.</p>\n", title(i), longText, longText, i)
	}
	b.WriteString("</main></body></html>")
	return []byte(b.String())
}

// A policy page whose headings are bold paragraphs, or role=heading
// elements, is grouped by them: each heading with the paragraphs of its
// section is one block, at every level, and no block is a heading
// alone.
func TestBoldHeadingSections(t *testing.T) {
	for name, title := range map[string]func(int) string{
		"bold": func(i int) string { return fmt.Sprintf("<p><strong>%d. Section title</strong></p>", i) },
		"b":    func(i int) string { return fmt.Sprintf("<p><b>Section title %d</b></p>", i) },
		"aria": func(i int) string { return fmt.Sprintf("<div role=heading aria-level=2>Section title %d</div>", i) },
		"one-item list": func(i int) string {
			return fmt.Sprintf("<ol start=%d>\n<li><strong><u>Section title</u></strong></li>\n</ol>", i)
		},
		"h2 (as before)": func(i int) string { return fmt.Sprintf("<h2>Section title %d</h2>", i) },
	} {
		doc := policyPage(12, title)
		for lv := 1; lv <= 3; lv++ {
			res := mustPartition(t, doc, Options{Level: lv})
			var sections int
			for _, l := range res.Leaves {
				bb := res.BlockBytes(l)
				if strings.Contains(string(bb), "Section title") {
					if !bytes.Contains(bb, []byte("Section")) || l.Features.TextLen < 2*len(longText) {
						t.Fatalf("%s level %d: leaf %s is a heading alone: %q", name, lv, l.Path, bb)
					}
					sections++
				}
			}
			// The h1 leads the introduction: one block.
			if sections != 12 || len(res.Leaves) != 13 || !strings.HasPrefix(res.Leaves[0].Text, "Privacy Policy\nThis paragraph") {
				t.Fatalf("%s level %d: %d section leaves of %d, want 12 of 13", name, lv, sections, len(res.Leaves))
			}
		}
	}
	// Without the bold, the same page is a flat list of paragraphs.
	flat := policyPage(12, func(i int) string { return fmt.Sprintf("<p>%d. Section title</p>", i) })
	if n := len(mustPartition(t, flat, Options{Level: 3}).Leaves); n != 2+3*12 {
		t.Fatalf("plain titles: %d leaves, want %d", n, 2+3*12)
	}
}

// A section with subsections is divided by them, its heading leading
// the paragraphs before the first; a section longer than
// maxSectionText is divided by its paragraphs.
func TestSectionDivision(t *testing.T) {
	var b strings.Builder
	b.WriteString("<html><body><h2>One</h2><p>" + longText + "</p><p><strong>Sub A</strong></p><p>" + longText +
		"</p><p><strong>Sub B</strong></p><p>" + longText + "</p><h2>Two</h2>")
	// longText has fewer visible characters than bytes: /40 is enough.
	long := maxSectionText / 40
	for i := 0; i < long; i++ {
		b.WriteString("<p>" + longText + "</p>")
	}
	b.WriteString("</body></html>")
	res := mustPartition(t, []byte(b.String()), Options{Level: 3})
	var got []string
	for _, l := range res.Leaves {
		line := strings.SplitN(l.Text, "\n", 2)[0]
		got = append(got, line[:min(8, len(line))])
	}
	if len(res.Leaves) != 3+1+long || got[0] != "One" || got[1] != "Sub A" || got[2] != "Sub B" || got[3] != "Two" || !strings.HasPrefix(res.Leaves[0].Text, "One\nThis par") {
		t.Fatalf("leaves %q", got)
	}
}
