package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/dedupe/shard"
)

// killHelperEnv, set in a process of this test binary, makes TestMain run
// the pipeline job it holds (killJob, JSON) instead of the tests: the
// process TestKilled kills.
const killHelperEnv = "BLOCKWARC_BEAM_KILL_HELPER"

// killJob is a run of the pipeline in a helper process. With Stop set,
// the process writes Marker when the pipeline reaches that point (at)
// and waits there to be killed.
type killJob struct {
	Cfg    Config
	Inputs []string
	Stop   string
	Marker string
}

// runKillHelper runs the job in the environment (TestMain): exit 0 when
// the pipeline completed, 1 when it failed.
func runKillHelper(enc string) int {
	var j killJob
	if err := json.Unmarshal([]byte(enc), &j); err != nil {
		fmt.Fprintf(os.Stderr, "kill helper: %v\n", err)
		return 1
	}
	if j.Stop != "" {
		reached = func(point string) {
			if point != j.Stop {
				return
			}
			if err := os.WriteFile(j.Marker, []byte(point), 0o644); err != nil {
				fmt.Fprintf(os.Stderr, "kill helper: %v\n", err)
				os.Exit(1)
			}
			select {} // killed here
		}
	}
	if err := Run(context.Background(), j.Cfg, j.Inputs, onPrism); err != nil {
		fmt.Fprintf(os.Stderr, "kill helper: %v\n", err)
		return 1
	}
	return 0
}

// killRun starts the job in a helper process and kills it (SIGKILL, the
// whole process group: Prism and its workers run in it) when it reaches
// j.Stop, or after delay when j.Stop is empty. It reports whether the
// run completed before it could be killed.
func killRun(t *testing.T, j killJob, delay time.Duration) (completed bool) {
	t.Helper()
	enc, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), killHelperEnv+"="+string(enc))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var timer <-chan time.Time
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	if j.Stop == "" {
		timer = time.After(delay)
	}
	limit := time.After(5 * time.Minute)
	for {
		select {
		case err := <-done:
			if j.Stop != "" {
				t.Fatalf("the run ended (%v) without reaching %s:\n%s", err, j.Stop, out.String())
			}
			if err != nil {
				t.Fatalf("the run failed before its kill: %v\n%s", err, out.String())
			}
			return true
		case <-timer:
		case <-poll.C:
			if j.Stop == "" {
				continue
			}
			if _, err := os.Stat(j.Marker); err != nil {
				continue
			}
		case <-limit:
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
			t.Fatalf("the run took over 5 minutes:\n%s", out.String())
		}
		break
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = <-done
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		// It ended on its own in the moment before the kill.
		if err != nil {
			t.Fatalf("the run failed before its kill: %v\n%s", err, out.String())
		}
		return true
	}
	return false
}

// readable opens the (sharded) archive at dir, walks every capture and
// verifies it: the number of captures, or a failure.
func readable(t *testing.T, dir string) int {
	t.Helper()
	a, _, err := shard.Open(dir, pack.Options{})
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	defer a.Close()
	n := 0
	if err := a.WalkOrdered(func(u dedupe.URLVersions) error { n += len(u.Versions); return nil }); err != nil {
		t.Fatalf("read %s: %v", dir, err)
	}
	if _, err := a.Verify(func(p dedupe.Problem) { t.Errorf("verify %s: %v", dir, p) }); err != nil {
		t.Fatalf("verify %s: %v", dir, err)
	}
	return n
}

// sameFiles reports whether the directories hold the same files with the
// same bytes.
func sameFiles(t *testing.T, a, b string) bool {
	t.Helper()
	return maps.EqualFunc(files(t, a), files(t, b), bytes.Equal)
}

