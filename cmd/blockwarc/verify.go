package main

import (
	"context"
	"fmt"
	"io"

	"blockwarc/dedupe"
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
if everything holds.`

func runVerify(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("verify", "ARCHIVE", verifyAbout, stderr)
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
	st, err := a.Verify(func(p dedupe.Problem) {
		fmt.Fprintf(stderr, "blockwarc verify: %v\n", p)
	})
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
	// damage, but a user reading them reads wrong figures.
	stale, err := staleTables(fs.Arg(0), a)
	if err != nil {
		stale = fmt.Sprintf("the tables' generation: %v", err)
	}
	problems := st.Problems
	if stale != "" {
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
	if st.Problems > 0 {
		repairHint(stderr, "verify", fs.Arg(0), len(st.Lost) > 0 || st.FileTableLost)
	}
	if problems > 0 {
		return exitFailure
	}
	return exitOK
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
