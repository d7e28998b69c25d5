package partition

// One test per functional category of the page-block paper's test table
// (Song et al. 2008, Table 1): the kinds of pages its prototype was
// measured on. Each asserts properties of the partition that matter to
// the archive: regions found, block counts in a sane range, unchanged
// regions giving identical blocks, exact reassembly, determinism.

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// leafSet returns the bytes of every leaf, as a set.
func leafSet(res *Result) map[string]bool {
	m := map[string]bool{}
	for _, b := range res.Leaves {
		m[string(res.BlockBytes(b))] = true
	}
	return m
}

// Layouts that change often: between two captures years apart the
// guidelines were reworded throughout (informal to formal address), in
// every section. Each section — a heading and its paragraphs — is one
// block (rules.go, maxSectionText; the title leads the introduction),
// so the rewording stays inside the blocks: the layout is byte-identical
// and the blocks pair one to one, each flagged where it was reworded.
func TestCategoryLayoutChangesOften(t *testing.T) {
	old := mustPartition(t, testPage(t, "lovescout24-guidelines-2022.html"), Options{})
	cur := mustPartition(t, testPage(t, "lovescout24-guidelines-2026.html"), Options{})
	if !bytes.Equal(old.Layout.Encode(), cur.Layout.Encode()) {
		t.Fatal("the rewording should leave the layout as it was")
	}
	if len(old.Leaves) != len(cur.Leaves) || len(cur.Leaves) < 10 {
		t.Fatalf("%d and %d leaves: want the same sections in both", len(old.Leaves), len(cur.Leaves))
	}
	// Two sections ("Tipps", "Sicher sein") were reworded past Match's
	// similarity threshold; the others pair.
	var unpaired []string
	paired := 0
	for _, pr := range Match(old, cur, SimOptions{}) {
		if pr.Kind == Added || pr.Kind == Removed {
			unpaired = append(unpaired, pr.Kind.String()+" "+firstLine(pr.Old, pr.New))
		} else {
			paired++
		}
	}
	if paired < 10 {
		t.Fatalf("%d of %d leaves pair; unpaired: %q", paired, len(cur.Leaves), unpaired)
	}
	// A site-wide navigation change (one more menu item) changes the
	// layout but leaves every content block as it was.
	doc := testPage(t, "mkdocs-index-2014.html")
	nav := []byte(`<li><a href="#getting-started">Getting started</a></li>`)
	if !bytes.Contains(doc, nav) {
		t.Fatal("test page changed: menu item not found")
	}
	changed := bytes.Replace(doc, nav, append(append([]byte{}, nav...), []byte("\n<li><a href=\"#more\">More</a></li>")...), 1)
	a, b := mustPartition(t, doc, Options{}), mustPartition(t, changed, Options{})
	content := findBlock(a, func(x *Block) bool { return strings.Contains(x.Class, "content") })
	if content == nil {
		t.Fatal("no content block")
	}
	for _, l := range a.Leaves {
		if l.Start >= content.Start && l.End <= content.End && !leafSet(b)[string(a.BlockBytes(l))] {
			t.Fatalf("content leaf %s changed after a menu edit", l.Path)
		}
	}
}

// Tiny changes: one changed word changes exactly one leaf, and the
// layout stays byte-identical.
func TestCategoryTinyChanges(t *testing.T) {
	for _, name := range []string{"mkdocs-index-2014.html", "mektoube-privacy-2026.html", "article-4648a420.html.gz"} {
		doc := testPage(t, name)
		a := mustPartition(t, doc, Options{})
		// Change one vowel of the longest visible text node.
		var text *Node
		for _, n := range a.nodes {
			if n.Kind == TextNode && !a.StyleOf(n).Hidden && (text == nil || n.End-n.Start > text.End-text.Start) {
				text = n
			}
		}
		j := bytes.IndexAny(doc[text.Start:text.End], "aeiou")
		if j < 0 {
			t.Fatalf("%s: no vowel to change", name)
		}
		changed := append([]byte{}, doc...)
		changed[text.Start+j] = 'X'
		b := mustPartition(t, changed, Options{})
		if !bytes.Equal(a.Layout.Encode(), b.Layout.Encode()) {
			t.Fatalf("%s: a one-byte text change altered the layout", name)
		}
		diff := 0
		for k := range a.Leaves {
			if !bytes.Equal(a.BlockBytes(a.Leaves[k]), b.BlockBytes(b.Leaves[k])) {
				diff++
			}
		}
		if diff != 1 {
			t.Fatalf("%s: %d leaves differ, want 1", name, diff)
		}
	}
}

