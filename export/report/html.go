package report

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// The page is one file with everything inline: CSS in a <style> element,
// charts as inline SVG, no scripts, no fonts, no images, no links to
// anything outside — it opens the same offline, from a mail attachment or
// years later. Charts carry class "chart" and an id naming what they show
// (docs/REPORT.md lists them).

// Colours of the charts.
const (
	colInput       = "#9aa5b1"
	colArchive     = "#2b6cb0"
	colChanged     = "#d9480f"
	colMarkup      = "#f7b68b" // a change of markup only: the changed hue, faded
	colOtherChange = "#8e7cc3" // a change not compared block by block (not HTML, kept whole)
	colUnchanged   = "#adb5bd"
	colNew         = "#2f9e44"
	colAxis        = "#495057"
)

var categoryColours = map[string]string{
	CatWARCHeaders:   "#5f3dc4",
	CatHTTPHeaders:   "#9c36b5",
	CatLayouts:       "#1971c2",
	CatBlocks:        "#2f9e44",
	CatBlockDeltas:   "#66a80f",
	CatOtherPayloads: "#e67700",
	CatIndexMetadata: "#868e96",
	CatOtherFiles:    "#ced4da",
}

const pageStyle = `
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#212529;margin:2em auto;max-width:920px;padding:0 1em}
h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.15em;margin:1.8em 0 .4em;border-bottom:1px solid #dee2e6}
.sub{color:#495057;margin-top:0}
.big{display:flex;gap:2em;flex-wrap:wrap;margin:1em 0}
.big div{min-width:9em}.big b{display:block;font-size:1.7em}
table{border-collapse:collapse;margin:.5em 0}td,th{padding:.15em .7em;text-align:right}
td:first-child,th:first-child{text-align:left}th{font-weight:600;border-bottom:1px solid #adb5bd}
figure{margin:.5em 0}figcaption{color:#495057;font-size:.9em}
svg{max-width:100%;height:auto;font:12px system-ui,sans-serif}
.note{color:#495057;font-size:.9em}
`

