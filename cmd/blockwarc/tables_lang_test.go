package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestTablesLanguages: on ota-lovescout24 (LoveScout24's German legal
// pages), DuckDB reads captures.content_languages as Common Crawl
// writes it (ISO 639-3, 'deu') and finds German, alone, on every capture
// of the privacy policy; the documented languages query counts every
// capture of the site under deu.
func TestTablesLanguages(t *testing.T) {
	site := sharedtest.Dir(t, "corpus", "ota-lovescout24")
	arch := filepath.Join(t.TempDir(), "site.bwa")
	if code, errs := runCLI(t, "ingest", arch, site); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errs)
	}
	setup, q := docQuery(t, filepath.Join(arch, "tables"), "SELECT split_part(content_languages, ',', 1) AS language")
	out := duckQuery(t, setup, map[string]string{
		"doc": q,
		"privacy": `SELECT count(*) AS captures, count(*) FILTER (WHERE content_languages = 'deu') AS german
			FROM captures WHERE url LIKE '%Privacy%20Policy.html' AND fetch_status = 200`,
	})
	p := out["privacy"]
	// count(*) is a BIGINT, which getRowObjectsJson gives as a string.
	n := func(v any) string { return fmt.Sprint(v) }
	if len(p) != 1 || n(p[0]["captures"]) != "24" || n(p[0]["german"]) != "24" {
		t.Errorf("privacy policy captures, and those in German alone: %v, want 24 and 24", p)
	}
	d := out["doc"]
	if len(d) != 1 || d[0]["language"] != "deu" || n(d[0]["captures"]) != "48" || n(d[0]["urls"]) != "2" || n(d[0]["mixed"]) != "0" {
		t.Errorf("documented languages query: %v, want one row: deu, 48 captures, 2 URLs, 0 mixed", d)
	}
}
