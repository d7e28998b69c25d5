package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
)

const lsAbout = `List the URLs an archive holds, in SURT order, one line each:
  URL  CAPTURES  FIRST  LAST
(captures: the response, revisit and resource records of the URL)
(capture times in UTC), only those whose URL starts with URL-PREFIX when
it is given. Records without a target URI (warcinfo) are left out.

-captures lists every capture instead, one line each:
  URL  TIME  TYPE  HOW-STORED  FILE@OFFSET
-files lists the input files ingested instead, in ingest order:
  NAME  SIZE  RECORDS  MALFORMED  GAPS  RESTORES  COMPRESSED
(NAME: the name export-warc -source takes, the file's path below the
directory given to ingest, 2024-01/crawl.warc.gz, or its base name.
RESTORES: "exact" when export-warc -source rebuilds the file's
decompressed stream byte for byte and verify checks it against the SHA-256
recorded at ingest; "unknown" for files ingested before that was recorded.
COMPRESSED: "exact" when export-warc -source rebuilds the file
as given, compressed, bit for bit (verify checks it against the file's
SHA-256), else "no: " and why (not gzip, a member zlib does not
reproduce...), "unknown" for files ingested before that was recorded.)
-json prints one JSON object per line with the same fields
(url, captures, first, last; or url, time, type, stored_as, stored_why,
file, offset; or name, size, sha256, records, malformed, gaps,
stream_bytes, stream_sha256, restores, restores_compressed,
compressed_why). ls reads only the catalog, never
a payload.`

func runLs(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("ls", "ARCHIVE [URL-PREFIX]", lsAbout, stderr)
	captures := fs.Bool("captures", false, "list every capture, not one line per URL")
	asJSON := fs.Bool("json", false, "print JSON lines")
	files := fs.Bool("files", false, "list the input files, not the URLs")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		fmt.Fprintln(stderr, "blockwarc ls: want ARCHIVE and at most one URL-PREFIX")
		fs.Usage()
		return exitUsage
	}
	prefix := fs.Arg(1)
	a, err := openArchive(fs.Arg(0), stderr)
	if err != nil {
		archiveError(stderr, "ls", fs.Arg(0), err)
		return exitFailure
	}
	defer a.Close()
	if *files {
		if fs.NArg() > 1 {
			fmt.Fprintln(stderr, "blockwarc ls: -files takes no URL-PREFIX")
			return exitUsage
		}
		if err := listFiles(a, *asJSON, stdout); err != nil {
			archiveError(stderr, "ls", fs.Arg(0), err)
			return exitFailure
		}
		return exitOK
	}
	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	stamp := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	err = a.WalkOrdered(func(uv dedupe.URLVersions) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if uv.Key == "" || len(uv.Versions) == 0 {
			return nil
		}
		url := uv.Versions[len(uv.Versions)-1].TargetURI
		if !strings.HasPrefix(url, prefix) {
			return nil
		}
		if !*captures {
			// Captures are the records holding the page; requests and
			// metadata about it are not (a URL of requests only counts those).
			var pages []dedupe.Version
			for _, v := range uv.Versions {
				switch v.Type {
				case "response", "revisit", "resource", "":
					pages = append(pages, v)
				}
			}
			if len(pages) == 0 {
				pages = uv.Versions
			}
			first, last := pages[0].Date, pages[len(pages)-1].Date
			if *asJSON {
				return enc.Encode(struct {
					URL      string `json:"url"`
					Captures int    `json:"captures"`
					First    string `json:"first"`
					Last     string `json:"last"`
				}{url, len(pages), stamp(first), stamp(last)})
			}
			_, err := fmt.Fprintf(w, "%s\t%d\t%s\t%s\n", url, len(pages), stamp(first), stamp(last))
			return err
		}
		for _, v := range uv.Versions {
			st := v.Storage()
			how, why := st.How.String(), st.Why.String()
			if *asJSON {
				if err := enc.Encode(struct {
					URL       string `json:"url"`
					Time      string `json:"time"`
					Type      string `json:"type"`
					StoredAs  string `json:"stored_as"`
					StoredWhy string `json:"stored_why"`
					File      string `json:"file"`
					Offset    int64  `json:"offset"`
				}{v.TargetURI, stamp(v.Date), v.Type, how, why, v.File, v.Offset}); err != nil {
					return err
				}
				continue
			}
			stored := how
			if why != "" {
				stored += "(" + why + ")"
			}
			if _, err := fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s@%d\n", v.TargetURI, stamp(v.Date), v.Type, stored, v.File, v.Offset); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		archiveError(stderr, "ls", fs.Arg(0), err)
		return exitFailure
	}
	return exitOK
}

// listFiles prints the archive's input-file table.
func listFiles(a *dedupe.Archive, asJSON bool, stdout io.Writer) error {
	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	for _, f := range a.Files() {
		restores := "unknown"
		if f.Rebuildable {
			restores = "exact"
		}
		compressed, why := "unknown", f.OriginalReason()
		switch {
		case f.OriginalCompressed():
			compressed = "exact"
		case f.OriginalExact():
			compressed = "exact (not compressed)"
		case f.OriginalWhy != 0: // 0: not recorded (before catalog version 6)
			compressed = "no: " + why
		}
		if asJSON {
			row := map[string]any{"name": f.Name, "size": f.Size, "sha256": fmt.Sprintf("%x", f.SHA256),
				"records": nullCount(f.Records), "malformed": nullCount(f.Malformed), "gaps": f.Gaps,
				"stream_bytes": nullCount(f.StreamLen), "stream_sha256": nil, "restores": restores,
				"restores_compressed": strings.SplitN(compressed, ":", 2)[0], "compressed_why": why}
			if f.StreamLen >= 0 {
				row["stream_sha256"] = fmt.Sprintf("%x", f.StreamSHA256)
			}
			if err := enc.Encode(row); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%d\t%s\t%s\n", f.Name, f.Size, countText(f.Records), countText(f.Malformed), f.Gaps, restores, compressed)
	}
	return w.Flush()
}

// nullCount is a count for JSON: null when unknown (negative).
func nullCount(n int64) any {
	if n < 0 {
		return nil
	}
	return n
}

func countText(n int64) string {
	if n < 0 {
		return "-"
	}
	return fmt.Sprint(n)
}
