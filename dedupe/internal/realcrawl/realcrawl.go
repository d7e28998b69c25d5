// Package realcrawl writes synthetic crawls made of real pages, for the
// scale benchmark (make bench-scale-synth): sites built from pages a
// caller read from real captures, recrawled with a domain crawl's
// churn. Package gencrawl writes sites of generated text instead.
package realcrawl

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/zlibenc"
)

// Options shape a collection of crawls Write writes. Zero fields take
// the defaults named.
type Options struct {
	Seed    uint64
	Hosts   int       // sites (16)
	Pages   int       // pages of a site at its first crawl (12)
	Crawls  int       // crawls, a week apart (20)
	Mirrors int       // sites also served under a second host name (3)
	Start   time.Time // the first crawl (2024-01-01)
	// Per crawl, the chance a page was edited since the last (0.08),
	// moved to another path (0.01) or removed (0.01), and the new pages
	// as a share of the site's (0.03).
	Edit, Move, Drop, Add float64
	// Assets: binary files (images, PDFs: bytes that do not compress)
	// linked from one to four sites each and fetched at every crawl,
	// a new version now and then (12).
	Assets int
}

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	deff := func(v *float64, d float64) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.Hosts, 16)
	def(&o.Pages, 12)
	def(&o.Crawls, 20)
	def(&o.Assets, 12)
	if o.Mirrors <= 0 {
		o.Mirrors = min(3, o.Hosts)
	}
	deff(&o.Edit, 0.08)
	deff(&o.Move, 0.01)
	deff(&o.Drop, 0.01)
	deff(&o.Add, 0.03)
	if o.Start.IsZero() {
		o.Start = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return o
}

