package replay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/dedupe/shard"
	"github.com/blockwarc/blockwarc/warcio"
)

// Server is the replay back end over archive directories. It opens the
// archives read-only, as `blockwarc cat` does, and answers every request
// from their last commit, even while an ingest extends them. It is an
// http.Handler:
//
//	/cdx?url=U[&matchType=exact|prefix|host|domain][&from=T][&to=T]
//	    [&filter=[!][~]field:value]...[&limit=N][&output=cdxj|json]
//	/web/TIMESTAMPid_/URL   the capture's HTTP response as stored
//	/web/TIMESTAMP/URL      302 to the nearest capture's id_ URL
//	/timemap/link/URL       the captures of URL as a Memento TimeMap
//
// An archive opened for one request is kept open for the next ones as
// long as its commit files are unchanged; a request that finds them
// changed opens the archive again, and the earlier view is closed when
// its last request ends. Every view keeps its decoded frames in one
// Cache, so a commit costs the views after it only the frames it added.
// Close releases them.
type Server struct {
	Dirs []string
	// Warn, when set, is told what opening an archive recovered from (a
	// damaged COMMIT read from its copy).
	Warn func(string)
	// Error, when set, is told of requests that failed on the server's side.
	Error func(error)
	// Cache holds the frames decoded for every view of the archives: a
	// view opened after a commit finds the frames of the ones before
	// (they never change once committed) instead of decoding them
	// again. nil: a cache of pack.DefaultCacheBytes, made on first use.
	Cache *pack.Cache

	mu     sync.Mutex
	views  map[string]*view // by directory: the latest view opened
	opened int64            // views opened, under mu

	// headers holds the WARC and HTTP headers of the records served
	// lately, for dedupe's RestoreKnown: decoding a WARC header means
	// hashing the record's block and payload (SHA-1), most of a cached
	// record's restore, and a committed record's headers never change,
	// so they are kept across views. At most maxHeaderBytes, counted
	// with their keys.
	hmu         sync.Mutex
	headers     map[recordKey]dedupe.Headers
	headerBytes int
}

// recordKey names a record of an archive directory: its place in its
// input file, and its id.
type recordKey struct {
	dir, file, id string
	off           int64
}

// maxHeaderBytes bounds the headers a Server keeps (4 MiB: about 4,000
// records), within the heap serve leaves beside its -cache. Headers
// larger than maxHeader are not kept.
const (
	maxHeaderBytes = 4 << 20
	maxHeader      = 8 << 10
)

// header returns the kept headers of k, or none.
func (s *Server) header(k recordKey) dedupe.Headers {
	s.hmu.Lock()
	defer s.hmu.Unlock()
	return s.headers[k]
}

// keepHeader keeps h, the headers of k (not to be changed after); none
// forgets k's. When the headers kept would exceed maxHeaderBytes they
// are all dropped: the next fetches decode theirs again.
func (s *Server) keepHeader(k recordKey, h dedupe.Headers) {
	cost := func(h dedupe.Headers) int {
		return len(h.WARC) + len(h.HTTP) + len(k.dir) + len(k.file) + len(k.id) + 128
	}
	s.hmu.Lock()
	defer s.hmu.Unlock()
	if old, ok := s.headers[k]; ok {
		s.headerBytes -= cost(old)
		delete(s.headers, k)
	}
	if h.WARC == nil || len(h.WARC)+len(h.HTTP) > maxHeader {
		return
	}
	if s.headers == nil || s.headerBytes+cost(h) > maxHeaderBytes {
		s.headers, s.headerBytes = map[recordKey]dedupe.Headers{}, 0
	}
	s.headers[k] = h
	s.headerBytes += cost(h)
}

// Stats say what a Server has done since it started.
type Stats struct {
	Views int64 // views opened: one per archive, then one at each new commit seen
	pack.CacheStats
}

// Stats returns what s has done since it started.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Views: s.opened, CacheStats: s.cache().Stats()}
}

// cache returns s.Cache, made on first use (under s.mu).
func (s *Server) cache() *pack.Cache {
	if s.Cache == nil {
		s.Cache = pack.NewCache(pack.DefaultCacheBytes)
	}
	return s.Cache
}

