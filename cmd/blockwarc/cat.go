package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"blockwarc/dedupe"
	"blockwarc/dedupe/pack"
)

const catAbout = `Write one capture of URL from ARCHIVE on standard output, byte for byte
as it was stored: the latest capture at or before -at (default: the
latest). URL is canonicalised (SURT) as at ingest. -part chooses what to
write: the whole WARC record, the HTTP block (HTTP header and payload) or
the payload as stored.`

func runCat(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("cat", "ARCHIVE URL", catAbout, stderr)
	atFlag := fs.String("at", "", "`TIMESTAMP` (14 digits YYYYMMDDhhmmss, a prefix of them, or RFC 3339): the latest capture at or before it")
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
	if *part != "payload" && *part != "http" && *part != "record" {
		fmt.Fprintf(stderr, "blockwarc cat: bad -part %q: want payload, http or record\n", *part)
		return exitUsage
	}
	a, err := dedupe.Open(fs.Arg(0), pack.Options{})
	if err != nil {
		fmt.Fprintf(stderr, "blockwarc cat: %v\n", err)
		return exitFailure
	}
	defer a.Close()
	v, err := a.Find(fs.Arg(1), at)
	if err != nil {
		if errors.Is(err, dedupe.ErrNoCapture) && !at.IsZero() {
			fmt.Fprintf(stderr, "blockwarc cat: %v at or before %s\n", err, at.Format(time.RFC3339))
		} else {
			fmt.Fprintf(stderr, "blockwarc cat: %v\n", err)
		}
		return exitFailure
	}
	p, err := a.Restore(&v)
	if err != nil {
		fmt.Fprintf(stderr, "blockwarc cat: %v\n", err)
		return exitFailure
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
	if _, err := stdout.Write(out); err != nil {
		fmt.Fprintf(stderr, "blockwarc cat: write: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// parseTimestamp reads a 14-digit WARC/CDX timestamp (or a prefix of it,
// the rest taken as the end of the period it names) or RFC 3339.
func parseTimestamp(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if len(s) < 4 || len(s) > 14 || strings.Trim(s, "0123456789") != "" {
		return time.Time{}, errors.New("want YYYYMMDDhhmmss (or a prefix) or RFC 3339")
	}
	layout := "20060102150405"[:len(s)]
	t, err := time.Parse(layout, s)
	if err != nil {
		return time.Time{}, err
	}
	// A prefix names a period: "2020" is up to the end of 2020.
	switch len(s) {
	case 4:
		t = t.AddDate(1, 0, 0)
	case 6:
		t = t.AddDate(0, 1, 0)
	case 8:
		t = t.AddDate(0, 0, 1)
	case 10:
		t = t.Add(time.Hour)
	case 12:
		t = t.Add(time.Minute)
	case 14:
		t = t.Add(time.Second)
	default:
		return time.Time{}, errors.New("want an even number of digits")
	}
	return t.Add(-time.Nanosecond).UTC(), nil
}
