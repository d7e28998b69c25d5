package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// categoryTitles are the categories as people read them.
var categoryTitles = map[string]string{
	CatWARCHeaders:   "WARC headers",
	CatHTTPHeaders:   "HTTP headers",
	CatLayouts:       "layouts",
	CatBlocks:        "blocks",
	CatBlockDeltas:   "block deltas",
	CatOtherPayloads: "other payloads",
	CatIndexMetadata: "index and metadata",
	CatOtherFiles:    "other files",
}

func categoryTitle(name string) string {
	if t, ok := categoryTitles[name]; ok {
		return t
	}
	return name
}

// WriteText writes r for a terminal: aligned tables, byte counts in
// binary units, shares in percent.
func (r *Report) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }

	p("Storage report of %s\n\n", r.Archive)
	t := &table{align: "lrrl"}
	t.row("input", plural(r.InputFiles, "file"), HumanBytes(r.InputBytes), fmt.Sprintf("(%s bytes)", Thousands(r.InputBytes)))
	t.row("archive", "", HumanBytes(r.ArchiveBytes), fmt.Sprintf("(%s bytes) %s of the input", Thousands(r.ArchiveBytes), pctOf(r.ArchiveBytes, r.InputBytes)))
	saved := fmt.Sprintf("saving %s", pct(r.Saving))
	if r.Ratio != nil {
		saved += fmt.Sprintf(", %.1f× smaller", *r.Ratio)
	}
	t.row("saved", "", HumanBytes(r.SavedBytes), saved)
	t.write(bw)
	writeInputsText(bw, r)

	p("\nWhere the archive's bytes go\n")
	t = &table{align: "lrrrr"}
	t.row("category", "stored", "share", "objects", "uncompressed")
	var sum int64
	for _, c := range r.Categories {
		sum += c.StoredBytes
		if c.Name == CatOtherFiles && c.StoredBytes == 0 {
			continue
		}
		t.row(categoryTitle(c.Name), HumanBytes(c.StoredBytes), pctOf(c.StoredBytes, r.ArchiveBytes), Thousands(c.Objects), HumanBytes(c.PlainBytes))
	}
	t.row("total", HumanBytes(sum), pctOf(sum, r.ArchiveBytes), "", "")
	t.write(bw)

	writeAlternativesText(bw, r)

	p("\nRecords\n")
	t = &table{align: "lrl"}
	t.row("read from the inputs", knownCount(r.Records.Read), "")
	t.row("malformed, skipped", knownCount(r.Records.Malformed), "")
	t.row("stored", Thousands(r.Records.Stored), countsLine(r.Records.ByType))
	t.write(bw)

	c := r.Captures
	p("\nCaptures\n")
	t = &table{align: "lrl"}
	t.row("captures", Thousands(c.Total), period(c))
	if n := r.NonHTTP; n.Captures > 0 {
		t.row("  of non-HTTP URLs", Thousands(n.Captures), fmt.Sprintf("%s (a crawler's own records: in no figure below)", plural(n.URLs, "URL")))
	}
	t.row("URLs", Thousands(c.URLs), "")
	t.row("hosts", Thousands(c.Hosts), "")
	t.row("first of their URL", Thousands(c.First), "")
	t.row("changed", Thousands(c.Changed), pctOf(c.Changed, c.Changed+c.Unchanged)+" of the recaptures")
	t.row("  visible text changed", Thousands(c.TextChanged), pctOf(c.TextChanged, c.Changed)+" of the changes (the page a reader sees changed)")
	t.row("  markup only", Thousands(c.MarkupOnly), pctOf(c.MarkupOnly, c.Changed)+" of the changes (no word a reader sees changed)")
	t.row("  other", Thousands(c.Changed-c.TextChanged-c.MarkupOnly), "not compared block by block (not HTML, or HTML kept whole)")
	t.row("unchanged", Thousands(c.Unchanged), pctOf(c.Unchanged, c.Changed+c.Unchanged)+" of the recaptures")
	t.row("revisit records", Thousands(c.Revisits), "")
	t.row("payload bytes", HumanBytes(c.PayloadBytes), "uncompressed")
	t.row("new object bytes", HumanBytes(c.AddedBytes), "uncompressed, "+pctOf(c.AddedBytes, c.PayloadBytes)+" of the payload bytes")
	t.write(bw)

	p("\nHow captures are stored\n")
	t = &table{align: "lrr"}
	t.row("stored as", "captures", "share")
	for _, s := range r.Storage {
		t.row(storageName(s), Thousands(s.Count), pctOf(s.Count, c.Total))
	}
	t.write(bw)
	if len(r.Records.Storage) > 0 {
		p("\nHow all records are stored\n")
		t = &table{align: "lrr"}
		t.row("stored as", "records", "share")
		for _, s := range r.Records.Storage {
			t.row(storageName(s), Thousands(s.Count), pctOf(s.Count, r.Records.Stored))
		}
		t.write(bw)
	}

	b := r.Blocks
	p("\nBlocks\n")
	t = &table{align: "lrrl"}
	t.row("distinct blocks", Thousands(b.Distinct), HumanBytes(b.Bytes), "")
	t.row("shared across URLs", Thousands(b.SharedAcrossURLs), HumanBytes(b.SharedBytes), pctOf(b.SharedAcrossURLs, b.Distinct)+" of the distinct blocks")
	t.row("blocks in captures", Thousands(b.References), HumanBytes(b.ReferencedBytes), "every capture's blocks, each counted")
	if len(b.Statuses) > 0 {
		t.row("  by status", "", "", countsLine(b.Statuses))
	}
	if len(b.Labels) > 0 {
		t.row("  by label", "", "", countsLine(b.Labels))
	}
	t.write(bw)

	bt := r.Backtest
	p("\nChange-rate back-test (fit λ on the first 2/3 of each page's captures,\npredict the intervals of the last 1/3: changed when P(change) ≥ %g)\n", bt.Threshold)
	t = &table{align: "lrl"}
	t.row("pages tested", Thousands(bt.URLsTested), fmt.Sprintf("of %s (coverage %s; %d+ captures needed)", Thousands(bt.URLs), pct(bt.CoverageURLs), bt.MinCaptures))
	if bt.NotPages > 0 {
		t.row("not pages", Thousands(bt.NotPages), "URLs with only non-HTTP records, left out")
	}
	t.row("intervals predicted", Thousands(bt.IntervalsTested), fmt.Sprintf("of %s (coverage %s)", Thousands(bt.Intervals), pct(bt.CoverageIntervals)))
	t.row("changed", Thousands(bt.ActualChanges), "base rate "+pct(bt.BaseRate))
	t.row("predicted to change", Thousands(bt.PredictedChanges), fmt.Sprintf("model expected %.1f changes", bt.ExpectedChanges))
	t.row("predicted and changed", Thousands(bt.CorrectChanges), "")
	t.row("precision", pct(bt.Precision), "")
	t.row("recall", pct(bt.Recall), "")
	t.row("accuracy", pct(bt.Accuracy), "")
	t.write(bw)

	if len(r.Hosts) > 0 || r.NonHTTP.Captures > 0 {
		p("\nHosts (most captures first; input and archive bytes apportioned, docs/REPORT.md)\n")
		t = &table{align: "lrrrrrrr"}
		t.row("host", "URLs", "captures", "changed", "input", "archive", "saving", "payload saving")
		hs := r.Hosts
		if r.OtherHosts != nil {
			hs = append(hs[:len(hs):len(hs)], *r.OtherHosts)
		}
		for _, h := range hs {
			t.row(h.Host, Thousands(h.URLs), Thousands(h.Captures), Thousands(h.Changed),
				HumanBytes(h.InputBytes), HumanBytes(h.StoredBytes), pct(h.Saving), pct(h.PayloadSaving))
		}
		if n := r.NonHTTP; n.Captures > 0 {
			t.row("(non-HTTP records: "+countsLine(n.Schemes)+")", Thousands(n.URLs), Thousands(n.Captures), "",
				HumanBytes(n.InputBytes), HumanBytes(n.StoredBytes), pct(saving(n.StoredBytes, n.InputBytes)), "")
		}
		t.write(bw)
	}

	if len(r.VolatileBlocks) > 0 {
		p("\nMost volatile blocks (block positions that changed most often)\n")
		t = &table{align: "rrllll"}
		t.row("changes", "rate", "path", "label", "URL", "text")
		vs := r.VolatileBlocks[:min(len(r.VolatileBlocks), textVolatile)]
		for _, v := range vs {
			label := v.Label
			if v.Tag != "" {
				label = v.Tag + " " + label
			}
			t.row(fmt.Sprintf("%d/%d", v.Changes, v.Intervals), pct(&v.Rate), v.Path, label, v.URL, snippet(v.Text, 40))
		}
		t.write(bw)
		if n := len(r.VolatileBlocks) - len(vs); n > 0 {
			p("  … %d more in the JSON and HTML reports\n", n)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// writeAlternativesText lists the alternatives side by side.
func writeAlternativesText(w io.Writer, r *Report) {
	al := r.Alternatives
	if len(al.List) == 0 {
		return
	}
	fmt.Fprintf(w, "\nThe collection kept other ways\n")
	t := &table{align: "lrrrll"}
	t.row("kept as", "size", "bytes", "of input", "random access", "restore one record reads")
	for _, a := range al.List {
		size, bytes, share := "not measured", "", ""
		if a.Bytes != nil {
			size, bytes, share = HumanBytes(*a.Bytes), Thousands(*a.Bytes), pct(a.Ratio)
		} else if a.Name == AltTables {
			size = "not built"
		}
		random := "no"
		if a.RandomAccess {
			random = "yes"
		}
		t.row(altTitle(a.Name), size, bytes, share, random, restoreTitle(a))
	}
	t.write(w)
	if al.Measured {
		fmt.Fprintf(w, "  measured on %s records (%s uncompressed); %s responses written as revisits; zstd: %s\n",
			Thousands(*al.Records), HumanBytes(*al.RecordBytes), Thousands(*al.Revisits), al.Zstd)
	} else {
		fmt.Fprintf(w, "  run with -alternatives to measure the per-record gzip and zstd sizes (reads the whole collection)\n")
	}
}

// textVolatile is how many volatile blocks the text lists.
const textVolatile = 10

func storageName(s Storage) string {
	if s.StoredWhy == "" {
		return s.StoredAs
	}
	return s.StoredAs + " (" + s.StoredWhy + ")"
}

func period(c Captures) string {
	if c.FirstTime == nil || c.LastTime == nil {
		return ""
	}
	return c.FirstTime.Format("2006-01-02") + " to " + c.LastTime.Format("2006-01-02")
}

func knownCount(p *int64) string {
	if p == nil {
		return "unknown"
	}
	return Thousands(*p)
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return Thousands(n) + " " + word + "s"
}

// countsLine writes counts as "a 3, b 2, c 1" (the first eight).
func countsLine(cs []Count) string {
	var parts []string
	for i, c := range cs {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("… %d more", len(cs)-8))
			break
		}
		name := c.Name
		if name == "" {
			name = `""`
		}
		parts = append(parts, name+" "+Thousands(c.Count))
	}
	return strings.Join(parts, ", ")
}

