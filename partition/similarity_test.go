package partition

import (
	"math"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// testTree builds a minimal offset-keeping tree for the similarity tests,
// independent of Partition: start tags open a node (void elements close
// at once), end tags close the nearest open node of their name, text and
// comments are leaves. It knows none of HTML's implied tags; the test
// inputs are well formed. leafSel picks the leaves of the Result.
func testTree(t testing.TB, doc string, leafSel func(*Node) bool) *Result {
	t.Helper()
	root := &Node{Kind: DocumentNode, End: len(doc)}
	stack := []*Node{root}
	z := html.NewTokenizer(strings.NewReader(doc))
	off := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		n := len(z.Raw())
		top := stack[len(stack)-1]
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			e := &Node{Kind: ElementNode, Tag: string(name), Start: off, End: off + n, Parent: top}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				e.Attrs = append(e.Attrs, Attr{Key: string(k), Val: string(v)})
			}
			top.Children = append(top.Children, e)
			if tt == html.StartTagToken && !isVoid(e.Tag) {
				stack = append(stack, e)
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			for i := len(stack) - 1; i > 0; i-- {
				if stack[i].Tag == string(name) {
					for _, s := range stack[i:] {
						s.End = off + n
					}
					stack = stack[:i]
					break
				}
			}
		case html.TextToken, html.CommentToken:
			k := TextNode
			if tt == html.CommentToken {
				k = CommentNode
			}
			top.Children = append(top.Children, &Node{Kind: k, Start: off, End: off + n, Parent: top})
		}
		off += n
	}
	res := &Result{Doc: []byte(doc), Root: root}
	var number func(*Node, int16)
	number = func(n *Node, depth int16) {
		n.id, n.depth = int32(len(res.nodes)), depth
		res.nodes = append(res.nodes, n)
		for _, c := range n.Children {
			number(c, depth+1)
		}
	}
	number(root, 0)
	res.styles.elem = make([]int32, len(res.nodes))
	for i, n := range res.nodes {
		res.styles.elem[i] = -1
		if n.Kind == ElementNode {
			res.styles.elem[i] = int32(len(res.styles.styles))
			res.styles.styles = append(res.styles.styles, Style{})
		}
	}
	var walk func(*Node)
	walk = func(n *Node) {
		if n.Kind == ElementNode && leafSel != nil && leafSel(n) {
			res.Leaves = append(res.Leaves, &Block{Node: n, Start: n.Start, End: n.End, Tag: n.Tag})
			return
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(root)
	return res
}

func tagIs(tags ...string) func(*Node) bool {
	return func(n *Node) bool {
		for _, t := range tags {
			if n.Tag == t {
				return true
			}
		}
		return false
	}
}

// firstBlock returns a block for the first element named tag.
func firstBlock(t testing.TB, r *Result, tag string) *Block {
	t.Helper()
	var found *Node
	var walk func(*Node)
	walk = func(n *Node) {
		if found != nil {
			return
		}
		if n.Kind == ElementNode && n.Tag == tag {
			found = n
			return
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(r.Root)
	if found == nil {
		t.Fatalf("no <%s> in test document", tag)
	}
	return &Block{Node: found, Start: found.Start, End: found.End, Tag: tag}
}

func simList(items int, item string) string {
	var sb strings.Builder
	sb.WriteString("<ul class=nav>")
	for i := 0; i < items; i++ {
		sb.WriteString("<li><a href='/x'>" + item + "</a></li>")
	}
	sb.WriteString("</ul>")
	return sb.String()
}

func TestSimilarityTagStructure(t *testing.T) {
	nav := testTree(t, simList(10, "Home"), nil)
	nav11 := testTree(t, simList(11, "About us"), nil)
	navImg := testTree(t, strings.Replace(simList(11, "About"), "<li><a href='/x'>About</a></li>", "<li><a href='/x'><img src=a.png>About</a></li>", 1), nil)
	table := testTree(t, "<table><tr><td>Home</td><td>About</td></tr><tr><td>a</td><td>b</td></tr></table>", nil)
	para := testTree(t, "<div><p>One paragraph of <b>text</b> here.</p><p>Another <i>one</i>.</p></div>", nil)
	para2 := testTree(t, "<div><p>Quite other words <b>now</b>.</p><p>And <i>more</i> of them.</p></div>", nil)
	var o SimOptions

	tests := []struct {
		name     string
		ra       *Result
		a        string
		rb       *Result
		b        string
		min, max float64
	}{
		{"same structure, other text", para, "div", para2, "div", 1, 1},
		// Shingles form a set: repeating a record adds none.
		{"list gained one item", nav, "ul", nav11, "ul", 1, 1},
		// 3 shingles (ul li a, li a li, a li a) against those 3 plus 3
		// through the img: 3/6 in both trees.
		{"one list item gained an image", nav, "ul", navImg, "ul", 0.5, 0.5},
		{"list against table", nav, "ul", table, "table", 0, 0.2},
		{"paragraphs against list", para, "div", nav, "ul", 0, 0.2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := firstBlock(t, tc.ra, tc.a), firstBlock(t, tc.rb, tc.b)
			s := Similarity(tc.ra, a, tc.rb, b, o)
			if s < tc.min || s > tc.max {
				t.Errorf("Similarity = %.3f, want in [%.3f, %.3f]", s, tc.min, tc.max)
			}
			if r := Similarity(tc.rb, b, tc.ra, a, o); math.Abs(r-s) > 1e-12 {
				t.Errorf("not symmetric: %.6f vs %.6f", s, r)
			}
		})
	}
}

// Exact values worked out by hand from the paths, for three windows.
func TestSimilarityJaccardExact(t *testing.T) {
	a := testTree(t, "<div><p>x</p><p>y</p></div>", nil)
	b := testTree(t, "<div><p>x</p><span>y</span></div>", nil)
	// Paths a: div, div/p, div/p -> shingles (ω=3): {div,div/p,div/p}
	// Paths b: div, div/p, div/span -> {div,div/p,div/span}: simT = 0.
	// With ω=1: a {div, div/p}, b {div, div/p, div/span}: simT = 2/3.
	// Visual tree without styles: p and span share a tag class (format)
	// but not their default display (block, inline), so simV follows simT.
	for _, tc := range []struct {
		w    int
		want float64
	}{{3, 0}, {1, 2.0 / 3}, {2, 1.0 / 3}} {
		s := Similarity(a, firstBlock(t, a, "div"), b, firstBlock(t, b, "div"), SimOptions{Window: tc.w})
		if math.Abs(s-tc.want) > 1e-9 {
			t.Errorf("window %d: Similarity = %.4f, want %.4f", tc.w, s, tc.want)
		}
	}
}

// Same tags, different rendering: the visual tree tells them apart, and
// the weights choose how much that counts.
func TestSimilarityVisual(t *testing.T) {
	doc := "<div><p>x</p><p>y</p><p>z</p></div>"
	a := testTree(t, doc, nil)
	b := testTree(t, doc, nil)
	for _, p := range firstBlock(t, b, "div").Node.Children {
		*b.styles.elemStyle(p) = Style{FontSize: 32, Bold: true, Color: "#ff0000"}
	}
	ba, bb := firstBlock(t, a, "div"), firstBlock(t, b, "div")
	if s := Similarity(a, ba, b, bb, SimOptions{TagWeight: 1, VisualWeight: 0.0001}); s < 0.99 {
		t.Errorf("tag-only similarity = %.3f, want ≈1", s)
	}
	if s := Similarity(a, ba, b, bb, SimOptions{VisualWeight: 1}); s > 0.01 {
		t.Errorf("visual-only similarity = %.3f, want 0 (every path differs below div)", s)
	}
	s := Similarity(a, ba, b, bb, SimOptions{})
	if s < 0.45 || s > 0.55 {
		t.Errorf("default similarity = %.3f, want ≈0.5 (equal weights)", s)
	}
	if s >= DefaultSimThreshold {
		t.Errorf("restyled block passes the threshold: %.3f", s)
	}
	// 15px and 16px text fall into one font bucket, 16px and 24px do not.
	if fontBucket(15) != fontBucket(16) || fontBucket(16) == fontBucket(24) || fontBucket(0) == fontBucket(16) {
		t.Errorf("font buckets: 15→%d 16→%d 24→%d 0→%d", fontBucket(15), fontBucket(16), fontBucket(24), fontBucket(0))
	}
}

// Bare-text blocks and blocks with no node compare sensibly.
func TestSimilarityDegenerate(t *testing.T) {
	a := testTree(t, "<p>hello there world</p>", nil)
	txt := a.Root.Children[0].Children[0]
	bt := &Block{Node: txt, Start: txt.Start, End: txt.End}
	if s := Similarity(a, bt, a, bt, SimOptions{}); s != 1 {
		t.Errorf("text block against itself = %v, want 1", s)
	}
	if s := Similarity(a, &Block{}, a, &Block{}, SimOptions{}); s != 0 {
		t.Errorf("node-less blocks = %v, want 0", s)
	}
	if s := Similarity(nil, nil, a, bt, SimOptions{}); s != 0 {
		t.Errorf("nil block = %v, want 0", s)
	}
}

// The bottom-k estimate is exact for small sets and close for large ones.
func TestJaccardSketch(t *testing.T) {
	mk := func(lo, hi int) []uint64 {
		var h []uint64
		for i := lo; i < hi; i++ {
			h = append(h, mix(uint64(i)+1))
		}
		return h
	}
	// A = [0,3000), B = [1000,4000): J = 2000/4000.
	a, b := bottomK(mk(0, 3000), 256), bottomK(mk(1000, 4000), 256)
	if len(a) != 256 {
		t.Fatalf("sketch size %d, want 256", len(a))
	}
	if j := jaccard(a, b, 256); math.Abs(j-0.5) > 0.1 {
		t.Errorf("estimated J = %.3f, want 0.5±0.1", j)
	}
	a, b = bottomK(mk(0, 30), 256), bottomK(mk(10, 40), 256)
	if j := jaccard(a, b, 256); math.Abs(j-0.5) > 1e-12 {
		t.Errorf("exact J = %.3f, want 0.5", j)
	}
}

// A large block's signature costs a bounded comparison.
func TestSignatureBounded(t *testing.T) {
	r := testTree(t, simList(20000, "item"), nil)
	s := NewSignature(r, firstBlock(t, r, "ul"), SimOptions{})
	if len(s.tag) > DefaultSketchSize || len(s.vis) > DefaultSketchSize || len(s.text) > DefaultSketchSize {
		t.Errorf("signature not bounded: %v", s)
	}
}
