package dedupe

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// BenchmarkIngestRSS builds the blockwarc command and runs `ingest` in a
// child process, reporting its peak RSS in MiB (peak-MiB) and as a ratio
// to the bound, -mem + 256 MiB (x-limit+256MiB, ≤ 1 meets it):
//
//   - corpus: the whole corpus at -mem 256MiB; as baseline, `index -mem
//     256MiB` over the same inputs, which walks and sorts the same records
//     with the same limit (x-index);
//   - large: the generated collection of BenchmarkIngestCores (460 MB,
//     mostly new bytes, so frames of chunks compress all along beside the
//     pack's frames) at -mem 64MiB, the smallest budget a user is told of,
//     where the tables alone are over the budget.
//
// The command is started by a fresh helper process (TestRSSHelper): Linux
// counts in a child's peak RSS the peak of the address space it was
// exec'd from, and Go execs from a vfork sharing the parent's, so a child
// of this (large) benchmark process would report this process's peak.
func BenchmarkIngestRSS(b *testing.B) {
	corpus := sharedtest.Dir(b, "corpus")
	tmp := b.TempDir()
	bin := filepath.Join(tmp, "bw")
	build := exec.Command("go", "build", "-o", bin, "./cmd/blockwarc")
	build.Dir = sharedtest.RepoRoot(b)
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	peak := func(b *testing.B, args ...string) int64 {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestRSSHelper$", "-test.v")
		cmd.Env = append(os.Environ(), "DEDUPE_RSS_COMMAND="+strings.Join(append([]string{bin}, args...), "\x1f"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("blockwarc %v: %v\n%s", args, err, out)
		}
		_, after, ok := bytes.Cut(out, []byte("maxrss="))
		if !ok {
			b.Fatalf("helper printed no maxrss:\n%s", out)
		}
		n, err := strconv.ParseInt(string(bytes.Fields(after)[0]), 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	b.Run("corpus", func(b *testing.B) {
		const limit = 256 << 20
		var inputs []string
		for _, site := range []string{"mkdocs-org", "ota-lovescout24", "ota-mektoube", "ota-tinder"} {
			inputs = append(inputs, filepath.Join(corpus, site))
		}
		var ingest, index int64
		for range b.N {
			arch := filepath.Join(tmp, "a.bwa")
			ingest = max(ingest, peak(b, append([]string{"ingest", "-mem", "256MiB", "-tmp", tmp, arch}, inputs...)...))
			os.RemoveAll(arch)
			cdx := filepath.Join(tmp, "a.cdxj")
			index = max(index, peak(b, append([]string{"index", "-mem", "256MiB", "-tmp", tmp, "-o", cdx}, inputs...)...))
		}
		b.ReportMetric(float64(ingest)/(1<<20), "peak-MiB")
		b.ReportMetric(float64(ingest)/float64(limit+256<<20), "x-limit+256MiB")
		b.ReportMetric(float64(ingest)/float64(index), "x-index")
	})
	b.Run("large", func(b *testing.B) {
		const limit = 64 << 20
		in := coresLarge(b)
		var ingest int64
		for range b.N {
			arch := filepath.Join(tmp, "large.bwa")
			ingest = max(ingest, peak(b, "ingest", "-mem", "64MiB", "-tables=false", "-nice", "0", "-tmp", tmp, arch, in))
			os.RemoveAll(arch)
		}
		b.ReportMetric(float64(ingest)/(1<<20), "peak-MiB")
		b.ReportMetric(float64(ingest)/float64(limit+256<<20), "x-limit+256MiB")
	})
}

// TestRSSHelper runs the command BenchmarkIngestRSS (or BenchmarkScale)
// gives it and prints its peak RSS in bytes and CPU time in ns; it does
// nothing unless started by one.
func TestRSSHelper(t *testing.T) {
	spec := os.Getenv("DEDUPE_RSS_COMMAND")
	if spec == "" {
		t.Skip("helper process of BenchmarkIngestRSS")
	}
	args := strings.Split(spec, "\x1f") // unit separator: not in paths
	cmd := exec.Command(args[0], args[1:]...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Fatal("no rusage on this system")
	}
	fmt.Printf("maxrss=%d cpu=%d\n", ru.Maxrss<<10, ru.Utime.Nano()+ru.Stime.Nano()) // KiB on Linux
}
