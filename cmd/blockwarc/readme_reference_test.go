package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestReadmeCommandReference keeps README.md's "Command reference" in
// step with the commands (issue 37): every command has its section
// there, every flag its -help lists is named in it, every flag its
// heading's synopsis names exists, and no section names a command that
// does not. A flag added without a word in the README fails here, as
// does one removed while the README still offers it.
func TestReadmeCommandReference(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(sharedtest.RepoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	ref, ok := section(string(b), "## Command reference\n", "\n## ")
	if !ok {
		t.Fatal(`README.md has no "## Command reference" section`)
	}
	sections := map[string]string{} // command → its ### section, heading included
	for _, part := range strings.Split(ref, "\n### ")[1:] {
		m := regexp.MustCompile("^`blockwarc ([a-z-]+)").FindStringSubmatch(part)
		if m == nil {
			continue // blockwarc-beam: a module of its own, checked there
		}
		sections[m[1]] = part
	}
	cmds := commands()
	for name := range sections {
		if _, ok := cmds[name]; !ok {
			t.Errorf("README's command reference has a section for %q, which is no command", name)
		}
	}
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	flagLine := regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`)
	for _, name := range names {
		sec, ok := sections[name]
		if !ok {
			t.Errorf("README's command reference has no section \"### `blockwarc %s …`\"", name)
			continue
		}
		code, help, _ := runCmd(t, name, "-help")
		if code != exitOK {
			t.Fatalf("%s -help: exit %d", name, code)
		}
		flags := map[string]bool{}
		for _, m := range flagLine.FindAllStringSubmatch(help, -1) {
			flags[m[1]] = true
			if !regexp.MustCompile("[`\\[ (|/]-" + regexp.QuoteMeta(m[1]) + "([^a-z0-9-]|$)").MatchString(sec) {
				t.Errorf("README: the section of %s does not name its flag -%s", name, m[1])
			}
		}
		heading, _, _ := strings.Cut(sec, "\n")
		for _, m := range regexp.MustCompile(`[\[ (|]-([a-z][a-z0-9-]*)`).FindAllStringSubmatch(heading, -1) {
			if !flags[m[1]] {
				t.Errorf("README: the synopsis of %s names -%s, which %s -help does not list", name, m[1], name)
			}
		}
	}
}

// section returns the text of s from start up to the next end after it.
func section(s, start, end string) (string, bool) {
	_, rest, ok := strings.Cut(s, start)
	if !ok {
		return "", false
	}
	if i := strings.Index(rest, end); i >= 0 {
		rest = rest[:i]
	}
	return rest, true
}

// TestReadmeDependencies: every module go.mod requires directly has its
// row, with a why, in README.md's "Dependencies" table (issue 37: four
// were missing).
func TestReadmeDependencies(t *testing.T) {
	root := sharedtest.RepoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	deps, ok := section(string(b), "## Dependencies\n", "\n## ")
	if !ok {
		t.Fatal(`README.md has no "## Dependencies" section`)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range regexp.MustCompile(`(?m)^\t(\S+) v\S+$`).FindAllStringSubmatch(string(mod), -1) {
		n++
		row := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(m[1]) + "`[^|]*\\| *([^|]*\\S)[^|]*\\|$").FindStringSubmatch(deps)
		if row == nil || len(row[1]) < 10 {
			t.Errorf("README's dependency table has no row with a why for %s, which go.mod requires", m[1])
		}
	}
	if n == 0 {
		t.Fatal("go.mod: no direct requirement found")
	}
}
