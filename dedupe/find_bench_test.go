package dedupe

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// BenchmarkFindRuns measures Find on an archive of a corpus site
// ingested a crawl at a time (one catalog run per crawl), against one
// ingest of the same files and against the exhaustive Find of before
// catalog version 10 (findExhaustive: one segment of every run) on the
// crawl-at-a-time archive. The first BLOCKWARC_FIND_CRAWLS (default 60)
// crawls of ota-tinder, in date order. Queries: 400 picked at random
// (fixed seed) among the captures with a target URI: the URL at the
// latest (a third), at the capture's own date (what `cat -at` of a capture asks), or
// at a random time between the first crawl and the last. Each archive
// is opened once (cache 4 MiB, as restoreSample) and the three are
// sampled in turn, three rounds, the median of each one's p50 and p99
// taken. Metrics: find-p50-ms, find-p99-ms and find-segments (catalog
// segments read per Find) of each, and the ratios x-find-*-vs-one and
// x-find-*-vs-exhaustive. Then what `blockwarc cat -at` costs, as the
// "At scale" figure of docs/BENCHMARKS.md was taken: 200 captures found
// at their own date and restored, each in the archive opened anew
// (findRestoreSampleOf; the three alternated, three rounds, medians;
// find-restore-cold-*), and warm (BenchmarkScale's sample, logged).
// Every answer must be the one the exhaustive Find and the one-ingest
// archive give (same file and offset).
func BenchmarkFindRuns(b *testing.B) {
	n := 60
	if s := os.Getenv("BLOCKWARC_FIND_CRAWLS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			b.Fatalf("BLOCKWARC_FIND_CRAWLS=%q", s)
		}
	}
	files := sharedtest.CorpusFiles(b, "ota-tinder") // SITE-YYYYMMDDhhmmss: date order
	files = files[:min(n, len(files))]
	many := filepath.Join(b.TempDir(), "many.bwa")
	one := filepath.Join(b.TempDir(), "one.bwa")
	t0 := time.Now()
	for _, f := range files {
		if _, err := Ingest(context.Background(), many, []string{f}, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := Ingest(context.Background(), one, files, Options{}); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d crawls of ota-tinder ingested one at a time and at once in %v", len(files), time.Since(t0).Round(time.Second))

	am, vs := openVersions(b, many)
	defer am.Close()
	a1, err := Open(one, pack.Options{CacheBytes: 4 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer a1.Close()
	vs = slices.DeleteFunc(vs, func(v Version) bool { return v.TargetURI == "" || v.Gap })
	first, last := vs[0].Date, vs[0].Date
	for _, v := range vs {
		first, last = minTime(first, v.Date), maxTime(last, v.Date)
	}
	type query struct {
		url string
		at  time.Time
	}
	rng := rand.New(rand.NewPCG(5, 6))
	qs := make([]query, 400)
	for i := range qs {
		v := vs[rng.IntN(len(vs))]
		qs[i].url = v.TargetURI
		switch rng.IntN(3) {
		case 1:
			qs[i].at = v.Date
		case 2:
			qs[i].at = first.Add(time.Duration(rng.Int64N(int64(last.Sub(first)) + 1)))
		}
	}
	// The answers must agree before anything is timed.
	for _, q := range qs {
		got, gerr := am.Find(q.url, q.at)
		want, werr := findExhaustive(am, q.url, q.at)
		w1, err1 := a1.Find(q.url, q.at)
		if (gerr == nil) != (werr == nil) || (gerr == nil) != (err1 == nil) ||
			gerr == nil && (got.File != want.File || got.Offset != want.Offset || got.File != w1.File || got.Offset != w1.Offset) {
			b.Fatalf("Find(%s, %v): %s@%d (%v), exhaustive %s@%d (%v), one ingest %s@%d (%v)",
				q.url, q.at, got.File, got.Offset, gerr, want.File, want.Offset, werr, w1.File, w1.Offset, err1)
		}
	}
	// Which queries read many runs: segments read per Find, by kind of
	// time asked.
	kinds := []string{"latest", "own date", "random time"}
	perKind := make([][]int, 3)
	for i, q := range qs {
		s0 := segmentReads.Load()
		am.Find(q.url, q.at)
		k := 2
		switch {
		case q.at.IsZero():
			k = 0
		case i < len(qs) && slices.ContainsFunc(vs, func(v Version) bool { return v.TargetURI == q.url && v.Date.Equal(q.at) }):
			k = 1
		}
		perKind[k] = append(perKind[k], int(segmentReads.Load()-s0))
	}
	for k, ns := range perKind {
		if len(ns) == 0 {
			continue
		}
		slices.Sort(ns)
		b.Logf("at %-11s %3d queries: segments read per Find p50 %d, p90 %d, max %d", kinds[k], len(ns), ns[len(ns)/2], ns[len(ns)*9/10], ns[len(ns)-1])
	}
	type way struct {
		name string
		find func(url string, at time.Time) (Version, error)
	}
	ways := []way{
		{"runs", am.Find},
		{"one", a1.Find},
		{"exhaustive", func(url string, at time.Time) (Version, error) { return findExhaustive(am, url, at) }},
	}
	const rounds = 3
	p50s, p99s := make([][]float64, len(ways)), make([][]float64, len(ways))
	segs := make([]float64, len(ways))
	b.ResetTimer()
	for range rounds {
		for k, w := range ways {
			lat := make([]time.Duration, len(qs))
			s0 := segmentReads.Load()
			for i, q := range qs {
				t := time.Now()
				w.find(q.url, q.at)
				lat[i] = time.Since(t)
			}
			segs[k] = float64(segmentReads.Load()-s0) / float64(len(qs))
			slices.Sort(lat)
			p50s[k] = append(p50s[k], ms(lat[len(lat)/2]))
			p99s[k] = append(p99s[k], ms(lat[len(lat)*99/100]))
		}
	}
	b.StopTimer()
	med := func(xs []float64) float64 { slices.Sort(xs); return xs[len(xs)/2] }
	p50, p99 := make([]float64, len(ways)), make([]float64, len(ways))
	for k, w := range ways {
		p50[k], p99[k] = med(p50s[k]), med(p99s[k])
		b.Logf("%-10s Find p50 %.3f ms, p99 %.3f ms, %.2f catalog segments read per Find", w.name, p50[k], p99[k], segs[k])
	}
	// What `cat -at` does, as BenchmarkScale measures it: Find(url,
	// date), then Restore, warm (one archive opened for the 200) and
	// cold (each in the archive opened anew), the three alternated.
	cold := map[string][3][]float64{}
	for range rounds {
		for _, w := range []struct {
			name, dir string
			find      func(a *Archive, url string, at time.Time) (Version, error)
		}{{"runs", many, (*Archive).Find}, {"one", one, (*Archive).Find}, {"exhaustive", many, findExhaustive}} {
			p50, p99, segs := findRestoreSampleOf(b, w.dir, 200, true, w.find)
			c := cold[w.name]
			c[0], c[1], c[2] = append(c[0], p50), append(c[1], p99), append(c[2], segs)
			cold[w.name] = c
		}
	}
	for _, name := range []string{"runs", "one", "exhaustive"} {
		c := cold[name]
		b.Logf("%-10s Find + Restore cold: p50 %.3f ms, p99 %.3f ms, %.2f catalog segments read per Find", name, med(c[0]), med(c[1]), med(c[2]))
	}
	for _, arch := range []struct{ name, dir string }{{"runs", many}, {"one", one}} {
		p50, p99, segs := findRestoreSample(b, arch.dir, 200)
		b.Logf("%-10s Find + Restore warm: p50 %.3f ms, p99 %.3f ms, %.2f catalog segments read per Find", arch.name, p50, p99, segs)
	}
	b.ReportMetric(med(cold["runs"][0]), "find-restore-cold-p50-ms")
	b.ReportMetric(med(cold["runs"][1]), "find-restore-cold-p99-ms")
	b.ReportMetric(med(cold["runs"][0])/med(cold["one"][0]), "x-find-restore-cold-p50-vs-one")
	b.ReportMetric(med(cold["runs"][1])/med(cold["one"][1]), "x-find-restore-cold-p99-vs-one")
	b.ReportMetric(med(cold["runs"][0])/med(cold["exhaustive"][0]), "x-find-restore-cold-p50-vs-exhaustive")
	b.ReportMetric(med(cold["runs"][1])/med(cold["exhaustive"][1]), "x-find-restore-cold-p99-vs-exhaustive")
	b.ReportMetric(float64(len(files)), "runs")
	b.ReportMetric(p50[0], "find-p50-ms")
	b.ReportMetric(p99[0], "find-p99-ms")
	b.ReportMetric(segs[0], "find-segments")
	b.ReportMetric(p50[1], "find-p50-ms-one")
	b.ReportMetric(p99[1], "find-p99-ms-one")
	b.ReportMetric(segs[1], "find-segments-one")
	b.ReportMetric(p50[2], "find-p50-ms-exhaustive")
	b.ReportMetric(p99[2], "find-p99-ms-exhaustive")
	b.ReportMetric(segs[2], "find-segments-exhaustive")
	b.ReportMetric(p50[0]/p50[1], "x-find-p50-vs-one")
	b.ReportMetric(p99[0]/p99[1], "x-find-p99-vs-one")
	b.ReportMetric(p50[0]/p50[2], "x-find-p50-vs-exhaustive")
	b.ReportMetric(p99[0]/p99[2], "x-find-p99-vs-exhaustive")
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
