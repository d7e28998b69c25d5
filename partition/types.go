package partition

// NodeKind tells what a Node of the offset-keeping tree stands for.
type NodeKind uint8

const (
	DocumentNode NodeKind = iota
	ElementNode
	TextNode
	CommentNode
	DoctypeNode
	// FragmentNode is synthetic: a run of consecutive siblings that the
	// partition keeps as one block — text and inline elements between
	// line breaks or beside block-level siblings, or a heading with the
	// siblings up to the next heading of its rank (a section of a flat
	// page). It is not in the tree: its Parent is the node it was cut
	// from, its Children are the siblings (whose Parent stays their real
	// parent), and [Start, End) covers the run exactly.
	FragmentNode
)

// Attr is one attribute of a start tag; Key is lower-case.
type Attr struct {
	Key, Val string
}

// Node is one node of the offset-keeping tree built from the tokenizer's
// Raw() spans. [Start, End) is the node's span in the input: from the first
// byte of its start tag to the last byte of its end tag, or of its last
// descendant when the end tag is implied or missing. Spans of siblings never
// overlap and children lie inside their parent.
//
// Kind sits with the unexported fields, in one word of padding, so a Node
// takes 104 bytes rather than 112 (depth is bounded by maxTreeDepth): a page has a node per 30-40 bytes.
type Node struct {
	Tag      string // lower-case element name; "" for non-elements
	Attrs    []Attr
	Start    int
	End      int
	Parent   *Node
	Children []*Node
	Kind     NodeKind

	section bool    // FragmentNode: a heading and the siblings up to the next heading of its rank
	info    tagInfo // the tag's entry in tagTable, looked up once
	depth   int16   // DOM depth: the document node is 0; at most maxTreeDepth+2
	id      int32   // pre-order index into the partition's per-node tables; -1 for fragments
}

