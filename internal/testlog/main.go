// Command testlog splits the test suite in two without a list to keep
// up to date: `make test` runs every test with -short, and `make
// test-corpus` runs in full exactly the tests that -short run left out
// or cut down, as that run's `go test -json` log says.
//
//	go test -short -json ./... | testlog summary out/unit-short.json
//	testlog full out/unit-short.json -- go test -count=1
//
// summary copies the log to the file while printing what go test
// prints without -v: a line per package, and the whole output of every
// test that failed. It exits 1 when a test or a package failed.
//
// full reads that log and runs, package by package (two at a time), the
// top-level tests that skipped themselves or a subtest, or said they ran
// cut down ("-short mode" in their output: internal/sharedtest), with
// the command given after --, which gets "-run ^(A|B)$ PACKAGE".
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	ImportPath string // build-output, build-fail
	Test       string
	Elapsed    float64
	Output     string
	// FailedBuild names the package whose build failed a test binary.
	FailedBuild string
}

// shortMarker is what internal/sharedtest writes when -short skips or cuts
// a check down.
const shortMarker = "-short mode"

func main() {
	if len(os.Args) < 3 {
		usage()
	}
	switch os.Args[1] {
	case "summary":
		os.Exit(summary(os.Stdin, os.Args[2], os.Stdout))
	case "full":
		if len(os.Args) < 5 || os.Args[3] != "--" {
			usage()
		}
		os.Exit(full(os.Args[2], os.Args[4:]))
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: testlog summary LOG < go-test-json\n       testlog full LOG -- COMMAND...")
	os.Exit(2)
}

// summary copies the events of r to the file log and prints the failures
// and a line per package; 1 when anything failed.
func summary(r io.Reader, log string, w io.Writer) int {
	f, err := os.Create(log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testlog:", err)
		return 1
	}
	defer f.Close()
	out := map[string]*bytes.Buffer{} // package + "\x00" + test → its output
	var build bytes.Buffer            // compiler messages
	tests, skipped, failed, failedPkgs := 0, 0, 0, 0
	sc := bufio.NewScanner(io.TeeReader(r, f))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			fmt.Fprintln(w, sc.Text()) // go test's own message (a build error)
			continue
		}
		id := e.Package + "\x00" + e.Test
		switch e.Action {
		case "build-output":
			build.WriteString(e.Output)
		case "build-fail":
			w.Write(build.Bytes())
			build.Reset()
			fmt.Fprintf(w, "FAIL\t%s [build failed]\n", e.ImportPath)
		case "output":
			if out[id] == nil {
				out[id] = &bytes.Buffer{}
			}
			out[id].WriteString(e.Output)
		case "pass", "skip", "fail":
			top := e.Test != "" && !strings.Contains(e.Test, "/")
			switch {
			case e.Test == "" && e.Action == "pass":
				fmt.Fprintf(w, "ok  \t%s\t%.1fs\n", e.Package, e.Elapsed)
			case e.Test == "" && e.Action == "skip":
				fmt.Fprintf(w, "?   \t%s\t[no test files]\n", e.Package)
			case e.Action == "fail":
				if top {
					failed++
				}
				if b := out[id]; b != nil {
					for line := range bytes.Lines(b.Bytes()) {
						// go test's own closing lines: the one below says it.
						if e.Test == "" && (string(line) == "FAIL\n" || bytes.HasPrefix(line, []byte("FAIL\t"+e.Package+"\t"))) {
							continue
						}
						w.Write(line)
					}
				}
				if e.Test == "" {
					failedPkgs++
					if e.FailedBuild == "" {
						fmt.Fprintf(w, "FAIL\t%s\t%.1fs\n", e.Package, e.Elapsed)
					}
				}
			case top && e.Action == "pass":
				tests++
			case top && e.Action == "skip":
				skipped++
			}
			delete(out, id)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "testlog:", err)
		return 1
	}
	fmt.Fprintf(w, "%d tests passed, %d skipped, %d failed; %d packages failed (log: %s)\n", tests, skipped, failed, failedPkgs, log)
	if failed > 0 || failedPkgs > 0 {
		return 1
	}
	return 0
}

// leftOut reads a -short run's log: per package, the top-level tests to
// run in full.
func leftOut(log string) (map[string][]string, error) {
	data, err := os.ReadFile(log)
	if err != nil {
		return nil, err
	}
	tests := map[string]map[string]bool{}
	for line := range bytes.Lines(data) {
		var e event
		if json.Unmarshal(line, &e) != nil || e.Test == "" {
			continue
		}
		if e.Action == "skip" || (e.Action == "output" && strings.Contains(e.Output, shortMarker)) {
			top, _, _ := strings.Cut(e.Test, "/")
			if tests[e.Package] == nil {
				tests[e.Package] = map[string]bool{}
			}
			tests[e.Package][top] = true
		}
	}
	out := map[string][]string{}
	for pkg, ts := range tests {
		for t := range ts {
			out[pkg] = append(out[pkg], t)
		}
		slices.Sort(out[pkg])
	}
	return out, nil
}

// full runs the tests leftOut names, a package per command, two at a
// time (the cores of the machines this runs on), and prints each
// package's output when it ends; 1 when any failed.
func full(log string, command []string) int {
	pkgs, err := leftOut(log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testlog:", err)
		return 1
	}
	names := make([]string, 0, len(pkgs))
	for p := range pkgs {
		names = append(names, p)
	}
	slices.Sort(names)
	fmt.Printf("running in full what -short left out: %d packages\n", len(names))
	var mu sync.Mutex
	rc := 0
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for _, pkg := range names {
		quoted := make([]string, len(pkgs[pkg]))
		for i, t := range pkgs[pkg] {
			quoted[i] = regexp.QuoteMeta(t)
		}
		args := append(slices.Clone(command[1:]), "-run", "^("+strings.Join(quoted, "|")+")$", pkg)
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			cmd := exec.Command(command[0], args...)
			b, err := cmd.CombinedOutput()
			mu.Lock()
			defer mu.Unlock()
			os.Stdout.Write(b)
			if err != nil {
				fmt.Printf("FAIL: %s %s: %v\n", command[0], strings.Join(args, " "), err)
				rc = 1
			}
		}()
	}
	wg.Wait()
	return rc
}
