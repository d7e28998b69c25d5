package partition

import (
	"math"
	"slices"
	"strconv"
	"sync"
)

// DVS block similarity (Feng & Tang 2012): two blocks are alike when their
// tag structure and their visual structure are alike, whatever their text.
// Each is measured as the Jaccard coefficient of "path shingles": the
// root-to-node paths of the block's subtree, in document order, taken ω at
// a time. The tag tree labels each node with its tag; the visual tree
// labels it with what StyleOf knows of its rendering (font size bucket,
// bold, colours, display) and its tag class. sim = ω_t·simT + ω_v·simV.

// Default DVS parameters: the values Feng & Tang found best.
const (
	DefaultShingleWindow = 3
	DefaultTagWeight     = 0.5
	DefaultVisualWeight  = 0.5
	DefaultSimThreshold  = 0.8
	DefaultSketchSize    = 256
	DefaultTextThreshold = 0.8
)

// SimOptions control Similarity and Match. The zero value means the
// defaults above.
type SimOptions struct {
	Window       int     // ω: paths per shingle; default 3
	TagWeight    float64 // ω_t; default 0.5 (when both weights are 0)
	VisualWeight float64 // ω_v; default 0.5 (when both weights are 0)
	Threshold    float64 // least DVS similarity for two blocks to be "the same block, modified"; default 0.8
	// TextThreshold also makes two blocks "the same block, modified" when
	// their text is this alike (Jaccard of word bigrams), whatever DVS
	// says: small blocks have few path shingles, so one added <strong>
	// can halve their DVS score while the text barely changed. Default
	// 0.8; a value above 1 disables it.
	TextThreshold float64
	// SketchSize bounds the cost of one comparison: a block keeps the
	// SketchSize smallest shingle hashes (a bottom-k sketch), so blocks
	// with at most that many distinct shingles are compared exactly and
	// larger ones by an unbiased estimate. Default 256.
	SketchSize int
}

func (o SimOptions) withDefaults() SimOptions {
	if o.Window <= 0 {
		o.Window = DefaultShingleWindow
	}
	if o.TagWeight <= 0 && o.VisualWeight <= 0 {
		o.TagWeight, o.VisualWeight = DefaultTagWeight, DefaultVisualWeight
	}
	if o.TagWeight < 0 {
		o.TagWeight = 0
	}
	if o.VisualWeight < 0 {
		o.VisualWeight = 0
	}
	if o.Threshold <= 0 {
		o.Threshold = DefaultSimThreshold
	}
	if o.TextThreshold <= 0 {
		o.TextThreshold = DefaultTextThreshold
	}
	if o.SketchSize <= 0 {
		o.SketchSize = DefaultSketchSize
	}
	return o
}

// Signature is what Similarity compares: bounded sketches of a block's
// tag-path shingles, visual-path shingles and word shingles. Computing it
// walks the block's subtree once; comparing two costs O(SketchSize), so
// callers comparing one block with many compute its Signature once.
type Signature struct {
	tag, vis, text []uint64 // sorted, distinct, at most SketchSize each
	opts           SimOptions
}

// Similarity returns the DVS similarity of block a of ra and block b of rb,
// in [0,1]: opts.TagWeight·simT + opts.VisualWeight·simV (normalised by the
// weights' sum).
func Similarity(ra *Result, a *Block, rb *Result, b *Block, opts SimOptions) float64 {
	return NewSignature(ra, a, opts).Similarity(NewSignature(rb, b, opts))
}

// Similarity returns the DVS similarity of the blocks s and t were made
// from. Signatures made with different options compare with s's weights.
// Blocks without elements (bare text) have no tag or visual tree; they
// compare by their text.
func (s Signature) Similarity(t Signature) float64 {
	o := s.opts.withDefaults()
	if len(s.tag) == 0 && len(t.tag) == 0 {
		return s.TextSimilarity(t)
	}
	w := o.TagWeight + o.VisualWeight
	return (o.TagWeight*jaccard(s.tag, t.tag, o.SketchSize) + o.VisualWeight*jaccard(s.vis, t.vis, o.SketchSize)) / w
}

// TextSimilarity returns the Jaccard coefficient of the word-bigram
// shingles of the two blocks' text (raw text bytes split at white space,
// script and style excluded): a tiebreaker between blocks DVS finds
// equally alike (two paragraphs have the same structure whatever they
// say), and Match's second test for "modified" (SimOptions.TextThreshold).
func (s Signature) TextSimilarity(t Signature) float64 {
	return jaccard(s.text, t.text, s.opts.withDefaults().SketchSize)
}

