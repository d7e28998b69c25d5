package dedupe

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"mime"
	"slices"
	"strings"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/partition"
	"github.com/blockwarc/blockwarc/warcio"
)

// PageOptions are the partition options of an HTML payload, the one
// payload → page decision that ingest, the tables and the blocks command
// share, so they all read a page alike: the charset is the partition's
// DetectCharset of the decoded document and its Content-Type (BOM, HTTP
// charset, a <meta> declaration wherever it is, then UTF-8 or
// windows-1252), the level the URL is archived at, the target URI as the
// base for links. doc must be the de-chunked, content-decoded entity.
func PageOptions(contentType string, level int, baseURL string) partition.Options {
	return partition.Options{ContentType: contentType, Level: level, BaseURL: baseURL}
}

// Page is one capture read as the document a browser shows: what diff
// and blocks -at look at.
type Page struct {
	Version     Version
	ContentType string // of the payload: the HTTP header's, or the record's for a resource
	MediaType   string // ContentType's media type, lower case
	// Doc is the payload de-chunked and content-decoded (gzip, br, ...;
	// at most warcio.DefaultMaxDecoded bytes): the bytes partitioned.
	Doc []byte
	// Leaves are the byte spans [start, end) in Doc of the blocks the
	// archive stores for this capture (Parts.Leaves), nil when its payload
	// is not kept as layout + blocks.
	Leaves [][2]int
}

// What a partition of a Page shows (Page.Partition).
const (
	// ShownStored: the blocks the archive stores for the capture, with
	// today's block tree and paths.
	ShownStored = "stored"
	// ShownStoredSpans: the stored blocks, read at their spans because
	// today's partition cuts the page elsewhere (an archive written by an
	// older partition); paths are today's blocks holding them.
	ShownStoredSpans = "stored-spans"
	// ShownAfresh: a partition made now, not the stored one: the payload
	// is stored whole, or another level than the archived one was asked.
	ShownAfresh = "afresh"
)

// Partition partitions the page at level as readers show it: the
// partition the archive stores for the capture when it stores one at that
// level (partition.PartitionStored over Leaves; prior is not read), else
// a partition made afresh with prior as Options.Prior. It says which
// (ShownStored, ShownStoredSpans, ShownAfresh). blocks, diff and the
// tables all read pages through it, so what they show is what is stored.
func (p *Page) Partition(pp *partition.Partitioner, level int, prior *partition.Result) (*partition.Result, string, error) {
	opts := PageOptions(p.ContentType, level, p.Version.TargetURI)
	if p.Leaves != nil && sameLevel(level, p.Version.Level) {
		res, how, err := pp.PartitionStored(p.Doc, p.Leaves, opts)
		if err != nil {
			return nil, "", err
		}
		if how == partition.StoredSpans {
			return res, ShownStoredSpans, nil
		}
		return res, ShownStored, nil
	}
	opts.Prior = prior
	res, err := pp.Partition(p.Doc, opts)
	return res, ShownAfresh, err
}

// sameLevel tells whether partition levels a and b are one (0 is the
// default level, any negative level the adaptive one).
func sameLevel(a, b int) bool {
	norm := func(l int) int {
		if l == 0 {
			l = DefaultLevel
		}
		return max(l, partition.LevelAdaptive)
	}
	return norm(a) == norm(b)
}

// ErrNoPayload says a capture has no document of its own: a request,
// a revisit (its page is the capture it revisits), a metadata record.
var ErrNoPayload = errors.New("capture has no payload of its own")

