// Package diff compares two captures of a page block by block and says,
// for each block, whether the text a reader sees changed or only the
// markup did: the split web-monitoring tools make between "the page's
// wording changed" and "its bytes changed" (a nonce in an inline script, a
// token in a link, &nbsp; for a space), done per block.
//
// Blocks are aligned by partition.Match (identical bytes first, then DVS
// or text similarity); a block whose bytes differ is text-changed when its
// visible words differ (VisibleWords), else markup-only. A block that left
// one place and reappears unchanged at another is moved, not removed and
// added. Text-changed blocks carry a word-level edit script (Words).
package diff

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"

	"github.com/blockwarc/blockwarc/partition"
)

// Status says how a block of the newer capture relates to the older one.
type Status string

const (
	Unchanged   Status = "unchanged"    // same bytes
	TextChanged Status = "text-changed" // the visible words differ
	MarkupOnly  Status = "markup-only"  // bytes differ, visible words do not
	Added       Status = "added"        // only in the newer capture
	Removed     Status = "removed"      // only in the older capture
	Moved       Status = "moved"        // same bytes, another place among the blocks
)

// Block is one step of a comparison. Old is nil for Added, New for
// Removed.
type Block struct {
	Status   Status
	Old, New *partition.Block
	// Words is the word diff of the block's visible text: for
	// TextChanged, and for Added and Removed blocks that have text (all
	// inserted or all deleted); nil otherwise.
	Words []Edit
	// OldParts and NewParts say where inside a TextChanged or
	// MarkupOnly block the change lies: the units (paragraphs, list
	// items, cells: partition.Result.Units) of Old and of New that the
	// other version has not, in document order; the whole block when
	// the change is in its own tags or between its units. Nil for the
	// other statuses.
	OldParts, NewParts []Part
	// Changed is set on a Moved block whose bytes changed too (its words
	// did not: it was paired by them): an overlay whose <button> became an
	// <a> as it moved is "moved and changed", not just moved.
	Changed bool
}

// PartBytes is the bytes of the block's changed parts, both captures
// together (0 for blocks without parts).
func (b *Block) PartBytes() int {
	n := 0
	for _, ps := range [2][]Part{b.OldParts, b.NewParts} {
		for _, p := range ps {
			n += p.End - p.Start
		}
	}
	return n
}

// Part is a changed part of a block: its span in its page, and whether
// only its markup changed (a changed part of the other capture reads the
// same words: a class renamed, a link's URL, an entity).
type Part struct {
	partition.Span
	MarkupOnly bool
}

// Visible tells whether a reader sees this block change: its words
// changed, it appeared or vanished with words of its own, or it moved
// (an overlay excepted).
func (b *Block) Visible() bool {
	switch b.Status {
	case TextChanged:
		return true
	case Moved:
		// An overlay (a dialog, a cookie banner: labelled from its markup)
		// is drawn over the page wherever it sits in the DOM: moving it
		// changes nothing a reader sees.
		return b.New.Label != partition.LabelDialog && b.New.Label != partition.LabelConsent
	case Added, Removed:
		return len(b.Words) > 0
	}
	return false
}

// Summary counts a comparison's blocks by status, and the words deleted
// and inserted over all of them.
type Summary struct {
	Unchanged     int `json:"unchanged"`
	TextChanged   int `json:"text_changed"`
	MarkupOnly    int `json:"markup_only"`
	Added         int `json:"added"`
	Removed       int `json:"removed"`
	Moved         int `json:"moved"`
	WordsDeleted  int `json:"words_deleted"`
	WordsInserted int `json:"words_inserted"`
	// VisibleChange is true when any block changed as a reader sees it
	// (Block.Visible); a comparison with changed blocks and no visible
	// change is markup churn only.
	VisibleChange bool `json:"visible_change"`
	// LayoutChanged is true when the bytes outside every block differ
	// (a script or style added or changed, a wrapper's attributes): the
	// partition leaves nothing visible there, so it is markup.
	LayoutChanged bool `json:"layout_changed"`
	// OtherPage is true when the captures share under otherPageOverlap
	// of their text (Jaccard of their sets of word pairs): another page
	// altogether (a redirect's target or an error page recorded under
	// the URL), which block-by-block lists only as removed and added.
	OtherPage bool `json:"other_page"`
}

// otherPageOverlap: two captures of one page, however edited, keep their
// menus, footers and most sentences; under this share of word pairs in
// common they are not one page.
const otherPageOverlap = 0.1

