package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestReadmeDuckDB runs the README's DuckDB example as written, from a
// directory holding out/samples.bwa, with the DuckDB `make npm` installs:
// the README once showed `duckdb -c`, a shell nothing installs.
func TestReadmeDuckDB(t *testing.T) {
	script := npmScript(t, "@duckdb/node-api", "duckdb-show.mjs")
	root := sharedtest.RepoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const start = "$ node testdata/npm/duckdb-show.mjs <<'EOF'\n"
	_, rest, ok := strings.Cut(string(b), start)
	sql, _, ok2 := strings.Cut(rest, "\nEOF\n")
	if !ok || !ok2 || !strings.Contains(sql, "out/samples.bwa/tables/captures") {
		t.Fatalf("README: no example %q…EOF over out/samples.bwa", start)
	}
	dir := t.TempDir()
	arch := filepath.Join(dir, "out", "samples.bwa")
	if code, errs := runCLI(t, "ingest", arch, filepath.Join(root, "testdata", "samples")); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errs)
	}
	cmd := exec.Command("node", filepath.Join(root, "testdata", "npm", filepath.Base(script)))
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(sql)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("README example: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "(5 rows)") || !strings.Contains(string(out), "blocks_modified") ||
		strings.Count(string(out), "http://127.0.0.1:8103/") != 5 {
		t.Errorf("README example printed:\n%s\nwant 5 captures of the samples with the columns asked", out)
	}
}
