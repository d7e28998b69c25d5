package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/dedupe/shard"
)

const repairAbout = `Salvage the archive ARCHIVE, under its writer lock: restore a damaged
COMMIT from its copy COMMIT.copy (or the copy from COMMIT, also when it
is missing); rewrite the sectors of packs and indexes that parity corrects
(docs/FORMAT.md "Parity"), and damaged or missing parity of intact files
(written from their bytes once they check, never over damage); rebuild the indexes from the
packs' frames when one is damaged beyond parity (frames carry their object
tables). A sharded archive (docs/FORMAT.md "Shards") gets its manifest
SHARDS rewritten from its copy when one of the two is damaged, and each
shard repaired so. When COMMIT and COMMIT.copy are both lost, make the
commit again from the packs on disk: the list of files, one index from
the frames, and the catalog root from the catalog objects the packs hold,
checked against the input-file table before it is published. Then verify
the whole archive (as 'blockwarc verify').

When captures are lost (their objects were in pack bytes no frame could be
read from) and ORIGINAL-INPUTS are given (files or directories, as to
ingest), repair re-ingests them: it writes the damaged pack's readable
frames to a new pack and rebuilds the indexes (one commit; the damaged
pack is deleted only after it), reads every capture of the lost captures'
URLs again from the original whose base name, size and SHA-256 are those
of the input file the archive recorded (an original that differs is
refused, and named), checks each record against the CRC-32C recorded for
it, and puts back the objects the catalog names and the archive lacks
(docs/FORMAT.md "Re-ingesting lost captures"). A catalog segment that
does not read, or that names an object named by place that does not
read (such an object cannot be put back at its place), is re-ingested
from the originals of the input files that held its records; a part of the input-file table that does not read is
rebuilt from the originals of the files whose rows it held; a deleted
pack is written again empty and all it held re-ingested. Nothing is
written outside ARCHIVE; a crash or an I/O
error leaves the archive at its last commit, and repair can run again.

Finally repair names what was restored and what is still lost: the
captures that do not restore, by URL, capture time, input file and
offset, the pack ranges that do not read, and a lost catalog segment by
key range and the input files that held it. The exit status is 0 only
when the repaired archive verifies.`