// Write writes a collection of crawls to dir, one gzipped WARC file
// per crawl (all sites, as a domain crawl's file), and returns their
// paths in crawl order. The same pool and options write the same bytes.
//
// Pages are real: each site is made from one page of pool (HTML a caller
// read from real captures: a news site's article, a documentation page),
// its template, with every word — text, scripts, styles, URLs and
// attribute values but class, id and a few others — replaced by a word of
// the same length: in the site's cipher outside paragraphs and headings
// (its menus, footer and scripts, the same on every page of the site), in
// the page's own cipher inside them (its article). So markup is real, a
// site's pages share their template and differ in their text as a CMS's
// do, and two sites share no words. Between crawls, pages are edited (a
// sentence added to a paragraph, edits kept), moved to another path (the
// same bytes under a new URL), removed, and added. Per capture, as
// crawlers see: a form token in some sites' pages, the generation time in
// others', a view counter in others', a Date header. Mirrors serve a
// site's pages byte for byte under a second host (their tokens and times
// apart). Assets (incompressible bytes of 20–400 KB) are fetched at every
// crawl from each site linking them: the same payload under many URLs and
// crawls, what a crawl-time digest index (revisit records) would have
// removed. Records are response and request pairs, each a gzip member
// deflated by zlib at its default level (zlibenc; Go's gzip where this
// build has no zlib), as Heritrix and wget write them.
//
// It does not model: layout redesigns, sites with several templates,
// text in other alphabets than ASCII (kept as is), redirects, errors,
// revisits, scripts' real behaviour (ciphered, they are bytes only), or
// the mix of payload types of a real crawl beyond HTML and opaque
// binaries. Sites hold tens of pages, not thousands.
func Write(dir string, pool [][]byte, o Options) ([]string, error) {
	if len(pool) == 0 {
		return nil, fmt.Errorf("realcrawl: no pages in the pool")
	}
	o = o.withDefaults()
	g := &realGen{o: o, pool: pool, r: rand.New(rand.NewPCG(o.Seed, 0x7265616c))}
	g.init()
	var paths []string
	for c := range o.Crawls {
		if c > 0 {
			g.churn()
		}
		p := filepath.Join(dir, fmt.Sprintf("synth-%s.warc.gz", g.when(c, 0).Format("20060102150405")))
		if err := g.write(p, c); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

type realPage struct {
	path  string
	n     int      // the page's number in its site: its text's cipher
	edits []string // sentences added, in order; edit i goes into paragraph edits' position i
	at    []int    // the paragraph (by order) each edit went into
	views int
}

type realSite struct {
	host    string
	mirror  string // "" if none
	tmpl    int    // the pool page every page of the site is made from
	c       *cipher
	bodies  map[int]*cipheredPage // by page number
	pages   []*realPage
	next    int  // pages made so far
	tokens  bool // a form token per capture
	stamp   bool // the generation time per capture
	counter bool // a view counter
}

type realAsset struct {
	paths   []string // per linking site, "host/path"
	sites   []int
	version int
	size    int
}

type realGen struct {
	o      Options
	pool   [][]byte
	r      *rand.Rand
	sites  []*realSite
	assets []*realAsset
}

func (g *realGen) init() {
	tmpls := g.r.Perm(len(g.pool))
	for h := range g.o.Hosts {
		s := &realSite{
			host:   fmt.Sprintf("http://www.site%02d.example", h),
			c:      newCipher(g.r.Uint64()),
			bodies: map[int]*cipheredPage{},
			tmpl:   tmpls[h%len(tmpls)],
		}
		if h < g.o.Mirrors {
			s.mirror = fmt.Sprintf("http://mirror%02d.example", h)
		}
		s.tokens, s.stamp, s.counter = g.r.IntN(2) == 0, g.r.IntN(2) == 0, g.r.IntN(10) < 3
		for range g.o.Pages {
			s.pages = append(s.pages, g.newPage(s))
		}
		g.sites = append(g.sites, s)
	}
	for a := range g.o.Assets {
		as := &realAsset{size: 20<<10 + g.r.IntN(380<<10)}
		for k := range 1 + g.r.IntN(4) {
			h := g.r.IntN(len(g.sites))
			as.sites = append(as.sites, h)
			as.paths = append(as.paths, fmt.Sprintf("/media/%d/asset-%02d-%d.jpg", k, a, h))
		}
		g.assets = append(g.assets, as)
	}
}

// newPage is a new page of s, with a path of its own.
func (g *realGen) newPage(s *realSite) *realPage {
	p := &realPage{n: s.next, path: fmt.Sprintf("/%s/%04d.html", []string{"news", "docs", "blog", "about"}[s.next%4], s.next)}
	s.next++
	p.views = g.r.IntN(1000)
	return p
}

// churn changes the sites between two crawls.
func (g *realGen) churn() {
	for _, s := range g.sites {
		var kept []*realPage
		for _, p := range s.pages {
			if g.r.Float64() < g.o.Drop {
				continue
			}
			if g.r.Float64() < g.o.Move {
				p.path = "/archive" + p.path
			}
			if g.r.Float64() < g.o.Edit {
				p.edits = append(p.edits, g.sentence(s))
				p.at = append(p.at, g.r.IntN(1<<16))
			}
			p.views += g.r.IntN(500)
			kept = append(kept, p)
		}
		for range max(1, int(g.o.Add*float64(len(s.pages))+g.r.Float64())) {
			kept = append(kept, g.newPage(s))
		}
		s.pages = kept
	}
	for _, a := range g.assets {
		if g.r.IntN(8) == 0 {
			a.version++
		}
	}
}

// sentence is 8–25 words of s's cipher of the pool's words: text of the
// site's own vocabulary.
func (g *realGen) sentence(s *realSite) string {
	var words []string
	// Bounded: a pool of pages with hardly a word still ends.
	for try := 0; len(words) < 8+g.r.IntN(18) && try < 1<<16; try++ {
		src := g.pool[g.r.IntN(len(g.pool))]
		i := g.r.IntN(len(src))
		j := i
		for j < len(src) && isLetter(src[j]) {
			j++
		}
		if j-i >= 2 && (i == 0 || !isLetter(src[i-1])) {
			words = append(words, s.c.word(string(src[i:j])))
		}
	}
	return strings.Join(words, " ") + "."
}

// when is the time of the i-th record of crawl c.
func (g *realGen) when(c, i int) time.Time {
	return g.o.Start.AddDate(0, 0, 7*c).Add(time.Duration(i) * 700 * time.Millisecond)
}

// write writes crawl c to path.
func (g *realGen) write(path string, c int) error {
	w := &warcWriter{}
	i := 0
	for h, s := range g.sites {
		for _, p := range s.pages {
			hosts := []string{s.host}
			if s.mirror != "" {
				hosts = append(hosts, s.mirror)
			}
			for _, host := range hosts {
				t := g.when(c, i)
				i++
				w.pair(host+p.path, t, "text/html; charset=utf-8", g.render(s, p, t))
			}
		}
		for a, as := range g.assets {
			for k, site := range as.sites {
				if site != h {
					continue
				}
				t := g.when(c, i)
				i++
				w.pair(s.host+as.paths[k], t, "image/jpeg", assetBytes(g.o.Seed, a, as.version, as.size))
			}
		}
	}
	return w.close(path)
}

// render is page p of s as captured at t.
func (g *realGen) render(s *realSite, p *realPage, t time.Time) []byte {
	pg := s.body(g.pool, p.n)
	base, paras := pg.b, pg.paras
	type ins struct {
		at   int
		text string
	}
	var add []ins
	for k, e := range p.edits {
		at := pg.end
		if len(paras) > 0 {
			at = paras[p.at[k]%len(paras)]
		}
		add = append(add, ins{at, e + " "})
	}
	if s.tokens {
		tok := make([]byte, 16)
		for i := range tok {
			tok[i] = byte(g.r.Uint32())
		}
		add = append(add, ins{pg.head, fmt.Sprintf(`<meta name="csrf-token" content="%x">`, tok)})
	}
	if s.stamp {
		add = append(add, ins{pg.end, "<p class=\"stamp\">Page generated " + t.Format(time.RFC1123) + "</p>"})
	}
	if s.counter {
		add = append(add, ins{pg.end, fmt.Sprintf("<span class=\"views\">%d views</span>", p.views)})
	}
	slices.SortStableFunc(add, func(a, b ins) int { return a.at - b.at })
	var out bytes.Buffer
	out.Grow(len(base) + 256)
	last := 0
	for _, a := range add {
		out.Write(base[last:a.at])
		out.WriteString(a.text)
		last = a.at
	}
	out.Write(base[last:])
	return out.Bytes()
}

// paragraphs are the offsets just after each "<p>" or "<p ...>" tag of b.
func paragraphs(b []byte) []int {
	var at []int
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '<' && (b[i+1] == 'p' || b[i+1] == 'P') && (b[i+2] == '>' || b[i+2] == ' ') {
			if j := bytes.IndexByte(b[i:], '>'); j > 0 {
				at = append(at, i+j+1)
			}
		}
	}
	return at
}

// headEnd is where a tag goes at the start of b's head: after "<head…>",
// else at the start.
func headEnd(b []byte) int {
	if i := indexFold(b, "<head"); i >= 0 {
		if j := bytes.IndexByte(b[i:], '>'); j > 0 {
			return i + j + 1
		}
	}
	return 0
}

// bodyEnd is before b's last "</body", else b's end.
func bodyEnd(b []byte) int {
	if i := lastIndexFold(b, "</body"); i >= 0 {
		return i
	}
	return len(b)
}

// indexFold is the first index of s (lower case) in b in any case, -1
// if none.
func indexFold(b []byte, s string) int {
	for i := 0; i+len(s) <= len(b); {
		j := bytes.IndexByte(b[i:], s[0])
		if j < 0 || i+j+len(s) > len(b) {
			return -1
		}
		if bytes.EqualFold(b[i+j:i+j+len(s)], []byte(s)) {
			return i + j
		}
		i += j + 1
	}
	return -1
}

// lastIndexFold is the last index of s (lower case) in b in any case,
// -1 if none.
func lastIndexFold(b []byte, s string) int {
	for i := len(b) - len(s); i >= 0; i-- {
		if b[i] == s[0] && bytes.EqualFold(b[i:i+len(s)], []byte(s)) {
			return i
		}
	}
	return -1
}

// cipheredPage is a pool page in a site's cipher, with the places
// render inserts at.
type cipheredPage struct {
	b         []byte
	paras     []int // paragraphs(b)
	head, end int   // headEnd(b), bodyEnd(b)
}

// body is page n of s, made once: the site's pool page in the site's
// cipher, the text of its paragraphs and headings in the page's own.
func (s *realSite) body(pool [][]byte, n int) *cipheredPage {
	if pg, ok := s.bodies[n]; ok {
		return pg
	}
	e := &encoder{site: s.c, page: newCipher(s.c.key ^ (uint64(n)+1)*0x9e3779b97f4a7c15)}
	b := e.encipher(pool[s.tmpl])
	pg := &cipheredPage{b: b, paras: paragraphs(b), head: headEnd(b), end: bodyEnd(b)}
	s.bodies[n] = pg
	return pg
}

// pageTags hold a page's own text (an article's): their words take the
// page's cipher, every other word the site's (its menus, its footer,
// its scripts: the same on every page of the site).
var pageTags = map[string]bool{"p": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"title": true, "blockquote": true, "figcaption": true, "time": true}

// encoder enciphers one page: in the site's cipher, and in the page's
// within pageTags.
type encoder struct {
	site, page *cipher
	depth      int // pageTags open
}

func (e *encoder) word(w string) string {
	if e.depth > 0 {
		return e.page.word(w)
	}
	return e.site.word(w)
}

// keepAttr are the attributes whose values stay as they are: names a
// site's stylesheet and scripts share with other sites (class, id) or
// that readers interpret (type, charset).
var keepAttr = map[string]bool{"class": true, "id": true, "rel": true, "type": true, "lang": true,
	"charset": true, "http-equiv": true, "role": true, "name": true, "property": true, "media": true}

// keepWord are words left as they are wherever they are.
var keepWord = map[string]bool{"http": true, "https": true, "www": true}

// encipher replaces the words of page b by s's cipher: letter runs in
// text, comments, scripts, styles and attribute values (keepAttr's
// apart); tag names, attribute names and entity names stay.
func (s *encoder) encipher(b []byte) []byte {
	out := make([]byte, 0, len(b))
	i := 0
	// word copies the letter run at b[i:] through the cipher.
	word := func() {
		j := i
		for j < len(b) && isLetter(b[j]) {
			j++
		}
		out = append(out, s.word(string(b[i:j]))...)
		i = j
	}
	for i < len(b) {
		c := b[i]
		switch {
		case c == '<' && i+3 < len(b) && string(b[i:i+4]) == "<!--":
			out = append(out, "<!--"...)
			i += 4
		case c == '<' && i+1 < len(b) && (isLetter(b[i+1]) || b[i+1] == '/' || b[i+1] == '!'):
			closing := b[i+1] == '/'
			name := s.tag(b, &i, &out)
			if pageTags[name] {
				if closing {
					s.depth = max(s.depth-1, 0)
				} else {
					s.depth++
				}
			}
			if !closing && (name == "script" || name == "style") {
				// Raw text to the closing tag, its words ciphered.
				end := indexFold(b[i:], "</"+name)
				if end < 0 {
					end = len(b) - i
				}
				stop := i + end
				for i < stop {
					if isLetter(b[i]) {
						j := i
						for j < stop && isLetter(b[j]) {
							j++
						}
						out = append(out, s.word(string(b[i:j]))...)
						i = j
					} else {
						out = append(out, b[i])
						i++
					}
				}
			}
		case c == '&':
			out = append(out, c)
			i++
			for i < len(b) && (isLetter(b[i]) || b[i] >= '0' && b[i] <= '9' || b[i] == '#') {
				out = append(out, b[i])
				i++
			}
		case isLetter(c):
			word()
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}

// tag copies the tag at b[*i] (at its '<') to out, its attribute
// values ciphered, and returns its name in lower case.
func (s *encoder) tag(b []byte, i *int, out *[]byte) string {
	j := *i + 1
	for j < len(b) && (b[j] == '/' || b[j] == '!') {
		j++
	}
	k := j
	for k < len(b) && (isLetter(b[k]) || b[k] >= '0' && b[k] <= '9' || b[k] == '-') {
		k++
	}
	name := strings.ToLower(string(b[j:k]))
	*out = append(*out, b[*i:k]...)
	p := k
	attr := ""
	for p < len(b) && b[p] != '>' {
		c := b[p]
		switch {
		case c == '"' || c == '\'':
			end := bytes.IndexByte(b[p+1:], c)
			if end < 0 {
				end = len(b) - p - 1
			}
			val := b[p+1 : p+1+end]
			*out = append(*out, c)
			if keepAttr[attr] {
				*out = append(*out, val...)
			} else {
				*out = s.appendCiphered(*out, val)
			}
			p += 1 + end
			if p < len(b) {
				*out = append(*out, c)
				p++
			}
		case isLetter(c):
			q := p
			for q < len(b) && (isLetter(b[q]) || b[q] == '-' || b[q] == ':' || b[q] >= '0' && b[q] <= '9') {
				q++
			}
			if p > 0 && b[p-1] == '=' && !keepAttr[attr] {
				*out = s.appendCiphered(*out, b[p:q]) // an unquoted value
			} else {
				attr = strings.ToLower(string(b[p:q]))
				*out = append(*out, b[p:q]...)
			}
			p = q
		default:
			*out = append(*out, c)
			p++
		}
	}
	if p < len(b) {
		*out = append(*out, '>')
		p++
	}
	*i = p
	return name
}

// appendCiphered appends v with its letter runs ciphered.
func (s *encoder) appendCiphered(out, v []byte) []byte {
	for i := 0; i < len(v); {
		if !isLetter(v[i]) {
			out = append(out, v[i])
			i++
			continue
		}
		j := i
		for j < len(v) && isLetter(v[j]) {
			j++
		}
		out = append(out, s.word(string(v[i:j]))...)
		i = j
	}
	return out
}

// cipher replaces words by words of the same length.
type cipher struct {
	key uint64
	m   map[string]string
}

func newCipher(key uint64) *cipher { return &cipher{key: key, m: map[string]string{}} }

// word is w in s's cipher: a word of w's length and case pattern, the
// same for every occurrence of w (in any case), drawn from alternating
// consonants and vowels as a pronounceable word is.
func (s *cipher) word(w string) string {
	if len(w) < 2 || keepWord[strings.ToLower(w)] {
		return w
	}
	if c, ok := s.m[w]; ok {
		return c
	}
	h := fnv.New64a()
	var k [8]byte
	binary.LittleEndian.PutUint64(k[:], s.key)
	h.Write(k[:])
	h.Write([]byte(strings.ToLower(w)))
	r := rand.New(rand.NewPCG(h.Sum64(), s.key))
	const cons, vows = "bcdfghjklmnprstvwz", "aeiouy"
	vowel := r.IntN(2) == 0
	out := make([]byte, len(w))
	for i := range out {
		var c byte
		if vowel {
			c = vows[r.IntN(len(vows))]
		} else {
			c = cons[r.IntN(len(cons))]
		}
		vowel = !vowel
		if w[i] >= 'A' && w[i] <= 'Z' {
			c -= 'a' - 'A'
		}
		out[i] = c
	}
	s.m[w] = string(out)
	return s.m[w]
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// assetBytes are the bytes of version v of asset a: n bytes that do not
// compress.
func assetBytes(seed uint64, a, v, n int) []byte {
	r := rand.New(rand.NewPCG(seed^0x6173736574, uint64(a)<<32|uint64(v)))
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(b[i:], r.Uint64())
	}
	return b
}

// warcWriter collects a WARC file of request and response records, each
// record a gzip member.
type warcWriter struct {
	buf bytes.Buffer
	n   int
}

// pair adds the request and the response of a GET of uri at t.
func (w *warcWriter) pair(uri string, t time.Time, ctype string, body []byte) {
	w.n++
	rid := recordID(uri, t, "response")
	etag := sha1.Sum(body)
	resp := fmt.Appendf(nil, "HTTP/1.1 200 OK\r\nDate: %s\r\nServer: Apache\r\nContent-Type: %s\r\nContent-Length: %d\r\nETag: \"%x\"\r\nConnection: close\r\n\r\n",
		t.Format(time.RFC1123), ctype, len(body), etag[:8])
	resp = append(resp, body...)
	host := uri[strings.Index(uri, "://")+3:]
	path := "/"
	if k := strings.IndexByte(host, '/'); k >= 0 {
		host, path = host[:k], host[k:]
	}
	req := fmt.Appendf(nil, "GET %s HTTP/1.1\r\nUser-Agent: Mozilla/5.0 (compatible; synthcrawl/1.0)\r\nAccept: */*\r\nHost: %s\r\nConnection: Keep-Alive\r\n\r\n", path, host)
	w.record("response", uri, t, rid, "", "application/http; msgtype=response", resp, len(resp)-len(body))
	w.record("request", uri, t, recordID(uri, t, "request"), rid, "application/http; msgtype=request", req, -1)
}

// record adds one record as a gzip member; payloadAt is where the
// payload starts in block (-1: no payload digest).
func (w *warcWriter) record(typ, uri string, t time.Time, id, concurrent, ctype string, block []byte, payloadAt int) {
	var h bytes.Buffer
	fmt.Fprintf(&h, "WARC/1.0\r\nWARC-Type: %s\r\nWARC-Target-URI: %s\r\nWARC-Date: %s\r\nWARC-Record-ID: %s\r\n", typ, uri, t.UTC().Format(time.RFC3339), id)
	if concurrent != "" {
		fmt.Fprintf(&h, "WARC-Concurrent-To: %s\r\n", concurrent)
	}
	d := sha1.Sum(block)
	fmt.Fprintf(&h, "Content-Type: %s\r\nWARC-Block-Digest: sha1:%s\r\n", ctype, base32.StdEncoding.EncodeToString(d[:]))
	if payloadAt >= 0 {
		p := sha1.Sum(block[payloadAt:])
		fmt.Fprintf(&h, "WARC-Payload-Digest: sha1:%s\r\n", base32.StdEncoding.EncodeToString(p[:]))
	}
	fmt.Fprintf(&h, "Content-Length: %d\r\n\r\n", len(block))
	h.Write(block)
	h.WriteString("\r\n\r\n")
	w.member(h.Bytes())
}

// member appends plain as one gzip member.
func (w *warcWriter) member(plain []byte) {
	if zlibenc.Available {
		// The header gzip -n and Heritrix write: no name, no time.
		w.buf.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3})
		d, err := zlibenc.Deflate(nil, plain, zlibenc.Params{Level: 6, MemLevel: 8})
		if err == nil {
			w.buf.Write(d)
			var tr [8]byte
			binary.LittleEndian.PutUint32(tr[:4], crc32.ChecksumIEEE(plain))
			binary.LittleEndian.PutUint32(tr[4:], uint32(len(plain)))
			w.buf.Write(tr[:])
			return
		}
		w.buf.Truncate(w.buf.Len() - 10)
	}
	z := gzip.NewWriter(&w.buf)
	z.Write(plain)
	z.Close()
}

func (w *warcWriter) close(path string) error {
	return os.WriteFile(path, w.buf.Bytes(), 0o644)
}

// recordID is a record id made from what the record is.
func recordID(uri string, t time.Time, typ string) string {
	id := sha1.Sum([]byte(fmt.Sprint(uri, t.UnixNano(), typ)))
	return fmt.Sprintf("<urn:uuid:%x-%x-%x-%x-%x>", id[0:4], id[4:6], id[6:8], id[8:10], id[10:16])
}
