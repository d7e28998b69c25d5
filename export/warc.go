package export

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/internal/countio"
	"github.com/blockwarc/blockwarc/warcio"
)

// WARCOptions select and shape the records WriteWARC writes. The zero
// value writes every WARC record of the archive.
type WARCOptions struct {
	// URLPrefix keeps the records whose URL starts with it; "" keeps all,
	// records without a target URI included. A record matches when its
	// SURT key starts with warcio.SURT(URLPrefix) — the canonical form, so
	// "http://Example.com/a" also selects https://www.example.com/a… —
	// or when its WARC-Target-URI starts with URLPrefix as written (which
	// catches prefixes SURT cannot express, such as a partial host name
	// "http://exam"). A prefix without a scheme is read as http://PREFIX
	// for the SURT match. A host without a path selects that host (and
	// port) only: "http://example.com" is the key prefix "com,example)/". SURT also lowercases the prefix and sorts its
	// query arguments, so a prefix ending inside a query string selects
	// by its plain form only in practice.
	URLPrefix string
	// From (inclusive) and To (exclusive) bound WARC-Date; a zero time
	// leaves that side open. With either set, records whose WARC-Date was
	// unparseable are left out. ParsePeriod turns user input into bounds.
	From, To time.Time
	// Level is the gzip level (gzip.DefaultCompression when 0).
	Level int
	// Clean leaves out the records that are not one well-formed record
	// (warcio.WellFormed: a truncated or clipped block, a header without
	// Content-Length…): ingest keeps them byte for byte, but most WARC
	// readers stop at the first one. They are counted in Malformed.
	Clean bool
	// Progress, when set, is called after each record of the archive is
	// looked at, selected or not, with the number looked at so far (the
	// archive's records in all: the sum of its Files' Records).
	Progress func(seen int64)
}

// WARCStats count what WriteWARC did.
type WARCStats struct {
	Records int64 // records written
	Bytes   int64 // uncompressed record bytes written
	Written int64 // compressed bytes written
	// NotWARC counts selected records that are not WARC records (ARC
	// records): no WARC record is byte-identical to them, so they are
	// left out rather than rewritten.
	NotWARC int64
	// Malformed counts records left out by Clean.
	Malformed int64
}

