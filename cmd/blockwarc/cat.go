package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/export"
	"github.com/blockwarc/blockwarc/warcio"
)

const catAbout = `Write one capture of URL from ARCHIVE on standard output, byte for byte
as it was stored: the latest capture at or before -at, or with -near the
capture nearest T (the latest inside the period T names, else the
closest before or after it); default: the latest. URL is canonicalised (SURT) as at ingest. -part chooses what to
write: the whole WARC record, the HTTP block (HTTP header and payload) or
the payload as stored.

A revisit record holds no payload of its own (the capture it repeats
does): asked for the payload of one (the default -part), cat writes
nothing, says on standard error which capture it repeats when the record
names it (WARC-Refers-To-Target-URI and WARC-Refers-To-Date, with the
'blockwarc cat' that writes it), and exits with status 1. -part http and
-part record write the revisit record itself.

A record that its input file cut short (the file ends inside its block)
is stored as it was, but is not the whole capture: when the same capture
(URL, type and second) is stored intact from another file, cat writes
that one and says so; else it writes the truncated bytes, warns on
standard error and exits with status 3.`

func runCat(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("cat", "ARCHIVE URL", catAbout, stderr)
	atFlag := fs.String("at", "", "`TIMESTAMP` (14 digits YYYYMMDDhhmmss, a prefix of them, a date as 2022-01-25, or RFC 3339): the latest capture at or before it")
	nearFlag := fs.String("near", "", "`T` as -at takes it: the capture nearest it, before or after")
	part := fs.String("part", "payload", "`PART` to write: payload, http or record")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 2 {
		fmt.Fprintln(stderr, "blockwarc cat: want ARCHIVE and URL")
		fs.Usage()
		return exitUsage
	}
	var at time.Time
	if *atFlag != "" {
		t, err := parseTimestamp(*atFlag)
		if err != nil {
			fmt.Fprintf(stderr, "blockwarc cat: bad -at %q: %v\n", *atFlag, err)
			return exitUsage
		}
		at = t
	}
	var nearStart, nearEnd time.Time
	if *nearFlag != "" {
		if *atFlag != "" {
			fmt.Fprintln(stderr, "blockwarc cat: -at and -near exclude each other")
			return exitUsage
		}
		s, e, err := export.ParsePeriod(*nearFlag)
		if err != nil {
			fmt.Fprintf(stderr, "blockwarc cat: bad -near %q: %v\n", *nearFlag, err)
			return exitUsage
		}
		nearStart, nearEnd = s, e
	}
	if *part != "payload" && *part != "http" && *part != "record" {
		fmt.Fprintf(stderr, "blockwarc cat: bad -part %q: want payload, http or record\n", *part)
		return exitUsage
	}
	a, err := openArchive(fs.Arg(0), stderr)
	if err != nil {
		archiveError(stderr, "cat", fs.Arg(0), err)
		return exitFailure
	}
	defer a.Close()
	var v dedupe.Version
	if *nearFlag != "" {
		v, err = a.FindNear(fs.Arg(1), nearStart, nearEnd)
	} else {
		v, err = a.Find(fs.Arg(1), at)
	}
	if err != nil {
		if errors.Is(err, dedupe.ErrNoCapture) && !at.IsZero() {
			fmt.Fprintf(stderr, "blockwarc cat: %v at or before %s\n", err, at.Format(time.RFC3339))
		} else {
			archiveError(stderr, "cat", fs.Arg(0), err)
		}
		return exitFailure
	}
	p, err := a.Restore(&v)
	if err != nil {
		archiveError(stderr, "cat", fs.Arg(0), err)
		return exitFailure
	}
	// A record the input cut short is stored as it was (lossless), but
	// it is not the capture: an intact copy of the same URL and second
	// (the same capture in another dump) is written instead, else the
	// truncated one with a warning and exit status 3.
	truncated := truncatedRecord(p.Record())
	if truncated {
		if w, wp := intactCopy(a, &v); wp != nil {
			fmt.Fprintf(stderr, "blockwarc cat: note: the record of %s in %s at offset %d is truncated; writing the intact copy of the same capture in %s at offset %d\n",
				v.TargetURI, v.File, v.Offset, w.File, w.Offset)
			v, p, truncated = *w, wp, false
		}
	}
	var out []byte
	switch *part {
	case "record":
		out = p.Record()
	case "http":
		out = p.Block
	case "payload":
		if p.HTTPHeader == nil {
			out = p.Block // not HTTP: the block is the payload
		} else {
			out = p.Payload
		}
	}
	if *part == "payload" && v.Type == "revisit" && len(out) == 0 {
		// Not an empty page: the payload is elsewhere.
		fmt.Fprintf(stderr, "blockwarc cat: %s\n", revisitNote(fs.Arg(0), &v, p))
		return exitFailure
	}
	if _, err := stdout.Write(out); err != nil {
		fmt.Fprintf(stderr, "blockwarc cat: write: %v\n", err)
		return exitFailure
	}
	// The bytes are right; the disk is not: say so (repair rewrites it).
	for _, c := range a.Corrections() {
		fmt.Fprintf(stderr, "blockwarc cat: warning: %s\n", c)
	}
	if truncated {
		fmt.Fprintf(stderr, "blockwarc cat: warning: the record of %s captured %s (%s at offset %d) is truncated: its input file ends before the block's Content-Length; these are the bytes the input held, not the whole capture\n",
			v.TargetURI, v.Date.UTC().Format(time.RFC3339), v.File, v.Offset)
		return exitSkipped
	}
	return exitOK
}

