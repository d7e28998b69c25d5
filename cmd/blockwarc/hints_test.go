package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// sampleArchive ingests the sample dumps into a new archive (no tables).
func sampleArchive(t *testing.T) string {
	t.Helper()
	arch := filepath.Join(t.TempDir(), "s.bwa")
	samples := filepath.Join(sharedtest.RepoRoot(t), "testdata", "samples")
	if code, _, errOut := runCmd(t, "ingest", "-tables=false", arch, samples); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	return arch
}

// TestMissingIndexHint: with an index deleted, every reader fails naming
// it and says that 'blockwarc repair ARCHIVE' rebuilds it without the
// originals; it does.
func TestMissingIndexHint(t *testing.T) {
	arch := sampleArchive(t)
	idx, _ := filepath.Glob(filepath.Join(arch, "*.idx"))
	if len(idx) == 0 {
		t.Fatal("no index")
	}
	if err := os.Remove(idx[0]); err != nil {
		t.Fatal(err)
	}
	hint := "is missing: 'blockwarc repair " + arch + "' rebuilds it from the packs (the original input files are not needed)"
	for _, args := range [][]string{
		{"cat", arch, "http://127.0.0.1:8103/"},
		{"ls", arch},
		{"export-warc", "-o", filepath.Join(t.TempDir(), "x.warc.gz"), arch},
		{"verify", arch},
	} {
		code, _, errOut := runCmd(t, args...)
		if code != exitFailure || !strings.Contains(errOut, filepath.Base(idx[0])) || !strings.Contains(errOut, hint) {
			t.Errorf("%s with %s deleted: exit %d, %q", args[0], filepath.Base(idx[0]), code, errOut)
		}
	}
	if code, out, errOut := runCmd(t, "repair", arch); code != exitOK {
		t.Fatalf("repair: exit %d: %s %s", code, out, errOut)
	}
	if code, out, errOut := runCmd(t, "verify", arch); code != exitOK {
		t.Fatalf("verify after repair: exit %d: %s %s", code, out, errOut)
	}
}

// TestWalkLeftover: the private directory of a repair's walk that a kill
// left in the archive is removed by the next repair and the next ingest,
// which say so.
func TestWalkLeftover(t *testing.T) {
	arch := sampleArchive(t)
	leave := func() string {
		d := filepath.Join(arch, "blockwarc-walk-4242")
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "run-1.zst"), []byte("sorted run"), 0o600)
		return d
	}
	d := leave()
	code, out, errOut := runCmd(t, "repair", arch)
	if code != exitOK || !strings.Contains(out, "removed "+d) {
		t.Errorf("repair with a leftover walk dir: exit %d, %q %q", code, out, errOut)
	}
	if _, err := os.Stat(d); !os.IsNotExist(err) {
		t.Errorf("repair kept %s: %v", d, err)
	}
	d = leave()
	samples := filepath.Join(sharedtest.RepoRoot(t), "testdata", "samples")
	code, _, errOut = runCmd(t, "ingest", "-tables=false", arch, samples)
	if code != exitOK || !strings.Contains(errOut, "removed "+d) {
		t.Errorf("ingest with a leftover walk dir: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(d); !os.IsNotExist(err) {
		t.Errorf("ingest kept %s: %v", d, err)
	}
	if code, out, errOut := runCmd(t, "verify", arch); code != exitOK {
		t.Errorf("verify: exit %d: %s %s", code, out, errOut)
	}
}

// TestKillBeforeFirstCommit: an ingest killed (SIGKILL) before its first
// commit leaves what docs/COMMANDS.md (ingest) says: the empty archive it
// began with, which verifies with no records, and which the same command
// run again fills.
func TestKillBeforeFirstCommit(t *testing.T) {
	site := sharedtest.Dir(t, "corpus", "ota-tinder")
	arch := filepath.Join(t.TempDir(), "k.bwa")
	args := []string{"ingest", "-workers", "1", "-tables=false", "-json", arch, site}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	deadline := time.After(time.Minute)
	for commitSeq(arch) < 0 {
		select {
		case <-exited:
			t.Fatal("ingest ended before it could be killed")
		case <-deadline:
			t.Fatal("no COMMIT after a minute")
		case <-time.After(time.Millisecond):
		}
	}
	cmd.Process.Kill()
	<-exited
	if seq := commitSeq(arch); seq != 0 {
		t.Skipf("killed at commit %d, not before the first", seq)
	}
	code, out, errOut := runCmd(t, "verify", arch)
	if code != exitOK || !strings.HasPrefix(out, "0 objects, 0 records,") {
		t.Errorf("verify of the killed ingest's archive: exit %d, %q %q", code, out, errOut)
	}
	code, out, errOut = runCmd(t, args...)
	if code != exitOK || !strings.Contains(out, `"files":`) || strings.Contains(out, `"files":0`) {
		t.Errorf("re-run: exit %d, %q %q", code, out, errOut)
	}
}
