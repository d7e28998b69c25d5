package diff

import (
	"bytes"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/partition"
)

// apply rebuilds both texts from an edit script.
func apply(es []Edit) (a, b []string) {
	for _, e := range es {
		if e.Op != Insert {
			a = append(a, e.Words...)
		}
		if e.Op != Delete {
			b = append(b, e.Words...)
		}
	}
	return a, b
}

func edits(es []Edit) (n int) {
	for _, e := range es {
		if e.Op != Equal {
			n += len(e.Words)
		}
	}
	return n
}

func TestWords(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		want  string // rendered script
		edits int
	}{
		{"the quick brown fox", "the quick brown fox", "=[the quick brown fox]", 0},
		{"the quick brown fox", "the slow brown fox", "=[the] -[quick] +[slow] =[brown fox]", 2},
		{"a b c", "", "-[a b c]", 3},
		{"", "a b c", "+[a b c]", 3},
		{"valid until 1 March 2024", "valid until 1 June 2024 only", "=[valid until 1] -[March] +[June] =[2024] +[only]", 3},
		{"a b c d e", "a c d e b", "=[a] -[b] =[c d e] +[b]", 2},
	} {
		got := Words(strings.Fields(tc.a), strings.Fields(tc.b))
		var s []string
		for _, e := range got {
			s = append(s, string(e.Op)+"["+strings.Join(e.Words, " ")+"]")
		}
		if r := strings.Join(s, " "); r != tc.want || edits(got) != tc.edits {
			t.Errorf("Words(%q, %q) = %s (%d edits), want %s (%d)", tc.a, tc.b, r, edits(got), tc.want, tc.edits)
		}
	}
}

// TestWordsRandom checks on random texts that every script rebuilds both
// sides and is no longer than an LCS dynamic programme says is shortest.
func TestWordsRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	vocab := []string{"a", "b", "c", "d", "e"}
	for i := 0; i < 500; i++ {
		a := make([]string, rng.Intn(30))
		b := make([]string, rng.Intn(30))
		for j := range a {
			a[j] = vocab[rng.Intn(len(vocab))]
		}
		for j := range b {
			b[j] = vocab[rng.Intn(len(vocab))]
		}
		es := Words(a, b)
		ga, gb := apply(es)
		if !slices.Equal(ga, a) || !slices.Equal(gb, b) {
			t.Fatalf("script %v does not rebuild %v → %v", es, a, b)
		}
		if want := len(a) + len(b) - 2*lcs(a, b); edits(es) != want {
			t.Fatalf("%v → %v: %d edits, shortest is %d", a, b, edits(es), want)
		}
	}
}

