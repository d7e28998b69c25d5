package dedupe

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/internal/testhooks"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// BenchmarkCommitCost ingests the four corpus sites (120 MB of records)
// in one ingest, committing every 16 MiB of input as a collection of a
// few GB would at the default 256 MiB, and reports the archive against
// two baselines built in the same run: the same ingest whose commits'
// chunk writers start without the seed of the archive's last frames
// (testhooks.Pack.SeedBytes < 0; x-noseed), and one commit
// (x-one-commit). It also reports the CPU-seconds of the process
// (cgo threads included) of the seeded ingest against the unseeded one
// (x-cpu-noseed): reading the seed back costs a decode and a hash of up
// to 32 MiB of chunks per commit; and the bytes decoded per random
// restore against the unseeded archive's (x-decoded-noseed) and the
// one-commit archive's (x-decoded-one-commit).
func BenchmarkCommitCost(b *testing.B) {
	var inputs []string
	for _, site := range corpusSites {
		inputs = append(inputs, sharedtest.Dir(b, "corpus", site))
	}
	ingest := func(commit int64, seed int) (arch string, size int64, cpu float64) {
		arch = filepath.Join(b.TempDir(), "a.bwa")
		o := Options{CommitBytes: commit}
		o.Pack.SetTestHooks(testhooks.Pack{SeedBytes: seed})
		before := processCPU(b)
		if _, err := Ingest(context.Background(), arch, inputs, o); err != nil {
			b.Fatal(err)
		}
		return arch, archiveBytes(b, arch), (processCPU(b) - before).Seconds()
	}
	var arch, archNoseed, archOne string
	var size, noseed, one int64
	var cpu, cpuNoseed float64
	for range b.N {
		arch, size, cpu = ingest(16<<20, 0)
		b.StopTimer()
		archNoseed, noseed, cpuNoseed = ingest(16<<20, -1)
		archOne, one, _ = ingest(1<<40, 0)
		b.StartTimer()
	}
	b.ReportMetric(float64(size), "archive-B")
	b.ReportMetric(float64(size)/float64(noseed), "x-noseed")
	b.ReportMetric(float64(size)/float64(one), "x-one-commit")
	b.ReportMetric(cpu/cpuNoseed, "x-cpu-noseed")
	// Reused chunks of older commits' frames cost restores more frames
	// (at most chunk.DefaultMaxFrames a version).
	dec, decNoseed := decodedPerRestore(b, arch), decodedPerRestore(b, archNoseed)
	b.ReportMetric(dec/1e6, "decoded-MB-mean")
	b.ReportMetric(dec/decNoseed, "x-decoded-noseed")
	b.ReportMetric(dec/decodedPerRestore(b, archOne), "x-decoded-one-commit")
}

// decodedPerRestore is the mean of the bytes decoded to restore each of
// 1,000 random captures of arch with a 4 MiB cache of decoded frames.
func decodedPerRestore(b *testing.B, arch string) float64 {
	a, vs := openVersions(b, arch)
	defer a.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 1000
	d0 := a.Store().DecodedBytes()
	for range n {
		v := vs[rng.IntN(len(vs))]
		if _, err := a.Restore(&v); err != nil {
			b.Fatal(err)
		}
	}
	return float64(a.Store().DecodedBytes()-d0) / n
}
