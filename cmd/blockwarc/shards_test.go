package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/shard"
	"github.com/blockwarc/blockwarc/export/columnar"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// samplesDir is the repository's small sample crawl (one host).
func samplesDir(t *testing.T) string {
	return filepath.Join(sharedtest.RepoRoot(t), "testdata", "samples")
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := runCmd(t, args...)
	if code != exitOK {
		t.Fatalf("blockwarc %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	return out
}

// TestShardedCommands ingests the same inputs unsharded and into shards
// and checks that every reading command gives the same answer: ls, cat
// of every capture, export-warc, export-warc -source/-sources -original
// (input files whose records lie in several shards), verify, tables
// (the same Parquet files) and the report's record figures.
func TestShardedCommands(t *testing.T) {
	in := samplesDir(t)
	dir := t.TempDir()
	one, sh := filepath.Join(dir, "one.bwa"), filepath.Join(dir, "sh.bwa")
	mustRun(t, "ingest", "-prove", "-workers", "2", one, in)
	mustRun(t, "ingest", "-prove", "-workers", "2", "-shards", "2", sh, in)
	m, err := shard.ReadManifest(sh)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Shards) != 2 {
		t.Fatalf("manifest has %d shards, want 2", len(m.Shards))
	}
	// Both shards hold captures: else the test would not cross shards.
	for _, s := range m.Shards {
		out := mustRun(t, "ls", filepath.Join(sh, s.Name))
		if strings.Count(out, "\n") == 0 {
			t.Fatalf("shard %s holds no URL", s.Name)
		}
	}

	for _, args := range [][]string{{"ls"}, {"ls", "-captures"}, {"ls", "-files"}, {"ls", "-json", "-captures"}} {
		a := mustRun(t, append(args, one)...)
		b := mustRun(t, append(args, sh)...)
		if a != b || a == "" {
			t.Errorf("%v differs between the unsharded and the sharded archive:\n%s\n---\n%s", args, a, b)
		}
	}
	// cat: every capture, as a whole record.
	caps := strings.Split(strings.TrimSpace(mustRun(t, "ls", "-captures", one)), "\n")
	for _, line := range caps {
		f := strings.Split(line, "\t")
		ts := strings.NewReplacer("-", "", "T", "", ":", "", "Z", "").Replace(f[1])
		a := mustRun(t, "cat", "-part", "record", "-at", ts, one, f[0])
		b := mustRun(t, "cat", "-part", "record", "-at", ts, sh, f[0])
		if a != b || a == "" {
			t.Errorf("cat %s at %s differs (%d vs %d bytes)", f[0], ts, len(a), len(b))
		}
	}
	if a, b := mustRun(t, "export-warc", one), mustRun(t, "export-warc", sh); a != b || a == "" {
		t.Errorf("export-warc differs: %d vs %d bytes", len(a), len(b))
	}
	// Every input file, as given: its records come from both shards.
	srcs := filepath.Join(dir, "sources")
	mustRun(t, "export-warc", "-sources", srcs, "-original", sh)
	inputs, _ := filepath.Glob(filepath.Join(in, "*.warc.gz"))
	for _, p := range inputs {
		want, _ := os.ReadFile(p)
		got, err := os.ReadFile(filepath.Join(srcs, filepath.Base(p)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("export-warc -sources -original %s: %d bytes (%v), want the input's %d", filepath.Base(p), len(got), err, len(want))
		}
	}
	name := filepath.Base(inputs[len(inputs)-1])
	if a, b := mustRun(t, "export-warc", "-source", name, one), mustRun(t, "export-warc", "-source", name, sh); a != b || a == "" {
		t.Errorf("export-warc -source %s differs", name)
	}
	// verify: the same records, digests and files; objects differ (a
	// block two shards share is stored in both).
	va, vb := mustRun(t, "verify", one), mustRun(t, "verify", sh)
	_, ta, _ := strings.Cut(va, " objects, ")
	_, tb, _ := strings.Cut(vb, " objects, ")
	if ta != tb || !strings.Contains(tb, "; 0 problem(s)") {
		t.Errorf("verify: %q vs %q", va, vb)
	}
	// The tables (written by ingest): the sharded archive's, built per
	// shard, have the same rows.
	sameTableRows(t, filepath.Join(one, "tables"), filepath.Join(sh, "tables"))
	if p, _ := filepath.Glob(filepath.Join(sh, "tables", "captures", "part-0001-*.parquet")); len(p) == 0 {
		t.Errorf("no captures part of shard 1 in %s", filepath.Join(sh, "tables"))
	}
	// The report counts the same records and captures.
	ra, rb := mustRun(t, "report", "-json", one), mustRun(t, "report", "-json", sh)
	for _, field := range []string{`"captures":`, `"records":`} {
		if i, j := strings.Index(ra, field), strings.Index(rb, field); i < 0 || j < 0 || ra[i:i+30] != rb[j:j+30] {
			t.Errorf("report %s differs or is missing", field)
		}
	}

	// A second ingest asking another shard count keeps the archive's.
	code, _, errOut := runCmd(t, "ingest", "-shards", "5", sh, in)
	if code != exitOK || !strings.Contains(errOut, "keeps its 2 shard(s)") {
		t.Errorf("second ingest with -shards 5: exit %d, stderr %q: want the stored boundaries kept, and said", code, errOut)
	}
	// -shards on an existing unsharded archive is refused.
	if code, _, errOut := runCmd(t, "ingest", "-shards", "2", one, in); code != exitFailure || !strings.Contains(errOut, "unsharded") {
		t.Errorf("ingest -shards 2 into an unsharded archive: exit %d, %q", code, errOut)
	}
}

// TestShardedDeterministic checks that a sharded archive's bytes do not
// depend on the workers or the order of the inputs, on two corpus sites
// (two hosts: the boundary falls between them).
func TestShardedDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests two corpus sites three times")
	}
	files := sharedtest.CorpusFiles(t, "ota-lovescout24", "ota-mektoube")
	rev := slices.Clone(files)
	slices.Reverse(rev)
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.bwa"), filepath.Join(dir, "b.bwa"), filepath.Join(dir, "c.bwa")
	mustRun(t, append([]string{"ingest", "-tables=false", "-workers", "1", "-shards", "2", a}, files...)...)
	mustRun(t, append([]string{"ingest", "-tables=false", "-workers", "2", "-shards", "2", b}, rev...)...)
	// A small budget: the shards' sorts spill to disk.
	mustRun(t, append([]string{"ingest", "-tables=false", "-workers", "2", "-mem", "64MiB", "-shards", "2", c}, rev...)...)
	ta, tb, tc := readTree(t, a), readTree(t, b), readTree(t, c)
	if len(ta) < 4 || !equalTrees(ta, tb) || !equalTrees(ta, tc) {
		t.Fatalf("sharded archives differ:\n%v\n%v\n%v", keys(ta), keys(tb), keys(tc))
	}
	m, err := shard.ReadManifest(a)
	if err != nil {
		t.Fatal(err)
	}
	// The two sites are far apart in size; each is a host: the cut falls
	// at a host's start unless the host is large (the bigger site is).
	t.Logf("boundaries %q", m.Boundaries())
	if out := mustRun(t, "verify", a); !strings.Contains(out, "; 0 problem(s)") {
		t.Errorf("verify: %s", out)
	}
}

