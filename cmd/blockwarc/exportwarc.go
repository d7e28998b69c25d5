package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/export"
)

const exportWARCAbout = `Write the records of ARCHIVE as a WARC file, one gzip member per record,
each record byte for byte as it was ingested, in the archive's order (URL
key, then capture time). -url keeps the records whose URL starts with
PREFIX: compared as SURT keys (so scheme, "www." and case do not matter,
and a bare host selects that host) or as the WARC-Target-URI written.
-from and -to bound WARC-Date; a -to period is included whole (-to 2022
keeps all of 2022). ARC records have no byte-identical WARC form: they are
left out and counted (exit status 3). -clean leaves out, and counts, the
records that are not one well-formed record (a truncated block, a wrong
Content-Length): the archive keeps them byte for byte, but most WARC
readers stop at the first one.

-source NAME gives one input file back instead (standard output, or -o),
and -sources DIR every input file, into DIR (created if missing). Each
file is written as it was given, compressed, bit for bit, under its own
name, checked against the SHA-256 of the file recorded at ingest, where
the archive restores it so: a gzip file whose members zlib reproduces,
or an uncompressed file (blockwarc ls -files says which; a build
without cgo has no zlib). Any other file is written as its decompressed
stream: its records and the bytes between them (stray line ends, damage
the reader skipped) in the order they had, byte for byte, checked
against the SHA-256 recorded at ingest, under its name without the
compression suffix (two that would share a name, a.warc and a.warc.lz4,
keep their whole name plus .plain). -decompressed writes every file as
its decompressed stream; -gzip as that stream with one gzip member per
record (names plus .gz); -original only as given: a file that cannot be
so restored is not written, and says why. -sources resumes: a file
already in DIR whose size and SHA-256 are those it would be written with
is kept and said so (an interrupted export run again completes), one that
differs is not overwritten (exit 1), and the others are written. A line
per file on stderr says how it was written and whether it restored
exactly; exit status 1 when one did not. NAME is the name ingest recorded (blockwarc ls -files: the
path below the directory given, 2024-01/crawl.warc.gz, or a base name),
or its end after a "/" when no other name ends so; -sources writes
2024-01/crawl.warc.gz as DIR/2024-01/crawl.warc.`

func runExportWARC(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("export-warc", "ARCHIVE", exportWARCAbout, stderr)
	out := fs.String("o", "", "write the WARC to `FILE` (default: standard output); written to a temporary file and renamed on success, then summed up in a line on stderr")
	prefix := fs.String("url", "", "keep records whose URL starts with `PREFIX`")
	fromFlag := fs.String("from", "", "keep records dated at or after `T` (YYYYMMDDhhmmss, a prefix such as 2022 or 202203, or RFC 3339)")
	toFlag := fs.String("to", "", "keep records dated up to the end of `T` (same forms as -from)")
	clean := fs.Bool("clean", false, "leave out records that are not well-formed (and, with -source, the bytes between records)")
	showProgress := fs.Bool("progress", false, "draw a progress bar on standard error even when it is not a terminal (it is drawn on a terminal anyway)")
	source := fs.String("source", "", "write input file `NAME` back, in its original order")
	sources := fs.String("sources", "", "write every input file back into directory `DIR`")
	gz := fs.Bool("gzip", false, "with -source/-sources: one gzip member per record instead of the plain stream")
	original := fs.Bool("original", false, "with -source/-sources: only as given, compressed, bit for bit; a file that cannot be so restored is not written")
	decompressed := fs.Bool("decompressed", false, "with -source/-sources: the decompressed stream of every file, even one that restores as given")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "blockwarc export-warc: want one ARCHIVE")
		fs.Usage()
		return exitUsage
	}
	if *source != "" || *sources != "" {
		if *source != "" && *sources != "" || *prefix != "" || *fromFlag != "" || *toFlag != "" || *sources != "" && *out != "" {
			fmt.Fprintln(stderr, "blockwarc export-warc: -source and -sources select whole files: not with each other, -url, -from, -to; -sources not with -o")
			return exitUsage
		}
		if *original && (*gz || *clean || *decompressed) {
			fmt.Fprintln(stderr, "blockwarc export-warc: -original writes the file as given: not with -gzip, -clean or -decompressed")
			return exitUsage
		}
		return runExportSources(ctx, fs.Arg(0), *source, *sources, *out,
			export.SourceOptions{Gzip: *gz, Clean: *clean, Original: *original, Decompressed: *decompressed}, stdout, stderr)
	}
	if *original || *decompressed {
		fmt.Fprintln(stderr, "blockwarc export-warc: -original and -decompressed go with -source or -sources")
		return exitUsage
	}
	if *gz {
		fmt.Fprintln(stderr, "blockwarc export-warc: -gzip goes with -source or -sources (the WARC export is always gzip)")
		return exitUsage
	}
	opts, code := warcSelection(stderr, "export-warc", *prefix, *fromFlag, *toFlag)
	if code != exitOK {
		return code
	}
	opts.Clean = *clean
	began := time.Now()
	st, err := exportWARC(ctx, fs.Arg(0), *out, opts, stdout, progressTo(stderr, *showProgress))
	if err != nil {
		archiveError(stderr, "export-warc", fs.Arg(0), err)
		return exitFailure
	}
	if *out != "" {
		// Written to a file, the export has a word to end on; on stdout
		// the WARC is the output, and stderr stays quiet.
		fmt.Fprintf(stderr, "blockwarc export-warc: %s: %d record(s), %s of records, %s gzip, in %s\n",
			*out, st.Records, humanBytes(st.Bytes), humanBytes(st.Written), time.Since(began).Round(100*time.Millisecond))
	}
	if st.Malformed > 0 {
		fmt.Fprintf(stderr, "blockwarc export-warc: -clean left out %d malformed record(s)\n", st.Malformed)
	}
	if st.NotWARC > 0 {
		fmt.Fprintf(stderr, "blockwarc export-warc: left out %d ARC record(s): they have no byte-identical WARC form\n", st.NotWARC)
		return exitSkipped
	}
	return exitOK
}

