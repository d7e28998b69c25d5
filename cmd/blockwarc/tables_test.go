package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base32"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/blockwarc/blockwarc/export/columnar"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// runCLI runs the blockwarc command line in-process and returns its exit
// code and standard error.
func runCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stderr.String()
}

// parquetRows sums the rows of a table's Parquet part files (from their
// footers).
func parquetRows(t *testing.T, dir, table string) int64 {
	t.Helper()
	parts, _ := filepath.Glob(filepath.Join(dir, table, "part-*.parquet"))
	if len(parts) == 0 {
		t.Fatalf("%s: no Parquet part in %s", table, dir)
	}
	var n int64
	for _, p := range parts {
		f, err := file.OpenParquetFile(p, false)
		if err != nil {
			t.Fatalf("open %s: %v", p, err)
		}
		n += f.NumRows()
		f.Close()
	}
	return n
}

func TestTablesCommand(t *testing.T) {
	samples := filepath.Join(sharedtest.RepoRoot(t), "testdata", "samples")
	arch := filepath.Join(t.TempDir(), "s.bwa")

	if code, errs := runCLI(t, "ingest", "-tables=false", arch, samples); code != exitOK {
		t.Fatalf("ingest -tables=false: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(arch, "tables")); !os.IsNotExist(err) {
		t.Fatalf("ingest -tables=false wrote tables (stat: %v)", err)
	}

	// Usage errors: 2; failures: 1, leaving what is there alone.
	foreign := filepath.Join(t.TempDir(), "mine")
	if err := os.MkdirAll(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"tables"}, exitUsage},
		{[]string{"tables", arch, arch}, exitUsage},
		{[]string{"tables", "-format", "csv", arch}, exitUsage},
		{[]string{"tables", "-workers", "0", arch}, exitUsage},
		{[]string{"tables", "-help"}, exitOK},
		{[]string{"tables", filepath.Join(t.TempDir(), "none.bwa")}, exitFailure},
		{[]string{"tables", "-o", foreign, arch}, exitFailure},
	} {
		if code, errs := runCLI(t, c.args...); code != c.code {
			t.Errorf("%v: exit %d, want %d; stderr: %s", c.args, code, c.code, errs)
		}
	}
	if b, err := os.ReadFile(filepath.Join(foreign, "notes.txt")); err != nil || string(b) != "keep" {
		t.Errorf("-o on a foreign directory touched it: %q, %v", b, err)
	}

	// Parquet into the archive, Arrow elsewhere: the same rows.
	code, errs := runCLI(t, "tables", arch)
	if code != exitOK {
		t.Fatalf("tables: exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "captures") {
		t.Errorf("tables: no summary on stderr: %q", errs)
	}
	out := filepath.Join(t.TempDir(), "ipc")
	if code, errs := runCLI(t, "tables", "-format", "arrow", "-o", out, arch); code != exitOK {
		t.Fatalf("tables -format arrow: exit %d: %s", code, errs)
	}
	manifest := readManifest(t, filepath.Join(samples, "manifest.tsv"))
	tdir := filepath.Join(arch, "tables")
	if n := parquetRows(t, tdir, columnar.Captures); n < int64(len(manifest)) {
		t.Errorf("captures: %d rows, fewer than the %d HTML captures of the manifest", n, len(manifest))
	}
	for _, table := range columnar.Tables() {
		arrows, _ := filepath.Glob(filepath.Join(out, table, "part-*.arrow"))
		if len(arrows) == 0 {
			t.Errorf("%s: no Arrow part in %s", table, out)
		}
	}

	// ingest writes tables by default, replacing those there.
	arch2 := filepath.Join(t.TempDir(), "s2.bwa")
	if code, errs := runCLI(t, "ingest", arch2, samples); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errs)
	}
	for _, table := range columnar.Tables() {
		if a, b := parquetRows(t, tdir, table), parquetRows(t, filepath.Join(arch2, "tables"), table); a != b {
			t.Errorf("%s: %d rows from tables, %d from ingest", table, a, b)
		}
	}
}

// manifestEntry is an HTML capture of a corpus manifest.tsv.
type manifestEntry struct {
	url    string
	at     time.Time
	digest string // as content_digest and CDXJ write it: BASE32, no "sha1:"
}

