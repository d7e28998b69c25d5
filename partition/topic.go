package partition

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball"
)

// Topics follow Song et al. 2008. Algorithm 2: when the block holds a
// heading-like text, its topic is that text, trimmed to θ words after
// stop-word removal. Algorithm 3: otherwise the topic is the words whose
// term frequency in the block exceeds ε, after stop-word removal and
// stemming. Defaults and their reasons are in docs/TOPICS-LABELS.md.
const (
	defaultTopicWords   = 5    // θ
	defaultHeadingDelta = 0.2  // δ, relative: 20% larger than body text
	defaultMinTermFreq  = 0.02 // ε, relative term frequency
	// maxTopicWords bounds the words Algorithm 3 reads from one block: the
	// topic of a long block is settled by its first few thousand words,
	// and the bound keeps annotation linear in the page size.
	maxTopicWords = 1000
	// maxHeadingWords is the longest text that still counts as a
	// heading-like line (bold or large font); longer runs are body text.
	maxHeadingWords = 20
)

func isCJK(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case r >= 0x4E00 && r <= 0x9FFF, r >= 0x3040 && r <= 0x30FF, r >= 0xAC00 && r <= 0xD7AF:
		return true
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

// isWordRune is small enough to inline: every rune of the rendered text
// goes through it several times, and nearly all are ASCII.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiWord[r]
	}
	return isWordRuneSlow(r)
}

func isWordRuneSlow(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// asciiWord marks the ASCII letters and digits.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	return t
}()

// eachWord calls fn for every word of text in order, until fn returns
// false: a run of letters, digits and inner apostrophes (’ folded to '),
// lower-cased; or a run of CJK characters (cjk = true), which has no
// spaces to split on. Words already in lower-case ASCII are substrings of
// text, so the common case does not allocate.
func eachWord(text string, fn func(w string, cjk bool) bool) {
	eachWordAt(text, func(_ int, w string, cjk bool) bool { return fn(w, cjk) })
}

// eachWordAt is eachWord that also passes each word's byte offset in text.
func eachWordAt(text string, fn func(off int, w string, cjk bool) bool) {
	start := -1
	cjkRun := false
	emit := func(end int) bool {
		if start < 0 {
			return true
		}
		w, off := text[start:end], start
		start = -1
		if !cjkRun {
			w = foldWord(w)
			if w == "" {
				return true
			}
		}
		return fn(off, w, cjkRun)
	}
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		switch {
		case r >= 0x1100 && isCJK(r):
			if start >= 0 && !cjkRun && !emit(i) {
				return
			}
			if start < 0 {
				start, cjkRun = i, true
			}
		case isWordRune(r):
			if start >= 0 && cjkRun && !emit(i) {
				return
			}
			if start < 0 {
				start, cjkRun = i, false
			}
		case (r == '\'' || r == '’') && start >= 0 && !cjkRun:
			// inner apostrophe: kept, trailing ones are trimmed by foldWord
		default:
			if !emit(i) {
				return
			}
		}
		i += size
	}
	emit(len(text))
}

// foldWord lower-cases w, folds ’ to ' and trims trailing apostrophes.
func foldWord(w string) string {
	plain := true
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			plain = false
			break
		}
	}
	if !plain {
		w = strings.ReplaceAll(strings.ToLower(w), "’", "'")
	}
	return strings.TrimRight(w, "'")
}

// countWords counts words, each CJK character counting as one word.
func countWords(text string) int {
	n := 0
	inWord := false
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		i += size
		switch {
		case r >= 0x1100 && isCJK(r):
			n++
			inWord = false
		case isWordRune(r):
			if !inWord {
				n++
				inWord = true
			}
		case (r == '\'' || r == '’') && inWord:
		default:
			inWord = false
		}
	}
	return n
}