// view is an archive opened at one state of its commit files (stamp).
type view struct {
	a     *dedupe.Archive
	dir   string
	stamp string
	refs  int  // requests using it, under Server.mu
	stale bool // no longer the latest: closed when refs drops to 0

	// The versions of the keys asked for lately (read-only): the
	// archive's catalog at this commit, decoded once rather than on every
	// request for a URL (a page's fetches, a client's retries).
	vmu  sync.Mutex
	vers map[string][]dedupe.Version
}

// maxKeys bounds a view's cache of versions (a key's versions are a few
// hundred bytes each).
const maxKeys = 4096

// versions returns a.Versions(key), from the view's cache when there.
// The slice is shared: read it only.
func (v *view) versions(key string) ([]dedupe.Version, error) {
	if vs, ok := v.cached(key); ok {
		return vs, nil
	}
	vs, err := v.a.Versions(key)
	if err != nil {
		return nil, err
	}
	v.vmu.Lock()
	if v.vers == nil || len(v.vers) >= maxKeys {
		v.vers = map[string][]dedupe.Version{}
	}
	v.vers[key] = vs
	v.vmu.Unlock()
	return vs, nil
}

// cached returns key's versions from the view's cache, ok false when
// they are not there.
func (v *view) cached(key string) ([]dedupe.Version, bool) {
	v.vmu.Lock()
	defer v.vmu.Unlock()
	vs, ok := v.vers[key]
	return vs, ok
}

// commitStamp is the content of the files an archive's commit is
// published in: COMMIT (a few hundred bytes, with the commit's sequence
// number), and for a sharded archive SHARDS and each shard's COMMIT. A
// commit rewrites them, so a new commit changes the stamp. "" when they
// cannot be read (then the archive is opened for the request alone).
func commitStamp(dir string) string {
	var b strings.Builder
	var buf [1024]byte
	add := func(p string) bool {
		c, err := readSmall(p, buf[:0])
		if err != nil {
			return false
		}
		b.WriteString(strconv.Itoa(len(c)))
		b.WriteByte(':')
		b.Write(c)
		b.WriteByte(';')
		return true
	}
	if !add(filepath.Join(dir, shard.ManifestName)) {
		if !add(filepath.Join(dir, "COMMIT")) {
			return ""
		}
		return b.String()
	}
	es, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range es {
		if e.IsDir() && strings.HasPrefix(e.Name(), "shard-") {
			b.WriteString(e.Name())
			if !add(filepath.Join(dir, e.Name(), "COMMIT")) {
				b.WriteString("-;") // not yet committed: its first commit changes the stamp
			}
		}
	}
	return b.String()
}

// open returns a view of every archive at its last commit; closeAll
// releases them.
func (s *Server) open() (as []*dedupe.Archive, closeAll func(), err error) {
	vs, closeAll, err := s.openViews()
	for _, v := range vs {
		as = append(as, v.a)
	}
	return as, closeAll, err
}

// openViews is open, returning the views.
func (s *Server) openViews() (vs []*view, closeAll func(), err error) {
	closeAll = func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, v := range vs {
			s.release(v)
		}
	}
	for _, d := range s.Dirs {
		v, err := s.view(d)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		vs = append(vs, v)
	}
	return vs, closeAll, nil
}

// release drops a request's hold on v (under s.mu).
func (s *Server) release(v *view) {
	v.refs--
	if v.stale && v.refs == 0 {
		v.a.Close()
	}
}

// view returns the latest view of dir, opening the archive when its
// commit files changed since (the stamp is read before opening, so a
// commit published meanwhile makes the next request open it again).
func (s *Server) view(dir string) (*view, error) {
	stamp := commitStamp(dir)
	s.mu.Lock()
	if v := s.views[dir]; v != nil && stamp != "" && v.stamp == stamp {
		v.refs++
		s.mu.Unlock()
		return v, nil
	}
	c := s.cache()
	s.opened++
	s.mu.Unlock()
	a, m, err := shard.Open(dir, pack.Options{Cache: c})
	if err != nil {
		return nil, err
	}
	if s.Warn != nil {
		if m != nil && m.Recovered != "" {
			s.Warn(m.Recovered)
		}
		if r := a.Recovered(); r != "" {
			s.Warn(r)
		}
	}
	v := &view{a: a, dir: dir, stamp: stamp, refs: 1}
	s.mu.Lock()
	defer s.mu.Unlock()
	if stamp == "" {
		v.stale = true // not kept: closed after this request
		return v, nil
	}
	if s.views == nil {
		s.views = map[string]*view{}
	}
	if old := s.views[dir]; old != nil {
		old.stale = true
		if old.refs == 0 {
			old.a.Close()
		}
	}
	s.views[dir] = v
	return v, nil
}

