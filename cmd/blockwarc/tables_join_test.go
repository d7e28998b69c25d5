package main

import (
	"crypto/sha1"
	"encoding/base32"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// joinRecord is one record of the WARC file TestTablesJoinCDXJ writes.
type joinRecord struct {
	typ, uri, date string
	http           string // HTTP message: header, blank line, payload
	declare        bool   // write WARC-Payload-Digest (revisits always do)
	refersTo       string // revisits: the target URI revisited
}

// payloadDigest is the base32 SHA-1 of an HTTP message's payload, as
// CDXJ and content_digest write it.
func payloadDigest(http string) string {
	_, payload, _ := strings.Cut(http, "\r\n\r\n")
	s := sha1.Sum([]byte(payload))
	return base32.StdEncoding.EncodeToString(s[:])
}

func (r joinRecord) bytes(n int) []byte {
	var h strings.Builder
	fmt.Fprintf(&h, "WARC/1.1\r\nWARC-Type: %s\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012d>\r\n", r.typ, n)
	fmt.Fprintf(&h, "WARC-Date: %s\r\nWARC-Target-URI: %s\r\n", r.date, r.uri)
	block := r.http
	if r.typ == "revisit" {
		block, _, _ = strings.Cut(r.http, "\r\n\r\n")
		block += "\r\n\r\n"
		fmt.Fprintf(&h, "WARC-Profile: http://netpreserve.org/warc/1.1/revisit/identical-payload-digest\r\n")
		fmt.Fprintf(&h, "WARC-Refers-To-Target-URI: %s\r\n", r.refersTo)
	}
	if r.declare || r.typ == "revisit" {
		fmt.Fprintf(&h, "WARC-Payload-Digest: sha1:%s\r\n", payloadDigest(r.http))
	}
	fmt.Fprintf(&h, "Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n", len(block))
	return []byte(h.String() + block + "\r\n\r\n")
}

func httpResponse(status, extra, body string) string {
	return fmt.Sprintf("HTTP/1.1 %s\r\nContent-Type: text/html; charset=utf-8\r\n%sContent-Length: %d\r\n\r\n%s", status, extra, len(body), body)
}

// sectionSQL returns the sql blocks of the docs/TABLES.md section under
// heading, with the example paths pointed at tablesDir and cdxj.
func sectionSQL(t *testing.T, heading, tablesDir, cdxj string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedtest.RepoRoot(t), "docs", "TABLES.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("docs/TABLES.md has no %q section", heading)
	}
	if i := strings.Index(sec, "\n## "); i >= 0 {
		sec = sec[:i]
	}
	var out []string
	r := strings.NewReplacer("site.bwa/tables", filepath.ToSlash(tablesDir), "site.cdxj", filepath.ToSlash(cdxj))
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
		out = append(out, r.Replace(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(q), ";"))))
	}
	return out
}

