package dedupe

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/internal/testhooks"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// BenchmarkScaleCapture is BenchmarkScale's crawl-at-a-time ingest (all
// corpus sites mixed, one crawl at a time in date order, -mem 4GiB, in
// process, neither compacted nor through the command) once per bound on
// what one capture's restore decodes (pack.Settings.CaptureFrames),
// alternated with the bounds at their defaults and scaled (16 KiB
// frames and chains), so that the bound's price in bytes and its gain in
// cold restore latency come from one run. BLOCKWARC_CAPTURE_K lists the
// bounds (default "0,16,24"; 0 none), BLOCKWARC_CAPTURE_SCALED "1" or
// "0" for the scaled bounds only or the default ones only (default
// both). Per run: the archive's bytes against each file alone at zstd
// -19 --long=27, and cold restore p50/p99 and decoded p99 of 200 captures
// at the first tenth and at the end (p99: the median of three alternated
// samples), and their growth.
func BenchmarkScaleCapture(b *testing.B) {
	files := sharedtest.CorpusFiles(b)
	date := func(f string) string {
		base := strings.TrimSuffix(filepath.Base(f), ".warc.gz")
		return base[strings.LastIndexByte(base, '-')+1:] + base
	}
	slices.SortFunc(files, func(x, y string) int { return strings.Compare(date(x), date(y)) })
	zstdPath, err := exec.LookPath("zstd")
	if err != nil {
		b.Skipf("zstd command not found: %v", err)
	}
	recBytes, perFile := make([]int64, len(files)), make([]int64, len(files))
	for i, f := range files {
		recBytes[i], perFile[i] = zstdAlone(b, zstdPath, f)
	}
	total, zs := sum(recBytes), sum(perFile)
	ks := []string{"0", "16", "24"}
	if e := os.Getenv("BLOCKWARC_CAPTURE_K"); e != "" {
		ks = strings.Split(e, ",")
	}
	scales := []bool{true, false}
	switch os.Getenv("BLOCKWARC_CAPTURE_SCALED") {
	case "1":
		scales = []bool{true}
	case "0":
		scales = []bool{false}
	}
	for _, scaled := range scales {
		base := int64(0)
		for _, kr := range ks {
			k, err := strconv.Atoi(kr)
			if err != nil {
				b.Fatal(err)
			}
			name := fmt.Sprintf("K%d", k)
			if scaled {
				name += "-scaled"
			}
			arch := filepath.Join(b.TempDir(), "a.bwa")
			opts := Options{MemLimit: 4 << 30}
			opts.Pack.CaptureFrames = k
			if scaled {
				opts.Pack.ChainBytes = scaledFrame
				opts.Pack.SetTestHooks(testhooks.Pack{ChunkFrameSize: scaledFrame})
			}
			var in int64
			first := ""
			var moved int64
			c0 := cpuTime()
			for i, f := range files {
				st, err := Ingest(context.Background(), arch, []string{f}, opts)
				if err != nil {
					b.Fatal(err)
				}
				moved += st.CaptureMoved
				in += recBytes[i]
				if first == "" && in >= total/10 {
					first = filepath.Join(b.TempDir(), "first.bwa")
					if err := os.CopyFS(first, os.DirFS(arch)); err != nil {
						b.Fatal(err)
					}
				}
			}
			cpu := float64(cpuTime()-c0) / 1e9
			size := dirSize(b, arch)
			if base == 0 {
				base = size
			}
			_, p50a, _, deca := restoreSampleCold(b, first, 200)
			_, p50b, _, decb := restoreSampleCold(b, arch, 200)
			p99a, p99b := alternateCold(b, first, arch, 3)
			b.Logf("%-12s archive %8d B (x-zstd-per-file %.4f, %+.2f %% against the first bound), %d objects stored again, ingest %.0f CPU-s; cold restore first tenth p50 %.2f p99 %.2f ms decodes p99 %.3f MB, last p50 %.2f p99 %.2f ms decodes p99 %.3f MB: x-growth p99 %.2f, p50 %.2f, decoded %.2f",
				name, size, float64(size)/float64(zs), 100*(float64(size)/float64(base)-1), moved, cpu,
				p50a, p99a, deca, p50b, p99b, decb, p99b/p99a, p50b/p50a, decb/deca)
			b.ReportMetric(float64(size)/float64(zs), "x-zstd-per-file-"+name)
			b.ReportMetric(cpu, "ingest-cpu-s-"+name)
			b.ReportMetric(float64(size)/float64(base), "x-bytes-vs-first-"+name)
			b.ReportMetric(p99b/p99a, "x-growth-restore-p99-cold-"+name)
			b.ReportMetric(p50b/p50a, "x-growth-restore-p50-cold-"+name)
			b.ReportMetric(decb/deca, "x-growth-restore-decoded-p99-cold-"+name)
			os.RemoveAll(arch)
			os.RemoveAll(first)
		}
	}
}
