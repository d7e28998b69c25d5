package dedupe

import (
	"encoding/binary"
	"time"
)

// runDates is the capture-date range of one catalog run (catalog
// version 10): the earliest and latest Version.Date of the run's
// versions, gaps left out (they are bytes of input files, not captures:
// Find never answers one). Find reads the runs that may hold its answer
// and no others (findKey).
//
// The zero value is unknown: a run of a root before version 10, of a
// root rebuilt without reading its segments, or extended by a resumed
// ingest of such a root. A run of unknown dates is always read.
type runDates struct {
	Known bool
	// Any: the run holds a capture (a version not a gap); when Known and
	// not Any, it holds none (a new run, or gaps only) and Min, Max are
	// zero.
	Any      bool
	Min, Max time.Time
}

// add widens d to hold date t. d must be known.
func (d *runDates) add(t time.Time) {
	switch {
	case !d.Any:
		d.Any, d.Min, d.Max = true, t, t
	case t.Before(d.Min):
		d.Min = t
	case t.After(d.Max):
		d.Max = t
	}
}

// addVersions widens d to hold the captures of urls; an unknown d stays
// unknown.
func (d *runDates) addVersions(urls []URLVersions) {
	if !d.Known {
		return
	}
	for _, u := range urls {
		for i := range u.Versions {
			if !u.Versions[i].Gap {
				d.add(u.Versions[i].Date)
			}
		}
	}
}

// dates returns the dates of run i (unknown past r.Dates).
func (r *root) dates(i int) runDates {
	if i < len(r.Dates) {
		return r.Dates[i]
	}
	return runDates{}
}

// setDates sets the dates of run i, the runs before it that have none
// taken as unknown.
func (r *root) setDates(i int, d runDates) {
	for len(r.Dates) <= i {
		r.Dates = append(r.Dates, runDates{})
	}
	r.Dates[i] = d
}

// Tags of a run's dates in a version 10 root.
const (
	datesUnknown = 0
	datesNone    = 1 // known: no capture
	datesRange   = 2 // known: min, max follow
)

// appendDates writes a run's dates: a tag byte, and for a range the
// earliest date as Unix seconds (varint) and nanoseconds (uvarint) as a
// segment keeps a date, then the latest as seconds after the earliest
// (uvarint) and nanoseconds (uvarint). An undated capture (zero Date)
// is the zero time's seconds (year 1).
func appendDates(b []byte, d runDates) []byte {
	switch {
	case !d.Known:
		return append(b, datesUnknown)
	case !d.Any:
		return append(b, datesNone)
	}
	b = append(b, datesRange)
	b = binary.AppendVarint(b, d.Min.Unix())
	b = binary.AppendUvarint(b, uint64(d.Min.Nanosecond()))
	b = binary.AppendUvarint(b, uint64(d.Max.Unix()-d.Min.Unix()))
	return binary.AppendUvarint(b, uint64(d.Max.Nanosecond()))
}

// runDates reads what appendDates writes.
func (d *dec) runDates() runDates {
	tag := d.bytes(1, "run dates")
	if tag == nil {
		return runDates{}
	}
	switch tag[0] {
	case datesUnknown:
		return runDates{}
	case datesNone:
		return runDates{Known: true}
	case datesRange:
	default:
		d.fail("run dates")
		return runDates{}
	}
	sec := d.varint("run first date")
	nsec := d.uvarint("run first date nanoseconds")
	span := d.uvarint("run last date")
	nsec2 := d.uvarint("run last date nanoseconds")
	if d.err != nil {
		return runDates{}
	}
	if nsec >= 1e9 || nsec2 >= 1e9 || span > 1<<62 || sec > 1<<62 || sec < -(1<<62) || sec+int64(span) < sec {
		d.fail("run dates")
		return runDates{}
	}
	r := runDates{Known: true, Any: true,
		Min: time.Unix(sec, int64(nsec)).UTC(), Max: time.Unix(sec+int64(span), int64(nsec2)).UTC()}
	if r.Max.Before(r.Min) {
		d.fail("run dates")
		return runDates{}
	}
	return r
}