// contentWord reduces w to the form looked up in the stop list and
// reports whether it carries meaning: French and Italian elisions (l', d',
// qu') are stripped, and single letters and bare numbers are dropped.
func contentWord(w, lang string) (string, bool) {
	if isStopWord(w, lang) {
		return "", false
	}
	if i := strings.IndexByte(w, '\''); i > 0 && i <= 2 && i < len(w)-1 {
		w = w[i+1:]
		if isStopWord(w, lang) {
			return "", false
		}
	}
	if utf8.RuneCountInString(w) < 2 {
		return "", false
	}
	digits := true
	for _, r := range w {
		if !unicode.IsDigit(r) {
			digits = false
			break
		}
	}
	return w, !digits
}

// topicer computes topics for the blocks of one document; it memoises
// stems, so every distinct word is stemmed once per document.
type topicer struct {
	x       *docIndex
	res     *Result
	theta   int
	delta   float64
	eps     float64
	stemmer string
	stems   map[string]string
	shared  *stemCache // stems of earlier documents (nil: none)
	spare   *topicer   // tables of an earlier document's topicer, for reuse (nil: none)
	// Algorithm 3 state: the document's tokens, its distinct words and per-term
	// counters reused (and reset) by every block.
	chunks   []tokChunk // the text in pieces, tokenised on first need
	ids      *wordTable
	scratch  []byte
	words    []wordInfo
	termIDs  map[string]int32
	count    []int32
	first    []int32
	surface  []string
	touched  []int32
	kept     []int32 // scratch of frequent
	cands    []headCand
	hasStyle bool
}

// headCand is a heading-like text found in the document (Algorithm 2).
type headCand struct {
	i     int32   // pre-order index of the element
	score float64 // prominence by kind; font size adds to it per block
	font  float64 // px, 0 when unknown
	kind  candKind
	text  string // for attribute candidates; else the element's text
}

type candKind uint8

const (
	candHeading candKind = iota
	candFont
	candBold
	candCaption
	candLandmark
	candTitleAttr
)

var landmarkTags = map[string]bool{"nav": true, "main": true, "aside": true, "section": true, "form": true, "header": true, "footer": true, "article": true}

func newTopicer(x *docIndex, res *Result, opts Options, shared *stemCache, spare *topicer) *topicer {
	t := &topicer{x: x, res: res, theta: opts.TopicWords, delta: opts.HeadingDelta, eps: opts.MinTermFreq, stems: make(map[string]string), shared: shared, spare: spare}
	if spare != nil {
		t.cands, t.touched, t.scratch, t.kept = spare.cands[:0], spare.touched[:0], spare.scratch[:0], spare.kept[:0]
	}
	if t.theta <= 0 {
		t.theta = defaultTopicWords
	}
	if t.delta <= 0 {
		t.delta = defaultHeadingDelta
	}
	if t.eps <= 0 {
		t.eps = defaultMinTermFreq
	}
	t.stemmer = stemmerNames[x.lang]
	t.collect()
	return t
}

// collect finds every heading-like candidate of the document once.
func (t *topicer) collect() {
	x := t.x
	for i, n := range x.nodes {
		if n.Kind != ElementNode || x.hidden[i] {
			continue
		}
		idx := int32(i)
		st := t.res.elemStyleOf(n)
		if st == nil {
			st = &Style{} // n is not of t.res's tree: its style is unknown
		}
		if st.FontSize > 0 {
			t.hasStyle = true
		}
		switch n.Tag {
		case "h1", "h2", "h3", "h4", "h5", "h6":
			rank := float64(n.Tag[1] - '0')
			t.cands = append(t.cands, headCand{i: idx, score: 100 - 10*rank, font: st.FontSize, kind: candHeading})
			continue
		case "caption", "legend":
			t.cands = append(t.cands, headCand{i: idx, score: 35, font: st.FontSize, kind: candCaption})
			continue
		case "b", "strong":
			t.cands = append(t.cands, headCand{i: idx, score: 30, font: st.FontSize, kind: candBold})
		}
		if role := n.Attr("role"); landmarkTags[n.Tag] || role == "navigation" || role == "main" || role == "region" || role == "banner" || role == "contentinfo" || role == "complementary" || role == "search" {
			if v := x.attrText(n, "aria-label"); v != "" {
				t.cands = append(t.cands, headCand{i: idx, score: 25, kind: candLandmark, text: v})
			}
		}
		if v := x.attrText(n, "title"); v != "" && n.Tag != "a" && n.Tag != "abbr" {
			t.cands = append(t.cands, headCand{i: idx, score: 20, kind: candTitleAttr, text: v})
		}
		if st.FontSize > 0 && n.Parent != nil {
			if ps := t.res.StyleOf(n.Parent).FontSize; ps > 0 && st.FontSize > ps {
				t.cands = append(t.cands, headCand{i: idx, score: 40, font: st.FontSize, kind: candFont})
			} else if st.Bold && !t.res.StyleOf(n.Parent).Bold && n.Tag != "b" && n.Tag != "strong" {
				t.cands = append(t.cands, headCand{i: idx, score: 30, font: st.FontSize, kind: candBold})
			}
		}
	}
}

