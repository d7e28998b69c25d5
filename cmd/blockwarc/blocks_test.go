package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/partition"

	"github.com/klauspost/compress/gzip"
	"golang.org/x/net/html"
)

// A real page (mkdocs-org, BSD-2-Clause; see partition/testdata/pairs/SOURCE.md).
var blocksPage = filepath.Join("..", "..", "partition", "testdata", "pairs", "deploying-warning.new.html")

func runBlocksCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestBlocksTree(t *testing.T) {
	doc, err := os.ReadFile(blocksPage)
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runBlocksCmd(t, "blocks", blocksPage)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The page's h1 leads its introduction (its one paragraph, before
	// an <hr>): one kept block, titled, with their exact size.
	lead := regexp.MustCompile(`(?s)<h1 id="deploying-your-docs">.*?</p>\s*<hr`).Find(doc)
	if lead == nil {
		t.Fatal("test page lost its h1 and introduction")
	}
	lead = bytes.TrimRight(bytes.TrimSuffix(lead, []byte("<hr")), " \t\r\n")
	want := regexp.MustCompile(`(?m)^ +[0-9.]+\* <#run> title ` + strconv.Itoa(len(lead)) + `B \[deploying docs\]$`)
	if !want.MatchString(out) {
		t.Errorf("tree lacks the h1 block line %q:\n%s", want, out)
	}
	// Indentation follows the path: depth = number of path components.
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for _, l := range lines {
		path := strings.TrimSuffix(strings.Fields(l)[0], "*")
		indent := len(l) - len(strings.TrimLeft(l, " "))
		if indent != 2*strings.Count(path, ".") {
			t.Errorf("line %q: indent %d for path %s", l, indent, path)
		}
	}
	for _, s := range []string{"<footer.col-md-12> footer", "<div.container> navigation"} {
		if !strings.Contains(out, s) {
			t.Errorf("tree lacks %q", s)
		}
	}

	// -json lists the same blocks, parses, and its kept blocks tile the
	// page without overlap.
	code, js, stderr := runBlocksCmd(t, "blocks", "-json", blocksPage)
	if code != exitOK {
		t.Fatalf("-json exit %d: %s", code, stderr)
	}
	var page struct {
		Bytes  int `json:"bytes"`
		Kept   int `json:"kept"`
		Blocks []struct {
			Path  string   `json:"path"`
			Depth int      `json:"depth"`
			Kept  bool     `json:"kept"`
			Tag   string   `json:"tag"`
			Start int      `json:"start"`
			End   int      `json:"end"`
			Bytes int      `json:"bytes"`
			Label string   `json:"label"`
			Topic []string `json:"topic"`
			Text  string   `json:"text"`
		} `json:"blocks"`
	}
	if err := json.Unmarshal([]byte(js), &page); err != nil {
		t.Fatalf("-json output does not parse: %v", err)
	}
	if page.Bytes != len(doc) || len(page.Blocks) != len(lines) {
		t.Errorf("-json: bytes %d (file %d), %d blocks (tree %d lines)", page.Bytes, len(doc), len(page.Blocks), len(lines))
	}
	kept, last := 0, 0
	for _, b := range page.Blocks {
		if b.Bytes != b.End-b.Start || b.Start < 0 || b.End > len(doc) || b.Depth != strings.Count(b.Path, ".")+1 {
			t.Errorf("-json block %+v inconsistent", b)
		}
		if b.Kept {
			kept++
			if b.Start < last {
				t.Errorf("kept block %s starts at %d, before the previous kept block's end %d", b.Path, b.Start, last)
			}
			last = b.End
		}
		if b.Tag == "h1" && !strings.Contains(b.Text, "Deploying your docs") {
			t.Errorf("h1 text %q", b.Text)
		}
	}
	if kept != page.Kept || kept != strings.Count(out, "* <") {
		t.Errorf("kept: %d in blocks, %d in field, %d in tree", kept, page.Kept, strings.Count(out, "* <"))
	}
}

