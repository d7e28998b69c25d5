package main

import (
	"flag"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

var (
	killTrials = flag.Int("kill-trials", 6, "trials of TestKillFaults (make faults: 20)")
	killSeed   = flag.Uint64("kill-seed", 34, "seed of TestKillFaults' kill points")
)

// TestKillFaults (make faults) kills blockwarc with SIGKILL at random
// moments of an ingest into a new archive, of an extending ingest, and
// of a repair that re-ingests a deleted pack from the originals; the
// same command run again must leave every file of the archive identical
// to what one uninterrupted run leaves. The seed is printed: a failure
// is replayed with -kill-seed.
func TestKillFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("the fault suite: make faults")
	}
	bin := buildBinary(t)
	inputs, commit := killInput(t)
	base, ext := inputs[:len(inputs)/2], inputs[len(inputs)/2:]
	root := t.TempDir()
	t.Logf("seed %d (-kill-seed), %d trials", *killSeed, *killTrials)

	type op struct {
		name  string
		start string // the archive the command starts from ("" for none)
		args  func(arch string) []string
		ref   map[string][]byte
		took  time.Duration
	}
	ingestArgs := func(files []string) func(string) []string {
		return func(arch string) []string {
			return append([]string{"ingest", "-tables=false", "-workers", "2", "-commit", commit, arch}, files...)
		}
	}
	ops := []*op{
		{name: "ingest", args: ingestArgs(base)},
		{name: "extend", args: ingestArgs(ext)},
		{name: "repair", args: func(arch string) []string { return append([]string{"repair", arch}, inputs...) }},
	}
	// The references, one uninterrupted run each: ingest, then extend
	// that archive, then repair it once its pack is deleted.
	prev := ""
	for _, o := range ops {
		o.start = filepath.Join(root, "start-"+o.name+".bwa")
		if prev != "" {
			sharedtest.CopyDir(t, prev, o.start)
		}
		if o.name == "repair" {
			packs, _ := filepath.Glob(filepath.Join(o.start, "*.pack"))
			if len(packs) == 0 {
				t.Fatal("no pack to delete")
			}
			os.Remove(packs[0])
		}
		ref := filepath.Join(root, "ref-"+o.name+".bwa")
		if prev != "" {
			sharedtest.CopyDir(t, o.start, ref)
		}
		began := time.Now()
		if out, err := exec.Command(bin, o.args(ref)...).CombinedOutput(); err != nil {
			t.Fatalf("one-pass %s: %v\n%s", o.name, err, out)
		}
		o.took = time.Since(began)
		o.ref = sharedtest.ArchiveFiles(t, ref)
		prev = ref
		if o.name == "ingest" {
			o.start = ""
		}
	}

	rng := rand.New(rand.NewPCG(*killSeed, 34))
	kills := map[string]int{}
	for trial := range *killTrials {
		o := ops[trial%len(ops)]
		arch := filepath.Join(t.TempDir(), "a.bwa")
		if o.start != "" {
			sharedtest.CopyDir(t, o.start, arch)
		}
		delay := time.Duration(rng.Int64N(int64(o.took) + 1))
		cmd := exec.Command(bin, o.args(arch)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		killed := true
		select {
		case <-exited:
			killed = false
		case <-time.After(delay):
		}
		cmd.Process.Kill() // SIGKILL; a no-op when it exited
		<-exited
		if killed {
			kills[o.name]++
		}
		what := o.name + " killed after " + delay.String()
		if !killed {
			what = o.name + " (finished before the kill at " + delay.String() + ")"
		}
		if out, err := exec.Command(bin, o.args(arch)...).CombinedOutput(); err != nil {
			t.Fatalf("trial %d (%s): re-run: %v\n%s", trial, what, err, out)
		}
		if d := diffArchives(sharedtest.ArchiveFiles(t, arch), o.ref); len(d) > 0 {
			t.Errorf("trial %d (%s): archive differs from one uninterrupted run: %s", trial, what, strings.Join(d, ", "))
		}
	}
	t.Logf("killed mid-run: %v of %d trials; every archive identical to one run's", kills, *killTrials)
	// Delays are drawn below each command's one-pass time: most runs
	// must be cut, or the test checks little.
	if n := kills["ingest"] + kills["extend"] + kills["repair"]; n < *killTrials/2 {
		t.Errorf("only %d of %d runs were killed before they ended", n, *killTrials)
	}
}