// topic returns the topic of the nodes in s; body is the block's body
// font size (0 when unknown).
func (t *topicer) topic(s span, body float64) []string {
	if w := t.heading(s, body); w != nil {
		return w
	}
	return t.frequent(s)
}

// heading is Algorithm 2: the most prominent heading-like text in s.
func (t *topicer) heading(s span, body float64) []string {
	x := t.x
	lo := sort.Search(len(t.cands), func(k int) bool { return t.cands[k].i >= s.lo })
	blockText := x.textOff[s.lo]
	// Skip the separator that may open the span's text.
	if int(blockText) < len(x.text) && (x.text[blockText] == ' ' || x.text[blockText] == '\n') && blockText < x.textOff[s.hi] {
		blockText++
	}
	best, bestScore := -1, 0.0
	var bestText string
	for k := lo; k < len(t.cands) && t.cands[k].i < s.hi; k++ {
		c := t.cands[k]
		text := c.text
		if text == "" {
			sub := span{c.i, x.end[c.i]}
			if sub.hi > s.hi {
				continue
			}
			text = x.spanText(sub)
		}
		if text == "" {
			continue
		}
		score := c.score
		switch c.kind {
		case candFont:
			if body <= 0 || c.font < body*(1+t.delta) || countWords(text) > maxHeadingWords {
				continue
			}
		case candBold:
			// Only a bold line that opens the block names it.
			off := x.textOff[c.i]
			if off < x.textOff[s.hi] && (x.text[off] == ' ' || x.text[off] == '\n') {
				off++
			}
			if off != blockText || countWords(text) > maxHeadingWords {
				continue
			}
		}
		if body > 0 && c.font > body {
			score += 20 * min(2, c.font/body-1)
		}
		if score > bestScore { // ties keep the earlier candidate
			best, bestScore, bestText = k, score, text
		}
	}
	if best < 0 {
		return nil
	}
	return t.trim(bestText)
}

// trim keeps the first θ content words of a heading.
func (t *topicer) trim(text string) []string {
	var out []string
	eachWord(text, func(w string, cjk bool) bool {
		if cjk {
			if r := []rune(w); len(r) > 2*t.theta {
				w = string(r[:2*t.theta])
			}
		} else {
			var ok bool
			if w, ok = contentWord(w, t.x.lang); !ok {
				return true
			}
		}
		out = append(out, w)
		return len(out) < t.theta
	})
	return out
}

// stem returns w's stem, memoised: only elided words ("l'homme") need
// the memo, since resolve sees every other token once (stemUncached).
func (t *topicer) stem(w string) string {
	if t.stemmer == "" {
		return w
	}
	if s, ok := t.stems[w]; ok {
		return s
	}
	s := t.stemUncached(w)
	t.stems[w] = s
	return s
}

func (t *topicer) stemUncached(w string) string {
	if t.stemmer == "" {
		return w
	}
	if t.shared != nil {
		if s, ok := t.shared.get(t.stemmer, w); ok {
			return s
		}
	}
	s, err := snowball.Stem(w, t.stemmer, true)
	if err != nil || s == "" {
		s = w
	}
	if t.shared != nil {
		t.shared.put(t.stemmer, w, s)
	}
	return s
}

