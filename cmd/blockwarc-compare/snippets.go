package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode"
)

// A second, larger set of pages no rule here was written from: the
// evaluation of trafilatura (github.com/adbar/trafilatura, tests/), about
// a thousand pages of news, blogs, shops and institutions, German for the
// most part, each with a few snippets its main text must hold ("with")
// and a few it must not ("without": menus, footers, dates, the title).
// The pages are not in ../shared; -snippets names trafilatura's tests
// directory (evaldata.json, cache/ and eval/ in it).
//
// The score is the evaluation's own: a snippet counts as found when it
// is a substring of the extraction, both with runs of white space made
// one space; a "with" snippet found is a true positive, one missing a
// false negative, a "without" snippet found a false positive, one
// missing a true negative. go-trafilatura's figures are flattered:
// trafilatura was tuned on these pages.

// snippetDoc is one page of the evaluation and its snippets.
type snippetDoc struct {
	url, file     string
	with, without []string
	html          []byte
}

// loadSnippetDocs reads evaldata.json under dir and each page it names,
// looked up in cache/ then eval/ as the evaluation does, in URL order.
func loadSnippetDocs(dir string) ([]snippetDoc, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "evaldata.json"))
	if err != nil {
		return nil, fmt.Errorf("read snippets: %w", err)
	}
	var data map[string]struct {
		File    string   `json:"file"`
		With    []string `json:"with"`
		Without []string `json:"without"`
	}
	if err := json.Unmarshal(raw, &data); err != nil {
		return nil, fmt.Errorf("decode %s: %w", filepath.Join(dir, "evaldata.json"), err)
	}
	var docs []snippetDoc
	for u, d := range data {
		var html []byte
		for _, sub := range []string{"cache", "eval"} {
			// Base keeps a file name from naming anything outside dir.
			if html, err = os.ReadFile(filepath.Join(dir, sub, filepath.Base(d.File))); err == nil {
				break
			}
		}
		if err != nil {
			return nil, fmt.Errorf("page of %s: %w", u, err)
		}
		docs = append(docs, snippetDoc{url: u, file: d.File, with: d.With, without: d.Without, html: html})
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("no pages in %s", dir)
	}
	slices.SortFunc(docs, func(a, b snippetDoc) int { return strings.Compare(a.url, b.url) })
	return docs, nil
}

// normSpace makes every run of white space one space and trims the
// ends, as the evaluation's norm (Python's \s on str: Unicode white
// space, the no-break space included).
func normSpace(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// confusion is the evaluation's confusion matrix over snippets.
type confusion struct{ tp, fp, fn, tn int }

func (c *confusion) add(d snippetDoc, text string) {
	t := normSpace(text)
	for _, w := range d.with {
		if strings.Contains(t, normSpace(w)) {
			c.tp++
		} else {
			c.fn++
		}
	}
	for _, w := range d.without {
		if strings.Contains(t, normSpace(w)) {
			c.fp++
		} else {
			c.tn++
		}
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func (c confusion) precision() float64 { return ratio(c.tp, c.tp+c.fp) }
func (c confusion) recall() float64    { return ratio(c.tp, c.tp+c.fn) }
func (c confusion) accuracy() float64  { return ratio(c.tp+c.tn, c.tp+c.fp+c.fn+c.tn) }
func (c confusion) f1() float64        { return ratio(2*c.tp, 2*c.tp+c.fp+c.fn) }

// compareSnippets extracts every page with each extractor and scores
// each half (the split of half, on the page's URL) and the whole.
// With tunePages set it first writes each tune-half page's counts by
// each extractor; the held-out half's pages are never printed.
func compareSnippets(docs []snippetDoc, stdout io.Writer, tunePages bool) error {
	type key struct{ half, ex string }
	conf := map[key]*confusion{}
	halves := []string{halfTune, halfHeldOut, "all"}
	for _, h := range halves {
		for _, ex := range extractors {
			conf[key{h, ex}] = &confusion{} // a half without pages prints zeros
		}
	}
	pages := map[string]int{}
	for _, d := range docs {
		texts, err := extract(page{id: d.file, url: d.url, html: d.html})
		if err != nil {
			return err
		}
		h := half(d.url)
		pages[h]++
		line := d.file
		for _, ex := range extractors {
			conf[key{h, ex}].add(d, texts[ex])
			conf[key{"all", ex}].add(d, texts[ex])
			var c confusion
			c.add(d, texts[ex])
			line += fmt.Sprintf("  %s tp %d fp %d", ex, c.tp, c.fp)
		}
		if tunePages && h == halfTune {
			fmt.Fprintln(stdout, line)
		}
	}
	pages["all"] = len(docs)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "half\tpages\textractor\tP\tR\taccuracy\tF1")
	for _, h := range halves {
		for _, ex := range extractors {
			c := conf[key{h, ex}]
			fmt.Fprintf(tw, "%s\t%d\t%s\t%.4f\t%.4f\t%.4f\t%.4f\n", h, pages[h], ex, c.precision(), c.recall(), c.accuracy(), c.f1())
		}
	}
	tw.Flush()
	for _, h := range halves {
		best := ""
		for _, ex := range extractors {
			if best == "" || conf[key{h, ex}].f1() > conf[key{h, best}].f1() {
				best = ex
			}
		}
		fmt.Fprintf(stdout, "first on %s (snippets): %s (F1 %.4f)\n", h, best, conf[key{h, best}].f1())
	}
	return nil
}