// HumanBytes writes n in binary units: "512 B", "1.5 KiB", "20.3 MiB".
func HumanBytes(n int64) string {
	neg := n < 0
	u := uint64(n)
	if neg {
		u = uint64(-n)
	}
	s := ""
	if u < 1024 {
		s = strconv.FormatUint(u, 10) + " B"
	} else {
		f := float64(u)
		units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
		i := -1
		for f >= 1024 && i < len(units)-1 {
			f /= 1024
			i++
		}
		s = strconv.FormatFloat(f, 'f', 1, 64) + " " + units[i]
	}
	if neg {
		return "-" + s
	}
	return s
}

// Thousands writes n with thousands separators: 1,234,567.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// pct writes a fraction as a percentage with one decimal; "–" for nil.
func pct(f *float64) string {
	if f == nil {
		return "–"
	}
	return strconv.FormatFloat(*f*100, 'f', 1, 64) + " %"
}

func pctOf(a, b int64) string { return pct(ratio(a, b)) }

// table aligns rows of cells: align has one letter per column, l or r.
type table struct {
	align string
	rows  [][]string
}

func (t *table) row(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(w io.Writer) {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range t.rows {
		var b strings.Builder
		b.WriteString("  ")
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if i < len(t.align) && t.align[i] == 'r' {
				b.WriteString(pad + c)
			} else if i < len(r)-1 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(c)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}