// regionsPage builds a page of three regions, each region wrapped in
// `wrap` levels of <div> (or tables when table is set).
func regionsPage(wrap int, table bool) []byte {
	var b strings.Builder
	b.WriteString("<html><body>")
	for r := 1; r <= 3; r++ {
		for i := 0; i < wrap; i++ {
			if table {
				b.WriteString("<table><tr><td>")
			} else {
				b.WriteString("<div class=w>")
			}
		}
		fmt.Fprintf(&b, "<section id=r%d><h2>Region %d</h2><p>%s</p><p>%s</p></section>", r, r, longText, longText)
		for i := 0; i < wrap; i++ {
			if table {
				b.WriteString("</td></tr></table>")
			} else {
				b.WriteString("</div>")
			}
		}
	}
	b.WriteString("</body></html>")
	return []byte(b.String())
}

// Abnormally complex structure: regions buried under 60 levels of
// wrapper divs or nested layout tables are still found as the level-1
// blocks, the wrappers going to the layout.
func TestCategoryComplexStructure(t *testing.T) {
	for _, table := range []bool{false, true} {
		res := mustPartition(t, regionsPage(60, table), Options{Level: 1})
		if len(res.Leaves) != 3 {
			t.Fatalf("table=%v: %d level-1 blocks, want the 3 regions", table, len(res.Leaves))
		}
		for i, l := range res.Leaves {
			if l.Tag != "section" && l.Tag != "table" && l.Tag != "div" {
				t.Fatalf("table=%v: leaf %d is <%s>", table, i, l.Tag)
			}
			if !bytes.Contains(res.BlockBytes(l), []byte(fmt.Sprintf("id=r%d", i+1))) {
				t.Fatalf("table=%v: leaf %d does not hold region %d", table, i, i+1)
			}
		}
	}
}

// Abnormally simple structure: a page that is one sentence is one
// block; a page with nothing visible has no block and is all layout.
func TestCategorySimpleStructure(t *testing.T) {
	doc := []byte("<html><head><title>T</title></head><body>Hello, world.</body></html>")
	res := mustPartition(t, doc, Options{})
	if len(res.Leaves) != 2 || res.Leaves[0].Tag != "head" || string(res.BlockBytes(res.Leaves[1])) != "<body>Hello, world.</body>" {
		t.Fatalf("want the head and the body as the blocks, got %d leaves", len(res.Leaves))
	}
	empty := mustPartition(t, []byte("<html><head></head><body> </body></html>"), Options{})
	if len(empty.Leaves) != 1 || empty.Leaves[0].Tag != "head" {
		t.Fatalf("an empty body should have no blocks (only the head), got %d", len(empty.Leaves))
	}
}