// WriteHTML writes r as one self-contained HTML page with charts.
func (r *Report) WriteHTML(w io.Writer) error {
	bw := bufio.NewWriter(w)
	e := html.EscapeString
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }

	p("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	p("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	p("<title>Storage report: %s</title>\n<style>%s</style>\n</head>\n<body>\n", e(r.Archive), pageStyle)
	p("<h1>Storage report</h1>\n<p class=\"sub\">Archive <code>%s</code>", e(r.Archive))
	if c := r.Captures; c.FirstTime != nil {
		p(": %s captures of %s URLs, %s", Thousands(c.Total), Thousands(c.URLs), e(period(c)))
	}
	p("</p>\n")

	p("<div class=\"big\">")
	p("<div>input (%s)<b>%s</b></div>", e(plural(r.InputFiles, "file")), e(HumanBytes(r.InputBytes)))
	p("<div>archive<b>%s</b></div>", e(HumanBytes(r.ArchiveBytes)))
	p("<div>saving<b>%s</b></div>", e(pct(r.Saving)))
	if r.Ratio != nil {
		p("<div>smaller by<b>%.1f×</b></div>", *r.Ratio)
	}
	p("</div>\n")

	writeInputsHTML(bw, r)

	p("<h2>Against the alternatives</h2>\n")
	writeAlternatives(bw, r)

	p("<h2>Where the bytes go</h2>\n")
	writeBytesChart(bw, r)

	p("<h2>How captures are stored</h2>\n")
	writeStorageChart(bw, r)
	c := r.Captures
	p("<table><tr><th>figure</th><th>count</th></tr>")
	for _, row := range [][2]string{
		{"captures", Thousands(c.Total)}, {"… of non-HTTP URLs (a crawler's own records: in no figure below)", Thousands(r.NonHTTP.Captures)},
		{"URLs", Thousands(c.URLs)}, {"hosts", Thousands(c.Hosts)},
		{"first capture of their URL", Thousands(c.First)}, {"changed", Thousands(c.Changed)},
		{"… visible text changed", Thousands(c.TextChanged) + " (" + pctOf(c.TextChanged, c.Changed) + ")"},
		{"… markup only (no word a reader sees changed)", Thousands(c.MarkupOnly) + " (" + pctOf(c.MarkupOnly, c.Changed) + ")"},
		{"… other (not HTML, or kept whole: not compared by blocks)", Thousands(c.Changed - c.TextChanged - c.MarkupOnly)},
		{"unchanged", Thousands(c.Unchanged)}, {"revisit records", Thousands(c.Revisits)},
		{"distinct blocks", Thousands(r.Blocks.Distinct)}, {"blocks shared across URLs", Thousands(r.Blocks.SharedAcrossURLs)},
		{"records read", knownCount(r.Records.Read)}, {"malformed records skipped", knownCount(r.Records.Malformed)},
		{"records stored", Thousands(r.Records.Stored)},
	} {
		p("<tr><td>%s</td><td>%s</td></tr>", e(row[0]), e(row[1]))
	}
	p("</table>\n")

	p("<h2>Savings per host</h2>\n")
	writeHostsChart(bw, r)

	p("<h2>Captures and changes over time</h2>\n")
	writeTimelineChart(bw, r)
	writeGrowthChart(bw, r)
	writeHeatmap(bw, r)
	writeURLsChart(bw, r)

	p("<h2>Most volatile blocks</h2>\n")
	writeVolatileChart(bw, r)

	bt := r.Backtest
	p("<h2>Change-rate model, back-tested</h2>\n")
	p("<p class=\"note\">For each page (a URL with an HTTP capture) with at least %d captures, the Poisson change rate λ is fitted on the intervals between its first two thirds of captures; each interval of the last third, t days long, is predicted to hold a change when 1 − e<sup>−λt</sup> ≥ %g.", bt.MinCaptures, bt.Threshold)
	if bt.NotPages > 0 {
		p(" %s URLs with only non-HTTP records (a crawler's logs, say) are left out.", Thousands(bt.NotPages))
	}
	p("</p>\n")
	p("<table><tr><th>figure</th><th>value</th><th></th></tr>")
	for _, row := range [][3]string{
		{"precision", pct(bt.Precision), fmt.Sprintf("%d of %d predicted changes happened", bt.CorrectChanges, bt.PredictedChanges)},
		{"recall", pct(bt.Recall), fmt.Sprintf("%d of %d changes were predicted", bt.CorrectChanges, bt.ActualChanges)},
		{"accuracy", pct(bt.Accuracy), fmt.Sprintf("of %d predicted intervals", bt.IntervalsTested)},
		{"base rate", pct(bt.BaseRate), "share of predicted intervals that changed"},
		{"expected changes", fmt.Sprintf("%.1f", bt.ExpectedChanges), fmt.Sprintf("the model's Σ P(change), against %d", bt.ActualChanges)},
		{"coverage (pages)", pct(bt.CoverageURLs), fmt.Sprintf("%d of %d pages", bt.URLsTested, bt.URLs)},
		{"coverage (intervals)", pct(bt.CoverageIntervals), fmt.Sprintf("%d of %d intervals", bt.IntervalsTested, bt.Intervals)},
	} {
		p("<tr><td>%s</td><td>%s</td><td style=\"text-align:left\">%s</td></tr>", e(row[0]), e(row[1]), e(row[2]))
	}
	p("</table>\n")
	p("<p class=\"note\">Written by blockwarc report. Figures are defined in docs/REPORT.md.</p>\n")
	p("</body>\n</html>\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// svg accumulates one chart.
type svg struct {
	b    strings.Builder
	w, h float64
}

func (s *svg) f(format string, a ...any) { fmt.Fprintf(&s.b, format, a...) }

func (s *svg) rect(x, y, w, h float64, fill, title string) {
	if w < 0 {
		w = 0
	}
	s.f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s">`, x, y, w, h, fill)
	if title != "" {
		s.f("<title>%s</title>", html.EscapeString(title))
	}
	s.f("</rect>\n")
}

func (s *svg) text(x, y float64, anchor, fill, t string) {
	s.f(`<text x="%.1f" y="%.1f" text-anchor="%s" fill="%s">%s</text>`+"\n", x, y, anchor, fill, html.EscapeString(t))
}

func (s *svg) line(x1, y1, x2, y2 float64, stroke string) {
	s.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1"/>`+"\n", x1, y1, x2, y2, stroke)
}

// figure writes the chart as a <figure> with an accessible title.
func (s *svg) figure(w io.Writer, id, title, caption string) {
	e := html.EscapeString
	fmt.Fprintf(w, "<figure class=\"chart\" id=\"%s\">\n<svg viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\" aria-label=\"%s\">\n<title>%s</title>\n",
		e(id), s.w, s.h, s.w, s.h, e(title), e(title))
	io.WriteString(w, s.b.String())
	fmt.Fprintf(w, "</svg>\n<figcaption>%s</figcaption>\n</figure>\n", e(caption))
}

func empty(w io.Writer, what string) {
	fmt.Fprintf(w, "<p class=\"note\">%s</p>\n", html.EscapeString(what))
}

const (
	chartW = 860.0
	labelW = 230.0
	valueW = 150.0
	barH   = 18.0
	rowH   = 26.0
)

func scale(v, maxV, width float64) float64 {
	if maxV <= 0 || v <= 0 {
		return 0
	}
	return v / maxV * width
}

// writeBytesChart: input against archive, then the archive by category.
func writeBytesChart(w io.Writer, r *Report) {
	var cats []Category
	for _, c := range r.Categories {
		if c.Name == CatOtherFiles && c.StoredBytes == 0 {
			continue
		}
		cats = append(cats, c)
	}
	s := &svg{w: chartW, h: rowH*float64(2+len(cats)) + 3*rowH}
	barW := chartW - labelW - valueW
	maxV := float64(max(r.InputBytes, r.ArchiveBytes, 1))
	y := 10.0
	for _, b := range []struct {
		name string
		n    int64
		col  string
	}{{"input files", r.InputBytes, colInput}, {"archive", r.ArchiveBytes, colArchive}} {
		s.text(labelW-8, y+13, "end", colAxis, b.name)
		s.rect(labelW, y, scale(float64(b.n), maxV, barW), barH, b.col, fmt.Sprintf("%s: %s bytes", b.name, Thousands(b.n)))
		s.text(labelW+scale(float64(b.n), maxV, barW)+6, y+13, "start", colAxis, HumanBytes(b.n))
		y += rowH
	}
	// The archive as one stacked bar (the whole width: shares), then
	// each category on its own.
	y += rowH / 2
	s.text(labelW-8, y+13, "end", colAxis, "archive by category")
	x := labelW
	for _, c := range cats {
		cw := scale(float64(c.StoredBytes), float64(max(r.ArchiveBytes, 1)), barW)
		s.rect(x, y, cw, barH, categoryColours[c.Name], fmt.Sprintf("%s: %s (%s)", categoryTitle(c.Name), HumanBytes(c.StoredBytes), pct(&c.Share)))
		x += cw
	}
	s.text(labelW+barW+6, y+13, "start", colAxis, "100 %")
	y += rowH * 1.5
	var maxC int64 = 1
	for _, c := range cats {
		maxC = max(maxC, c.StoredBytes)
	}
	for _, c := range cats {
		s.text(labelW-8, y+13, "end", colAxis, categoryTitle(c.Name))
		bw := scale(float64(c.StoredBytes), float64(maxC), barW)
		s.rect(labelW, y, bw, barH, categoryColours[c.Name], fmt.Sprintf("%s: %s bytes stored, %s uncompressed, %s objects", categoryTitle(c.Name), Thousands(c.StoredBytes), HumanBytes(c.PlainBytes), Thousands(c.Objects)))
		s.text(labelW+bw+6, y+13, "start", colAxis, HumanBytes(c.StoredBytes)+"  "+pct(&c.Share))
		y += rowH
	}
	s.h = y + 6
	s.figure(w, "chart-bytes", "Bytes by category",
		"Input (the files as given) against the archive on one scale; the archive's bytes by category as shares of it, then each category on a scale the largest fills.")
}

// writeAlternatives: the ways of keeping the collection on one linear
// scale, then the same as a table with the trade-offs.
func writeAlternatives(w io.Writer, r *Report) {
	al := r.Alternatives
	if len(al.List) == 0 {
		return
	}
	e := html.EscapeString
	s := &svg{w: chartW, h: rowH*float64(len(al.List)) + 16}
	barW := chartW - labelW - valueW
	var maxV int64 = 1
	for _, a := range al.List {
		if a.Bytes != nil {
			maxV = max(maxV, *a.Bytes)
		}
	}
	for i, a := range al.List {
		y := 8 + rowH*float64(i)
		s.text(labelW-8, y+13, "end", colAxis, altTitle(a.Name))
		if a.Bytes == nil {
			what := "not measured (report -alternatives)"
			if a.Name == AltTables {
				what = "not built"
			}
			s.text(labelW, y+13, "start", colAxis, what)
			continue
		}
		col := colInput
		if a.Name == AltArchive {
			col = colArchive
		}
		bw := scale(float64(*a.Bytes), float64(maxV), barW)
		s.rect(labelW, y, bw, barH, col, fmt.Sprintf("%s: %s bytes, %s of the input", altTitle(a.Name), Thousands(*a.Bytes), pct(a.Ratio)))
		s.text(labelW+bw+6, y+13, "start", colAxis, HumanBytes(*a.Bytes)+"  "+pct(a.Ratio))
	}
	s.figure(w, "chart-alternatives", "The collection kept other ways",
		"Bytes of each way of keeping the same records, on one linear scale, with the share of the input.")
	fmt.Fprintf(w, "<table><tr><th>kept as</th><th>bytes</th><th>of input</th><th>random access</th><th>restoring one record reads</th></tr>")
	for _, a := range al.List {
		b, share := "not measured", ""
		if a.Bytes != nil {
			b, share = Thousands(*a.Bytes), pct(a.Ratio)
		} else if a.Name == AltTables {
			b = "not built"
		}
		random := "no"
		if a.RandomAccess {
			random = "yes"
		}
		fmt.Fprintf(w, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>", e(altTitle(a.Name)), e(b), e(share), random, e(restoreTitle(a)))
	}
	fmt.Fprintf(w, "</table>\n")
	if al.Measured {
		fmt.Fprintf(w, "<p class=\"note\">Measured on %s records (%s uncompressed): each record gzipped alone at the default level, %s responses whose payload repeats an earlier one of their URL written as revisit records; all records in URL and time order as one zstd stream (%s). The input is read one record at a time through a CDX index when its files are gzipped record by record, as crawlers write them; the tables hold no records.</p>\n",
			Thousands(*al.Records), e(HumanBytes(*al.RecordBytes)), Thousands(*al.Revisits), e(al.Zstd))
	} else {
		fmt.Fprintf(w, "<p class=\"note\">Run <code>blockwarc report -alternatives</code> to measure the per-record gzip and zstd alternatives (it reads and compresses the whole collection).</p>\n")
	}
}

// writeStorageChart: captures by how they are stored.
func writeStorageChart(w io.Writer, r *Report) {
	if len(r.Storage) == 0 {
		empty(w, "No captures.")
		return
	}
	s := &svg{w: chartW, h: rowH*float64(len(r.Storage)) + 16}
	barW := chartW - labelW - valueW
	maxV := float64(r.Storage[0].Count)
	for i, st := range r.Storage {
		y := 8 + rowH*float64(i)
		col := colUnchanged
		if st.StoredAs == "blocks" {
			col = colNew
		}
		s.text(labelW-8, y+13, "end", colAxis, storageName(st))
		bw := scale(float64(st.Count), maxV, barW)
		s.rect(labelW, y, bw, barH, col, fmt.Sprintf("%s: %s captures", storageName(st), Thousands(st.Count)))
		s.text(labelW+bw+6, y+13, "start", colAxis, Thousands(st.Count)+"  "+pctOf(st.Count, r.Captures.Total))
	}
	s.figure(w, "chart-storage", "Captures by storage",
		"Captures stored as layout + blocks (green) and stored whole, with the reason.")
}

// writeHostsChart: per host, its share of the input against its share of
// the archive, with the saving on the headline's basis; the non-HTTP
// records apart, last.
func writeHostsChart(w io.Writer, r *Report) {
	hs := r.Hosts
	if r.OtherHosts != nil {
		hs = append(hs[:len(hs):len(hs)], *r.OtherHosts)
	}
	if n := r.NonHTTP; n.Captures > 0 {
		hs = append(hs[:len(hs):len(hs)], Host{Host: "non-HTTP records", URLs: n.URLs, Captures: n.Captures,
			InputBytes: n.InputBytes, StoredBytes: n.StoredBytes, Saving: saving(n.StoredBytes, n.InputBytes)})
	}
	if len(hs) == 0 {
		empty(w, "No captures.")
		return
	}
	var maxV int64 = 1
	for _, h := range hs {
		maxV = max(maxV, h.InputBytes, h.StoredBytes)
	}
	const hostRow = 2*barH/1.5 + 14
	s := &svg{w: chartW, h: hostRow*float64(len(hs)) + 40}
	barW := chartW - labelW - valueW
	y := 8.0
	for _, h := range hs {
		s.text(labelW-8, y+12, "end", colAxis, truncate(h.Host, 32))
		s.text(labelW-8, y+26, "end", colAxis, fmt.Sprintf("%s captures", Thousands(h.Captures)))
		iw := scale(float64(h.InputBytes), float64(maxV), barW)
		aw := scale(float64(h.StoredBytes), float64(maxV), barW)
		s.rect(labelW, y, iw, barH/1.5, colInput, fmt.Sprintf("%s: %s bytes of the input", h.Host, Thousands(h.InputBytes)))
		s.rect(labelW, y+barH/1.5+1, aw, barH/1.5, colArchive, fmt.Sprintf("%s: %s bytes of the archive", h.Host, Thousands(h.StoredBytes)))
		s.text(labelW+max(iw, aw)+6, y+17, "start", colAxis, "saving "+pct(h.Saving))
		y += hostRow
	}
	y += 4
	s.rect(labelW, y, 12, 12, colInput, "")
	s.text(labelW+16, y+10, "start", colAxis, "input bytes (its share)")
	s.rect(labelW+200, y, 12, 12, colArchive, "")
	s.text(labelW+216, y+10, "start", colAxis, "archive bytes (its share)")
	s.h = y + 20
	s.figure(w, "chart-hosts", "Savings per host",
		"Per host, on the headline's basis: its share of the input files' bytes (by the bytes of its capture records) against its share of the archive's bytes on disk (by the uncompressed bytes of the objects its captures first brought); records of non-HTTP URLs (a crawler's log, say) apart. Apportioned, not measured per frame: see docs/REPORT.md.")
}

// writeTimelineChart: captures per period, changed ones stacked on top.
func writeTimelineChart(w io.Writer, r *Report) {
	tl := r.Timeline
	if len(tl) == 0 {
		empty(w, "No dated captures.")
		return
	}
	const left, top, plotH = 50.0, 10.0, 160.0
	s := &svg{w: chartW, h: top + plotH + 50}
	plotW := chartW - left - 10
	var maxV int64 = 1
	for _, p := range tl {
		maxV = max(maxV, p.Captures)
	}
	bw := plotW / float64(len(tl))
	s.line(left, top+plotH, left+plotW, top+plotH, colAxis)
	s.text(left-6, top+10, "end", colAxis, Thousands(maxV))
	s.text(left-6, top+plotH, "end", colAxis, "0")
	for i, p := range tl {
		x := left + bw*float64(i)
		hAll := scale(float64(p.Captures), float64(maxV), plotH)
		// Stacked from the axis: markup only, visible text, other changes
		// (not compared block by block), unchanged.
		hCh := scale(float64(p.Changed), float64(maxV), plotH)
		hTx := scale(float64(p.TextChanged+p.MarkupOnly), float64(maxV), plotH)
		hMo := scale(float64(p.MarkupOnly), float64(maxV), plotH)
		label := fmt.Sprintf("%s %s: %d captures, %d changed (%d visible text, %d markup only)", r.TimelinePeriod, p.Start.Format("2006-01-02"), p.Captures, p.Changed, p.TextChanged, p.MarkupOnly)
		s.rect(x+bw*0.1, top+plotH-hAll, bw*0.8, hAll-hCh, colUnchanged, label)
		s.rect(x+bw*0.1, top+plotH-hCh, bw*0.8, hCh-hTx, colOtherChange, label)
		s.rect(x+bw*0.1, top+plotH-hTx, bw*0.8, hTx-hMo, colChanged, label)
		s.rect(x+bw*0.1, top+plotH-hMo, bw*0.8, hMo, colMarkup, label)
	}
	periodTicks(s, tl, r.TimelinePeriod, left, plotW, top+plotH)
	y := top + plotH + 30
	s.h = changeLegend(s, left, y) + 6
	s.figure(w, "chart-timeline", "Captures per "+r.TimelinePeriod,
		"All captures per "+r.TimelinePeriod+": orange when the page changed as a reader sees it since the URL's previous capture, light orange when only its markup changed, purple for other changes (not HTML, or HTML kept whole: not compared block by block).")
}

// writeGrowthChart: the archive's size over the crawl dates — per period,
// the bytes the captures so far added, as a share of the archive's bytes
// on disk (apportioned by added bytes, as for hosts).
func writeGrowthChart(w io.Writer, r *Report) {
	tl := r.Timeline
	var added, record int64
	for _, p := range tl {
		added += p.AddedBytes
		record += p.RecordBytes
	}
	if len(tl) == 0 || added == 0 {
		return
	}
	const left, top, plotH = 80.0, 12.0, 150.0
	s := &svg{w: chartW, h: top + plotH + 50}
	plotW := chartW - left - 10
	bw := plotW / float64(len(tl))
	share := func(total, part, whole int64) int64 {
		if whole <= 0 {
			return 0
		}
		return int64(math.Round(float64(total) * float64(part) / float64(whole)))
	}
	maxV := float64(max(r.ArchiveBytes, 1))
	// Horizontal grid at round byte counts.
	for _, v := range byteTicks(r.ArchiveBytes, 5) {
		y := top + plotH - scale(float64(v), maxV, plotH)
		s.line(left, y, left+plotW, y, "#e9ecef")
		s.text(left-6, y+4, "end", colAxis, HumanBytes(v))
	}
	var cumA, cumR int64
	var pts []string
	for i, p := range tl {
		cumA += p.AddedBytes
		cumR += p.RecordBytes
		arch, in := share(r.ArchiveBytes, cumA, added), share(r.InputBytes, cumR, record)
		x := left + bw*float64(i)
		h := scale(float64(arch), maxV, plotH)
		title := fmt.Sprintf("%s %s: archive %s, input %s so far (%s of it); %s added this %s",
			r.TimelinePeriod, periodLabel(p.Start, r.TimelinePeriod), HumanBytes(arch), HumanBytes(in), pctOf(arch, in),
			HumanBytes(share(r.ArchiveBytes, p.AddedBytes, added)), r.TimelinePeriod)
		s.rect(x+bw*0.1, top+plotH-h, bw*0.8, h, colArchive, title)
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x+bw/2, top+plotH-h))
	}
	s.f(`<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"/>`+"\n", strings.Join(pts, " "), colAxis)
	s.line(left, top+plotH, left+plotW, top+plotH, colAxis)
	periodTicks(s, tl, r.TimelinePeriod, left, plotW, top+plotH)
	s.figure(w, "chart-growth", "Archive size over crawl dates",
		fmt.Sprintf("The archive's size after each %s's captures: the bytes they added so far, as a share of the %s on disk (apportioned by the uncompressed bytes of the new objects, as for hosts; records of non-HTTP URLs left out). Tooltips give the input so far.", r.TimelinePeriod, HumanBytes(r.ArchiveBytes)))
}

// byteTicks returns 0 and round multiples (1, 2 or 5 × 2^(10k) ×
// 10^j bytes) up to maxV, at most n+1 of them, so an axis reads
// "100 KiB, 200 KiB", not "91.4 KiB, 182.9 KiB".
func byteTicks(maxV int64, n int) []int64 {
	if maxV <= 0 {
		return []int64{0}
	}
	unit := int64(1)
	for unit < 1<<60 && maxV/unit >= 1024 {
		unit <<= 10
	}
	var step int64
	for _, m := range []int64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000} {
		step = m * unit
		if maxV/step <= int64(n) {
			break
		}
	}
	out := []int64{0}
	for v := step; v <= maxV; v += step {
		out = append(out, v)
	}
	return out
}

