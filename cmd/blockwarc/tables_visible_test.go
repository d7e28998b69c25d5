package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestTablesVisibleText: on ota-lovescout24, the documented query gives
// every capture with an HTML page its whole visible text in one query;
// each of the capture's blocks' texts is inside it; a text is written
// once per change (fewer texts than pages).
func TestTablesVisibleText(t *testing.T) {
	site := sharedtest.Dir(t, "corpus", "ota-lovescout24")
	arch := filepath.Join(t.TempDir(), "site.bwa")
	if code, errs := runCLI(t, "ingest", arch, site); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errs)
	}
	setup, q := docQuery(t, filepath.Join(arch, "tables"), "SELECT url, fetch_time, version,\n       last_value(visible_text")
	body, _, ok := strings.Cut(q, "LIMIT 20")
	if !ok {
		t.Fatalf("documented query without its LIMIT 20: %s", q)
	}
	setup = append(setup, "CREATE VIEW texts AS "+body)
	out := duckQuery(t, setup, map[string]string{
		"counts": `SELECT (SELECT count(*) FROM texts) AS rows, (SELECT count(*) FROM texts WHERE text IS NULL OR text = '') AS empty,
			(SELECT count(*) FROM captures WHERE content_charset IS NOT NULL) AS pages,
			(SELECT count(visible_text) FROM captures) AS written`,
		"blocks": `WITH b AS (
			  SELECT cb.url_surtkey, cb.version, string_agg(nullif(bl.text, ''), chr(10) ORDER BY cb.ordinal) AS joined,
			         count(*) FILTER (WHERE bl.text <> '' AND strpos(t.text, bl.text) = 0) AS missing
			  FROM capture_blocks cb JOIN blocks bl USING (block_no)
			  JOIN (SELECT c.url_surtkey, c.version, x.text FROM captures c JOIN texts x USING (url, fetch_time, version)) t USING (url_surtkey, version)
			  GROUP BY ALL)
			SELECT count(*) AS captures, sum(missing) AS missing
			FROM b JOIN (SELECT c.url_surtkey, c.version, x.text FROM captures c JOIN texts x USING (url, fetch_time, version)) t USING (url_surtkey, version)`,
	})
	n := func(v any) string { return fmt.Sprint(v) }
	c := out["counts"]
	if len(c) != 1 || n(c[0]["rows"]) != "48" || n(c[0]["pages"]) != "48" || n(c[0]["empty"]) != "0" || n(c[0]["written"]) == "0" || n(c[0]["written"]) == "48" {
		t.Errorf("texts: %v, want 48 pages, each with a text, fewer texts written than pages", c)
	}
	b := out["blocks"]
	if len(b) != 1 || n(b[0]["captures"]) != "48" || n(b[0]["missing"]) != "0" {
		t.Errorf("block texts against the visible text: %v, want 48 captures, no block text missing", b)
	}
}