// frequent is Algorithm 3: terms (stems; CJK character bigrams) whose
// relative frequency exceeds ε, most frequent first, ties by first
// occurrence; each is reported by the first surface form seen in the
// block. Each chunk of the text is tokenised at most once, when a block
// first reads it (tokChunk); a block counts the term ids of its own token
// range, so nested blocks do not re-tokenise, and a word is stop-listed
// and stemmed only when a block first needs it.
func (t *topicer) frequent(s span) []string {
	if t.chunks == nil {
		t.splitChunks()
	}
	a, b := t.x.textOff[s.lo], t.x.textOff[s.hi]
	touched := t.touched[:0]
	total := int32(0)
	// The block's tokens, in order: those of the chunks overlapping
	// [a, b) that start at or after a, until maxTopicWords terms.
	c := sort.Search(len(t.chunks), func(k int) bool { return t.chunks[k].end > a })
	for ; c < len(t.chunks) && t.chunks[c].start < b && total < maxTopicWords; c++ {
		toks := t.chunkTokens(c)
		k := 0
		if t.chunks[c].start < a {
			k = sort.Search(len(toks), func(k int) bool { return toks[k].off >= a })
		}
		for ; k < len(toks) && toks[k].off < b && total < maxTopicWords; k++ {
			wi := &t.words[toks[k].id]
			if !wi.resolved {
				t.resolve(wi)
			}
			id := wi.term
			if id < 0 {
				continue
			}
			if t.count[id] == 0 {
				touched = append(touched, id)
				t.first[id] = total
				t.surface[id] = wi.surface
			}
			t.count[id]++
			total++
		}
	}
	kept := t.kept[:0]
	for _, id := range touched {
		if float64(t.count[id])/float64(total) > t.eps {
			kept = append(kept, id)
		}
	}
	t.kept = kept
	// A total order (first occurrences are distinct), so any sort gives
	// the same result.
	slices.SortFunc(kept, func(a, b int32) int {
		if ca, cb := t.count[a], t.count[b]; ca != cb {
			return cmp.Compare(cb, ca)
		}
		return cmp.Compare(t.first[a], t.first[b])
	})
	if len(kept) > t.theta {
		kept = kept[:t.theta]
	}
	var out []string
	if len(kept) > 0 {
		out = make([]string, len(kept))
		for i, id := range kept {
			out[i] = t.surface[id]
		}
	}
	for _, id := range touched {
		t.count[id] = 0
	}
	t.touched = touched
	return out
}

// topicToken is one word (or CJK bigram) of the document's text.
type topicToken struct {
	off int32 // byte offset in the rendered text
	id  int32 // index into topicer.words
}

// wordInfo is what Algorithm 3 knows of one distinct token.
type wordInfo struct {
	token    string // folded word or CJK bigram
	cjk      bool
	resolved bool
	term     int32  // term id (shared by words of one stem); -1: stop word
	surface  string // content form of the word
}

// tokChunk is a piece [start, end) of the rendered text and its tokens.
// Every chunk but the last ends just after a separator (' ' or '\n'),
// which ends any word, so tokenising chunks one by one gives exactly the
// tokens of the whole text. Only about a quarter of a page's text is ever
// read by Algorithm 3 (blocks with a heading-like text never are, and a
// block reads at most maxTopicWords terms), so chunks are tokenised when a
// block first reaches them.
type tokChunk struct {
	start, end int32
	toks       []topicToken
	done       bool
}

// tokChunkSize is the approximate length of a chunk: small enough that
// little unread text is tokenised, large enough that chunk bookkeeping is
// negligible.
const tokChunkSize = 2048

