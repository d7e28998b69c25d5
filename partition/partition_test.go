package partition

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// testPage reads a page of testdata/pages (gunzipping .gz files).
func testPage(t testing.TB, name string) []byte {
	t.Helper()
	path := filepath.Join("testdata", "pages", name)
	if strings.HasSuffix(name, ".gz") {
		return ptReadGz(t, path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func testPageNames(t testing.TB) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join("testdata", "pages", "*.htm*"))
	if err != nil || len(m) == 0 {
		t.Fatalf("no test pages: %v", err)
	}
	for i := range m {
		m[i] = filepath.Base(m[i])
	}
	return m
}

func mustPartition(t testing.TB, doc []byte, opts Options) *Result {
	t.Helper()
	res, err := Partition(doc, opts)
	if err != nil {
		t.Fatal(err)
	}
	ptCheckInvariants(t, doc, res)
	return res
}

// treeSig renders the block tree as paths and spans, to compare runs.
func treeSig(res *Result) string {
	var b strings.Builder
	var walk func(bs []*Block)
	walk = func(bs []*Block) {
		for _, x := range bs {
			fmt.Fprintf(&b, "%s %d %d-%d %s|", x.Path, x.Level, x.Start, x.End, x.Tag)
			walk(x.Children)
		}
	}
	walk(res.Blocks)
	return b.String()
}

func findBlock(res *Result, pred func(*Block) bool) *Block {
	var found *Block
	var walk func(bs []*Block)
	walk = func(bs []*Block) {
		for _, x := range bs {
			if found == nil && pred(x) {
				found = x
			}
			walk(x.Children)
		}
	}
	walk(res.Blocks)
	return found
}

func TestPagesInvariantsAndDeterminism(t *testing.T) {
	for _, name := range testPageNames(t) {
		t.Run(name, func(t *testing.T) {
			doc := testPage(t, name)
			prev := 0
			for lv := 1; lv <= 5; lv++ {
				a := mustPartition(t, doc, Options{Level: lv})
				b := mustPartition(t, doc, Options{Level: lv})
				if treeSig(a) != treeSig(b) || !bytes.Equal(a.Layout.Encode(), b.Layout.Encode()) {
					t.Fatalf("level %d: two runs differ", lv)
				}
				if textLeaves(a) < prev {
					t.Fatalf("level %d has %d leaves with text, fewer than level %d (%d)", lv, textLeaves(a), lv-1, prev)
				}
				prev = textLeaves(a)
				if len(a.Leaves) < 2 || len(a.Leaves) > 400 {
					t.Fatalf("level %d: %d leaves, want a sane number (2..400)", lv, len(a.Leaves))
				}
				for _, l := range a.Leaves {
					if l.Level > lv {
						t.Fatalf("leaf %s found at level %d > requested %d", l.Path, l.Level, lv)
					}
					if strings.Count(l.Path, ".")+1 != l.Level {
						t.Fatalf("leaf %s: path depth does not match level %d", l.Path, l.Level)
					}
				}
			}
		})
	}
}

// TestLevels checks the block tree level by level on a page whose regions
// are known: level 1 is header / main / footer, level 2 divides main into
// its two articles, level 3 divides each article into its paragraphs;
// blocks that cannot be divided stay as they are.
func TestLevels(t *testing.T) {
	para := func(s string) string { return "<p>" + s + " " + longText + "</p>\n" }
	doc := []byte(`<!DOCTYPE html><html><head><title>Levels</title></head><body>
<div class="page"><header><a href="/">Home</a> <a href="/x">X</a></header>
<main><article id=a1>` + para("a1p1") + para("a1p2") + para("a1p3") + `</article>
<article id=a2>` + para("a2p1") + para("a2p2") + `</article></main>
<footer>Copyright 2024 Example</footer></div></body></html>`)
	// The <head> is a level-1 block of its own, never divided.
	want := map[int][]string{
		1: {"1 head", "2 header", "3 main", "4 footer"},
		2: {"1 head", "2 header", "3.1 article", "3.2 article", "4 footer"},
		3: {"1 head", "2 header", "3.1.1 p", "3.1.2 p", "3.1.3 p", "3.2.1 p", "3.2.2 p", "4 footer"},
		4: {"1 head", "2 header", "3.1.1 p", "3.1.2 p", "3.1.3 p", "3.2.1 p", "3.2.2 p", "4 footer"},
	}
	for lv := 1; lv <= 4; lv++ {
		res := mustPartition(t, doc, Options{Level: lv})
		var got []string
		for _, l := range res.Leaves {
			got = append(got, l.Path+" "+l.Tag)
		}
		if strings.Join(got, ",") != strings.Join(want[lv], ",") {
			t.Errorf("level %d leaves = %v, want %v", lv, got, want[lv])
		}
	}
	res := mustPartition(t, doc, Options{Level: 3})
	if res.Blocks[1].Level != 1 || len(res.Blocks[1].Children) != 0 {
		t.Errorf("header should stay an undivided level-1 block")
	}
	if p := res.Leaves[2]; p.Level != 3 || p.Parent == nil || p.Parent.ID != "a1" || p.Parent.Parent != res.Blocks[2] {
		t.Errorf("3.1.1 should be a level-3 block under article a1 under main")
	}
	if h := res.Blocks[0]; h.Tag != "head" || string(res.BlockBytes(h)) != "<head><title>Levels</title></head>" {
		t.Errorf("first block should be the head")
	}
}

func TestRealPageRegions(t *testing.T) {
	doc := testPage(t, "mkdocs-index-2014.html")
	res := mustPartition(t, doc, Options{Level: 1})
	// Level 1: the head, the navbar (role=navigation names it), the page
	// container.
	if len(res.Blocks) != 3 || res.Blocks[0].Tag != "head" ||
		!bytes.Contains(res.BlockBytes(res.Blocks[1]), []byte(`class="navbar-header"`)) || res.Blocks[2].Class != "container" {
		t.Fatalf("mkdocs 2014 level 1 should be navbar and container, got %s", treeSig(res))
	}
	res = mustPartition(t, doc, Options{Level: 2})
	main := findBlock(res, func(b *Block) bool { return strings.Contains(b.Class, "content") })
	if main == nil || main.Path != "3.2" || main.Node.Attr("role") != "main" {
		t.Fatalf("the main column should be block 3.2 at level 2")
	}
	if !bytes.Contains(res.BlockBytes(main), []byte("Project documentation with Markdown.")) {
		t.Fatal("main column block lacks its text")
	}
}

func TestEmptyAndTrivialInputs(t *testing.T) {
	for _, in := range []string{"", " ", "\x00", "\t\x01", "<!---->", "<html></html>", "<script>x</script>", "<!DOCTYPE html>"} {
		res := mustPartition(t, []byte(in), Options{})
		if len(res.Leaves) != 0 {
			t.Errorf("%q: %d leaves, want none (nothing visible)", in, len(res.Leaves))
		}
		if len(res.Layout.Gaps) != 1 || string(res.Layout.Gaps[0]) != in {
			t.Errorf("%q: layout should be the whole input", in)
		}
	}
	for _, in := range []string{"just text", "<", "<p>x"} {
		res := mustPartition(t, []byte(in), Options{})
		if len(res.Leaves) != 1 || string(res.BlockBytes(res.Leaves[0])) != in {
			t.Errorf("%q should be one block", in)
		}
	}
}

func TestOptionsDefaults(t *testing.T) {
	doc := testPage(t, "mektoube-privacy-2026.html")
	def := mustPartition(t, doc, Options{})
	adaptive := mustPartition(t, doc, Options{Level: LevelAdaptive})
	if treeSig(def) != treeSig(adaptive) {
		t.Fatal("Level 0 should mean adaptive")
	}
	if other := mustPartition(t, doc, Options{Level: -7}); treeSig(other) != treeSig(adaptive) {
		t.Fatal("any negative level should mean adaptive")
	}
	three := mustPartition(t, doc, Options{Level: 3})
	huge := mustPartition(t, doc, Options{Level: 1 << 30})
	if len(huge.Leaves) < len(three.Leaves) {
		t.Fatal("a huge level must not lose leaves")
	}
}

// TestSharedCorpus runs every distinct HTML payload of the shared corpus
// and the article-extraction pages through the invariants.
func TestSharedCorpus(t *testing.T) {
	seen := map[[20]byte]bool{}
	files := sharedtest.CorpusFiles(t)
	pages, checked, oneTexts := 0, 0, 0
	for _, f := range files {
		for _, r := range ptReadWARCHTML(t, f) {
			h := sha1.Sum(r.Payload)
			if seen[h] {
				continue
			}
			seen[h] = true
			res := mustPartition(t, r.Payload, Options{})
			if len(res.Leaves) == 0 {
				t.Errorf("%s: %s has no blocks", filepath.Base(f), r.URI)
			}
			if regions, share, leaf := dominantLeaf(res); regions >= 3 {
				checked++
				if share > dominantShare && leaf.oneText {
					oneTexts++
				} else if share > dominantShare {
					t.Errorf("%s: %s has %d sectioning regions and a kept block (%s <%s>) holding %.0f%% of its visible text", filepath.Base(f), r.URI, regions, leaf.Path, leaf.Tag, 100*share)
				}
			}
			pages++
		}
	}
	arts, _ := filepath.Glob(filepath.Join(sharedtest.Dir(t, "testdata", "article-extraction", "html"), "*.html.gz"))
	for _, f := range arts {
		doc := ptReadGz(t, f)
		res := mustPartition(t, doc, Options{})
		if len(res.Leaves) < 2 {
			t.Errorf("%s: %d leaves", filepath.Base(f), len(res.Leaves))
		}
		pages++
	}
	t.Logf("%d distinct pages; %d corpus pages with 3 or more sectioning regions, none with a kept block over %.0f%% of the text but %d kept whole as one text", pages, checked, 100*dominantShare, oneTexts)
	if checked == 0 {
		t.Error("no corpus page has 3 sectioning regions: the dominant-block check checked nothing")
	}
}

// dominantLeaf returns the number of sectioning regions of the page
// (visible landmark elements: isLandmark) and the largest share of the
// page's visible text that one kept block holds.
func dominantLeaf(res *Result) (regions int, share float64, leaf *Block) {
	for _, n := range res.nodes {
		if n.Kind == ElementNode && res.facts[n.id].valid && !res.hiddenOf(n) && isLandmark(n) {
			regions++
		}
	}
	// Visible text as the rules count it: non-space characters.
	var text func(n *Node) int
	text = func(n *Node) int {
		if n.Kind != FragmentNode {
			return int(res.facts[n.id].text)
		}
		k := 0
		for _, c := range n.Children {
			k += text(c)
		}
		return k
	}
	total, most := int(res.facts[res.Root.id].text), 0
	for _, l := range res.Leaves {
		if t := text(l.Node); t > most {
			most, leaf = t, l
		}
	}
	if total == 0 {
		return regions, 0, nil
	}
	return regions, float64(most) / float64(total), leaf
}

// TestWideFlatPage: a flat page of 10 000 headings and paragraphs (and
// one of 50 000 <br>-separated lines) partitions without quadratic work
// (a quadratic section or run search would take minutes here).
func TestWideFlatPage(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "<h2>Heading %d</h2><p>%s</p>\n", i, longText)
	}
	doc := []byte(b.String())
	res := mustPartition(t, doc, Options{Level: 2})
	if len(res.Blocks) != 5000 || len(res.Leaves) != 5000 {
		t.Fatalf("want 5000 sections kept whole, got %d level-1 blocks and %d leaves", len(res.Blocks), len(res.Leaves))
	}
	lines := []byte(strings.Repeat(longText+"<br><br>\n", 50000))
	res = mustPartition(t, lines, Options{Level: 1})
	if len(res.Leaves) != 50000 {
		t.Fatalf("want 50000 line blocks, got %d", len(res.Leaves))
	}
}