// ReadPage restores v (one capture; restore cost as cat) and returns its
// document as analysis reads it. Partition it with
// PageOptions(p.ContentType, level, v.TargetURI).
func (a *Archive) ReadPage(v *Version) (*Page, error) {
	switch v.Type {
	case "response", "resource":
	case "":
		// ARC records have no type; their block is the document.
	default:
		return nil, fmt.Errorf("%s at %s: %s record: %w", v.TargetURI, v.Date.Format(time.RFC3339), v.Type, ErrNoPayload)
	}
	parts, err := a.Restore(v)
	if err != nil {
		return nil, err
	}
	pg := &Page{Version: *v}
	var m *warcio.HTTPMessage
	payload := parts.Payload
	switch {
	case parts.HTTPHeader != nil:
		m, err = warcio.ReadHTTP(bytes.NewReader(parts.HTTPHeader), 0)
		if err != nil {
			return nil, fmt.Errorf("%s at %s: HTTP header: %w", v.TargetURI, v.Date.Format(time.RFC3339), err)
		}
	case v.Type == "response":
		// Kept as a block (unparseable or odd HTTP): read it as ingest
		// would have if it could.
		block := parts.Block
		if v.Storage().How == StoredRecord {
			_, block = splitHeader(parts.WARCHeader)
		}
		if msg, err := warcio.ReadHTTP(bytes.NewReader(block), 0); err == nil && !msg.Truncated && len(msg.Raw) <= len(block) {
			m, payload = msg, block[len(msg.Raw):]
		} else {
			payload = block
		}
	default:
		payload = parts.Block
		hdr := parts.WARCHeader
		if v.Storage().How == StoredRecord {
			hdr, payload = splitHeader(parts.WARCHeader)
		}
		pg.ContentType = warcField(hdr, "Content-Type")
	}
	doc := payload
	if m != nil {
		pg.ContentType = m.ContentType()
		if doc, err = DecodedDoc(m, payload); err != nil {
			return nil, fmt.Errorf("%s at %s: %w", v.TargetURI, v.Date.Format(time.RFC3339), err)
		}
	}
	pg.Doc = doc
	if parts.Leaves != nil && bytes.Equal(parts.Document, doc) {
		pg.Leaves = parts.Leaves
	}
	if mt, _, err := mime.ParseMediaType(pg.ContentType); err == nil {
		pg.MediaType = mt
	} else {
		pg.MediaType = strings.ToLower(strings.TrimSpace(strings.SplitN(pg.ContentType, ";", 2)[0]))
	}
	return pg, nil
}

// DecodedDoc is the document of an HTTP payload as analysis reads it:
// de-chunked when Transfer-Encoding says chunked (a body that does not
// de-chunk is taken as it is), then content-decoded (gzip, br, ...; at
// most warcio.DefaultMaxDecoded bytes, against bombs).
func DecodedDoc(m *warcio.HTTPMessage, payload []byte) ([]byte, error) {
	doc := payload
	if m.Chunked() {
		if dc, err := io.ReadAll(warcio.NewDechunker(bytes.NewReader(doc))); err == nil {
			doc = dc
		}
	}
	if codings := m.Codings(); len(codings) > 0 {
		cr, err := warcio.DecodeContent(bytes.NewReader(doc), codings, 0)
		if err != nil {
			return nil, fmt.Errorf("content-encoding: %w", err)
		}
		if doc, err = io.ReadAll(cr); err != nil {
			return nil, fmt.Errorf("content-encoding: %w", err)
		}
	}
	return doc, nil
}

// IsHTML tells whether the page is HTML (or XHTML), or has no media type
// and looks like HTML, as browsers sniff.
func (p *Page) IsHTML() bool {
	switch p.MediaType {
	case "text/html", "application/xhtml+xml":
		return true
	case "", "unknown/unknown", "application/unknown", "*/*":
		head := bytes.ToLower(bytes.TrimLeft(p.Doc[:min(len(p.Doc), 512)], " \t\r\n\ufeff"))
		return bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html"))
	}
	return false
}

// splitHeader splits a stored record into its header (through the blank
// line) and its block.
func splitHeader(rec []byte) (hdr, block []byte) {
	if i := bytes.Index(rec, []byte("\r\n\r\n")); i >= 0 {
		return rec[:i+4], rec[i+4:]
	}
	if i := bytes.Index(rec, []byte("\n\n")); i >= 0 {
		return rec[:i+2], rec[i+2:]
	}
	return rec, nil
}

// warcField returns the first value of a header field, "" when absent.
func warcField(hdr []byte, name string) string {
	for _, line := range bytes.Split(hdr, []byte("\n")) {
		k, val, ok := bytes.Cut(line, []byte(":"))
		if ok && strings.EqualFold(string(bytes.TrimSpace(k)), name) {
			return string(bytes.TrimSpace(val))
		}
	}
	return ""
}

// Nearest returns the index of the version of vs (in capture order)
// nearest to the period [start, end): the latest inside it, else the
// closest one before or after it, ties going to the earlier; -1 when vs is
// empty. It is how `cat -near`, `diff -from/-to` and `blocks -at` choose.
func Nearest(vs []Version, start, end time.Time) int {
	best, bestGap := -1, time.Duration(0)
	for i := range vs {
		gap := nearGap(vs[i].Date, start, end)
		if best < 0 || gap < bestGap || gap == 0 && bestGap == 0 {
			best, bestGap = i, gap
		}
	}
	return best
}

// nearGap is how far date d is from the period [start, end) as Nearest
// measures it: 0 inside.
func nearGap(d, start, end time.Time) time.Duration {
	switch {
	case d.Before(start):
		return start.Sub(d)
	case !d.Before(end):
		return d.Sub(end) + time.Nanosecond
	}
	return 0
}

