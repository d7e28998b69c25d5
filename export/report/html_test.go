package report

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// chartIDs are the ids of every chart WriteHTML draws when the report has
// data for it (docs/REPORT.md).
var chartIDs = []string{"chart-alternatives", "chart-bytes", "chart-storage", "chart-hosts", "chart-timeline", "chart-growth", "chart-heatmap", "chart-urls", "chart-volatile"}

// checkPage parses page as HTML and returns the problems that break the
// page's promise: it must parse, hold the named charts (a figure with
// class "chart" and that id, holding an <svg>), and reference nothing
// outside itself — no script, no src/href/action/etc. except in-page
// fragments, no url() or @import in CSS except url(#fragment).
func checkPage(page []byte, charts []string) []string {
	var problems []string
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return []string{fmt.Sprintf("parse: %v", err)}
	}
	found := map[string]bool{}
	var walk func(n *html.Node, inFigure string)
	walk = func(n *html.Node, inFigure string) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "link", "iframe", "img", "object", "embed", "image", "use", "foreignobject", "base", "audio", "video", "source", "track", "form":
				problems = append(problems, fmt.Sprintf("element <%s>", n.Data))
			}
			for _, a := range n.Attr {
				key := strings.ToLower(a.Key)
				v := strings.TrimSpace(strings.ToLower(a.Val))
				switch {
				case key == "src" || key == "href" || key == "action" || key == "formaction" || key == "poster" ||
					key == "data" || key == "srcset" || key == "background" || key == "codebase" || key == "cite" || key == "ping":
					if !strings.HasPrefix(v, "#") {
						problems = append(problems, fmt.Sprintf("<%s %s=%q>", n.Data, a.Key, a.Val))
					}
				case strings.HasPrefix(key, "on"):
					problems = append(problems, fmt.Sprintf("<%s %s> event handler", n.Data, a.Key))
				case key == "style":
					problems = append(problems, cssProblems(a.Val)...)
				case key == "http-equiv" && v == "refresh":
					problems = append(problems, "meta refresh")
				}
			}
			if n.Data == "style" {
				var b strings.Builder
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					b.WriteString(c.Data)
				}
				problems = append(problems, cssProblems(b.String())...)
			}
			if n.Data == "figure" {
				for _, a := range n.Attr {
					if a.Key == "id" && hasClass(n, "chart") {
						inFigure = a.Val
					}
				}
			}
			if n.Data == "svg" && inFigure != "" {
				found[inFigure] = true
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inFigure)
		}
	}
	walk(doc, "")
	for _, c := range charts {
		if !found[c] {
			problems = append(problems, "missing chart "+c)
		}
	}
	return problems
}

func hasClass(n *html.Node, class string) bool {
	for _, a := range n.Attr {
		if a.Key == "class" {
			for _, c := range strings.Fields(a.Val) {
				if c == class {
					return true
				}
			}
		}
	}
	return false
}

// cssProblems finds @import and url() other than url(#fragment).
func cssProblems(css string) []string {
	var out []string
	l := strings.ToLower(css)
	if strings.Contains(l, "@import") {
		out = append(out, "css @import")
	}
	for i := strings.Index(l, "url("); i >= 0; {
		arg := strings.TrimLeft(l[i+4:], " \t\n'\"")
		if !strings.HasPrefix(arg, "#") {
			out = append(out, "css url(): "+l[i:min(len(l), i+40)])
		}
		j := strings.Index(l[i+4:], "url(")
		if j < 0 {
			break
		}
		i += 4 + j
	}
	return out
}