// Helpers shared by the partition tests.

// ptHTMLRecord is one text/html 200 response payload of a WARC file.
type ptHTMLRecord struct {
	URI     string
	Payload []byte
}

// ptReadWARCHTML returns the text/html 200 response payloads of a
// (multi-member) .warc.gz file. It is a minimal reader for test data that
// wget wrote: no chunked encoding, no ARC.
func ptReadWARCHTML(t testing.TB, path string) []ptHTMLRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	br := bufio.NewReader(zr)
	var out []ptHTMLRecord
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if !strings.HasPrefix(line, "WARC/") {
			t.Fatalf("read %s: expected WARC version line, got %q", path, line)
		}
		hdr := map[string]string{}
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("read %s header: %v", path, err)
			}
			l = strings.TrimRight(l, "\r\n")
			if l == "" {
				break
			}
			if k, v, ok := strings.Cut(l, ":"); ok {
				hdr[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
			}
		}
		n, err := strconv.Atoi(hdr["content-length"])
		if err != nil {
			t.Fatalf("read %s: bad Content-Length %q", path, hdr["content-length"])
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			t.Fatalf("read %s body: %v", path, err)
		}
		if hdr["warc-type"] != "response" {
			continue
		}
		head, payload, ok := bytes.Cut(body, []byte("\r\n\r\n"))
		if !ok {
			continue
		}
		h := strings.ToLower(string(head))
		if !strings.HasPrefix(h, "http/1.") || !strings.Contains(strings.SplitN(h, "\r\n", 2)[0], " 200") ||
			!strings.Contains(h, "content-type: text/html") {
			continue
		}
		out = append(out, ptHTMLRecord{URI: hdr["warc-target-uri"], Payload: payload})
	}
}

