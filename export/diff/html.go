package diff

import (
	"bytes"
	"fmt"
	"html"
	"sort"
	"strconv"
	"strings"

	xhtml "golang.org/x/net/html"

	"github.com/blockwarc/blockwarc/export/blockview"
	"github.com/blockwarc/blockwarc/partition"
)

// The -html page of diff: two captures, each as an <iframe srcdoc>
// sandboxed without scripts (the captured pages' scripts never run), the
// whole page under a Content-Security-Policy that forbids every fetch (a
// captured page's images and style sheets point at the live web, and the
// page must be looked at offline without calling it). The pages' own
// bytes are kept; only attributes on the blocks' start tags, <span>
// wrappers (around blocks that do not begin with their own start tag),
// <ins>/<del> around changed words and one <style> element are inserted.

// mark is one insertion into a captured page. At one offset, closing
// marks go before opening ones so the inserted elements nest.
type mark struct {
	at   int
	prio int // 0 close word, 1 close block, 2 open block, 3 deleted words, 4 open word
	text string
}

const diffPageCSS = `<style>/* inserted by blockwarc diff -html */
[data-bw-status]{outline-offset:-2px}
[data-bw-status=text-changed]{outline:3px solid #d84315!important}
[data-bw-status=markup-only]{outline:2px dashed #757575!important}
[data-bw-status=added]{outline:3px solid #2e7d32!important}
[data-bw-status=removed]{outline:3px solid #c62828!important}
[data-bw-status=moved]{outline:3px solid #1565c0!important}
span[data-bw-status]{display:block}
[data-bw-part=text]{background-color:rgba(255,214,0,.22)!important;box-shadow:inset 3px 0 0 #f9a825!important}
[data-bw-part=markup]{box-shadow:inset 3px 0 0 #9e9e9e!important}
span[data-bw-part]{display:inline}
ins.bw-ins{background:#c8f7c5!important;color:#000!important;text-decoration:none!important}
del.bw-del{background:#ffd0d0!important;color:#000!important;text-decoration:line-through!important}
del.bw-del-p{display:block!important;margin:.5em 0!important;padding:0 .25em!important;font-weight:400!important;font-size:1rem!important;line-height:1.5!important;text-align:start!important;text-transform:none!important;letter-spacing:normal!important}
del.bw-del-p[data-bw-from=heading]{font-weight:700!important}
</style>`

// markedPage returns the captured page of one side with the blocks of the
// comparison marked: side "new" outlines every changed block of the later
// capture and marks inserted and deleted words in place; side "old"
// outlines removed, changed and moved blocks of the earlier capture and
// marks deleted words. other is the other capture's partition: where
// the later side shows deleted words, they keep the paragraphs they
// stood in there. The result is UTF-8, for srcdoc.
func markedPage(res, other *partition.Result, blocks []Block, newSide bool) string {
	doc := res.Doc
	marks := []mark{{at: blockview.StyleOffset(res), prio: 3, text: diffPageCSS}}
	for i, b := range blocks {
		blk := b.Old
		if newSide {
			blk = b.New
		}
		if blk == nil || b.Status == Unchanged {
			continue
		}
		attrs := ` data-bw-status="` + string(b.Status) + `" data-bw-i="` + strconv.Itoa(i) + `"`
		if at, ok := blockview.StartTagNameEnd(doc, blk); ok {
			marks = append(marks, mark{at, 2, attrs})
		} else {
			marks = append(marks, mark{blk.Start, 2, "<span" + attrs + ">"}, mark{blk.End, 1, "</span>" + blockview.WrapEnd})
		}
		if len(b.Words) > 0 {
			var groups [][]delGroup
			if newSide && b.Old != nil && other != nil {
				groups = deletedGroups(other, b.Old, b.Words)
			}
			marks = append(marks, wordMarks(res, blk, b.Words, newSide, groups)...)
		}
		parts := b.OldParts
		if newSide {
			parts = b.NewParts
		}
		marks = append(marks, partMarks(doc, blk, parts)...)
	}
	sort.SliceStable(marks, func(i, j int) bool {
		if marks[i].at != marks[j].at {
			return marks[i].at < marks[j].at
		}
		return marks[i].prio < marks[j].prio
	})
	var out bytes.Buffer
	at := 0
	for _, m := range marks {
		out.Write(doc[at:m.at])
		out.WriteString(m.text)
		at = m.at
	}
	out.Write(doc[at:])
	return partition.DecodeText(out.Bytes(), res.Charset)
}

