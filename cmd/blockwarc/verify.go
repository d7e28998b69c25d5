package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/parity"
)

const verifyAbout = `Check the whole archive ARCHIVE: every object named by its SHA-256 against
it (objects named by place are checked through the records they restore)
and every frame checksum, then restore every record and check it against the
CRC-32C recorded at ingest and against the WARC-Block-Digest and
WARC-Payload-Digest it declares (where they held at ingest); then rebuild
every input file from its records and the bytes between them, in file
order, and check its decompressed stream against the SHA-256 recorded at
ingest (files ingested by blockwarc before catalog version 5 have none and
are counted as not checkable). Every failure is named on stderr, then the
captures that do not restore, in user terms (URL, capture time, input file
and offset: what to re-ingest them from); damage that parity corrected is
named too ("corrected by parity": nothing is lost, blockwarc repair
rewrites the damaged sectors). Lost redundancy is a problem too, though
nothing is lost yet: a parity sidecar the commit says should be there and
is not, a damaged sidecar, and COMMIT.copy missing or not a copy of COMMIT
(docs/FORMAT.md "Lost redundancy"). So are tables ARCHIVE/tables that
describe an earlier commit than the archive's last (an ingest stopped
while it rewrote them): 'blockwarc tables ARCHIVE' rewrites them. When a problem is found, verify ends with
how to salvage the archive (blockwarc repair). The exit status is 0 only
if everything holds.

-originals PATH says whether the original input files under PATH (a
directory, file or glob, as to ingest) may be deleted: for each, a line
"SAFE TO DELETE" when the archive rebuilt it as given, compressed, in this
verify and the SHA-256 of the rebuilt bytes equals the file's, read now;
"NOT SAFE" otherwise, with why (not ingested, differs from the file
ingested, only its decompressed content restores). Then whether parity
covers every file of the archive, and what damage beyond parity would
need (the originals, or another copy of the archive). The last line says
whether every original under PATH may be deleted; the exit status is 1
when one may not, or when the archive has a problem or parity does not
cover it.`

func runVerify(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("verify", "ARCHIVE", verifyAbout, stderr)
	showProgress := fs.Bool("progress", false, "draw a progress bar (objects checked, then records restored and checked) on standard error even when it is not a terminal (it is drawn on a terminal anyway)")
	originals := fs.String("originals", "", "say whether the original input files under `PATH` may be deleted (each rebuilt and compared, SHA-256)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "blockwarc verify: want ARCHIVE")
		fs.Usage()
		return exitUsage
	}
	a, err := openArchive(fs.Arg(0), stderr)
	if err != nil {
		archiveError(stderr, "verify", fs.Arg(0), err)
		return exitFailure
	}
	defer a.Close()
	var vopts dedupe.VerifyOptions
	var bar *stepBar
	if w := progressTo(stderr, *showProgress); w != nil {
		var total int64
		for _, f := range a.Files() {
			total += max(f.Records, 0) + max(f.Gaps, 0)
		}
		// Two steps: the objects (packs and indexes, every frame
		// decoded), then the records restored from them.
		bar = newStepBar(w, 2, "verifying objects")
		vopts.Objects = func(n, of int64) { bar.Set(0, n, of) }
		restoring := false
		vopts.Progress = func(n int64) {
			if !restoring {
				restoring = true
				bar.Describe("verifying records")
			}
			bar.Set(1, n, total)
		}
	}
	st, err := a.VerifyWith(vopts, func(p dedupe.Problem) {
		if bar != nil {
			bar.Clear()
		}
		fmt.Fprintf(stderr, "blockwarc verify: %v\n", p)
	})
	if bar != nil {
		bar.Finish()
	}
	if err != nil {
		archiveError(stderr, "verify", fs.Arg(0), err)
		return exitFailure
	}
	fmt.Fprintf(stdout, "%d objects, %d records, %d digests, %d input files rebuilt exactly", st.Objects, st.Records, st.Digests, st.Files)
	if st.FilesUnknown > 0 {
		fmt.Fprintf(stdout, " (%d not checkable)", st.FilesUnknown)
	}
	fmt.Fprintf(stdout, ", %d input files rebuilt bit-exact (compressed)", st.FilesOriginal)
	if st.FilesOriginalUnchecked > 0 {
		fmt.Fprintf(stdout, " (%d not checkable: built without zlib)", st.FilesOriginalUnchecked)
	}
	// Tables that describe an earlier commit are derived data, not
	// damage, but a user reading them reads wrong figures: a problem,
	// unless an ingest left them behind on purpose (a note).
	stale, behind, err := staleTables(fs.Arg(0), a)
	if err != nil {
		stale = fmt.Sprintf("the tables' generation: %v", err)
	}
	problems := st.Problems
	if stale != "" && !behind {
		problems++
	}
	fmt.Fprintf(stdout, "; %d problem(s)\n", problems)
	if stale != "" {
		fmt.Fprintf(stderr, "blockwarc verify: %s\n", stale)
	}
	printLost(stderr, "verify", st.Lost)
	if st.FileTableLost {
		fmt.Fprintf(stderr, "blockwarc verify: the input-file table does not read whole: blockwarc repair %s ORIGINAL-INPUTS... rebuilds it from the original input files\n", fs.Arg(0))
	}
	code := exitOK
	if st.Problems > 0 {
		repairHint(stderr, "verify", fs.Arg(0), len(st.Lost) > 0 || st.FileTableLost)
	}
	if problems > 0 {
		code = exitFailure
	}
	if *originals != "" {
		if c := verifyOriginals(ctx, a, fs.Arg(0), *originals, st, stdout, stderr); c != exitOK {
			code = c
		}
	}
	return code
}

