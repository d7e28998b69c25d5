package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"blockwarc/dedupe"
	"blockwarc/export"
)

const catAbout = `Write one capture of URL from ARCHIVE on standard output, byte for byte
as it was stored: the latest capture at or before -at, or with -near the
capture nearest T (the latest inside the period T names, else the
closest before or after it); default: the latest. URL is canonicalised (SURT) as at ingest. -part chooses what to
write: the whole WARC record, the HTTP block (HTTP header and payload) or
the payload as stored.`

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
	// The bytes are right; the disk is not: say so (repair rewrites it).
	for _, c := range a.Corrections() {
		fmt.Fprintf(stderr, "blockwarc cat: warning: %s\n", c)
	}
	return exitOK
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