// ptReadGz returns the decompressed contents of a .gz file.
func ptReadGz(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return b
}

// ptLeafBytes returns the bytes of every leaf of res.
func ptLeafBytes(res *Result) [][]byte {
	out := make([][]byte, len(res.Leaves))
	for i, b := range res.Leaves {
		out[i] = res.BlockBytes(b)
	}
	return out
}

// ptCheckInvariants asserts what must hold for any input: the tree's spans
// nest inside the input, leaves are disjoint and ordered, block children
// lie inside their parent, and the layout reassembles the input exactly.
func ptCheckInvariants(t testing.TB, doc []byte, res *Result) {
	t.Helper()
	if res.Root == nil || res.Root.Start != 0 || res.Root.End != len(doc) {
		t.Fatalf("root span wrong")
	}
	stack := []*Node{res.Root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		prev := n.Start
		for _, c := range n.Children {
			if c.Start < prev || c.End < c.Start || c.End > n.End || c.Parent != n {
				t.Fatalf("node %q [%d,%d) child %q [%d,%d) breaks nesting", n.Tag, n.Start, n.End, c.Tag, c.Start, c.End)
			}
			prev = c.End
			stack = append(stack, c)
		}
	}
	var walk func(bs []*Block, lo, hi int)
	walk = func(bs []*Block, lo, hi int) {
		at := lo
		for _, b := range bs {
			if b.Start < at || b.End > hi || b.Start >= b.End {
				t.Fatalf("block %s [%d,%d) outside [%d,%d) or overlapping", b.Path, b.Start, b.End, at, hi)
			}
			at = b.End
			walk(b.Children, b.Start, b.End)
		}
	}
	walk(res.Blocks, 0, len(doc))
	at := 0
	for _, b := range res.Leaves {
		if b.Start < at {
			t.Fatalf("leaf %s starts at %d before previous end %d", b.Path, b.Start, at)
		}
		at = b.End
	}
	got, err := Reassemble(res.Layout, ptLeafBytes(res))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, doc) {
		t.Fatalf("reassembly differs from input (%d vs %d bytes)", len(got), len(doc))
	}
}

