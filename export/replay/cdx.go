// Package replay serves archives to replay front ends: the Wayback / pywb
// CDX Server API over the archive's captures, and raw captures restored
// byte for byte, with Memento (RFC 7089) headers.
package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/export"
	"github.com/blockwarc/blockwarc/warcio"
)

// MatchType is how a CDX query's url selects keys (the CDX Server API's
// matchType).
type MatchType string

const (
	MatchExact  MatchType = "exact"  // the URL's key only
	MatchPrefix MatchType = "prefix" // keys beginning with the URL's key
	MatchHost   MatchType = "host"   // every path of the URL's host
	MatchDomain MatchType = "domain" // the host and its subdomains
)

// Query is one CDX query.
type Query struct {
	URL     string
	Match   MatchType // "" is exact
	From    string    // timestamp prefix, inclusive ("" unbounded)
	To      string    // timestamp prefix, its period included whole
	Filters []Filter
	Limit   int // 0: no limit
}

// Filter is one CDX filter: [!][~]field:value. Value is a regular
// expression matched at the start of the field (pywb's re.match), or with
// Contains a substring.
type Filter struct {
	Field    string
	Not      bool
	Contains bool
	Value    string
	re       *regexp.Regexp
}

// fieldAliases maps the classic CDX field names to the CDXJ ones.
var fieldAliases = map[string]string{
	"statuscode": "status", "mimetype": "mime", "original": "url",
}

// ParseFilter reads a CDX filter "[!][~]field:value".
func ParseFilter(s string) (Filter, error) {
	var f Filter
	rest := s
	if strings.HasPrefix(rest, "!") {
		f.Not, rest = true, rest[1:]
	}
	if strings.HasPrefix(rest, "~") {
		f.Contains, rest = true, rest[1:]
	}
	field, val, ok := strings.Cut(rest, ":")
	if !ok || field == "" {
		return Filter{}, fmt.Errorf("bad filter %q: want [!][~]field:value", s)
	}
	if a, ok := fieldAliases[field]; ok {
		field = a
	}
	f.Field, f.Value = field, val
	if !f.Contains {
		re, err := regexp.Compile(`^(?:` + val + `)`)
		if err != nil {
			return Filter{}, fmt.Errorf("bad filter %q: %w", s, err)
		}
		f.re = re
	}
	return f, nil
}

// Keep reports whether the CDXJ line passes the filter.
func (f *Filter) Keep(line []byte) bool {
	v, ok := lineField(line, f.Field)
	var m bool
	switch {
	case !ok:
		m = false
	case f.Contains:
		m = strings.Contains(v, f.Value)
	default:
		m = f.re.MatchString(v)
	}
	return m != f.Not
}

// lineField returns a field of a CDXJ line: urlkey, timestamp, or a key
// of its JSON block.
func lineField(line []byte, field string) (string, bool) {
	key, rest, _ := bytes.Cut(line, []byte{' '})
	ts, js, _ := bytes.Cut(rest, []byte{' '})
	switch field {
	case "urlkey":
		return string(key), true
	case "timestamp":
		return string(ts), true
	}
	var m map[string]string
	if err := json.Unmarshal(bytes.TrimSpace(js), &m); err != nil {
		return "", false
	}
	v, ok := m[field]
	return v, ok
}

// keyRange returns what a query's keys begin with, and whether a key
// matches.
func (q *Query) keyMatcher() (prefix string, match func(key string) bool, err error) {
	if q.URL == "" {
		return "", nil, errors.New("missing url")
	}
	u := withScheme(q.URL)
	surt := warcio.SURT(u)
	host, _, _ := strings.Cut(surt, ")")
	switch q.Match {
	case "", MatchExact:
		return surt, func(k string) bool { return k == surt }, nil
	case MatchPrefix:
		p := strings.TrimSuffix(u, "*")
		surt = warcio.SURT(p)
		if !strings.HasSuffix(p, "/") {
			// SURT adds a slash to a bare host: "example.com" is a
			// prefix of "example.com/a", not "example.com/" only.
			surt = strings.TrimSuffix(surt, "/")
		}
		return surt, func(k string) bool { return strings.HasPrefix(k, surt) }, nil
	case MatchHost:
		p := host + ")/"
		return p, func(k string) bool { return strings.HasPrefix(k, p) }, nil
	case MatchDomain:
		return host, func(k string) bool {
			rest, ok := strings.CutPrefix(k, host)
			return ok && (strings.HasPrefix(rest, ")") || strings.HasPrefix(rest, ","))
		}, nil
	}
	return "", nil, fmt.Errorf("bad matchType %q: want exact, prefix, host or domain", q.Match)
}