// sampleReport is a report with every list filled, from the synthetic
// histories.
func sampleReport(t *testing.T) *Report {
	g := NewAggregator(Options{})
	hs := append([]history{}, backtestHistories...)
	hs = append(hs, history{url: "http://x.example/a", intervals: []float64{1, 30, 200, 400}, changed: []bool{true, true, false, true},
		paths: [][]string{{"1", "2"}, {"2"}, nil, {"2", "3"}}})
	feed(t, g, hs)
	r := &Report{Archive: "site.bwa", InputFiles: 3, InputBytes: 300_000, ArchiveBytes: 70_000, SavedBytes: 230_000}
	r.Saving, r.Ratio = saving(70_000, 300_000), ptr(300_000.0/70_000)
	g.fill(r)
	r.Categories = []Category{
		{Name: CatWARCHeaders, StoredBytes: 5000}, {Name: CatHTTPHeaders, StoredBytes: 2000},
		{Name: CatLayouts, StoredBytes: 3000}, {Name: CatBlocks, StoredBytes: 40_000},
		{Name: CatBlockDeltas, StoredBytes: 8000}, {Name: CatOtherPayloads, StoredBytes: 7000},
		{Name: CatIndexMetadata, StoredBytes: 5000}, {Name: CatOtherFiles},
	}
	for i := range r.Categories {
		r.Categories[i].Share = float64(r.Categories[i].StoredBytes) / 70_000
	}
	r.apportionHosts()
	if err := r.alternatives(filepath.Join(t.TempDir(), "none.bwa"), &AltMeasure{Records: 40, RecordBytes: 900_000, Revisits: 3, GzipRevisitBytes: 250_000, ZstdLongBytes: 60_000}); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestHTMLSelfContained(t *testing.T) {
	r := sampleReport(t)
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	if p := checkPage(buf.Bytes(), chartIDs); len(p) > 0 {
		t.Errorf("page problems: %q", p)
	}
	page := buf.String()
	// The figures people look for are on the page.
	for _, s := range []string{"293.0 KiB", "68.4 KiB", "76.7 %", "4.3×", "http://a.example/always", "block deltas", "x.example"} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	// Every URL series has one circle per point.
	var circles int
	for _, u := range r.URLSeries {
		circles += len(u.Points)
	}
	if got := strings.Count(page, "<circle"); got != circles {
		t.Errorf("%d circles, want %d", got, circles)
	}
}

// The checker itself must catch what it is for.
func TestCheckPageCatches(t *testing.T) {
	base := `<!DOCTYPE html><html><head><style>body{}</style></head><body><figure class="chart" id="c"><svg></svg></figure>%s</body></html>`
	for _, bad := range []string{
		`<script>1</script>`, `<img src="http://x/a.png">`, `<a href="//x.example/">x</a>`,
		`<div style="background:url(https://x/y.png)"></div>`, `<style>@import "x.css";</style>`,
		`<link rel="stylesheet" href="https://x/s.css">`, `<svg><image href="https://x/i.png"/></svg>`,
		`<div onclick="alert(1)"></div>`,
	} {
		if p := checkPage([]byte(fmt.Sprintf(base, bad)), []string{"c"}); len(p) == 0 {
			t.Errorf("not caught: %s", bad)
		}
	}
	if p := checkPage([]byte(fmt.Sprintf(base, `<a href="#top">top</a>`)), []string{"c"}); len(p) > 0 {
		t.Errorf("fragment link flagged: %q", p)
	}
	if p := checkPage([]byte(fmt.Sprintf(base, "")), []string{"c", "d"}); len(p) != 1 {
		t.Errorf("missing chart: %q", p)
	}
}

func TestHTMLEmptyReport(t *testing.T) {
	r := &Report{Archive: "empty.bwa"}
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	if p := checkPage(buf.Bytes(), []string{"chart-bytes"}); len(p) > 0 {
		t.Errorf("page problems: %q", p)
	}
	if err := r.WriteText(io.Discard); err != nil {
		t.Fatal(err)
	}
}

// FuzzHTMLText: whatever the URLs, hosts and block texts hold, the page
// parses, stays self-contained and draws its charts.
func FuzzHTMLText(f *testing.F) {
	f.Add("http://a.example/<script>", "b.example", "</svg><img src=//x>", "div")
	f.Add("javascript:alert(1)", "\"><a href=https://x>", "url(https://x)", "@import")
	f.Add("http://127.0.0.1:8103/LoveScout24/Community%20Guidelines.html", "127.0.0.1:8103", "news — día", "nav")
	f.Fuzz(func(t *testing.T, u, host, text, tag string) {
		r := sampleReport(t)
		r.Archive = u
		r.URLSeries[0].URL = u
		r.Hosts[0].Host = host
		r.VolatileBlocks[0].URL = u
		r.VolatileBlocks[0].Text = text
		r.VolatileBlocks[0].Tag = tag
		r.Storage[0].StoredWhy = text
		var buf bytes.Buffer
		if err := r.WriteHTML(&buf); err != nil {
			t.Fatal(err)
		}
		if p := checkPage(buf.Bytes(), chartIDs); len(p) > 0 {
			t.Fatalf("page problems: %q", p)
		}
		if err := r.WriteText(io.Discard); err != nil {
			t.Fatal(err)
		}
	})
}

func TestByteTicks(t *testing.T) {
	for _, c := range []struct {
		max  int64
		want []int64
	}{
		{374_535, []int64{0, 100 << 10, 200 << 10, 300 << 10}}, // 365.8 KiB
		{1000, []int64{0, 200, 400, 600, 800, 1000}},
		{3 << 20, []int64{0, 1 << 20, 2 << 20, 3 << 20}},
		{0, []int64{0}},
	} {
		got := byteTicks(c.max, 5)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("byteTicks(%d) = %v, want %v", c.max, got, c.want)
		}
	}
}