// Close releases the archives kept open; views in use by requests are
// closed when those end.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for d, v := range s.views {
		v.stale = true
		if v.refs == 0 {
			v.a.Close()
		}
		delete(s.views, d)
	}
	return nil
}

func (s *Server) fail(w http.ResponseWriter, err error) {
	if s.Error != nil {
		s.Error(err)
	}
	http.Error(w, err.Error(), http.StatusInternalServerError)
}

// ServeHTTP routes a request. The request URI is read raw: the URL in a
// /web/ path keeps its "//" and its query.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	path := r.URL.Path
	switch {
	case path == "/cdx":
		s.serveCDX(w, r)
	case strings.HasPrefix(r.RequestURI, "/web/"):
		s.serveWeb(w, r, strings.TrimPrefix(r.RequestURI, "/web/"))
	case strings.HasPrefix(r.RequestURI, "/timemap/link/"):
		s.serveTimeMap(w, r, strings.TrimPrefix(r.RequestURI, "/timemap/link/"))
	default:
		http.NotFound(w, r)
	}
}

// ParseQuery reads a CDX Server API query string.
func ParseQuery(v url.Values) (*Query, string, error) {
	q := &Query{URL: v.Get("url"), Match: MatchType(v.Get("matchType")), From: v.Get("from"), To: v.Get("to")}
	if q.Match == "" {
		// pywb's shorthands: "example.com/*" and "*.example.com".
		switch {
		case strings.HasPrefix(q.URL, "*."):
			q.URL, q.Match = q.URL[2:], MatchDomain
		case strings.HasSuffix(q.URL, "*"):
			q.URL, q.Match = strings.TrimSuffix(q.URL, "*"), MatchPrefix
		}
	}
	if l := v.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 0 {
			return nil, "", fmt.Errorf("bad limit %q", l)
		}
		q.Limit = n
	}
	for _, f := range v["filter"] {
		pf, err := ParseFilter(f)
		if err != nil {
			return nil, "", err
		}
		q.Filters = append(q.Filters, pf)
	}
	out := v.Get("output")
	switch out {
	case "", "cdxj", "json":
	default:
		return nil, "", fmt.Errorf("bad output %q: want cdxj or json", out)
	}
	if _, _, err := q.keyMatcher(); err != nil {
		return nil, "", err
	}
	if _, _, err := q.timeBounds(); err != nil {
		return nil, "", err
	}
	return q, out, nil
}