// TestTablesJoinCDXJ ingests the sample dumps and a WARC file written
// here, indexes the same inputs with `blockwarc index`, and joins the
// captures table with the CDXJ in DuckDB, an independent reader, with the
// queries of docs/TABLES.md "Joining with a CDXJ index": every capture
// finds its CDXJ line by digest, file name and offset. It also checks the
// Common Crawl columns (fetch_redirect, url_host_tld, url_path,
// url_query) of the records written here.
func TestTablesJoinCDXJ(t *testing.T) {
	script := npmScript(t, "@duckdb/node-api", "duckdb-query.mjs")
	samples := filepath.Join(sharedtest.RepoRoot(t), "testdata", "samples")
	dir := t.TempDir()
	// In a subdirectory: ingest and index are given its path, the tables
	// and the CDXJ name the file by its base name.
	in := filepath.Join(dir, "in", "crawl")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	page := httpResponse("200 OK", "", "<html><head><title>Item 7</title></head><body><h1>Item 7</h1><p>Seven.</p></body></html>")
	about := httpResponse("200 OK", "", "<html><head><title>About</title></head><body><p>About us.</p></body></html>")
	recs := []joinRecord{
		{typ: "response", uri: "http://example.com/shop/item?id=7&x=1", date: "2024-01-02T03:04:05Z", http: page, declare: true},
		{typ: "response", uri: "https://www.example.org/about", date: "2024-01-02T03:04:06Z", http: about},
		{typ: "response", uri: "http://example.com/shop/old/page", date: "2024-01-02T03:04:07Z",
			http: httpResponse("301 Moved Permanently", "Location: ../new/place?x=1\r\n", "moved")},
		{typ: "response", uri: "https://example.org/go", date: "2024-01-02T03:04:08Z",
			http: httpResponse("302 Found", "Location: https://cdn.example.net/x?y=2\r\n", ""), declare: true},
		{typ: "response", uri: "http://example.com/gone", date: "2024-01-02T03:04:09Z",
			http: httpResponse("302 Found", "", "no location")},
		{typ: "revisit", uri: "http://example.com/shop/item?id=7&x=1", date: "2024-02-02T03:04:05Z", http: page,
			refersTo: "http://example.com/shop/item?id=7&x=1"},
	}
	var warc []byte
	for i, r := range recs {
		warc = append(warc, r.bytes(i)...)
	}
	if err := os.WriteFile(filepath.Join(in, "join.warc"), warc, 0o644); err != nil {
		t.Fatal(err)
	}
	arch := filepath.Join(dir, "a.bwa")
	if code, errs := runCLI(t, "ingest", arch, samples, in); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errs)
	}
	cdxj := filepath.Join(dir, "in.cdxj")
	if code, errs := runCLI(t, "index", "-o", cdxj, samples, in); code != exitOK {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	tdir := filepath.Join(arch, "tables")
	doc := sectionSQL(t, "Joining with a CDXJ index", tdir, cdxj)
	if len(doc) != 2 || !strings.HasPrefix(doc[0], "CREATE VIEW cdxj") {
		t.Fatalf("docs/TABLES.md \"Joining with a CDXJ index\": want the cdxj view and a join query, got %d sql blocks", len(doc))
	}
	q := map[string]any{
		"setup": []string{
			"CREATE VIEW captures AS SELECT * FROM read_parquet('" + filepath.ToSlash(tdir) + "/captures/*.parquet')",
			doc[0],
		},
		"queries": map[string]string{
			"joined":   doc[1],
			"captures": "SELECT url, warc_filename, warc_record_offset, content_digest FROM captures ORDER BY url_surtkey, fetch_time, version",
			"cdxj":     "SELECT url, content_mime_type, warc_filename, warc_record_offset, content_digest FROM cdxj",
			"ours": `SELECT url, warc_type, fetch_status, fetch_redirect, url_host_name, url_host_tld, url_path, url_query,
			                content_digest, warc_filename FROM captures WHERE warc_filename = 'join.warc' ORDER BY fetch_time`,
		},
	}
	inb, err := json.Marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	inPath := filepath.Join(dir, "q.json")
	if err := os.WriteFile(inPath, inb, 0o644); err != nil {
		t.Fatal(err)
	}
	var res map[string][]map[string]any
	if out := runNode(t, script, inPath); json.Unmarshal(out, &res) != nil {
		t.Fatalf("duckdb-query output: %s", out)
	}

	// The join finds every capture, and each capture's digest and file
	// name are those of the CDXJ line at its offset.
	type loc struct{ file, offset string }
	str := func(v any) string {
		if v == nil {
			return "<null>"
		}
		return fmt.Sprint(v)
	}
	byLoc := map[loc]map[string]any{}
	for _, x := range res["cdxj"] {
		byLoc[loc{str(x["warc_filename"]), str(x["warc_record_offset"])}] = x
	}
	caps := res["captures"]
	if len(caps) < 100 {
		t.Fatalf("%d captures: want the samples' and the records written here", len(caps))
	}
	if len(res["joined"]) != len(caps) {
		t.Errorf("the join of captures and the CDXJ on digest, filename and offset returns %d rows, want all %d captures", len(res["joined"]), len(caps))
	}
	for _, c := range caps {
		x, ok := byLoc[loc{str(c["warc_filename"]), str(c["warc_record_offset"])}]
		switch {
		case !ok:
			t.Errorf("capture %s: no CDXJ line in %s at %s", c["url"], c["warc_filename"], c["warc_record_offset"])
		case x["content_digest"] != c["content_digest"] || x["url"] != c["url"]:
			t.Errorf("capture %s %s: CDXJ has %s %s", c["url"], c["content_digest"], x["url"], x["content_digest"])
		}
	}
	// The other way: CDXJ lines without a capture are metadata records.
	capLoc := map[loc]bool{}
	for _, c := range caps {
		capLoc[loc{str(c["warc_filename"]), str(c["warc_record_offset"])}] = true
	}
	for l, x := range byLoc {
		if !capLoc[l] && !strings.HasPrefix(str(x["url"]), "metadata:") {
			t.Errorf("CDXJ line %v has no capture", x)
		}
	}

	// The records written here, in fetch_time order.
	null := any(nil)
	want := []map[string]any{
		{"url": recs[0].uri, "fetch_status": 200.0, "fetch_redirect": null, "url_host_name": "example.com", "url_host_tld": "com",
			"url_path": "/shop/item", "url_query": "id=7&x=1", "content_digest": payloadDigest(page)},
		{"url": recs[1].uri, "fetch_status": 200.0, "fetch_redirect": null, "url_host_name": "www.example.org", "url_host_tld": "org",
			"url_path": "/about", "url_query": null, "content_digest": payloadDigest(about)},
		{"url": recs[2].uri, "fetch_status": 301.0, "fetch_redirect": "http://example.com/shop/new/place?x=1",
			"url_path": "/shop/old/page", "url_query": null, "content_digest": payloadDigest(recs[2].http)},
		{"url": recs[3].uri, "fetch_status": 302.0, "fetch_redirect": "https://cdn.example.net/x?y=2",
			"url_path": "/go", "url_query": null, "content_digest": payloadDigest(recs[3].http)},
		{"url": recs[4].uri, "fetch_status": 302.0, "fetch_redirect": null, "content_digest": payloadDigest(recs[4].http)},
		{"url": recs[5].uri, "warc_type": "revisit", "fetch_status": 200.0, "fetch_redirect": null, "url_query": "id=7&x=1",
			"content_digest": payloadDigest(page)},
	}
	ours := res["ours"]
	if len(ours) != len(want) {
		t.Fatalf("%d captures from join.warc, want %d: %v", len(ours), len(want), ours)
	}
	for i, w := range want {
		w["warc_filename"] = "join.warc"
		for col, v := range w {
			if got := ours[i][col]; got != v {
				t.Errorf("%s: %s = %v, want %v", recs[i].uri, col, str(got), str(v))
			}
		}
	}
}
