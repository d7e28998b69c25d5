package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/blockwarc/blockwarc/export/report"
	"github.com/blockwarc/blockwarc/export/tables"
)

const reportAbout = `Print the storage report of the archive ARCHIVE: input bytes against
archive bytes and the saving; the archive's bytes by category (WARC and
HTTP headers, layouts, blocks, block deltas, other payloads, index and
metadata); captures, unchanged captures, distinct and shared blocks; how
captures are stored and why; malformed records skipped at ingest; and the
Poisson change-rate model back-tested on the archive's own history
(precision, recall, coverage). -alternatives also measures the collection
kept other ways (every record gzipped alone with repeated payloads as
revisits; all records as one zstd stream) beside the input, the archive
and the tables. docs/REPORT.md defines every figure.
-html also writes the report as one self-contained HTML page with charts
(inline SVG: no scripts, nothing loaded from anywhere). The report is
computed from the archive, never from its tables; when ARCHIVE/tables
describe an earlier commit (an ingest stopped while it rewrote them), it
says so, and with -alternatives (which gives the tables' size) exits 1.`

// reportOptions are the flags of the report command (and of ingest's
// -report, -report-html).
type reportOptions struct {
	json         bool
	alternatives bool
	text         string // where the text (or JSON) report goes: - for stdout, "" nowhere, else a file
	html         string
	workers      int
	tmp          string
}

func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("report", "ARCHIVE", reportAbout, stderr)
	opts := reportOptions{text: "-"}
	fs.BoolVar(&opts.json, "json", false, "print the report as JSON (docs/REPORT.md) instead of text")
	fs.BoolVar(&opts.alternatives, "alternatives", false, "also measure the alternatives: every record gzipped alone with repeated payloads as revisits, and all records as one zstd stream (reads and compresses the whole collection again)")
	fs.StringVar(&opts.html, "html", "", "also write the report as a self-contained HTML page to `FILE`")
	fs.IntVar(&opts.workers, "workers", runtime.NumCPU(), "`N` URLs restored and partitioned in parallel (the report is the same for any N)")
	fs.StringVar(&opts.tmp, "tmp", "", "`DIR` for the temporary file of the block walk")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "blockwarc report: want exactly one ARCHIVE")
		fs.Usage()
		return exitUsage
	}
	if opts.workers < 1 {
		fmt.Fprintln(stderr, "blockwarc report: -workers must be at least 1")
		return exitUsage
	}
	if opts.html != "" {
		if fi, err := os.Stat(opts.html); err == nil && fi.IsDir() {
			fmt.Fprintf(stderr, "blockwarc report: -html %s is a directory; want a file name\n", opts.html)
			return exitUsage
		}
	}
	stale := reportStaleTables(fs.Arg(0))
	if stale != "" {
		fmt.Fprintf(stderr, "blockwarc report: warning: %s\n", stale)
	}
	if err := writeReport(ctx, fs.Arg(0), opts, stdout, stderr); err != nil {
		archiveError(stderr, "report", fs.Arg(0), err)
		return exitFailure
	}
	if stale != "" && opts.alternatives {
		// The tables' bytes among the alternatives are those of stale
		// tables: a wrong figure.
		fmt.Fprintf(stderr, "blockwarc report: the tables' size above is that of stale tables\n")
		return exitFailure
	}
	return exitOK
}

// reportStaleTables is staleTables for the report ("" when the archive
// does not open: the report names that error).
func reportStaleTables(dir string) string {
	a, err := openArchive(dir, io.Discard)
	if err != nil {
		return ""
	}
	defer a.Close()
	msg, _, _ := staleTables(dir, a)
	return msg
}

// writeReport computes the report of dir and writes it to stdout (and to
// opts.html).
func writeReport(ctx context.Context, dir string, opts reportOptions, stdout, stderr io.Writer) error {
	r, err := buildReport(ctx, dir, opts, stderr)
	if err != nil {
		return err
	}
	return emitReport(r, opts, stdout)
}

// buildReport computes the report of dir with a walk of its own.
func buildReport(ctx context.Context, dir string, opts reportOptions, stderr io.Writer) (*report.Report, error) {
	a, err := openArchive(dir, stderr) // its errors name the archive
	if err != nil {
		return nil, err
	}
	defer a.Close()
	to := tables.Options{Workers: opts.workers, TempDir: opts.tmp}
	bar := newSpinner(stderr, "reading the archive")
	if bar != nil {
		to.Progress = func(st tables.Stats) {
			bar.Describe(fmt.Sprintf("reading the archive: %d URLs, %d captures", st.URLs, st.Captures))
			bar.Add(1)
		}
	}
	start := time.Now()
	r, err := report.Build(ctx, dir, a, report.Options{Alternatives: opts.alternatives}, to)
	if bar != nil {
		bar.Finish()
	}
	if err == nil && opts.alternatives {
		// On stderr: the report itself stays the same from run to run.
		fmt.Fprintf(stderr, "report with alternatives measured in %.1f s\n", time.Since(start).Seconds())
	}
	return r, err
}

// emitReport writes r as opts ask: the page to opts.html, the text (or
// JSON) to opts.text.
func emitReport(r *report.Report, opts reportOptions, stdout io.Writer) error {
	if opts.html != "" {
		if err := writeFileAtomic(opts.html, r.WriteHTML); err != nil {
			return err
		}
	}
	write := r.WriteText
	if opts.json {
		write = r.WriteJSON
	}
	switch opts.text {
	case "":
		return nil
	case "-":
		return write(stdout)
	}
	return writeFileAtomic(opts.text, write)
}
