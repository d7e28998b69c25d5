package report

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/export/changerate"
	"github.com/blockwarc/blockwarc/export/tables"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/warcio"
)

// siteRecord is what the test reads from the WARCs itself.
type siteRecord struct {
	typ, uri, digest string
	date             time.Time
	http             bool
}

// readSite reads every record of the site's WARC files with warcio.
func readSite(t *testing.T, files []string) (recs []siteRecord, skipped int64) {
	t.Helper()
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		r := warcio.NewReader(f, name)
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("read %s: %v", name, err)
			}
			recs = append(recs, siteRecord{
				typ: rec.Type, uri: rec.TargetURI, date: rec.Date,
				digest: rec.Header.Get("WARC-Payload-Digest"),
				http:   strings.HasPrefix(rec.Header.Get("Content-Type"), "application/http"),
			})
		}
		skipped += r.Skipped()
		f.Close()
	}
	return recs, skipped
}

// manifestRows counts the HTML 200 captures the corpus manifest lists.
func manifestRows(t *testing.T, site string) int64 {
	t.Helper()
	f, err := os.Open(filepath.Join(site, "manifest.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var n int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if sc.Text() != "" && !strings.HasPrefix(sc.Text(), "url\t") {
			n++
		}
	}
	return n
}

// backtestFromRecords applies the documented back-test to the response
// records read straight from the WARCs: per URL, captures in time order,
// a change where the payload digest differs from the previous capture's.
func backtestFromRecords(recs []siteRecord) Backtest {
	byURL := map[string][]siteRecord{}
	for _, r := range recs {
		if (r.typ == "response" || r.typ == "revisit") && r.http && r.uri != "" {
			byURL[r.uri] = append(byURL[r.uri], r)
		}
	}
	bt := Backtest{MinCaptures: 4, Threshold: 0.5}
	for _, caps := range byURL {
		slices.SortStableFunc(caps, func(a, b siteRecord) int { return a.date.Compare(b.date) })
		bt.URLs++
		var iv []float64
		var ch []bool
		for i := 1; i < len(caps); i++ {
			iv = append(iv, caps[i].date.Sub(caps[i-1].date).Hours()/24)
			ch = append(ch, caps[i].digest != caps[i-1].digest)
		}
		bt.Intervals += int64(len(iv))
		m := len(caps)
		if m < 4 {
			continue
		}
		// The first ⌈2m/3⌉ captures are fitted.
		fit := int(math.Ceil(2*float64(m)/3)) - 1
		r, ok := changerate.Estimate(iv[:fit], ch[:fit])
		if !ok {
			continue
		}
		bt.URLsTested++
		for i := fit; i < len(iv); i++ {
			p := changerate.PChange(r.Rate, iv[i])
			bt.IntervalsTested++
			bt.ExpectedChanges += p
			pred := p >= 0.5
			if ch[i] {
				bt.ActualChanges++
			}
			if pred {
				bt.PredictedChanges++
			}
			if pred && ch[i] {
				bt.CorrectChanges++
			}
			if !pred && !ch[i] {
				bt.CorrectUnchanged++
			}
		}
	}
	return bt
}