func (s *Server) serveCDX(w http.ResponseWriter, r *http.Request) {
	q, out, err := ParseQuery(r.URL.Query())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	as, closeAll, err := s.open()
	if err != nil {
		s.fail(w, err)
		return
	}
	defer closeAll()
	lines, err := Lines(as, q)
	if err != nil {
		s.fail(w, err)
		return
	}
	if out == "json" {
		b, err := JSONRows(lines)
		if err != nil {
			s.fail(w, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
		return
	}
	w.Header().Set("Content-Type", "text/x-cdxj; charset=utf-8")
	for _, l := range lines {
		if _, err := w.Write(l); err != nil {
			return
		}
	}
}

// capture is one capture found in one of the archives. v points into
// the view's cache of versions: read it only (a Version is hundreds of
// bytes, and a URL has hundreds of captures: copies were a fifth of a
// fetch's garbage).
type capture struct {
	a   *dedupe.Archive
	dir string
	v   *dedupe.Version
}

// timestamp14 is the capture's time as 14 digits.
func timestamp14(t time.Time) string { return t.UTC().Format("20060102150405") }

// capturesOf opens the archives and lists target's captures (captures:
// every one, for a timemap); when it cannot, or there are none, it
// answers the request itself and ok is false (nothing is left open).
func (s *Server) capturesOf(w http.ResponseWriter, target string) (cs []capture, closeAll func(), ok bool) {
	return s.capturesBy(w, target, func(v *view, key string) ([]dedupe.Version, error) { return v.versions(key) })
}

// capturesNear is capturesOf for the capture nearest at (zero: the
// latest), the one a /web/ request serves: of each archive, only the
// catalog runs that may hold it are read (dedupe.Archive.NearVersions),
// where capturesOf reads every run, one per ingest. nearest chooses the
// same capture from either list.
func (s *Server) capturesNear(w http.ResponseWriter, target string, at time.Time) (cs []capture, closeAll func(), ok bool) {
	return s.capturesBy(w, target, func(v *view, key string) ([]dedupe.Version, error) {
		if vs, ok := v.cached(key); ok {
			return vs, nil // the whole list, read already
		}
		return v.a.NearVersions(key, at, at.Add(time.Nanosecond))
	})
}

// capturesBy is capturesOf with list giving each archive's versions.
func (s *Server) capturesBy(w http.ResponseWriter, target string, list func(v *view, key string) ([]dedupe.Version, error)) (cs []capture, closeAll func(), ok bool) {
	vs, closeAll, err := s.openViews()
	if err != nil {
		s.fail(w, err)
		return nil, nil, false
	}
	if cs, err = captures(vs, target, list); err != nil {
		closeAll()
		s.fail(w, err)
		return nil, nil, false
	}
	if len(cs) == 0 {
		closeAll()
		http.Error(w, "no capture of "+target, http.StatusNotFound)
		return nil, nil, false
	}
	return cs, closeAll, true
}

// captures returns the dated captures of target's key holding a page
// (response, revisit, resource) in every archive, of the versions list
// gives, in time order.
func captures(views []*view, target string, list func(v *view, key string) ([]dedupe.Version, error)) ([]capture, error) {
	key := warcio.SURT(target)
	var cs []capture
	for _, view := range views {
		a := view.a
		vs, err := list(view, key)
		if err != nil {
			return nil, err
		}
		cs = slices.Grow(cs, len(vs))
		for k := range vs {
			v := &vs[k]
			switch v.Type {
			case "response", "revisit", "resource":
			default:
				continue
			}
			if v.Date.IsZero() {
				continue
			}
			cs = append(cs, capture{a, view.dir, v})
		}
	}
	// Stable: captures of one second keep archive then capture order.
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].v.Date.Before(cs[j-1].v.Date); j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
	return cs, nil
}

// nearest returns the index of the capture closest to t (the earlier on a tie).
func nearest(cs []capture, t time.Time) int {
	best := -1
	var bestD time.Duration
	for i := range cs {
		d := cs[i].v.Date.Sub(t)
		if d < 0 {
			d = -d
		}
		if best < 0 || d < bestD {
			best, bestD = i, d
		}
	}
	return best
}

// splitWeb splits "TIMESTAMP[id_]/URL" (or "URL" alone: the latest).
func splitWeb(rest string) (ts string, raw bool, target string) {
	head, tail, ok := strings.Cut(rest, "/")
	if ok {
		h := strings.TrimSuffix(head, "id_")
		if h != "" && strings.Trim(h, "0123456789") == "" {
			return h, h != head, tail
		}
	}
	return "", false, rest
}

func (s *Server) serveWeb(w http.ResponseWriter, r *http.Request, rest string) {
	ts, raw, target := splitWeb(rest)
	if target == "" {
		http.Error(w, "want /web/TIMESTAMP/URL or /web/TIMESTAMPid_/URL", http.StatusNotFound)
		return
	}
	var at time.Time
	if ts != "" {
		if len(ts) > 14 {
			ts = ts[:14]
		}
		// A prefix names the start of its period (a year: January 1st).
		padded := ts + "00000101000000"[len(ts):]
		t, err := time.Parse("20060102150405", padded)
		if err != nil {
			http.Error(w, fmt.Sprintf("bad timestamp %q", ts), http.StatusBadRequest)
			return
		}
		at = t
	}
	cs, closeAll, ok := s.capturesNear(w, target, at)
	if !ok {
		return
	}
	defer closeAll()
	i := len(cs) - 1
	if !at.IsZero() {
		i = nearest(cs, at)
	}
	c := &cs[i]
	got := timestamp14(c.v.Date)
	h := w.Header()
	h.Set("Link", links(target))
	if !raw || got != ts {
		// A TimeGate: the memento's own URL.
		h.Set("Vary", "accept-datetime")
		// Set by hand: http.Redirect would clean the "//" of the URL.
		h.Set("Location", "/web/"+got+"id_/"+target)
		w.WriteHeader(http.StatusFound)
		return
	}
	p, err := s.restore(c)
	if err != nil {
		s.fail(w, err)
		return
	}
	h.Set("Memento-Datetime", c.v.Date.UTC().Format(http.TimeFormat))
	h.Set("Vary", "accept")
	if p.HTTPHeader != nil && acceptsHTML(r) {
		if m, err := warcio.ReadHTTP(p.BlockReader(), p.BlockLen()); err == nil && !m.Request && m.StatusCode >= 200 && m.StatusCode <= 999 {
			replayHTTP(w, r, m)
			return
		}
	}
	if p.HTTPHeader != nil {
		// The stored HTTP message itself (RFC 9112 section 10.2).
		h.Set("Content-Type", "application/http; msgtype=response")
	} else {
		h.Set("Content-Type", "application/octet-stream")
	}
	h.Set("Content-Length", strconv.Itoa(p.BlockLen()))
	if r.Method == http.MethodHead {
		return
	}
	p.WriteBlock(w)
}

// restore restores c's record, with its headers kept from an earlier
// fetch when there are. Either way the record is checked against the
// CRC-32C recorded at ingest, so kept headers save the decoding but not
// the check.
func (s *Server) restore(c *capture) (*dedupe.Parts, error) {
	k := recordKey{dir: c.dir, file: c.v.File, id: c.v.RecordID, off: c.v.Offset}
	if h := s.header(k); h.WARC != nil {
		p, err := c.a.RestoreKnown(c.v, h)
		if !errors.Is(err, dedupe.ErrMismatch) {
			return p, err
		}
		// Not this record's header (its archive was rebuilt under the
		// server?): restore it whole.
		s.keepHeader(k, dedupe.Headers{})
	}
	p, err := c.a.Restore(c.v)
	if err != nil {
		return nil, err
	}
	// A copy: the parts may share bytes with what the archive caches.
	s.keepHeader(k, dedupe.Headers{WARC: bytes.Clone(p.WARCHeader), HTTP: bytes.Clone(p.HTTPHeader)})
	return p, nil
}

// acceptsHTML reports whether the client asks for pages (a browser's
// Accept names text/html): it is then given the stored response as the
// HTTP response, to render, rather than the stored message as a document.
func acceptsHTML(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		if strings.Contains(v, "text/html") {
			return true
		}
	}
	return false
}

