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
	killTrials = flag.Int("kill-trials", 9, "trials of TestKillFaults, one per operation in turn (make faults: 27)")
	killSeed   = flag.Uint64("kill-seed", 34, "seed of TestKillFaults' kill points")
)

// TestKillFaults (make faults) kills blockwarc with SIGKILL at random
// moments of an ingest into a new archive, of an extending ingest, of a
// repair that re-ingests a deleted pack from the originals, of a repair
// of the repaired archive whose COMMIT and COMMIT.copy were both deleted
// (the commit made again from the packs), of a compact
// into a new archive, of an ingest that writes its tables, of a prove,
// of a sharded ingest and of an upgrade of a format-9 archive; the
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
		seq   int64 // the one-pass run's last commit
		took  time.Duration
	}
	ingestArgs := func(files []string) func(string) []string {
		return func(arch string) []string {
			return append([]string{"ingest", "-tables=false", "-workers", "2", "-commit", commit, arch}, files...)
		}
	}
	compactSrc := filepath.Join(root, "compact-source.bwa") // the extended archive, never written
	ops := []*op{
		{name: "ingest", args: ingestArgs(base)},
		{name: "extend", args: ingestArgs(ext)},
		{name: "repair", args: func(arch string) []string { return append([]string{"repair", arch}, inputs...) }},
		// Both commit files lost: the commit made again from the packs
		// (dedupe.RebuildCommit), then the repair as any.
		{name: "recommit", args: func(arch string) []string { return append([]string{"repair", arch}, inputs...) }},
		{name: "compact", args: func(arch string) []string {
			return []string{"compact", "-tables=false", "-workers", "2", "-commit", commit, compactSrc, arch}
		}},
		// An extending ingest that rewrites the archive's tables: killed
		// while it writes them, too (the kill falls in the run's last
		// half), the re-run must leave the tables one run writes.
		{name: "tables", args: func(arch string) []string {
			return append([]string{"ingest", "-workers", "2", "-commit", commit, arch}, ext...)
		}},
		// The proof of the extended archive's input files, one commit.
		{name: "prove", args: func(arch string) []string { return append([]string{"prove", arch}, inputs...) }},
		// A sharded ingest into a new archive: two shards, one manifest.
		{name: "shards", args: func(arch string) []string {
			return append([]string{"ingest", "-tables=false", "-shards", "2", "-workers", "2", "-commit", commit, arch}, base...)
		}},
		// An archive of format 9 rewritten at the current one, in place
		// (through a directory beside it).
		{name: "upgrade", args: func(arch string) []string { return []string{"upgrade", arch} }},
	}
	// The references, one uninterrupted run each: ingest, then extend
	// that archive, then repair it once its pack is deleted, and once
	// its commit files are; compact of the repaired archive and an
	// ingest with tables into new ones; prove of the extended archive; a
	// sharded ingest into a new one; upgrade of a format-9 archive.
	prev := ""
	refs := map[string]string{}
	for _, o := range ops {
		fresh := o.name == "ingest" || o.name == "compact" || o.name == "shards"
		if o.name == "compact" {
			sharedtest.CopyDir(t, prev, compactSrc)
		}
		if o.name == "tables" {
			// The base with its tables, which the extension rewrites.
			prev = filepath.Join(root, "tables-base.bwa")
			args := append([]string{"ingest", "-workers", "2", "-commit", commit, prev}, base...)
			if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
				t.Fatalf("base with tables: %v\n%s", err, out)
			}
		}
		if !fresh {
			o.start = filepath.Join(root, "start-"+o.name+".bwa")
			from := prev
			switch o.name {
			case "prove":
				from = refs["extend"]
			case "upgrade":
				from = filepath.Join(sharedtest.RepoRoot(t), "dedupe", "testdata", "v9.bwa")
			}
			sharedtest.CopyDir(t, from, o.start)
		}
		if o.name == "recommit" {
			for _, n := range []string{"COMMIT", "COMMIT.copy"} {
				if err := os.Remove(filepath.Join(o.start, n)); err != nil {
					t.Fatal(err)
				}
			}
		}
		if o.name == "repair" {
			packs, _ := filepath.Glob(filepath.Join(o.start, "*.pack"))
			if len(packs) == 0 {
				t.Fatal("no pack to delete")
			}
			os.Remove(packs[0])
		}
		ref := filepath.Join(root, "ref-"+o.name+".bwa")
		if o.start != "" {
			sharedtest.CopyDir(t, o.start, ref)
		}
		began := time.Now()
		if out, err := exec.Command(bin, o.args(ref)...).CombinedOutput(); err != nil {
			t.Fatalf("one-pass %s: %v\n%s", o.name, err, out)
		}
		o.took = time.Since(began)
		o.ref, o.seq = sharedtest.ArchiveFiles(t, ref), commitSeq(ref)
		if _, ok := o.ref["tables/GENERATION"]; ok != (o.name == "tables") {
			t.Fatalf("one-pass %s: tables written %v", o.name, ok)
		}
		refs[o.name] = ref
		if o.name == "ingest" || o.name == "extend" || o.name == "repair" {
			prev = ref
		}
	}

	rng := rand.New(rand.NewPCG(*killSeed, 34))
	kills := map[string]int{}
	// attempt runs o once, killed after delay (tables: after its last
	// commit), runs it again and compares; it says whether the kill
	// fell before the command ended.
	attempt := func(trial int, o *op, delay time.Duration) bool {
		arch := filepath.Join(t.TempDir(), "a.bwa")
		if o.start != "" {
			sharedtest.CopyDir(t, o.start, arch)
		}
		cmd := exec.Command(bin, o.args(arch)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		killAt := time.After(delay)
		if o.name == "tables" {
			// The kill falls while the tables are being written: after
			// the last commit (the one-pass run's), within a few
			// milliseconds (they are streamed during the ingest and
			// only published after it).
			delay = time.Duration(rng.Int64N(int64(5 * time.Millisecond)))
			killAt = whenCommitted(arch, o.seq, delay, exited)
		}
		killed := true
		select {
		case <-exited:
			killed = false
		case <-killAt:
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
		if o.name == "tables" && killed && tablesDiffer(sharedtest.ArchiveFiles(t, arch), o.ref) {
			kills["stale tables"]++
		}
		if out, err := exec.Command(bin, o.args(arch)...).CombinedOutput(); err != nil {
			t.Fatalf("trial %d (%s): re-run: %v\n%s", trial, what, err, out)
		}
		if d := diffArchives(sharedtest.ArchiveFiles(t, arch), o.ref); len(d) > 0 {
			t.Errorf("trial %d (%s): archive differs from one uninterrupted run: %s", trial, what, strings.Join(d, ", "))
		}
		return killed
	}
	for trial := range *killTrials {
		o := ops[trial%len(ops)]
		delay := time.Duration(rng.Int64N(int64(o.took) + 1))
		// A run that ended before its kill (the machine was faster than
		// in the one-pass run) is checked too, then tried again with
		// half the delay: the one-pass time is measured once, on a
		// shared machine whose load changes.
		for try := 0; !attempt(trial, o, delay) && try < 3; try++ {
			delay /= 2
		}
	}
	t.Logf("killed mid-run: %v of %d trials; every archive identical to one run's", kills, *killTrials)
	// Delays are drawn below each command's one-pass time: most runs
	// must be cut, or the test checks little.
	n := 0
	for op, k := range kills {
		if op != "stale tables" {
			n += k
		}
	}
	if kills["tables"] > 0 && kills["stale tables"] == 0 {
		t.Errorf("%d ingests killed while they wrote their tables, none left them stale: the kill missed", kills["tables"])
	}
	if n < *killTrials/2 {
		t.Errorf("only %d of %d runs were killed before they ended", n, *killTrials)
	}
}

// whenCommitted fires after delay once arch's COMMIT has generation
// seq (the ingest's last commit: the tables are written after it).
func whenCommitted(arch string, seq int64, delay time.Duration, exited <-chan struct{}) <-chan time.Time {
	at := make(chan time.Time, 1)
	go func() {
		for commitSeq(arch) != seq {
			select {
			case <-exited:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
		time.Sleep(delay)
		at <- time.Now()
	}()
	return at
}

// tablesDiffer tells whether the tables in got are not the ones in want.
func tablesDiffer(got, want map[string][]byte) bool {
	for _, d := range diffArchives(got, want) {
		if strings.HasPrefix(d, "tables") {
			return true
		}
	}
	return false
}
