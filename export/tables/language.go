package tables

import (
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/abadojack/whatlanggo"

	"github.com/blockwarc/blockwarc/partition"
)

// A page's languages (captures.languages) are detected by whatlanggo, a
// trigram detector of 84 languages that costs half a megabyte of binary
// and no start-up; lingua-go was no more accurate on the corpus and the
// article pages, for 130 MB of binary, a second of start-up and 20 times
// the CPU (docs/TABLES.md, languages).
//
// The text detected is the page's content text (its blocks labelled
// title or content), else, when that is too short to tell, its visible
// text (all blocks but scripts): navigation menus and footers are lists
// of short words a trigram detector misreads (mkdocs' English menus read
// as French), and a page is in the language of its content. Each block
// is detected on its own, so that a page in two languages gets both;
// blocks too short to tell are read together, in page order.
const (
	// langMinRunes is the least text a detection is made on: below it
	// trigrams are too few to tell languages apart.
	langMinRunes = 40
	// langWindow is the runes of text one detection reads. whatlanggo
	// reads a whole text's trigrams and misreads long texts (English
	// release notes as Yoruba); a window also bounds the cost per block.
	langWindow = 1000
	// langWindows is how many windows, spread over a long block, are
	// detected: a block opening on a list of versions or a table of
	// contents is still read by its prose.
	langWindows = 3
	// langMinShare is the share of the detected text a language needs to
	// be listed: a quotation or a language menu is not the page's.
	langMinShare = 0.1
	// langCacheBytes bounds the texts a worker remembers the detection
	// of: a URL's captures repeat most of their blocks (and a site its
	// menus and footers), and detection costs twice the partition.
	langCacheBytes = 8 << 20
)

// iso6391 maps whatlanggo's languages to ISO 639-1 codes ("" for those
// without one), built once: whatlanggo's own Iso6391 builds a map per call.
// Built on first use, not at package init: its 84 maps were about 0.5 ms
// of every blockwarc invocation's start-up, tables or not.
var iso6391 = sync.OnceValue(func() map[whatlanggo.Lang]string {
	m := map[whatlanggo.Lang]string{}
	for l := whatlanggo.Lang(0); l <= whatlanggo.Zul; l++ {
		m[l] = l.Iso6391()
	}
	return m
})

// iso6393 maps the ISO 639-1 codes of iso6391 to ISO 639-3, the codes
// Common Crawl's content_languages uses.
var iso6393 = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for l, c := range iso6391() {
		if c != "" {
			m[c] = l.Iso6393()
		}
	}
	return m
})

// contentLanguages is captures.content_languages of a page's languages
// (ISO 639-1, most text first): Common Crawl's form, ISO 639-3 codes
// joined by commas ("deu,eng"), nil when none was told.
func contentLanguages(langs []string) *string {
	if len(langs) == 0 {
		return nil
	}
	codes := make([]string, len(langs))
	for i, c := range langs {
		codes[i] = iso6393()[c]
	}
	s := strings.Join(codes, ",")
	return &s
}

// langCounts is what the detection of one text found: runes per
// language code.
type langCounts []struct {
	code  string
	runes int
}

// langDetector detects pages' languages, remembering the detections of
// the texts it saw last (one per worker: not safe for concurrent use).
type langDetector struct {
	seen  map[string]langCounts
	bytes int
}

func newLangDetector() *langDetector { return &langDetector{seen: map[string]langCounts{}} }

// pageLanguages returns the ISO 639-1 codes of the languages of a page
// whose kept blocks are leaves: most text first (ties by code), each with
// at least langMinShare of the text whose language was told; nil when
// no language could be told (too little text, or no reliable detection).
func (d *langDetector) pageLanguages(leaves []*partition.Block) []string {
	var content, visible []string
	var contentRunes int
	for _, b := range leaves {
		if b.Text == "" || b.Label == partition.LabelScript {
			continue
		}
		visible = append(visible, b.Text)
		if b.Label == partition.LabelTitle || b.Label == partition.LabelContent {
			content = append(content, b.Text)
			contentRunes += utf8.RuneCountInString(b.Text)
		}
	}
	texts := content
	if contentRunes < langMinRunes {
		texts = visible
	}
	return d.textLanguages(texts)
}

// textLanguages detects the languages of texts, each on its own, the
// ones shorter than langMinRunes together.
func (d *langDetector) textLanguages(texts []string) []string {
	runes := map[string]int{}
	var short strings.Builder
	for _, t := range texts {
		if utf8.RuneCountInString(t) < langMinRunes {
			short.WriteString(t)
			short.WriteByte('\n')
			continue
		}
		d.add(runes, t)
	}
	if s := short.String(); utf8.RuneCountInString(s) >= langMinRunes {
		d.add(runes, s)
	}
	total := 0
	for _, n := range runes {
		total += n
	}
	var out []string
	for code, n := range runes {
		if float64(n) >= langMinShare*float64(total) {
			out = append(out, code)
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		if d := runes[b] - runes[a]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return out
}

// add adds the detection of text to runes, from the cache when text was
// seen.
func (d *langDetector) add(runes map[string]int, text string) {
	c, ok := d.seen[text]
	if !ok {
		c = detect(text)
		if d.bytes+len(text) > langCacheBytes {
			clear(d.seen)
			d.bytes = 0
		}
		d.seen[text] = c
		d.bytes += len(text)
	}
	for _, e := range c {
		runes[e.code] += e.runes
	}
}

// detect detects up to langWindows windows of text, spread evenly, and
// gives text's runes, shared among the windows, to the language of each
// window detected reliably.
func detect(text string) langCounts {
	var c langCounts
	n := utf8.RuneCountInString(text)
	k := min((n+langWindow-1)/langWindow, langWindows)
	for i := range k {
		start := 0
		if k > 1 {
			start = i * (n - langWindow) / (k - 1)
		}
		w := runeSlice(text, start, min(n, start+langWindow))
		info := whatlanggo.Detect(w)
		if !info.IsReliable() {
			continue
		}
		if code := iso6391()[info.Lang]; code != "" {
			c = append(c, struct {
				code  string
				runes int
			}{code, n / k})
		}
	}
	return c
}

// runeSlice returns the runes [from, to) of s.
func runeSlice(s string, from, to int) string {
	i, start := 0, -1
	for off := range s {
		if i == from {
			start = off
		}
		if i == to {
			return s[start:off]
		}
		i++
	}
	if start < 0 {
		return ""
	}
	return s[start:]
}