func runRepair(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("repair", "ARCHIVE [ORIGINAL-INPUTS...]", repairAbout, stderr)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() < 1 {
		fmt.Fprintln(stderr, "blockwarc repair: want ARCHIVE [ORIGINAL-INPUTS...]")
		fs.Usage()
		return exitUsage
	}
	dir, originals := fs.Arg(0), fs.Args()[1:]
	// Said as every other command says it, before Repair tries to lock
	// the directory.
	if fi, err := os.Stat(dir); err != nil {
		fmt.Fprintf(stderr, "blockwarc repair: open archive: %v\n", err)
		return exitFailure
	} else if !fi.IsDir() {
		fmt.Fprintf(stderr, "blockwarc repair: open archive %s: not a directory\n", dir)
		return exitFailure
	}
	// The ordinary archives to repair: the shards of a sharded one (its
	// manifest read from either copy), else dir.
	dirs, m, err := shard.Dirs(dir)
	if err != nil {
		archiveError(stderr, "repair", dir, err)
		return exitFailure
	}
	repaired := false
	if m != nil {
		note, err := shard.MendManifest(dir, m)
		if err != nil {
			fmt.Fprintf(stderr, "blockwarc repair: %v\n", err)
			return exitFailure
		}
		if note != "" {
			fmt.Fprintf(stdout, "repaired: %s\n", note)
			repaired = true
		}
	}
	// The pack ranges and frames that do not read are said at the end,
	// and only when captures are still lost: re-ingest may have put back
	// everything they held.
	var damage []string
	report := func(res pack.RepairResult) {
		for _, d := range res.Done {
			fmt.Fprintf(stdout, "repaired: %s\n", d)
			repaired = true
		}
		for _, l := range res.Lost {
			if !slices.Contains(damage, l) {
				damage = append(damage, l)
			}
		}
	}
	// With originals, the settings object (pack.RestoreSettings) is
	// written again after the re-ingest, whose first commit writes it
	// anyway: a repair killed after any of its commits then makes, run
	// again, what one run makes.
	var settle []string // the archives whose packs read: settings next
	for _, d := range dirs {
		for _, n := range removeLeftovers(d) {
			fmt.Fprintf(stdout, "repaired: removed %s, the temporary directory of a repair that was killed\n", filepath.Join(d, n))
			repaired = true
		}
		var res pack.RepairResult
		res, err = pack.RepairFrames(d, pack.Options{})
		if errors.Is(err, pack.ErrCommitLost) {
			// Both commit files lost: the list of files and the catalog
			// root are made again from the packs, then repaired as any.
			if res, err = dedupe.RebuildCommit(d, pack.Options{}); err != nil {
				break
			}
			report(res)
			res, err = pack.RepairFrames(d, pack.Options{})
		}
		if err != nil {
			break
		}
		report(res)
		if len(res.Lost) == 0 {
			settle = append(settle, d)
		}
	}
	restoreSettings := func() (bool, error) {
		restored := false
		for _, d := range settle {
			var res pack.RepairResult
			if err := pack.RestoreSettings(d, pack.Options{}, &res); err != nil {
				return restored, err
			}
			report(res)
			restored = restored || len(res.Done) > 0
		}
		settle = nil
		return restored, nil
	}
	if err == nil && len(originals) == 0 {
		_, err = restoreSettings()
	}
	if err != nil {
		for _, d := range damage {
			fmt.Fprintf(stderr, "blockwarc repair: damaged: %s\n", d)
		}
		fmt.Fprintf(stderr, "blockwarc repair: %v\n", err)
		return exitFailure
	}
	st, problems, err := verifyQuiet(dir, stderr)
	if err != nil && len(originals) == 0 {
		for _, d := range damage {
			fmt.Fprintf(stderr, "blockwarc repair: damaged: %s\n", d)
		}
		// A catalog segment that does not read stops verify: its key
		// range and the files that held it are what to re-ingest from.
		for _, d := range dirs {
			if lost, lerr := dedupe.LostSegments(d, pack.Options{}); lerr == nil {
				for _, l := range lost {
					fmt.Fprintf(stderr, "blockwarc repair: lost: %s\n", l)
				}
			}
		}
		fmt.Fprintf(stderr, "blockwarc repair: %v\n", err)
		return exitFailure
	}
	if st.FileTableLost && len(originals) == 0 {
		for _, d := range dirs {
			if lost, lerr := dedupe.LostFileRows(ctx, d, pack.Options{}); lerr == nil {
				for _, l := range lost {
					fmt.Fprintf(stderr, "blockwarc repair: lost: %s\n", l)
				}
			}
		}
	}
	lostBefore := st.Lost
	reingested := false
	// A catalog segment that does not read stops verify (err): the
	// captures of the others may still be put back.
	if (err != nil || len(st.Lost) > 0 || st.FileTableLost) && len(originals) > 0 {
		// The writer must not take an object of a frame that does not
		// read as stored: the indexes list only frames that read.
		settle = nil
		for _, d := range dirs {
			res, err := pack.RebuildIndexes(d, pack.Options{})
			report(res)
			if err != nil {
				fmt.Fprintf(stderr, "blockwarc repair: %v\n", err)
				return exitFailure
			}
			settle = append(settle, d) // the damage is dropped now
		}
		ri, err := reingest(ctx, m, dirs, originals)
		for _, r := range ri.Refused {
			fmt.Fprintf(stderr, "blockwarc repair: refused original %s\n", r)
		}
		for _, r := range ri.Unread {
			fmt.Fprintf(stderr, "blockwarc repair: not used: %s\n", r)
		}
		for _, m := range ri.Missing {
			fmt.Fprintf(stderr, "blockwarc repair: no original given for %s\n", m)
		}
		for _, u := range ri.Unlisted {
			fmt.Fprintf(stderr, "blockwarc repair: lost: %s\n", u)
		}
		for _, u := range ri.Recovered {
			fmt.Fprintf(stdout, "re-ingested: %s\n", u)
		}
		if err != nil {
			fmt.Fprintf(stderr, "blockwarc repair: re-ingest: %v\n", err)
			return exitFailure
		}
		fmt.Fprintf(stdout, "re-ingested: %d of %d lost capture(s) complete again, %d object(s) put back from the originals\n", ri.Restored, ri.Lost, ri.Objects)
		reingested = true
		if _, err := restoreSettings(); err != nil {
			fmt.Fprintf(stderr, "blockwarc repair: %v\n", err)
			return exitFailure
		}
		if st, problems, err = verifyQuiet(dir, stderr); err != nil {
			for _, d := range damage {
				fmt.Fprintf(stderr, "blockwarc repair: damaged: %s\n", d)
			}
			fmt.Fprintf(stderr, "blockwarc repair: %v\n", err)
			return exitFailure
		}
		// What was lost and restores now, in the terms verify names
		// lost captures.
		type place struct {
			file string
			off  int64
		}
		still := map[place]bool{}
		for _, l := range st.Lost {
			still[place{l.File, l.Offset}] = true
		}
		for _, l := range lostBefore {
			if !still[place{l.File, l.Offset}] {
				fmt.Fprintf(stdout, "restored: %s\n", l)
			}
		}
	}
	// Originals given, nothing to re-ingest: the settings now.
	if len(settle) > 0 {
		restored, err := restoreSettings()
		if err == nil && restored {
			st, problems, err = verifyQuiet(dir, stderr)
		}
		if err != nil {
			fmt.Fprintf(stderr, "blockwarc repair: %v\n", err)
			return exitFailure
		}
	}
	if st.Problems > 0 || len(st.Lost) > 0 {
		for _, d := range damage {
			fmt.Fprintf(stderr, "blockwarc repair: damaged: %s\n", d)
		}
	} else if len(damage) > 0 {
		fmt.Fprintf(stdout, "repaired: %d damaged range(s) or frame(s) dropped; nothing of them is lost\n", len(damage))
	}
	for _, p := range problems {
		fmt.Fprintf(stderr, "blockwarc repair: still damaged: %v\n", p)
	}
	printLost(stderr, "repair", st.Lost)
	if !repaired && !reingested && st.Problems == 0 {
		fmt.Fprintln(stdout, "nothing to repair")
	}
	fmt.Fprintf(stdout, "after repair: %d objects, %d records verified; %d problem(s), %d capture(s) lost\n", st.Objects, st.Records, st.Problems, len(st.Lost))
	if st.Problems > 0 {
		return exitFailure
	}
	return exitOK
}

