package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestGoModTidy fails when go mod tidy would change go.mod or go.sum of
// module blockwarc: a module imported directly but marked indirect
// (whatlanggo was, issue 37), a requirement or checksum nothing needs, one
// missing. It runs go mod tidy -diff, which changes no file. Tidy reads
// more modules than a build (those of the tests of the dependencies), so
// on a fresh machine it downloads them from the module proxy, as make
// test installs whatever it needs; where the environment forbids it
// (GOPROXY=off) and the cache lacks them, the test is skipped with the
// reason (a failure under CI=true, as for any missing input). The nested
// module cmd/blockwarc-beam is not checked: its tidy needs the modules
// of the Beam SDK's tests, which no build or test of it downloads.
func TestGoModTidy(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		sharedtest.Unavailable(t, "the go command is not on PATH (%v): go mod tidy not checked", err)
	}
	cmd := exec.Command(goCmd, "mod", "tidy", "-diff")
	cmd.Dir = sharedtest.RepoRoot(t)
	// -mod=mod replaces a -mod=vendor or -mod=readonly of the caller's
	// GOFLAGS; GOWORK=off: a go.work above the repository does not count.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return
	case !errors.As(err, &exit):
		t.Fatalf("go mod tidy -diff: %v", err)
	case stdout.Len() > 0:
		// tidy -diff prints the differences as a unified diff on stdout
		// and exits with status 1.
		t.Fatalf("go.mod or go.sum is not tidy: run go mod tidy. go mod tidy -diff:\n%s%s", stdout.Bytes(), stderr.Bytes())
	case strings.Contains(stderr.String(), "GOPROXY=off"):
		sharedtest.Unavailable(t, "go mod tidy -diff needs modules the module cache lacks and GOPROXY=off forbids fetching; run go mod tidy -diff once with the network (it changes no file) to fill the cache:\n%s", firstLines(stderr.String(), 6))
	default:
		t.Fatalf("go mod tidy -diff: %v\n%s", err, stderr.Bytes())
	}
}

// firstLines returns the first n lines of s but its "go: downloading"
// lines, and a line saying how many more there are.
func firstLines(s string, n int) string {
	var lines []string
	for l := range strings.Lines(s) {
		if !strings.HasPrefix(l, "go: downloading ") {
			lines = append(lines, l)
		}
	}
	if len(lines) <= n {
		return strings.TrimSuffix(strings.Join(lines, ""), "\n")
	}
	return strings.Join(lines[:n], "") + fmt.Sprintf("… (%d lines more)", len(lines)-n)
}