// partMarks marks the changed parts of a changed block (Block's
// OldParts or NewParts) unless the part is the whole block, which the
// block's outline already shows: an element part gets an attribute on
// its start tag (a <span> around a table cell or list item would be
// moved out of its table or list by the parser), a run of inline content
// a <span>.
func partMarks(doc []byte, blk *partition.Block, parts []Part) []mark {
	var marks []mark
	for _, p := range parts {
		if p.Start <= blk.Start && p.End >= blk.End {
			continue
		}
		kind := "text"
		if p.MarkupOnly {
			kind = "markup"
		}
		if p.Element {
			if at, ok := blockview.TagNameEnd(doc, p.Start, p.End); ok {
				marks = append(marks, mark{at, 2, ` data-bw-part="` + kind + `"`})
				continue
			}
		}
		marks = append(marks, mark{p.Start, 2, `<span data-bw-part="` + kind + `">`}, mark{p.End, 1, "</span>" + blockview.WrapEnd})
	}
	return marks
}

// wordRun is a run of non-space bytes of a text node of the page, with
// the visible words it reads as.
type wordRun struct {
	start, end int
	tok        int // index of the text token holding the run
	words      []string
}

// rawTextTags hold no text a reader sees (or text that cannot carry
// markup: RCDATA), so no word marks go inside them.
var rawTextTags = map[string]bool{
	"script": true, "style": true, "textarea": true, "title": true, "xmp": true, "iframe": true,
	"noembed": true, "noframes": true, "noscript": true, "template": true, "plaintext": true,
	"select": true, "option": true, "svg": true, "math": true, "head": true,
}

// wordRuns tokenizes a block's bytes and returns its text's runs of
// non-space bytes in order, each with its words as the reader sees them
// (charset decoded, entities resolved: "a&nbsp;b" is one run, two words).
func wordRuns(res *partition.Result, b *partition.Block) []wordRun {
	doc := res.Doc
	z := xhtml.NewTokenizer(bytes.NewReader(doc[b.Start:b.End]))
	var runs []wordRun
	off := b.Start
	skip := 0 // depth inside raw-text elements
	for tok := 0; ; tok++ {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			return runs
		}
		raw := z.Raw()
		start := off
		off += len(raw)
		switch tt {
		case xhtml.StartTagToken:
			if name, _ := z.TagName(); rawTextTags[string(name)] {
				skip++
			}
		case xhtml.EndTagToken:
			if name, _ := z.TagName(); rawTextTags[string(name)] && skip > 0 {
				skip--
			}
		case xhtml.TextToken:
			if skip > 0 {
				continue
			}
			for i := 0; i < len(raw); {
				for i < len(raw) && isSpaceByte(raw[i]) {
					i++
				}
				j := i
				for j < len(raw) && !isSpaceByte(raw[j]) {
					j++
				}
				if j > i {
					text := html.UnescapeString(partition.DecodeText(raw[i:j], res.Charset))
					if w := VisibleWords(text); len(w) > 0 {
						runs = append(runs, wordRun{start + i, start + j, tok, w})
					}
				}
				i = j
			}
		}
	}
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// resync is how far ahead a word is looked for when the block's text (which
// leaves hidden elements out) and its raw runs disagree.
const resync = 64