// warcSelection turns -url, -from and -to into export.WARCOptions; a bad
// value is a usage error, said on stderr.
func warcSelection(stderr io.Writer, cmd, prefix, from, to string) (export.WARCOptions, int) {
	opts := export.WARCOptions{URLPrefix: prefix}
	if from != "" {
		start, _, err := export.ParsePeriod(from)
		if err != nil {
			fmt.Fprintf(stderr, "blockwarc %s: bad -from: %v\n", cmd, err)
			return opts, exitUsage
		}
		opts.From = start
	}
	if to != "" {
		_, end, err := export.ParsePeriod(to)
		if err != nil {
			fmt.Fprintf(stderr, "blockwarc %s: bad -to: %v\n", cmd, err)
			return opts, exitUsage
		}
		opts.To = end
	}
	if !opts.From.IsZero() && !opts.To.IsZero() && !opts.From.Before(opts.To) {
		fmt.Fprintf(stderr, "blockwarc %s: -from %s is not before the end of -to %s\n", cmd, from, to)
		return opts, exitUsage
	}
	return opts, exitOK
}

// exportWARC writes the export to out (a file, published by rename only
// when complete) or, when out is "", to stdout.
// A bar is drawn on progress when it is not nil.
func exportWARC(ctx context.Context, dir, out string, opts export.WARCOptions, stdout, progress io.Writer) (export.WARCStats, error) {
	a, err := openArchive(dir, os.Stderr)
	if err != nil {
		return export.WARCStats{}, err
	}
	defer a.Close()
	if progress != nil {
		var total int64
		for _, f := range a.Files() {
			total += max(f.Records, 0)
		}
		bar := newStepBar(progress, 1, "exporting")
		defer bar.Finish()
		opts.Progress = func(n int64) { bar.Set(0, n, total) }
	}
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
	f, err := createAtomic(out)
	if err != nil {
		return export.WARCStats{}, fmt.Errorf("create output: %w", err)
	}
	defer f.Discard()
	bw := bufio.NewWriterSize(f, 256<<10)
	st, err := export.WriteWARC(ctx, bw, a, opts)
	if err != nil {
		return st, err
	}
	if err := bw.Flush(); err != nil {
		return st, fmt.Errorf("write %s: %w", out, err)
	}
	return st, f.Commit()
}