// Verdict says in words what kind of change the comparison found.
func (s Summary) Verdict() string {
	switch {
	case s.OtherPage:
		return "another page altogether"
	case s.VisibleChange:
		return "visible change"
	case s.TextChanged+s.MarkupOnly+s.Added+s.Removed+s.Moved > 0:
		return "markup change only"
	case s.LayoutChanged:
		return "layout change only"
	}
	return "no change"
}

// Changed tells whether the two captures differ at all: a block not
// unchanged, or the layout around the blocks.
func (s Summary) Changed() bool {
	return s.TextChanged+s.MarkupOnly+s.Added+s.Removed+s.Moved > 0 || s.LayoutChanged
}

// Compare aligns the kept blocks (leaves) of old and new, either of which
// may be nil (a first capture: every block added), and classifies each.
// The result lists every leaf of both once, in document order as
// partition.Match gives it (moved blocks at their new place). Partition
// both captures at the same level so that like is compared with like.
func Compare(old, new *partition.Result) ([]Block, Summary) {
	return Classify(old, new, partition.Match(old, new, partition.SimOptions{}))
}

// Classify is Compare for an alignment already made: pairs must be
// partition.Match(old, new, ...) (or every leaf paired with itself when
// old is new).
func Classify(old, new *partition.Result, pairs []partition.Pair) ([]Block, Summary) {
	return ClassifyWords(old, new, pairs, PageWords(old), PageWords(new))
}

// ClassifyWords is Classify given each page's PageWords: a caller
// classifying a history pair by pair computes each page's words once,
// not once as the later page and again as the earlier.
func ClassifyWords(old, new *partition.Result, pairs []partition.Pair, oldWords, newWords []string) ([]Block, Summary) {
	pairs = realign(pairs)
	// Match aligns in order and by similarity only. A block removed at
	// one place and added with the same bytes elsewhere has moved; a
	// removed and an added block with the same visible words are the same
	// text re-marked-up (a <br> that split a fragment, a changed tag)
	// when they sit in one unmatched run, and moved when they do not.
	run := make([]int, len(pairs)) // unmatched runs are split by aligned pairs
	for i, p := range pairs {
		if i > 0 {
			run[i] = run[i-1]
		}
		if p.Kind == partition.Identical || p.Kind == partition.Modified {
			run[i]++
		}
	}
	type key struct {
		bytes bool
		s     string
	}
	removed := map[key][]int{} // → indexes of Removed pairs, in order
	for i, p := range pairs {
		if p.Kind == partition.Removed {
			k := key{true, string(old.BlockBytes(p.Old))}
			removed[k] = append(removed[k], i)
			if w := VisibleWords(p.Old.Text); len(w) > 0 {
				k := key{false, strings.Join(w, " ")}
				removed[k] = append(removed[k], i)
			}
		}
	}
	take := func(k key, gone map[int]bool) int {
		for len(removed[k]) > 0 {
			j := removed[k][0]
			removed[k] = removed[k][1:]
			if !gone[j] {
				return j
			}
		}
		return -1
	}
	from := map[int]int{} // Added pair index → Removed pair index
	gone := map[int]bool{}
	for _, byBytes := range []bool{true, false} {
		for i, p := range pairs {
			if p.Kind != partition.Added {
				continue
			}
			if _, ok := from[i]; ok {
				continue
			}
			k := key{true, string(new.BlockBytes(p.New))}
			if !byBytes {
				w := VisibleWords(p.New.Text)
				if len(w) == 0 {
					continue
				}
				k = key{false, strings.Join(w, " ")}
			}
			if j := take(k, gone); j >= 0 {
				from[i] = j
				gone[j] = true
			}
		}
	}
	// A block rewritten beyond the similarity threshold (a reworked
	// article) comes out of Match as removed and added; when both are the
	// same element (tag, id and class) in one unmatched run, it is one
	// block whose text changed, and its word diff says how.
	rewritten := map[int]bool{}
	for i, p := range pairs {
		if p.Kind != partition.Added {
			continue
		}
		if _, ok := from[i]; ok {
			continue
		}
		for j := i - 1; j >= 0 && run[j] == run[i]; j-- {
			q := pairs[j]
			if q.Kind == partition.Removed && !gone[j] && q.Old.Tag == p.New.Tag && q.Old.ID == p.New.ID && q.Old.Class == p.New.Class {
				from[i], gone[j], rewritten[i] = j, true, true
				break
			}
		}
	}
	// When the page as a whole reads the same, word for word, no block
	// changed as a reader sees it: text that only crossed a block boundary
	// (the partition cut a changed page elsewhere) is markup churn.
	sameText := equalWords(oldWords, newWords)
	var out []Block
	var sum Summary
	for i, p := range pairs {
		if gone[i] {
			continue
		}
		b := Block{Old: p.Old, New: p.New}
		switch p.Kind {
		case partition.Identical:
			b.Status = Unchanged
		case partition.Modified:
			ow, nw := VisibleWords(p.Old.Text), VisibleWords(p.New.Text)
			if equalWords(ow, nw) {
				b.Status = MarkupOnly
			} else {
				b.Status = TextChanged
				b.Words = Words(ow, nw)
			}
		case partition.Added:
			if j, ok := from[i]; ok && rewritten[i] {
				b.Old = pairs[j].Old
				ow, nw := VisibleWords(b.Old.Text), VisibleWords(p.New.Text)
				if equalWords(ow, nw) {
					b.Status = MarkupOnly
				} else {
					b.Status, b.Words = TextChanged, Words(ow, nw)
				}
				break
			}
			if j, ok := from[i]; ok {
				b.Status, b.Old = Moved, pairs[j].Old
				if !bytesEqual(old.BlockBytes(b.Old), new.BlockBytes(b.New)) {
					if run[i] == run[j] {
						b.Status = MarkupOnly
					} else {
						b.Changed = true
						b.OldParts, b.NewParts = changedParts(old, new, b.Old, b.New)
					}
				}
				break
			}
			b.Status = Added
			if w := VisibleWords(p.New.Text); len(w) > 0 {
				b.Words = []Edit{{Op: Insert, Words: w}}
			}
		case partition.Removed:
			b.Status = Removed
			if w := VisibleWords(p.Old.Text); len(w) > 0 {
				b.Words = []Edit{{Op: Delete, Words: w}}
			}
		}
		if sameText && b.Status == TextChanged {
			b.Status, b.Words = MarkupOnly, nil
		}
		if b.Status == TextChanged || b.Status == MarkupOnly {
			b.OldParts, b.NewParts = changedParts(old, new, b.Old, b.New)
		}
		if sameText && (b.Status == Added || b.Status == Removed) {
			b.Words = nil
		}
		sum.add(&b)
		out = append(out, b)
	}
	sum.LayoutChanged = old != nil && new != nil && LayoutChange(old.Layout, new.Layout) != nil
	if old != nil && new != nil && !sameText {
		// Pages that read the same word for word are one page.
		a, b := pairSet(oldWords), pairSet(newWords)
		sum.OtherPage = len(a) > 0 && len(b) > 0 && jaccard(a, b) < otherPageOverlap
	}
	return out, sum
}