// TestKilled kills the pipeline's process (kill -9, Prism and its
// workers with it) at random moments and at each point of the steps that
// publish, writing a new archive, replacing one (-replace) and extending
// one, then checks what a reader finds and runs the pipeline again:
//
//   - a new archive is absent, or published whole (the bytes of an
//     uninterrupted run);
//   - an archive replaced is the old one or the new one, whole, never
//     neither;
//   - an archive extended opens and verifies (each shard at a commit);
//   - the run again completes it into the bytes of one uninterrupted
//     run, and leaves no staging or parts directory beside it, nor a
//     killed shard's local copy in -tmp.
//
// BEAM_KILL_SEED fixes the random moments (the seed is logged);
// BEAM_KILL_TRIALS sets the random kills of each case (3).
func TestKilled(t *testing.T) {
	in := samples(t)
	first, second := in[:2], in[2:]
	dir := t.TempDir()
	ctx := context.Background()
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("BEAM_KILL_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("BEAM_KILL_SEED=%q: %v", v, err)
		}
	}
	trials := 3
	if v := os.Getenv("BEAM_KILL_TRIALS"); v != "" {
		var err error
		if trials, err = strconv.Atoi(v); err != nil || trials < 0 {
			t.Fatalf("BEAM_KILL_TRIALS=%q: want a count", v)
		}
	}
	t.Logf("BEAM_KILL_SEED=%d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	cfgOf := func(arch string) Config {
		c := defaults(arch, 2)
		c.Ingest.CommitBytes = 64 << 10 // several commits a shard: killed between them too
		c.Ingest.TempDir = filepath.Join(filepath.Dir(arch), "tmp")
		return c
	}
	mkTmp := func(c Config) {
		if err := os.MkdirAll(c.Ingest.TempDir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The uninterrupted runs: the first dump, both (new), the second
	// added to the first (extended).
	refFirst := filepath.Join(dir, "ref-first", "a.bwa")
	refBoth := filepath.Join(dir, "ref-both", "a.bwa")
	refExt := filepath.Join(dir, "ref-ext", "a.bwa")
	for _, r := range []struct {
		arch   string
		inputs [][]string
	}{{refFirst, [][]string{first}}, {refBoth, [][]string{in}}, {refExt, [][]string{first, second}}} {
		c := cfgOf(r.arch)
		mkTmp(c)
		for _, inputs := range r.inputs {
			if err := Run(ctx, c, inputs, onPrism); err != nil {
				t.Fatal(err)
			}
		}
	}
	nFirst, nBoth := readable(t, refFirst), readable(t, refBoth)
	if nFirst == 0 || nBoth <= nFirst || readable(t, refExt) != nBoth {
		t.Fatalf("captures: first dump %d, both %d, extended %d", nFirst, nBoth, readable(t, refExt))
	}

	type kase struct {
		name    string
		before  string // the archive there before the run (a copy of it), or ""
		replace bool
		inputs  []string
		want    string // what the run again must write
		stops   []string
	}
	cases := []kase{
		{"new", "", false, in, refBoth, []string{"shard-copied", "manifest-staged", "tables-adopted", "tables-published", "publishing", "published"}},
		{"replace", refFirst, true, in, refBoth, []string{"shard-copied", "manifest-staged", "tables-published", "publishing", "exchanged", "published"}},
		{"extend", refFirst, false, second, refExt, []string{"tables-adopted", "tables-published"}},
	}
	trial := 0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The run uninterrupted in a helper process: its time bounds
			// the random moments, and it writes the bytes of one run in
			// this one.
			setup := func() (Config, string) {
				trial++
				arch := filepath.Join(dir, fmt.Sprintf("trial-%d", trial), "a.bwa")
				cfg := cfgOf(arch)
				cfg.Replace = c.replace
				mkTmp(cfg)
				if c.before != "" {
					if err := copyDir(c.before, arch); err != nil {
						t.Fatal(err)
					}
				}
				return cfg, filepath.Join(filepath.Dir(arch), "marker")
			}
			cfg, _ := setup()
			t0 := time.Now()
			if !killRun(t, killJob{Cfg: cfg, Inputs: c.inputs}, time.Hour) {
				t.Fatal("the uninterrupted run was killed")
			}
			full := time.Since(t0)
			if !sameFiles(t, cfg.Archive, c.want) {
				t.Fatal("the helper process's run differs from the run in this process")
			}
			t.Logf("uninterrupted: %v", full.Round(time.Millisecond))

			check := func(t *testing.T, cfg Config, what string) {
				// What a reader finds after the kill.
				_, err := os.Stat(cfg.Archive)
				switch {
				case c.name == "new" && os.IsNotExist(err):
					t.Logf("%s: no archive published", what)
				case c.name == "new":
					if !sameFiles(t, cfg.Archive, c.want) {
						t.Fatalf("%s: a partial archive was published", what)
					}
					readable(t, cfg.Archive)
					t.Logf("%s: the archive was published whole", what)
				case c.name == "replace":
					switch {
					case err != nil:
						t.Fatalf("%s: the archive replaced is gone: %v", what, err)
					case sameFiles(t, cfg.Archive, c.before):
						t.Logf("%s: the old archive is there", what)
					case sameFiles(t, cfg.Archive, c.want):
						t.Logf("%s: the new archive is there", what)
					default:
						t.Fatalf("%s: the archive is neither the old one nor the new one", what)
					}
					readable(t, cfg.Archive)
				case c.name == "extend":
					n := readable(t, cfg.Archive)
					if n < nFirst || n > nBoth {
						t.Fatalf("%s: %d captures, want %d to %d", what, n, nFirst, nBoth)
					}
					t.Logf("%s: the archive reads %d captures (%d before, %d after)", what, n, nFirst, nBoth)
				}
				// The run again completes it.
				if err := Run(ctx, cfg, c.inputs, onPrism); err != nil {
					t.Fatalf("%s: the run again: %v", what, err)
				}
				if !sameFiles(t, cfg.Archive, c.want) {
					g, w := files(t, cfg.Archive), files(t, c.want)
					var diff []string
					for n := range w {
						if !bytes.Equal(g[n], w[n]) {
							diff = append(diff, n)
						}
					}
					for n := range g {
						if _, ok := w[n]; !ok {
							diff = append(diff, n+" (extra)")
						}
					}
					t.Fatalf("%s: the run again wrote other bytes than one uninterrupted run: %v", what, diff)
				}
				for _, d := range []string{cfg.staging(), cfg.partsDir()} {
					if _, err := os.Stat(d); !os.IsNotExist(err) {
						t.Errorf("%s: %s left after the run again (%v)", what, d, err)
					}
				}
				if left, _ := os.ReadDir(cfg.Ingest.TempDir); len(left) > 0 {
					t.Errorf("%s: %d entries left in -tmp after the run again (%s...)", what, len(left), left[0].Name())
				}
			}
			for _, stop := range c.stops {
				cfg, marker := setup()
				killRun(t, killJob{Cfg: cfg, Inputs: c.inputs, Stop: stop, Marker: marker}, 0)
				check(t, cfg, "killed at "+stop)
			}
			killed := 0
			for range trials {
				cfg, _ := setup()
				d := time.Duration(rng.Int64N(int64(full)))
				what := fmt.Sprintf("killed after %v", d.Round(time.Millisecond))
				if killRun(t, killJob{Cfg: cfg, Inputs: c.inputs}, d) {
					what = fmt.Sprintf("completed before its kill at %v", d.Round(time.Millisecond))
				} else {
					killed++
				}
				check(t, cfg, what)
			}
			if trials > 0 && killed == 0 {
				t.Errorf("none of %d random kills came before the run completed", trials)
			}
		})
	}
}