// readManifest reads url, capture_time, payload_sha1 (hex) lines.
func readManifest(t *testing.T, path string) []manifestEntry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []manifestEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) != 3 || fs[0] == "url" {
			continue
		}
		at, err := time.Parse(time.RFC3339, fs[1])
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		sum, err := hex.DecodeString(fs[2])
		if err != nil || len(sum) != 20 {
			t.Fatalf("%s: bad sha1 %q", path, fs[2])
		}
		out = append(out, manifestEntry{fs[0], at.UTC(), base32.StdEncoding.EncodeToString(sum)})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// npmScript returns the path of testdata/npm/SCRIPT once node and the npm
// package module are installed (`make npm`); it fails under CI=true when
// they are not, else skips.
func npmScript(t *testing.T, module, script string) string {
	t.Helper()
	npm := filepath.Join(sharedtest.RepoRoot(t), "testdata", "npm")
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node not found"
	} else if _, err := os.Stat(filepath.Join(npm, "node_modules", module, "package.json")); err != nil {
		missing = module + " missing under " + npm + ": run `make npm`"
	}
	if missing != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s (CI=true): %s needs it", missing, script)
		}
		t.Skipf("%s: skipping the test with %s", missing, script)
	}
	return filepath.Join(npm, script)
}

// runNode runs a node script from its directory and returns its stdout.
func runNode(t *testing.T, script string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("node", append([]string{script}, args...)...)
	cmd.Dir = filepath.Dir(script)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", filepath.Base(script), err, stderr.String())
	}
	return out
}

// docQueries returns the sql blocks of the "Example queries" section of
// docs/TABLES.md: the view setup (statements creating views over
// 'site.bwa/tables', pointed at tablesDir) and the example queries.
func docQueries(t *testing.T, tablesDir string) (setup, examples []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedtest.RepoRoot(t), "docs", "TABLES.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Example queries\n")
	if !ok {
		t.Fatal(`docs/TABLES.md has no "## Example queries" section`)
	}
	if i := strings.Index(sec, "\n## "); i >= 0 {
		sec = sec[:i]
	}
	for {
		_, rest, ok := strings.Cut(sec, "```sql\n")
		if !ok {
			break
		}
		q, after, ok := strings.Cut(rest, "```")
		if !ok {
			t.Fatal("docs/TABLES.md: unterminated sql block")
		}
		sec = after
		if strings.Contains(q, "CREATE VIEW") {
			for _, stmt := range strings.Split(q, ";") {
				if stmt = strings.TrimSpace(stmt); stmt != "" {
					setup = append(setup, strings.ReplaceAll(stmt, "site.bwa/tables", filepath.ToSlash(tablesDir)))
				}
			}
			continue
		}
		examples = append(examples, q)
	}
	if len(setup) != len(columnar.Tables()) || len(examples) < 3 {
		t.Fatalf("docs/TABLES.md example queries: %d view statements (want %d) and %d queries (want at least 3)",
			len(setup), len(columnar.Tables()), len(examples))
	}
	return setup, examples
}