// Attr returns the value of attribute key (lower-case), or "".
func (n *Node) Attr(key string) string {
	for _, a := range n.Attrs {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// Label is what a block is for on its page.
type Label string

const (
	LabelTitle        Label = "title"
	LabelContent      Label = "content"
	LabelRelatedLinks Label = "related-links"
	LabelNavigation   Label = "navigation"
	LabelAdvert       Label = "advertisement"
	LabelFooter       Label = "footer"
	LabelForm         Label = "form"
	LabelMedia        Label = "media"
	LabelOther        Label = "other"
	// LabelScript: not rendered — a script, style, template or data
	// island cut out of a content block (carve.go).
	LabelScript Label = "script"
	// LabelDialog: a pop-up drawn over the page (<dialog>, role=dialog,
	// aria-modal, a hidden modal container).
	LabelDialog Label = "dialog"
	// LabelConsent: a cookie or consent banner.
	LabelConsent Label = "consent"
)

// Features are the spatial, content and tag features of a block
// (Wang & Zhu 2012), computed without a layout engine.
type Features struct {
	Bytes         int     // End - Start
	TextLen       int     // visible text, in characters (runes), whitespace-normalised
	Words         int     // words, or CJK characters
	Links         int     // <a href>
	LinkTextLen   int     // characters of visible text inside links
	LinkTextRatio float64 // LinkTextLen / TextLen (0 when no text)
	Images        int
	Forms         int
	Inputs        int     // input, select, textarea, button
	Headings      int     // h1-h6
	Position      float64 // Start / len(document), in [0,1)
}

// Block is a byte span of the original document that the partition kept
// as a region of the page (Song et al. 2008). Blocks nest: Children are
// the blocks the next level found inside it.
type Block struct {
	Path     string // position in the block tree, e.g. "1.3.2" (stable for the same bytes)
	Depth    int    // DOM depth of Node
	Level    int    // partition level at which the block was found (1-based)
	Node     *Node
	Start    int
	End      int
	Tag      string
	ID       string
	Class    string
	Parent   *Block
	Children []*Block

	Features Features
	Text     string   // UTF-8, whitespace-normalised, without script/style
	Topic    []string // topic words (Algorithm 2 or 3)
	Label    Label

	// oneText: the adaptive partition kept this block whole, though it
	// holds a dominant share of the page's text, as one text (oneText).
	oneText bool
}

// Style is what can be known of a node's rendering without a layout
// engine: HTML attributes, inline style and the style sheets found. Zero
// values mean unknown.
type Style struct {
	FontSize   float64 // px
	Bold       bool
	Color      string  // normalised, e.g. "#ff0000"
	Background string  // normalised background colour
	Width      float64 // px
	Height     float64 // px
	Display    string  // "none", "block", "inline", ...
	Hidden     bool    // display:none, visibility:hidden or the hidden attribute
}

// Options control Partition. The zero value is usable: every field has a
// documented default.
type Options struct {
	ContentType string   // HTTP Content-Type of the page, for its charset parameter ("" = none)
	Charset     string   // charset to read the page in, overriding detection ("" = DetectCharset)
	BaseURL     string   // for resolving links and style sheets
	Level       int      // partition level to keep; 0 = DefaultLevel, LevelAdaptive (or any negative) = adaptive
	MaxDepth    int      // deepest DOM depth ExtractBlock descends to; default 0 = no limit
	StyleSheets []string // texts of linked style sheets the caller found
	// SkipAnnotation leaves every block's Text, Features, Topic and
	// Label empty: a caller that needs only the spans and the layout
	// (ingest stores bytes; Match reads the tree) saves about a third
	// of the partition's time. The blocks are the same either way.
	SkipAnnotation bool
	// Prior is the adaptive partition of the URL's previous capture, if
	// any: its choice of blocks to divide is kept while this capture's
	// layout holds it, so that successive captures compare like with
	// like (adaptive level only; see docs/PARTITION.md).
	Prior *Result

	// Topic extraction (Algorithms 2 and 3); see docs for defaults.
	TopicWords   int     // θ: topic length in words after stop-word removal
	HeadingDelta float64 // δ: how much larger than body text a font must be to count as heading-like
	MinTermFreq  float64 // ε: term-frequency threshold for Algorithm 3
}

// Result is the partition of one document.
type Result struct {
	Doc    []byte   // the input (not copied)
	Root   *Node    // the offset-keeping tree
	Blocks []*Block // level-1 blocks in document order; deeper levels are their Children
	Leaves []*Block // the kept blocks at the requested level: disjoint, in document order
	Layout Layout   // Doc with every leaf replaced by a placeholder
	// Charset names the encoding the page's text was read in (Options.Charset
	// when a browser knows it, else DetectCharset of the document).
	Charset string

	plan   map[string]bool // adaptive partition: the keys (planKey) of the divided blocks
	styles styleTable
	nodes  []*Node // every node of Root in pre-order (Node.id is the index)
	facts  []facts // per-node extents computed bottom-up, indexed by Node.id
	keys   *leafKeyCache
}

// StyleOf returns what is known of n's rendering.
// For a FragmentNode it is the style of its parent; for a node of another
// tree it is the zero Style.
func (r *Result) StyleOf(n *Node) Style {
	for n != nil && n.Kind == FragmentNode {
		n = n.Parent
	}
	if n == nil || n.id < 0 || int(n.id) >= len(r.nodes) || r.nodes[n.id] != n {
		return Style{}
	}
	return r.styles.of(n)
}

// ownNode is n, or the node a fragment was cut from, when it is a node
// of r's tree; else nil.
func (r *Result) ownNode(n *Node) *Node {
	for n != nil && n.Kind == FragmentNode {
		n = n.Parent
	}
	if n == nil || n.id < 0 || int(n.id) >= len(r.nodes) || r.nodes[n.id] != n {
		return nil
	}
	return n
}

// hiddenOf is StyleOf(n).Hidden without copying a Style.
func (r *Result) hiddenOf(n *Node) bool {
	n = r.ownNode(n)
	return n != nil && r.styles.hidden(n)
}

// elemStyleOf is &StyleOf(n) for an element node n of r's tree, without
// the copy; nil for any other node.
func (r *Result) elemStyleOf(n *Node) *Style {
	if n = r.ownNode(n); n == nil || n.Kind != ElementNode {
		return nil
	}
	return r.styles.elemStyle(n)
}

// styleTable holds the resolved Style of every element node only (most
// nodes are text; a Style is ~90 bytes). A non-element node's style is
// derived from its parent's, as computeStyles defines it.
type styleTable struct {
	styles []Style // one per element node, in pre-order
	elem   []int32 // indexed by Node.id: index into styles, or -1 for a non-element
}

// of returns n's style; n must be a node of the table's tree (not a
// fragment).
func (t *styleTable) of(n *Node) Style {
	if e := t.elem[n.id]; e >= 0 {
		return t.styles[e]
	}
	ps := Style{FontSize: 16}
	if n.Parent != nil {
		ps = t.of(n.Parent)
	}
	return Style{FontSize: ps.FontSize, Bold: ps.Bold, Color: ps.Color, Hidden: ps.Hidden, Display: "inline"}
}

// elemStyle returns the style of element n.
func (t *styleTable) elemStyle(n *Node) *Style { return &t.styles[t.elem[n.id]] }

// hidden is of(n).Hidden without building the Style.
func (t *styleTable) hidden(n *Node) bool {
	for ; n != nil; n = n.Parent {
		if e := t.elem[n.id]; e >= 0 {
			return t.styles[e].Hidden
		}
	}
	return false
}
