package main

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/warcio"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPipeline measures the pipeline against 'blockwarc ingest' on
// the same inputs, in one run, as ratios:
//
//   - decompressed/input: input bytes decompressed by the whole pipeline
//     (its decompressed-bytes counter: each presort's read, a second pass
//     over a file with gaps, the member search of a gzip file its presort
//     could not learn) ÷ the
//     inputs' decompressed bytes (stream-bytes). Target ≤ 1.1.
//   - shard-cpu-max/mean: the CPU time of the shard ingests, the largest
//     ÷ their mean (steps run one at a time in this process, each timed
//     alone). Target ≤ 1.25 at 4 shards.
//   - x-cli: the pipeline's CPU on Prism (in this process: the runner's
//     own work counts) ÷ 'blockwarc ingest -shards N' CPU (the same
//     archive, compared byte for byte); x-cli-1: ÷ the CPU of one
//     unsharded ingest; steps-x-cli: the steps' own CPU (one at a time,
//     no runner) ÷ the CLI's. Target ≤ 1.15.
//   - x-2w: the wall time of blockwarc-beam (Prism) on 1 core (taskset,
//     1 lane) ÷ on 2 cores (2 lanes). Target ≥ 1.7 on ≥ 500 MB of
//     records, on a machine nothing else loads (the load average over the
//     run is reported: load-avg).
//   - model-64w-x: the speedup of 64 workers over one that the measured
//     per-step CPU costs give (each stage's tasks scheduled longest
//     first, the stages one after the other: presorts and member
//     searches apart, shard ingests, table parts, finalize), with the shards
//     measured; model-64w64s-x the same with 64 shards, each shard's
//     ingest and tables the mean of the measured ones ÷ 16 (64 ÷ 4
//     shards) times the max/mean measured.
//
// The inputs are two corpus sites (43 MB of records), or with
// BEAM_BENCH_MB=M every corpus site copied under distinct names into a
// temporary directory as many times as make at least M MB of
// decompressed input. BEAM_BENCH_SHARDS sets N (4).
func BenchmarkPipeline(b *testing.B) {
	shards := 4
	var inputs []string
	if v := os.Getenv("BEAM_BENCH_SHARDS"); v != "" {
		var err error
		if shards, err = strconv.Atoi(v); err != nil || shards < 1 {
			b.Fatalf("BEAM_BENCH_SHARDS=%q: want a number of shards", v)
		}
	}
	if mb := os.Getenv("BEAM_BENCH_MB"); mb != "" {
		n, err := strconv.Atoi(mb)
		if err != nil || n <= 0 {
			b.Fatalf("BEAM_BENCH_MB=%q: want a number of MB", mb)
		}
		inputs = replicate(b, sharedtest.CorpusFiles(b), int64(n)*1e6)
	} else {
		for _, s := range []string{"mkdocs-org", "ota-mektoube"} {
			inputs = append(inputs, sharedtest.Dir(b, "corpus", s))
		}
	}
	ctx := context.Background()
	load0 := loadAvg()
	for range b.N {
		dir := b.TempDir()
		want, one := filepath.Join(dir, "cli.bwa"), filepath.Join(dir, "one.bwa")
		cfg := defaults(filepath.Join(dir, "beam.bwa"), shards)
		mem := fmt.Sprintf("%dMiB", shards*int(cfg.Ingest.MemLimit>>20))
		cliCPU, input := cliRun(b, append([]string{"ingest", "-json", "-workers", "2", "-mem", mem, "-shards", strconv.Itoa(shards), want}, inputs...))
		oneCPU, _ := cliRun(b, append([]string{"ingest", "-json", "-workers", "2", "-mem", mem, one}, inputs...))

		// Prism in this process (2 lanes), for its CPU and counters.
		var counters []metrics.CounterResult
		cfg.Lanes = 2
		runtime.GC()
		c0 := cpuTime()
		err := Run(ctx, cfg, inputs, func(ctx context.Context, p *beam.Pipeline) error {
			r, err := prism.Execute(ctx, p)
			if r != nil {
				counters = r.Metrics().AllMetrics().Counters()
			}
			return err
		})
		beamCPU := cpuTime() - c0
		if err != nil {
			b.Fatal(err)
		}
		sameArchive(b, cfg.Archive, want, shards)
		c := readCounters(b, counters, shards)
		// The command on 1 core (1 lane) and on 2 (2 lanes): GOMAXPROCS
		// alone does not bound it to one core (zstd and zlib run in C).
		// Each run's own CPU (user+system of the process) and the share
		// of the machine's two cores busy meanwhile (/proc/stat, every
		// process): a run on two cores that used little more than one
		// core while the machine was busy was held back by the other
		// jobs, one that used one core while the machine idled by
		// itself.
		type wallRun struct {
			wall, cpu time.Duration
			busy      float64
		}
		wall := func(cpus string, lanes int) wallRun {
			arch := filepath.Join(dir, fmt.Sprintf("beam-%dl.bwa", lanes))
			args := append([]string{"-c", cpus, beamCmd(b), "-lanes", strconv.Itoa(lanes), "-shards", strconv.Itoa(shards), arch}, inputs...)
			cmd := exec.Command("taskset", args...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			busy0, total0 := procStat(b)
			t0 := time.Now()
			if err := cmd.Run(); err != nil {
				b.Fatalf("taskset %v: %v\n%s", args, err, out.String())
			}
			r := wallRun{wall: time.Since(t0), cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
			busy1, total1 := procStat(b)
			r.busy = float64(busy1-busy0) / float64(max(total1-total0, 1))
			sameArchive(b, arch, want, shards)
			return r
		}
		r1, r2 := wall("0", 1), wall("0,1", 2)
		wall1, wall2 := r1.wall, r2.wall
		b.ReportMetric(r1.cpu.Seconds(), "cpu-s-1w")
		b.ReportMetric(r2.cpu.Seconds(), "cpu-s-2w")
		b.ReportMetric(r1.cpu.Seconds()/r1.wall.Seconds(), "cores-used-1w")
		b.ReportMetric(r2.cpu.Seconds()/r2.wall.Seconds(), "cores-used-2w")
		b.ReportMetric(r1.busy, "machine-busy-1w")
		b.ReportMetric(r2.busy, "machine-busy-2w")

		// The steps one at a time, each timed.
		steps := runSteps(b, defaults(filepath.Join(dir, "steps.bwa"), shards), inputs)
		sameArchive(b, filepath.Join(dir, "steps.bwa"), want, shards)

		if c.stream != input {
			b.Logf("the inputs' streams are %d bytes, the CLI ingested %d bytes of records", c.stream, input)
		}
		maxShard, meanShard := maxMean(steps.shards)
		b.SetBytes(input)
		b.ReportMetric(float64(input)/1e6, "MB-input")
		b.ReportMetric(float64(len(steps.shards)), "shards")
		b.ReportMetric(float64(c.decompressed)/float64(c.stream), "decompressed/input")
		b.ReportMetric(float64(c.presorted)/float64(c.stream), "presort-read/input")
		b.ReportMetric(maxShard/meanShard, "shard-cpu-max/mean")
		b.ReportMetric(cliCPU.Seconds(), "cpu-s-cli")
		b.ReportMetric(oneCPU.Seconds(), "cpu-s-cli-1")
		b.ReportMetric(beamCPU.Seconds(), "cpu-s-beam")
		b.ReportMetric(steps.total().Seconds(), "cpu-s-steps")
		b.ReportMetric(beamCPU.Seconds()/cliCPU.Seconds(), "x-cli")
		b.ReportMetric(beamCPU.Seconds()/oneCPU.Seconds(), "x-cli-1")
		b.ReportMetric(steps.total().Seconds()/cliCPU.Seconds(), "steps-x-cli")
		b.ReportMetric(wall1.Seconds(), "wall-s-1w")
		b.ReportMetric(wall2.Seconds(), "wall-s-2w")
		b.ReportMetric(wall1.Seconds()/wall2.Seconds(), "x-2w")
		b.ReportMetric(steps.speedup(64, 1), "model-64w-x")
		b.ReportMetric(steps.speedup(64, 64/len(steps.shards)), "model-64w64s-x")
		b.ReportMetric(float64(c.shuffle)/float64(c.stream), "shuffle-B/B")
		b.Logf("per shard: record bytes %v, ingest CPU %v", c.perShard, secs(steps.shards))
		b.Logf("steps' CPU: presorts %.1fs (%d files, their gzip members learnt), member searches apart %.1fs, shard ingests %v, tables %v, finalize %.1fs",
			sum(steps.presort), len(steps.presort), sum(steps.learn), secs(steps.shards), secs(steps.tables), steps.finalize.Seconds())
	}
	b.ReportMetric((load0+loadAvg())/2, "load-avg")
}

var (
	beamOnce sync.Once
	beamPath string
	beamErr  error
)

// beamCmd builds the blockwarc-beam command once per test binary.
func beamCmd(tb testing.TB) string {
	tb.Helper()
	beamOnce.Do(func() {
		dir, err := os.MkdirTemp("", "blockwarc-beam-cmd-")
		if err != nil {
			beamErr = err
			return
		}
		beamPath = filepath.Join(dir, "blockwarc-beam")
		if out, err := exec.Command("go", "build", "-o", beamPath, ".").CombinedOutput(); err != nil {
			beamErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if beamErr != nil {
		tb.Fatal(beamErr)
	}
	return beamPath
}

// cliRun runs the blockwarc command with args (an ingest with -json) and
// returns its CPU time and the record bytes it ingested.
func cliRun(b *testing.B, args []string) (time.Duration, int64) {
	b.Helper()
	cmd := exec.Command(cli(b), args...)
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("blockwarc %v: %v", args, err)
	}
	var res struct {
		InputBytes int64 `json:"input_bytes"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		b.Fatalf("blockwarc ingest -json: %v: %s", err, out)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), res.InputBytes
}

// procStat is the machine's busy and total CPU time so far (jiffies of
// every core, /proc/stat's first line; idle and iowait are not busy).
func procStat(tb testing.TB) (busy, total int64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		tb.Fatal(err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	for i, f := range strings.Fields(line)[1:] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			tb.Fatalf("/proc/stat: %q", line)
		}
		if i >= 8 { // guest time, counted in user's already
			break
		}
		total += n
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy, total
}

// loadAvg is the machine's 1-minute load average.
func loadAvg() float64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	return float64(si.Loads[0]) / 65536
}

// stepCosts are the CPU times of the pipeline's steps run one at a time.
type stepCosts struct {
	presort, learn []time.Duration // by file
	shards, tables []time.Duration // by shard
	other          time.Duration   // sample merge and cut
	finalize       time.Duration
}

func (c stepCosts) total() time.Duration {
	t := c.other + c.finalize
	for _, l := range [][]time.Duration{c.presort, c.learn, c.shards, c.tables} {
		for _, d := range l {
			t += d
		}
	}
	return t
}

// makespan schedules tasks on w workers, longest first, each on the
// worker free first, and returns when the last ends.
func makespan(tasks []time.Duration, w int) time.Duration {
	tasks = slices.Clone(tasks)
	slices.SortFunc(tasks, func(a, b time.Duration) int { return cmp.Compare(b, a) })
	free := make([]time.Duration, w)
	for _, t := range tasks {
		i := slices.Index(free, slices.Min(free))
		free[i] += t
	}
	return slices.Max(free)
}

// wall is the model's wall time on w workers, with each shard split into
// split shards (of equal cost, the mean's share times max/mean).
func (c stepCosts) wall(w, split int) time.Duration {
	spread := func(ds []time.Duration) []time.Duration {
		if split <= 1 {
			return ds
		}
		hi, mean := maxMean(ds)
		out := make([]time.Duration, len(ds)*split)
		for i := range out {
			out[i] = time.Duration(mean / float64(split) * hi / mean)
		}
		return out
	}
	read := append(slices.Clone(c.presort), c.learn...)
	return c.other + c.finalize + makespan(read, w) + makespan(spread(c.shards), w) + makespan(spread(c.tables), w)
}

// speedup is the model's wall time on one worker ÷ on w.
func (c stepCosts) speedup(w, split int) float64 {
	return float64(c.wall(1, split)) / float64(c.wall(w, split))
}

func maxMean(ds []time.Duration) (hi, mean float64) {
	for _, d := range ds {
		hi = max(hi, d.Seconds())
		mean += d.Seconds()
	}
	return hi, mean / float64(len(ds))
}

func sum(ds []time.Duration) float64 {
	var t float64
	for _, d := range ds {
		t += d.Seconds()
	}
	return t
}

func secs(ds []time.Duration) string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = fmt.Sprintf("%.1fs", d.Seconds())
	}
	return "[" + strings.Join(out, " ") + "]"
}

// runSteps runs the pipeline's steps one at a time in this process, as
// a runner would call them (their counters count nothing outside one),
// timing each, and publishes the archive.
func runSteps(b *testing.B, cfg Config, inputs []string) stepCosts {
	b.Helper()
	ctx := context.Background()
	var c stepCosts
	files, err := warcio.ExpandInputs(inputs)
	if err != nil {
		b.Fatal(err)
	}
	timed := func(f func() error) time.Duration {
		runtime.GC()
		c0 := cpuTime()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		return cpuTime() - c0
	}
	var reads []fileRead
	var learns []learnt
	for _, f := range files {
		c.presort = append(c.presort, timed(func() error {
			return (&presortFn{Cfg: cfg}).ProcessElement(ctx, f, func(r fileRead) { reads = append(reads, r) })
		}))
		c.learn = append(c.learn, timed(func() error {
			return (&learnFn{Cfg: cfg}).ProcessElement(ctx, reads[len(reads)-1], func(_ int, l learnt) { learns = append(learns, l) })
		}))
	}
	var boundaries []string
	c.other = timed(func() error {
		merged := reads[0].Sample
		for _, r := range reads[1:] {
			var err error
			if merged, err = mergeSamples(merged, r.Sample); err != nil {
				return err
			}
		}
		return (&cutFn{Shards: cfg.Shards}).ProcessElement(merged, func(bs []string) { boundaries = bs })
	})
	var done []shardDone
	for i := range len(boundaries) + 1 {
		var ins []shardInput
		for _, r := range reads {
			ins = append(ins, shardInput{File: r.File, Part: r.Part, Boundaries: boundaries})
		}
		var ls []learnt
		if i == 0 {
			ls = learns
		}
		c.shards = append(c.shards, timed(func() error {
			return (&ingestShardFn{Cfg: cfg}).ProcessElement(ctx, i, iter(ins), iter(ls), func(d shardDone) { done = append(done, d) })
		}))
	}
	var tabled []shardDone
	for _, d := range done {
		c.tables = append(c.tables, timed(func() error {
			return (&tablesFn{Cfg: cfg}).ProcessElement(ctx, d, func(d shardDone) { tabled = append(tabled, d) })
		}))
	}
	c.finalize = timed(func() error { return (&finalizeFn{Cfg: cfg}).ProcessElement(ctx, 0, iter(tabled)) })
	return c
}

// iter is a Beam iterator over xs.
func iter[T any](xs []T) func(*T) bool {
	return func(x *T) bool {
		if len(xs) == 0 {
			return false
		}
		*x, xs = xs[0], xs[1:]
		return true
	}
}

// pipelineCounters are the pipeline's counters: the bytes it sent
// through its shuffles, the input bytes it decompressed and the inputs'
// stream bytes, and each shard's record bytes.
type pipelineCounters struct {
	shuffle, decompressed, presorted, stream int64
	perShard                                 []int64
}

// readCounters reads the pipeline's counters (of shards shards at
// least: the cut may make fewer only when the keys leave no more places).
func readCounters(tb testing.TB, counters []metrics.CounterResult, shards int) pipelineCounters {
	tb.Helper()
	var c pipelineCounters
	byShard := map[int]int64{}
	for _, r := range counters {
		if r.Namespace() != metricsNamespace {
			continue
		}
		var i int
		switch r.Name() {
		case "shuffle-bytes":
			c.shuffle += r.Result()
		case "decompressed-bytes":
			c.decompressed += r.Result()
		case "presorted-bytes":
			c.presorted += r.Result()
		case "stream-bytes":
			c.stream += r.Result()
		default:
			if _, err := fmt.Sscanf(r.Name(), "shard-%04d-input-bytes", &i); err == nil {
				byShard[i] += r.Result()
			}
		}
	}
	for i := range len(byShard) {
		n, ok := byShard[i]
		if !ok {
			tb.Fatalf("no input-bytes counter of shard %d (of %d)", i, len(byShard))
		}
		c.perShard = append(c.perShard, n)
	}
	if c.shuffle == 0 || c.stream == 0 || c.decompressed == 0 || len(c.perShard) < shards {
		tb.Fatalf("the pipeline's counters: %+v (want %d shards)", c, shards)
	}
	return c
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