// TestBlockInInline: a policy whose sections sit in sibling inline
// wrappers (<span class=PageSection>, as a real single-page-app template
// writes) divides like one whose sections are <div>s, since the browser
// breaks each inline box around its block children (CSS 2.1
// block-in-inline); before, the sibling spans ran together as one inline
// run, one block holding the whole policy.
func TestBlockInInline(t *testing.T) {
	sec := func(wrap, h, text string) string {
		p := "<p>" + strings.Repeat(text+" ", 12) + "</p>"
		return "<" + wrap + " class=PageSection><h2>" + h + "</h2>" + p + p + "</" + wrap + ">"
	}
	leaves := func(wrap string) []string {
		doc := "<html><body><main>" + sec(wrap, "What we collect", "We collect the data you give us.") +
			sec(wrap, "How we use it", "We use it to run the service.") +
			sec(wrap, "Your rights", "You may ask for a copy at any time.") + "</main></body></html>"
		res, err := Partition([]byte(doc), Options{Level: 3})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, b := range res.Leaves {
			if b.Tag != "head" {
				out = append(out, firstWords(b.Text))
			}
		}
		return out
	}
	div, span := leaves("div"), leaves("span")
	if len(span) < 3 || len(span) != len(div) {
		t.Errorf("leaves in <span> sections %q, in <div> sections %q", span, div)
	}
}

func firstWords(s string) string {
	if f := strings.Fields(s); len(f) > 2 {
		return strings.Join(f[:2], " ")
	}
	return s
}