// runExportSources writes input files back: one (-source) to out or
// stdout, or all of them into dir (-sources).
func runExportSources(ctx context.Context, archive, name, dir, out string, opts export.SourceOptions, stdout, stderr io.Writer) int {
	a, err := openArchive(archive, stderr)
	if err != nil {
		archiveError(stderr, "export-warc", archive, err)
		return exitFailure
	}
	defer a.Close()
	var names []string
	if name != "" {
		if names, err = export.ResolveNames(a.Files(), []string{name}); err != nil {
			fmt.Fprintf(stderr, "blockwarc export-warc: -source: %v (blockwarc ls -files lists them)\n", err)
			return exitUsage
		}
	}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o777); err != nil {
			fmt.Fprintf(stderr, "blockwarc export-warc: %v\n", err)
			return exitFailure
		}
	}
	// Names by row: rows of one name (older archives) get numbered ones.
	type rowKey struct {
		name string
		sum  [32]byte
	}
	outNames := map[rowKey]string{}
	files := a.Files()
	for i, n := range export.SourceNamesOf(files, opts) {
		outNames[rowKey{files[i].Name, files[i].SHA256}] = n
	}
	var (
		cur       *atomicFile // the file being written (dir or out), under a temporary name
		bw        *bufio.Writer
		final     string
		notExact  int
		kept      int
		clash     int
		published []string
	)
	defer func() {
		if cur != nil {
			cur.Discard()
		}
	}()
	open := func(f dedupe.InputFile) (io.Writer, error) {
		final = out
		if dir != "" {
			n := outNames[rowKey{f.Name, f.SHA256}]
			if n == "" {
				return nil, fmt.Errorf("input file name %q cannot name a file in %s", f.Name, dir)
			}
			final = filepath.Join(dir, filepath.FromSlash(n))
			if _, err := os.Lstat(final); err == nil {
				same, why, err := sameOutput(final, f, opts)
				if err != nil {
					return nil, err
				}
				if same {
					kept++
					fmt.Fprintf(stderr, "%s: %s is there already (%s): kept\n", f.Name, final, why)
				} else {
					clash++
					fmt.Fprintf(stderr, "%s: %s exists and %s: not overwritten\n", f.Name, final, why)
				}
				return nil, export.ErrSkip
			}
			if err := os.MkdirAll(filepath.Dir(final), 0o777); err != nil {
				return nil, fmt.Errorf("create output: %w", err)
			}
		}
		if final == "" {
			bw = bufio.NewWriterSize(stdout, 256<<10)
			return bw, nil
		}
		var err error
		if cur, err = createAtomic(final); err != nil {
			return nil, fmt.Errorf("create output: %w", err)
		}
		bw = bufio.NewWriterSize(cur, 256<<10)
		return bw, nil
	}
	done := func(st export.SourceStats) error {
		if st.NotWritten != "" {
			fmt.Fprintf(stderr, "%s: NOT WRITTEN: does not restore as given (compressed): %s\n", st.File.Name, st.NotWritten)
			notExact++
			return nil
		}
		if st.AsGiven && !st.Exact {
			// Never publish a file that differs from the one given (on standard
			// output the bytes are out already: the exit status says it).
			if cur != nil {
				cur.Discard()
				cur = nil
			}
			fmt.Fprintf(stderr, "%s: NOT WRITTEN: the rebuilt file (%d bytes) differs from the one ingested (%d bytes, SHA-256 as at ingest)\n", st.File.Name, st.Bytes, st.File.Size)
			notExact++
			return nil
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("write %s: %w", st.File.Name, err)
		}
		if cur != nil {
			f := cur
			cur = nil
			if err := f.Commit(); err != nil {
				return err
			}
			published = append(published, final)
		}
		what := "restores exactly (decompressed stream, SHA-256 as at ingest)"
		switch {
		case st.AsGiven:
			what = "restores exactly, as given (SHA-256 of the file as at ingest)"
		case opts.Clean:
			what = fmt.Sprintf("clean: %d record(s) and gap(s) left out", st.Left)
		case st.Exact:
		case !st.File.Rebuildable:
			what = "NOT CHECKED: the archive has no record of this file's stream (ingested before blockwarc recorded it)"
			notExact++
		default:
			what = "DOES NOT RESTORE EXACTLY: the bytes differ from the stream recorded at ingest"
			notExact++
		}
		fmt.Fprintf(stderr, "%s: %d records, %d gaps, %d bytes: %s\n", st.File.Name, st.Records, st.Gaps, st.Bytes, what)
		return nil
	}
	if err := export.WriteSources(ctx, a, names, opts, open, done); err != nil {
		archiveError(stderr, "export-warc", archive, err)
		return exitFailure
	}
	if dir != "" {
		fmt.Fprintf(stderr, "blockwarc export-warc: %d file(s) written to %s, %d there already\n", len(published), dir, kept)
	}
	if clash > 0 {
		fmt.Fprintf(stderr, "blockwarc export-warc: %d file(s) in %s are not the files to write: not overwritten (move them away and run again)\n", clash, dir)
	}
	if notExact > 0 {
		fmt.Fprintf(stderr, "blockwarc export-warc: %d file(s) not restored exactly\n", notExact)
	}
	if clash > 0 || notExact > 0 {
		return exitFailure
	}
	return exitOK
}

// sameOutput says whether the file at path is the one -sources would
// write for f: its size and SHA-256 those of the file as given, or of
// its decompressed stream; -gzip and -clean output has no recorded
// SHA-256, so such a file is taken as written by the earlier run (the
// output is published by rename only when complete). why says which.
func sameOutput(path string, f dedupe.InputFile, opts export.SourceOptions) (same bool, why string, err error) {
	size, sum := f.Size, f.SHA256
	switch {
	case opts.Gzip || opts.Clean:
		return true, "not checked: -gzip and -clean output has no recorded SHA-256", nil
	case !opts.AsGiven(&f):
		if !f.Rebuildable {
			return true, "not checked: the archive has no SHA-256 of its stream", nil
		}
		size, sum = f.StreamLen, f.StreamSHA256
	}
	h, n, err := hashPath(path)
	if err != nil {
		return false, "", err
	}
	if n != size || h != sum {
		return false, fmt.Sprintf("is not the file to write (%d bytes, SHA-256 %x; want %d bytes, %x)", n, h, size, sum), nil
	}
	return true, "size and SHA-256 checked", nil
}

// hashPath returns the SHA-256 and size of the file at path.
func hashPath(path string) (sum [32]byte, n int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return sum, 0, err
	}
	defer f.Close()
	h := sha256.New()
	if n, err = io.Copy(h, f); err != nil {
		return sum, n, fmt.Errorf("read %s: %w", path, err)
	}
	h.Sum(sum[:0])
	return sum, n, nil
}