// NewSignature computes b's signature. Paths start at the block's own
// node, so a block moved deeper into the page still compares equal. A
// block made of several siblings (a FragmentNode, or b.Node and the
// siblings after it that start inside [b.Start, b.End)) is compared as
// the sequence of their subtrees. A block
// without a node (or with a nil result) has an empty signature, which is
// similar to nothing.
func NewSignature(r *Result, b *Block, opts SimOptions) Signature {
	opts = opts.withDefaults()
	sig := Signature{opts: opts}
	if r == nil || b == nil || b.Node == nil {
		return sig
	}
	w := sigWalkers.Get().(*sigWalker)
	defer sigWalkers.Put(w)
	*w = sigWalker{res: r, opts: opts, tagPaths: w.tagPaths[:0], visPaths: w.visPaths[:0], words: w.words[:0], shingles: w.shingles[:0]}
	for _, n := range blockNodes(b) {
		w.walk(n, fnvOffset, fnvOffset, 0)
	}
	w.flushWords()
	// The sketches are sorted in the walker's scratch memory and copied
	// out at their size: a Signature keeps no more than it compares.
	tag := bottomK(w.shingle(w.tagPaths, opts.Window), opts.SketchSize)
	out := make([]uint64, 0, len(tag)+min(len(w.visPaths), opts.SketchSize)+min(len(w.words), opts.SketchSize))
	sig.tag, out = appendSketch(out, tag)
	sig.vis, out = appendSketch(out, bottomK(w.shingle(w.visPaths, opts.Window), opts.SketchSize))
	sig.text, _ = appendSketch(out, bottomK(w.words, opts.SketchSize))
	w.res = nil
	return sig
}

// sigWalkers hold the scratch memory of NewSignature: the paths, words
// and shingles of a block, which it sorts into sketches.
var sigWalkers = sync.Pool{New: func() any { return new(sigWalker) }}

// appendSketch appends h to out and returns the appended part (nil when h is
// empty, as bottomK returns it) and out.
func appendSketch(out, h []uint64) ([]uint64, []uint64) {
	if len(h) == 0 {
		return nil, out
	}
	n := len(out)
	out = append(out, h...)
	return out[n:len(out):len(out)], out
}

// maxSigNodes bounds the nodes one signature walks: a level-1 block can be
// the whole page, and its first hundred thousand nodes characterise it well
// enough.
const maxSigNodes = 100_000

type sigWalker struct {
	res      *Result
	opts     SimOptions
	tagPaths []uint64 // path hash of each element, in document order
	visPaths []uint64
	words    []uint64 // word-bigram hashes
	prevWord uint64
	nodes    int
	shingles []uint64 // scratch of shingle
}

// walk appends the paths of n's subtree; tagPath and visPath are the hashes
// of the paths above n.
func (w *sigWalker) walk(n *Node, tagPath, visPath uint64, depth int) {
	if w.nodes >= maxSigNodes || depth > 512 {
		return
	}
	w.nodes++
	switch n.Kind {
	case ElementNode:
		tagPath = fnvString(fnvByte(tagPath, '/'), n.Tag)
		visPath = fnvUint(fnvByte(visPath, '/'), visualToken(n, w.res.StyleOf(n)))
		w.tagPaths = append(w.tagPaths, tagPath)
		w.visPaths = append(w.visPaths, visPath)
		if n.Tag == "script" || n.Tag == "style" || n.Tag == "template" {
			return
		}
	case TextNode:
		w.addWords(w.res.Doc, n.Start, n.End)
		return
	default:
		return
	}
	for _, c := range n.Children {
		w.walk(c, tagPath, visPath, depth+1)
	}
}

// addWords hashes the word bigrams of doc[start:end], splitting at ASCII
// white space and markup punctuation; the words run on across text nodes.
func (w *sigWalker) addWords(doc []byte, start, end int) {
	if start < 0 || end > len(doc) || start >= end {
		return
	}
	h := uint64(fnvOffset)
	in := false
	for _, c := range doc[start:end] {
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' {
			if in {
				w.word(h)
				h, in = fnvOffset, false
			}
			continue
		}
		h = fnvByte(h, c)
		in = true
	}
	if in {
		w.word(h)
	}
}

func (w *sigWalker) word(h uint64) {
	if len(w.words) >= 1<<16 {
		return
	}
	if w.prevWord != 0 {
		w.words = append(w.words, mix(w.prevWord*31+h))
	}
	w.prevWord = h
}

// flushWords keeps a one-word text comparable.
func (w *sigWalker) flushWords() {
	if len(w.words) == 0 && w.prevWord != 0 {
		w.words = append(w.words, mix(w.prevWord))
	}
}

// visualToken labels a node of the visual tree: tag class (Song et al.'s
// schema/format/function, headings apart), font size bucket, weight, colours and display. Unknown values (zero) label as
// unknown, so two pages without style sheets compare on tag class alone.
func visualToken(n *Node, s Style) uint64 {
	h := fnvByte(fnvByte(fnvOffset, byte(ClassOf(n.Tag))), byte(headingLevel(n.Tag)))
	h = fnvUint(h, uint64(int64(fontBucket(s.FontSize))))
	if s.Bold || n.Tag == "b" || n.Tag == "strong" || headingLevel(n.Tag) > 0 {
		h = fnvByte(h, 'B')
	}
	h = fnvString(fnvByte(h, 'c'), s.Color)
	h = fnvString(fnvByte(h, 'g'), s.Background)
	d := s.Display
	if d == "" { // unknown: the tag's default
		d = "inline"
		if infoOf(n.Tag).block {
			d = "block"
		}
	}
	h = fnvString(fnvByte(h, 'd'), d)
	if s.Hidden {
		h = fnvByte(h, 'H')
	}
	return h
}

