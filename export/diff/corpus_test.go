package diff

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/partition"
)

// pairStats is what comparing every changed consecutive pair of captures
// of a site found.
type pairStats struct {
	pairs      int // consecutive HTML captures whose payloads differ
	markupOnly int // of them, with no visible change
	// independentSame counts the pairs whose visible words, read by an
	// independent extractor (html.Parse, a DOM walk), are the same;
	// wrong counts those among them that Compare called a visible change.
	independentSame, wrong int
	examples               []string
}

// comparePairs ingests a corpus site, then compares every consecutive
// pair of HTML captures of each URL as the diff command does.
func comparePairs(t testing.TB, site string) pairStats {
	t.Helper()
	files := sharedtest.CorpusFiles(t, site)
	dir := filepath.Join(t.TempDir(), site+".bwa")
	if _, err := dedupe.Ingest(context.Background(), dir, files, dedupe.Options{}); err != nil {
		t.Fatal(err)
	}
	a, err := dedupe.Open(dir, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var st pairStats
	pps := [2]*partition.Partitioner{partition.NewPartitioner(), partition.NewPartitioner()}
	err = a.Walk(func(uv dedupe.URLVersions) error {
		var prev *partition.Result
		var prevDoc []byte
		var prevPage *dedupe.Page
		n := 0
		for i := range uv.Versions {
			v := &uv.Versions[i]
			if v.Type != "response" {
				continue
			}
			pg, err := a.ReadPage(v)
			if err != nil {
				return err
			}
			if !pg.IsHTML() || len(pg.Doc) == 0 {
				continue
			}
			res, _, err := pg.Partition(pps[n%2], v.Level, prev) // the stored partition, as diff shows it
			if err != nil {
				return err
			}
			n++
			if prev != nil && !bytes.Equal(prevDoc, pg.Doc) {
				st.pairs++
				_, sum := Compare(prev, res)
				if !sum.VisibleChange {
					st.markupOnly++
				}
				if slices.Equal(domWords(prevPage), domWords(pg)) {
					st.independentSame++
					if sum.VisibleChange {
						st.wrong++
						if len(st.examples) < 5 {
							st.examples = append(st.examples, fmt.Sprintf("%s %s: %+v", v.TargetURI, v.Date, sum))
						}
					}
				}
			}
			prev, prevDoc, prevPage = res, pg.Doc, pg
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// domWords reads a page's visible words the independent way: the HTML
// standard's tree builder (html.Parse), text nodes outside elements that
// never render, whitespace and no-break spaces as separators.
func domWords(pg *dedupe.Page) []string {
	r, err := charset.NewReader(bytes.NewReader(pg.Doc), pg.ContentType)
	if err != nil {
		return nil
	}
	root, err := html.Parse(r)
	if err != nil {
		return nil
	}
	var sb strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "style", "noscript", "template", "head", "title", "svg", "iframe", "object", "select", "datalist", "math":
				return
			}
			for _, a := range n.Attr {
				if a.Key == "hidden" {
					return
				}
			}
		}
		if n.Type == html.TextNode {
			sb.WriteString(n.Data)
			sb.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	return VisibleWords(sb.String())
}

var corpusSites = []string{"mkdocs-org", "ota-lovescout24", "ota-mektoube", "ota-tinder"}

// TestCorpusMarkupOnly: over every changed pair of captures of every
// corpus site, wherever an independent reading of the visible text finds
// no word changed, the diff says markup-only — every time.
func TestCorpusMarkupOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests the whole corpus; not in -short")
	}
	for _, site := range corpusSites {
		t.Run(site, func(t *testing.T) {
			st := comparePairs(t, site)
			if st.pairs == 0 || st.independentSame == 0 {
				t.Fatalf("%+v: the site has no changed pair without a visible change; the check cannot fail", st)
			}
			if st.wrong != 0 {
				t.Errorf("%d of %d pairs with no visible word changed were called a visible change, e.g. %q", st.wrong, st.independentSame, st.examples)
			}
			t.Logf("%s: %d changed pairs, %d markup-only (%.0f%%); %d read the same independently",
				site, st.pairs, st.markupOnly, 100*float64(st.markupOnly)/float64(st.pairs), st.independentSame)
		})
	}
}

// BenchmarkCorpusMarkupOnly reports, per corpus site, the share of changed
// capture pairs whose change is markup only (no word a reader sees).
func BenchmarkCorpusMarkupOnly(b *testing.B) {
	for _, site := range corpusSites {
		b.Run(site, func(b *testing.B) {
			var st pairStats
			for i := 0; i < b.N; i++ {
				st = comparePairs(b, site)
			}
			b.ReportMetric(float64(st.pairs), "pairs")
			b.ReportMetric(float64(st.markupOnly)/float64(max(st.pairs, 1)), "markup-only-share")
			b.ReportMetric(float64(st.wrong), "visible-but-same")
		})
	}
}
