package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The evaluation's count: a snippet is found as a substring with white
// space runs made one space (Unicode white space, the no-break space
// included), each "with" found a true positive, each "without" found a
// false positive.
func TestSnippetConfusion(t *testing.T) {
	d := snippetDoc{
		with:    []string{"Die GEMA dreht  völlig", "am Zeiger!", "nicht da"},
		without: []string{"Impressum", "31. Mai"},
	}
	var c confusion
	c.add(d, "Die GEMA\ndreht\u00a0völlig am Zeiger! Impressum")
	if c != (confusion{tp: 2, fn: 1, fp: 1, tn: 1}) {
		t.Fatalf("confusion %+v", c)
	}
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"precision", c.precision(), 2.0 / 3},
		{"recall", c.recall(), 2.0 / 3},
		{"accuracy", c.accuracy(), 3.0 / 5},
		{"F1", c.f1(), 4.0 / 6},
	} {
		if math.Abs(tc.got-tc.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if z := (confusion{}); z.precision() != 0 || z.f1() != 0 {
		t.Errorf("empty confusion: %v %v", z.precision(), z.f1())
	}
}

// Pages are looked up in cache/ then eval/ by base name only (a name
// with a path cannot reach outside DIR), in URL order; a missing page
// is an error naming its URL.
func TestLoadSnippetDocs(t *testing.T) {
	dir := t.TempDir()
	for _, sub := range []string{"cache", "eval"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cache/a.html", "<p>cached</p>")
	write("cache/b.html", "<p>cached b</p>")
	write("eval/b.html", "<p>eval b</p>")
	write("eval/c.html", "<p>eval c</p>")
	write("evaldata.json", `{
		"https://z.example/": {"file": "../../a.html", "with": ["x"], "without": ["y"]},
		"https://b.example/": {"file": "b.html", "with": ["x"], "without": ["y"]},
		"https://c.example/": {"file": "c.html", "with": ["x"], "without": ["y"]}
	}`)
	docs, err := loadSnippetDocs(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, d.url+"="+string(d.html))
	}
	want := []string{"https://b.example/=<p>cached b</p>", "https://c.example/=<p>eval c</p>", "https://z.example/=<p>cached</p>"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("docs %q, want %q", got, want)
	}

	write("evaldata.json", `{"https://m.example/": {"file": "missing.html", "with": ["x"], "without": ["y"]}}`)
	if _, err := loadSnippetDocs(dir); err == nil || !strings.Contains(err.Error(), "https://m.example/") {
		t.Errorf("missing page: %v", err)
	}
}

// The table names every extractor on each half and the whole, and the
// tune pages' lines only with -tune-pages.
func TestCompareSnippetsOutput(t *testing.T) {
	docs := []snippetDoc{
		{url: "https://a.example/1", file: "1.html", with: []string{"The harbour was busy"}, without: []string{"Imprint"},
			html: []byte(`<html><body><nav><a href="/">Home</a></nav><article><h1>Harbour</h1><p>The harbour was busy all summer, and the ferries ran late into the night, while the fishermen sold their catch on the quay.</p><p>In autumn the boats were hauled out, and the town grew quiet again until the spring came back to the coast.</p></article><footer>Imprint</footer></body></html>`)},
	}
	var out bytes.Buffer
	if err := compareSnippets(docs, &out, false); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, ex := range extractors {
		if strings.Count(s, ex) < 3 {
			t.Errorf("%q not on every half in\n%s", ex, s)
		}
	}
	if !strings.Contains(s, "first on all (snippets): ") || strings.Contains(s, "1.html") {
		t.Errorf("output:\n%s", s)
	}
}