// TestTablesDuckDB ingests corpus sites (ingest writes the tables), opens
// the Parquet tables with DuckDB, an independent reader, and checks them
// against the corpus manifest and against each other; then runs every
// example query of docs/TABLES.md.
func TestTablesDuckDB(t *testing.T) {
	script := npmScript(t, "@duckdb/node-api", "duckdb-check.mjs")
	sites := []string{"mkdocs-org", "ota-mektoube", "ota-lovescout24", "ota-tinder"}
	var inputs []string
	var manifest []manifestEntry
	for _, s := range sites {
		d := sharedtest.Dir(t, "corpus", s)
		inputs = append(inputs, d)
		manifest = append(manifest, readManifest(t, filepath.Join(d, "manifest.tsv"))...)
	}
	arch := filepath.Join(t.TempDir(), "corpus.bwa")
	if code, errs := runCLI(t, append([]string{"ingest", arch}, inputs...)...); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errs)
	}
	tdir := filepath.Join(arch, "tables")
	setup, examples := docQueries(t, tdir)
	in, err := json.Marshal(map[string]any{"tables": tdir, "setup": setup, "examples": examples})
	if err != nil {
		t.Fatal(err)
	}
	inPath := filepath.Join(t.TempDir(), "in.json")
	if err := os.WriteFile(inPath, in, 0o644); err != nil {
		t.Fatal(err)
	}
	outb := runNode(t, script, inPath)
	var res struct {
		Checks   map[string]int64
		HTML     [][3]string
		Examples []struct {
			Rows    int
			Columns []string
			First   map[string]any
		}
	}
	if err := json.Unmarshal(outb, &res); err != nil {
		t.Fatalf("duckdb-check output: %v\n%s", err, outb)
	}
	c := res.Checks
	t.Logf("DuckDB checks: %v", c)

	// Every HTML capture of the manifest, as often as it lists it (a crawl
	// may fetch a URL twice in the same second), with its digest.
	type capture struct{ key, digest string }
	want := map[capture]int{}
	for _, m := range manifest {
		want[capture{m.url + " " + strconv.FormatInt(m.at.UnixMicro(), 10), m.digest}]++
	}
	if len(res.HTML) != len(manifest) {
		t.Errorf("DuckDB finds %d HTML captures (200 text/html responses), the manifest lists %d", len(res.HTML), len(manifest))
	}
	got := map[capture]int{}
	for _, h := range res.HTML {
		got[capture{h[0] + " " + h[1], h[2]}]++
	}
	for c, n := range got {
		if want[c] != n {
			t.Errorf("capture %s with content_digest %s: %d in the tables, %d in the manifest", c.key, c.digest, n, want[c])
		}
	}
	for c, n := range want {
		if got[c] == 0 {
			t.Errorf("capture %s with digest %s: in the manifest (%d×), not in the tables", c.key, c.digest, n)
		}
	}

	// Tables agree with each other, and the checks are not vacuous.
	for name, want := range map[string]int64{
		"blocks_total_mismatch":              0,
		"capture_blocks_without_capture":     0,
		"capture_blocks_bad_ordinals":        0,
		"capture_blocks_unknown_block":       0,
		"capture_blocks_fetch_time_mismatch": 0,
		"blocks_unreferenced":                0,
		"blocks_counts_mismatch":             0,
		"duplicate_block_ids":                0,
		"block_no_not_row_number":            0,
		"capture_blocks_unknown_predecessor": 0,
		"links_unknown_block":                0,
		"changes_changed_mismatch":           0,
		"changes_without_capture":            0,
		"first_captures_changed_not_null":    0,
		"urls_captures_mismatch":             0,
		"changes_rows":                       c["captures_after_first"],
		"web_captures_rows":                  c["captures_after_first"] + c["urls_rows"],
	} {
		if got, ok := c[name]; !ok || got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
	for _, name := range []string{"captures_with_blocks", "capture_blocks_rows", "blocks_rows", "changes_changed"} {
		if c[name] == 0 {
			t.Errorf("%s = 0: the corpus should give some", name)
		}
	}

	if len(res.Examples) != len(examples) {
		t.Fatalf("%d example results for %d queries", len(res.Examples), len(examples))
	}
	for i, e := range res.Examples {
		if e.Rows == 0 {
			t.Errorf("example query %d returned no rows:\n%s", i+1, examples[i])
		} else {
			t.Logf("example %d: %d rows; first %v", i+1, e.Rows, e.First)
		}
	}
}

// arrowTypeJS is how apache-arrow names the types of the Arrow schemas.
var arrowTypeJS = map[arrow.Type]string{
	arrow.STRING: "Utf8", arrow.INT16: "Int16", arrow.INT32: "Int32", arrow.INT64: "Int64",
	arrow.FLOAT32: "Float32", arrow.FLOAT64: "Float64", arrow.BOOL: "Bool",
	arrow.TIMESTAMP: "Timestamp<MICROSECOND, UTC>", arrow.LIST: "List<Utf8>",
}

