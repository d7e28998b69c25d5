package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// The packages of module blockwarc stand on floors, and an import goes
// down, never up nor across (issue 37; README.md "Packages"):
//
//	4  cmd/...     the programs: nothing imports them
//	3  export/...  reads archives into tables, reports, diffs, WARC
//	2  dedupe/...  the archive: imports no export package
//	1  warcio      reads WARC and ARC files
//	1  partition   cuts HTML into blocks
//	0  internal/*  small leaves: each imports no project package
//
// warcio and partition, both on floor 1, import neither each other nor
// any package above. They import no project package today; internal/*
// is let in below them all the same, as it is the floor its packages
// were made for: leaves shared by the packages above (countio counts
// what the export writers write, zstdlib is the one place the cgo zstd
// compresses) that import no project package themselves (checked here:
// one package of floor 0 importing another is across), so importing one
// brings nothing of a floor above in. internal/sharedtest is the
// exception: a test helper (it imports testing) that only test code may
// import.
//
// Within one tree (dedupe and dedupe/pack, export/tables and
// export/diff) imports are free: the go command already forbids cycles.
// Test code (TestImports, XTestImports) may also go across, for cross
// checks (warcio's tests compare its charset detection with
// partition.DetectCharset), but not up. The module
// blockwarc/cmd/blockwarc-beam, nested in cmd/, is a module of its own,
// which go list ./... does not list; it is a program, on floor 4 like
// cmd/blockwarc. The test lives here, in the package on top, which sees
// the whole module.

// floorOf returns the floor of a package of module blockwarc and its
// tree (imports within one tree are free); ok is false for a package no
// floor names, which the test reports so that a new top-level directory
// is given its floor.
func floorOf(pkg string) (floor int, tree string, ok bool) {
	rel, found := strings.CutPrefix(pkg, "github.com/blockwarc/blockwarc/")
	if !found {
		return 0, "", false
	}
	top, _, _ := strings.Cut(rel, "/")
	switch top {
	case "internal":
		return 0, rel, true // each internal package is a tree of its own
	case "warcio", "partition":
		return 1, top, true
	case "dedupe":
		return 2, top, true
	case "export":
		return 3, top, true
	case "cmd":
		return 4, rel, true
	}
	return 0, "", false
}

// floorViolation says what is wrong with from importing to (both
// packages of the module), "" when nothing is; test is whether the
// import is in test code.
func floorViolation(from, to string, test bool) string {
	ff, ft, ok := floorOf(from)
	if !ok {
		return from + " is on no floor: give its directory one in floorOf"
	}
	tf, tt, ok := floorOf(to)
	switch {
	case !ok:
		return to + " is on no floor: give its directory one in floorOf"
	case tf == 4:
		return "imports " + to + ": nothing imports a package under cmd/"
	case to == "github.com/blockwarc/blockwarc/internal/sharedtest" && !test:
		return "imports " + to + " outside its tests: it is a test helper"
	case ft == tt:
		return ""
	case tf > ff:
		return "imports " + to + ", on a higher floor"
	case tf == ff && !test:
		return "imports " + to + ", across its floor"
	}
	return ""
}

// TestFloors lists every package of the module with its imports (go
// list, without building anything) and checks each import against the
// floors above.
func TestFloors(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		sharedtest.Unavailable(t, "the go command is not on PATH (%v): the floors of the imports not checked", err)
	}
	cmd := exec.Command(goCmd, "list", "-f",
		"{{.ImportPath}}\t{{join .Imports \" \"}}\t{{join .TestImports \" \"}} {{join .XTestImports \" \"}}", "./...")
	cmd.Dir = sharedtest.RepoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go list: %v\n%s", err, msg)
	}
	n := 0
	for line := range strings.Lines(string(out)) {
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(f) != 3 {
			t.Fatalf("go list: unexpected line %q", line)
		}
		n++
		from := f[0]
		if _, _, ok := floorOf(from); !ok {
			t.Errorf("%s is on no floor: give its directory one in floorOf", from)
			continue
		}
		for i, imports := range f[1:] {
			for to := range strings.FieldsSeq(imports) {
				if to != "github.com/blockwarc/blockwarc" && !strings.HasPrefix(to, "github.com/blockwarc/blockwarc/") {
					continue
				}
				if v := floorViolation(from, to, i == 1); v != "" {
					where := ""
					if i == 1 {
						where = " (in its tests)"
					}
					t.Errorf("%s%s %s", from, where, v)
				}
			}
		}
	}
	if n < 10 {
		t.Fatalf("go list listed %d packages: expected the module's twenty or so", n)
	}
}

// TestFloorViolation checks the rules on imports made up for it, the
// kinds a real tree does not have (else TestFloors fails).
func TestFloorViolation(t *testing.T) {
	for _, c := range []struct {
		from, to string
		test     bool
		want     string // a word of the violation, "" for none
	}{
		{"github.com/blockwarc/blockwarc/dedupe", "github.com/blockwarc/blockwarc/warcio", false, ""},
		{"github.com/blockwarc/blockwarc/dedupe/shard", "github.com/blockwarc/blockwarc/dedupe", false, ""},
		{"github.com/blockwarc/blockwarc/export/tables", "github.com/blockwarc/blockwarc/export/diff", false, ""},
		{"github.com/blockwarc/blockwarc/warcio", "github.com/blockwarc/blockwarc/internal/countio", false, ""},
		{"github.com/blockwarc/blockwarc/warcio", "github.com/blockwarc/blockwarc/internal/sharedtest", true, ""},
		{"github.com/blockwarc/blockwarc/warcio", "github.com/blockwarc/blockwarc/partition", true, ""},
		{"github.com/blockwarc/blockwarc/warcio", "github.com/blockwarc/blockwarc/partition", false, "across"},
		{"github.com/blockwarc/blockwarc/partition", "github.com/blockwarc/blockwarc/warcio", false, "across"},
		{"github.com/blockwarc/blockwarc/internal/countio", "github.com/blockwarc/blockwarc/internal/zstdlib", false, "across"},
		{"github.com/blockwarc/blockwarc/internal/countio", "github.com/blockwarc/blockwarc/warcio", false, "higher"},
		{"github.com/blockwarc/blockwarc/dedupe/pack", "github.com/blockwarc/blockwarc/export/tables", false, "higher"},
		{"github.com/blockwarc/blockwarc/dedupe", "github.com/blockwarc/blockwarc/export", true, "higher"},
		{"github.com/blockwarc/blockwarc/export", "github.com/blockwarc/blockwarc/cmd/blockwarc", true, "cmd/"},
		{"github.com/blockwarc/blockwarc/cmd/blockwarc", "github.com/blockwarc/blockwarc/cmd/other", false, "cmd/"},
		{"github.com/blockwarc/blockwarc/warcio", "github.com/blockwarc/blockwarc/internal/sharedtest", false, "test helper"},
		{"github.com/blockwarc/blockwarc/newdir", "github.com/blockwarc/blockwarc/warcio", false, "no floor"},
		{"github.com/blockwarc/blockwarc/warcio", "github.com/blockwarc/blockwarc/newdir", false, "no floor"},
	} {
		got := floorViolation(c.from, c.to, c.test)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s imports %s (test %v): %q, want %q", c.from, c.to, c.test, got, c.want)
		}
	}
}
