package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// buildBinary builds blockwarc into a temporary directory of t.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "blockwarc")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// killInput is a small input with many URLs and the -commit that cuts it
// into many commits: the first six files of the mkdocs-org corpus site
// (about 30 URLs) when ../shared is there and not -short, else eight
// files of testdata/samples (6 URLs, a commit after each); under CI=true
// a missing corpus fails the test (sharedtest.Optional).
func killInput(t *testing.T) (inputs []string, commit string) {
	t.Helper()
	if site, ok := sharedtest.Optional(t, "corpus", "mkdocs-org"); ok {
		files, _ := filepath.Glob(filepath.Join(site, "*.warc.gz"))
		if len(files) < 6 {
			t.Fatalf("%s: %d .warc.gz files, want 6 or more: the shared corpus is incomplete", site, len(files))
		}
		slices.Sort(files)
		return files[:6], "16KiB"
	}
	t.Log("killing ingests of testdata/samples")
	files, _ := filepath.Glob(filepath.Join(sharedtest.RepoRoot(t), "testdata", "samples", "*.warc.gz"))
	if len(files) < 8 {
		t.Fatalf("testdata/samples: %d files", len(files))
	}
	slices.Sort(files)
	return files[:8], "1"
}

// commitSeq reads the generation of dir's COMMIT, -1 when there is none
// (yet) or it is being replaced.
func commitSeq(dir string) int64 {
	b, err := os.ReadFile(filepath.Join(dir, "COMMIT"))
	if err != nil || len(b) < 16 || string(b[:4]) != "BWCM" {
		return -1
	}
	return int64(binary.LittleEndian.Uint64(b[8:]))
}

// diffArchives lists the files in which got differs from want.
func diffArchives(got, want map[string][]byte) []string {
	var out []string
	for n, w := range want {
		if g, ok := got[n]; !ok {
			out = append(out, n+" missing")
		} else if !bytes.Equal(g, w) {
			out = append(out, n+" differs")
		}
	}
	for n := range got {
		if _, ok := want[n]; !ok {
			out = append(out, n+" extra")
		}
	}
	slices.Sort(out)
	return out
}

// killIngestAt runs args, waits for arch's commit generation k, then
// for delay, and kills the process with SIGKILL; it says whether the
// kill fell before the process ended by itself.
func killIngestAt(t *testing.T, bin string, args []string, arch string, k int64, delay time.Duration) bool {
	t.Helper()
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	for commitSeq(arch) < k {
		select {
		case <-exited:
			return false
		case <-time.After(time.Millisecond):
		}
	}
	select {
	case <-exited:
		return false
	case <-time.After(delay):
	}
	cmd.Process.Kill() // SIGKILL; a no-op when it exited
	<-exited
	return true
}

// TestKillResume is issue 15's crash test: an ingest with a small -commit,
// run as its own process, is killed (SIGKILL) at 20 seeded random points
// (after the k-th commit, then a random delay); each time the archive
// must verify at its last commit, and running the same ingest again must
// complete it into the very bytes of an uninterrupted ingest.
func TestKillResume(t *testing.T) {
	bin := buildBinary(t)
	inputs, commit := killInput(t)
	args := func(arch string) []string {
		return append([]string{"ingest", "-json", "-tables=false", "-workers", "2", "-commit", commit, arch}, inputs...)
	}
	ref := filepath.Join(t.TempDir(), "ref.bwa")
	start := time.Now()
	out, err := exec.Command(bin, args(ref)...).Output()
	if err != nil {
		t.Fatalf("one-pass ingest: %v", err)
	}
	onePass := time.Since(start)
	var st struct {
		Commits int `json:"commits"`
	}
	if err := json.Unmarshal(out, &st); err != nil || st.Commits < 4 {
		t.Fatalf("one-pass ingest: %d commits (%v): too few to kill between", st.Commits, err)
	}
	want := sharedtest.ArchiveFiles(t, ref)

	rng := rand.New(rand.NewPCG(15, 2024))
	const kills = 20
	var resumed, early int
	for i := range kills {
		// The point: after commit generation k (0 is the empty archive
		// Create writes, -1 before it; the last one, st.Commits, ends
		// the ingest), then up to the mean time between two commits.
		k := int64(rng.IntN(st.Commits+1)) - 1
		delay := time.Duration(rng.Int64N(int64(onePass) / int64(st.Commits)))
		// The one-pass time is measured once on a shared machine whose
		// load changes: a run that ended before its kill is tried again
		// with half the delay, as TestKillFaults does.
		var arch string
		for try := 0; ; try++ {
			arch = filepath.Join(t.TempDir(), "a.bwa")
			if killIngestAt(t, bin, args(arch), arch, k, delay) || try == 3 || k == int64(st.Commits) {
				break
			}
			delay /= 2
		}

		at := commitSeq(arch)
		if _, err := os.Stat(filepath.Join(arch, "COMMIT")); err == nil {
			if code, stdout, stderr := runCmd(t, "verify", arch); code != exitOK {
				t.Fatalf("kill %d (after commit %d + %v): verify at the last commit exit %d:\n%s%s", i, k, delay, code, stdout, stderr)
			}
		}
		out, err := exec.Command(bin, args(arch)...).Output()
		if err != nil {
			msg := ""
			if ee, ok := err.(*exec.ExitError); ok {
				msg = string(ee.Stderr)
			}
			t.Fatalf("kill %d: re-run: %v\n%s", i, err, msg)
		}
		var rs struct {
			Files   int   `json:"files"`
			Repeats int64 `json:"repeats"`
		}
		if err := json.Unmarshal(out, &rs); err != nil {
			t.Fatal(err)
		}
		switch {
		case rs.Files > 0 && rs.Repeats > 0:
			resumed++
		case rs.Files > 0:
			early++
		}
		if code, stdout, stderr := runCmd(t, "verify", arch); code != exitOK {
			t.Fatalf("kill %d: verify after the re-run exit %d:\n%s%s", i, code, stdout, stderr)
		}
		if d := diffArchives(sharedtest.ArchiveFiles(t, arch), want); len(d) > 0 {
			t.Errorf("kill %d (after commit %d + %v, archive at commit %d): resumed archive differs from the one-pass one: %s",
				i, k, delay, at, strings.Join(d, ", "))
		}
	}
	t.Logf("%d kills: %d resumed after a commit, %d before any record was committed, %d after the ingest had finished",
		kills, resumed, early, kills-resumed-early)
	// The seeded points must reach the middle of the ingest, or the test
	// checks little.
	if resumed < kills/4 {
		t.Errorf("only %d of %d kills resumed an ingest with committed records", resumed, kills)
	}
}