// Heat-map cell states, strongest first.
const (
	cellText = iota
	cellOther
	cellMarkup
	cellSame
	cellNone
)

var cellColours = [...]string{colChanged, colOtherChange, colMarkup, colUnchanged, "#f1f3f5"}
var cellNames = [...]string{"visible text changed", "other change (not compared by blocks)", "markup only changed", "captured, unchanged (or first capture)", "not captured"}

// writeHeatmap: URLs × periods, each cell the strongest change of the
// URL's captures in the period, or "not captured".
func writeHeatmap(w io.Writer, r *Report) {
	tl := r.Timeline
	if len(tl) == 0 || len(r.URLSeries) == 0 {
		return
	}
	const left, top, cellH = 300.0, 8.0, 16.0
	plotW := chartW - left - 10
	cw := plotW / float64(len(tl))
	s := &svg{w: chartW}
	period := func(t time.Time) int { // the last period starting at or before t
		i, _ := slices.BinarySearchFunc(tl, t, func(p Period, t time.Time) int { return p.Start.Compare(t) })
		if i < len(tl) && tl[i].Start.Equal(t) {
			return i
		}
		return max(i-1, 0)
	}
	for row, u := range r.URLSeries {
		y := top + cellH*float64(row)
		s.text(left-10, y+cellH-4, "end", colAxis, truncateMiddle(u.URL, urlLabelChars))
		state := make([]int, len(tl))
		caps := make([]int64, len(tl))
		for i := range state {
			state[i] = cellNone
		}
		for _, p := range u.Points {
			i := period(p.Time)
			caps[i] += p.Captures
			st := cellSame
			switch {
			case p.TextChanges > 0:
				st = cellText
			case p.Changes > p.TextChanges+p.MarkupOnly:
				st = cellOther
			case p.MarkupOnly > 0:
				st = cellMarkup
			}
			state[i] = min(state[i], st)
		}
		for i, st := range state {
			title := fmt.Sprintf("%s, %s %s: %s", u.URL, r.TimelinePeriod, periodLabel(tl[i].Start, r.TimelinePeriod), cellNames[st])
			if caps[i] > 0 {
				title += fmt.Sprintf(" (%s)", plural(caps[i], "capture"))
			}
			s.rect(left+cw*float64(i), y, math.Max(cw-0.5, 0.5), cellH-2, cellColours[st], title)
		}
	}
	y := top + cellH*float64(len(r.URLSeries))
	s.line(left, y, left+plotW, y, colAxis)
	periodTicks(s, tl, r.TimelinePeriod, left, plotW, y)
	items := make([]legendItem, len(cellNames))
	for i := range cellNames {
		items[i] = legendItem{cellColours[i], cellNames[i]}
	}
	s.h = legend(s, left, y+30, items) + 6
	s.figure(w, "chart-heatmap", "Change heat-map",
		fmt.Sprintf("The %d URLs with the most captures (rows) by %s (columns): each cell the strongest change among the URL's captures in the %s — visible text, another change, markup only — grey when captured unchanged, blank when not captured.", len(r.URLSeries), r.TimelinePeriod, r.TimelinePeriod))
}

