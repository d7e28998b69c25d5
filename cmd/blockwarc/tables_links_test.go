package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// linkHistoryWARC is one URL captured six times: links A B C; the same
// links with the paragraph reworded; C replaced by D; the same page
// again; no links at all; A B D again.
func linkHistoryWARC(t *testing.T, dir string) string {
	t.Helper()
	nav := `<nav class="menu"><ul><li><a href="/about.html">About</a></li><li><a href="/contact.html">Contact</a></li></ul></nav>`
	page := func(text, link string) string {
		p := `<main><h1>Our news</h1><p>` + text + ` A long enough paragraph to make a block of content of its own, ` +
			`read by the partition as the page's text.`
		if link != "" {
			p += ` See <a href="` + link + `">the report</a>.`
		}
		if link != "" {
			p = nav + p
		}
		return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>News</title></head><body>` + p + `</p></main></body></html>`
	}
	bodies := []string{
		page("First text.", "docs/c.html"),
		page("Reworded text.", "docs/c.html"),
		page("Reworded text.", "docs/d.html"),
		page("Reworded text.", "docs/d.html"),
		page("No links now.", ""),
		page("Back again.", "docs/d.html"),
	}
	var warc bytes.Buffer
	for i, b := range bodies {
		r := joinRecord{typ: "response", uri: "http://site.example/news/index.html",
			date: fmt.Sprintf("2024-05-0%dT00:00:00Z", i+1), http: httpResponse("200 OK", "", b)}
		warc.Write(r.bytes(i + 1))
	}
	p := filepath.Join(dir, "links.warc")
	if err := os.WriteFile(p, warc.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTablesLinksPerCapture: read by DuckDB, the documented "links per
// capture" query gives each capture of a URL its own links: a capture
// whose links changed its new set, one that changed only text or nothing
// its predecessor's, one without links none, and links back after it
// the last set's; the links table holds each set only where it changed,
// and the "appear and disappear" query names the targets gained and lost.
func TestTablesLinksPerCapture(t *testing.T) {
	dir := t.TempDir()
	in := linkHistoryWARC(t, dir)
	arch := filepath.Join(dir, "site.bwa")
	if code, errs := runCLI(t, "ingest", arch, in); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errs)
	}
	tablesDir := filepath.Join(arch, "tables")
	setup, perCapture := docQuery(t, tablesDir, "SELECT c.url, c.fetch_time, c.version, c.links_version,")
	_, appear := docQuery(t, tablesDir, "WITH per_capture AS (")
	out := duckQuery(t, setup, map[string]string{
		"per_capture": perCapture,
		"appear":      appear,
		"captures":    "SELECT version, links_version FROM captures ORDER BY version",
		"written":     "SELECT version, count(*) AS n FROM links GROUP BY version ORDER BY version",
	})

	const site = "http://site.example/"
	abc := site + "about.html " + site + "contact.html " + site + "news/docs/c.html"
	abd := site + "about.html " + site + "contact.html " + site + "news/docs/d.html"
	wantLinks := map[int]string{1: abc, 2: abc, 3: abd, 4: abd, 6: abd} // 5: none
	got := map[int][]string{}
	for _, r := range out["per_capture"] {
		v := int(r["version"].(float64))
		got[v] = append(got[v], r["target_url"].(string))
	}
	for v := 1; v <= 6; v++ {
		if g := strings.Join(got[v], " "); g != wantLinks[v] {
			t.Errorf("capture %d: links %q, want %q", v, g, wantLinks[v])
		}
	}

	// links_version: where each capture's rows are; null without links.
	wantLV := []string{"1", "1", "3", "3", "<nil>", "3"}
	for i, r := range out["captures"] {
		lv := "<nil>"
		if x, ok := r["links_version"].(float64); ok {
			lv = fmt.Sprint(x)
		}
		if i >= len(wantLV) || lv != wantLV[i] {
			t.Errorf("capture %v: links_version %s, want %v", r["version"], lv, wantLV)
		}
	}
	// Rows only where the links changed: 3 + 3, not 5 × 3.
	var written []string
	for _, r := range out["written"] {
		written = append(written, fmt.Sprintf("%v:%v", r["version"], r["n"]))
	}
	if g := strings.Join(written, " "); g != "1:3 3:3" {
		t.Errorf("links rows per version %s, want 1:3 3:3", g)
	}

	var steps []string
	for _, r := range out["appear"] {
		steps = append(steps, fmt.Sprintf("%v +%v -%v", r["version"], r["added"], r["removed"]))
	}
	wantSteps := []string{
		"3 +[" + site + "news/docs/d.html] -[" + site + "news/docs/c.html]",
		"5 +[] -[" + site + "about.html " + site + "contact.html " + site + "news/docs/d.html]",
		"6 +[" + site + "about.html " + site + "contact.html " + site + "news/docs/d.html] -[]",
	}
	if g, w := strings.Join(steps, "\n"), strings.Join(wantSteps, "\n"); g != w {
		t.Errorf("appear/disappear query:\n%s\nwant\n%s", g, w)
	}
}
