package partition

import "slices"

// TagClass is the role a tag plays in the page-block rules (Song et al.
// 2008 sort tags into three classes; see docs/PARTITION.md for the table
// and every departure from the paper's 2008 lists).
type TagClass uint8

const (
	// ClassNone: text-level tags that neither structure nor format a
	// region on their own (abbr, kbd, var, ...).
	ClassNone TagClass = iota
	// ClassSchema: tags that lay out regions (table, tr, td, div and the
	// HTML5 sectioning elements, lists, body).
	ClassSchema
	// ClassFormat: tags that format text inside a region (p, h1-h6, br,
	// hr, font, b, span, pre, ...).
	ClassFormat
	// ClassFunction: tags that do something (form controls, links,
	// images, embedded media, scripts).
	ClassFunction
)

// tagInfo is everything the rules need to know about one tag name.
type tagInfo struct {
	class     TagClass
	block     bool  // block-level by default (CSS display other than inline)
	invisible bool  // never rendered: its content is no block's content
	media     bool  // visible without text: counts toward a node's extent
	void      bool  // has no end tag
	text      uint8 // text* flags of text.go, set at init
	idx       uint8 // 1 + the tag's index in knownTags, set at init; 0 for unknown tags
}

var tagTable = map[string]tagInfo{
	// Schema: layout containers.
	"html": {class: ClassSchema, block: true}, "body": {class: ClassSchema, block: true},
	"table": {class: ClassSchema, block: true}, "thead": {class: ClassSchema, block: true},
	"tbody": {class: ClassSchema, block: true}, "tfoot": {class: ClassSchema, block: true},
	"tr": {class: ClassSchema, block: true}, "td": {class: ClassSchema, block: true},
	"th": {class: ClassSchema, block: true}, "caption": {class: ClassFormat, block: true},
	"div": {class: ClassSchema, block: true}, "center": {class: ClassSchema, block: true},
	"section": {class: ClassSchema, block: true}, "article": {class: ClassSchema, block: true},
	"main": {class: ClassSchema, block: true}, "nav": {class: ClassSchema, block: true},
	"header": {class: ClassSchema, block: true}, "footer": {class: ClassSchema, block: true},
	"aside": {class: ClassSchema, block: true}, "search": {class: ClassSchema, block: true},
	"ul": {class: ClassSchema, block: true}, "ol": {class: ClassSchema, block: true},
	"dl": {class: ClassSchema, block: true}, "dir": {class: ClassSchema, block: true},
	"menu": {class: ClassSchema, block: true}, "li": {class: ClassSchema, block: true},
	"dt": {class: ClassSchema, block: true}, "dd": {class: ClassSchema, block: true},
	"fieldset": {class: ClassSchema, block: true}, "figure": {class: ClassSchema, block: true},
	"details": {class: ClassSchema, block: true}, "dialog": {class: ClassSchema, block: true},
	"frameset": {class: ClassSchema, block: true}, "hgroup": {class: ClassSchema, block: true},
	"address": {class: ClassSchema, block: true}, "blockquote": {class: ClassSchema, block: true},
	"colgroup": {class: ClassSchema, invisible: true}, "col": {class: ClassSchema, invisible: true, void: true},

	// Format: text formatting.
	"p": {class: ClassFormat, block: true}, "pre": {class: ClassFormat, block: true},
	"h1": {class: ClassFormat, block: true}, "h2": {class: ClassFormat, block: true},
	"h3": {class: ClassFormat, block: true}, "h4": {class: ClassFormat, block: true},
	"h5": {class: ClassFormat, block: true}, "h6": {class: ClassFormat, block: true},
	"hr": {class: ClassFormat, block: true, void: true}, "br": {class: ClassFormat, void: true},
	"wbr": {class: ClassFormat, void: true},
	// Ruby annotations: rt is a reading set above its base text (the
	// kana of a kanji), not text of the sentence, and rp the brackets
	// around it that only a browser without ruby shows (HTML's default
	// style hides them). Neither is in the text (skipText), so that
	// "法律<rt>ほうりつ</rt>では" reads, counts and is found as "法律では".
	"rt": {class: ClassFormat}, "rp": {class: ClassFormat, invisible: true},
	"listing": {class: ClassFormat, block: true}, "xmp": {class: ClassFormat, block: true},
	"plaintext":  {class: ClassFormat, block: true},
	"figcaption": {class: ClassFormat, block: true}, "summary": {class: ClassFormat, block: true},
	"legend": {class: ClassFormat, block: true},
	"font":   {class: ClassFormat}, "b": {class: ClassFormat}, "strong": {class: ClassFormat},
	"i": {class: ClassFormat}, "em": {class: ClassFormat}, "u": {class: ClassFormat},
	"s": {class: ClassFormat}, "strike": {class: ClassFormat}, "small": {class: ClassFormat},
	"big": {class: ClassFormat}, "sub": {class: ClassFormat}, "sup": {class: ClassFormat},
	"tt": {class: ClassFormat}, "code": {class: ClassFormat}, "span": {class: ClassFormat},
	"mark": {class: ClassFormat}, "q": {class: ClassFormat}, "cite": {class: ClassFormat},
	"label": {class: ClassFormat}, "time": {class: ClassFormat}, "blink": {class: ClassFormat},
	"marquee": {class: ClassFormat, block: true}, "nobr": {class: ClassFormat},

	// Function: links, controls, media, scripts.
	"a": {class: ClassFunction}, "area": {class: ClassFunction, void: true},
	"map":    {class: ClassFunction},
	"form":   {class: ClassFunction, block: true},
	"input":  {class: ClassFunction, media: true, void: true},
	"select": {class: ClassFunction, media: true}, "textarea": {class: ClassFunction, media: true},
	"button": {class: ClassFunction, media: true}, "option": {class: ClassFunction},
	"optgroup": {class: ClassFunction}, "datalist": {class: ClassFunction, invisible: true},
	"output": {class: ClassFunction}, "progress": {class: ClassFunction, media: true},
	"meter":   {class: ClassFunction, media: true},
	"img":     {class: ClassFunction, media: true, void: true},
	"image":   {class: ClassFunction, media: true, void: true},
	"picture": {class: ClassFunction, media: true}, "svg": {class: ClassFunction, media: true},
	"math": {class: ClassFunction}, "canvas": {class: ClassFunction, media: true},
	"video":  {class: ClassFunction, media: true, block: true},
	"audio":  {class: ClassFunction, media: true},
	"iframe": {class: ClassFunction, media: true, block: true},
	"frame":  {class: ClassFunction, media: true, block: true, void: true},
	"object": {class: ClassFunction, media: true}, "embed": {class: ClassFunction, media: true, void: true},
	"applet": {class: ClassFunction, media: true},
	"source": {class: ClassFunction, invisible: true, void: true},
	"track":  {class: ClassFunction, invisible: true, void: true},
	"param":  {class: ClassFunction, invisible: true, void: true},
	"script": {class: ClassFunction, invisible: true}, "noscript": {class: ClassFunction, invisible: true},
	"style": {class: ClassFunction, invisible: true}, "template": {class: ClassFunction, invisible: true},
	"head": {class: ClassFunction, invisible: true}, "title": {class: ClassFunction, invisible: true},
	"meta":     {class: ClassFunction, invisible: true, void: true},
	"link":     {class: ClassFunction, invisible: true, void: true},
	"base":     {class: ClassFunction, invisible: true, void: true},
	"basefont": {class: ClassFunction, invisible: true, void: true},
	"bgsound":  {class: ClassFunction, invisible: true, void: true},
	"keygen":   {class: ClassFunction, media: true, void: true},
	"noembed":  {class: ClassFunction, invisible: true}, "noframes": {class: ClassFunction, invisible: true},
}