// readTree reads every file under dir (LOCK files aside: empty, and not
// archive content) by relative path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "LOCK" {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equalTrees(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

func keys(m map[string][]byte) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s:%d", k, len(v)))
	}
	slices.Sort(out)
	return out
}

// sameTableRows checks with DuckDB that the tables in b, of a sharded
// archive, have the rows of the tables in a, of the same inputs
// unsharded: the same captures (added_bytes aside: charged per shard),
// urls and changes; the same capture_blocks, links and predecessors once
// block_no is resolved to the block's id through blocks (which every
// block_no of b does); the same distinct blocks.
func sameTableRows(t *testing.T, a, b string) {
	t.Helper()
	var setup []string
	for _, d := range []struct{ name, dir string }{{"a", a}, {"b", b}} {
		for _, tb := range columnar.Tables() {
			setup = append(setup, fmt.Sprintf("CREATE VIEW %s_%s AS SELECT * FROM read_parquet('%s/*.parquet')", d.name, tb, filepath.ToSlash(filepath.Join(d.dir, tb))))
		}
		setup = append(setup, fmt.Sprintf(`CREATE VIEW %[1]s_cb AS SELECT cb.* EXCLUDE (block_no, predecessor_block_no), b.block_id, p.block_id AS predecessor_block_id
			FROM %[1]s_capture_blocks cb LEFT JOIN %[1]s_blocks b USING (block_no) LEFT JOIN %[1]s_blocks p ON p.block_no = cb.predecessor_block_no`, d.name))
		setup = append(setup, fmt.Sprintf(`CREATE VIEW %[1]s_ln AS SELECT l.* EXCLUDE (block_no), b.block_id FROM %[1]s_links l LEFT JOIN %[1]s_blocks b USING (block_no)`, d.name))
		setup = append(setup, fmt.Sprintf(`CREATE VIEW %[1]s_caps AS SELECT * EXCLUDE (added_bytes) FROM %[1]s_captures`, d.name))
		setup = append(setup, fmt.Sprintf(`CREATE VIEW %[1]s_ids AS SELECT DISTINCT block_id FROM %[1]s_blocks`, d.name))
	}
	diff := func(v string) string {
		return fmt.Sprintf("SELECT count(*) AS n FROM ((SELECT * FROM a_%[1]s EXCEPT ALL SELECT * FROM b_%[1]s) UNION ALL (SELECT * FROM b_%[1]s EXCEPT ALL SELECT * FROM a_%[1]s))", v)
	}
	queries := map[string]string{
		"rows": "SELECT (SELECT count(*) FROM b_captures) + (SELECT count(*) FROM b_capture_blocks) * 1000000 AS n",
		"unresolved": `SELECT (SELECT count(*) FROM b_capture_blocks WHERE block_no NOT IN (SELECT block_no FROM b_blocks)
			OR predecessor_block_no NOT IN (SELECT block_no FROM b_blocks))
			+ (SELECT count(*) FROM b_links WHERE block_no NOT IN (SELECT block_no FROM b_blocks)) AS n`,
	}
	for _, v := range []string{"caps", "urls", "changes", "cb", "ln", "ids"} {
		queries[v] = diff(v)
	}
	res := duckQuery(t, setup, queries)
	n := func(q string) float64 {
		rows := res[q]
		if len(rows) != 1 {
			t.Fatalf("query %s: %v", q, rows)
		}
		f, err := strconv.ParseFloat(fmt.Sprint(rows[0]["n"]), 64)
		if err != nil {
			t.Fatalf("query %s: %v", q, rows)
		}
		return f
	}
	if r := n("rows"); r < 1000000 || int64(r)%1000000 == 0 {
		t.Fatalf("the sharded tables have no captures or capture_blocks (%v): nothing compared", r)
	}
	for q := range queries {
		if q != "rows" && n(q) != 0 {
			t.Errorf("tables %s: %v rows differ", q, n(q))
		}
	}
}
