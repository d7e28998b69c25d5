// Package gencrawl writes synthetic crawls for tests and benchmarks that
// need more bytes than the corpus has: sites of generated HTML pages,
// each page's text unique (words drawn from a fixed vocabulary by a
// seeded generator), around a template shared by the pages of a site.
//
// It models what makes a collection large and deduplicable at a
// distance: the same bodies under another host and paths (a mirror, a
// site moved), a crawl repeated with a share of its pages edited. It does
// not model real markup variety, scripts, images, redirects or
// compressed payloads; measure those on real crawls, or with
// dedupe/internal/realcrawl, which builds sites from real pages.
package gencrawl

import (
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"time"
)

// Page is one generated page: its path, body and Content-Type
// ("text/html; charset=utf-8" when empty).
type Page struct {
	Path string
	Body []byte
	Type string
}

// Site generates n pages of about size bytes each for seed: the same
// seed gives the same pages.
func Site(seed uint64, n, size int) []Page {
	pages := make([]Page, n)
	for i := range pages {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		pages[i] = Page{Path: fmt.Sprintf("/p/%05d.html", i), Body: body(r, i, size)}
	}
	return pages
}

// Edit returns pages with every k-th page's body changed in one
// paragraph (a crawl where a share of the site changed).
func Edit(pages []Page, k int, seed uint64) []Page {
	out := make([]Page, len(pages))
	copy(out, pages)
	for i := 0; i < len(out); i += k {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		b := bytes.Replace(out[i].Body, []byte("<p>"), []byte("<p>"+sentence(r, 12)+" "), 1)
		out[i] = Page{Path: out[i].Path, Body: b, Type: out[i].Type}
	}
	return out
}

var vocab = func() []string {
	r := rand.New(rand.NewPCG(1, 1))
	w := make([]string, 4096)
	for i := range w {
		var b strings.Builder
		for range 3 + r.IntN(7) {
			b.WriteByte(byte('a' + r.IntN(26)))
		}
		w[i] = b.String()
	}
	return w
}()

// word draws from the vocabulary with a skew towards its start, as
// natural text repeats its common words.
func word(r *rand.Rand) string {
	i := r.IntN(len(vocab))
	return vocab[i*i/len(vocab)]
}

func sentence(r *rand.Rand, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = word(r)
	}
	return strings.Join(ws, " ") + "."
}

const head = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>%s</title><link rel="stylesheet" href="/site.css"></head>
<body><div id="nav"><a href="/">Home</a> <a href="/about.html">About</a> <a href="/news.html">News</a> <a href="/contact.html">Contact</a></div>
<div id="main"><h1>%s</h1>
`

const foot = `</div><div id="foot"><p>Copyright the authors. All rights reserved. <a href="/legal.html">Legal notice</a></p></div></body></html>
`

func body(r *rand.Rand, i, size int) []byte {
	var b bytes.Buffer
	title := sentence(r, 4)
	fmt.Fprintf(&b, head, title, title)
	for b.Len() < size-len(foot) {
		fmt.Fprintf(&b, "<p>%s</p>\n", sentence(r, 30+r.IntN(60)))
	}
	b.WriteString(foot)
	return b.Bytes()
}

// WriteWARC writes pages as response records of host (e.g.
// "http://a.example") captured at t, one second apart, to path.
func WriteWARC(path, host string, t time.Time, pages []Page) error {
	var b bytes.Buffer
	for i, p := range pages {
		var h bytes.Buffer
		ct := p.Type
		if ct == "" {
			ct = "text/html; charset=utf-8"
		}
		fmt.Fprintf(&h, "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", ct, len(p.Body))
		block := append(h.Bytes(), p.Body...)
		d := sha1.Sum(block)
		id := sha1.Sum([]byte(fmt.Sprint(host, p.Path, t.UnixNano())))
		fmt.Fprintf(&b, "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: %s%s\r\nWARC-Date: %s\r\n", host, p.Path, t.Add(time.Duration(i)*time.Second).UTC().Format(time.RFC3339))
		fmt.Fprintf(&b, "WARC-Record-ID: <urn:uuid:%x-%x-%x-%x-%x>\r\n", id[0:4], id[4:6], id[6:8], id[8:10], id[10:16])
		fmt.Fprintf(&b, "Content-Type: application/http; msgtype=response\r\nWARC-Block-Digest: sha1:%s\r\nContent-Length: %d\r\n\r\n", base32.StdEncoding.EncodeToString(d[:]), len(block))
		b.Write(block)
		b.WriteString("\r\n\r\n")
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// Binary returns n payloads of size bytes that do not compress (a PDF,
// an image) for seed, under /files/.
func Binary(seed uint64, n, size int) []Page {
	pages := make([]Page, n)
	for i := range pages {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		b := make([]byte, size)
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		pages[i] = Page{Path: fmt.Sprintf("/files/%04d.pdf", i), Body: b, Type: "application/pdf"}
	}
	return pages
}