// edgeAnchor centres a tick label, or aligns it inwards near an edge so
// that it is not clipped.
func edgeAnchor(x, lo, hi float64) string {
	switch {
	case x-lo < 30:
		return "start"
	case hi-x < 30:
		return "end"
	}
	return "middle"
}

// labelWidth is about how wide a tick label of n characters is drawn
// (12 px sans-serif digits), with room between labels.
func labelWidth(n int) float64 { return 7.5*float64(n) + 36 }

// maxTicks is how many labels of n characters fit side by side in width
// without touching: the axes thin their ticks to it.
func maxTicks(width float64, n int) int { return max(1, int(width/labelWidth(n))) }

// periodTicks draws the x axis ticks of a chart with one column per
// period, thinned so that the labels do not overlap.
func periodTicks(s *svg, tl []Period, period string, left, plotW, y float64) {
	if len(tl) == 0 {
		return
	}
	bw := plotW / float64(len(tl))
	n := len(periodLabel(tl[0].Start, period))
	for _, i := range tickIndexes(len(tl), maxTicks(plotW, n)) {
		x := left + bw*float64(i) + bw/2
		s.line(x, y, x, y+4, colAxis)
		s.text(x, y+18, edgeAnchor(x, left, left+plotW), colAxis, periodLabel(tl[i].Start, period))
	}
}

