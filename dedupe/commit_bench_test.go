package dedupe

import (
	"context"
	"path/filepath"
	"testing"

	"blockwarc/internal/sharedtest"
)

// BenchmarkCommitCost ingests the four corpus sites (120 MB of records)
// in one ingest, committing every 16 MiB of input as a collection of a
// few GB would at the default 256 MiB, and reports the archive against
// two baselines built in the same run: the same ingest whose commits'
// chunk writers start without the seed of the archive's last frames
// (pack.Options.SeedBytes < 0; x-noseed), and one commit
// (x-one-commit). It also reports the CPU-seconds of the process
// (cgo threads included) of the seeded ingest against the unseeded one
// (x-cpu-noseed): reading the seed back costs a decode and a hash of up
// to 32 MiB of chunks per commit.
func BenchmarkCommitCost(b *testing.B) {
	var inputs []string
	for _, site := range corpusSites {
		inputs = append(inputs, sharedtest.Dir(b, "corpus", site))
	}
	ingest := func(commit int64, seed int) (size int64, cpu float64) {
		arch := filepath.Join(b.TempDir(), "a.bwa")
		o := Options{CommitBytes: commit}
		o.Pack.SeedBytes = seed
		before := processCPU(b)
		if _, err := Ingest(context.Background(), arch, inputs, o); err != nil {
			b.Fatal(err)
		}
		return archiveBytes(b, arch), (processCPU(b) - before).Seconds()
	}
	var size, noseed, one int64
	var cpu, cpuNoseed float64
	for range b.N {
		size, cpu = ingest(16<<20, 0)
		b.StopTimer()
		noseed, cpuNoseed = ingest(16<<20, -1)
		one, _ = ingest(1<<40, 0)
		b.StartTimer()
	}
	b.ReportMetric(float64(size), "archive-B")
	b.ReportMetric(float64(size)/float64(noseed), "x-noseed")
	b.ReportMetric(float64(size)/float64(one), "x-one-commit")
	b.ReportMetric(cpu/cpuNoseed, "x-cpu-noseed")
}
