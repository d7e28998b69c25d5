package main

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/export/replay"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// BenchmarkServeWebRuns measures what replay's first request for a URL
// costs in an archive ingested a crawl at a time (a catalog run per
// crawl): /web/TS/URL, which reads the runs that may hold the capture
// nearest TS (dedupe.Archive.NearVersions), against the timemap of the
// same URL, which reads every run, as /web/ did before (x-web-vs-timemap,
// p50 and p99). The first BLOCKWARC_SERVE_CRAWLS (default 150) crawls of
// ota-tinder in date order; 200 queries drawn with a fixed seed among the
// captures with a target URI, at the capture's own second; each request
// to a server of its own (no version list kept from an earlier request),
// the two kinds alternated, three rounds, the median of each one's
// percentiles taken. Every /web/ answer must be the timemap's nearest.
func BenchmarkServeWebRuns(b *testing.B) {
	n := 150
	if s := os.Getenv("BLOCKWARC_SERVE_CRAWLS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			b.Fatalf("BLOCKWARC_SERVE_CRAWLS=%q", s)
		}
	}
	files := sharedtest.CorpusFiles(b, "ota-tinder")
	files = files[:min(n, len(files))]
	arch := filepath.Join(b.TempDir(), "runs.bwa")
	for _, f := range files {
		if _, err := dedupe.Ingest(context.Background(), arch, []string{f}, dedupe.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	a, err := dedupe.Open(arch, pack.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var vs []dedupe.Version
	if err := a.Walk(func(u dedupe.URLVersions) error {
		for _, v := range u.Versions {
			if v.TargetURI != "" && !v.Gap && v.Type == "response" {
				vs = append(vs, v)
			}
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	a.Close()
	rng := rand.New(rand.NewPCG(7, 8))
	picks := make([]dedupe.Version, 200)
	for i := range picks {
		picks[i] = vs[rng.IntN(len(vs))]
	}
	ask := func(path string) (time.Duration, *http.Response) {
		h := &replay.Server{Dirs: []string{arch}, Error: func(err error) { b.Errorf("server: %v", err) }}
		defer h.Close()
		req := httptest.NewRequest("GET", path, nil)
		w := httptest.NewRecorder()
		t0 := time.Now()
		h.ServeHTTP(w, req)
		return time.Since(t0), w.Result()
	}
	var p50, p99 [2][]float64 // /web/, timemap
	for round := range 3 {
		var lat [2][]time.Duration
		for _, v := range picks {
			ts := v.Date.UTC().Format("20060102150405")
			d, resp := ask("/web/" + ts + "/" + v.TargetURI)
			if want := "/web/" + ts + "id_/" + v.TargetURI; round == 0 && resp.Header.Get("Location") != want {
				b.Fatalf("/web/%s/%s: %d to %q, want %q", ts, v.TargetURI, resp.StatusCode, resp.Header.Get("Location"), want)
			}
			lat[0] = append(lat[0], d)
			d, resp = ask("/timemap/link/" + v.TargetURI)
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("timemap of %s: %d", v.TargetURI, resp.StatusCode)
			}
			lat[1] = append(lat[1], d)
		}
		for k := range lat {
			slices.Sort(lat[k])
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			p50[k] = append(p50[k], ms(lat[k][len(lat[k])/2]))
			p99[k] = append(p99[k], ms(lat[k][len(lat[k])*99/100]))
		}
	}
	for k := range 2 {
		slices.Sort(p50[k])
		slices.Sort(p99[k])
	}
	b.Logf("%d crawls ingested one at a time; first request of a URL: /web/TS p50 %.2f p99 %.2f ms, timemap (every run) p50 %.2f p99 %.2f ms",
		len(files), p50[0][1], p99[0][1], p50[1][1], p99[1][1])
	b.ReportMetric(p50[0][1], "web-p50-ms")
	b.ReportMetric(p99[0][1], "web-p99-ms")
	b.ReportMetric(p50[0][1]/p50[1][1], "x-web-vs-timemap-p50")
	b.ReportMetric(p99[0][1]/p99[1][1], "x-web-vs-timemap-p99")
}