// tickIndexes returns evenly spaced indexes of n columns, at most maxTicks.
func tickIndexes(n, maxTicks int) []int {
	step := max(1, int(math.Ceil(float64(n)/float64(maxTicks))))
	var out []int
	for i := 0; i < n; i += step {
		out = append(out, i)
	}
	return out
}

func periodLabel(t time.Time, period string) string {
	switch period {
	case "year":
		return t.Format("2006")
	case "month":
		return t.Format("2006-01")
	}
	return t.Format("2006-01-02")
}

// writeURLsChart: one row per URL, one dot per capture (or run of
// captures), orange where it changed.
func writeURLsChart(w io.Writer, r *Report) {
	if len(r.URLSeries) == 0 {
		return
	}
	var first, last time.Time
	for _, u := range r.URLSeries {
		for _, p := range u.Points {
			if p.Time.IsZero() || p.Time.Year() < 1900 {
				continue
			}
			if first.IsZero() || p.Time.Before(first) {
				first = p.Time
			}
			if p.Time.After(last) {
				last = p.Time
			}
		}
	}
	if first.IsZero() {
		return
	}
	span := last.Sub(first).Seconds()
	if span <= 0 {
		span = 1
	}
	const left, top = 300.0, 10.0
	plotW := chartW - left - 20
	s := &svg{w: chartW, h: top + rowH*float64(len(r.URLSeries)) + 50}
	xOf := func(t time.Time) float64 { return left + t.Sub(first).Seconds()/span*plotW }
	for i, u := range r.URLSeries {
		y := top + rowH*float64(i) + rowH/2
		s.text(left-10, y+4, "end", colAxis, truncateMiddle(u.URL, urlLabelChars))
		s.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e9ecef" stroke-width="1"><title>%s</title></line>`+"\n",
			left, y, left+plotW, y, html.EscapeString(fmt.Sprintf("%s: %d captures, %d changes", u.URL, u.Captures, u.Changes)))
		for _, p := range u.Points {
			if p.Time.IsZero() || p.Time.Year() < 1900 {
				continue
			}
			col := colUnchanged
			switch {
			case p.TextChanges > 0:
				col = colChanged
			case p.Changes > p.MarkupOnly:
				col = colOtherChange
			case p.Changes > 0:
				col = colMarkup
			}
			rad := 3 + math.Min(4, math.Log2(float64(max(p.Captures, 1))))
			s.f(`<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s" fill-opacity="0.8"><title>%s</title></circle>`+"\n",
				xOf(p.Time), y, rad, col, html.EscapeString(pointTitle(p)))
		}
	}
	y := top + rowH*float64(len(r.URLSeries))
	s.line(left, y, left+plotW, y, colAxis)
	for _, t := range timeTicks(first, last, maxTicks(plotW, len(tickLabel(first, last.Sub(first))))) {
		x := xOf(t)
		s.line(x, y, x, y+4, colAxis)
		s.text(x, y+17, edgeAnchor(x, left, left+plotW), colAxis, tickLabel(t, last.Sub(first)))
	}
	s.h = changeLegend(s, left, y+26) + 6
	s.figure(w, "chart-urls", "Captures and changes per URL",
		fmt.Sprintf("The %d URLs with the most captures: one dot per capture (a larger dot is a run of captures), orange when the page changed as a reader sees it since the previous capture, light orange when only its markup changed, purple for other changes (not compared block by block).", len(r.URLSeries)))
}