// -main prints the article, not the navigation; on a gzip-compressed page
// of the article-extraction benchmark it finds the ground truth's
// paragraphs.
func TestBlocksMain(t *testing.T) {
	code, out, stderr := runBlocksCmd(t, "blocks", "-main", blocksPage)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{"If there are untracked files or uncommitted work", "Project Pages sites are simpler"} {
		if !strings.Contains(out, s) {
			t.Errorf("-main lacks %q", s)
		}
	}
	if strings.Contains(out, "From here you can search these documents") {
		t.Errorf("-main holds the search dialog's text")
	}

	dir := sharedtest.Dir(t, "testdata", "article-extraction")
	const id = "05844573ca7e1fba714d715bb11ca08c26e25328999c74a1cb3bc8a0e4399f0f"
	raw, err := os.ReadFile(filepath.Join(dir, "ground-truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var gt map[string]struct {
		ArticleBody string `json:"articleBody"`
	}
	if err := json.Unmarshal(raw, &gt); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = runBlocksCmd(t, "blocks", "-main", filepath.Join(dir, "html", id+".html.gz"))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var paras, found int
	for _, p := range strings.Split(gt[id].ArticleBody, "\n") {
		if p = strings.TrimSpace(p); len(p) < 40 {
			continue
		}
		paras++
		if strings.Contains(out, p) {
			found++
		}
	}
	if paras < 5 || found < paras*9/10 {
		t.Errorf("-main holds %d of the article's %d paragraphs", found, paras)
	}
}

const bwAttrs = ` data-bw-block="[^"]*" data-bw-path="[^"]*" data-bw-label="[^"]*" data-bw-caption="[^"]*"`

var bwInserted = regexp.MustCompile(`(?s)<style>/\* inserted by blockwarc blocks -html \*/.*?</style>|` +
	`<span` + bwAttrs + `>|` + bwAttrs + `|</span><!--/bw-->`)

func TestBlocksHTML(t *testing.T) {
	doc, err := os.ReadFile(blocksPage)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "view.html")
	code, js, stderr := runBlocksCmd(t, "blocks", "-json", "-html", out, blocksPage)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var page struct {
		Kept int `json:"kept"`
	}
	if err := json.Unmarshal([]byte(js), &page); err != nil {
		t.Fatal(err)
	}
	view, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm()&0o111 != 0 || fi.Mode().Perm()&0o600 != 0o600 {
		t.Errorf("mode %v, want rw, not executable", fi.Mode())
	}
	// One outlined element per kept block, numbered 1..kept, and the
	// style sheet that draws them, in a document that still parses.
	root, err := html.Parse(bytes.NewReader(view))
	if err != nil {
		t.Fatalf("annotated page does not parse: %v", err)
	}
	seen := map[string]bool{}
	styles := 0
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			for _, a := range n.Attr {
				if a.Key == "data-bw-block" {
					if seen[a.Val] {
						t.Errorf("block %s outlined twice", a.Val)
					}
					seen[a.Val] = true
				}
			}
			if n.Data == "style" && n.FirstChild != nil && strings.Contains(n.FirstChild.Data, "data-bw-block") {
				styles++
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	if len(seen) != page.Kept || page.Kept == 0 {
		t.Errorf("%d outlined blocks, %d kept", len(seen), page.Kept)
	}
	for i := 1; i <= page.Kept; i++ {
		if !seen[strconv.Itoa(i)] {
			t.Errorf("kept block %d not outlined", i)
		}
	}
	if styles != 1 {
		t.Errorf("%d inserted style elements, want 1", styles)
	}
	// Only insertions: removing them gives the page back.
	if back := bwInserted.ReplaceAll(view, nil); !bytes.Equal(back, doc) {
		t.Errorf("annotated page minus insertions differs from the page (%d vs %d bytes)", len(back), len(doc))
	}

	// A directory is never overwritten.
	dir := t.TempDir()
	if code, _, stderr := runBlocksCmd(t, "blocks", "-html", dir, blocksPage); code != exitFailure || !strings.Contains(stderr, "is a directory") {
		t.Errorf("-html DIR: exit %d, %q", code, stderr)
	}
	// Nor the input page.
	in := filepath.Join(dir, "page.html")
	if err := os.WriteFile(in, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runBlocksCmd(t, "blocks", "-html", in, in); code != exitFailure || !strings.Contains(stderr, "is the input page") {
		t.Errorf("-html FILE FILE: exit %d, %q", code, stderr)
	}
	if back, _ := os.ReadFile(in); !bytes.Equal(back, doc) {
		t.Errorf("input page was overwritten")
	}
}

func blocksGzip(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestBlocksInput(t *testing.T) {
	doc, err := os.ReadFile(blocksPage)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// gzip is told by its magic, not by the name.
	gz := filepath.Join(dir, "page.html")
	if err := os.WriteFile(gz, blocksGzip(t, doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, plain, _ := runBlocksCmd(t, "blocks", blocksPage)
	if code, out, stderr := runBlocksCmd(t, "blocks", gz); code != exitOK || out != plain {
		t.Errorf("gzip input: exit %d (%s), same tree %v", code, stderr, out == plain)
	}
	// Standard input.
	f, err := os.Open(gz)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stdin := os.Stdin
	os.Stdin = f
	code, out, stderr := runBlocksCmd(t, "blocks", "-")
	os.Stdin = stdin
	if code != exitOK || out != plain {
		t.Errorf("stdin: exit %d (%s), same tree %v", code, stderr, out == plain)
	}

	// A decompression bomb: 64 MiB of zeros in 64 KiB.
	bomb := filepath.Join(dir, "bomb.gz")
	if err := os.WriteFile(bomb, blocksGzip(t, make([]byte, 64<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runBlocksCmd(t, "blocks", "-max", "1MiB", bomb); code != exitFailure || !strings.Contains(stderr, "decompresses to more than -max 1048576") {
		t.Errorf("bomb: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runBlocksCmd(t, "blocks", "-max", "1000", blocksPage); code != exitFailure || !strings.Contains(stderr, "larger than -max 1000") {
		t.Errorf("large page: exit %d, %q", code, stderr)
	}
	// Corrupt gzip: a clear error, not a partition of garbage.
	bad := filepath.Join(dir, "bad.gz")
	z := blocksGzip(t, doc)
	if err := os.WriteFile(bad, z[:len(z)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runBlocksCmd(t, "blocks", bad); code != exitFailure || !strings.Contains(stderr, "decompress") {
		t.Errorf("truncated gzip: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runBlocksCmd(t, "blocks", filepath.Join(dir, "missing.html")); code != exitFailure || !strings.Contains(stderr, "open page") {
		t.Errorf("missing file: exit %d, %q", code, stderr)
	}
}

func TestBlocksUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"blocks"}, exitUsage, "want one FILE"},
		{[]string{"blocks", "a", "b", "c"}, exitUsage, "want one FILE"},
		{[]string{"blocks", "a", "b"}, exitFailure, "stat a: no such file or directory"},
		{[]string{"blocks", "a"}, exitFailure, "open page: open a: no such file or directory"},
		{[]string{"blocks", os.TempDir()}, exitFailure, "open page " + os.TempDir() + ": is a directory; want an HTML file, or ARCHIVE URL"},
		{[]string{"blocks", "-json", "-main", blocksPage}, exitUsage, "exclude each other"},
		{[]string{"blocks", "-max", "lots", blocksPage}, exitUsage, "bad size"},
		{[]string{"blocks", "-level", "-1", blocksPage}, exitUsage, "-level"},
		{[]string{"blocks", "-nope", blocksPage}, exitUsage, "-nope"},
		{[]string{"blocks", "-help"}, exitOK, `"link_text_ratio"`},
	} {
		code, stdout, stderr := runBlocksCmd(t, tc.args...)
		if tc.code == exitOK { // help is output: on stdout
			stderr = stdout
		}
		if code != tc.code || !strings.Contains(stderr, strings.Trim(tc.msg, `"`)) {
			t.Errorf("%v: exit %d, want %d; stderr %q lacks %q", tc.args, code, tc.code, stderr, tc.msg)
		}
	}
	// -level 1 keeps the top-level blocks only.
	code, out, _ := runBlocksCmd(t, "blocks", "-level", "1", blocksPage)
	if code != exitOK || strings.Contains(out, "  ") || !strings.Contains(out, "*") {
		t.Errorf("-level 1: exit %d, tree:\n%s", code, out)
	}
}

// FuzzAnnotatedHTML: whatever the page, the annotated copy carries one
// data-bw-block attribute per kept block, each inside a start tag the
// HTML tokenizer sees, so every kept block is drawn.
func FuzzAnnotatedHTML(f *testing.F) {
	if doc, err := os.ReadFile(blocksPage); err == nil {
		f.Add(doc)
	}
	f.Add([]byte("<table><tr><td>a<td>b</table><p>x<br>y<br>z"))
	f.Add([]byte("<head><title>t</title></head><body id=\"a>b\"><ul><li>1<li>2</ul>"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		res, err := partition.Partition(doc, partition.Options{})
		if err != nil {
			t.Skip()
		}
		out := annotatedHTML(res)
		z := html.NewTokenizer(bytes.NewReader(out))
		seen := 0
		for {
			tt := z.Next()
			if tt == html.ErrorToken {
				break
			}
			if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
				continue
			}
			for {
				k, _, more := z.TagAttr()
				if string(k) == "data-bw-block" {
					seen++
				}
				if !more {
					break
				}
			}
		}
		if seen != len(res.Leaves) {
			t.Fatalf("%d data-bw-block attributes for %d kept blocks", seen, len(res.Leaves))
		}
	})
}