// withScheme gives a URL written without a scheme ("example.com/a", as
// CDX clients send them) the scheme http.
func withScheme(u string) string {
	if strings.Contains(u, "://") || strings.HasPrefix(u, "dns:") || strings.HasPrefix(u, "urn:") {
		return u
	}
	return "http://" + u
}

// timeBounds turns From and To into bounds comparable with 14-digit
// timestamps: From padded with zeros, To with nines.
func (q *Query) timeBounds() (from, to string, err error) {
	for _, s := range []string{q.From, q.To} {
		if strings.Trim(s, "0123456789") != "" || len(s) > 14 {
			return "", "", fmt.Errorf("bad timestamp %q: want up to 14 digits", s)
		}
	}
	from = q.From
	if q.To != "" {
		to = q.To + strings.Repeat("9", 14-len(q.To))
	}
	return from, to, nil
}

// Lines returns the CDXJ lines of the captures in the archives that q
// selects, in index order (export.CompareCDXJ): the lines `blockwarc
// index` writes for the original files, filtered. Each line comes from the
// restored record through export.CDXJIndexer, the indexer of `index`.
func Lines(archives []*dedupe.Archive, q *Query) ([][]byte, error) {
	prefix, match, err := q.keyMatcher()
	if err != nil {
		return nil, err
	}
	from, to, err := q.timeBounds()
	if err != nil {
		return nil, err
	}
	var lines [][]byte
	for _, a := range archives {
		add := func(uv dedupe.URLVersions) error {
			ls, err := indexKey(a, uv)
			if err != nil {
				return err
			}
			lines = append(lines, ls...)
			return nil
		}
		if q.Match == "" || q.Match == MatchExact {
			vs, err := a.Versions(prefix)
			if err != nil {
				return nil, err
			}
			if err := add(dedupe.URLVersions{Key: prefix, Versions: vs}); err != nil {
				return nil, err
			}
			continue
		}
		errStop := errors.New("stop")
		err := a.WalkOrdered(func(uv dedupe.URLVersions) error {
			if uv.Key > prefix && !strings.HasPrefix(uv.Key, prefix) {
				return errStop // keys ascend: past the range
			}
			if !match(uv.Key) {
				return nil
			}
			return add(uv)
		})
		if err != nil && err != errStop {
			return nil, err
		}
	}
	slices.SortStableFunc(lines, export.CompareCDXJ)
	out := lines[:0]
	for _, l := range lines {
		k, rest, _ := bytes.Cut(l, []byte{' '})
		ts, _, _ := bytes.Cut(rest, []byte{' '})
		if !match(string(k)) {
			continue // a POST line keyed by its body
		}
		if from != "" && string(ts) < from || to != "" && string(ts) > to {
			continue
		}
		keep := true
		for i := range q.Filters {
			if !q.Filters[i].Keep(l) {
				keep = false
				break
			}
		}
		if !keep {
			continue
		}
		out = append(out, l)
		if q.Limit > 0 && len(out) == q.Limit {
			break
		}
	}
	return out, nil
}

// indexKey returns the CDXJ lines of one key's captures.
func indexKey(a *dedupe.Archive, uv dedupe.URLVersions) ([][]byte, error) {
	var lines [][]byte
	ix := export.NewCDXJIndexer(func(e *export.CDXJEntry) error {
		lines = append(lines, e.AppendTo(nil))
		return nil
	})
	for i := range uv.Versions {
		v := &uv.Versions[i]
		p, err := a.Restore(v)
		if err != nil {
			return nil, err
		}
		rec := p.Record()
		r, err := warcio.NewReader(bytes.NewReader(rec), v.File).Next()
		if err != nil {
			return nil, fmt.Errorf("index %s at %d: %w", v.File, v.Offset, err)
		}
		r.File, r.Offset, r.Length, r.SkipInMember = v.File, v.Offset, v.Length, v.Skip
		r.Trailer = v.Trailer
		if v.Length != int64(len(rec)) {
			// The stored record is longer than the restored one: it was
			// compressed (the indexer counts an uncompressed record
			// without its trailer).
			r.Compression = warcio.CompressionGzip
		}
		if err := ix.Add(&warcio.Capture{Record: *r, Key: uv.Key}); err != nil {
			return nil, err
		}
	}
	if err := ix.Flush(); err != nil {
		return nil, err
	}
	return lines, nil
}

// JSONRows turns CDXJ lines into the CDX Server API's output=json: a
// header row of field names, then one row per line.
func JSONRows(lines [][]byte) ([]byte, error) {
	fields := []string{"urlkey", "timestamp", "url", "mime", "status", "digest", "length", "offset", "filename"}
	rows := [][]string{fields}
	for _, l := range lines {
		row := make([]string, len(fields))
		for i, f := range fields {
			row[i], _ = lineField(l, f)
		}
		rows = append(rows, row)
	}
	b, err := json.Marshal(rows)
	return append(b, '\n'), err
}