// fontBucket puts font sizes into steps of about 20% around 16px, so that
// 15px and 16px body text agree and 16px text and a 24px heading do not.
// 0 means unknown.
func fontBucket(px float64) int {
	if px <= 0 || math.IsNaN(px) || math.IsInf(px, 0) {
		return 0
	}
	b := int(math.Round(math.Log(px/16) / math.Log(1.2)))
	return max(-20, min(20, b)) + 100
}

// shingle hashes each run of w consecutive paths (a sequence shorter than
// w is one shingle) and returns the hashes, in the walker's scratch
// memory: valid until its next call.
func (sw *sigWalker) shingle(paths []uint64, w int) []uint64 {
	if len(paths) == 0 {
		return nil
	}
	if len(paths) <= w {
		h := uint64(fnvOffset)
		for _, p := range paths {
			h = fnvUint(h, p)
		}
		sw.shingles = append(sw.shingles[:0], mix(h))
		return sw.shingles
	}
	out := sw.shingles[:0]
	for i := 0; i+w <= len(paths); i++ {
		h := uint64(fnvOffset)
		for _, p := range paths[i : i+w] {
			h = fnvUint(h, p)
		}
		out = append(out, mix(h))
	}
	sw.shingles = out
	return out
}

// bottomK sorts, de-duplicates and keeps the k smallest hashes. h is
// reordered.
func bottomK(h []uint64, k int) []uint64 {
	if n := len(h); k > 0 && n > 2*k {
		// The hashes are uniform, so the k smallest distinct ones are
		// almost surely among the ~1.5k below bound: those alone are
		// sorted when at least k distinct ones are (the same k). Sorts
		// were a third of a signature's cost.
		bound := math.MaxUint64 / uint64(n) * uint64(k+k/2)
		m := 0
		for i, x := range h {
			if x < bound {
				h[m], h[i] = x, h[m]
				m++
			}
		}
		slices.Sort(h[:m])
		distinct := 0
		for i := range m {
			if i == 0 || h[i] != h[i-1] {
				distinct++
			}
		}
		if distinct >= k {
			h = slices.Compact(h[:m])
			return slices.Clip(h[:k:k])
		}
	}
	slices.Sort(h)
	h = slices.Compact(h)
	if len(h) > k {
		h = h[:k:k]
	}
	return slices.Clip(h)
}

// jaccard estimates |A∩B|/|A∪B| from bottom-k sketches a and b: among the
// k smallest hashes of a∪b, the share found in both. Exact when both sets
// had at most k members. Two empty sets are not similar (there is nothing
// to compare), which keeps empty blocks from matching everything.
func jaccard(a, b []uint64, k int) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	var union, both int
	i, j := 0, 0
	for union < k && (i < len(a) || j < len(b)) {
		switch {
		case j >= len(b) || (i < len(a) && a[i] < b[j]):
			i++
		case i >= len(a) || b[j] < a[i]:
			j++
		default:
			both++
			i++
			j++
		}
		union++
	}
	return float64(both) / float64(union)
}

// blockNodes returns the nodes a block is made of: a fragment's children,
// or b.Node and the siblings after it that start inside the block's span.
func blockNodes(b *Block) []*Node {
	if b.Node.Kind == FragmentNode {
		return b.Node.Children
	}
	p := b.Node.Parent
	if p == nil {
		return []*Node{b.Node}
	}
	i := slices.Index(p.Children, b.Node)
	if i < 0 {
		return []*Node{b.Node}
	}
	j := i + 1
	for j < len(p.Children) && p.Children[j].Start < b.End {
		j++
	}
	return p.Children[i:j]
}

// FNV-1a, 64 bits: deterministic across runs (unlike hash/maphash), so the
// same inputs always give the same matches.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvByte(h uint64, c byte) uint64 { return (h ^ uint64(c)) * fnvPrime }

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

func fnvUint(h, v uint64) uint64 {
	for i := 0; i < 8; i++ {
		h = (h ^ (v & 0xff)) * fnvPrime
		v >>= 8
	}
	return h
}

// mix spreads FNV's output over all 64 bits (splitmix64's finaliser), so
// the bottom-k sketch samples shingles uniformly.
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// String is for debugging and test failure messages.
func (s Signature) String() string {
	return "sig(tag " + strconv.Itoa(len(s.tag)) + ", vis " + strconv.Itoa(len(s.vis)) + ", text " + strconv.Itoa(len(s.text)) + ")"
}