func pointTitle(p Point) string {
	if p.Captures == 1 {
		switch {
		case p.MarkupOnly > 0:
			return p.Time.Format(time.RFC3339) + ": markup changed, no visible text"
		case p.Changes > 0:
			return p.Time.Format(time.RFC3339) + ": changed"
		}
		return p.Time.Format(time.RFC3339)
	}
	return fmt.Sprintf("from %s: %d captures, %d changed (%d markup only)", p.Time.Format(time.RFC3339), p.Captures, p.Changes, p.MarkupOnly)
}

// timeTicks returns round dates between first and last: years, months or
// days, at most n.
func timeTicks(first, last time.Time, n int) []time.Time {
	n = max(n, 1)
	span := last.Sub(first)
	var out []time.Time
	switch {
	case span > 3*365*24*time.Hour:
		years := last.Year() - first.Year()
		step := max(1, (years+n-1)/n)
		for y := first.Year() + 1; y <= last.Year(); y += step {
			out = append(out, time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC))
		}
	case span > 60*24*time.Hour:
		months := int(span.Hours()/24/30) + 1
		step := max(1, (months+n-1)/n)
		t := time.Date(first.Year(), first.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, 1, 0)
		for ; !t.After(last); t = t.AddDate(0, step, 0) {
			out = append(out, t)
		}
	default:
		days := int(span.Hours()/24) + 1
		step := max(1, (days+n-1)/n)
		t := time.Date(first.Year(), first.Month(), first.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, 1)
		for ; !t.After(last); t = t.AddDate(0, 0, step) {
			out = append(out, t)
		}
	}
	return out
}