func lcs(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

// TestWordsBounded: two unrelated long texts exceed the exact search's
// bound and still get a true (replace-all) script.
func TestWordsBounded(t *testing.T) {
	var a, b []string
	for i := 0; i < 5000; i++ {
		a = append(a, "x"+strings.Repeat("a", i%7))
		b = append(b, "y"+strings.Repeat("b", i%5))
	}
	es := Words(a, b)
	ga, gb := apply(es)
	if !slices.Equal(ga, a) || !slices.Equal(gb, b) || edits(es) != 10000 {
		t.Fatalf("bounded script wrong: %d edits", edits(es))
	}
}

func TestVisibleWords(t *testing.T) {
	want := []string{"Preis:", "10", "€"}
	for _, s := range []string{"Preis: 10 €", "Preis:\u00a010\u00a0€", " Preis:\n10\t€ ", "Preis:\u200b 10 €\u00ad", "Pre\x00is:\u200e 10 €"} {
		if got := VisibleWords(s); !slices.Equal(got, want) {
			t.Errorf("VisibleWords(%q) = %q", s, got)
		}
	}
}

func page(t *testing.T, html string) *partition.Result {
	t.Helper()
	res, err := partition.Partition([]byte(html), partition.Options{Level: 2})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

const pageTmpl = `<html><head><title>Policy</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/contact">Contact</a></nav>
<main>
<article><h1>Privacy policy</h1><p>We keep your data for %s and never sell it to anyone, whatever they offer.</p>
<script>window.__nonce = "%s";</script></article>
<aside><h2>Related</h2><p>Read our cookie statement and the terms of use before you sign up.</p></aside>
</main>
<footer><p>Copyright Example Ltd, all rights reserved, %s.</p></footer>
</body></html>`

func statuses(bs []Block) map[Status]int {
	m := map[Status]int{}
	for _, b := range bs {
		m[b.Status]++
	}
	return m
}

func TestCompare(t *testing.T) {
	base := page(t, sprintf(pageTmpl, "two years", "abc123", "2024"))
	t.Run("same", func(t *testing.T) {
		bs, sum := Compare(base, page(t, sprintf(pageTmpl, "two years", "abc123", "2024")))
		if sum.Changed() || sum.VisibleChange || sum.Unchanged != len(bs) || len(bs) < 3 {
			t.Errorf("identical pages: %+v over %d blocks", sum, len(bs))
		}
	})
	t.Run("nonce in script is a layout change", func(t *testing.T) {
		// The script is in the layout (docs/PARTITION.md "Islands"): no
		// block changed, yet the captures differ, and say where.
		newer := page(t, sprintf(pageTmpl, "two years", "zz9999", "2024"))
		bs, sum := Compare(base, newer)
		if sum.Unchanged != len(bs) || !sum.LayoutChanged || !sum.Changed() || sum.VisibleChange || sum.Verdict() != "layout change only" {
			t.Errorf("nonce: %+v (%v) %q", sum, statuses(bs), sum.Verdict())
		}
		if HistoryStatus(sum) != "markup-only" {
			t.Errorf("history status %q, want markup-only", HistoryStatus(sum))
		}
		lc := LayoutChange(base.Layout, newer.Layout)
		if lc == nil || !strings.Contains(lc.Old, "abc123") || !strings.Contains(lc.New, "zz9999") {
			t.Errorf("layout change %+v does not show the nonce", lc)
		}
		if LayoutChange(base.Layout, base.Layout) != nil {
			t.Error("a layout differs from itself")
		}
	})
	t.Run("nbsp and br are markup only", func(t *testing.T) {
		p := strings.Replace(sprintf(pageTmpl, "two years", "abc123", "2024"), "never sell it", "never&nbsp;sell<br>it", 1)
		_, sum := Compare(base, page(t, p))
		if sum.MarkupOnly != 1 || sum.VisibleChange {
			t.Errorf("nbsp/br: %+v", sum)
		}
	})
	t.Run("text edit", func(t *testing.T) {
		bs, sum := Compare(base, page(t, sprintf(pageTmpl, "five years", "abc123", "2024")))
		if sum.TextChanged != 1 || sum.MarkupOnly != 0 || !sum.VisibleChange || sum.WordsDeleted != 1 || sum.WordsInserted != 1 {
			t.Fatalf("text edit: %+v", sum)
		}
		for _, b := range bs {
			if b.Status != TextChanged {
				continue
			}
			var del, ins []string
			for _, e := range b.Words {
				switch e.Op {
				case Delete:
					del = append(del, e.Words...)
				case Insert:
					ins = append(ins, e.Words...)
				}
			}
			if !slices.Equal(del, []string{"two"}) || !slices.Equal(ins, []string{"five"}) {
				t.Errorf("words: -%q +%q", del, ins)
			}
			if !strings.Contains(b.New.Text, "five years") {
				t.Errorf("text-changed block is %s %q", b.New.Path, b.New.Text)
			}
		}
	})
	t.Run("moved", func(t *testing.T) {
		// The aside goes before the article.
		p := sprintf(pageTmpl, "two years", "abc123", "2024")
		i, j := strings.Index(p, "<article>"), strings.Index(p, "<aside>")
		k := strings.Index(p, "</aside>") + len("</aside>")
		moved := p[:i] + p[j:k] + p[i:j] + p[k:]
		bs, sum := Compare(base, page(t, moved))
		if sum.Moved != 1 || sum.Removed != 0 || sum.Added != 0 {
			t.Errorf("moved: %+v (%v)", sum, statuses(bs))
		}
	})
	t.Run("added and removed", func(t *testing.T) {
		p := sprintf(pageTmpl, "two years", "abc123", "2024")
		p = strings.Replace(p, "<footer>", `<section><h2>New notice</h2><p>From May we also store the IP address of each visit.</p></section><footer>`, 1)
		_, sum := Compare(base, page(t, p))
		if sum.Added < 1 || sum.Removed != 0 || sum.WordsInserted != 13 || !sum.VisibleChange {
			t.Errorf("added: %+v", sum)
		}
		_, sum = Compare(page(t, p), base)
		if sum.Removed < 1 || sum.Added != 0 || sum.WordsDeleted != 13 {
			t.Errorf("removed: %+v", sum)
		}
	})
	t.Run("first capture", func(t *testing.T) {
		bs, sum := Compare(nil, base)
		if sum.Added != len(bs) || len(bs) != len(base.Leaves) {
			t.Errorf("first: %+v", sum)
		}
	})
}

var sprintf = fmt.Sprintf

// TestRealign: a paragraph inserted before a slightly edited one of the
// same shape. Layout similarity can pair the edited paragraph with the new
// one (as Match may, given the run [modified(A→NEW), added(A')]); realign
// pairs by words: NEW added, A → A' changed.
func TestRealign(t *testing.T) {
	a := "Members may cancel their subscription at any time from the account settings page of the app."
	a2 := "Members may cancel their subscription at any time from the settings page of the app or the website."
	nw := "Gift cards cannot be exchanged for cash and expire twelve months after the day they were bought."
	old := page(t, "<html><body><main><p>"+a+"</p></main></body></html>")
	upd := page(t, "<html><body><main><p>"+nw+"</p><p>"+a2+"</p></main></body></html>")
	leaf := func(r *partition.Result, prefix string) *partition.Block {
		for _, b := range r.Leaves {
			if strings.HasPrefix(b.Text, prefix) {
				return b
			}
		}
		t.Fatalf("no leaf starting %q", prefix)
		return nil
	}
	oa, nn, na := leaf(old, "Members"), leaf(upd, "Gift"), leaf(upd, "Members")
	wrong := []partition.Pair{{Old: oa, New: nn, Kind: partition.Modified}, {New: na, Kind: partition.Added}}
	bs, sum := Classify(old, upd, wrong)
	if sum.TextChanged != 1 || sum.Added != 1 || sum.Removed != 0 {
		t.Fatalf("summary %+v (%v)", sum, statuses(bs))
	}
	if bs[0].Status != Added || bs[0].New != nn || bs[1].Status != TextChanged || bs[1].Old != oa || bs[1].New != na {
		t.Errorf("realigned %v %v, want NEW added then A → A' text-changed", bs[0].Status, bs[1].Status)
	}
	if edits(bs[1].Words) > 6 {
		t.Errorf("word diff of A → A' has %d edits: %v", edits(bs[1].Words), bs[1].Words)
	}
}

// TestChangedParts: inside a changed block, the parts flagged are the
// units that changed — the edited paragraph, the list item added — and
// the whole block when only its own tag changed.
func TestChangedParts(t *testing.T) {
	sec := func(p2, item, class string) string {
		return `<html><body><nav><a href="/">Home</a> <a href="/a">About</a></nav>
<div id=sec class="` + class + `"><h2>Storage</h2>
<p>We keep your data in the European Union, on servers we own, and back it up daily.</p>
<p>` + p2 + `</p>
<ul><li>Name</li><li>E-mail address</li>` + item + `</ul>
<p>Nothing else is kept about you or about the pages you read here.</p></div>
<footer><p>Copyright Example Ltd, all rights reserved.</p></footer></body></html>`
	}
	res := func(s string) *partition.Result {
		r, err := partition.Partition([]byte(s), partition.Options{Level: 1})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	changed := func(old, new *partition.Result) Block {
		t.Helper()
		bs, _ := Compare(old, new)
		var out []Block
		for _, b := range bs {
			if b.Status == TextChanged || b.Status == MarkupOnly {
				out = append(out, b)
			}
		}
		if len(out) != 1 {
			t.Fatalf("%d changed blocks, want 1 (%v)", len(out), statuses(bs))
		}
		return out[0]
	}
	texts := func(r *partition.Result, spans []Part) []string {
		var s []string
		for _, sp := range spans {
			s = append(s, string(r.Doc[sp.Start:sp.End]))
		}
		return s
	}
	a := res(sec("Logs are deleted after two weeks.", "", "policy"))
	b := res(sec("Logs are deleted after four weeks.", "<li>IP address</li>", "policy"))
	blk := changed(a, b)
	if got := texts(a, blk.OldParts); !slices.Equal(got, []string{"<p>Logs are deleted after two weeks.</p>"}) {
		t.Errorf("old parts %q", got)
	}
	if got := texts(b, blk.NewParts); !slices.Equal(got, []string{"<p>Logs are deleted after four weeks.</p>", "<li>IP address</li>"}) {
		t.Errorf("new parts %q", got)
	}
	if want := len(texts(a, blk.OldParts)[0]) + len(texts(b, blk.NewParts)[0]) + len(texts(b, blk.NewParts)[1]); blk.PartBytes() != want {
		t.Errorf("PartBytes %d, want %d", blk.PartBytes(), want)
	}
	if n := blk.New.End - blk.New.Start; n < 4*(blk.NewParts[0].End-blk.NewParts[0].Start) {
		t.Errorf("the parts are not smaller than the block (%d bytes)", n)
	}
	if blk.OldParts[0].MarkupOnly || blk.NewParts[0].MarkupOnly || blk.NewParts[1].MarkupOnly {
		t.Errorf("reworded parts said markup-only: %+v %+v", blk.OldParts, blk.NewParts)
	}
	// A paragraph re-marked-up (a word, and half of another, made bold)
	// is a markup-only part.
	d := res(sec("Logs are deleted after <b>two</b> we<i>eks</i>.", "", "policy"))
	blk = changed(a, d)
	if len(blk.NewParts) != 1 || !blk.NewParts[0].MarkupOnly || len(blk.OldParts) != 1 || !blk.OldParts[0].MarkupOnly {
		t.Errorf("re-marked-up paragraph: parts %+v / %+v, want one markup-only part each", blk.OldParts, blk.NewParts)
	}
	// Only the block's own start tag changed: the block is the part.
	c := res(sec("Logs are deleted after two weeks.", "", "policy wide"))
	blk = changed(a, c)
	if len(blk.NewParts) != 1 || blk.NewParts[0].Start != blk.New.Start || blk.NewParts[0].End != blk.New.End ||
		len(blk.OldParts) != 1 || blk.OldParts[0].Start != blk.Old.Start || blk.OldParts[0].End != blk.Old.End {
		t.Errorf("own-tag change: parts %v / %v, want the whole blocks", blk.OldParts, blk.NewParts)
	}
}

// TestSpanText: a part's text as a reader sees it, for telling a part
// re-marked-up from one reworded.
func TestSpanText(t *testing.T) {
	for in, want := range map[string]string{
		"Mash<b>mallow</b> x":            "Mashmallow x",
		"a<br>b":                         "a b",
		"a<br/>b":                        "a b",
		"a<script/>b":                    "ab",
		"a<script>var x = 1</script>b":   "ab",
		"a<style>p{}</style> &amp; b":    "a & b",
		"<a href='/x'>link</a> text":     "link text",
		"<template><p>t</p></template>z": "z",
	} {
		if got := spanText([]byte(in)); got != want {
			t.Errorf("spanText(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCommonEnds: the suffix never overlaps the prefix.
func TestCommonEnds(t *testing.T) {
	for _, c := range []struct {
		a, b string
		p, s int
	}{{"", "", 0, 0}, {"abc", "abc", 3, 0}, {"aa", "a", 1, 0}, {"a", "aa", 1, 0}, {"xabcy", "xaby", 3, 1}, {"abc", "xyz", 0, 0}, {"abXcd", "abYcd", 2, 2}} {
		if p, s := CommonEnds([]byte(c.a), []byte(c.b)); p != c.p || s != c.s {
			t.Errorf("CommonEnds(%q, %q) = %d, %d, want %d, %d", c.a, c.b, p, s, c.p, c.s)
		}
	}
}

// A change outside every block (a nonce in a script, which is layout) is
// named with its snippet in the text and on the -html page, never "No
// block changed" alone.
func TestReportLayoutChange(t *testing.T) {
	oldR := page(t, sprintf(pageTmpl, "two years", "abc123", "2024"))
	newR := page(t, sprintf(pageTmpl, "two years", "zz9999", "2024"))
	blocks, sum := Compare(oldR, newR)
	rep := NewReport("https://example.org/policy", 2, Side{Result: oldR}, Side{Result: newR}, blocks, sum)
	if rep.Layout == nil {
		t.Fatal("report has no layout change")
	}
	var txt bytes.Buffer
	if err := WriteText(&txt, rep, blocks, 3); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"layout change only", "outside every block", "abc123", "zz9999"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, txt.String())
		}
	}
	page := string(HTML(rep, oldR, newR, blocks))
	if strings.Contains(page, "<li>No block changed.</li>") || !strings.Contains(page, "No block changed; the page's layout did") || !strings.Contains(page, "&#34;zz9999&#34;") {
		t.Errorf("the -html page does not name the layout change")
	}
	// The same page twice: no layout line.
	blocks, sum = Compare(oldR, oldR)
	rep = NewReport("https://example.org/policy", 2, Side{Result: oldR}, Side{Result: oldR}, blocks, sum)
	if page := string(HTML(rep, oldR, oldR, blocks)); rep.Layout != nil || !strings.Contains(page, "<li>No block changed.</li>") {
		t.Errorf("identical captures: layout %+v", rep.Layout)
	}
}

// A cookie banner that moved in the DOM and whose button became a link
// is "moved and changed", and, being an overlay, no visible change.
func TestMovedAndChanged(t *testing.T) {
	banner := func(button string) string {
		return `<div role="dialog" id="consent"><p>We use cookies to make the site work and to count visits.</p>` + button + `</div>`
	}
	article := `<main><h1>Harbour</h1><p>The pier reopened on Monday after a year of repairs, and the town came to see it.</p><p>The quay follows in spring, when the money from the council arrives.</p></main>`
	level1 := func(doc string) *partition.Result {
		res, err := partition.Partition([]byte(doc), partition.Options{Level: 1})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// Level 1: the banner is one block.
	oldR := level1(`<html><body>` + banner(`<button>Accept all</button>`) + article + `</body></html>`)
	newR := level1(`<html><body>` + article + banner(`<a href="#ok">Accept all</a>`) + `</body></html>`)
	blocks, sum := Compare(oldR, newR)
	var moved *Block
	for i := range blocks {
		if blocks[i].Status == Moved {
			moved = &blocks[i]
		}
	}
	if moved == nil || !moved.Changed || sum.Moved != 1 {
		t.Fatalf("banner not moved and changed: %v %+v", statuses(blocks), sum)
	}
	if sum.VisibleChange || sum.Verdict() == "visible change" {
		t.Errorf("an overlay that moved is a visible change: %+v", sum)
	}
	rep := NewReport("https://example.org/", 1, Side{Result: oldR}, Side{Result: newR}, blocks, sum)
	var txt bytes.Buffer
	if err := WriteText(&txt, rep, blocks, 3); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(txt.String(), "moved+changed") || !strings.Contains(txt.String(), "button") {
		t.Errorf("text does not say moved and changed, with the markup:\n%s", txt.String())
	}
	if !strings.Contains(string(HTML(rep, oldR, newR, blocks)), `<span class="st">moved and changed</span>`) {
		t.Error("-html does not say moved and changed")
	}
}

// Two unrelated sections that share their common words (over 0.2 as
// word sets) are one removed and one added, not one rewritten into the
// other.
func TestRealignUnrelated(t *testing.T) {
	a := "The core of the package is the data model of the project, and the tools of the package are built on the core of it."
	b := "If you use the package in a paper, cite the project: the paper of the project and the version of the package you used are in the tools of it."
	words := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range VisibleWords(s) {
			m[w] = true
		}
		return m
	}
	wa, wb := words(a), words(b)
	inter := 0
	for w := range wa {
		if wb[w] {
			inter++
		}
	}
	if j := float64(inter) / float64(len(wa)+len(wb)-inter); j < minOverlap {
		t.Fatalf("premise: word Jaccard %.2f under %.2f", j, minOverlap)
	}
	nav := `<nav><a href="/">Home</a> <a href="/docs">Docs</a> <a href="/about">About</a></nav>`
	old := page(t, "<html><body>"+nav+`<main><section id="core"><h2>Core package</h2><p>`+a+"</p></section><footer>Example project</footer></main></body></html>")
	upd := page(t, "<html><body>"+nav+`<main><section id="citing"><h2>Citing</h2><p>`+b+"</p></section><footer>Example project</footer></main></body></html>")
	bs, sum := Compare(old, upd)
	for _, bl := range bs {
		if bl.Status == TextChanged && bl.Old != nil && bl.New != nil && strings.Contains(bl.Old.Text, "core of the package") && strings.Contains(bl.New.Text, "cite the paper") {
			t.Errorf("unrelated sections paired as one text change: %v", statuses(bs))
		}
	}
	if sum.Added == 0 || sum.Removed == 0 {
		t.Errorf("want the sections removed and added: %+v (%v)", sum, statuses(bs))
	}
}

// A capture that is another page altogether (a redirect's target
// recorded under the URL) is said so in one line; an edited page is not.
func TestOtherPage(t *testing.T) {
	policy := page(t, sprintf(pageTmpl, "two years", "abc123", "2024"))
	login := page(t, `<html><head><title>Sign in</title></head><body><div class="x1a"><h1>Sign in to your account</h1>`+
		`<form><label>Email address</label><input name="e"><label>Password</label><input type="password" name="p"><button>Continue</button></form>`+
		`<p>New here? Create an account in two minutes and start trading today.</p></div></body></html>`)
	blocks, sum := Compare(policy, login)
	if !sum.OtherPage || sum.Verdict() != "another page altogether" {
		t.Errorf("login page after the policy: %+v %q", sum, sum.Verdict())
	}
	rep := NewReport("https://example.org/policy", 2, Side{Result: policy}, Side{Result: login}, blocks, sum)
	var txt bytes.Buffer
	if err := WriteText(&txt, rep, blocks, 3); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(txt.String(), ": another page altogether;") {
		t.Errorf("text has no one-line summary:\n%s", txt.String())
	}
	edited := page(t, strings.Replace(sprintf(pageTmpl, "five years", "zz9", "2025"), "Read our cookie statement", "Read the cookie statement we rewrote", 1))
	if _, sum := Compare(policy, edited); sum.OtherPage || !sum.VisibleChange {
		t.Errorf("an edited page is another page: %+v", sum)
	}
}

// TestAppendWordsAsVisibleWords: PageWords' one-pass split gives
// VisibleWords' words on random text of spaces of every kind, invisible
// characters, invalid UTF-8 and letters.
func TestAppendWordsAsVisibleWords(t *testing.T) {
	parts := []string{"a", "bé", " ", "\u00a0", "\u2003", "\n\t", "\u200b", "\u00ad", "\x00", "\xff", "\xe2\x80", "日本", "\u3000", "x\u0301"}
	rng := rand.New(rand.NewSource(7))
	for range 20000 {
		var b strings.Builder
		for range rng.Intn(12) {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		s := b.String()
		want := VisibleWords(s)
		got := appendWords([]string{"kept"}, s)
		if got[0] != "kept" || !slices.Equal(got[1:], want) {
			t.Fatalf("%q: appendWords %q, VisibleWords %q", s, got[1:], want)
		}
	}
}
