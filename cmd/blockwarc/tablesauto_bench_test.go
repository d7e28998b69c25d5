package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/export/columnar"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// BenchmarkTablesCrawls (make bench-tables-crawls) is what the tables
// cost an archive ingested a crawl at a time: ota-tinder's first CRAWLS
// crawls (default 60), each by 'blockwarc ingest' (in process), with
// -tables=auto (the default), -tables (rewritten at every ingest) and
// -tables=false, each into an archive of its own. The bound that keeps
// small archives' tables always current (tablesSmall, 500 records) is
// scaled down to 50 so that the policy acts on a few hundred records, as
// bench-scale scales the archive's bounds down instead of the data up.
// Metrics, ratios of one run: x-always-auto (CPU of all the ingests with
// -tables ÷ with auto), x-auto-none and x-always-none (÷ -tables=false:
// what the tables add to the ingest), growth-MODE (CPU per byte of input
// of all the crawls ÷ of their first half: 1 when the cost stays in step
// with what is ingested, 2 when it grows with the archive), behind-max-auto (the largest share of the archive's
// records that auto's tables lacked after an ingest) and rewrites-auto.
func BenchmarkTablesCrawls(b *testing.B) {
	files := sharedtest.CorpusFiles(b, "ota-tinder")
	n := 60
	if s := os.Getenv("CRAWLS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 10 {
			b.Fatalf("CRAWLS=%q: want a number ≥ 10", s)
		}
	}
	if len(files) < n {
		b.Fatalf("ota-tinder: %d crawls, want %d", len(files), n)
	}
	files = files[:n]
	size := make([]int64, n)
	for i, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			b.Fatal(err)
		}
		size[i] = fi.Size()
	}
	defer func(s int64) { tablesSmall = s }(tablesSmall)
	tablesSmall = 50
	modes := []struct{ name, flag string }{{"auto", "-tables=auto"}, {"always", "-tables=true"}, {"none", "-tables=false"}}
	for range b.N {
		total := map[string]time.Duration{}
		for _, m := range modes {
			arch := filepath.Join(b.TempDir(), m.name+".bwa")
			cpu := make([]time.Duration, n)
			var behind float64
			rewrites := 0
			for i, f := range files {
				runtime.GC()
				c0 := cpuTime()
				var out, errb bytes.Buffer
				if code := run(context.Background(), []string{"ingest", m.flag, arch, f}, &out, &errb); code != exitOK {
					b.Fatalf("%s: ingest %s: exit %d: %s", m.name, f, code, errb.String())
				}
				cpu[i] = cpuTime() - c0
				total[m.name] += cpu[i]
				if m.name != "auto" {
					continue
				}
				g, ok, err := columnar.ReadGenerationInfo(filepath.Join(arch, "tables"))
				if err != nil || !ok {
					b.Fatalf("auto: tables generation after %s: %v %v", f, ok, err)
				}
				if g.Behind == "" {
					rewrites++
				}
				a, err := openArchive(arch, os.Stderr)
				if err != nil {
					b.Fatal(err)
				}
				now := a.Records()
				a.Close()
				behind = max(behind, 1-float64(g.Records)/float64(now))
			}
			// Crawls grow (ota-tinder's last are twice its first), and
			// auto's rewrites fall in some crawls and not others: CPU per
			// byte of input of all the crawls so far, at the half and at
			// the end.
			var half, all time.Duration
			var halfBytes, allBytes int64
			for i := range n {
				if i < n/2 {
					half += cpu[i]
					halfBytes += size[i]
				}
				all += cpu[i]
				allBytes += size[i]
			}
			perMB := func(d time.Duration, n int64) float64 { return d.Seconds() / (float64(n) / 1e6) }
			b.Logf("%s: %d crawls in %.2f CPU-s; CPU-s per MB of .warc.gz, the first half %.2f, all %.2f", m.name, n, total[m.name].Seconds(),
				perMB(half, halfBytes), perMB(all, allBytes))
			b.ReportMetric(perMB(all, allBytes)/perMB(half, halfBytes), "growth-"+m.name)
			if m.name == "auto" {
				b.ReportMetric(behind, "behind-max-auto")
				b.ReportMetric(float64(rewrites), "rewrites-auto")
			}
		}
		b.ReportMetric(total["always"].Seconds()/total["auto"].Seconds(), "x-always-auto")
		b.ReportMetric(total["auto"].Seconds()/total["none"].Seconds(), "x-auto-none")
		b.ReportMetric(total["always"].Seconds()/total["none"].Seconds(), "x-always-none")
	}
}