// reingest is dedupe.Reingest of each of dirs (the shards of m, or the
// archive alone when m is nil), its results summed; an original or a
// file named by several shards is named once.
func reingest(ctx context.Context, m *shard.Manifest, dirs []string, originals []string) (dedupe.ReingestResult, error) {
	var sum dedupe.ReingestResult
	union := func(dst *[]string, src []string) {
		for _, x := range src {
			if !slices.Contains(*dst, x) {
				*dst = append(*dst, x)
			}
		}
	}
	for i, d := range dirs {
		var ri dedupe.ReingestResult
		var err error
		if m != nil {
			// A shard's input-file rows count its own records only.
			ri, err = shard.ReingestShard(ctx, d, m, i, originals, pack.Options{})
		} else {
			ri, err = dedupe.Reingest(ctx, d, originals, pack.Options{})
		}
		sum.Lost += ri.Lost
		sum.Restored += ri.Restored
		sum.Objects += ri.Objects
		union(&sum.Refused, ri.Refused)
		union(&sum.Unread, ri.Unread)
		union(&sum.Missing, ri.Missing)
		union(&sum.Unlisted, ri.Unlisted)
		union(&sum.Recovered, ri.Recovered)
		if err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// verifyQuiet verifies the archive in dir and returns the problems found
// instead of printing them.
func verifyQuiet(dir string, stderr io.Writer) (dedupe.VerifyStats, []dedupe.Problem, error) {
	a, err := openArchive(dir, stderr)
	if err != nil {
		return dedupe.VerifyStats{}, nil, err
	}
	defer a.Close()
	var problems []dedupe.Problem
	st, err := a.Verify(func(p dedupe.Problem) { problems = append(problems, p) })
	return st, problems, err
}