// Many scripts: scripts between regions are no blocks (they go to the
// layout); scripts inside a region are cut out of it as blocks of their
// own labelled script, so no content block holds one, the content blocks
// hold the same text as without the scripts, and where the scripts fall
// between the regions (level 3: paragraphs) the regions are found
// exactly as without them.
func TestCategoryManyScripts(t *testing.T) {
	plain := regionsPage(1, false)
	script := `<script>var x = "<div>not markup</div>"; document.write('<span>x</span>');</script>`
	noisy := bytes.ReplaceAll(plain, []byte("<p>"), []byte(script+"<p>"))
	noisy = bytes.ReplaceAll(noisy, []byte("<div class=w>"), []byte(script+"<div class=w>"+script))
	noisy = bytes.Replace(noisy, []byte("<body>"), []byte("<body>"+strings.Repeat(script+"\n", 50)), 1)
	for lv := 1; lv <= 3; lv++ {
		a := mustPartition(t, plain, Options{Level: lv})
		b := mustPartition(t, noisy, Options{Level: lv})
		var content []*Block
		for _, l := range b.Leaves {
			if l.Label == LabelScript {
				if string(b.BlockBytes(l)) != script {
					t.Fatalf("level %d: script block %s is %q", lv, l.Path, b.BlockBytes(l))
				}
				continue
			}
			if bytes.Contains(b.BlockBytes(l), []byte("<script")) {
				t.Fatalf("level %d: content block %s holds a script", lv, l.Path)
			}
			content = append(content, l)
		}
		var ta, tb []string
		for _, l := range a.Leaves {
			ta = append(ta, l.Text)
		}
		for _, l := range content {
			tb = append(tb, l.Text)
		}
		if strings.Join(strings.Fields(strings.Join(ta, " ")), " ") != strings.Join(strings.Fields(strings.Join(tb, " ")), " ") {
			t.Fatalf("level %d: content text differs with scripts:\n%q\n%q", lv, ta, tb)
		}
		if lv == 3 {
			if len(content) != len(a.Leaves) {
				t.Fatalf("level 3: %d content leaves (%d leaves) with scripts, %d without", len(content), len(b.Leaves), len(a.Leaves))
			}
			for i, l := range content {
				if !bytes.Equal(b.BlockBytes(l), a.BlockBytes(a.Leaves[i])) {
					t.Fatalf("level 3: leaf %d differs: %q", i, b.BlockBytes(l))
				}
			}
		}
	}
}

// High and low partition levels: leaves only ever split as the level
// rises, each leaf of level L+1 lies inside one leaf of level L, and
// past the tree's height more levels change nothing.
func TestCategoryHighLowLevels(t *testing.T) {
	doc := testPage(t, "article-ba07d1e6.html.gz")
	var prev *Result
	for lv := 1; lv <= 12; lv++ {
		res := mustPartition(t, doc, Options{Level: lv})
		if prev != nil {
			j := 0
			for _, l := range res.Leaves {
				for j < len(prev.Leaves) && prev.Leaves[j].End <= l.Start {
					j++
				}
				if j == len(prev.Leaves) || l.Start < prev.Leaves[j].Start || l.End > prev.Leaves[j].End {
					t.Fatalf("level %d leaf %s is not inside a level-%d leaf", lv, l.Path, lv-1)
				}
			}
			if textLeaves(res) < textLeaves(prev) {
				t.Fatalf("level %d has fewer leaves with text than level %d", lv, lv-1)
			}
		}
		prev = res
	}
	low := mustPartition(t, doc, Options{Level: 1})
	high := mustPartition(t, doc, Options{Level: 12})
	if textLeaves(low) >= textLeaves(high) || textLeaves(low) > 10 {
		t.Fatalf("level 1 (%d leaves with text) should be coarse and level 12 (%d) finer", textLeaves(low), textLeaves(high))
	}
	if treeSig(mustPartition(t, doc, Options{Level: 40})) != treeSig(high) {
		t.Fatal("levels past the block tree's height should change nothing")
	}
}

// Unstable levels: a redesign that adds or removes wrapper elements
// between captures moves the regions in the DOM but not in the block
// tree: the same leaves, byte for byte, at every level.
func TestCategoryUnstableLevels(t *testing.T) {
	for lv := 1; lv <= 3; lv++ {
		var sets []map[string]bool
		for _, wrap := range []int{0, 1, 5} {
			sets = append(sets, leafSet(mustPartition(t, regionsPage(wrap, false), Options{Level: lv})))
		}
		for w := 1; w < len(sets); w++ {
			for leaf := range sets[0] {
				if !sets[w][leaf] {
					t.Fatalf("level %d: leaf %.40q lost when regions gained wrappers", lv, leaf)
				}
			}
		}
	}
}

// textLeaves counts the leaves with visible text. Leaves split as the
// level rises, but the scripts cut out of a leaf of level L (carve.go)
// may lie between the blocks of level L+1, in its layout: so the count
// of all leaves may fall, not that of leaves with text.
func textLeaves(r *Result) int {
	k := 0
	for _, l := range r.Leaves {
		if l.Features.TextLen > 0 {
			k++
		}
	}
	return k
}

// firstLine is the first line of the text of whichever block is not nil.
func firstLine(a, b *Block) string {
	if a == nil {
		a = b
	}
	return strings.SplitN(a.Text, "\n", 2)[0]
}
