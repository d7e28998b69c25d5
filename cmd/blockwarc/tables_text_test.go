package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// docQuery returns the sql block of docs/TABLES.md's example queries that
// starts with prefix.
func docQuery(t *testing.T, tablesDir, prefix string) (setup []string, query string) {
	t.Helper()
	setup, examples := docQueries(t, tablesDir)
	for _, q := range examples {
		if strings.HasPrefix(q, prefix) {
			return setup, q
		}
	}
	t.Fatalf("docs/TABLES.md: no example query starting %q", prefix)
	return nil, ""
}

// duckQuery runs named queries with DuckDB after setup and returns their rows.
func duckQuery(t *testing.T, setup []string, queries map[string]string) map[string][]map[string]any {
	t.Helper()
	script := npmScript(t, "@duckdb/node-api", "duckdb-query.mjs")
	in, err := json.Marshal(map[string]any{"setup": setup, "queries": queries})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "in.json")
	if err := os.WriteFile(p, in, 0o644); err != nil {
		t.Fatal(err)
	}
	var out map[string][]map[string]any
	if b := runNode(t, script, p); json.Unmarshal(b, &out) != nil {
		t.Fatalf("duckdb-query output: %s", b)
	}
	return out
}

// TestTablesPageTextQuery: the documented DuckDB query that rebuilds a
// page's text from blocks.text (main_text is kept only for pages without
// blocks) gives, for every capture it lists, exactly the text of the
// kept blocks `blockwarc blocks -json` shows for that capture, an
// independent reading of the archive: content text = the title and
// content blocks, visible text = all, in page order, one per line.
func TestTablesPageTextQuery(t *testing.T) {
	site := sharedtest.Dir(t, "corpus", "ota-lovescout24")
	arch := filepath.Join(t.TempDir(), "site.bwa")
	if code, errs := runCLI(t, "ingest", arch, site); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errs)
	}
	setup, q := docQuery(t, filepath.Join(arch, "tables"), "SELECT c.url, c.fetch_time, c.version,")
	rows := duckQuery(t, setup, map[string]string{"text": q})["text"]
	if len(rows) == 0 {
		t.Fatal("the page-text query returned no rows")
	}
	checked := 0
	for _, r := range rows {
		url, _ := r["url"].(string)
		at, err := time.Parse("2006-01-02 15:04:05-07", r["fetch_time"].(string))
		if err != nil {
			t.Fatalf("fetch_time %v: %v", r["fetch_time"], err)
		}
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{"blocks", "-json", "-at", at.UTC().Format("20060102150405"), arch, url}, &stdout, &stderr); code != exitOK {
			t.Fatalf("blocks %s: exit %d: %s", url, code, stderr.String())
		}
		var page struct {
			Blocks []struct {
				Kept  bool
				Label string
				Text  string
			}
		}
		if err := json.Unmarshal(stdout.Bytes(), &page); err != nil {
			t.Fatal(err)
		}
		var content, visible []string
		for _, b := range page.Blocks {
			if !b.Kept || b.Text == "" {
				continue
			}
			visible = append(visible, b.Text)
			if b.Label == "title" || b.Label == "content" {
				content = append(content, b.Text)
			}
		}
		if len(visible) == 0 {
			continue // a page kept whole: main_text, not blocks
		}
		checked++
		if got, want := r["content_text"], strings.Join(content, "\n"); got != want && !(got == nil && want == "") {
			t.Errorf("%s at %s: content text from the tables\n%.300q\nblocks -json gives\n%.300q", url, at, got, want)
		}
		if got, want := r["visible_text"], strings.Join(visible, "\n"); got != want {
			t.Errorf("%s at %s: visible text from the tables\n%.300q\nblocks -json gives\n%.300q", url, at, got, want)
		}
	}
	if checked < 5 {
		t.Errorf("only %d captures with blocks compared", checked)
	}
	t.Logf("%d captures: the page-text query equals blocks -json", checked)
}
