package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

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
// -shards 2 -workers 2 -mem 512MiB' (its process's user and system
// time), both writing the archive and its tables, on the same two corpus
// sites, alternately, each keeping its least CPU of rounds runs.
// Reported: CPU-seconds of each, x-cli (pipeline ÷ CLI CPU; the target
// is ≤ 1.10) and the wall-time ratio. The archives and tables are
// compared byte for byte too.
func BenchmarkPipelineCPU(b *testing.B) {
	const rounds = 2
	var inputs []string
	for _, s := range []string{"mkdocs-org", "ota-mektoube"} {
		inputs = append(inputs, sharedtest.Dir(b, "corpus", s))
	}
	ctx := context.Background()
	var cliCPU, beamCPU, cliWall, beamWall time.Duration
	var input int64
	keep := func(best *time.Duration, d time.Duration) {
		if *best == 0 || d < *best {
			*best = d
		}
	}
	for range b.N {
		for range rounds {
			dir := b.TempDir()
			want, got := filepath.Join(dir, "cli.bwa"), filepath.Join(dir, "beam.bwa")
			cfg := defaults(got, 2)
			// -mem: twice cfg.MemLimit, the shards' share as the pipeline's.
			args := append([]string{"ingest", "-json", "-workers", "2", "-mem", "512MiB", "-shards", "2", want}, inputs...)
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
			t0, c0 := time.Now(), cpuTime()
			err = Run(ctx, cfg, inputs, onPrism)
			keep(&beamWall, time.Since(t0))
			keep(&beamCPU, cpuTime()-c0)
			if err != nil {
				b.Fatal(err)
			}
			sameArchive(b, got, want, 2)
			os.RemoveAll(dir)
		}
	}
	b.SetBytes(input * rounds * 2)
	b.ReportMetric(cliCPU.Seconds(), "cpu-s-cli")
	b.ReportMetric(beamCPU.Seconds(), "cpu-s-beam")
	b.ReportMetric(beamCPU.Seconds()/cliCPU.Seconds(), "x-cli")
	b.ReportMetric(beamWall.Seconds()/cliWall.Seconds(), "x-cli-wall")
	b.ReportMetric(float64(input)/1e6, "MB-input")
}