// infoOf returns the table entry of tag; unknown tags (custom elements
// included) are inline ClassNone, as a browser renders them.
func infoOf(tag string) tagInfo { return tagTable[tag] }

// tagEntry is a known tag's canonical name and entry, so the tree builder
// finds both with one lookup of the name's bytes, without allocating.
type tagEntry struct {
	name string
	info tagInfo
}

// tagSlots is an open-addressing hash table of every tag of tagTable,
// built at init and read only: the tree builder looks up every tag name
// it meets, and this costs a fraction of a map lookup (no general string
// hash, one probe for nearly every name).
var tagSlots [512]tagEntry

// knownTags are the names of tagTable in sorted order; tagInfo.idx
// numbers them from 1.
var knownTags []string

// Indices (tagInfo.idx) of the tags the tree builder counts by name.
var idxHead, idxA, idxP uint8

// tagSlot returns where the probe for a name of length n with bytes
// first, mid (at n/2) and last starts.
func tagSlot(n int, first, mid, last byte) uint32 {
	h := (uint32(first)*31+uint32(mid))*31 + uint32(last) + uint32(n)*0x2F
	return (h * 0x9E3779B1) >> 23 // 9 bits: an index into tagSlots
}

// lookupTag returns the entry of the lower-case tag name, or nil.
func lookupTag[T string | []byte](name T) *tagEntry {
	n := len(name)
	if n == 0 {
		return nil
	}
	for i := tagSlot(n, name[0], name[n/2], name[n-1]); ; i = (i + 1) % uint32(len(tagSlots)) {
		e := &tagSlots[i]
		if e.name == "" {
			return nil
		}
		if e.name == string(name) {
			return e
		}
	}
}

