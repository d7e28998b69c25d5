package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/ingestflags"
	"github.com/blockwarc/blockwarc/export"
	"github.com/blockwarc/blockwarc/warcio"
)

const indexAbout = `Write a CDXJ index (pywb / Common Crawl style) of WARC and ARC inputs,
"urlkey timestamp {json}" sorted by urlkey then timestamp: one line per
response, revisit, resource and metadata record (not warcinfo, request or
application/warc-fields records, as with warcio.js and pywb). INPUT is a
file, a directory (searched recursively), a glob pattern or - for standard
input. Records are sorted with bounded memory (-mem); each input is read
once.`

// indexOptions are the flags of the index command.
type indexOptions struct {
	out     string
	mem     int64
	policy  warcio.Policy
	tempDir string
}

func runIndex(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("index", "INPUT...", indexAbout, stderr)
	var opts indexOptions
	fs.StringVar(&opts.out, "o", "", "write the index to `FILE` (default: standard output), then a line on stderr saying what it holds")
	memFlag := fs.String("mem", "1GiB", "`SIZE` of memory for sorting records, e.g. 512MiB or 4GiB")
	policyFlag := fs.String("policy", "warn", "`POLICY` for malformed input: skip (count it), warn (also print each error with file and offset) or fail")
	fs.StringVar(&opts.tempDir, "tmp", "", "`DIR` for temporary sort runs (default: the system temp dir)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "blockwarc index: no INPUT given")
		fs.Usage()
		return exitUsage
	}
	mem, err := ingestflags.ParseSize(*memFlag)
	if err != nil || mem <= 0 {
		fmt.Fprintf(stderr, "blockwarc index: bad -mem %q: want a size such as 512MiB\n", *memFlag)
		return exitUsage
	}
	opts.mem = mem
	var ok bool
	if opts.policy, ok = ingestflags.ParsePolicy(*policyFlag); !ok {
		fmt.Fprintf(stderr, "blockwarc index: bad -policy %q: want skip, warn or fail\n", *policyFlag)
		return exitUsage
	}
	st, err := index(ctx, fs.Args(), opts, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "blockwarc index: %v\n", err)
		return exitFailure
	}
	if st.Skipped > 0 {
		fmt.Fprintf(stderr, "blockwarc index: skipped %d malformed record(s) or region(s)\n", st.Skipped)
		return exitSkipped
	}
	return exitOK
}

// index writes the CDXJ of inputs to opts.out or stdout.
func index(ctx context.Context, inputs []string, opts indexOptions, stdout, stderr io.Writer) (warcio.WalkStats, error) {
	wopts := warcio.WalkOptions{
		MemLimit: opts.mem,
		TempDir:  opts.tempDir,
		Stdin:    os.Stdin,
		Reader:   warcio.Options{Policy: opts.policy},
	}
	if opts.policy == warcio.PolicyWarn {
		wopts.Reader.OnError = func(err error) {
			fmt.Fprintf(stderr, "blockwarc index: warning: %v\n", err)
		}
	}
	if w := progressTo(stderr, false); w != nil {
		bar := newStepBar(w, 1, "indexing")
		defer bar.Finish()
		total := inputSize(inputs)
		wopts.Progress = func(n int64) { bar.Set(0, n, total) }
		if wopts.Reader.OnError != nil {
			warn := wopts.Reader.OnError
			wopts.Reader.OnError = func(err error) { bar.Clear(); warn(err) }
		}
	}

	var w io.Writer = stdout
	var outFile *atomicFile
	if opts.out != "" {
		f, err := createAtomic(opts.out)
		if err != nil {
			return warcio.WalkStats{}, fmt.Errorf("create output: %w", err)
		}
		defer f.Discard()
		outFile, w = f, f
	}

	var lines int64
	began := time.Now()
	st, err := export.IndexCDXJ(ctx, inputs, wopts, w, func(*export.CDXJEntry) error { lines++; return nil })
	if err != nil {
		return st, err
	}
	if outFile != nil {
		if err := outFile.Commit(); err != nil {
			return st, fmt.Errorf("write index: %w", err)
		}
		// Written to a file, the index has a word to end on (on stdout
		// the lines are the output).
		fmt.Fprintf(stderr, "blockwarc index: %s: %d line(s) from %d file(s), %d record(s) read, in %s\n",
			opts.out, lines, st.Files, st.Records, time.Since(began).Round(100*time.Millisecond))
	}
	return st, nil
}
