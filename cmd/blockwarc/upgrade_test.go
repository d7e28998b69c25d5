package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// runOut runs the command line in-process and returns its exit code,
// standard output and standard error.
func runOut(t *testing.T, args ...string) (int, []byte, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.Bytes(), stderr.String()
}

// copyGolden copies dedupe/testdata/vN.bwa to a new directory.
func copyGolden(t *testing.T, ver int) string {
	t.Helper()
	return copyGoldenNamed(t, fmt.Sprintf("v%d", ver))
}

// copyGoldenNamed copies dedupe/testdata/NAME.bwa to a new directory.
func copyGoldenNamed(t *testing.T, name string) string {
	t.Helper()
	arch := filepath.Join(t.TempDir(), name+".bwa")
	src := filepath.Join(sharedtest.RepoRoot(t), "dedupe", "testdata", name+".bwa")
	if err := os.CopyFS(arch, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return arch
}

// readerOutputs is what readers give of an archive: export-warc of the
// whole, and cat of every URL's first and last capture.
func readerOutputs(t *testing.T, arch string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	code, warc, errs := runOut(t, "export-warc", arch)
	if code != exitOK {
		t.Fatalf("export-warc %s: exit %d: %s", arch, code, errs)
	}
	out["export-warc"] = warc
	code, ls, errs := runOut(t, "ls", arch)
	if code != exitOK {
		t.Fatalf("ls %s: exit %d: %s", arch, code, errs)
	}
	out["ls"] = ls
	for _, line := range strings.Split(strings.TrimSpace(string(ls)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 4 {
			t.Fatalf("ls line %q", line)
		}
		for _, at := range []string{f[2], f[3]} {
			code, rec, errs := runOut(t, "cat", "-at", at, arch, f[0])
			if code != exitOK {
				t.Fatalf("cat -at %s %s: exit %d: %s", at, f[0], code, errs)
			}
			out["cat "+at+" "+f[0]] = rec
		}
	}
	return out
}

// TestUpgradeGoldenArchives upgrades a copy of every golden archive of
// an older format (dedupe/testdata/vN.bwa, and sharded-v6.bwa, sharded;
// v7's open ingest is dedupe's TestUpgradeGolden): the result verifies,
// readers give the same bytes (export-warc, cat of each URL's first and
// last capture, ls), a sharded one stays cut at the same keys, and a
// second upgrade finds it current and writes nothing.
func TestUpgradeGoldenArchives(t *testing.T) {
	for _, name := range []string{"v2", "v3", "v4", "v5", "v6", "v8", "v9", "sharded-v6"} {
		t.Run(name, func(t *testing.T) {
			arch := copyGoldenNamed(t, name)
			shards, _ := os.ReadFile(filepath.Join(arch, "SHARDS"))
			want := readerOutputs(t, arch)
			code, out, errs := runOut(t, "upgrade", arch)
			if code != exitOK || !bytes.Contains(out, []byte("upgraded")) {
				t.Fatalf("upgrade: exit %d: %s%s", code, out, errs)
			}
			if code, out, errs := runOut(t, "verify", arch); code != exitOK {
				t.Fatalf("verify after upgrade: exit %d: %s%s", code, out, errs)
			}
			got := readerOutputs(t, arch)
			for k, w := range want {
				if !bytes.Equal(got[k], w) {
					t.Errorf("%s differs after the upgrade (%d bytes, %d before)", k, len(got[k]), len(w))
				}
			}
			if now, _ := os.ReadFile(filepath.Join(arch, "SHARDS")); !bytes.Equal(now, shards) {
				t.Errorf("SHARDS %q after the upgrade, %q before", now, shards)
			}
			files := sharedtest.ArchiveFiles(t, arch)
			code, out, _ = runOut(t, "upgrade", "-json", arch)
			if code != exitOK || !bytes.Contains(out, []byte(`"current":true`)) {
				t.Errorf("second upgrade: exit %d: %s", code, out)
			}
			if d := diffArchives(sharedtest.ArchiveFiles(t, arch), files); len(d) > 0 {
				t.Errorf("second upgrade changed the archive: %v", d)
			}
		})
	}
}

// treeState is every file's bytes and modification time under dir, and
// the directories' times.
func treeState(t *testing.T, dir string) map[string]string {
	t.Helper()
	st := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		v := fi.ModTime().String()
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		}
		st[p] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestUpgradeCurrent: an archive at the current format, plain or
// sharded, with its tables, is left as it is (bytes and times of every
// file and directory), and upgrade says so.
func TestUpgradeCurrent(t *testing.T) {
	samples := filepath.Join(sharedtest.RepoRoot(t), "testdata", "samples")
	for _, shards := range []string{"1", "2"} {
		t.Run("shards="+shards, func(t *testing.T) {
			parent := t.TempDir()
			arch := filepath.Join(parent, "a.bwa")
			if code, errs := runCLI(t, "ingest", "-shards", shards, arch, samples); code != exitOK {
				t.Fatalf("ingest: exit %d: %s", code, errs)
			}
			if _, err := os.Stat(filepath.Join(arch, "SHARDS")); (err == nil) != (shards == "2") {
				t.Fatalf("SHARDS present %v with -shards %s", err == nil, shards)
			}
			// Without LOCK, as archives copied elsewhere often are: taking
			// the writer lock would create it.
			locks, _ := filepath.Glob(filepath.Join(arch, "LOCK"))
			more, _ := filepath.Glob(filepath.Join(arch, "shard-*", "LOCK"))
			for _, l := range append(locks, more...) {
				if err := os.Remove(l); err != nil {
					t.Fatal(err)
				}
			}
			before := treeState(t, parent)
			time.Sleep(10 * time.Millisecond) // a write would show in the times
			code, out, errs := runOut(t, "upgrade", arch)
			if code != exitOK || !bytes.Contains(out, []byte("already at the current format")) {
				t.Fatalf("upgrade: exit %d: %s%s", code, out, errs)
			}
			after := treeState(t, parent)
			for p, v := range before {
				if after[p] != v {
					t.Errorf("%s changed", p)
				}
			}
			for p := range after {
				if _, ok := before[p]; !ok {
					t.Errorf("%s written", p)
				}
			}
		})
	}
}

// TestUpgradeTables: tables beside an old archive are written again for
// the new one, in their format, and are not stale: the same captures,
// URLs, links and changes (as many rows); blocks and capture_blocks
// describe the new archive's partition (the old one's was cut by older
// partition code, at its level of the time), so only exist. An archive
// without tables gets none.
func TestUpgradeTables(t *testing.T) {
	arch := copyGolden(t, 5)
	if code, errs := runCLI(t, "tables", arch); code != exitOK {
		t.Fatalf("tables: exit %d: %s", code, errs)
	}
	tdir := filepath.Join(arch, "tables")
	tabs := []string{"captures", "urls", "blocks", "capture_blocks", "changes", "links"}
	rows := map[string]int64{}
	for _, tab := range tabs {
		rows[tab] = parquetRows(t, tdir, tab)
	}
	gen0, _ := os.ReadFile(filepath.Join(tdir, "GENERATION"))
	if code, out, errs := runOut(t, "upgrade", arch); code != exitOK {
		t.Fatalf("upgrade: exit %d: %s%s", code, out, errs)
	}
	for _, tab := range tabs {
		if n := parquetRows(t, tdir, tab); n != rows[tab] && !strings.Contains(tab, "blocks") {
			t.Errorf("table %s: %d rows after upgrade, %d before", tab, n, rows[tab])
		}
	}
	gen1, _ := os.ReadFile(filepath.Join(tdir, "GENERATION"))
	a, err := openArchive(arch, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if stale, _, err := staleTables(arch, a); err != nil || stale != "" || bytes.Equal(gen0, gen1) {
		t.Errorf("tables after upgrade: stale %q, %v (generation %q, was %q)", stale, err, gen1, gen0)
	}

	bare := copyGolden(t, 5)
	if code, out, errs := runOut(t, "upgrade", bare); code != exitOK {
		t.Fatalf("upgrade: exit %d: %s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(bare, "tables")); !os.IsNotExist(err) {
		t.Errorf("upgrade wrote tables into an archive that had none (%v)", err)
	}
}

// TestUpgradeLeftovers: what a killed upgrade left beside the archive
// (its staging directory, marked) is removed by the next upgrade, of an
// old archive or a current one; a directory of that name that no upgrade
// made is refused and left alone.
func TestUpgradeLeftovers(t *testing.T) {
	for _, ver := range []int{5, 9} {
		arch := copyGolden(t, ver)
		if ver == 9 {
			if code, out, errs := runOut(t, "upgrade", arch); code != exitOK {
				t.Fatalf("upgrade: exit %d: %s%s", code, out, errs)
			}
		}
		staging := dedupe.StagingDir(arch)
		// What a run killed after the exchange leaves: the old archive.
		if err := os.CopyFS(filepath.Join(staging, "new"), os.DirFS(copyGolden(t, ver))); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(staging, "BLOCKWARC-UPGRADE"), []byte(arch+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runOut(t, "upgrade", arch)
		if code != exitOK || !bytes.Contains(out, []byte("removed what a killed upgrade left")) {
			t.Errorf("v%d: upgrade with leftovers: exit %d: %s%s", ver, code, out, errs)
		}
		if _, err := os.Stat(staging); !os.IsNotExist(err) {
			t.Errorf("v%d: leftovers still there (%v)", ver, err)
		}
	}

	arch := copyGolden(t, 5)
	mine := dedupe.StagingDir(arch)
	if err := os.MkdirAll(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mine, "notes.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runOut(t, "upgrade", arch); code != exitFailure || !strings.Contains(errs, "not one's") {
		t.Errorf("upgrade beside a directory not its own: exit %d: %s", code, errs)
	}
	if b, err := os.ReadFile(filepath.Join(mine, "notes.txt")); err != nil || string(b) != "keep" {
		t.Errorf("a directory not an upgrade's was touched: %q, %v", b, err)
	}
}

// TestUpgradeAlwaysWhole polls the archive's path while an upgrade runs:
// at every instant it names an archive whose COMMIT reads (the old one
// or the new one), never nothing.
func TestUpgradeAlwaysWhole(t *testing.T) {
	for range 3 {
		arch := copyGolden(t, 6)
		var stop, polls, missing atomic.Int64
		done := make(chan struct{})
		go func() {
			defer close(done)
			for stop.Load() == 0 {
				if _, err := os.ReadFile(filepath.Join(arch, "COMMIT")); err != nil {
					missing.Add(1)
				}
				polls.Add(1)
			}
		}()
		code, out, errs := runOut(t, "upgrade", arch)
		stop.Store(1)
		<-done
		if code != exitOK {
			t.Fatalf("upgrade: exit %d: %s%s", code, out, errs)
		}
		if missing.Load() > 0 {
			t.Fatalf("%d of %d looks at %s found no archive during the upgrade", missing.Load(), polls.Load(), arch)
		}
	}
}

// TestUpgradeKill kills 'blockwarc upgrade' (SIGKILL) at random moments
// of its run on a copy of a golden archive: after each kill the path
// holds the old archive or the new one, whole (verify passes, every file
// the start's or the one-pass run's), and the same command run again
// leaves every file as one uninterrupted run does, its leftovers gone.
// The seed is -kill-seed; the trials -kill-trials.
func TestUpgradeKill(t *testing.T) {
	bin := buildBinary(t)
	start := copyGolden(t, 6)
	startFiles := sharedtest.ArchiveFiles(t, start)
	ref := filepath.Join(t.TempDir(), "ref.bwa")
	if err := os.CopyFS(ref, os.DirFS(start)); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	// At the test's priority (-nice 0): the random moments are drawn
	// from this run's time, which a niced run on a busy machine
	// stretches at random.
	if out, err := exec.Command(bin, "upgrade", "-nice", "0", "-workers", "2", ref).CombinedOutput(); err != nil {
		t.Fatalf("one-pass upgrade: %v\n%s", err, out)
	}
	took := time.Since(began)
	refFiles := sharedtest.ArchiveFiles(t, ref)
	rng := rand.New(rand.NewPCG(*killSeed, 37))
	trials := max(*killTrials, 8)
	t.Logf("seed %d, %d trials, one pass %v", *killSeed, trials, took)
	killed, sawNew := 0, 0
	// attempt runs one trial, killed after delay, and says whether the
	// kill fell before the upgrade ended.
	attempt := func(trial int, delay time.Duration) bool {
		arch := filepath.Join(t.TempDir(), "a.bwa")
		if err := os.CopyFS(arch, os.DirFS(start)); err != nil {
			t.Fatal(err)
		}
		wasKilled := false
		args := []string{"upgrade", "-nice", "0", "-workers", "2"}
		tmp := ""
		if trial%2 == 1 {
			// The originals restored elsewhere: what a killed run left
			// there goes too.
			tmp = t.TempDir()
			args = append(args, "-tmp", tmp)
		}
		args = append(args, arch)
		cmd := exec.Command(bin, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(delay):
			killed++
			wasKilled = true
		}
		cmd.Process.Kill()
		<-exited
		now := sharedtest.ArchiveFiles(t, arch)
		switch {
		case len(diffArchives(now, startFiles)) == 0:
		case len(diffArchives(now, refFiles)) == 0:
			sawNew++
		default:
			t.Fatalf("trial %d (kill after %v): the archive is neither the old one nor the new one: %v / %v",
				trial, delay, diffArchives(now, startFiles), diffArchives(now, refFiles))
		}
		if out, err := exec.Command(bin, "verify", arch).CombinedOutput(); err != nil {
			t.Fatalf("trial %d (kill after %v): verify: %v\n%s", trial, delay, err, out)
		}
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			t.Fatalf("trial %d (kill after %v): re-run: %v\n%s", trial, delay, err, out)
		}
		if tmp != "" {
			if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
				t.Errorf("trial %d: -tmp holds %s after the re-run", trial, ents[0].Name())
			}
		}
		if d := diffArchives(sharedtest.ArchiveFiles(t, arch), refFiles); len(d) > 0 {
			t.Errorf("trial %d (kill after %v): archive differs from one uninterrupted run: %v", trial, delay, d)
		}
		if _, err := os.Stat(dedupe.StagingDir(arch)); !os.IsNotExist(err) {
			t.Errorf("trial %d: leftovers of the killed run remain after the re-run (%v)", trial, err)
		}
		return wasKilled
	}
	for trial := range trials {
		delay := time.Duration(rng.Int64N(int64(took) + 1))
		// A run that ended before its kill is checked, then tried again
		// with half the delay: the one-pass time is measured once, on a
		// shared machine whose load changes.
		for try := 0; !attempt(trial, delay) && try < 3; try++ {
			delay /= 2
		}
	}
	t.Logf("%d of %d runs killed before they ended; %d left the new archive", killed, trials, sawNew)
	if killed < trials/2 {
		t.Errorf("only %d of %d runs were killed before they ended", killed, trials)
	}
}

// TestUpgradeLocked: an archive a writer holds (an ingest running) is
// not upgraded: upgrade fails naming the lock, and the archive and its
// parent are left as they were.
func TestUpgradeLocked(t *testing.T) {
	arch := copyGolden(t, 5)
	release, err := pack.Hold(arch)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	before := treeState(t, filepath.Dir(arch))
	code, out, errs := runOut(t, "upgrade", arch)
	if code != exitFailure || !strings.Contains(errs, "lock") {
		t.Errorf("upgrade of a locked archive: exit %d: %s%s", code, out, errs)
	}
	after := treeState(t, filepath.Dir(arch))
	for p, v := range before {
		if after[p] != v {
			t.Errorf("%s changed", p)
		}
	}
	if len(after) != len(before) {
		t.Errorf("%d files and directories after, %d before", len(after), len(before))
	}
}