func tickLabel(t time.Time, span time.Duration) string {
	switch {
	case span > 3*365*24*time.Hour:
		return t.Format("2006")
	case span > 60*24*time.Hour:
		return t.Format("2006-01")
	}
	return t.Format("01-02")
}

// writeVolatileChart: the block positions that changed most often.
func writeVolatileChart(w io.Writer, r *Report) {
	vs := r.VolatileBlocks
	if len(vs) == 0 {
		empty(w, "No block changed between captures.")
		return
	}
	const left = 330.0
	s := &svg{w: chartW, h: 8 + 32*float64(len(vs)) + 8}
	barW := chartW - left - 110
	for i, v := range vs {
		y := 8 + 32*float64(i)
		what := v.Path
		if v.Label != "" {
			what += " · " + v.Label
		}
		if v.Tag != "" {
			what += " <" + v.Tag + ">"
		}
		title := fmt.Sprintf("%s block %s changed in %d of %d intervals", v.URL, v.Path, v.Changes, v.Intervals)
		if v.Text != "" {
			title += ": " + v.Text
		}
		s.text(left-10, y+11, "end", colAxis, truncate(what, 40))
		s.text(left-10, y+25, "end", "#868e96", truncateMiddle(v.URL, 48))
		bw := scale(v.Rate, 1, barW)
		s.rect(left, y+4, barW, barH, "#f1f3f5", "")
		s.rect(left, y+4, bw, barH, colChanged, title)
		s.text(left+barW+6, y+17, "start", colAxis, fmt.Sprintf("%d/%d", v.Changes, v.Intervals))
	}
	s.figure(w, "chart-volatile", "Most volatile blocks",
		"Block positions (URL and block path) by how many of the URL's intervals between captures changed them; the bar is the share of intervals.")
}