func init() {
	// Every tag that the text walk asks about is in tagTable (skipText,
	// breakTags and the counted tags), so its text flags live there too.
	for tag := range tagTable {
		knownTags = append(knownTags, tag)
	}
	slices.Sort(knownTags)
	if len(knownTags) >= 255 {
		panic("partition: tagTable too large for tagInfo.idx")
	}
	for i, tag := range knownTags {
		info := tagTable[tag]
		info.text = textFlagsOf(tag)
		info.idx = uint8(i + 1)
		tagTable[tag] = info
		n := len(tag)
		j := tagSlot(n, tag[0], tag[n/2], tag[n-1])
		for tagSlots[j].name != "" {
			j = (j + 1) % uint32(len(tagSlots))
		}
		tagSlots[j] = tagEntry{name: tag, info: info}
	}
	idxHead, idxA, idxP = tagTable["head"].idx, tagTable["a"].idx, tagTable["p"].idx
}

// ClassOf returns the tag class of an element name (lower-case).
func ClassOf(tag string) TagClass { return tagTable[tag].class }

// isVoid reports whether tag never has content or an end tag.
func isVoid(tag string) bool { return tagTable[tag].void }

// headTags may stay inside <head>; any other start tag ends the head as an
// HTML5 parser would.
func headTag(tag string) bool {
	switch tag {
	case "base", "basefont", "bgsound", "link", "meta", "noscript", "script", "style", "template", "title":
		return true
	}
	return false
}

// closesP lists the start tags that end an open <p> (HTML5 §13.2.6.4.7).
func closesP(tag string) bool {
	switch tag {
	case "address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div", "dl",
		"fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
		"header", "hgroup", "hr", "main", "menu", "nav", "ol", "p", "pre", "section", "summary",
		"table", "ul", "li", "dd", "dt", "plaintext", "listing", "xmp", "search":
		return true
	}
	return false
}

// scopeBarrier reports whether an end tag's search for its open element
// stops at tag (the HTML5 "has an element in scope" boundaries).
func scopeBarrier(tag string) bool {
	switch tag {
	case "applet", "caption", "html", "table", "td", "th", "marquee", "object", "template":
		return true
	}
	return false
}

// tableBarrier is the narrower boundary for table-structure end tags.
func tableBarrier(tag string) bool { return tag == "html" || tag == "table" || tag == "template" }

// specialTag is HTML5's "special" category, used to stop the implied
// closing of <li>, <dt> and <dd>.
func specialTag(tag string) bool {
	switch tag {
	case "address", "div", "p":
		return false
	}
	i, ok := tagTable[tag]
	return ok && (i.block || i.class == ClassSchema) && tag != "li" && tag != "dd" && tag != "dt" ||
		tag == "td" || tag == "th" || tag == "table" || tag == "button" || tag == "select"
}

// headingLevel returns 1-6 for h1-h6 and 0 otherwise.
func headingLevel(tag string) int {
	if len(tag) == 2 && tag[0] == 'h' && tag[1] >= '1' && tag[1] <= '6' {
		return int(tag[1] - '0')
	}
	return 0
}
