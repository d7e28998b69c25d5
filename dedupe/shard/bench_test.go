package shard

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchSites are two corpus sites (two hosts): the 2-shard cut falls
// inside the bigger one.
var benchSites = []string{"mkdocs-org", "ota-mektoube"}

// BenchmarkShardIngest measures ingest of two corpus sites in MB/s of
// decompressed input records, in one run: 1 shard with 1 worker, 1 shard
// with 2 workers, 2 shards with 1 worker each (-shards 2 -workers 2).
// Each setting runs rounds times, alternately, keeping its fastest run
// (wall) and its least CPU. Reported: wall MB/s of each, the speed-ups
// over one worker (x-2workers, x-2shards) and MB/s per CPU-second
// (MB/s-cpu-*, the throughput per core), whose ratio says what shards
// cost in CPU (every shard reads every input). One worker is not one
// core (its frames compress and its input files' zlib check runs beside
// the walk, on the second): the 2-core ÷ 1-core ratio is
// dedupe.BenchmarkIngestCores'.
func BenchmarkShardIngest(b *testing.B) {
	const rounds = 2
	var inputs []string
	for _, s := range benchSites {
		inputs = append(inputs, sharedtest.Dir(b, "corpus", s))
	}
	var input int64
	type setting struct {
		name            string
		shards, workers int
		wall, cpu       time.Duration
	}
	sets := []*setting{{name: "1shard-1worker", shards: 1, workers: 1}, {name: "1shard-2workers", shards: 1, workers: 2},
		{name: "2shards-2workers", shards: 2, workers: 2}}
	run := func(s *setting) {
		arch := filepath.Join(b.TempDir(), "a.bwa")
		runtime.GC()
		t0, c0 := time.Now(), cpuTime()
		res, err := Ingest(context.Background(), arch, inputs, s.shards, dedupe.Options{Workers: s.workers})
		d, c := time.Since(t0), cpuTime()-c0
		if err != nil {
			b.Fatal(err)
		}
		if res.Shards != s.shards {
			b.Fatalf("%s: %d shards", s.name, res.Shards)
		}
		input = res.InputBytes
		os.RemoveAll(arch)
		if s.wall == 0 || d < s.wall {
			s.wall = d
		}
		if s.cpu == 0 || c < s.cpu {
			s.cpu = c
		}
	}
	for range b.N {
		for range rounds {
			for _, s := range sets {
				run(s)
			}
		}
	}
	b.SetBytes(input * rounds * int64(len(sets)))
	mb := float64(input) / 1e6
	for _, s := range sets {
		b.ReportMetric(mb/s.wall.Seconds(), "MB/s-"+s.name)
		b.ReportMetric(mb/s.cpu.Seconds(), "MB/s-cpu-"+s.name)
	}
	b.ReportMetric(sets[0].wall.Seconds()/sets[1].wall.Seconds(), "x-2workers")
	b.ReportMetric(sets[0].wall.Seconds()/sets[2].wall.Seconds(), "x-2shards")
	b.ReportMetric(sets[2].cpu.Seconds()/sets[1].cpu.Seconds(), "cpu-2shards/2workers")
}

// BenchmarkShardCat measures what `blockwarc cat` does — open the archive,
// find a URL's latest capture, restore it, close — for random URLs of two
// corpus sites, on a 2-shard archive and on an unsharded one of the same
// inputs, and reports each p50/p99 and the p99 ratio (target ≤ 1).
func BenchmarkShardCat(b *testing.B) {
	var inputs []string
	for _, s := range benchSites {
		inputs = append(inputs, sharedtest.Dir(b, "corpus", s))
	}
	dir := b.TempDir()
	one, two := filepath.Join(dir, "one.bwa"), filepath.Join(dir, "two.bwa")
	for _, a := range []struct {
		dir    string
		shards int
	}{{one, 1}, {two, 2}} {
		if _, err := Ingest(context.Background(), a.dir, inputs, a.shards, dedupe.Options{Workers: 2}); err != nil {
			b.Fatal(err)
		}
	}
	a, _, err := Open(one, pack.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var urls []string
	a.WalkOrdered(func(u dedupe.URLVersions) error {
		if u.Key != "" {
			urls = append(urls, u.Versions[len(u.Versions)-1].TargetURI)
		}
		return nil
	})
	a.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	pick := make([]string, max(b.N, 1000))
	for i := range pick {
		pick[i] = urls[rng.IntN(len(urls))]
	}
	cat := func(dir, url string) time.Duration {
		t0 := time.Now()
		a, _, err := Open(dir, pack.Options{})
		if err != nil {
			b.Fatal(err)
		}
		v, err := a.Find(url, time.Time{})
		if err == nil {
			_, err = a.Restore(&v)
		}
		a.Close()
		if err != nil {
			b.Fatalf("%s %s: %v", dir, url, err)
		}
		return time.Since(t0)
	}
	var lat [2][]time.Duration
	b.ResetTimer()
	for _, u := range pick {
		// Alternate, so that both see the same load.
		lat[0] = append(lat[0], cat(one, u))
		lat[1] = append(lat[1], cat(two, u))
	}
	q := func(d []time.Duration, p float64) time.Duration {
		slices.Sort(d)
		return d[int(p*float64(len(d)-1))]
	}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	b.ReportMetric(ms(q(lat[0], 0.5)), "p50-ms-1shard")
	b.ReportMetric(ms(q(lat[0], 0.99)), "p99-ms-1shard")
	b.ReportMetric(ms(q(lat[1], 0.5)), "p50-ms-2shards")
	b.ReportMetric(ms(q(lat[1], 0.99)), "p99-ms-2shards")
	b.ReportMetric(float64(q(lat[1], 0.99))/float64(q(lat[0], 0.99)), "x-p99-2shards/1shard")
}