// wordMarks places <ins> around the runs holding inserted words (newSide)
// and <del> with the deleted words where they were, by walking the edit
// script along the block's runs. groups (newSide, when the earlier
// block is known) are the deleted words of each edit by the paragraph
// they stood in (deletedGroups): deleted paragraphs are drawn as
// paragraphs of their own between this side's (asBlocks), not run into
// the text, or the heading, that follows them here.
func wordMarks(res *partition.Result, b *partition.Block, es []Edit, newSide bool, groups [][]delGroup) []mark {
	runs := wordRuns(res, b)
	units := res.Units(b)
	type word struct {
		s   string
		run int
	}
	var flat []word
	for i, r := range runs {
		for _, w := range r.words {
			flat = append(flat, word{w, i})
		}
	}
	var marks []mark
	marked := map[int]bool{}
	lastRun, lastClose := -2, -1 // the latest wrapped run and its closing mark
	pos := 0                     // next word of flat
	// find returns the index of w at or after pos within the resync window.
	find := func(w string) int {
		for k := pos; k < len(flat) && k < pos+resync; k++ {
			if flat[k].s == w {
				return k
			}
		}
		return -1
	}
	here := func() int { // offset where deleted words are shown
		if pos < len(flat) {
			return runs[flat[pos].run].start
		}
		if len(runs) > 0 {
			return runs[len(runs)-1].end
		}
		return b.End
	}
	// boundary returns where deleted paragraphs go, between units of
	// this side: before the unit holding the next word when that word is
	// its first, else after it (its words before were before them); and
	// whether that unit is a heading, where inline deleted words would
	// be drawn.
	boundary := func() (int, bool) {
		if pos < len(flat) {
			at := runs[flat[pos].run].start
			u := unitAt(units, at)
			if u < 0 {
				return at, false
			}
			if pos == 0 || runs[flat[pos-1].run].start < units[u].Start {
				return units[u].Start, headingUnit(res.Doc, units[u])
			}
			return units[u].End, headingUnit(res.Doc, units[u])
		}
		if len(runs) == 0 {
			return b.End, false
		}
		end := runs[len(runs)-1].end
		if u := unitAt(units, end-1); u >= 0 {
			return units[u].End, headingUnit(res.Doc, units[u])
		}
		return end, false
	}
	for ei, e := range es {
		mine := e.Op == Equal || (e.Op == Insert) == newSide
		if !mine {
			if newSide { // deleted words, shown where they were
				lastRun = -2
				var gs []delGroup
				if ei < len(groups) {
					gs = groups[ei]
				}
				if at, heading := boundary(); asBlocks(gs, heading) {
					var h strings.Builder
					for _, g := range gs {
						from := ""
						if g.heading {
							from = ` data-bw-from="heading"`
						}
						h.WriteString(`<del class="bw-del bw-del-p"` + from + `>` + textEscape(strings.Join(g.words, " ")) + `</del>`)
					}
					marks = append(marks, mark{at, 3, h.String()})
					continue
				}
				marks = append(marks, mark{here(), 3, ` <del class="bw-del">` + textEscape(strings.Join(e.Words, " ")) + `</del> `})
			}
			continue
		}
		for _, w := range e.Words {
			k := find(w)
			if k < 0 {
				continue // hidden or re-tokenised text: no mark rather than a wrong one
			}
			pos = k + 1
			if e.Op == Equal {
				lastRun = -2
				continue
			}
			if marked[flat[k].run] {
				continue
			}
			marked[flat[k].run] = true
			r := runs[flat[k].run]
			if flat[k].run == lastRun+1 && runs[lastRun].tok == r.tok {
				// The next run of the same text: one mark over both.
				marks[lastClose].at = r.end
				lastRun = flat[k].run
				continue
			}
			tag := "ins"
			if !newSide {
				tag = "del"
			}
			marks = append(marks, mark{r.start, 4, `<` + tag + ` class="bw-` + tag + `">`}, mark{r.end, 0, `</` + tag + `>`})
			lastRun, lastClose = flat[k].run, len(marks)-1
		}
	}
	return marks
}

// delGroup is a run of deleted words that stood in one unit (a
// paragraph, a heading, a list item: partition.Result.Units) of the
// earlier capture's block.
type delGroup struct {
	words   []string
	whole   bool // every word of its unit was deleted: a deleted paragraph
	heading bool // its unit is a heading
}

