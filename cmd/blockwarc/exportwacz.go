package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/blockwarc/blockwarc/dedupe/ingestflags"
	"github.com/blockwarc/blockwarc/export"
)

const exportWACZAbout = `Write the records of ARCHIVE as a WACZ package (Web Archive Collection
Zipped, specification 1.1.1), the file ReplayWeb.page and browsertrix
users open directly: archive/data.warc.gz (the records as export-warc
writes them: one gzip member per record, each byte for byte as ingested,
stored in the ZIP without compressing it again), indexes/index.cdx (its
CDXJ index, as blockwarc index writes it), pages/pages.jsonl (one line
per HTML page capture with a 2xx status), datapackage.json (every file
with its size and SHA-256) and datapackage-digest.json (the SHA-256 of
datapackage.json). -url, -from, -to and -clean select records as for
export-warc. The WARC and its index are built in a temporary directory
(-tmp) and the package is written under a temporary name beside -o, and
renamed only when complete. ARC records have no WARC form: they are left
out and counted (exit status 3).`

func runExportWACZ(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("export-wacz", "-o FILE ARCHIVE", exportWACZAbout, stderr)
	out := fs.String("o", "", "write the WACZ to `FILE` (required)")
	prefix := fs.String("url", "", "keep records whose URL starts with `PREFIX`")
	fromFlag := fs.String("from", "", "keep records dated at or after `T` (YYYYMMDDhhmmss, a prefix such as 2022 or 202203, or RFC 3339)")
	toFlag := fs.String("to", "", "keep records dated up to the end of `T` (same forms as -from)")
	clean := fs.Bool("clean", false, "leave out records that are not well-formed")
	title := fs.String("title", "", "the package's `TITLE` in datapackage.json (default: the archive's name)")
	tmp := fs.String("tmp", "", "`DIR` for the WARC and index while the package is built (default: the system temp dir)")
	memFlag := fs.String("mem", "256MiB", "`SIZE` of memory for sorting the index")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 || *out == "" {
		fmt.Fprintln(stderr, "blockwarc export-wacz: want -o FILE and one ARCHIVE")
		fs.Usage()
		return exitUsage
	}
	mem, err := ingestflags.ParseSize(*memFlag)
	if err != nil || mem <= 0 {
		fmt.Fprintf(stderr, "blockwarc export-wacz: bad -mem %q: want a size such as 512MiB\n", *memFlag)
		return exitUsage
	}
	wopts, code := warcSelection(stderr, "export-wacz", *prefix, *fromFlag, *toFlag)
	if code != exitOK {
		return code
	}
	wopts.Clean = *clean
	dir := fs.Arg(0)
	opts := export.WACZOptions{WARC: wopts, Title: *title, TempDir: *tmp, MemLimit: mem, Software: versionLine()}
	if opts.Title == "" {
		opts.Title = strings.TrimSuffix(filepath.Base(filepath.Clean(dir)), ".bwa")
	}
	a, err := openArchive(dir, stderr)
	if err != nil {
		archiveError(stderr, "export-wacz", dir, err)
		return exitFailure
	}
	defer a.Close()
	f, err := createAtomic(*out)
	if err != nil {
		fmt.Fprintf(stderr, "blockwarc export-wacz: create output: %v\n", err)
		return exitFailure
	}
	defer f.Discard()
	st, err := export.WriteWACZ(ctx, f, a, opts)
	if err == nil {
		err = f.Commit()
	}
	if err != nil {
		archiveError(stderr, "export-wacz", dir, err)
		return exitFailure
	}
	fmt.Fprintf(stderr, "blockwarc export-wacz: wrote %s (%d bytes): %d records, %d index lines, %d pages\n", *out, st.Bytes, st.WARC.Records, st.Indexed, st.Pages)
	if st.WARC.Malformed > 0 {
		fmt.Fprintf(stderr, "blockwarc export-wacz: -clean left out %d malformed record(s)\n", st.WARC.Malformed)
	}
	if st.WARC.NotWARC > 0 {
		fmt.Fprintf(stderr, "blockwarc export-wacz: left out %d ARC record(s): they have no byte-identical WARC form\n", st.WARC.NotWARC)
		return exitSkipped
	}
	return exitOK
}