// TestReportCorpus ingests one corpus site and checks the report against
// counts taken independently: the files on disk, the WARC records read
// with warcio, the corpus manifest, and the pack's own account.
func TestReportCorpus(t *testing.T) {
	site := sharedtest.Dir(t, "corpus", "mkdocs-org")
	files, err := filepath.Glob(filepath.Join(site, "*.warc.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no WARC files in %s: %v", site, err)
	}
	dir := filepath.Join(t.TempDir(), "site.bwa")
	ctx := context.Background()
	if _, err := dedupe.Ingest(ctx, dir, []string{site}, dedupe.Options{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	// A tables/ directory is derived data: not archive bytes.
	if err := os.MkdirAll(filepath.Join(dir, TablesDir, "captures"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, TablesDir, "captures", "part-00000.parquet"), make([]byte, 12345), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := dedupe.Open(dir, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	r, err := Build(ctx, dir, a, Options{}, tables.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}

	// Input: the files on disk.
	var inBytes int64
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		inBytes += fi.Size()
	}
	if r.InputFiles != int64(len(files)) || r.InputBytes != inBytes {
		t.Errorf("input %d files %d bytes, want %d files %d bytes", r.InputFiles, r.InputBytes, len(files), inBytes)
	}
	// Archive: the directory's files without tables/.
	var arch int64
	for _, e := range mustReadDir(t, dir) {
		if e.IsDir() {
			if e.Name() != TablesDir {
				t.Errorf("unexpected directory %s in the archive", e.Name())
			}
			continue
		}
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		arch += fi.Size()
	}
	if r.ArchiveBytes != arch || r.SavedBytes != inBytes-arch {
		t.Errorf("archive %d bytes (saved %d), want %d", r.ArchiveBytes, r.SavedBytes, arch)
	}
	// Categories: each from the store's account, together within the
	// archive bytes; what they do not account for (other_files) is
	// nothing for a freshly committed archive but its empty lock file.
	var sum int64
	byName := map[string]Category{}
	for _, c := range r.Categories {
		byName[c.Name] = c
		if c.StoredBytes < 0 {
			t.Errorf("category %s: %d bytes", c.Name, c.StoredBytes)
		}
		if c.Name != CatOtherFiles {
			sum += c.StoredBytes
		}
	}
	if sum > r.ArchiveBytes {
		t.Errorf("categories sum to %d > archive %d", sum, r.ArchiveBytes)
	}
	if o := byName[CatOtherFiles].StoredBytes; o > r.ArchiveBytes/100 {
		t.Errorf("other files %d bytes: the categories miss more than 1 %% of the archive", o)
	}
	// No block_deltas: format 3 stores blocks as chunks, never as delta
	// frames (docs/FORMAT.md "Chunked objects").
	for _, name := range []string{CatWARCHeaders, CatHTTPHeaders, CatLayouts, CatBlocks, CatOtherPayloads, CatIndexMetadata} {
		if byName[name].StoredBytes <= 0 {
			t.Errorf("category %s is empty on a site with every kind of object", name)
		}
	}

	// Records: read with warcio.
	recs, skipped := readSite(t, files)
	types := map[string]int64{}
	var captures, nonWeb int64
	urls := map[string]bool{}
	for _, rec := range recs {
		types[rec.typ]++
		if (rec.typ == "response" || rec.typ == "revisit" || rec.typ == "resource") && rec.uri != "" {
			captures++
			// wget's metadata:// log is not a URL of the site.
			if !strings.HasPrefix(rec.uri, "http://") && !strings.HasPrefix(rec.uri, "https://") {
				nonWeb++
				continue
			}
			urls[rec.uri] = true
		}
	}
	if r.Records.Read == nil || *r.Records.Read != int64(len(recs)) || r.Records.Stored != int64(len(recs)) {
		t.Errorf("records read %v stored %d, want %d", r.Records.Read, r.Records.Stored, len(recs))
	}
	if r.Records.Malformed == nil || *r.Records.Malformed != skipped {
		t.Errorf("malformed %v, want %d", r.Records.Malformed, skipped)
	}
	for _, c := range r.Records.ByType {
		if types[c.Name] != c.Count {
			t.Errorf("%s records: %d, want %d", c.Name, c.Count, types[c.Name])
		}
		delete(types, c.Name)
	}
	if len(types) > 0 {
		t.Errorf("record types missing from the report: %v", types)
	}

	// Captures: the capture records, the manifest's HTML captures.
	c := r.Captures
	if c.Total != captures || c.URLs != int64(len(urls)) || c.First != c.URLs || c.First+c.Changed+c.Unchanged != c.Total-nonWeb {
		t.Errorf("captures %+v, want %d captures of %d URLs", c, captures, len(urls))
	}
	if nonWeb == 0 || r.NonHTTP.Captures != nonWeb || r.NonHTTP.URLs == 0 {
		t.Errorf("non-HTTP %+v, the inputs hold %d non-HTTP captures", r.NonHTTP, nonWeb)
	}
	var asBlocks, storageSum int64
	for _, s := range r.Storage {
		storageSum += s.Count
		if s.StoredAs == "blocks" {
			asBlocks += s.Count
		}
	}
	if want := manifestRows(t, site); asBlocks != want || c.AsBlocks != want {
		t.Errorf("captures stored as blocks: %d (%d), manifest lists %d HTML 200 captures", asBlocks, c.AsBlocks, want)
	}
	if storageSum != c.Total || c.AsBlocks+c.Whole != c.Total {
		t.Errorf("storage counts %d captures of %d", storageSum, c.Total)
	}
	var hostCaps int64
	for _, h := range r.Hosts {
		hostCaps += h.Captures
	}
	if r.OtherHosts != nil {
		hostCaps += r.OtherHosts.Captures
	}
	var tl int64
	for _, p := range r.Timeline {
		tl += p.Captures
	}
	if hostCaps != c.Total-nonWeb || tl != c.Total-nonWeb {
		t.Errorf("hosts count %d captures, the timeline %d, of %d web captures", hostCaps, tl, c.Total-nonWeb)
	}
	// Hosts on the headline's basis: their shares and the non-HTTP one
	// add up to the input and archive bytes (to rounding).
	sumIn, sumSt := r.NonHTTP.InputBytes, r.NonHTTP.StoredBytes
	for _, h := range r.Hosts {
		sumIn += h.InputBytes
		sumSt += h.StoredBytes
	}
	if o := r.OtherHosts; o != nil {
		sumIn += o.InputBytes
		sumSt += o.StoredBytes
	}
	if n := int64(len(r.Hosts) + 2); sumIn < r.InputBytes-n || sumIn > r.InputBytes+n || sumSt < r.ArchiveBytes-n || sumSt > r.ArchiveBytes+n {
		t.Errorf("hosts share %d input, %d archive bytes; headline %d, %d", sumIn, sumSt, r.InputBytes, r.ArchiveBytes)
	}

	// Blocks: the tables' distinct blocks are the pack's block objects.
	if objs := byName[CatBlocks].Objects + byName[CatBlockDeltas].Objects; r.Blocks.Distinct != objs {
		t.Errorf("%d distinct blocks in the tables, %d block objects in the pack", r.Blocks.Distinct, objs)
	}
	if r.Blocks.SharedAcrossURLs == 0 || r.Blocks.SharedAcrossURLs > r.Blocks.Distinct {
		t.Errorf("shared blocks %d of %d", r.Blocks.SharedAcrossURLs, r.Blocks.Distinct)
	}

	// The back-test, recomputed from the WARC records.
	want := backtestFromRecords(recs)
	got := r.Backtest
	exp := got.ExpectedChanges
	got.Precision, got.Recall, got.Accuracy, got.BaseRate, got.CoverageURLs, got.CoverageIntervals, got.ExpectedChanges, got.NotPages = nil, nil, nil, nil, nil, nil, 0, 0
	wantExp := want.ExpectedChanges
	want.ExpectedChanges = 0
	if got != want {
		t.Errorf("back-test from the rows:\n %+v\nfrom the WARC records:\n %+v", got, want)
	}
	if math.Abs(exp-wantExp) > 1e-6 {
		t.Errorf("expected changes %v, from the records %v", exp, wantExp)
	}
	if want.URLsTested == 0 || want.PredictedChanges == 0 {
		t.Errorf("the site should exercise the back-test: %+v", want)
	}
	t.Logf("mkdocs-org: input %d, archive %d (saving %.1f %%); back-test precision %.3f recall %.3f coverage %.3f/%.3f",
		r.InputBytes, r.ArchiveBytes, *r.Saving*100, deref(r.Backtest.Precision), deref(r.Backtest.Recall),
		deref(r.Backtest.CoverageURLs), deref(r.Backtest.CoverageIntervals))

	// The page: self-contained, with every chart.
	var page bytes.Buffer
	if err := r.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	if p := checkPage(page.Bytes(), chartIDs); len(p) > 0 {
		t.Errorf("page problems: %q", p)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"block deltas", "precision", HumanBytes(r.ArchiveBytes), Thousands(c.Total)} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text report lacks %q", s)
		}
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

func mustReadDir(t *testing.T, dir string) []os.DirEntry {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return es
}