// deletedGroups returns, for each edit of es, its deleted words grouped
// by the unit of old block b (of res, the earlier capture) they stood
// in. The block's words (the edit script's, from its rendered text) are
// aligned with the words of its raw text runs by a word diff, not
// walked as wordMarks walks them: a word the two read differently
// ("extensions." across a link's end tag) would send a walk to a later
// "the" in another paragraph. A word not aligned keeps the unit of the
// word before.
func deletedGroups(res *partition.Result, b *partition.Block, es []Edit) [][]delGroup {
	runs := wordRuns(res, b)
	units := res.Units(b)
	var raw []string
	var rawUnit []int
	total := make([]int, len(units))
	for _, r := range runs {
		u := unitAt(units, r.start)
		for _, w := range r.words {
			raw, rawUnit = append(raw, w), append(rawUnit, u)
			if u >= 0 {
				total[u]++
			}
		}
	}
	var text []string
	for _, e := range es {
		if e.Op != Insert {
			text = append(text, e.Words...)
		}
	}
	textUnit := make([]int, 0, len(text))
	u, j := -1, 0
	for _, e := range Words(text, raw) {
		switch e.Op {
		case Equal:
			for range e.Words {
				u = rawUnit[j]
				textUnit = append(textUnit, u)
				j++
			}
		case Delete: // in the text, not in the runs
			for range e.Words {
				textUnit = append(textUnit, u)
			}
		case Insert:
			j += len(e.Words)
		}
	}
	deleted := make([]int, len(units))
	groups := make([][]delGroup, len(es))
	unitOf := make([][]int, len(es)) // the unit of each group
	i := 0                           // next word of text
	for ei, e := range es {
		if e.Op == Insert {
			continue
		}
		if e.Op == Equal {
			i += len(e.Words)
			continue
		}
		for _, w := range e.Words {
			u := textUnit[i]
			i++
			if g := groups[ei]; len(g) == 0 || unitOf[ei][len(g)-1] != u {
				groups[ei] = append(g, delGroup{heading: u >= 0 && headingUnit(res.Doc, units[u])})
				unitOf[ei] = append(unitOf[ei], u)
			}
			g := &groups[ei][len(groups[ei])-1]
			g.words = append(g.words, w)
			if u >= 0 {
				deleted[u]++
			}
		}
	}
	for ei := range groups {
		for gi := range groups[ei] {
			if u := unitOf[ei][gi]; u >= 0 {
				groups[ei][gi].whole = deleted[u] >= total[u]
			}
		}
	}
	return groups
}

// asBlocks reports whether deleted words gs are drawn as paragraphs of
// their own: when they hold a whole paragraph (or heading) of the
// earlier capture, or when inline they would be drawn inside a heading
// here (heading) that they were not part of.
func asBlocks(gs []delGroup, heading bool) bool {
	for _, g := range gs {
		if g.whole || heading && !g.heading {
			return true
		}
	}
	return false
}

// unitAt returns the index of the unit holding byte off, or -1.
func unitAt(units []partition.Span, off int) int {
	i := sort.Search(len(units), func(i int) bool { return units[i].End > off })
	if i < len(units) && units[i].Start <= off {
		return i
	}
	return -1
}

// headingUnit reports whether unit u is a heading element (h1–h6).
func headingUnit(doc []byte, u partition.Span) bool {
	if !u.Element {
		return false
	}
	i, ok := blockview.TagNameEnd(doc, u.Start, u.End)
	if !ok || i-u.Start != 3 {
		return false
	}
	t := doc[u.Start+1 : i]
	return (t[0] == 'h' || t[0] == 'H') && t[1] >= '1' && t[1] <= '6'
}

// textEscape escapes s for HTML text, non-ASCII as character references
// (the page may be in any charset until it is decoded).
func textEscape(s string) string { return blockview.AttrEscape(s) }

