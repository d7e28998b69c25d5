package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"blockwarc/dedupe"
	"blockwarc/dedupe/pack"
)

const repairAbout = `Salvage the archive ARCHIVE, under its writer lock: restore a damaged
COMMIT from its copy COMMIT.copy (or the copy from COMMIT); rewrite the
sectors of packs and indexes that parity corrects (docs/FORMAT.md
"Parity"), and damaged parity of intact files; rebuild the indexes from the
packs' frames when one is damaged beyond parity (frames carry their object
tables). Then verify the whole archive (as 'blockwarc verify') and name
what is still lost: pack ranges no frame could be read from, and the
captures that do not restore, by URL, capture time, input file and offset,
so that they can be ingested again from the original files. The exit
status is 0 only when the repaired archive verifies.`

func runRepair(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("repair", "ARCHIVE", repairAbout, stderr)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "blockwarc repair: want ARCHIVE")
		fs.Usage()
		return exitUsage
	}
	dir := fs.Arg(0)
	// Said as every other command says it, before Repair tries to lock
	// the directory.
	if fi, err := os.Stat(dir); err != nil {
		fmt.Fprintf(stderr, "blockwarc repair: open archive: %v\n", err)
		return exitFailure
	} else if !fi.IsDir() {
		fmt.Fprintf(stderr, "blockwarc repair: open archive %s: not a directory\n", dir)
		return exitFailure
	}
	res, err := pack.Repair(dir, pack.Options{})
	for _, d := range res.Done {
		fmt.Fprintf(stdout, "repaired: %s\n", d)
	}
	for _, l := range res.Lost {
		fmt.Fprintf(stderr, "blockwarc repair: lost: %s\n", l)
	}
	if err != nil {
		fmt.Fprintf(stderr, "blockwarc repair: %v\n", err)
		return exitFailure
	}
	a, err := openArchive(dir, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "blockwarc repair: %v\n", err)
		return exitFailure
	}
	defer a.Close()
	st, err := a.Verify(func(p dedupe.Problem) {
		fmt.Fprintf(stderr, "blockwarc repair: still damaged: %v\n", p)
	})
	if err != nil {
		fmt.Fprintf(stderr, "blockwarc repair: %v\n", err)
		return exitFailure
	}
	printLost(stderr, "repair", st.Lost)
	if len(res.Done) == 0 && st.Problems == 0 {
		fmt.Fprintln(stdout, "nothing to repair")
	}
	fmt.Fprintf(stdout, "after repair: %d objects, %d records verified; %d problem(s), %d capture(s) lost\n", st.Objects, st.Records, st.Problems, len(st.Lost))
	if st.Problems > 0 {
		return exitFailure
	}
	return exitOK
}