// verifyOriginals prints, for every original file under path, whether
// it may be deleted (dedupe.Retire), then what protects the archive and
// one closing line; it returns the exit status.
func verifyOriginals(ctx context.Context, a *dedupe.Archive, archive, path string, st dedupe.VerifyStats, stdout, stderr io.Writer) int {
	rs, err := dedupe.Retire(ctx, []string{path}, st)
	if err != nil {
		fmt.Fprintf(stderr, "blockwarc verify: -originals: %v\n", err)
		return exitFailure
	}
	cov, err := a.ParityCoverage()
	if err != nil {
		fmt.Fprintf(stderr, "blockwarc verify: parity coverage: %v\n", err)
		return exitFailure
	}
	when := time.Now().UTC().Format("2006-01-02 15:04:05 UTC")
	safe, unproven := 0, 0
	for _, r := range rs {
		if !r.Proven && r.Input != nil && r.Input.NotProven() {
			unproven++
		}
		if r.Proven {
			safe++
			fmt.Fprintf(stdout, "SAFE TO DELETE  %s: archived as %s, rebuilt bit for bit (%d bytes, SHA-256 %x) and compared with this file at %s\n",
				r.Path, r.Input.Name, r.Size, r.SHA256, when)
			continue
		}
		as := ""
		if r.Input != nil {
			as = " (archived as " + r.Input.Name + ")"
		}
		fmt.Fprintf(stdout, "NOT SAFE        %s%s: %s\n", r.Path, as, r.Why)
	}
	covered := len(cov.Unprotected) == 0
	if covered {
		fmt.Fprintf(stdout, "parity: covers all %d pack and index files of %s (COMMIT has COMMIT.copy): any two damaged %d KiB sectors of a file, or a run of damage of 1/%d of it (up to %d KiB), are corrected, and verify names them\n",
			cov.Files, archive, parity.SectorSize>>10, parity.BurstDivisor, parity.MaxBurst>>10)
	} else {
		fmt.Fprintf(stdout, "parity: does NOT cover %d of the %d pack and index files of %s (%s): damage there loses captures; 'blockwarc repair %s' writes the missing parity\n",
			len(cov.Unprotected), cov.Files, archive, strings.Join(cov.Unprotected, ", "), archive)
	}
	fmt.Fprintf(stdout, "beyond parity: damage parity cannot correct (more than that, a lost disk) loses the captures there; 'blockwarc repair' restores them only from their originals, so once the originals are deleted only another copy of %s can: keep one elsewhere, verified\n",
		archive)
	switch {
	case len(rs) > 0 && safe == len(rs) && covered && st.Problems == 0:
		fmt.Fprintf(stdout, "safe to delete: all %d original(s) under %s restore bit for bit from %s (proven %s)\n", len(rs), path, archive, when)
		return exitOK
	case st.Problems > 0:
		fmt.Fprintf(stdout, "NOT safe to delete: %s has %d problem(s) (above); keep every original until 'blockwarc verify' reports none\n", archive, st.Problems)
	case !covered:
		fmt.Fprintf(stdout, "NOT safe to delete: parity does not cover %s; keep every original until it does (%d of %d restore bit for bit)\n", archive, safe, len(rs))
	default:
		fmt.Fprintf(stdout, "NOT safe to delete: %d of %d original(s) under %s (NOT SAFE above); the other %d may be deleted\n", len(rs)-safe, len(rs), path, safe)
	}
	if unproven > 0 {
		// Ingest leaves the proof to prove by default: say the next step.
		fmt.Fprintf(stderr, "blockwarc verify: %d original(s) not proven yet: 'blockwarc prove %s %s' proves them (it deflates them again, as costly as their ingest), then verify again\n", unproven, archive, path)
	}
	return exitFailure
}

// printLost names the captures that do not restore, one a line.
func printLost(w io.Writer, cmd string, lost []dedupe.LostCapture) {
	if len(lost) == 0 {
		return
	}
	fmt.Fprintf(w, "blockwarc %s: %d capture(s) lost:\n", cmd, len(lost))
	for _, l := range lost {
		fmt.Fprintf(w, "  %s\n", l)
	}
}
