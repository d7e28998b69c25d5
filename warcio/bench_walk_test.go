package warcio

import (
	"context"
	"io"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// cpuNow returns the CPU time (user + system) this process has used. The
// benchmarks compare CPU time on one core (GOMAXPROCS 1), not wall time,
// so that other processes on a shared machine do not skew the ratios.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func oneCore(f func() error) (time.Duration, error) {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	runtime.GC()
	start := cpuNow()
	err := f()
	return cpuNow() - start, err
}

// gunzipFiles is the baseline: klauspost gzip decompression of every
// member of every file, nothing else.
func gunzipFiles(files []string) (int64, error) {
	var n int64
	var zr gzip.Reader
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return 0, err
		}
		if err := zr.Reset(f); err != nil {
			f.Close()
			return 0, err
		}
		m, err := io.Copy(io.Discard, &zr)
		f.Close()
		if err != nil {
			return 0, err
		}
		n += m
	}
	return n, nil
}

// BenchmarkWalk walks the corpus (about 350 crawls, 140 MB of WARC) in
// capture order carrying every block, on one core: sorted in memory, and
// forced to spill with a 4 MiB limit (hundreds of zstd runs, multi-level
// merge). x-gzip is the CPU time of plain gzip decompression of the same
// files, measured in the same run, over ours (target >= 0.6 when spilling).
func BenchmarkWalk(b *testing.B) {
	files := sharedtest.CorpusFiles(b)
	if len(files) < 300 {
		b.Fatalf("corpus incomplete: %d files", len(files))
	}
	raw, err := gunzipFiles(files)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name  string
		limit int64
	}{{"mem", DefaultWalkMemLimit}, {"spill-4MiB", 4 << 20}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(raw)
			b.ReportAllocs()
			var ours, gz time.Duration
			runs := 0
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				d, err := oneCore(func() error { _, err := gunzipFiles(files); return err })
				if err != nil {
					b.Fatal(err)
				}
				gz += d
				tmp := b.TempDir()
				b.StartTimer()
				d, err = oneCore(func() error {
					st, err := Walk(context.Background(), files, WalkOptions{MemLimit: bc.limit, TempDir: tmp},
						func(c *Capture) error {
							_, err := io.Copy(io.Discard, c.Body)
							return err
						})
					runs = st.Runs
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
				ours += d
			}
			b.ReportMetric(float64(runs), "runs")
			b.ReportMetric(gz.Seconds()/ours.Seconds(), "x-gzip")
		})
	}
}
