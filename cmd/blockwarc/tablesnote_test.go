package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/export/columnar"
)

// TestTablesAuto: under -tables=auto (the default) an ingest that adds
// less than a quarter of the records the tables describe leaves them as
// they were, says so, and marks them behind (verify notes it and passes;
// report warns); the ingest that brings the archive to a quarter more
// rewrites them, into what 'blockwarc tables' writes. -tables rewrites
// them at every ingest and says what that costs; -tables=false leaves
// them alone, and verify then counts stale tables as a problem.
func TestTablesAuto(t *testing.T) {
	defer func(m, s int64) { rewriteMin, tablesSmall = m, s }(rewriteMin, tablesSmall)
	rewriteMin, tablesSmall = 50, 50 // the samples are a few hundred records
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "samples", "*.warc.gz"))
	slices.Sort(files)
	if len(files) < 20 {
		t.Fatalf("testdata/samples: %d files", len(files))
	}
	arch := filepath.Join(t.TempDir(), "a.bwa")
	tdir := filepath.Join(arch, "tables")
	const note = "the tables were rebuilt from all "
	first := len(files) * 2 / 3
	code, _, stderr := runCmd(t, append([]string{"ingest", arch}, files[:first]...)...)
	if code != exitOK || strings.Contains(stderr, note) || strings.Contains(stderr, "left as they were") {
		t.Fatalf("first ingest: exit %d, stderr:\n%s", code, stderr)
	}
	records := func() (tables, now int64, gen string) {
		g, ok, err := columnar.ReadGenerationInfo(tdir)
		if err != nil || !ok || g.Records <= 0 {
			t.Fatalf("tables generation %+v %v %v", g, ok, err)
		}
		a, err := openArchive(arch, os.Stderr)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		return g.Records, a.Records(), g.Gen
	}
	var behind, rewritten int
	for _, f := range files[first:] {
		before, _, gen0 := records()
		code, _, stderr := runCmd(t, "ingest", arch, f)
		if code != exitOK || strings.Contains(stderr, note) {
			t.Fatalf("ingest %s: exit %d, stderr:\n%s", f, code, stderr)
		}
		after, now, gen := records()
		if due := now*growthDen >= before*growthNum; !due {
			behind++
			if gen != gen0 || after != before || !strings.Contains(stderr, "tables left as they were") {
				t.Fatalf("%d records into tables of %d: rewritten (generation %s → %s), stderr:\n%s", now, before, gen0, gen, stderr)
			}
			code, out, errOut := runCmd(t, "verify", arch)
			if code != exitOK || !strings.Contains(out, "; 0 problem(s)") || !strings.Contains(errOut, "leaves them behind") {
				t.Fatalf("verify with tables behind by policy: exit %d, %q %q", code, out, errOut)
			}
			if code, _, errOut := runCmd(t, "report", arch); code != exitOK || !strings.Contains(errOut, "warning: the tables") {
				t.Fatalf("report with tables behind: exit %d, %q", code, errOut)
			}
			continue
		}
		rewritten++
		if after != now || gen == gen0 || strings.Contains(stderr, "left as they were") {
			t.Fatalf("%d records into tables of %d: not rewritten (tables of %d records), stderr:\n%s", now, before, after, stderr)
		}
		fresh := filepath.Join(t.TempDir(), "fresh")
		if code, _, errOut := runCmd(t, "tables", "-o", fresh, arch); code != exitOK {
			t.Fatalf("tables: exit %d: %s", code, errOut)
		}
		sameTree(t, fresh, tdir)
	}
	if behind == 0 || rewritten == 0 {
		t.Fatalf("%d ingests left the tables behind and %d rewrote them: want both", behind, rewritten)
	}

	// -tables: at every ingest, with a word on the cost once the archive
	// is ten times what was added; also where auto would leave them
	// (current tables, and one file more).
	if code, _, errOut := runCmd(t, "tables", arch); code != exitOK {
		t.Fatalf("tables: exit %d: %s", code, errOut)
	}
	more := filepath.Join(t.TempDir(), "more.warc.gz")
	copyFile(t, files[0], more) // the same records: nothing new, but a new file
	if tables, now, _ := records(); rewriteDue(now+fileRecords(t, arch, files[0]), tables) {
		t.Fatalf("one file more into tables of %d records: auto would rewrite them too, so this does not test -tables", tables)
	}
	code, _, stderr = runCmd(t, "ingest", "-tables", arch, more)
	if code != exitOK || !strings.Contains(stderr, note) || !strings.Contains(stderr, "-tables=auto (the default)") || strings.Contains(stderr, "left as they were") {
		t.Fatalf("ingest -tables: exit %d, want the note; stderr:\n%s", code, stderr)
	}
	if tables, now, _ := records(); tables != now {
		t.Fatalf("ingest -tables: tables of %d records, archive of %d", tables, now)
	}
	if code, _, stderr := runCmd(t, "ingest", "-tables=maybe", arch, more); code != exitUsage {
		t.Fatalf("-tables=maybe: exit %d, %s", code, stderr)
	}

	// -tables=false: the tables are stale, not behind by policy.
	other := filepath.Join(t.TempDir(), "other.warc.gz")
	copyFile(t, files[1], other)
	if code, _, stderr := runCmd(t, "ingest", "-tables=false", arch, other); code != exitOK || stderr != "" {
		t.Fatalf("ingest -tables=false: exit %d, %s", code, stderr)
	}
	if code, out, errOut := runCmd(t, "verify", arch); code != exitFailure || !strings.Contains(out, "; 1 problem(s)") || !strings.Contains(errOut, "are stale") {
		t.Fatalf("verify after -tables=false: exit %d, %q %q", code, out, errOut)
	}
}

// fileRecords is the records the archive at arch read from the input
// file named as f.
func fileRecords(t *testing.T, arch, f string) int64 {
	t.Helper()
	a, err := openArchive(arch, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for _, in := range a.Files() {
		if filepath.Base(in.Name) == filepath.Base(f) {
			return in.Records
		}
	}
	t.Fatalf("%s: not among the archive's input files", f)
	return 0
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRewriteDueBounds(t *testing.T) {
	for _, c := range []struct {
		n, tables int64
		due       bool
	}{
		{499, 490, true},  // under tablesSmall: cheap
		{500, 490, false}, // a few records more
		{12499, 10000, false},
		{12500, 10000, true}, // a quarter more
		{9999, 10000, true},  // fewer: the tables describe what is gone
		{-1, 10000, true},    // unknown
		{10000, 0, true},     // tables of unknown size
	} {
		if got := rewriteDue(c.n, c.tables); got != c.due {
			t.Errorf("rewriteDue(%d, %d) = %v, want %v", c.n, c.tables, got, c.due)
		}
	}
}

func TestRewriteNoteBounds(t *testing.T) {
	for _, c := range []struct {
		walked, added int64
		say           bool
	}{
		{5046, 8, true},
		{5046, 504, true},
		{5046, 505, false}, // a tenth of the archive or more
		{1999, 1, false},   // under rewriteMin: cheap
		{2000, 1, true},
		{5046, -1, false}, // compact: nothing to compare with
	} {
		if got := rewriteNote(c.walked, c.added, "a.bwa") != ""; got != c.say {
			t.Errorf("rewriteNote(%d, %d): said %v, want %v", c.walked, c.added, got, c.say)
		}
	}
}