// HTML renders rep, the comparison of oldRes with newRes that found
// blocks, as one self-contained page.
func HTML(rep *Report, oldRes, newRes *partition.Result, blocks []Block) []byte {
	var b strings.Builder
	title := "blockwarc diff: " + rep.URL
	s := rep.Summary
	b.WriteString(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'unsafe-inline'; frame-src 'self' about:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>` + html.EscapeString(title) + `</title>
<style>
*{box-sizing:border-box}
html,body{margin:0;height:100%;font:14px/1.4 system-ui,-apple-system,"DejaVu Sans",sans-serif;color:#1b1b1b}
body{display:flex;flex-direction:column}
header{padding:8px 14px;border-bottom:1px solid #ccc;background:#f6f6f4}
header h1{font-size:15px;margin:0 0 4px;word-break:break-all}
header .meta{color:#444}
header .verdict{font-weight:600}
header .note{color:#8a4b00}
header button{font:inherit;margin-left:8px;padding:2px 10px;border:1px solid #888;border-radius:3px;background:#fff;cursor:pointer}
header button[aria-pressed=true]{background:#1b1b1b;color:#fff}
main{flex:1;display:flex;min-height:0}
iframe{flex:1;border:0;min-width:0;background:#fff}
iframe[hidden]{display:none}
aside{width:380px;overflow:auto;border-left:1px solid #ccc;padding:8px 12px;background:#fcfcfb}
aside h2{font-size:13px;margin:6px 0;text-transform:uppercase;letter-spacing:.04em;color:#555}
aside ol{list-style:none;margin:0;padding:0}
aside li{margin:0 0 8px;padding:6px 8px;border-left:4px solid #999;background:#fff;cursor:pointer}
aside li:hover{background:#f0f4ff}
aside .st{font-weight:600}
aside .path{font-family:monospace;color:#555}
aside .words{margin-top:3px;font-size:13px;overflow-wrap:anywhere}
aside .parts{margin-top:2px;font-size:12px;color:#555}
aside .markup{margin-top:3px;font:12px/1.3 monospace;overflow-wrap:anywhere}
li.text-changed{border-color:#d84315}li.markup-only{border-color:#757575;border-left-style:dashed}
li.added{border-color:#2e7d32}li.removed{border-color:#c62828}li.moved{border-color:#1565c0}
ins{background:#c8f7c5;text-decoration:none}del{background:#ffd0d0}
.legend span{display:inline-block;margin-right:10px}
.sw{display:inline-block;width:10px;height:10px;margin-right:3px;vertical-align:-1px}
</style></head>
<body data-changed="`)
	changed := 0
	for _, bl := range blocks {
		if bl.Status != Unchanged && bl.Status != Removed {
			changed++
		}
	}
	b.WriteString(strconv.Itoa(changed) + `">
<header><h1>` + html.EscapeString(rep.URL) + `</h1>
<div class="meta">`)
	verdict := s.Verdict()
	fmt.Fprintf(&b, `<span class="verdict">%s</span> between <b>%s</b> and <b>%s</b> (%s): %d text-changed, %d markup-only, %d added, %d removed, %d moved, %d unchanged; %d words deleted, %d inserted.`,
		verdict, html.EscapeString(rep.From.Date), html.EscapeString(rep.To.Date), levelName(rep.Level),
		s.TextChanged, s.MarkupOnly, s.Added, s.Removed, s.Moved, s.Unchanged, s.WordsDeleted, s.WordsInserted)
	b.WriteString(`
<button id="show-new" aria-pressed="true">later capture</button><button id="show-old" aria-pressed="false">earlier capture</button></div>
`)
	if n := shownNote(rep.From.Partition, rep.To.Partition); n != "" {
		b.WriteString(`<div class="note">Note: ` + html.EscapeString(n) + `</div>
`)
	}
	b.WriteString(`<div class="legend"><span><i class="sw" style="background:#d84315"></i>text changed</span><span><i class="sw" style="background:#757575"></i>markup only</span><span><i class="sw" style="background:#2e7d32"></i>added</span><span><i class="sw" style="background:#c62828"></i>removed (earlier capture)</span><span><i class="sw" style="background:#1565c0"></i>moved</span><span><ins>inserted</ins> <del>deleted</del> words</span></div>
</header>
<main>
<iframe id="new" title="later capture" sandbox="allow-same-origin" srcdoc="`)
	b.WriteString(html.EscapeString(markedPage(newRes, oldRes, blocks, true)))
	b.WriteString(`"></iframe>
<iframe id="old" title="earlier capture" hidden sandbox="allow-same-origin" srcdoc="`)
	b.WriteString(html.EscapeString(markedPage(oldRes, newRes, blocks, false)))
	b.WriteString(`"></iframe>
<aside><h2>Changes</h2><ol>`)
	n := 0
	for i, bl := range blocks {
		if bl.Status == Unchanged {
			continue
		}
		n++
		c := rep.Blocks[i]
		side := "new"
		if bl.Status == Removed {
			side = "old"
		}
		st := string(c.Status)
		if c.Changed {
			st = "moved and changed"
		}
		fmt.Fprintf(&b, `<li class="%s" data-i="%d" data-side="%s"><span class="st">%s</span> <span class="path">%s</span> %s &lt;%s&gt;`,
			c.Status, i, side, st, html.EscapeString(c.Path), html.EscapeString(orDash(c.Label)), html.EscapeString(c.Tag))
		if len(c.Topic) > 0 {
			b.WriteString(` — ` + html.EscapeString(blockview.OneLine(strings.Join(c.Topic, " "), 60)))
		}
		switch {
		case len(bl.Words) > 0:
			b.WriteString(`<div class="words">` + wordDiffHTML(bl.Words, 8) + `</div>`)
		case bl.Status == MarkupOnly || c.Changed:
			b.WriteString(`<div class="words">markup changed; the visible text is the same</div>`)
			if c.Markup != nil {
				b.WriteString(`<div class="markup"><del>` + html.EscapeString(c.Markup.Old) + `</del> → <ins>` + html.EscapeString(c.Markup.New) + `</ins></div>`)
			}
		}
		if c.PartBytes > 0 && c.PartBytes < c.OldBytes+c.NewBytes {
			parts, noun := max(len(c.OldParts), len(c.NewParts)), "parts"
			if parts == 1 {
				noun = "part"
			}
			fmt.Fprintf(&b, `<div class="parts">in %d %s of the block (marked): %d of its %d bytes, both captures</div>`,
				parts, noun, c.PartBytes, c.OldBytes+c.NewBytes)
		}
		b.WriteString("</li>\n")
	}
	if rep.Layout != nil {
		// Outside every block: no block to outline, so the snippet is the
		// whole account of it.
		lead := "The page's layout changed outside every block"
		if n == 0 {
			lead = "No block changed; the page's layout did, outside every block"
		}
		b.WriteString(`<li class="markup-only"><span class="st">layout</span> ` + lead + `:<div class="markup"><del>` +
			html.EscapeString(rep.Layout.Old) + `</del> → <ins>` + html.EscapeString(rep.Layout.New) + `</ins></div></li>`)
	} else if n == 0 {
		b.WriteString("<li>No block changed.</li>")
	}
	b.WriteString(`</ol></aside></main>
<script>
(function () {
  var fNew = document.getElementById('new'), fOld = document.getElementById('old');
  var bNew = document.getElementById('show-new'), bOld = document.getElementById('show-old');
  function show(side) {
    fNew.hidden = side !== 'new'; fOld.hidden = side !== 'old';
    bNew.setAttribute('aria-pressed', side === 'new'); bOld.setAttribute('aria-pressed', side === 'old');
  }
  bNew.onclick = function () { show('new'); };
  bOld.onclick = function () { show('old'); };
  document.querySelectorAll('aside li[data-i]').forEach(function (li) {
    li.onclick = function () {
      var side = li.getAttribute('data-side'); show(side);
      var f = side === 'new' ? fNew : fOld, d = f.contentDocument;
      var el = d && d.querySelector('[data-bw-i="' + li.getAttribute('data-i') + '"]');
      if (el) el.scrollIntoView({block: 'center'});
    };
  });
  // For tests and for the curious: how many changed blocks of the later
  // capture are drawn outlined, and how many changed parts highlighted.
  function count() {
    var d = fNew.contentDocument; if (!d) return;
    var n = 0;
    d.querySelectorAll('[data-bw-status]').forEach(function (el) {
      var cs = d.defaultView.getComputedStyle(el);
      if (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0) n++;
    });
    document.body.setAttribute('data-outlined', n);
    var p = 0; // changed parts drawn highlighted
    d.querySelectorAll('[data-bw-part]').forEach(function (el) {
      if (d.defaultView.getComputedStyle(el).boxShadow !== 'none') p++;
    });
    document.body.setAttribute('data-parts', p);
  }
  // Open on the first change a reader sees: inserted words, else a
  // changed, added or moved block.
  function first() {
    var d = fNew.contentDocument; if (!d) return;
    var el = d.querySelector('ins.bw-ins, del.bw-del') ||
      d.querySelector('[data-bw-status=text-changed], [data-bw-status=added], [data-bw-status=moved]');
    if (el) el.scrollIntoView({block: 'center'});
  }
  function loaded() { count(); first(); }
  if (fNew.contentDocument && fNew.contentDocument.readyState === 'complete') loaded();
  fNew.addEventListener('load', loaded);
})();
</script>
</body></html>
`)
	return []byte(b.String())
}

// wordDiffHTML renders an edit script with <del>/<ins>, keeping context
// words around each change.
func wordDiffHTML(es []Edit, context int) string {
	var parts []string
	for i, e := range es {
		switch e.Op {
		case Equal:
			parts = append(parts, html.EscapeString(elide(e.Words, i > 0, i < len(es)-1, context)))
		case Delete, Insert:
			tag := "del"
			if e.Op == Insert {
				tag = "ins"
			}
			parts = append(parts, "<"+tag+">"+html.EscapeString(shownWords(e.Words))+"</"+tag+">")
		}
	}
	return strings.Join(parts, " ")
}
