package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/export/columnar"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestStaleTables: an extending ingest stopped while it rewrites the
// tables leaves the old ones (simulated: the tables of the first half of
// the inputs put back after the second half is ingested). verify and
// report -alternatives say so and exit 1; the re-run, which finds nothing
// new, rewrites them, into the tables a fresh 'blockwarc tables' writes.
func TestStaleTables(t *testing.T) {
	samples := filepath.Join(sharedtest.RepoRoot(t), "testdata", "samples")
	inputs, _ := filepath.Glob(filepath.Join(samples, "*.warc.gz"))
	if len(inputs) < 4 {
		t.Fatalf("%d sample inputs", len(inputs))
	}
	dir := t.TempDir()
	arch := filepath.Join(dir, "a.bwa")
	half := inputs[:len(inputs)/2]
	if code, _, errOut := runCmd(t, append([]string{"ingest", arch}, half...)...); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	tdir := filepath.Join(arch, "tables")
	old := filepath.Join(dir, "old-tables")
	if err := os.Rename(tdir, old); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCmd(t, append([]string{"ingest", arch}, inputs...)...); code != exitOK {
		t.Fatalf("extending ingest: exit %d: %s", code, errOut)
	}
	if err := os.RemoveAll(tdir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(old, tdir); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := runCmd(t, "verify", arch)
	if code != exitFailure || !strings.Contains(errOut, "are stale") || !strings.Contains(out, "; 1 problem(s)") || strings.Contains(errOut, "repair") {
		t.Errorf("verify with stale tables: exit %d, %q %q", code, out, errOut)
	}
	code, _, errOut = runCmd(t, "report", "-alternatives", arch)
	if code != exitFailure || !strings.Contains(errOut, "are stale") {
		t.Errorf("report -alternatives with stale tables: exit %d, %q", code, errOut)
	}
	code, _, errOut = runCmd(t, "report", arch)
	if code != exitOK || !strings.Contains(errOut, "warning: the tables") {
		t.Errorf("report with stale tables: exit %d, %q", code, errOut)
	}

	code, out, errOut = runCmd(t, append([]string{"ingest", arch}, inputs...)...)
	if code != exitOK || !strings.Contains(out, "nothing new") || !strings.Contains(errOut, "rewriting them") {
		t.Fatalf("re-run: exit %d, %q %q", code, out, errOut)
	}
	fresh := filepath.Join(dir, "fresh")
	if code, _, errOut := runCmd(t, "tables", "-o", fresh, arch); code != exitOK {
		t.Fatalf("tables: exit %d: %s", code, errOut)
	}
	sameTree(t, fresh, tdir)
	if code, out, errOut := runCmd(t, "verify", arch); code != exitOK {
		t.Errorf("verify after the re-run: exit %d, %q %q", code, out, errOut)
	}
	// Current tables are left alone by a run that finds nothing new.
	gen, ok, err := columnar.ReadGeneration(tdir)
	if !ok || err != nil || gen == "" {
		t.Fatalf("tables generation %q %v %v", gen, ok, err)
	}
	fi, _ := os.Stat(tdir)
	if code, _, errOut := runCmd(t, append([]string{"ingest", arch}, inputs...)...); code != exitOK || errOut != "" {
		t.Errorf("second re-run: exit %d, %q", code, errOut)
	}
	if fi2, _ := os.Stat(tdir); !fi2.ModTime().Equal(fi.ModTime()) {
		t.Error("current tables rewritten by an ingest that found nothing new")
	}
}

// sameTree fails unless the regular files under a and b are the same
// names and bytes.
func sameTree(t *testing.T, a, b string) {
	t.Helper()
	files := func(root string) map[string][]byte {
		m := map[string][]byte{}
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				rel, _ := filepath.Rel(root, p)
				m[rel], _ = os.ReadFile(p)
			}
			return nil
		})
		return m
	}
	fa, fb := files(a), files(b)
	if len(fa) == 0 || len(fa) != len(fb) {
		t.Fatalf("%s has %d files, %s %d", a, len(fa), b, len(fb))
	}
	for n, x := range fa {
		if !bytes.Equal(x, fb[n]) {
			t.Errorf("%s differs between %s and %s", n, a, b)
		}
	}
}