// LayoutChange shows where two layouts differ, as markup-only blocks
// are shown (the bytes around the first difference of the first gap that
// differs; all gaps, joined, when their number differs), or nil when
// their bytes are equal.
func LayoutChange(a, b partition.Layout) *MarkupChange {
	if len(a.Gaps) != len(b.Gaps) {
		x, y := bytesJoin(a.Gaps), bytesJoin(b.Gaps)
		if bytesEqual(x, y) {
			// The same bytes cut otherwise: nothing outside the blocks
			// changed that a layout can say.
			return nil
		}
		return markupOf(x, y)
	}
	for i := range a.Gaps {
		if !bytesEqual(a.Gaps[i], b.Gaps[i]) {
			return markupOf(a.Gaps[i], b.Gaps[i])
		}
	}
	return nil
}

func bytesJoin(gaps [][]byte) []byte {
	var out []byte
	for _, g := range gaps {
		out = append(out, g...)
	}
	return out
}

func (s *Summary) add(b *Block) {
	switch b.Status {
	case Unchanged:
		s.Unchanged++
	case TextChanged:
		s.TextChanged++
	case MarkupOnly:
		s.MarkupOnly++
	case Added:
		s.Added++
	case Removed:
		s.Removed++
	case Moved:
		s.Moved++
	}
	for _, e := range b.Words {
		switch e.Op {
		case Delete:
			s.WordsDeleted += len(e.Words)
		case Insert:
			s.WordsInserted += len(e.Words)
		}
	}
	if b.Visible() {
		s.VisibleChange = true
	}
}

var bytesEqual = bytes.Equal

