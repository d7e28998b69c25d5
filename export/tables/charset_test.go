package tables

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/partition"
)

// TestBuildLateMetaCharset: a page declaring <meta charset="utf-8"> past
// its first 1,024 bytes, served without a charset in Content-Type, is read
// as UTF-8 by the tables (title, main text, content_charset), exactly as
// the blocks command reads the same bytes. Issue 12 found every capture of
// such a site read as windows-1252 ("Impressum â€” …").
func TestBuildLateMetaCharset(t *testing.T) {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html><html lang=de><head>\n")
	for b.Len() < 1963 {
		b.WriteString(`<link rel="preload" href="/assets/app.js" as="script">` + "\n")
	}
	b.WriteString(`<meta charset="utf-8"><title>Impressum — Beispiel GmbH</title></head><body>`)
	b.WriteString(`<nav><a href="/">Start</a> <a href="/kontakt">Kontakt</a></nav>`)
	b.WriteString(`<main><h1>Datenschutzerklärung</h1><p>Wir verarbeiten Ihre Daten gemäß Art. 6 DSGVO und löschen sie, sobald der Zweck entfällt.</p></main>`)
	b.WriteString(`<footer>© Beispiel GmbH</footer></body></html>`)
	doc := b.String()

	http := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(doc), doc)
	rec := fmt.Sprintf("WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://late-meta.example/impressum\r\nWARC-Date: 2024-05-01T00:00:00Z\r\n"+
		"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-0000000000a1>\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n",
		len(http), http)
	dir := t.TempDir()
	in := filepath.Join(dir, "late.warc")
	if err := os.WriteFile(in, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	a := ingest(t, filepath.Join(dir, "a.bwa"), []string{in})
	r, st := build(t, a, Options{})
	checkTables(t, a, r, st)
	if st.BlockMismatches != 0 {
		t.Errorf("%d block mismatches", st.BlockMismatches)
	}
	if len(r.caps) != 1 {
		t.Fatalf("%d captures", len(r.caps))
	}
	c := r.caps[0]
	if c.ContentCharset == nil || *c.ContentCharset != "utf-8" {
		t.Errorf("content_charset %v, want utf-8", deref(c.ContentCharset))
	}
	if c.Title == nil || *c.Title != "Impressum — Beispiel GmbH" {
		t.Errorf("title %q, want the UTF-8 title", deref(c.Title))
	}
	if txt := pageText(r, c); !strings.Contains(txt, "Datenschutzerklärung") {
		t.Errorf("page text (its blocks' text) %q", txt)
	}
	// The blocks command reads a page file with the same page options and
	// no Content-Type: it must agree.
	res, err := partition.Partition([]byte(doc), dedupe.PageOptions("", 0, ""))
	if err != nil {
		t.Fatal(err)
	}
	if res.Charset != *c.ContentCharset {
		t.Errorf("blocks reads %s, tables %s", res.Charset, *c.ContentCharset)
	}
}