// splitChunks cuts the text into chunks and sets up the tokeniser state
// they share.
func (t *topicer) splitChunks() {
	text := t.x.textStr
	sp := t.spare
	if sp == nil {
		sp = &topicer{}
	}
	t.ids = newWordTableReusing(sp.ids, len(text)/256)
	t.words = reuseSlice(sp.words, len(text)/256+16)
	t.termIDs = sp.termIDs // emptied by spareTables
	if t.termIDs == nil {
		t.termIDs = make(map[string]int32)
	}
	t.count, t.first, t.surface = sp.count[:0], sp.first[:0], sp.surface[:0]
	old := sp.chunks[:cap(sp.chunks)]
	t.chunks = reuseSlice(sp.chunks, len(text)/tokChunkSize+1)
	for start := 0; start < len(text); {
		end := len(text)
		if start+tokChunkSize < len(text) {
			if k := strings.IndexAny(text[start+tokChunkSize:], " \n"); k >= 0 {
				end = start + tokChunkSize + k + 1
			}
		}
		ch := tokChunk{start: int32(start), end: int32(end)}
		if k := len(t.chunks); k < len(old) {
			ch.toks = old[k].toks[:0] // an earlier document's tokens: memory only
		}
		t.chunks = append(t.chunks, ch)
		start = end
	}
}

// chunkTokens returns the tokens of chunk c, tokenising it on first use.
func (t *topicer) chunkTokens(c int) []topicToken {
	ch := &t.chunks[c]
	if !ch.done {
		ch.toks = t.tokenize(int(ch.start), int(ch.end), ch.toks)
		ch.done = true
	}
	return ch.toks
}

// tokenize splits text[from:to] into tokens, from being a token boundary.
// It splits exactly as eachWordAt does, but folds ASCII words into a
// scratch buffer and looks them up without allocating, since most words
// repeat: only a word's first occurrence makes a string. Word ids are
// shared by all chunks.
// reuse is memory for the tokens (may be nil).
func (t *topicer) tokenize(from, to int, reuse []topicToken) []topicToken {
	text := t.x.textStr[:to]
	ids := t.ids
	toks := reuseSlice(reuse, (to-from)/5+4)
	// addHashed emits token w (hash h) at offset off.
	addHashed := func(off int, w string, h uint32, cjk bool) {
		id, ok := ids.find(w, h, t.words)
		if !ok {
			slot := id
			id = int32(len(t.words))
			t.words = append(t.words, wordInfo{token: w, cjk: cjk})
			ids.insert(slot, h, id)
		}
		toks = append(toks, topicToken{off: int32(off), id: id})
	}
	add := func(off int, w string, cjk bool) { addHashed(off, w, hashString(w), cjk) }
	scratch := t.scratch
	// word emits text[start:end], a run of word runes and apostrophes;
	// ascii and lower tell whether it is all ASCII and has no upper case.
	word := func(start, end int, ascii, lower bool) {
		w := text[start:end]
		if !ascii {
			if w = foldWord(w); w != "" {
				add(start, w, false)
			}
			return
		}
		for len(w) > 0 && w[len(w)-1] == '\'' {
			w = w[:len(w)-1]
		}
		if w == "" {
			return
		}
		if lower {
			add(start, w, false)
			return
		}
		scratch = scratch[:0]
		h := uint32(fnv32Offset)
		for i := 0; i < len(w); i++ {
			c := w[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			scratch = append(scratch, c)
			h = (h ^ uint32(c)) * fnv32Prime
		}
		id, ok := ids.findBytes(scratch, h, t.words)
		if !ok {
			slot := id
			id = int32(len(t.words))
			t.words = append(t.words, wordInfo{token: string(scratch)})
			ids.insert(slot, h, id)
		}
		toks = append(toks, topicToken{off: int32(start), id: id})
	}
	cjkRun := func(start, end int) {
		w := text[start:end]
		if utf8.RuneCountInString(w) == 1 {
			add(start, w, true)
			return
		}
		for i, r := range w {
			size := utf8.RuneLen(r)
			if i+size >= len(w) {
				break
			}
			_, size2 := utf8.DecodeRuneInString(w[i+size:])
			add(start+i, w[i:i+size+size2], true)
		}
	}
	start, isCJKRun, ascii, lower := -1, false, true, true
	flush := func(end int) {
		if start >= 0 {
			if isCJKRun {
				cjkRun(start, end)
			} else {
				word(start, end, ascii, lower)
			}
		}
		start = -1
	}
	for i := from; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			// ASCII fast path: the same cases as below.
			switch {
			case asciiWord[c]:
				if start >= 0 && isCJKRun {
					flush(i)
				}
				if start < 0 {
					start, isCJKRun, ascii, lower = i, false, true, true
				}
				if 'A' <= c && c <= 'Z' {
					lower = false
				}
			case c == '\'' && start >= 0 && !isCJKRun:
			default:
				flush(i)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r >= 0x1100 && isCJK(r):
			if start >= 0 && !isCJKRun {
				flush(i)
			}
			if start < 0 {
				start, isCJKRun = i, true
			}
		case isWordRuneSlow(r):
			if start >= 0 && isCJKRun {
				flush(i)
			}
			if start < 0 {
				start, isCJKRun, ascii, lower = i, false, true, true
			}
			ascii = false
		case r == '’' && start >= 0 && !isCJKRun:
			ascii = false
		default:
			flush(i)
		}
		i += size
	}
	flush(len(text))
	t.scratch = scratch
	return toks
}