// PageWords is the visible words (VisibleWords) of all of a page's kept
// blocks, in order; nil for a nil page.
func PageWords(r *partition.Result) []string {
	if r == nil {
		return nil
	}
	n := 0
	for _, b := range r.Leaves {
		n += len(b.Text)
	}
	w := make([]string, 0, n/6) // about a word in six bytes of text
	for _, b := range r.Leaves {
		w = appendWords(w, b.Text)
	}
	return w
}

func equalWords(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Bounds of realign: runs with more candidate pairs keep Match's pairing;
// a pair of blocks sharing less than minOverlap of their words is not one
// block changed.
const (
	maxRealignCells = 1 << 14
	minOverlap      = 0.2
)

// realign re-pairs the blocks of each run of changed blocks (between
// identical ones) by their words. Match pairs by layout similarity first,
// which suits storage (a delta base); a reader asks which text became
// which, and when sections shift between blocks (a heading joins the next
// section, a block is inserted before similar ones) layout pairs the wrong
// ones. Within a run the order is kept: an alignment maximising the summed
// word overlap (Jaccard of the blocks' word sets), found by dynamic
// programming. Overlap is over word pairs (wordSet).
func realign(pairs []partition.Pair) []partition.Pair {
	out := make([]partition.Pair, 0, len(pairs))
	for i := 0; i < len(pairs); {
		if pairs[i].Kind == partition.Identical {
			out = append(out, pairs[i])
			i++
			continue
		}
		j := i
		for j < len(pairs) && pairs[j].Kind != partition.Identical {
			j++
		}
		out = append(out, realignRun(pairs[i:j])...)
		i = j
	}
	return out
}

func realignRun(run []partition.Pair) []partition.Pair {
	var olds, news []*partition.Block
	for _, p := range run {
		if p.Old != nil {
			olds = append(olds, p.Old)
		}
		if p.New != nil {
			news = append(news, p.New)
		}
	}
	n, m := len(olds), len(news)
	if n == 0 || m == 0 || n*m > maxRealignCells {
		return run
	}
	ow := make([]map[string]bool, n)
	for i, b := range olds {
		ow[i] = wordSet(b)
	}
	nw := make([]map[string]bool, m)
	for j, b := range news {
		nw[j] = wordSet(b)
	}
	score := func(i, j int) float64 {
		a, b := ow[i], nw[j]
		if len(a) == 0 && len(b) == 0 {
			// No words either side: the same element is the same block.
			if olds[i].Tag == news[j].Tag && olds[i].ID == news[j].ID && olds[i].Class == news[j].Class {
				return minOverlap
			}
			return 0
		}
		s := jaccard(a, b)
		if s < minOverlap {
			return 0
		}
		return s
	}
	// best[i][j]: the best alignment of olds[i:] with news[j:].
	best := make([][]float64, n+1)
	for i := range best {
		best[i] = make([]float64, m+1)
	}
	sc := make([][]float64, n)
	for i := range sc {
		sc[i] = make([]float64, m)
		for j := range sc[i] {
			sc[i][j] = score(i, j)
		}
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			v := max(best[i+1][j], best[i][j+1])
			if s := sc[i][j]; s > 0 {
				v = max(v, best[i+1][j+1]+s)
			}
			best[i][j] = v
		}
	}
	out := make([]partition.Pair, 0, len(run))
	var gapOld, gapNew []*partition.Block
	flush := func() { // removed before added, as Match orders a gap
		for _, b := range gapOld {
			out = append(out, partition.Pair{Old: b, Kind: partition.Removed})
		}
		for _, b := range gapNew {
			out = append(out, partition.Pair{New: b, Kind: partition.Added})
		}
		gapOld, gapNew = gapOld[:0], gapNew[:0]
	}
	i, j := 0, 0
	for i < n && j < m {
		switch s := sc[i][j]; {
		case s > 0 && best[i][j] == best[i+1][j+1]+s:
			flush()
			// Classify tells text-changed from markup-only by the words.
			out = append(out, partition.Pair{Old: olds[i], New: news[j], Kind: partition.Modified, Sim: s, TextSim: s})
			i, j = i+1, j+1
		case best[i][j] == best[i+1][j]:
			gapOld = append(gapOld, olds[i])
			i++
		default:
			gapNew = append(gapNew, news[j])
			j++
		}
	}
	gapOld = append(gapOld, olds[i:]...)
	gapNew = append(gapNew, news[j:]...)
	flush()
	return out
}