// nearGapOf is the least nearGap of a date in [lo, hi]: nearGap falls,
// then rises, in pieces that break at start and end, so the least is at
// an end of [lo, hi] or at a break inside it (a nanosecond either side).
func nearGapOf(lo, hi, start, end time.Time) time.Duration {
	g := min(nearGap(lo, start, end), nearGap(hi, start, end))
	for _, t := range []time.Time{start.Add(-time.Nanosecond), start, end.Add(-time.Nanosecond), end} {
		if !t.Before(lo) && !t.After(hi) {
			g = min(g, nearGap(t, start, end))
		}
	}
	return g
}

// FindNear returns the capture of url (canonicalised with warcio.SURT)
// nearest to the period [start, end) as Nearest chooses, among the
// records holding the page (response, revisit, resource) when it has any.
// It reads the runs whose dates may hold that capture (nearVersions).
func (a *Archive) FindNear(url string, start, end time.Time) (Version, error) {
	vs, err := a.someVersions(warcio.SURT(url), func(s *pack.Store, r *root, key string) ([]Version, error) {
		return nearVersions(s, r, key, start, end)
	})
	if err != nil {
		return Version{}, err
	}
	var pages []Version
	for _, v := range vs {
		if pagePriority(v.Type) > 0 {
			pages = append(pages, v)
		}
	}
	if len(pages) > 0 {
		vs = pages
	}
	i := Nearest(vs, start, end)
	if i < 0 {
		return Version{}, fmt.Errorf("find %s: %w", url, ErrNoCapture)
	}
	return vs[i], nil
}

// NearVersions returns, in capture order, the versions of key (a SURT,
// as for Versions) in the runs of the catalog that may hold the page
// capture (response, revisit, resource) nearest the period [start, end),
// or with start zero the latest one: of Versions(key), every page
// capture at the least distance from the period (the latest date), and
// whatever else those runs hold. It reads those runs only, where
// Versions reads every run: a replay that serves one capture of a URL
// ingested a crawl at a time over years reads a few catalog segments,
// not one per crawl. Choosing among them as among Versions(key) gives
// the same capture for any rule that prefers the least distance (the
// latest date), whatever it does with ties.
func (a *Archive) NearVersions(key string, start, end time.Time) ([]Version, error) {
	return a.someVersions(key, func(s *pack.Store, r *root, key string) ([]Version, error) {
		if start.IsZero() {
			return findVersions(s, r, key, time.Time{})
		}
		return nearVersions(s, r, key, start, end)
	})
}

// nearVersions returns, in capture order and without gaps, key's
// versions in the runs of r that may hold FindNear's answer for [start,
// end): all of them when that is needed, so that FindNear chooses from
// them what it chooses from Versions.
//
// Until a page (pagePriority 1) is read, every run is read: FindNear
// falls back on the other records only when the URL has no page at all.
// Once one is, only pages count. With G the least gap (nearGap) of a
// page read, Nearest's answer is the first page of gap G in capture
// order when G > 0, the last one inside the period when G is 0: a run
// none of whose dates is within G of the period (nearGapOf > G) cannot
// change it, nor, when G is 0, a run none of whose dates is both inside
// and at or after the latest page inside read so far. Such runs are
// skipped (G only shrinks, and that date only grows, as more are read).
// Runs of unknown dates are read first, always; then by least gap, and
// latest date first. The versions read are merged in run order, as
// Versions merges them.
func nearVersions(s *pack.Store, r *root, key string, start, end time.Time) ([]Version, error) {
	cands := keyRuns(r, key)
	for k := range cands {
		if c := &cands[k]; c.d.Known {
			c.gap = nearGapOf(c.d.Min, c.d.Max, start, end)
		}
	}
	slices.SortStableFunc(cands, func(x, y keyRun) int {
		if x.d.Known != y.d.Known {
			if !x.d.Known {
				return -1
			}
			return 1
		}
		if x.gap != y.gap {
			return cmp.Compare(x.gap, y.gap)
		}
		return y.last.Compare(x.last)
	})
	got := make([][]Version, len(r.Runs))
	page := false
	var bestGap time.Duration
	var inside time.Time // the latest page inside the period read, when bestGap is 0
	for _, c := range cands {
		if c.d.Known && page && (c.gap > bestGap || bestGap == 0 && (c.gap > 0 || c.d.Max.Before(inside))) {
			continue
		}
		vs, err := runVersions(s, r, c.run, key)
		if err != nil {
			return nil, err
		}
		got[c.run] = vs
		for k := range vs {
			v := &vs[k]
			if v.Gap || pagePriority(v.Type) == 0 {
				continue
			}
			switch g := nearGap(v.Date, start, end); {
			case !page || g < bestGap:
				page, bestGap, inside = true, g, v.Date
			case g == 0 && bestGap == 0 && v.Date.After(inside):
				inside = v.Date
			}
		}
	}
	return mergeRuns(got), nil
}
