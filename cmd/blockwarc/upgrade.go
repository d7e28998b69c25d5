package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/ingestflags"
	"github.com/blockwarc/blockwarc/dedupe/shard"
	"github.com/blockwarc/blockwarc/export/columnar"
)

const upgradeAbout = `Rewrite ARCHIVE, written by an older development format of blockwarc,
at the current format, in place. An archive at the current format is
left as it is (exit 0, nothing written); the format at tag v0.1.0 is
the first one kept readable by every later release (docs/FORMAT.md
"Stability").

Every input file is restored (as given when it restores bit for bit,
else as its decompressed stream) and ingested again, with ARCHIVE's
settings and its parity choice, into .NAME.upgrade beside ARCHIVE (a
sharded archive: into as many shards, cut at the same keys). The new
archive must pass 'blockwarc verify', restore every record of the old
one with the same SHA-256, and restore bit for bit every input file
that did; then one rename exchanges the two directories, and the old
one is removed. ARCHIVE names the old archive or the new one at every
instant, and the writer lock is held throughout (an ingest meanwhile is
refused). Killed at any moment, ARCHIVE is whole; the next upgrade
removes what the killed one left and starts again. Tables (ARCHIVE/
tables) are written again for the new archive, in their format, and
published with it: they describe the same captures.

A file the old archive could give back only decompressed (ingested
before catalog version 6, or whose gzip members zlib does not
reproduce) is recorded by the new archive as its decompressed stream:
'ls -files' shows its stream's size and SHA-256. An archive whose
ingest was interrupted is refused: run that ingest again first. Free
space needed: the input files' size (in -tmp) and the new archive's,
beside ARCHIVE.`

func runUpgrade(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("upgrade", "ARCHIVE", upgradeAbout, stderr)
	tempDir := fs.String("tmp", "", "`DIR` for the restored input files and temporary sort runs (default: the files beside ARCHIVE, the runs in the system's temporary directory)")
	workers := fs.Int("workers", runtime.NumCPU(), "`N` URLs modelled and frames compressed in parallel (the new archive is the same for any N)")
	memFlag := fs.String("mem", ingestflags.DefaultMem, "`SIZE` of memory, as for ingest; it changes how fast, never what is stored")
	asJSON := fs.Bool("json", false, "print a one-line JSON summary on standard output")
	nice := fs.Int("nice", defaultNice, niceUsage)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "blockwarc upgrade: want ARCHIVE")
		fs.Usage()
		return exitUsage
	}
	// An upgrade is an ingest of every input file again: batch work, as
	// ingest and compact are.
	if !setNice("upgrade", *nice, stderr) {
		return exitUsage
	}
	dir := fs.Arg(0)
	shared, err := ingestflags.Flags{Commit: ingestflags.DefaultCommit, Mem: *memFlag, Policy: ingestflags.DefaultPolicy,
		Parity: true, TempDir: *tempDir, Workers: *workers}.Parse()
	if err != nil {
		fmt.Fprintf(stderr, "blockwarc upgrade: %v\n", err)
		return exitUsage
	}
	_, releaseHeap := ingestflags.HoldHeap(shared.MemLimit, *workers, 1)
	defer releaseHeap()
	opts := dedupe.UpgradeOptions{Options: shared.Options(), Originals: *tempDir}
	format, hadTables := tablesFormat(dir)
	if hadTables {
		opts.BeforeSwap = func(newDir string) error {
			_, err := writeTables(ctx, newDir, tablesOptions{format: format, workers: *workers, tempDir: *tempDir}, io.Discard)
			return err
		}
	}
	st, err := shard.Upgrade(ctx, dir, opts)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "blockwarc upgrade: interrupted; %s is as it was: run the same command again\n", dir)
			return exitFailure
		}
		archiveError(stderr, "upgrade", dir, err)
		return exitFailure
	}
	if *asJSON {
		b, _ := json.Marshal(upgradeJSON{Archive: dir, Current: st.Current, Outdated: st.Outdated, Leftovers: st.Leftovers,
			Records: st.Records, Files: st.Files, Exact: st.Exact, Tables: hadTables && !st.Current})
		fmt.Fprintf(stdout, "%s\n", b)
		return exitOK
	}
	if st.Leftovers {
		fmt.Fprintf(stdout, "%s: removed what a killed upgrade left (%s)\n", dir, dedupe.StagingDir(dir))
	}
	if st.Current {
		fmt.Fprintf(stdout, "%s: already at the current format; nothing written\n", dir)
		return exitOK
	}
	fmt.Fprintf(stdout, "%s: upgraded to the current format (was: %s); %d records and %d input files checked, %d of them bit for bit\n",
		dir, strings.Join(st.Outdated, "; "), st.Records, st.Files, st.Exact)
	return exitOK
}

// upgradeJSON is upgrade -json's line.
type upgradeJSON struct {
	Archive   string   `json:"archive"`
	Current   bool     `json:"current"`
	Outdated  []string `json:"outdated,omitempty"`
	Leftovers bool     `json:"leftovers_removed"`
	Records   int64    `json:"records_checked"`
	Files     int64    `json:"files_checked"`
	Exact     int64    `json:"files_bit_exact"`
	Tables    bool     `json:"tables_rewritten"`
}

// tablesFormat says whether dir has tables, and in which format.
func tablesFormat(dir string) (columnar.Format, bool) {
	tdir := filepath.Join(dir, "tables")
	if _, ok, err := columnar.ReadGeneration(tdir); err != nil || !ok {
		return "", false
	}
	if m, _ := filepath.Glob(filepath.Join(tdir, "*", "*.arrow")); len(m) > 0 {
		return columnar.Arrow, true
	}
	return columnar.Parquet, true
}
