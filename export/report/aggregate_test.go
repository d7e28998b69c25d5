package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/export/tables"
)

// history is one synthetic URL: its capture intervals in days and whether
// each interval changed.
type history struct {
	url       string
	intervals []float64
	changed   []bool
	paths     [][]string // changed paths per interval (optional)
}

var t0 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

// feed sends the rows of the histories to g as tables.Build would: per
// URL its captures, its changes, then its urls row.
func feed(t *testing.T, g *Aggregator, hs []history) {
	t.Helper()
	for _, h := range hs {
		key := "surt:" + h.url
		host := strings.SplitN(h.url[strings.Index(h.url, "//")+2:], "/", 2)[0]
		at := t0
		for i := 0; i <= len(h.intervals); i++ {
			if i > 0 {
				at = at.Add(time.Duration(h.intervals[i-1] * 24 * float64(time.Hour)))
			}
			c := &tables.Capture{
				URL: h.url, URLSURTKey: key, URLHostName: strings.Split(host, ":")[0],
				URLProtocol: h.url[:strings.Index(h.url, ":")], FetchTime: at, Version: int32(i + 1), WARCType: "response",
				PayloadLength: 1000, AddedBytes: 100, WARCRecordLength: 400,
				StoredAs: "blocks",
			}
			if !strings.HasPrefix(h.url, "metadata:") {
				c.FetchStatus = ptr(int16(200))
			}
			if i == 0 {
				c.AddedBytes = 1000
			} else {
				c.Changed = ptr(h.changed[i-1])
				if !strings.HasSuffix(h.url, ".pdf") {
					// Every third capture's change is markup only.
					c.TextChanged = ptr(h.changed[i-1] && i%3 != 0)
				}
			}
			if strings.HasSuffix(h.url, ".pdf") {
				c.StoredAs, c.StoredWhy = "payload", ptr("not-html")
			}
			if err := g.Add(c); err != nil {
				t.Fatal(err)
			}
			for j, p := range []string{"1", "2"} {
				if err := g.Add(&tables.CaptureBlock{URLSURTKey: key, Version: int32(i + 1), Ordinal: int32(j + 1), Path: p, BlockID: h.url + "#" + p, Status: "unchanged"}); err != nil {
					t.Fatal(err)
				}
			}
		}
		for i, d := range h.intervals {
			ch := &tables.Change{URL: h.url, URLSURTKey: key, FromVersion: int32(i + 1), ToVersion: int32(i + 2), IntervalDays: d, Changed: h.changed[i]}
			if h.paths != nil {
				ch.ChangedPaths = h.paths[i]
			}
			if err := g.Add(ch); err != nil {
				t.Fatal(err)
			}
		}
		if err := g.Add(&tables.URL{URL: h.url, URLSURTKey: key, URLHostName: host, URLProtocol: h.url[:strings.Index(h.url, ":")], Captures: int64(len(h.intervals) + 1)}); err != nil {
			t.Fatal(err)
		}
	}
}

