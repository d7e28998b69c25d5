// Command blockwarc-compare measures blockwarc's main-text extractor
// (partition.MainText) side by side with go-readability
// (codeberg.org/readeck/go-readability/v2, a Go port of Readability.js),
// go-trafilatura (github.com/markusmobius/go-trafilatura, a Go port of
// trafilatura) and the page's whole visible text (partition.VisibleText,
// the floor) on the article-extraction benchmark pages of
// ../shared/testdata/article-extraction, issue 35's comparison. For each
// half of the pages, split as partition's BenchmarkMainContent splits
// them (tune and held-out), it prints precision, recall and F1 of each
// extractor under the benchmark's metric (the README beside the pages).
//
//	blockwarc-compare [-dir DIR] [-tune-pages]
//	blockwarc-compare -snippets DIR [-tune-pages]
//
// -snippets scores the same extractors on trafilatura's evaluation
// instead (snippets.go).
//
// It is a module of its own so that blockwarc's go.mod never requires
// the extractors it is compared with: a comparison, not a dependency of
// the product. Run it
// with make bench-compare.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	readability "codeberg.org/readeck/go-readability/v2"
	trafilatura "github.com/markusmobius/go-trafilatura"

	"github.com/blockwarc/blockwarc/partition"
)

// Exit statuses.
const (
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("blockwarc-compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", filepath.Join("..", "..", "..", "shared", "testdata", "article-extraction"),
		"`DIR` of the benchmark: ground-truth.json and html/ID.html.gz (default: ../shared next to the repository, from this module's directory)")
	snippets := fs.String("snippets", "", "score instead on the pages of trafilatura's evaluation: `DIR` is its tests directory (evaldata.json, cache/, eval/; git clone https://github.com/adbar/trafilatura), each page's snippets found or not in the extraction")
	tunePages := fs.Bool("tune-pages", false, "also print each tune-half page's precision and recall by each extractor (the held-out half's pages are never printed: no rule is to be fitted to them)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "blockwarc-compare: unexpected arguments %q\n", fs.Args())
		return exitUsage
	}
	if *snippets != "" {
		docs, err := loadSnippetDocs(*snippets)
		if err == nil {
			err = compareSnippets(docs, stdout, *tunePages)
		}
		if err != nil {
			fmt.Fprintf(stderr, "blockwarc-compare: %v\n", err)
			return exitFailure
		}
		return 0
	}
	pages, err := loadPages(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "blockwarc-compare: %v\n", err)
		return exitFailure
	}
	var perPage io.Writer
	if *tunePages {
		perPage = stdout
	}
	rows, err := compare(pages, perPage)
	if err != nil {
		fmt.Fprintf(stderr, "blockwarc-compare: %v\n", err)
		return exitFailure
	}
	printRows(stdout, rows)
	return 0
}

// page is one benchmark page: its id, URL, HTML and true article body.
type page struct {
	id, url string
	html    []byte
	truth   string
}

// loadPages reads every page of ground-truth.json, in id order.
func loadPages(dir string) ([]page, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "ground-truth.json"))
	if err != nil {
		return nil, fmt.Errorf("read ground truth: %w", err)
	}
	var truth map[string]struct {
		URL         string `json:"url"`
		ArticleBody string `json:"articleBody"`
	}
	if err := json.Unmarshal(raw, &truth); err != nil {
		return nil, fmt.Errorf("decode ground truth: %w", err)
	}
	var pages []page
	for id, t := range truth {
		b, err := readGzip(filepath.Join(dir, "html", id+".html.gz"))
		if err != nil {
			return nil, fmt.Errorf("read page %s: %w", id, err)
		}
		pages = append(pages, page{id: id, url: t.URL, html: b, truth: t.ArticleBody})
	}
	if len(pages) == 0 {
		return nil, fmt.Errorf("no pages in %s", dir)
	}
	slices.SortFunc(pages, func(a, b page) int { return strings.Compare(a.id, b.id) })
	return pages, nil
}

func readGzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// The extractors compared, in the order printed.
const (
	exBlockwarc   = "blockwarc MainText"
	exLead        = "blockwarc MainTextWithLead"
	exReadability = "go-readability v2"
	exTrafilatura = "go-trafilatura v1"
	exVisible     = "visible text (floor)"
)

var extractors = []string{exBlockwarc, exLead, exReadability, exTrafilatura, exVisible}

// row is one extractor's figures on one half; failed counts the pages
// where it returned no text (readability finding no article).
type row struct {
	half, extractor string
	result
	failed int
}

// compare extracts every page with each extractor and scores the
// extractions per half; with perPage set it writes there each tune-half
// page's precision and recall by each extractor.
func compare(pages []page, perPage io.Writer) ([]row, error) {
	perHalf := map[string]map[string][]counts{}
	failed := map[[2]string]int{}
	for _, pg := range pages {
		texts, err := extract(pg)
		if err != nil {
			return nil, err
		}
		h := half(pg.id)
		if perHalf[h] == nil {
			perHalf[h] = map[string][]counts{}
		}
		line := pg.id[:min(12, len(pg.id))]
		for _, ex := range extractors {
			c := score(pg.truth, texts[ex])
			perHalf[h][ex] = append(perHalf[h][ex], c)
			if strings.TrimSpace(texts[ex]) == "" {
				failed[[2]string{h, ex}]++
			}
			r := aggregate([]counts{c})
			line += fmt.Sprintf("  %s P %.3f R %.3f", ex, r.p, r.r)
		}
		if perPage != nil && h == halfTune {
			fmt.Fprintln(perPage, line)
		}
	}
	var rows []row
	for _, h := range []string{halfTune, halfHeldOut} {
		for _, ex := range extractors {
			rows = append(rows, row{h, ex, aggregate(perHalf[h][ex]), failed[[2]string{h, ex}]})
		}
	}
	return rows, nil
}

// extract returns the page's text by each extractor. go-readability and
// go-trafilatura are given the page's URL from the ground truth, as it would have when
// fetching the page, and its article is rendered as its own text
// rendering (innerText) does; a page where it finds no article (an error
// or no node) gives "", as an extractor returning nothing.
func extract(pg page) (map[string]string, error) {
	res, err := partition.Partition(pg.html, partition.Options{})
	if err != nil {
		return nil, fmt.Errorf("partition %s: %w", pg.id, err)
	}
	texts := map[string]string{
		exVisible:   partition.VisibleText(res),
		exBlockwarc: partition.MainText(res),
		exLead:      partition.MainTextWithLead(res),
	}
	u, err := url.Parse(pg.url)
	if err != nil {
		u = nil
	}
	if art, err := readability.FromReader(bytes.NewReader(pg.html), u); err == nil && art.Node != nil {
		var b strings.Builder
		if err := art.RenderText(&b); err == nil {
			texts[exReadability] = b.String()
		}
	}
	// trafilatura as its command line runs by default: with its
	// fallback extractors (readability, dom-distiller) on, comments kept
	// apart from the main text, which is what is scored.
	if res, err := trafilatura.Extract(bytes.NewReader(pg.html), trafilatura.Options{OriginalURL: u, EnableFallback: true}); err == nil && res != nil {
		texts[exTrafilatura] = res.ContentText
	}
	return texts, nil
}

// printRows writes the table, then which extractor is first on each half
// by F1.
func printRows(w io.Writer, rows []row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "half\tpages\textractor\tP\tR\tF1\tno text")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.4f\t%.4f\t%.4f\t%d\n", r.half, r.pages, r.extractor, r.p, r.r, r.f1, r.failed)
	}
	tw.Flush()
	for _, h := range []string{halfTune, halfHeldOut} {
		var best row
		for _, r := range rows {
			if r.half == h && r.f1 > best.f1 {
				best = r
			}
		}
		fmt.Fprintf(w, "first on %s: %s (F1 %.4f)\n", h, best.extractor, best.f1)
	}
}