// figureOf returns the <figure> of the chart id in page.
func figureOf(t *testing.T, page, id string) string {
	t.Helper()
	i := strings.Index(page, `<figure class="chart" id="`+id+`"`)
	if i < 0 {
		t.Fatalf("no %s", id)
	}
	j := strings.Index(page[i:], "</figure>")
	return page[i : i+j]
}

// TestHeatmapAndGrowth: the heat-map has a cell per URL and period,
// captured where the URL's captures say; the growth chart a bar per
// period, ending at the archive's size.
func TestHeatmapAndGrowth(t *testing.T) {
	r := sampleReport(t)
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	hm := figureOf(t, page, "chart-heatmap")
	cells := strings.Count(hm, "<rect") - len(cellNames) // less the legend keys
	if want := len(r.URLSeries) * len(r.Timeline); cells != want || want == 0 {
		t.Errorf("heat-map: %d cells, want %d URLs × %d periods", cells, len(r.URLSeries), len(r.Timeline))
	}
	// Captured cells: the distinct periods of each URL's points.
	var captured int
	for _, u := range r.URLSeries {
		periods := map[int]bool{}
		for _, p := range u.Points {
			k := -1
			for i, q := range r.Timeline {
				if !q.Start.After(p.Time) {
					k = i
				}
			}
			periods[k] = true
		}
		captured += len(periods)
	}
	if captured >= len(r.URLSeries)*len(r.Timeline) {
		t.Errorf("every cell captured: the sample does not test blank cells")
	}
	if got := strings.Count(hm, "<title>") - strings.Count(hm, ": not captured"); got-1 != captured {
		t.Errorf("heat-map: %d captured cells, the URL series hold %d captured days", got-1, captured)
	}
	if !strings.Contains(hm, "visible text changed (") || !strings.Contains(hm, "markup only changed (") {
		t.Errorf("heat-map lacks changed cells")
	}
	gr := figureOf(t, page, "chart-growth")
	if bars := strings.Count(gr, "<rect"); bars != len(r.Timeline) {
		t.Errorf("growth: %d bars, want %d", bars, len(r.Timeline))
	}
	if !strings.Contains(gr, "archive "+HumanBytes(r.ArchiveBytes)+", input "+HumanBytes(r.InputBytes-r.NonHTTP.InputBytes)) &&
		!strings.Contains(gr, "archive "+HumanBytes(r.ArchiveBytes)+", input "+HumanBytes(r.InputBytes)) {
		t.Errorf("growth: the last bar is not the archive's size %s", HumanBytes(r.ArchiveBytes))
	}
}
