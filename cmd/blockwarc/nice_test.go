//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// niceChildEnv set to 1 makes the test binary run the command line it is
// given and then print the nice value of each of its threads (TestMain).
const niceChildEnv = "BLOCKWARC_TEST_NICE_CHILD"

func niceChild() {
	code := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(100)
	}
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join("/proc/self/task", t.Name(), "stat"))
		if err != nil {
			continue
		}
		// Field 19 is the nice value; fields count from after the
		// command name's closing parenthesis (field 2), which may hold spaces.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		fmt.Printf("nice %s\n", f[16])
	}
	os.Exit(code)
}

// TestNice: ingest, compact and prove run every thread at -nice's value (10 by
// default), -nice 0 leaves the priority they were started with, and a
// process started nicer than -nice stays as nice. The ingest runs in a
// process of its own, which it renices, and prints the nice value of
// every thread it has at the end (a thread the runtime started after
// the renice included: the workers compress frames on them).
func TestNice(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("-nice is a Linux setting")
	}
	in := filepath.Join(sharedtest.Interop(t), "pywb--iana.warc.gz")
	self := 0
	if p, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0); err == nil {
		self = 20 - p
	}
	if self > 10 {
		t.Fatalf("the test runs at nice %d: want at most 10 to see ingest's", self)
	}
	child := func(args ...string) []int {
		t.Helper()
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), niceChildEnv+"=1")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr.String())
		}
		var nices []int
		for _, l := range strings.Split(stdout.String(), "\n") {
			if v, ok := strings.CutPrefix(l, "nice "); ok {
				n, err := strconv.Atoi(v)
				if err != nil {
					t.Fatalf("%q: %v", l, err)
				}
				nices = append(nices, n)
			}
		}
		if len(nices) < 3 {
			t.Fatalf("%v: %d threads listed:\n%s", args, len(nices), stdout.String())
		}
		return nices
	}
	want := func(name string, nices []int, n int) {
		t.Helper()
		for _, v := range nices {
			if v != n {
				t.Errorf("%s: thread nice values %v, want all %d", name, nices, n)
				return
			}
		}
	}
	dir := t.TempDir()
	a := filepath.Join(dir, "a.bwa")
	want("ingest", child("ingest", "-tables=false", a, in), 10)
	want("ingest -nice 0", child("ingest", "-nice", "0", "-tables=false", filepath.Join(dir, "b.bwa"), in), self)
	want("ingest -nice 15", child("ingest", "-nice", "15", "-tables=false", filepath.Join(dir, "c.bwa"), in), 15)
	want("compact", child("compact", "-tables=false", a, filepath.Join(dir, "d.bwa")), 10)
	want("prove", child("prove", a, in), 10)
	want("prove -nice 0", child("prove", "-nice", "0", a, in), self)
	want("upgrade", child("upgrade", a), 10)
	want("upgrade -nice 12", child("upgrade", "-nice", "12", a), 12)
	// Started nicer than -nice: kept.
	cmd := exec.Command("nice", "-n", "19", os.Args[0], "ingest", "-nice", "5", "-tables=false", filepath.Join(dir, "e.bwa"), in)
	cmd.Env = append(os.Environ(), niceChildEnv+"=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("nice -n 19 ingest -nice 5: %v", err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.HasPrefix(l, "nice ") && l != "nice 19" {
			t.Fatalf("nice -n 19 ingest -nice 5: %q, want nice 19 on every thread\n%s", l, out)
		}
	}
	if code, errs := runCLI(t, "ingest", "-nice", "20", filepath.Join(dir, "f.bwa"), in); code != exitUsage || !strings.Contains(errs, "-nice must be 0 to 19") {
		t.Errorf("-nice 20: exit %d, %q; want a usage error", code, errs)
	}
}