// truncate cuts s to n runes with "…".
func truncate(s string, n int) string { return snippet(s, n) }

// truncateMiddle keeps the start and the end of a long s (URLs differ at
// their ends).
func truncateMiddle(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	head := n / 2
	tail := n - head - 1
	return string(rs[:head]) + "…" + string(rs[len(rs)-tail:])
}

// changeLegend draws the legend of the change colours at (left, y).
// changeLegend draws the legend of the change colours from (left, y),
// wrapping within the chart's width; it returns the y below it.
func changeLegend(s *svg, left, y float64) float64 {
	return legend(s, left, y, []legendItem{
		{colChanged, "visible change"}, {colMarkup, "markup-only change"},
		{colOtherChange, "other change (not compared by blocks)"}, {colUnchanged, "unchanged or first capture"},
	})
}

type legendItem struct{ col, text string }

// legend draws coloured keys from (left, y), wrapping to a new line
// before a key would pass the chart's right edge; it returns the y below.
func legend(s *svg, left, y float64, items []legendItem) float64 {
	x := left
	for _, it := range items {
		w := 30 + 6.8*float64(utf8.RuneCountInString(it.text))
		if x > left && x+w-14 > s.w {
			x, y = left, y+18
		}
		s.rect(x, y, 12, 12, it.col, "")
		s.text(x+16, y+10, "start", colAxis, it.text)
		x += w
	}
	return y + 16
}

// urlLabelChars is the most characters of a URL label left of a 300 px
// plot (about 7.2 px a character at the charts' 12 px).
const urlLabelChars = 39
