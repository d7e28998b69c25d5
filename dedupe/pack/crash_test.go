package pack

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

const crashChildEnv = "BLOCKWARC_PACK_CRASH_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		if err := crashChild(dir); err != nil {
			fmt.Fprintln(os.Stderr, "crash child:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// commitObjects is the deterministic content of commit c of the crash
// tests: new objects, some as deltas of commit c-1's objects.
func commitObjects(c uint64) []obj {
	r := rand.New(rand.NewPCG(c, 77))
	objs := randomObjects(c*1000, 12, 6000)
	if c > 1 {
		prev := commitObjects(c - 1)
		for i := 0; i < 4; i++ {
			p := prev[i]
			objs = append(objs, obj{kind: p.kind, data: append(bytes.Clone(p.data), genObject(r, 40)...), id: p.id})
		}
	}
	return objs
}

// writeCommit adds commit c's objects (deltas against the id carried in
// obj.id) and commits with payload "c=<c>".
func writeCommit(w *Writer, c uint64) error {
	for i, o := range commitObjects(c) {
		var err error
		if o.id != (ID{}) {
			_, _, err = w.AddDelta(o.kind, o.data, o.id)
		} else {
			_, _, err = w.Add(o.kind, o.data)
		}
		if err != nil {
			return err
		}
		if i%5 == 4 {
			if err := w.Flush(); err != nil {
				return err
			}
		}
	}
	return w.Commit([]byte("c=" + strconv.FormatUint(c, 10)))
}

// crashChild writes commits until it is killed, printing each commit
// number once it is durable.
func crashChild(dir string) error {
	// Short chains: a child commits every few KiB, and a frame extending
	// a 4 MiB chain would cost it half a second (longer under -race).
	s, err := Open(dir, Options{noSync: true, FrameSize: 8 << 10, PackSize: 96 << 10, Workers: 2, ChainBytes: 64 << 10})
	if err != nil {
		return err
	}
	w, err := s.Begin()
	if err != nil {
		return err
	}
	for c := s.Seq() + 1; c < 100000; c++ {
		if err := writeCommit(w, c); err != nil {
			return err
		}
		fmt.Printf("committed %d\n", c)
	}
	return nil
}

// checkCommits opens dir and checks that it is at a commit ≥ atLeast whose
// objects (and all earlier ones) restore exactly and verify clean.
func checkCommits(t *testing.T, dir string, atLeast uint64) uint64 {
	t.Helper()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatalf("open after crash: %v", err)
	}
	defer s.Close()
	seq := s.Seq()
	if seq < atLeast {
		t.Fatalf("archive at commit %d, but commit %d was reported durable", seq, atLeast)
	}
	if want := "c=" + strconv.FormatUint(seq, 10); seq > 0 && string(s.Payload()) != want {
		t.Fatalf("payload %q at seq %d, want %q", s.Payload(), seq, want)
	}
	for c := uint64(1); c <= seq; c++ {
		for _, o := range commitObjects(c) {
			got, _, err := s.Get(Sum(o.data))
			if err != nil || !bytes.Equal(got, o.data) {
				t.Fatalf("commit %d object: %v", c, err)
			}
		}
	}
	// The next commit's objects are absent (not half there).
	for _, o := range commitObjects(seq + 1) {
		if ok, _ := s.Has(Sum(o.data)); ok {
			t.Fatalf("an object of uncommitted commit %d is visible", seq+1)
		}
	}
	verifyClean(t, s)
	return seq
}

// TestCrashKill runs a real writer process and SIGKILLs it at random
// moments, then checks the archive and lets the next child resume.
func TestCrashKill(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a.bwa")
	s, err := Create(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	r := rand.New(rand.NewPCG(11, 12))
	var reported uint64
	for round := 0; round < 10 || reported < 5 && round < 40; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan uint64, 1<<16)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if n, err := strconv.ParseUint(strings.TrimPrefix(sc.Text(), "committed "), 10, 64); err == nil {
					lines <- n
				}
			}
			close(lines)
		}()
		// Kill at a random moment after the child's first commit of the
		// round: a fixed delay from the start kills a child that has not
		// committed yet on a loaded machine (or under -race), and the
		// test then exercises nothing.
		select {
		case n, ok := <-lines:
			if ok {
				reported = max(reported, n)
			}
		case <-time.After(2 * time.Minute):
			t.Fatalf("round %d: the child reported no commit in 2 minutes; stderr: %s", round, stderr.String())
		}
		time.Sleep(time.Duration(r.IntN(250)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		for n := range lines {
			reported = max(reported, n)
		}
		if !strings.Contains(cmd.ProcessState.String(), "killed") {
			t.Fatalf("child ended before the kill: %s; stderr: %s", cmd.ProcessState, stderr.String())
		}
		seq := checkCommits(t, dir, reported)
		t.Logf("round %d: killed after commit %d reported, archive at %d", round, reported, seq)
	}
	if reported < 5 {
		t.Fatalf("children committed only %d times; the test exercised little", reported)
	}
}

