package tables

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// warcResponse is one WARC response record of an HTML page.
func warcResponse(uri, date, id, doc string) string {
	http := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s", len(doc), doc)
	return fmt.Sprintf("WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: %s\r\nWARC-Date: %s\r\n"+
		"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012s>\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n",
		uri, date, id, len(http), http)
}

// TestLinks: the links table resolves relative, root-relative,
// scheme-relative and absolute hrefs against the page URL or its
// <base href>, drops fragment-only, empty and javascript: hrefs, keeps
// mailto:, reads anchor text and rel; two captures of a URL with the same
// links give them once, another URL's block again, resolved there.
func TestLinks(t *testing.T) {
	nav := `<nav class="menu"><ul><li><a href="../about.html" rel=" nofollow  noopener ">About <b>us</b></a></li>` +
		`<li><a href="/contact?x=1&amp;y=2#form">Contact</a></li><li><a href="#top">Top</a></li>` +
		`<li><a href="javascript:void(0)">Menu</a></li><li><a href="">Here</a></li></ul></nav>`
	body := `<main><h1>Les pages</h1><p>Un texte assez long pour faire un bloc de contenu, avec un ` +
		`<a href="//cdn.example.net/x.pdf">document</a>, un <a href="https://other.example/p#s">lien externe</a>, ` +
		`<a href="mailto:info@example.org">écrire</a> et <a href="page 2.html"><img src="i.png" alt="page deux"></a>.</p></main>`
	page := func(base string) string {
		return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>T</title>` + base + `</head><body>` + nav + body + `</body></html>`
	}
	recs := warcResponse("http://site.example/docs/a/index.html", "2024-05-01T00:00:00Z", "1", page("")) +
		warcResponse("http://site.example/docs/a/index.html", "2024-05-02T00:00:00Z", "2", page("")) +
		warcResponse("http://site.example/docs/b/based.html", "2024-05-01T00:00:00Z", "3", page(`<base href="/root/sub/">`))
	dir := t.TempDir()
	in := filepath.Join(dir, "links.warc")
	if err := os.WriteFile(in, []byte(recs), 0o644); err != nil {
		t.Fatal(err)
	}
	a := ingest(t, filepath.Join(dir, "a.bwa"), []string{in})
	r, st := build(t, a, Options{})
	checkTables(t, a, r, st)
	if st.Links != int64(len(r.links)) {
		t.Errorf("Stats.Links %d, %d rows", st.Links, len(r.links))
	}
	type row struct{ url, href, target, text, rel string }
	got := map[string][]row{}
	for _, l := range r.links {
		k := l.URLSURTKey
		got[k] = append(got[k], row{k, l.Href, str(l.TargetURL), l.AnchorText, str(l.Rel)})
		// Written by each URL's first capture, numbered across its
		// blocks in page order.
		if l.Tag != "a" || l.Version != 1 || l.Ordinal != int32(len(got[k])) {
			t.Errorf("link %+v: tag %s version %d ordinal %d", l, l.Tag, l.Version, l.Ordinal)
		}
	}
	// The second capture of index.html repeats the first's links: it
	// names them, writing none.
	for _, c := range r.caps {
		if c.LinksVersion == nil || *c.LinksVersion != 1 {
			t.Errorf("%s v%d: links_version %v, want 1", c.URL, c.Version, c.LinksVersion)
		}
	}
	want := func(dirURL, root string) []string {
		return []string{
			"../about.html|" + dirURL + "about.html|About us|nofollow noopener",
			"/contact?x=1&y=2#form|" + root + "/contact?x=1&y=2|Contact|",
			"//cdn.example.net/x.pdf|http://cdn.example.net/x.pdf|document|",
			"https://other.example/p#s|https://other.example/p|lien externe|",
			"mailto:info@example.org|mailto:info@example.org|écrire|",
		}
	}
	check := func(surtPart string, dirURL, pageDir string) {
		t.Helper()
		var key string
		for k := range got {
			if strings.Contains(k, surtPart) {
				key = k
			}
		}
		var lines []string
		for _, x := range got[key] {
			lines = append(lines, x.href+"|"+x.target+"|"+x.text+"|"+x.rel)
		}
		w := append(want(dirURL, "http://site.example"), "page 2.html|"+pageDir+"page%202.html|page deux|")
		if strings.Join(lines, "\n") != strings.Join(w, "\n") {
			t.Errorf("links of %s:\n%s\nwant\n%s", key, strings.Join(lines, "\n"), strings.Join(w, "\n"))
		}
	}
	// Two captures of index.html, same blocks: each link once.
	check("a/index.html", "http://site.example/docs/", "http://site.example/docs/a/")
	// <base href="/root/sub/">: relative hrefs resolve against it.
	check("b/based.html", "http://site.example/root/", "http://site.example/root/sub/")
	if len(got) != 2 {
		t.Errorf("links on %d URLs, want 2", len(got))
	}
}

func str(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
