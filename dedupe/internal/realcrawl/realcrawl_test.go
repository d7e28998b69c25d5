package realcrawl

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/blockwarc/blockwarc/warcio"
)

var testPool = [][]byte{
	[]byte(`<!DOCTYPE html><html lang="en"><head><title>Local news today</title><style>.nav{display:none}</style></head>
<body><div class="nav"><a href="/home.html">Home</a> &amp; <a href='/news'>News</a></div>
<script>var counter = 1; if (counter < 2) { track("page"); }</script>
<article id="story"><h1>Council votes on the new bridge</h1><p>The council voted on Tuesday to build the bridge.</p>
<p class="lead">Residents said the bridge would shorten their trip to work.</p><!-- ad slot --></article></body></html>`),
	[]byte(`<html><head><meta charset="utf-8"><title>Docs</title></head><body><nav><ul><li><a href="/a">Install</a></li></ul></nav>
<main><h2>Install the tool</h2><p>Run the installer and follow the steps.</p><p>Then restart.</p><img src="/logo.png" alt="Our logo"></main></body></html>`),
}

type capture struct {
	file, uri, typ string
	payload        []byte
}

// TestWriteReadable: every record is read back by warcio, in gzip
// members, with the digests it declares; the same options write the
// same bytes.
func TestWriteReadable(t *testing.T) {
	o := Options{Seed: 7, Hosts: 4, Pages: 6, Crawls: 3, Mirrors: 1, Assets: 2}
	a, err := Write(t.TempDir(), testPool, o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Write(t.TempDir(), testPool, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 3 || len(b) != 3 {
		t.Fatalf("%d and %d files for 3 crawls", len(a), len(b))
	}
	for i := range a {
		x, _ := os.ReadFile(a[i])
		y, _ := os.ReadFile(b[i])
		if !bytes.Equal(x, y) {
			t.Fatalf("crawl %d: two runs of the same options differ", i)
		}
	}
	caps := records(t, a)
	responses, requests := 0, 0
	for _, c := range caps {
		switch c.typ {
		case "response":
			responses++
		case "request":
			requests++
		default:
			t.Fatalf("record type %q", c.typ)
		}
	}
	// 4 sites of 6 pages (7 at later crawls, a few gone), one mirrored.
	if responses < 3*(4*6+6) || responses != requests {
		t.Fatalf("%d responses, %d requests", responses, requests)
	}
}

// records reads every record of paths, checking their digests.
func records(t *testing.T, paths []string) []capture {
	t.Helper()
	var out []capture
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		r := warcio.NewReader(f, p)
		var prev *warcio.Record
		for {
			rec, err := r.Next()
			if prev != nil {
				d := prev.Digests()
				if d.BlockMatch != warcio.MatchOK {
					t.Fatalf("%s %s: block digest %v", p, prev.TargetURI, d.BlockMatch)
				}
				if prev.Type == "response" && d.PayloadMatch != warcio.MatchOK {
					t.Fatalf("%s %s: payload digest %v", p, prev.TargetURI, d.PayloadMatch)
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if rec.Compression != warcio.CompressionGzip {
				t.Fatalf("%s: a record not in a gzip member", rec.TargetURI)
			}
			block, err := io.ReadAll(rec.Body)
			if err != nil {
				t.Fatal(err)
			}
			c := capture{file: p, uri: rec.TargetURI, typ: rec.Type}
			if i := bytes.Index(block, []byte("\r\n\r\n")); rec.Type == "response" && i >= 0 {
				c.payload = block[i+4:]
			}
			out = append(out, c)
			prev = rec
		}
		f.Close()
	}
	return out
}

// tags is the sequence of b's tag names and attribute names.
func tags(b []byte) string {
	z := html.NewTokenizer(bytes.NewReader(b))
	var s strings.Builder
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return s.String()
		}
		if tt == html.StartTagToken || tt == html.EndTagToken || tt == html.SelfClosingTagToken {
			name, more := z.TagName()
			s.Write(name)
			for more {
				var k []byte
				k, _, more = z.TagAttr()
				s.WriteString(" " + string(k))
			}
			s.WriteString(";")
		}
	}
}

// TestWriteCipher: a page in a site's cipher keeps its markup (tag
// and attribute names, class and id values) and loses its words; a word
// repeated stays repeated; two pages of a site share their menus and
// scripts, not their paragraphs; two sites share nothing but markup.
func TestWriteCipher(t *testing.T) {
	page := func(site, n uint64) *encoder { return &encoder{site: newCipher(site), page: newCipher(site<<8 | n)} }
	for _, p := range testPool {
		c1, c2 := page(1, 1).encipher(p), page(2, 1).encipher(p)
		if len(c1) != len(p) {
			t.Fatalf("ciphered %d bytes into %d", len(p), len(c1))
		}
		if tags(c1) != tags(p) {
			t.Fatalf("markup changed:\n%s\n%s", tags(p), tags(c1))
		}
		if bytes.Equal(c1, c2) {
			t.Fatal("two sites' ciphers agree")
		}
	}
	e1 := page(1, 1)
	c := string(e1.encipher(testPool[0]))
	for _, kept := range []string{`class="nav"`, `id="story"`, `class="lead"`, "&amp;", "<!--", "<!DOCTYPE html>"} {
		if !strings.Contains(c, kept) {
			t.Errorf("%q lost: %s", kept, c)
		}
	}
	for _, gone := range []string{"council", "Council", "bridge", "counter", "home", "News"} {
		if strings.Contains(c, gone) {
			t.Errorf("%q kept: %s", gone, c)
		}
	}
	bridge := e1.page.word("bridge")
	if n := strings.Count(c, bridge); n != 3 {
		t.Errorf("bridge (%s) %d times, want 3", bridge, n)
	}
	if e1.page.word("Council") != strings.ToUpper(e1.page.word("council")[:1])+e1.page.word("council")[1:] {
		t.Errorf("case not kept: %s %s", e1.page.word("Council"), e1.page.word("council"))
	}
	// Page 2 of site 1: the menu and the script as page 1's, the
	// paragraphs not.
	c2 := string(page(1, 2).encipher(testPool[0]))
	for _, shared := range []string{e1.site.word("News"), e1.site.word("counter"), e1.site.word("track")} {
		if !strings.Contains(c2, shared) {
			t.Errorf("site word %q not on the site's second page", shared)
		}
	}
	if strings.Contains(c2, bridge) {
		t.Errorf("page 1's paragraph word %q on page 2", bridge)
	}
}

var tokenRe = regexp.MustCompile(`<meta name="csrf-token" content="[0-9a-f]+">|<p class="stamp">[^<]*</p>`)

// TestWriteChurn: pages move (the same bytes under a new URL), a
// mirror serves its site's pages (tokens and stamps apart), assets are
// the same bytes under several URLs, and pages are edited.
func TestWriteChurn(t *testing.T) {
	o := Options{Seed: 3, Hosts: 3, Pages: 10, Crawls: 6, Mirrors: 1, Assets: 3, Move: 0.2, Edit: 0.3}
	paths, err := Write(t.TempDir(), testPool, o)
	if err != nil {
		t.Fatal(err)
	}
	caps := records(t, paths)
	byURI := map[string][][]byte{}
	var moved, mirrored, edited int
	assetURLs := map[string]map[string]bool{}
	for _, c := range caps {
		if c.typ != "response" {
			continue
		}
		p := tokenRe.ReplaceAll(c.payload, nil)
		if strings.HasSuffix(c.uri, ".jpg") {
			k := string(c.payload[:64])
			if assetURLs[k] == nil {
				assetURLs[k] = map[string]bool{}
			}
			assetURLs[k][c.uri] = true
			continue
		}
		if strings.Contains(c.uri, "/archive/") {
			orig := strings.Replace(c.uri, "/archive/", "/", 1)
			for _, q := range byURI[orig] {
				if bytes.Equal(tokenRe.ReplaceAll(q, nil), p) {
					moved++
					break
				}
			}
		}
		if strings.HasPrefix(c.uri, "http://mirror00.example") {
			orig := strings.Replace(c.uri, "http://mirror00.example", "http://www.site00.example", 1)
			if v := byURI[orig]; len(v) > 0 && bytes.Equal(tokenRe.ReplaceAll(v[len(v)-1], nil), p) {
				mirrored++
			}
		}
		if v := byURI[c.uri]; len(v) > 0 && len(tokenRe.ReplaceAll(v[len(v)-1], nil)) < len(p) && !bytes.Contains(p, []byte("views</span>")) {
			edited++
		}
		byURI[c.uri] = append(byURI[c.uri], c.payload)
	}
	if moved == 0 || mirrored == 0 || edited == 0 {
		t.Fatalf("moved %d, mirrored %d, edited %d: each should happen", moved, mirrored, edited)
	}
	shared := 0
	for _, urls := range assetURLs {
		if len(urls) > 1 {
			shared++
		}
	}
	if shared == 0 {
		t.Fatal("no asset under more than one URL")
	}
}
