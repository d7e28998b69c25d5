package partition

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"golang.org/x/net/html"
)

// TestTagNameFromRaw checks that treeBuilder.tagName, which reads tag
// names from Raw() to avoid TagName's copy, names every tag token exactly
// as the tokenizer's TagName does, on the test pages and on inputs that
// stress the tag-name delimiters.
func TestTagNameFromRaw(t *testing.T) {
	docs := [][]byte{
		[]byte("<DIV>a</DiV><br/><p\tclass=x>b</p\n><img\fsrc=y><a\rhref=z>c</a ><x\x00y>d</x\x00y>"),
		[]byte("<svg><circle/></svg><math><mi>x</mi></math></ <bogus><!-- c --><!DOCTYPE html>"),
		[]byte("<script>if (a</b) {}</script><style>p{}</STYLE><title>t</title><textarea></div></textarea>"),
		[]byte("<ÄÖ>x</ÄÖ><a-b.c_d>y</a-b.c_d><div/x>z</div/x><p"),
	}
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*.html*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("find test pages: %v (%d files)", err, len(files))
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("read %s: %v", f, err)
			}
			if raw, err = io.ReadAll(zr); err != nil {
				t.Fatalf("read %s: %v", f, err)
			}
		}
		docs = append(docs, raw)
	}
	tags := 0
	for di, doc := range docs {
		// Two tokenizers over the same bytes: one asked through Raw, one
		// through TagName; both see the same token stream.
		z1 := html.NewTokenizer(bytes.NewReader(doc))
		z2 := html.NewTokenizer(bytes.NewReader(doc))
		b := &treeBuilder{}
		for {
			tt := z1.Next()
			z2.Next()
			if tt == html.ErrorToken {
				break
			}
			var skip int
			switch tt {
			case html.StartTagToken, html.SelfClosingTagToken:
				skip = 1
			case html.EndTagToken:
				skip = 2
			default:
				continue
			}
			got, _ := b.tagName(z1, skip)
			name, _ := z2.TagName()
			if want := string(name); got != want {
				t.Fatalf("doc %d: tag %q: tagName = %q, TagName = %q", di, z1.Raw(), got, want)
			}
			tags++
		}
	}
	if tags < 1000 {
		t.Fatalf("only %d tags compared", tags)
	}
}

// FuzzTagName compares tagName with the tokenizer's TagName on any bytes.
func FuzzTagName(f *testing.F) {
	f.Add([]byte("<DIV>a</DiV><br/><p\tclass=x>b</p\n><x\x00y>d</x\x00y>"))
	f.Add([]byte("<script>if (a</b) {}</script></ <bogus><ÄÖ>x</ÄÖ><p"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		z1 := html.NewTokenizer(bytes.NewReader(doc))
		z2 := html.NewTokenizer(bytes.NewReader(doc))
		b := &treeBuilder{}
		for {
			tt := z1.Next()
			z2.Next()
			if tt == html.ErrorToken {
				return
			}
			skip := 0
			switch tt {
			case html.StartTagToken, html.SelfClosingTagToken:
				skip = 1
			case html.EndTagToken:
				skip = 2
			default:
				continue
			}
			got, _ := b.tagName(z1, skip)
			if name, _ := z2.TagName(); got != string(name) {
				t.Fatalf("tag %q: tagName = %q, TagName = %q", z1.Raw(), got, name)
			}
		}
	})
}

// checkRawAttrs compares, for every start tag of doc, the attributes that
// rawAttrs finds with those TagAttr returns, and counts the tags rawAttrs
// handled itself (the rest go through TagAttr).
func checkRawAttrs(t *testing.T, doc []byte) (fast, tags int) {
	t.Helper()
	z1 := html.NewTokenizer(bytes.NewReader(doc))
	z2 := html.NewTokenizer(bytes.NewReader(doc))
	for {
		tt := z1.Next()
		z2.Next()
		if tt == html.ErrorToken {
			return fast, tags
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tags++
		b := &treeBuilder{}
		if !b.rawAttrs(z1.Raw(), 1) {
			continue
		}
		fast++
		got := b.attrs()
		b.finishAttrs()
		var want []Attr
		for k, v, more := z2.TagAttr(); k != nil; k, v, more = z2.TagAttr() {
			want = append(want, Attr{Key: string(k), Val: string(v)})
			if !more {
				break
			}
		}
		if len(got) != len(want) {
			t.Fatalf("tag %q: rawAttrs found %q, TagAttr %q", z1.Raw(), got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("tag %q: rawAttrs found %q, TagAttr %q", z1.Raw(), got, want)
			}
		}
	}
}

var attrSeeds = []string{
	`<a HREF="x" href=y title='t' data-x=1 checked disabled=>z</a>`,
	`<div class = "a b"	id=c/><input value=a/b type=text/><p =x ==y a==b>`,
	`<img src=x alt="a&amp;b"><td nowrap width=50% >x</td><x a="1"b='2'c=3>`,
	"<p a=\"x\ry\" b\x00=1 c=\x00>",
	`<br/><hr / ><meta charset=utf-8 /><a href=/ >x</a><p a='>'>`,
}

// TestRawAttrs checks rawAttrs against TagAttr on the test pages and on
// tags that stress attribute syntax, and that it handles most real tags.
func TestRawAttrs(t *testing.T) {
	docs := [][]byte{}
	for _, s := range attrSeeds {
		docs = append(docs, []byte(s))
	}
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*.html*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("find test pages: %v (%d files)", err, len(files))
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("read %s: %v", f, err)
			}
			if raw, err = io.ReadAll(zr); err != nil {
				t.Fatalf("read %s: %v", f, err)
			}
		}
		docs = append(docs, raw)
	}
	fast, tags := 0, 0
	for _, d := range docs {
		f, n := checkRawAttrs(t, d)
		fast, tags = fast+f, tags+n
	}
	if tags < 1000 || fast < tags*3/4 {
		t.Fatalf("rawAttrs handled %d of %d start tags; want most", fast, tags)
	}
}

// FuzzRawAttrs compares rawAttrs with TagAttr on any bytes.
func FuzzRawAttrs(f *testing.F) {
	for _, s := range attrSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) { checkRawAttrs(t, doc) })
}