// WriteWARC writes the selected records of a to w as a WARC file with
// one gzip member per record, each member holding exactly the record's
// original bytes (header, block, trailer). Records come in the archive's
// order — URL key, then capture time (dedupe.Archive.WalkOrdered) — and
// are restored one at a time, so memory holds one URL's catalog entries
// and one record, never the archive. A record that fails to restore stops
// the export with an error naming it.
func WriteWARC(ctx context.Context, w io.Writer, a *dedupe.Archive, opts WARCOptions) (WARCStats, error) {
	var st WARCStats
	level := opts.Level
	if level == 0 {
		level = gzip.DefaultCompression
	}
	cw := &countio.Writer{W: w}
	zw, err := gzip.NewWriterLevel(cw, level)
	if err != nil {
		return st, fmt.Errorf("start gzip: %w", err)
	}
	sel := newURLSelector(opts.URLPrefix)
	var seen int64
	err = a.WalkOrdered(func(u dedupe.URLVersions) error {
		for i := range u.Versions {
			v := &u.Versions[i]
			if opts.Progress != nil {
				seen++
				opts.Progress(seen)
			}
			if !sel.match(u.Key, v.TargetURI) || !inRange(v.Date, opts.From, opts.To) {
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			p, err := a.Restore(v)
			if err != nil {
				return err
			}
			// Every record, raw ones included, starts with its header.
			if !bytes.HasPrefix(p.WARCHeader, []byte("WARC/")) {
				st.NotWARC++
				continue
			}
			if opts.Clean && !warcio.WellFormed(p.Record()) {
				st.Malformed++
				continue
			}
			zw.Reset(cw)
			for _, b := range [][]byte{p.WARCHeader, p.Block, p.Trailer} {
				if _, err := zw.Write(b); err != nil {
					return fmt.Errorf("write record %s at %d: %w", v.File, v.Offset, err)
				}
			}
			if err := zw.Close(); err != nil {
				return fmt.Errorf("write record %s at %d: %w", v.File, v.Offset, err)
			}
			st.Records++
			st.Bytes += int64(len(p.WARCHeader) + len(p.Block) + len(p.Trailer))
		}
		return nil
	})
	st.Written = cw.N
	if err != nil {
		return st, fmt.Errorf("export WARC: %w", err)
	}
	return st, nil
}

// urlSelector is the URLPrefix test.
type urlSelector struct {
	all   bool
	surt  string
	plain string
}

func newURLSelector(prefix string) urlSelector {
	if prefix == "" {
		return urlSelector{all: true}
	}
	canon := prefix
	if !hasScheme(canon) {
		canon = "http://" + canon
	} else if i := strings.IndexByte(canon, ':'); i > 0 {
		canon = strings.ToLower(canon[:i]) + canon[i:] // SURT wants "http:", not "HTTP:"
	}
	return urlSelector{surt: warcio.SURT(canon), plain: prefix}
}

// hasScheme tells "dns:host" and "http://host" from "host:8080/path".
func hasScheme(s string) bool {
	if strings.Contains(s, "://") {
		return true
	}
	i := strings.IndexByte(s, ':')
	return i > 0 && i+1 < len(s) && (s[i+1] < '0' || s[i+1] > '9')
}

func (s urlSelector) match(key, target string) bool {
	if s.all {
		return true
	}
	if key == "" && target == "" {
		return false
	}
	return strings.HasPrefix(key, s.surt) || strings.HasPrefix(target, s.plain)
}

func inRange(d, from, to time.Time) bool {
	if from.IsZero() && to.IsZero() {
		return true
	}
	if d.IsZero() {
		return false
	}
	return !d.Before(from) && (to.IsZero() || d.Before(to))
}

// ErrPeriod is returned by ParsePeriod for text that names no period.
var ErrPeriod = errors.New("want YYYYMMDDhhmmss, a prefix of it (2022, 202203…), a date as 2022-03-25 (2022-03, 2022-03-25T10:30) or RFC 3339")

// dashedPeriod matches the ISO 8601 dates and times people write for a
// period (a year, month, day, hour, minute or second, UTC): "2022-01-25",
// "2022-01", "2022-01-25T10:30", "2022-01-25 10:30:00", with an optional Z.
var dashedPeriod = regexp.MustCompile(`^\d{4}(-\d{2}(-\d{2}([T ]\d{2}(:\d{2}(:\d{2})?)?)?)?)?Z?$`)

// ParsePeriod reads the period a time filter names and returns its
// bounds [start, end). A 14-digit WARC/CDX timestamp names one second; a
// prefix of one (4 to 12 digits, an even number past the year) names the
// year, month, day, hour or minute; an RFC 3339 time names an instant at
// the precision written (one second, or its last fractional digit); an
// ISO date without zone ("2022-01-25", "2022-01-25T10:30") names the
// period its digits name, in UTC. So
// "-from 2022 -to 202203" is start(2022) ≤ date < end(2022-03): the -to
// period is included whole, as wayback date ranges read. Digits are UTC.
func ParsePeriod(s string) (start, end time.Time, err error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		unit := time.Second
		if i := strings.IndexByte(s, '.'); i >= 0 {
			digits := 0
			for _, c := range s[i+1:] {
				if c < '0' || c > '9' {
					break
				}
				digits++
			}
			for range digits {
				unit /= 10
			}
			unit = max(unit, time.Nanosecond)
		}
		return t.UTC(), t.UTC().Add(unit), nil
	}
	digits := s
	if dashedPeriod.MatchString(s) {
		digits = strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, s)
	}
	if len(digits) < 4 || len(digits) > 14 || len(digits)%2 != 0 || strings.Trim(digits, "0123456789") != "" {
		return time.Time{}, time.Time{}, fmt.Errorf("parse time %q: %w", s, ErrPeriod)
	}
	t, err := time.Parse("20060102150405"[:len(digits)], digits)
	if err != nil {
		return time.Time{}, time.Time{}, fmt.Errorf("parse time %q: %w", s, ErrPeriod)
	}
	switch len(digits) {
	case 4:
		end = t.AddDate(1, 0, 0)
	case 6:
		end = t.AddDate(0, 1, 0)
	case 8:
		end = t.AddDate(0, 0, 1)
	case 10:
		end = t.Add(time.Hour)
	case 12:
		end = t.Add(time.Minute)
	default:
		end = t.Add(time.Second)
	}
	return t, end, nil
}
