package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/ingestflags"
	"github.com/blockwarc/blockwarc/dedupe/shard"
	"github.com/blockwarc/blockwarc/export/columnar"
)

const compactAbout = `Write to NEWARCHIVE a dense copy of ARCHIVE: one ingest of every input
file ARCHIVE holds, restored, in ARCHIVE's input-table order,
with ARCHIVE's settings. An archive ingested a crawl at a time pays, per
ingest, a catalog run, small frames compressed on their own, index
entries and a longer COMMIT: on the 351 crawls of the corpus ingested one
at a time, 1.63 times the bytes of one ingest of the same files.
NEWARCHIVE is byte for byte the archive 'blockwarc ingest -prove
NEWARCHIVE' of those files (same flags; without -prove for the files not
proven in ARCHIVE) writes, and its tables are written as ingest
writes them. ARCHIVE is only read; once 'blockwarc verify NEWARCHIVE'
passes, it may replace ARCHIVE (mv), and readers of ARCHIVE are never
disturbed meanwhile.

The input files are restored into -tmp (the system's temporary
directory by default) and removed at the end: about the input files'
size of free space is needed there. A compressed file is restored as its
decompressed stream and keeps its row (a proven one its member table,
not deflated and learnt again); one not proven yet stays so, and
'blockwarc prove' proves the copy from the original later.
After Ctrl-C or a crash, running the same command again completes
NEWARCHIVE into the same bytes (after a compaction that ended, it finds
nothing to do); any other complete archive is never written over.
Sharded archives are not compacted yet.`

func runCompact(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("compact", "ARCHIVE NEWARCHIVE", compactAbout, stderr)
	level := fs.Int("level", 0, "partition `LEVEL` for URLs without history, as for ingest")
	workers := fs.Int("workers", runtime.NumCPU(), "`N` URLs modelled and frames compressed in parallel (the copy is the same for any N)")
	memFlag := fs.String("mem", ingestflags.DefaultMem, "`SIZE` of memory, as for ingest; it changes how fast, never what is stored")
	commitFlag := fs.String("commit", ingestflags.DefaultCommit, "commit after every `SIZE` of input records, as for ingest (the copy equals an ingest with the same -commit)")
	tempDir := fs.String("tmp", "", "`DIR` for the restored originals and temporary sort runs")
	withParity := fs.Bool("parity", true, "write Reed-Solomon parity, as for ingest")
	withTables := fs.Bool("tables", true, "write NEWARCHIVE/tables (Parquet, see 'blockwarc tables')")
	asJSON := fs.Bool("json", false, "print a one-line JSON summary on standard output")
	nice := fs.Int("nice", defaultNice, niceUsage)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 2 {
		fmt.Fprintln(stderr, "blockwarc compact: want ARCHIVE and NEWARCHIVE")
		fs.Usage()
		return exitUsage
	}
	src, dst := fs.Arg(0), fs.Arg(1)
	if _, err := shard.ReadManifest(src); err == nil {
		fmt.Fprintf(stderr, "blockwarc compact: %s is a sharded archive, which compact does not copy yet: re-ingest its originals ('blockwarc export-warc -sources DIR -original') with -shards instead\n", src)
		return exitUsage
	}
	if !setNice("compact", *nice, stderr) {
		return exitUsage
	}
	shared, err := ingestflags.Flags{Level: *level, Commit: *commitFlag, Mem: *memFlag, Policy: ingestflags.DefaultPolicy,
		Parity: *withParity, TempDir: *tempDir, Workers: *workers}.Parse()
	if err != nil {
		fmt.Fprintf(stderr, "blockwarc compact: %v\n", err)
		return exitUsage
	}
	opts := shared.Options()
	_, releaseHeap := ingestflags.HoldHeap(shared.MemLimit, *workers, 1)
	defer releaseHeap()
	_, statErr := os.Stat(dst)
	created := errors.Is(statErr, os.ErrNotExist)
	began := time.Now()
	st, err := dedupe.Compact(ctx, src, dst, opts)
	if err != nil {
		if created && st.Commits == 0 {
			removeCreated(dst, false)
		}
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "blockwarc compact: interrupted; run the same command again to complete %s\n", dst)
			return exitFailure
		}
		archiveError(stderr, "compact", src, err)
		return exitFailure
	}
	if *withTables && !tablesAfterCommit(ctx, "compact", dst, tablesOptions{format: columnar.Parquet, workers: *workers, tempDir: *tempDir}, -1, stderr) {
		return exitFailure
	}
	if *asJSON {
		b, _ := json.Marshal(st)
		fmt.Fprintf(stdout, "%s\n", b)
		return exitOK
	}
	fmt.Fprintln(stdout, ingestSummary(dst, st, time.Since(began)))
	return exitOK
}