// wordSet is the set of a block's visible words.
// wordSet is the set of b's word pairs (consecutive visible words; its
// one word when it has one) that realign compares. Pairs, not words:
// two unrelated sections of a page share most of their common words
// ("the", "of", the project's name) and scored over 0.2 as words, so one
// was drawn as a rewrite of the other, hundreds of interleaved fragments;
// they share few word pairs, while a section edited in places keeps most
// of its pairs.
func wordSet(b *partition.Block) map[string]bool { return pairSet(VisibleWords(b.Text)) }

// pairSet is the set of consecutive pairs of ws (its one word when it has
// one).
func pairSet(ws []string) map[string]bool {
	set := make(map[string]bool, len(ws))
	if len(ws) == 1 {
		set[ws[0]] = true
	}
	for i := 1; i < len(ws); i++ {
		set[ws[i-1]+" "+ws[i]] = true
	}
	return set
}

// jaccard is |a ∩ b| / |a ∪ b|, 0 for two empty sets.
func jaccard(a, b map[string]bool) float64 {
	if len(a) > len(b) {
		a, b = b, a
	}
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	if u := len(a) + len(b) - inter; u > 0 {
		return float64(inter) / float64(u)
	}
	return 0
}

// changedParts returns the units (partition.Result.Units) of ob in old
// and nb in new that an alignment of the two sequences by their bytes
// leaves unmatched: where inside the blocks the change lies. When every
// unit is matched (the change is in the blocks' own tags or between
// units), each side is the whole block.
func changedParts(old, new *partition.Result, ob, nb *partition.Block) (op, np []Part) {
	ou, nu := old.Units(ob), new.Units(nb)
	if len(ou) == 0 || len(nu) == 0 {
		return whole(ob), whole(nb)
	}
	// The word diff's edit script (Myers, bounded) over the parts'
	// bytes: a part in an Equal run is unchanged.
	om, nm := make([]bool, len(ou)), make([]bool, len(nu))
	i, j := 0, 0
	for _, e := range Words(unitStrings(old.Doc, ou), unitStrings(new.Doc, nu)) {
		switch e.Op {
		case Equal:
			for range e.Words {
				om[i], nm[j] = true, true
				i++
				j++
			}
		case Delete:
			i += len(e.Words)
		case Insert:
			j += len(e.Words)
		}
	}
	for i, s := range ou {
		if !om[i] {
			op = append(op, Part{Span: s})
		}
	}
	for i, s := range nu {
		if !nm[i] {
			np = append(np, Part{Span: s})
		}
	}
	if len(op) == 0 && len(np) == 0 {
		return whole(ob), whole(nb)
	}
	// A changed part whose words a changed part of the other capture
	// reads too changed only in its markup; matched one to one, in order.
	words := func(doc []byte, p Part) string {
		return strings.Join(VisibleWords(spanText(doc[p.Start:p.End])), " ")
	}
	oldWords := map[string][]int{}
	for i, p := range op {
		w := words(old.Doc, p)
		oldWords[w] = append(oldWords[w], i)
	}
	for i, p := range np {
		w := words(new.Doc, p)
		if js := oldWords[w]; len(js) > 0 {
			np[i].MarkupOnly, op[js[0]].MarkupOnly = true, true
			oldWords[w] = js[1:]
		}
	}
	return op, np
}

// spanText is the text a reader sees in a part (partition.Result.Units:
// no block-level element inside): its text tokens, entities resolved,
// without scripts, styles and templates. Inline tags join the text on
// either side ("Mash<b>mallow</b>" is one word); a <br> separates.
func spanText(frag []byte) string {
	z := html.NewTokenizer(bytes.NewReader(frag))
	var b strings.Builder
	skip := 0
	for {
		switch tt := z.Next(); tt {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			// A self-closing <script/> has no end tag to wait for.
			name, _ := z.TagName()
			if isRawText(name) && tt == html.StartTagToken {
				skip++
			} else if string(name) == "br" {
				b.WriteByte(' ')
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); isRawText(name) && skip > 0 {
				skip--
			}
		}
	}
}

func isRawText(tag []byte) bool {
	switch string(tag) {
	case "script", "style", "template":
		return true
	}
	return false
}

func whole(b *partition.Block) []Part {
	return []Part{{Span: partition.Span{Start: b.Start, End: b.End}}}
}

// unitStrings returns the bytes of each unit as a string.
func unitStrings(doc []byte, us []partition.Span) []string {
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = string(doc[u.Start:u.End])
	}
	return out
}