// spareTables returns t's tables for the next document's topicer,
// emptied of strings so that they keep no page alive; t must not be used
// afterwards.
func (t *topicer) spareTables() *topicer {
	src := t
	if t.chunks == nil && t.spare != nil {
		src = t.spare // this document was never tokenised: keep the older tables
	}
	clear(src.words)
	clear(src.termIDs)
	clear(src.surface)
	clear(t.cands)
	return &topicer{ids: src.ids, words: src.words[:0], termIDs: src.termIDs, count: src.count[:0], first: src.first[:0],
		surface: src.surface[:0], chunks: src.chunks, touched: t.touched[:0], kept: t.kept[:0], cands: t.cands[:0], scratch: t.scratch[:0]}
}

// resolve stop-lists and stems a word on first use.
func (t *topicer) resolve(wi *wordInfo) {
	wi.resolved = true
	wi.term = -1
	key := wi.token
	wi.surface = wi.token
	if !wi.cjk {
		cw, ok := contentWord(wi.token, t.x.lang)
		if !ok {
			return
		}
		wi.surface = cw
		if cw == wi.token {
			// Tokens are distinct and each is resolved once, so its
			// stem is computed once per document without a memo.
			key = t.stemUncached(cw)
		} else {
			key = t.stem(cw)
		}
	}
	id, ok := t.termIDs[key]
	if !ok {
		id = int32(len(t.count))
		t.termIDs[key] = id
		t.count = append(t.count, 0)
		t.first = append(t.first, 0)
		t.surface = append(t.surface, "")
	}
	wi.term = id
}

// detectLanguage returns the page language as an ISO 639-1 code: the
// <html lang> attribute when present, else a crude guess from stop-word
// hits in the first words of the text ("cjk" when CJK characters
// dominate), else "".
func detectLanguage(x *docIndex) string {
	for i, n := range x.nodes {
		if i > 64 {
			break
		}
		if n.Tag == "html" {
			l := n.Attr("lang")
			if l == "" {
				l = n.Attr("xml:lang")
			}
			l = strings.ToLower(strings.TrimSpace(l))
			if i := strings.IndexAny(l, "-_"); i > 0 {
				l = l[:i]
			}
			if len(l) >= 2 && len(l) <= 3 {
				return l
			}
			break
		}
	}
	hits := map[string]int{}
	words, cjk := 0, 0
	eachWord(string(x.text[:min(len(x.text), 32<<10)]), func(w string, isCJK bool) bool {
		if isCJK {
			cjk += utf8.RuneCountInString(w)
			return true
		}
		words++
		for _, l := range []string{"en", "de", "fr"} {
			if stopLists[l][w] {
				hits[l]++
			}
		}
		return true
	})
	if cjk > words {
		return "cjk"
	}
	best, bestN := "", 2
	for _, l := range []string{"en", "de", "fr"} {
		if hits[l] > bestN {
			best, bestN = l, hits[l]
		}
	}
	return best
}
