package tables

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/partition"
	"github.com/blockwarc/blockwarc/warcio"
)

// langPage is a page of known language, for BenchmarkLanguages.
type langPage struct {
	name, want string
	doc        []byte
	opts       partition.Options
}

// siteLanguages labels the corpus sites: each is in one language.
var siteLanguages = map[string]string{"mkdocs-org": "en", "ota-tinder": "en", "ota-mektoube": "fr", "ota-lovescout24": "de"}

// articleLanguages labels, by host, the article-extraction pages that are
// not in English (read by hand from their ground-truth article bodies).
var articleLanguages = map[string]string{
	"www.autoracing.com.br": "pt", "comoeducarseusfilhos.com.br": "pt", "kabarislamia.com": "id",
	"blog.comwrap.com": "de", "gto-normativy.ru": "ru", "note100yen.com": "ja",
}

// langPages reads every distinct HTML page (200) of the corpus sites and
// the article-extraction pages, with their labels.
func langPages(b *testing.B) []langPage {
	var pages []langPage
	for site, want := range siteLanguages {
		seen := map[[20]byte]bool{}
		for _, f := range sharedtest.CorpusFiles(b, site) {
			fh, err := os.Open(f)
			if err != nil {
				b.Fatal(err)
			}
			r := warcio.NewReader(fh, f)
			for {
				rec, err := r.Next()
				if err == io.EOF {
					break
				} else if err != nil {
					b.Fatalf("read %s: %v", f, err)
				}
				if rec.Type != "response" {
					continue
				}
				body, err := io.ReadAll(rec.Body)
				if err != nil {
					b.Fatal(err)
				}
				m, err := warcio.ReadHTTP(bytes.NewReader(body), 0)
				if err != nil || m.StatusCode != 200 || m.MediaType() != "text/html" {
					continue
				}
				doc := body[len(m.Raw):]
				if k := sha1.Sum(doc); !seen[k] {
					seen[k] = true
					pages = append(pages, langPage{site + " " + rec.TargetURI, want, doc,
						dedupe.PageOptions(m.ContentType(), dedupe.DefaultLevel, rec.TargetURI)})
				}
			}
			fh.Close()
		}
	}
	dir := sharedtest.Dir(b, "testdata", "article-extraction")
	raw, err := os.ReadFile(filepath.Join(dir, "ground-truth.json"))
	if err != nil {
		b.Fatal(err)
	}
	var truth map[string]struct{ URL string }
	if err := json.Unmarshal(raw, &truth); err != nil {
		b.Fatal(err)
	}
	for id, t := range truth {
		f, err := os.Open(filepath.Join(dir, "html", id+".html.gz"))
		if err != nil {
			b.Fatal(err)
		}
		z, err := gzip.NewReader(f)
		if err != nil {
			b.Fatal(err)
		}
		doc, err := io.ReadAll(z)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		want := "en"
		for host, l := range articleLanguages {
			if strings.Contains(t.URL, "://"+host+"/") {
				want = l
			}
		}
		pages = append(pages, langPage{"article " + t.URL, want, doc,
			partition.Options{ContentType: "text/html; charset=utf-8", BaseURL: t.URL}})
	}
	return pages
}

// BenchmarkLanguages measures captures.languages on every distinct HTML
// page of the corpus sites (labelled by site) and the article-extraction
// pages (labelled by hand): partition is the baseline, the page's
// partition with annotation that the tables make anyway; languages is
// pageLanguages on the partitioned pages, with the share of pages whose
// first language is the label (first-correct-%), the pages with no
// language (none), and its time over the partition's (x-partition).
// Bytes are the pages' visible text. One run:
//
//	go test -run XXX -bench Languages -benchtime 1x ./export/tables/
func BenchmarkLanguages(b *testing.B) {
	pages := langPages(b)
	leaves := make([][]*partition.Block, len(pages))
	var text int64
	for i, p := range pages {
		res, err := partition.Partition(p.doc, p.opts)
		if err != nil {
			b.Fatalf("%s: %v", p.name, err)
		}
		leaves[i] = res.Leaves
		for _, l := range res.Leaves {
			text += int64(len(l.Text))
		}
	}
	var base time.Duration
	b.Run("partition", func(b *testing.B) {
		b.SetBytes(text)
		p := partition.NewPartitioner()
		for range b.N {
			for _, pg := range pages {
				if _, err := p.Partition(pg.doc, pg.opts); err != nil {
					b.Fatal(err)
				}
			}
		}
		base = b.Elapsed() / time.Duration(b.N)
	})
	b.Run("languages", func(b *testing.B) {
		b.SetBytes(text)
		b.ReportAllocs()
		right, none := 0, 0
		for range b.N {
			right, none = 0, 0
			d := newLangDetector()
			for i, ls := range leaves {
				switch got := d.pageLanguages(ls); {
				case len(got) == 0:
					none++
				case got[0] == pages[i].want:
					right++
				default:
					b.Logf("%s: %q, labelled %s", pages[i].name, got, pages[i].want)
				}
			}
		}
		b.ReportMetric(100*float64(right)/float64(len(pages)), "first-correct-%")
		b.ReportMetric(float64(none), "none")
		b.ReportMetric(float64(len(pages)), "pages")
		if base > 0 {
			b.ReportMetric(float64(b.Elapsed()/time.Duration(b.N))/float64(base), "x-partition")
		}
	})
}
