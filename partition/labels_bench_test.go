package partition

import (
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Word-level label figures (issue 35), on the article-extraction pages
// with the main-text benchmark's SHA-256 halves (pageHalf), and on the
// hand-labelled region set's related-link regions (its own halves):
//
//   - side: the share of the words of the kept blocks on the right side
//     of content/boilerplate. A word is the article's when the article
//     body of the ground truth covers it (4-token shingles, taken once,
//     in page order, as unmatchedText does) or when it is a word of the
//     headline (below); the article's side is the labels content and
//     title.
//   - headline: the share of the headline's words labelled title. The
//     headline is the page's schema.org "headline" (JSON-LD: page data a
//     browser does not show, written by the publisher, not by us; pages
//     without one are not counted), found in the kept blocks' words as
//     the run of its words nearest before the article body's first word
//     (after it when none is before) that covers at least 60 % of them.
//   - comment: the share of comment words labelled content: words not
//     the article's inside an element named as a comment thread
//     (comment, comments, disqus, respond: commentCues) or marked
//     schema.org Comment.
//   - related: the share of related-article words labelled content: words
//     not the article's inside an aside, role=complementary or an element
//     named as a list of other articles (relatedNames), and the words of
//     the region set's regions that allow related-links and not content.

type labelCounts struct {
	words, right          int // kept-block words; on the right side
	headline, headTitle   int // headline words found; labelled title
	comment, commentCont  int // comment words; labelled content
	related, relatedCont  int // related-link words; labelled content
	pagesHeadline, pages  int
	wrongSide, missedHead []string
}

var ldHeadline = regexp.MustCompile(`"headline"\s*:\s*"((?:[^"\\]|\\.)*)"`)

// pageHeadline returns the schema.org headline of a page's JSON-LD, or "".
func pageHeadline(doc []byte) string {
	m := ldHeadline.FindSubmatch(doc)
	if m == nil {
		return ""
	}
	var s string
	if err := json.Unmarshal([]byte(`"`+string(m[1])+`"`), &s); err != nil {
		return ""
	}
	return html.UnescapeString(s)
}

type labelledWord struct {
	tok   string
	label Label
	leaf  int
}

// pageWords returns the words of the kept blocks in document order.
func pageWords(res *Result) []labelledWord {
	var out []labelledWord
	for i, l := range res.Leaves {
		for _, w := range wordTokens(l.Text) {
			out = append(out, labelledWord{w, l.Label, i})
		}
	}
	return out
}

// coverWords marks the words of ws covered by truth's 4-token shingles,
// each taken once, in page order.
func coverWords(ws []labelledWord, truth string) []bool {
	const n = 4
	avail := shingles(truth)
	covered := make([]bool, len(ws))
	if len(ws) == 0 {
		return covered
	}
	for i := 0; i < max(1, len(ws)-n+1); i++ {
		toks := make([]string, 0, n)
		for j := i; j < min(i+n, len(ws)); j++ {
			toks = append(toks, ws[j].tok)
		}
		if k := strings.Join(toks, " "); avail[k] > 0 {
			avail[k]--
			for j := i; j < min(i+n, len(ws)); j++ {
				covered[j] = true
			}
		}
	}
	return covered
}

// headlineRun returns the positions of ws that are the headline's words
// (see the file comment), or nil.
func headlineRun(ws []labelledWord, headline string, body []bool) []int {
	h := wordTokens(headline)
	if len(h) == 0 {
		return nil
	}
	first := slices.Index(body, true)
	if first < 0 {
		first = len(ws)
	}
	best, bestDist := []int(nil), 0
	for i := 0; i+len(h) <= len(ws); i++ {
		var hit []int
		for k := range h {
			if strings.EqualFold(ws[i+k].tok, h[k]) {
				hit = append(hit, i+k)
			}
		}
		if len(hit) == 0 || 10*len(hit) < 6*len(h) || !strings.EqualFold(ws[i].tok, h[0]) {
			continue
		}
		dist := first - i // before the body: distance; after: penalised
		if dist < 0 {
			dist = len(ws) - dist
		}
		if best == nil || dist < bestDist {
			best, bestDist = hit, dist
		}
	}
	return best
}

var relatedNames = cues("related recommended recommendations popular trending readmore more")

// inRelatedList reports whether n lies inside an element named as a list
// of other articles (relatedNames) or in an aside or role=complementary.
func inRelatedList(n *Node) bool {
	if inComplementary(n) {
		return true
	}
	for a := n; a != nil; a = a.Parent {
		if a.Kind == ElementNode && hasCue(nameTokens(a.Attr("id"), a.Attr("class")), relatedNames) {
			return true
		}
	}
	return false
}

func articleSide(l Label) bool { return l == LabelContent || l == LabelTitle }

// countArticleLabels adds one article page's figures to c.
func countArticleLabels(c *labelCounts, pg articlePage, res *Result) {
	ws := pageWords(res)
	body := coverWords(ws, pg.truth)
	isArticle := slices.Clone(body)
	c.pages++
	if hl := pageHeadline(pg.html); hl != "" {
		c.pagesHeadline++
		run := headlineRun(ws, hl, body)
		c.headline += len(wordTokens(hl))
		for _, i := range run {
			isArticle[i] = true
			if ws[i].label == LabelTitle {
				c.headTitle++
			}
		}
		switch {
		case len(run) == 0:
			c.missedHead = append(c.missedHead, fmt.Sprintf("%s %q not found", pg.id[:12], hl))
		case ws[run[0]].label != LabelTitle:
			l := res.Leaves[ws[run[0]].leaf]
			t := normSpace(l.Text)
			c.missedHead = append(c.missedHead, fmt.Sprintf("%s %q in %s <%s class=%q> len %d links %d %q", pg.id[:12], hl,
				l.Label, l.Tag, l.Class, l.Features.TextLen, l.Features.Links, t[:min(len(t), 120)]))
		}
	}
	for i, w := range ws {
		c.words++
		if articleSide(w.label) == isArticle[i] {
			c.right++
		}
		if nd := res.Leaves[w.leaf].Node; !isArticle[i] && nd != nil {
			switch {
			case inCommentThread(nd):
				c.comment++
				if w.label == LabelContent {
					c.commentCont++
				}
			case inRelatedList(nd):
				c.related++
				if w.label == LabelContent {
					c.relatedCont++
				}
			}
		}
	}
	// Wrong-side leaves, for the tune half's log.
	for li, l := range res.Leaves {
		n, wrong := 0, 0
		for i, w := range ws {
			if w.leaf == li {
				n++
				if articleSide(w.label) != isArticle[i] {
					wrong++
				}
			}
		}
		if wrong >= 5 && 2*wrong > n {
			t := normSpace(l.Text)
			c.wrongSide = append(c.wrongSide, fmt.Sprintf("%s %s %d/%d words <%s id=%q class=%q> links %d ltr %.2f %q",
				pg.id[:12], l.Label, wrong, n, l.Tag, l.ID, l.Class, l.Features.Links, l.Features.LinkTextRatio, t[:min(len(t), 100)]))
		}
	}
}

// countRelated adds the related-link words of one labelled region page.
func countRelated(c *labelCounts, res *Result, lp labelledPage) {
	var text strings.Builder
	type seg struct {
		start int
		leaf  *Block
	}
	var segs []seg
	for _, l := range res.Leaves {
		t := normSpace(l.Text)
		if t == "" {
			continue
		}
		if text.Len() > 0 {
			text.WriteByte(' ')
		}
		segs = append(segs, seg{text.Len(), l})
		text.WriteString(t)
	}
	all := text.String()
	pos := make([]int, len(lp.regions))
	cur := 0
	for i, r := range lp.regions {
		k := strings.Index(all[cur:], r.words)
		if k < 0 {
			pos[i] = -1
			continue
		}
		pos[i] = cur + k
		cur = pos[i] + 1
	}
	for i, r := range lp.regions {
		if pos[i] < 0 || !slices.Contains(r.labels, string(LabelRelatedLinks)) || slices.Contains(r.labels, string(LabelContent)) {
			continue
		}
		end := len(all)
		for j := i + 1; j < len(lp.regions); j++ {
			if pos[j] >= 0 {
				end = pos[j]
				break
			}
		}
		for si, s := range segs {
			if s.start < pos[i] || s.start >= end {
				continue
			}
			e := len(all)
			if si+1 < len(segs) {
				e = segs[si+1].start
			}
			n := len(wordTokens(all[s.start:min(e, end)]))
			c.related += n
			if s.leaf.Label == LabelContent {
				c.relatedCont += n
			}
		}
	}
}

func ratio(a, b int) float64 { return float64(a) / float64(max(b, 1)) }

// BenchmarkLabelWords reports the word-level label figures of each half
// (see the file comment). With -v the tune half logs its wrong-side
// blocks and missed headlines; the held-out half logs nothing.
//
//	go test ./partition -run '^$' -bench LabelWords -benchtime 1x
func BenchmarkLabelWords(b *testing.B) {
	all := loadArticles(b)
	regions := readRegionFiles(b)
	regionDocs := make([][]byte, len(regions))
	for i, lp := range regions {
		regionDocs[i] = loadLabelledPage(b, lp.page)
	}
	for _, half := range []string{halfTune, halfHeldOut} {
		b.Run(half, func(b *testing.B) {
			var c labelCounts
			for b.Loop() {
				c = labelCounts{}
				for _, pg := range halfPages(all, half) {
					countArticleLabels(&c, pg, mustPartition(b, pg.html, Options{}))
				}
				for i, lp := range regions {
					if lp.half == half {
						countRelated(&c, mustPartition(b, regionDocs[i], Options{}), lp)
					}
				}
			}
			if half == halfTune && testing.Verbose() {
				for _, w := range c.wrongSide {
					b.Log("wrong side: " + w)
				}
				for _, h := range c.missedHead {
					b.Log("headline not title: " + h)
				}
			}
			b.ReportMetric(float64(c.pages), "pages")
			b.ReportMetric(ratio(c.right, c.words), "side")
			b.ReportMetric(ratio(c.headTitle, c.headline), "headline-title")
			b.ReportMetric(float64(c.pagesHeadline), "pages-headline")
			b.ReportMetric(ratio(c.commentCont, c.comment), "comment-content")
			b.ReportMetric(float64(c.comment), "comment-words")
			b.ReportMetric(ratio(c.relatedCont, c.related), "related-content")
			b.ReportMetric(float64(c.related), "related-words")
		})
	}
}