// TestTablesArrowIPC writes the sample archive's tables as Arrow IPC and
// reads them with apache-arrow (JavaScript), an independent reader: every
// value decodes, the schemas are those of package columnar and the row
// counts those of the Parquet tables.
func TestTablesArrowIPC(t *testing.T) {
	script := npmScript(t, "apache-arrow", "arrow-check.mjs")
	samples := filepath.Join(sharedtest.RepoRoot(t), "testdata", "samples")
	arch := filepath.Join(t.TempDir(), "s.bwa")
	if code, errs := runCLI(t, "ingest", arch, samples); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errs)
	}
	out := filepath.Join(t.TempDir(), "ipc")
	if code, errs := runCLI(t, "tables", "-format", "arrow", "-o", out, arch); code != exitOK {
		t.Fatalf("tables -format arrow: exit %d: %s", code, errs)
	}
	var res map[string]struct {
		Rows, Batches, Parts int64
		Fields               []struct {
			Name, Type string
			Nullable   bool
		}
	}
	if err := json.Unmarshal(runNode(t, script, out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != len(columnar.Tables()) {
		t.Errorf("apache-arrow read %d tables, want %d", len(res), len(columnar.Tables()))
	}
	for _, table := range columnar.Tables() {
		r, ok := res[table]
		if !ok {
			t.Errorf("%s: not read", table)
			continue
		}
		if want := parquetRows(t, filepath.Join(arch, "tables"), table); r.Rows != want || r.Parts < 1 {
			t.Errorf("%s: %d rows in %d parts, want %d rows as in Parquet", table, r.Rows, r.Parts, want)
		}
		fields := columnar.Schema(table).Fields()
		if len(r.Fields) != len(fields) {
			t.Errorf("%s: %d fields, want %d", table, len(r.Fields), len(fields))
			continue
		}
		for i, f := range fields {
			g := r.Fields[i]
			if g.Name != f.Name || g.Nullable != f.Nullable || g.Type != arrowTypeJS[f.Type.ID()] {
				t.Errorf("%s field %d: %+v, want %s %s nullable=%v", table, i, g, f.Name, arrowTypeJS[f.Type.ID()], f.Nullable)
			}
		}
	}
}

// treeBytes returns every file under dir by relative path.
func treeBytes(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTablesDeterministic: the same archive gives the same table bytes
// whatever the number of workers, and incremental ingests give the same
// tables as one ingest of everything.
func TestTablesDeterministic(t *testing.T) {
	samples := filepath.Join(sharedtest.RepoRoot(t), "testdata", "samples")
	files, _ := filepath.Glob(filepath.Join(samples, "*.warc.gz"))
	if len(files) < 4 {
		t.Fatalf("want the sample WARC files in %s", samples)
	}
	whole := filepath.Join(t.TempDir(), "whole.bwa")
	if code, errs := runCLI(t, append([]string{"ingest", "-workers", "1", whole}, files...)...); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errs)
	}
	parts := filepath.Join(t.TempDir(), "parts.bwa")
	// Later captures first: the archive keeps capture order anyway.
	for _, half := range [][]string{files[len(files)/2:], files[:len(files)/2]} {
		if code, errs := runCLI(t, append([]string{"ingest", "-workers", "2", parts}, half...)...); code != exitOK {
			t.Fatalf("ingest: exit %d: %s", code, errs)
		}
	}
	w2 := filepath.Join(t.TempDir(), "w2")
	if code, errs := runCLI(t, "tables", "-workers", "2", "-o", w2, whole); code != exitOK {
		t.Fatalf("tables: exit %d: %s", code, errs)
	}
	a, b, c := treeBytes(t, filepath.Join(whole, "tables")), treeBytes(t, w2), treeBytes(t, filepath.Join(parts, "tables"))
	// One part per table, and the generation the tables describe.
	if len(a) != len(columnar.Tables())+1 || a[columnar.GenerationFile] == "" {
		t.Fatalf("%d files, want one per table and %s", len(a), columnar.GenerationFile)
	}
	for p := range a {
		if a[p] != b[p] {
			t.Errorf("%s: differs between -workers 1 and 2", p)
		}
		// The generation is the archive's commit: two ingests make more.
		if a[p] != c[p] && p != columnar.GenerationFile {
			t.Errorf("%s: differs between one ingest and two", p)
		}
	}
}
