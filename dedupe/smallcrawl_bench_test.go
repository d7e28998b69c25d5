package dedupe

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// BenchmarkSmallCrawl measures what an archive's size costs a small
// crawl's ingest (issue 31: ingest CPU per GB must not grow with the
// archive; a crawl of a few KB pays mostly per-ingest work). The last
// crawl of ota-lovescout24 (8 records, 60 KB) is ingested, one worker,
// into a copy of an archive of the other 350 corpus crawls (one ingest,
// 135 MB of records) and into a new archive, alternately, 15 times
// each; it reports the medians' CPU (cpu-ms-grown, cpu-ms-new, cgo
// threads included) and their ratio, x-new.
func BenchmarkSmallCrawl(b *testing.B) {
	files := sharedtest.CorpusFiles(b)
	small := slices.Max(sharedtest.CorpusFiles(b, "ota-lovescout24"))
	files = slices.DeleteFunc(files, func(f string) bool { return f == small })
	grown := filepath.Join(b.TempDir(), "grown.bwa")
	if _, err := Ingest(context.Background(), grown, files, Options{}); err != nil {
		b.Fatal(err)
	}
	opts := Options{Workers: 1, SkipOriginal: true}
	run := func(from string) time.Duration {
		arch := filepath.Join(b.TempDir(), "a.bwa")
		if from != "" {
			if err := os.CopyFS(arch, os.DirFS(from)); err != nil {
				b.Fatal(err)
			}
		}
		c0 := processCPU(b)
		if _, err := Ingest(context.Background(), arch, []string{small}, opts); err != nil {
			b.Fatal(err)
		}
		c := processCPU(b) - c0
		os.RemoveAll(arch)
		return c
	}
	var onGrown, onNew []time.Duration
	for b.Loop() {
		for range 15 {
			onGrown = append(onGrown, run(grown))
			onNew = append(onNew, run(""))
		}
	}
	slices.Sort(onGrown)
	slices.Sort(onNew)
	g, n := onGrown[len(onGrown)/2], onNew[len(onNew)/2]
	b.ReportMetric(float64(g)/1e6, "cpu-ms-grown")
	b.ReportMetric(float64(n)/1e6, "cpu-ms-new")
	b.ReportMetric(float64(g)/float64(n), "x-new")
}