// truncatedRecord reports whether rec, a record as stored, ends before
// its block does (an input file cut short inside it).
func truncatedRecord(rec []byte) bool {
	r := warcio.NewReaderOptions(bytes.NewReader(rec), "", warcio.Options{Policy: warcio.PolicyFail})
	h, err := r.Next()
	if err == nil {
		_, err = io.Copy(io.Discard, h.Body)
	}
	if err == nil {
		_, err = r.Next()
	}
	return errors.Is(err, warcio.ErrTruncated)
}

// intactCopy returns another capture of v's URL of the same type and
// second (the same capture, stored from another dump) whose record is not
// truncated, restored; nil when there is none.
func intactCopy(a *dedupe.Archive, v *dedupe.Version) (*dedupe.Version, *dedupe.Parts) {
	vs, err := a.Versions(warcio.SURT(v.TargetURI))
	if err != nil {
		return nil, nil
	}
	for i := range vs {
		w := &vs[i]
		if w.File == v.File && w.Offset == v.Offset && w.Skip == v.Skip ||
			w.Type != v.Type || w.TargetURI != v.TargetURI || w.Date.Unix() != v.Date.Unix() {
			continue
		}
		if p, err := a.Restore(w); err == nil && !truncatedRecord(p.Record()) {
			return w, p
		}
	}
	return nil, nil
}

// parseTimestamp returns the last instant of the period s names (see
// export.ParsePeriod): "-at 2020" is the latest capture of 2020 or before.
func parseTimestamp(s string) (time.Time, error) {
	_, end, err := export.ParsePeriod(s)
	if err != nil {
		return time.Time{}, err
	}
	return end.Add(-time.Nanosecond), nil
}

// revisitNote says why cat writes no payload for the revisit v: what it
// repeats, when its record names it, and how to write that capture.
func revisitNote(archive string, v *dedupe.Version, p *dedupe.Parts) string {
	when := "undated"
	if !v.Date.IsZero() {
		when = "captured " + v.Date.UTC().Format(time.RFC3339)
	}
	s := fmt.Sprintf("%s %s is a revisit: its record holds no payload, the capture it repeats does", v.TargetURI, when)
	var h warcio.Header
	if rec, err := warcio.NewReader(bytes.NewReader(p.Record()), "").Next(); err == nil {
		h = rec.Header
	}
	target := strings.Trim(h.Get("WARC-Refers-To-Target-URI"), "<>")
	date := h.Get("WARC-Refers-To-Date")
	switch {
	case target != "" && date != "":
		s += fmt.Sprintf(", %s captured %s ('blockwarc cat -at %s %s %s' writes it)", target, date, date, archive, target)
	case target != "":
		s += fmt.Sprintf(", a capture of %s (the record gives no date)", target)
	case date != "":
		s += fmt.Sprintf(", captured %s ('blockwarc cat -at %s %s %s' writes it)", date, date, archive, v.TargetURI)
	default:
		s += fmt.Sprintf(" (the record names none: 'blockwarc ls -captures %s %s' lists the URL's captures)", archive, v.TargetURI)
	}
	return s + "; -part http or -part record writes the revisit itself"
}