// TestCrashStates rebuilds the states a crash between two commits can
// leave: the old COMMIT with a pack cut at any length beyond its committed
// one, a partial or complete uncommitted index, a stale COMMIT.tmp. Each
// must open at the old commit and accept the next commit.
func TestCrashStates(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a.bwa")
	opts := Options{noSync: true, FrameSize: 4 << 10}
	s, err := Create(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := s.Begin()
	if err := writeCommit(w, 1); err != nil {
		t.Fatal(err)
	}
	snap1 := filepath.Join(root, "after1")
	sharedtest.CopyDir(t, dir, snap1)
	os.Remove(filepath.Join(snap1, lockName))
	packLen1 := s.m.packs[0].size
	if err := writeCommit(w, 2); err != nil {
		t.Fatal(err)
	}
	w.Close()
	s.Close()
	full, _ := os.ReadFile(filepath.Join(dir, packName(1)))
	// Commit 2 wrote index 2 and merged indexes 1 and 2 into index 3.
	idx2, _ := os.ReadFile(filepath.Join(dir, indexName(3)))
	if len(idx2) == 0 || int64(len(full)) <= packLen1 {
		t.Fatal("commit 2 did not grow pack 1 and write index 3")
	}
	step := max(1, (int64(len(full))-packLen1)/25)
	n := 0
	for cut := packLen1; cut <= int64(len(full)); cut += step {
		for _, idxLen := range []int{-1, 0, len(idx2) / 2, len(idx2)} {
			n++
			d := filepath.Join(root, fmt.Sprintf("s%d", n))
			sharedtest.CopyDir(t, snap1, d)
			os.WriteFile(filepath.Join(d, packName(1)), full[:cut], 0o644)
			if idxLen >= 0 {
				os.WriteFile(filepath.Join(d, indexName(2)), idx2[:idxLen], 0o644)
				os.WriteFile(filepath.Join(d, indexName(3)), idx2[:idxLen/2], 0o644)
			}
			os.WriteFile(filepath.Join(d, commitTemp), full[:min(cut, 100)], 0o644)
			checkCommits(t, d, 1)
			s, err := Open(d, opts)
			if err != nil {
				t.Fatal(err)
			}
			w, err := s.Begin()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(d, commitTemp)); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("Begin left %s behind", commitTemp)
			}
			if err := writeCommit(w, 2); err != nil {
				t.Fatal(err)
			}
			w.Close()
			s.Close()
			checkCommits(t, d, 2)
			// Resuming reproduces the uninterrupted bytes.
			for _, name := range []string{packName(1), indexName(3), commitName} {
				a, _ := os.ReadFile(filepath.Join(d, name))
				b, _ := os.ReadFile(filepath.Join(dir, name))
				if !bytes.Equal(a, b) {
					t.Fatalf("cut %d: %s after resuming differs from the uninterrupted run", cut, name)
				}
			}
			os.RemoveAll(d)
		}
	}
}

// TestCorruption flips single bytes of every file of an archive: every
// flip must be detected (by Open, Get or Verify) by an error naming the
// file, and no read may return wrong bytes or panic.
func TestCorruption(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a.bwa")
	s, err := Create(dir, Options{noSync: true, FrameSize: 4 << 10})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := s.Begin()
	var all []obj
	for c := uint64(1); c <= 2; c++ {
		if err := writeCommit(w, c); err != nil {
			t.Fatal(err)
		}
		all = append(all, commitObjects(c)...)
	}
	w.Close()
	s.Close()
	ents, _ := os.ReadDir(dir)
	n := 0
	for _, e := range ents {
		if e.Name() == lockName {
			continue
		}
		orig, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		var positions []int
		for p := 0; p < len(orig); p++ {
			if p < 80 || p >= len(orig)-80 || p%max(1, len(orig)/40) == 0 {
				positions = append(positions, p)
			}
		}
		for _, p := range positions {
			n++
			d := filepath.Join(root, fmt.Sprintf("c%d", n))
			sharedtest.CopyDir(t, dir, d)
			bad := bytes.Clone(orig)
			bad[p] ^= 0x55
			path := filepath.Join(d, e.Name())
			os.WriteFile(path, bad, 0o644)
			if !corruptionDetected(t, d, path, all) {
				t.Fatalf("flip of %s byte %d went unnoticed", e.Name(), p)
			}
			os.RemoveAll(d)
		}
	}
	t.Logf("%d single-byte flips all detected", n)
}

func corruptionDetected(t *testing.T, dir, path string, objs []obj) bool {
	t.Helper()
	names := func(err error) bool {
		var ce *CorruptError
		return errors.As(err, &ce) && ce.File == path
	}
	s, err := Open(dir, Options{})
	if err != nil {
		if !names(err) {
			t.Fatalf("open error %v does not name %s", err, path)
		}
		return true
	}
	defer s.Close()
	for _, o := range objs {
		got, _, err := s.Get(Sum(o.data))
		if err == nil && !bytes.Equal(got, o.data) {
			t.Fatalf("Get returned wrong bytes after corrupting %s", path)
		}
	}
	found := false
	if _, err := s.Verify(func(_ ID, err error) {
		if err != nil && names(err) {
			found = true
		}
	}); err != nil {
		t.Fatal(err)
	}
	return found
}

var _ = io.EOF

// TestAppendToTruncatedPack: a committed pack that lost bytes must not be
// extended with zeros and appended to.
func TestAppendToTruncatedPack(t *testing.T) {
	s, dir := mustCreate(t, Options{noSync: true})
	w, _ := s.Begin()
	addAll(t, w, randomObjects(31, 10, 3000))
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	w.Close()
	path := filepath.Join(dir, packName(1))
	fi, _ := os.Stat(path)
	os.Truncate(path, fi.Size()-10)
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Add(KindOther, []byte("more"))
	err = w.Commit(nil)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) {
		t.Fatalf("commit onto a truncated pack: %v, want a corruption error naming %s", err, path)
	}
	if fi2, _ := os.Stat(path); fi2.Size() != fi.Size()-10 {
		t.Fatalf("the damaged pack was modified (%d bytes)", fi2.Size())
	}
}
