package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"blockwarc/internal/sharedtest"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPipelineCPU measures the CPU time of the pipeline on Prism (in
// this process: the runner's own work counts) against 'blockwarc ingest
// -shards N -workers 2 -mem N×256MiB' (its process's user and system
// time), both writing the archive and its tables, on the same inputs,
// alternately, each keeping its least CPU of the rounds.
//
// The inputs are two corpus sites (43 MB of records, N = 2, two rounds),
// or with BEAM_BENCH_MB=M every corpus site copied under distinct names
// into a temporary directory as many times as make at least M MB of
// decompressed input (one round; BEAM_BENCH_SHARDS sets N). Copies
// repeat their records: the ingests store them once, as they would the
// same crawl fetched twice.
//
// Reported: CPU-seconds of each, x-cli (pipeline ÷ CLI CPU; the target
// is ≤ 1.10), the wall-time ratio, the input, the pipeline's largest and
// smallest shard (its records' bytes ÷ the shards' mean; the target is
// within 0.85–1.15) and shuffle-B/B (bytes of the elements sent through
// its shuffles ÷ input bytes). The archives and tables are compared byte
// for byte too.
func BenchmarkPipelineCPU(b *testing.B) {
	rounds, shards := 2, 2
	var inputs []string
	if mb := os.Getenv("BEAM_BENCH_MB"); mb != "" {
		n, err := strconv.Atoi(mb)
		if err != nil || n <= 0 {
			b.Fatalf("BEAM_BENCH_MB=%q: want a number of MB", mb)
		}
		if v := os.Getenv("BEAM_BENCH_SHARDS"); v != "" {
			if shards, err = strconv.Atoi(v); err != nil || shards < 1 {
				b.Fatalf("BEAM_BENCH_SHARDS=%q: want a number of shards", v)
			}
		}
		rounds, inputs = 1, replicate(b, sharedtest.CorpusFiles(b), int64(n)*1e6)
	} else {
		for _, s := range []string{"mkdocs-org", "ota-mektoube"} {
			inputs = append(inputs, sharedtest.Dir(b, "corpus", s))
		}
	}
	ctx := context.Background()
	var cliCPU, beamCPU, cliWall, beamWall time.Duration
	var input, shuffle int64
	var shardBytes []int64
	keep := func(best *time.Duration, d time.Duration) {
		if *best == 0 || d < *best {
			*best = d
		}
	}
	for range b.N {
		for range rounds {
			dir := b.TempDir()
			want, got := filepath.Join(dir, "cli.bwa"), filepath.Join(dir, "beam.bwa")
			cfg := defaults(got, shards)
			// -mem: cfg.Ingest.MemLimit for each shard, the pipeline's.
			args := append([]string{"ingest", "-json", "-workers", "2", "-mem", fmt.Sprintf("%dMiB", shards*int(cfg.Ingest.MemLimit>>20)),
				"-shards", strconv.Itoa(shards), want}, inputs...)
			cmd := exec.Command(cli(b), args...)
			t0 := time.Now()
			out, err := cmd.Output()
			keep(&cliWall, time.Since(t0))
			if err != nil {
				b.Fatalf("blockwarc %v: %v", args, err)
			}
			keep(&cliCPU, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
			var res struct {
				InputBytes int64 `json:"input_bytes"`
			}
			if err := json.Unmarshal(out, &res); err != nil {
				b.Fatalf("blockwarc ingest -json: %v: %s", err, out)
			}
			input = res.InputBytes
			runtime.GC()
			var counters []metrics.CounterResult
			t0, c0 := time.Now(), cpuTime()
			err = Run(ctx, cfg, inputs, func(ctx context.Context, p *beam.Pipeline) error {
				r, err := prism.Execute(ctx, p)
				if r != nil {
					counters = r.Metrics().AllMetrics().Counters()
				}
				return err
			})
			keep(&beamWall, time.Since(t0))
			keep(&beamCPU, cpuTime()-c0)
			if err != nil {
				b.Fatal(err)
			}
			sameArchive(b, got, want, shards)
			shuffle, shardBytes = pipelineCounters(b, counters, shards)
			os.RemoveAll(dir)
		}
	}
	var sum, hi, lo int64
	for i, n := range shardBytes {
		sum += n
		if i == 0 || n > hi {
			hi = n
		}
		if i == 0 || n < lo {
			lo = n
		}
	}
	if sum != input {
		b.Errorf("the shards kept %d bytes of records, the CLI ingested %d", sum, input)
	}
	mean := float64(sum) / float64(len(shardBytes))
	b.SetBytes(input * int64(rounds) * 2)
	b.ReportMetric(cliCPU.Seconds(), "cpu-s-cli")
	b.ReportMetric(beamCPU.Seconds(), "cpu-s-beam")
	b.ReportMetric(beamCPU.Seconds()/cliCPU.Seconds(), "x-cli")
	b.ReportMetric(beamWall.Seconds()/cliWall.Seconds(), "x-cli-wall")
	b.ReportMetric(float64(input)/1e6, "MB-input")
	b.ReportMetric(float64(len(shardBytes)), "shards")
	b.ReportMetric(float64(hi)/mean, "shard-max/mean")
	b.ReportMetric(float64(lo)/mean, "shard-min/mean")
	b.ReportMetric(float64(shuffle)/float64(input), "shuffle-B/B")
}

// pipelineCounters reads the pipeline's counters: the bytes it sent
// through its shuffles and each shard's input bytes (of shards shards at
// least: the cut may make fewer only when the keys leave no more places).
func pipelineCounters(tb testing.TB, counters []metrics.CounterResult, shards int) (shuffle int64, perShard []int64) {
	tb.Helper()
	byShard := map[int]int64{}
	for _, c := range counters {
		if c.Namespace() != metricsNamespace {
			continue
		}
		var i int
		if c.Name() == "shuffle-bytes" {
			shuffle += c.Result()
		} else if _, err := fmt.Sscanf(c.Name(), "shard-%04d-input-bytes", &i); err == nil {
			byShard[i] += c.Result()
		}
	}
	for i := range len(byShard) {
		n, ok := byShard[i]
		if !ok {
			tb.Fatalf("no input-bytes counter of shard %d (of %d)", i, len(byShard))
		}
		perShard = append(perShard, n)
	}
	if shuffle == 0 || len(perShard) < shards {
		tb.Fatalf("the pipeline's counters: %d shuffle bytes, %d shards' input bytes (want %d)", shuffle, len(perShard), shards)
	}
	return shuffle, perShard
}

// replicate copies files into a temporary directory, each copy under a
// name of its own (the copy's index first), as many times over as make
// at least want bytes of decompressed input.
func replicate(tb testing.TB, files []string, want int64) []string {
	tb.Helper()
	var once int64
	for _, f := range files {
		once += gunzippedSize(tb, f)
	}
	dir := tb.TempDir()
	copies := int((want + once - 1) / once)
	for c := range copies {
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				tb.Fatal(err)
			}
			// The site's name too: crawls of two sites may share a date.
			name := fmt.Sprintf("c%02d-%s-%s", c, filepath.Base(filepath.Dir(f)), filepath.Base(f))
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				tb.Fatal(err)
			}
		}
	}
	tb.Logf("%d copies of %d files, %.1f MB decompressed each, in %s", copies, len(files), float64(once)/1e6, dir)
	return []string{dir}
}

// gunzippedSize is the size of a gzip file's decompressed members.
func gunzippedSize(tb testing.TB, name string) int64 {
	tb.Helper()
	f, err := os.Open(name)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	n, err := io.Copy(io.Discard, z)
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	return n
}