func ones(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

// backtestHistories are worked by hand in TestBacktest.
var backtestHistories = []history{
	// 7 captures, 6 daily intervals, all changed. Fit on the first 5
	// captures (4 intervals, all changed): regular estimator
	// λ = −ln(0.5/4.5) = ln 9, P(1 day) = 8/9: both predicted intervals
	// changed and did (2 correct changes).
	{url: "http://a.example/always", intervals: ones(6), changed: []bool{true, true, true, true, true, true}},
	// 4 captures, never changed: λ = 0, predicted unchanged, right.
	{url: "http://a.example/never", intervals: ones(3), changed: []bool{false, false, false}},
	// 4 captures, fit on two unchanged intervals (λ = 0), then a change
	// after 10 days: missed.
	{url: "http://a.example/late", intervals: []float64{1, 1, 10}, changed: []bool{false, false, true}},
	// 2 captures: too few to test.
	{url: "http://b.example:8080/short", intervals: ones(1), changed: []bool{true}},
	// Fit on [changed, unchanged]: λ = −ln(1.5/2.5), P = 0.4 < 0.5:
	// predicted unchanged, right.
	{url: "http://b.example:8080/half", intervals: ones(3), changed: []bool{true, false, false}},
	// Fit on [changed, changed]: λ = ln 5, P = 0.8: predicted a change
	// that did not happen.
	{url: "http://b.example:8080/burst", intervals: ones(3), changed: []bool{true, true, false}},
}

func TestBacktest(t *testing.T) {
	g := NewAggregator(Options{})
	// A crawler's log as a resource record: not a web page, not tested.
	log := history{url: "metadata://gnu.org/wget.log", intervals: ones(5), changed: []bool{true, true, true, true, true}}
	feed(t, g, append([]history{log}, backtestHistories...))
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	var r Report
	g.fill(&r)
	bt := r.Backtest
	want := Backtest{
		MinCaptures: 4, Threshold: 0.5, NotPages: 1,
		URLs: 6, URLsTested: 5, Intervals: 19, IntervalsTested: 6,
		ActualChanges: 3, PredictedChanges: 3, CorrectChanges: 2, CorrectUnchanged: 2,
	}
	got := bt
	got.Precision, got.Recall, got.Accuracy, got.BaseRate, got.CoverageURLs, got.CoverageIntervals, got.ExpectedChanges = nil, nil, nil, nil, nil, nil, 0
	if got != want {
		t.Errorf("backtest counts:\n got %+v\nwant %+v", got, want)
	}
	for _, c := range []struct {
		name string
		got  *float64
		want float64
	}{
		{"precision", bt.Precision, 2.0 / 3}, {"recall", bt.Recall, 2.0 / 3},
		{"accuracy", bt.Accuracy, 4.0 / 6}, {"base rate", bt.BaseRate, 3.0 / 6},
		{"coverage urls", bt.CoverageURLs, 5.0 / 6}, {"coverage intervals", bt.CoverageIntervals, 6.0 / 19},
	} {
		if c.got == nil || math.Abs(*c.got-c.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	// Σ P(change): 2 × 8/9 (always) + 0 + 0 (λ = 0) + 0.4 (half) + 0.8 (burst).
	if want := 2*8.0/9 + 0.4 + 0.8; math.Abs(bt.ExpectedChanges-want) > 1e-6 {
		t.Errorf("expected changes = %v, want %v", bt.ExpectedChanges, want)
	}

	// Nothing to test: the figures that divide by zero are null.
	g = NewAggregator(Options{})
	feed(t, g, backtestHistories[3:4])
	var e Report
	g.fill(&e)
	if e.Backtest.Precision != nil || e.Backtest.Recall != nil || e.Backtest.CoverageURLs == nil || *e.Backtest.CoverageURLs != 0 {
		t.Errorf("untestable archive: %+v", e.Backtest)
	}
}

func TestAggregateCaptures(t *testing.T) {
	hs := append([]history{}, backtestHistories...)
	hs = append(hs, history{url: "http://c.example/doc.pdf", intervals: ones(2), changed: []bool{false, true}})
	// A crawler's log (wget's metadata:// record), captured at every
	// crawl and changing each time: not a URL of the site.
	meta := history{url: "metadata://gnu.org/software/wget/warc/wget.log", intervals: ones(4), changed: []bool{true, true, true, true}}
	g := NewAggregator(Options{TopHosts: 2, TopURLs: 3})
	feed(t, g, append(hs, meta))
	var r Report
	g.fill(&r)
	c := r.Captures
	if n := r.NonHTTP; n.Captures != 5 || n.URLs != 1 || n.RecordBytes != 5*400 || len(n.Schemes) != 1 || n.Schemes[0] != (Count{"metadata", 5}) {
		t.Errorf("non-HTTP %+v, want the 5 captures of the log", n)
	}
	for _, s := range r.URLSeries {
		if strings.HasPrefix(s.URL, "metadata:") {
			t.Errorf("the log is in the URL series")
		}
	}
	// Count independently from the histories; the log's captures are in
	// the total, in no other figure.
	var total, first, changed, unchanged, textChanged, markupOnly int64
	total = 5
	for _, h := range hs {
		total += int64(len(h.intervals) + 1)
		first++
		for i, ch := range h.changed {
			if ch {
				changed++
				switch {
				case strings.HasSuffix(h.url, ".pdf"):
				case (i+1)%3 == 0:
					markupOnly++
				default:
					textChanged++
				}
			} else {
				unchanged++
			}
		}
	}
	if c.TextChanged != textChanged || c.MarkupOnly != markupOnly || markupOnly == 0 || textChanged == 0 {
		t.Errorf("text changed %d, markup only %d; want %d, %d", c.TextChanged, c.MarkupOnly, textChanged, markupOnly)
	}
	if c.Total != total || c.First != first || c.Changed != changed || c.Unchanged != unchanged || c.URLs != int64(len(hs)) {
		t.Errorf("captures %+v; want total %d first %d changed %d unchanged %d urls %d", c, total, first, changed, unchanged, len(hs))
	}
	if c.Hosts != 3 || c.PayloadBytes != 1000*total || c.RecordBytes != 400*total {
		t.Errorf("hosts %d payload %d record %d", c.Hosts, c.PayloadBytes, c.RecordBytes)
	}
	if c.AsBlocks != total-3 || c.Whole != 3 {
		t.Errorf("as blocks %d whole %d", c.AsBlocks, c.Whole)
	}
	web := total - 5 // the figures below count the web captures
	wantStorage := []Storage{{"blocks", "", total - 3}, {"payload", "not-html", 3}}
	if len(r.Storage) != 2 || r.Storage[0] != wantStorage[0] || r.Storage[1] != wantStorage[1] {
		t.Errorf("storage %+v, want %+v", r.Storage, wantStorage)
	}
	// Hosts: a.example 3 URLs (15 captures), b.example:8080 3 URLs (10),
	// c.example 1 URL (3) folded into the other hosts (TopHosts 2).
	if len(r.Hosts) != 2 || r.Hosts[0].Host != "a.example" || r.Hosts[0].Captures != 15 || r.Hosts[0].URLs != 3 ||
		r.Hosts[1].Host != "b.example:8080" || r.Hosts[1].Captures != 10 {
		t.Fatalf("hosts %+v", r.Hosts)
	}
	if o := r.OtherHosts; o == nil || o.Captures != 3 || o.URLs != 1 {
		t.Errorf("other hosts %+v", r.OtherHosts)
	}
	// a.example: payload 15 000, added 3 × 1000 + 12 × 100 = 4 200.
	if s := r.Hosts[0].PayloadSaving; s == nil || math.Abs(*s-(1-4200.0/15000)) > 1e-9 {
		t.Errorf("a.example payload saving %v", s)
	}
	// On the headline's basis: 1 MB of input, 50 kB of archive, shared by
	// record bytes and added bytes. a.example: 15 × 400 of 33 × 400
	// record bytes; 4 200 of the 10 900 added (b.example:8080 3 × 1000
	// + 7 × 100, c.example 1000 + 200, the log 1000 + 400).
	r.InputBytes, r.ArchiveBytes = 1_000_000, 50_000
	r.apportionHosts()
	a := r.Hosts[0]
	wantIn, wantSt := math.Round(1e6*15/33), math.Round(5e4*4200/10500)
	if float64(a.InputBytes) != wantIn || float64(a.StoredBytes) != wantSt || a.Saving == nil || math.Abs(*a.Saving-(1-wantSt/wantIn)) > 1e-12 {
		t.Errorf("a.example input %d stored %d saving %v; want %v %v", a.InputBytes, a.StoredBytes, a.Saving, wantIn, wantSt)
	}
	sumIn, sumSt := r.NonHTTP.InputBytes+r.OtherHosts.InputBytes, r.NonHTTP.StoredBytes+r.OtherHosts.StoredBytes
	for _, h := range r.Hosts {
		sumIn += h.InputBytes
		sumSt += h.StoredBytes
	}
	if math.Abs(float64(sumIn-r.InputBytes)) > 2 || math.Abs(float64(sumSt-r.ArchiveBytes)) > 2 {
		t.Errorf("hosts and non-HTTP share %d input, %d archive bytes; want %d, %d", sumIn, sumSt, r.InputBytes, r.ArchiveBytes)
	}
	// Top URLs by captures: always (7), then the 4-capture ones by URL.
	if len(r.URLSeries) != 3 || r.URLSeries[0].URL != "http://a.example/always" || r.URLSeries[0].Captures != 7 || r.URLSeries[0].Changes != 6 ||
		r.URLSeries[1].URL != "http://a.example/late" || r.URLSeries[2].URL != "http://a.example/never" {
		t.Errorf("url series %+v", r.URLSeries)
	}
	if n := len(r.URLSeries[0].Points); n != 7 {
		t.Errorf("always: %d points", n)
	}
	// Timeline: every capture counted once, changes too.
	var tc, tch, tmo int64
	for _, p := range r.Timeline {
		tc += p.Captures
		tch += p.Changed
		tmo += p.MarkupOnly
	}
	if tmo != markupOnly {
		t.Errorf("timeline: %d markup-only changes, want %d", tmo, markupOnly)
	}
	if tc != web || tch != changed || r.TimelinePeriod != "day" {
		t.Errorf("timeline %d captures %d changed (%s), want %d %d", tc, tch, r.TimelinePeriod, web, changed)
	}
	if r.Blocks.References != 2*total {
		t.Errorf("references %d", r.Blocks.References)
	}
}

func TestVolatileBlocks(t *testing.T) {
	hs := []history{
		{url: "http://x.example/a", intervals: ones(4), changed: []bool{true, true, true, false},
			paths: [][]string{{"1", "2"}, {"2"}, {"2", "3"}, nil}},
		{url: "http://x.example/b", intervals: ones(2), changed: []bool{true, true},
			paths: [][]string{{"1"}, {"1"}}},
	}
	g := NewAggregator(Options{TopBlocks: 3})
	feed(t, g, hs)
	// The blocks rows describe the latest block at each path.
	for _, b := range []tables.Block{
		{BlockID: "http://x.example/a#2", Tag: "div", Label: "content", Text: "news of the day", Bytes: 10, Captures: 5, URLs: 1},
		{BlockID: "http://x.example/b#1", Tag: "nav", Label: "navigation", Text: "home", Bytes: 20, Captures: 3, URLs: 2},
	} {
		if err := g.Add(&b); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	var r Report
	g.fill(&r)
	// a#2: 3 of 4 intervals; b#1: 2 of 2 (rate 1); a#1 and a#3: 1 of 4
	// each, a#1 first by path. Ranked by changes, then rate.
	want := []struct {
		url, path, label string
		changes          int64
	}{{"http://x.example/a", "2", "content", 3}, {"http://x.example/b", "1", "navigation", 2}, {"http://x.example/a", "1", "", 1}}
	if len(r.VolatileBlocks) != len(want) {
		t.Fatalf("volatile %+v", r.VolatileBlocks)
	}
	for i, w := range want {
		v := r.VolatileBlocks[i]
		if v.URL != w.url || v.Path != w.path || v.Label != w.label || v.Changes != w.changes {
			t.Errorf("volatile[%d] = %+v, want %+v", i, v, w)
		}
	}
	if b := r.Blocks; b.Distinct != 2 || b.Bytes != 30 || b.SharedAcrossURLs != 1 || b.SharedBytes != 20 || b.ReferencedBytes != 10*5+20*3 {
		t.Errorf("blocks %+v", b)
	}
	if err := g.Add(&tables.Capture{}); err == nil {
		t.Error("row after Close accepted")
	}
}

func TestMergePoints(t *testing.T) {
	var ps []Point
	for i := range 1000 {
		ps = append(ps, Point{Time: t0.Add(time.Duration(i) * time.Hour), Captures: 1, Changes: int64(i % 2)})
	}
	m := mergePoints(ps, 240)
	if len(m) > 240 {
		t.Fatalf("%d points", len(m))
	}
	var c, ch int64
	for i, p := range m {
		c += p.Captures
		ch += p.Changes
		if i > 0 && !p.Time.After(m[i-1].Time) {
			t.Errorf("points out of order at %d", i)
		}
	}
	if c != 1000 || ch != 500 || !m[0].Time.Equal(t0) {
		t.Errorf("merged %d captures %d changes, first %v", c, ch, m[0].Time)
	}
}

func TestTimelinePeriods(t *testing.T) {
	for _, c := range []struct {
		span time.Duration
		want string
	}{{10 * 24 * time.Hour, "day"}, {300 * 24 * time.Hour, "week"}, {5 * 365 * 24 * time.Hour, "month"}, {40 * 365 * 24 * time.Hour, "year"}} {
		days := map[int64]*Period{}
		for _, at := range []time.Time{t0, t0.Add(c.span)} {
			d := floorDiv(at.Unix(), 86400)
			days[d] = &Period{Start: time.Unix(d*86400, 0).UTC(), Captures: 1}
		}
		tl, period := timeline(days)
		if period != c.want || len(tl) > maxPeriods {
			t.Errorf("span %v: %s with %d periods, want %s", c.span, period, len(tl), c.want)
		}
		var n int64
		for _, p := range tl {
			n += p.Captures
		}
		if n != 2 {
			t.Errorf("span %v: %d captures", c.span, n)
		}
	}
}

func TestJSONFieldNames(t *testing.T) {
	g := NewAggregator(Options{})
	feed(t, g, backtestHistories)
	r := &Report{Archive: "x.bwa"}
	g.fill(r)
	r.Categories = []Category{{Name: CatBlocks}}
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var m any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	snake := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	var walk func(v any, path string)
	seen := 0
	walk = func(v any, path string) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				seen++
				if !snake.MatchString(k) {
					t.Errorf("field %s.%s is not snake_case", path, k)
				}
				walk(x, path+"."+k)
			}
		case []any:
			for _, x := range v {
				walk(x, path+"[]")
			}
		}
	}
	walk(m, "")
	if seen < 60 {
		t.Errorf("only %d fields seen", seen)
	}
	var back Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back.Backtest.URLsTested != r.Backtest.URLsTested {
		t.Errorf("round trip: %v %+v", err, back.Backtest)
	}
}

// TestAggregatorBounded: the Aggregator keeps its top lists and host
// totals within Options whatever the number of URLs and hosts.
func TestAggregatorBounded(t *testing.T) {
	var hs []history
	for i := range 500 {
		hs = append(hs, history{
			url:       fmt.Sprintf("http://h%03d.example/p", i),
			intervals: ones(1 + i%7), changed: make([]bool, 1+i%7),
			paths: func() [][]string {
				ps := make([][]string, 1+i%7)
				for j := range ps {
					ps[j] = []string{"1", "2", "3", "4", "5", "6", "7"}
				}
				return ps
			}(),
		})
	}
	g := NewAggregator(Options{MaxHosts: 10, TopHosts: 5, TopURLs: 7, TopBlocks: 9})
	feed(t, g, hs)
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if len(g.hosts) != 10 || len(g.series) != 7 || len(g.volatile) != 9 || len(g.cur.points) != 0 || len(g.cur.pathChanges) != 0 {
		t.Fatalf("kept %d hosts, %d series, %d volatile, %d points", len(g.hosts), len(g.series), len(g.volatile), len(g.cur.points))
	}
	var r Report
	g.fill(&r)
	var total int64
	for _, h := range hs {
		total += int64(len(h.intervals) + 1)
	}
	sum := r.OtherHosts.Captures
	for _, h := range r.Hosts {
		sum += h.Captures
	}
	if len(r.Hosts) != 5 || sum != total || r.OtherHosts.URLs != 495 || !strings.Contains(r.OtherHosts.Host, "full") {
		t.Errorf("%d hosts listed, %d captures of %d, other %+v", len(r.Hosts), sum, total, r.OtherHosts)
	}
	// The longest histories (8 captures) rank first, ties by URL.
	for _, s := range r.URLSeries {
		if s.Captures != 8 {
			t.Errorf("series %s with %d captures", s.URL, s.Captures)
		}
	}
	// At most 5 paths of one URL among the volatile blocks.
	perURL := map[string]int{}
	for _, v := range r.VolatileBlocks {
		perURL[v.URL]++
		if perURL[v.URL] > volatilePerURL || v.Changes != 7 {
			t.Errorf("volatile %+v", v)
		}
	}
}

// TestHostsApartFromCrawlRecords: a crawler's own records (wget's
// metadata:// logs) are not counted with the pages of the host they name.
func TestHostsApartFromCrawlRecords(t *testing.T) {
	g := NewAggregator(Options{})
	feed(t, g, []history{
		{url: "metadata://gnu.org/wget.log", intervals: ones(2), changed: []bool{true, true}},
		{url: "http://gnu.org/software/", intervals: ones(1), changed: []bool{false}},
	})
	var r Report
	g.fill(&r)
	got := map[string]int64{}
	for _, h := range r.Hosts {
		got[h.Host] = h.Captures
	}
	if len(got) != 1 || got["gnu.org"] != 2 || r.NonHTTP.Captures != 3 {
		t.Errorf("hosts %v, non_http %d captures; want gnu.org with its 2 page captures and the 3 log captures apart", got, r.NonHTTP.Captures)
	}
}
