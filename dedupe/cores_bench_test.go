package dedupe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/gencrawl"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// coresChildEnv, when set, makes the test binary an ingest run by
// BenchmarkIngestCores (TestMain): its value is a coresJob in JSON.
const coresChildEnv = "BLOCKWARC_CORES_CHILD"

type coresJob struct {
	Archive string
	Inputs  []string
	Workers int
}

func TestMain(m *testing.M) {
	if spec := os.Getenv(coresChildEnv); spec != "" {
		os.Exit(coresChild(spec))
	}
	os.Exit(m.Run())
}

// coresChild runs the ingest of spec and prints its input bytes.
func coresChild(spec string) int {
	var j coresJob
	if err := json.Unmarshal([]byte(spec), &j); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	st, err := Ingest(context.Background(), j.Archive, j.Inputs,
		Options{Workers: j.Workers, Pack: pack.Options{Workers: j.Workers}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(st.InputBytes)
	return 0
}

// BenchmarkIngestCores measures what a second core gives ingest (issue
// 17: the 2-core ÷ 1-core ratio, ≥ 1.8): one ingest of the four corpus
// sites (about 120 MB of records, long enough that the frames' last
// compression and the commit are a small part) in a process that may run
// on one CPU only, with one worker, against one on two CPUs with two
// workers (`ingest -workers`' default there). The process is this test
// binary again (TestMain), started from a thread whose CPU affinity is
// set, which it inherits: Go then sizes GOMAXPROCS to it, and the cgo
// compressors' threads inherit it too, so "one core" is one core, not one
// worker with background goroutines on two (which `ingest -workers 1`
// is: its frames compress and its input files' zlib check runs beside
// the walk). Reports MB/s of input records per wall second on each
// (MB/s-1core, MB/s-2cores), their ratio (x-1core), and MB per
// CPU-second of the two-core run (MB/s-cpu-2cores; how much of the second
// core goes to coordination). Runs alternate, rounds each, keeping each
// setting's fastest: the one least slowed by other load.
//
// Two inputs (issue 33 asks for the ratio on at least 500 MB): "corpus",
// the four sites, and "large", the four sites and a generated collection
// of about 460 MB more (coresLarge), two rounds each.
func BenchmarkIngestCores(b *testing.B) {
	b.Run("corpus", func(b *testing.B) {
		var ins []string
		for _, site := range corpusSites {
			ins = append(ins, sharedtest.Dir(b, "corpus", site))
		}
		benchCores(b, ins, 3)
	})
	b.Run("large", func(b *testing.B) {
		var ins []string
		for _, site := range corpusSites {
			ins = append(ins, sharedtest.Dir(b, "corpus", site))
		}
		benchCores(b, append(ins, coresLarge(b)), 2)
	})
}

// coresLarge writes, in a directory it returns, a generated collection
// (internal/gencrawl) of about 460 MB of records: three sites of 1,200
// pages of 9 KB, each crawled ten times with a tenth of its pages edited
// between crawls, and the first site mirrored under another host. It
// models the bulk of a domain crawl (repeated pages, edits, mirrors),
// not real markup: the corpus sites beside it are real. Uncompressed
// WARC files, so the inputs' zlib proof covers the corpus part only.
func coresLarge(b *testing.B) string {
	dir := b.TempDir()
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for s := range 3 {
		pages := gencrawl.Site(uint64(100+s), 1200, 9000)
		for c := range 10 {
			if c > 0 {
				pages = gencrawl.Edit(pages, 10, uint64(1000*s+c))
			}
			t := t0.AddDate(0, 0, 7*c)
			hosts := []string{fmt.Sprintf("http://site%d.example", s)}
			if s == 0 {
				hosts = append(hosts, "http://mirror.example")
			}
			for h, host := range hosts {
				p := filepath.Join(dir, fmt.Sprintf("site%d-%d-crawl%02d.warc", s, h, c))
				if err := gencrawl.WriteWARC(p, host, t, pages); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	return dir
}

// benchCores is BenchmarkIngestCores of the inputs ins, rounds rounds.
func benchCores(b *testing.B, ins []string, rounds int) {
	var all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		b.Fatal(err)
	}
	var cpus []int
	for c := 0; c < 1024 && len(cpus) < 2; c++ {
		if all.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) < 2 {
		b.Fatalf("BenchmarkIngestCores needs two CPUs; this process may use %d", all.Count())
	}
	var input int64
	run := func(n int) (wall, cpu time.Duration) {
		arch := filepath.Join(b.TempDir(), "a.bwa")
		spec, err := json.Marshal(coresJob{Archive: arch, Inputs: ins, Workers: n})
		if err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(os.Args[0])
		// GOMAXPROCS in the environment would override the affinity.
		cmd.Env = append(slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, "GOMAXPROCS=") }),
			coresChildEnv+"="+string(spec))
		cmd.Stderr = os.Stderr
		var out []byte
		wall, err = timeChild(cmd, cpus[:n], &out)
		if err != nil {
			b.Fatalf("ingest on %d CPU(s): %v", n, err)
		}
		if _, err := fmt.Sscan(string(out), &input); err != nil {
			b.Fatalf("ingest on %d CPU(s) printed %q: %v", n, out, err)
		}
		os.RemoveAll(arch)
		return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	var one, two, twoCPU time.Duration
	for range b.N {
		for range rounds {
			if w, _ := run(1); one == 0 || w < one {
				one = w
			}
			if w, c := run(2); two == 0 || w < two {
				two, twoCPU = w, c
			}
		}
	}
	b.SetBytes(input * int64(rounds) * 2)
	mb := float64(input) / 1e6
	b.ReportMetric(mb/one.Seconds(), "MB/s-1core")
	b.ReportMetric(mb/two.Seconds(), "MB/s-2cores")
	b.ReportMetric(one.Seconds()/two.Seconds(), "x-1core")
	b.ReportMetric(mb/twoCPU.Seconds(), "MB/s-cpu-2cores")
}

// timeChild runs cmd on the CPUs cpus (its affinity, inherited from the
// thread that starts it) and returns its wall time and standard output.
func timeChild(cmd *exec.Cmd, cpus []int, out *[]byte) (time.Duration, error) {
	runtime.LockOSThread()
	var was, set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &was); err != nil {
		runtime.UnlockOSThread()
		return 0, err
	}
	for _, c := range cpus {
		set.Set(c)
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		runtime.UnlockOSThread()
		return 0, err
	}
	var buf bytes.Buffer
	cmd.Stdout = &buf
	t0 := time.Now()
	err := cmd.Start()
	// A thread whose affinity cannot be put back stays locked: the
	// goroutine's end then ends the thread, and no other goroutine runs
	// on one CPU.
	if rerr := unix.SchedSetaffinity(0, &was); rerr != nil {
		if err == nil {
			cmd.Wait()
		}
		return 0, rerr
	}
	runtime.UnlockOSThread()
	if err != nil {
		return 0, err
	}
	err = cmd.Wait()
	*out = buf.Bytes()
	return time.Since(t0), err
}
