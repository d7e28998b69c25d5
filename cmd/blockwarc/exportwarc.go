package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"

	"blockwarc/dedupe"
	"blockwarc/dedupe/pack"
	"blockwarc/export"
)

const exportWARCAbout = `Write the records of ARCHIVE as a WARC file, one gzip member per record,
each record byte for byte as it was ingested, in the archive's order (URL
key, then capture time). -url keeps the records whose URL starts with
PREFIX: compared as SURT keys (so scheme, "www." and case do not matter,
and a bare host selects that host) or as the WARC-Target-URI written.
-from and -to bound WARC-Date; a -to period is included whole (-to 2022
keeps all of 2022). ARC records have no byte-identical WARC form: they are
left out and counted (exit status 3).`

func runExportWARC(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("export-warc", "ARCHIVE", exportWARCAbout, stderr)
	out := fs.String("o", "", "write the WARC to `FILE` (default: standard output); written to a temporary file and renamed on success")
	prefix := fs.String("url", "", "keep records whose URL starts with `PREFIX`")
	fromFlag := fs.String("from", "", "keep records dated at or after `T` (YYYYMMDDhhmmss, a prefix such as 2022 or 202203, or RFC 3339)")
	toFlag := fs.String("to", "", "keep records dated up to the end of `T` (same forms as -from)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "blockwarc export-warc: want one ARCHIVE")
		fs.Usage()
		return exitUsage
	}
	opts := export.WARCOptions{URLPrefix: *prefix}
	if *fromFlag != "" {
		start, _, err := export.ParsePeriod(*fromFlag)
		if err != nil {
			fmt.Fprintf(stderr, "blockwarc export-warc: bad -from: %v\n", err)
			return exitUsage
		}
		opts.From = start
	}
	if *toFlag != "" {
		_, end, err := export.ParsePeriod(*toFlag)
		if err != nil {
			fmt.Fprintf(stderr, "blockwarc export-warc: bad -to: %v\n", err)
			return exitUsage
		}
		opts.To = end
	}
	if !opts.From.IsZero() && !opts.To.IsZero() && !opts.From.Before(opts.To) {
		fmt.Fprintf(stderr, "blockwarc export-warc: -from %s is not before the end of -to %s\n", *fromFlag, *toFlag)
		return exitUsage
	}
	st, err := exportWARC(ctx, fs.Arg(0), *out, opts, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "blockwarc export-warc: %v\n", err)
		return exitFailure
	}
	if st.NotWARC > 0 {
		fmt.Fprintf(stderr, "blockwarc export-warc: left out %d ARC record(s): they have no byte-identical WARC form\n", st.NotWARC)
		return exitSkipped
	}
	return exitOK
}

// exportWARC writes the export to out (a file, published by rename only
// when complete) or, when out is "", to stdout.
func exportWARC(ctx context.Context, dir, out string, opts export.WARCOptions, stdout io.Writer) (export.WARCStats, error) {
	a, err := dedupe.Open(dir, pack.Options{})
	if err != nil {
		return export.WARCStats{}, err
	}
	defer a.Close()
	if out == "" {
		bw := bufio.NewWriterSize(stdout, 256<<10)
		st, err := export.WriteWARC(ctx, bw, a, opts)
		if err == nil {
			if err = bw.Flush(); err != nil {
				err = fmt.Errorf("write WARC: %w", err)
			}
		}
		return st, err
	}
	f, err := createTemp(out)
	if err != nil {
		return export.WARCStats{}, fmt.Errorf("create output: %w", err)
	}
	published := false
	defer func() {
		if !published {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 256<<10)
	st, err := export.WriteWARC(ctx, bw, a, opts)
	if err != nil {
		return st, err
	}
	if err := bw.Flush(); err != nil {
		return st, fmt.Errorf("write %s: %w", out, err)
	}
	if err := f.Sync(); err != nil {
		return st, fmt.Errorf("sync %s: %w", out, err)
	}
	if err := f.Close(); err != nil {
		return st, fmt.Errorf("close %s: %w", out, err)
	}
	if err := os.Rename(f.Name(), out); err != nil {
		os.Remove(f.Name())
		published = true // nothing left to clean up
		return st, fmt.Errorf("publish %s: %w", out, err)
	}
	published = true
	return st, nil
}