// hopByHop are the stored header fields that framed the original
// connection, not the entity: net/http frames this one.
var hopByHop = map[string]bool{
	"connection": true, "keep-alive": true, "transfer-encoding": true, "content-length": true,
	"te": true, "trailer": true, "upgrade": true, "proxy-connection": true,
}

// replayHTTP answers with the stored status and header fields (those of
// the connection apart) and the stored payload, de-chunked when it was
// sent chunked; the content coding is kept, with its header.
func replayHTTP(w http.ResponseWriter, r *http.Request, m *warcio.HTTPMessage) {
	h := w.Header()
	for _, f := range m.Header {
		if f.Name == "" || hopByHop[strings.ToLower(f.Name)] {
			continue
		}
		h.Add(f.Name, f.Value)
	}
	var body io.Reader = m.Payload
	if m.Chunked() {
		body = warcio.NewDechunker(m.Payload)
	}
	w.WriteHeader(m.StatusCode)
	if r.Method != http.MethodHead {
		io.Copy(w, body)
	}
}

// links is the Link header of a URL's mementos: original, timegate, timemap.
func links(target string) string {
	return fmt.Sprintf(`<%s>; rel="original", </web/%s>; rel="timegate", </timemap/link/%s>; rel="timemap"; type="application/link-format"`,
		target, target, target)
}

func (s *Server) serveTimeMap(w http.ResponseWriter, r *http.Request, target string) {
	cs, closeAll, ok := s.capturesOf(w, target)
	if !ok {
		return
	}
	defer closeAll()
	var b strings.Builder
	fmt.Fprintf(&b, "<%s>; rel=\"original\",\n</timemap/link/%s>; rel=\"self\"; type=\"application/link-format\",\n</web/%s>; rel=\"timegate\"", target, target, target)
	for _, c := range cs {
		fmt.Fprintf(&b, ",\n</web/%sid_/%s>; rel=\"memento\"; datetime=\"%s\"", timestamp14(c.v.Date), target, c.v.Date.UTC().Format(http.TimeFormat))
	}
	b.WriteString("\n")
	w.Header().Set("Content-Type", "application/link-format")
	w.Write([]byte(b.String()))
}
