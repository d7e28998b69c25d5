package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/blockwarc/blockwarc/export/columnar"
)

// tablesMode is ingest's -tables: when the tables are rewritten after
// the ingest's commit.
type tablesMode int

const (
	// tablesAuto rewrites them when they are missing, when rewriting
	// costs little (under tablesSmall records), or once the archive has
	// grown by a quarter since they were written: the tables are built
	// from the whole archive, so rewriting them at every crawl of a
	// crawl-at-a-time ingest made its cost grow with the archive's size
	// (quadratic in all); rewriting them at geometric steps costs at most
	// about five walks of each record over the archive's life, a
	// constant per GB ingested.
	tablesAuto tablesMode = iota
	// tablesAlways rewrites them after every ingest that adds a file.
	tablesAlways
	// tablesNever leaves them alone.
	tablesNever
)

// tablesFlag is -tables: a boolean flag (-tables, -tables=false, as
// before auto existed) that also takes auto.
type tablesFlag struct{ mode tablesMode }

func (f *tablesFlag) IsBoolFlag() bool { return true }

func (f *tablesFlag) String() string {
	switch f.mode {
	case tablesAlways:
		return "true"
	case tablesNever:
		return "false"
	}
	return "auto"
}

func (f *tablesFlag) Set(s string) error {
	switch s {
	case "auto":
		f.mode = tablesAuto
	case "true", "always":
		f.mode = tablesAlways
	case "false", "never":
		f.mode = tablesNever
	default:
		return fmt.Errorf("want auto, true or false")
	}
	return nil
}

// growthNum/growthDen: under -tables=auto the tables are rewritten once the
// archive holds this many times the records they describe.
const growthNum, growthDen = 5, 4

// tablesSmall is the fewest records of an archive whose tables
// -tables=auto may leave behind: below it a rewrite costs about a
// CPU-second or less (the mixed corpus at 480-600 records: an ingest
// with the rewrite 1.0-1.45 CPU-s, without 0.2-0.4), and
// a small archive's user expects current tables. At 2,000 a rewrite was
// 5 CPU-s, paid at every crawl of a small archive's first hundreds.
var tablesSmall int64 = 500

// rewriteDue is -tables=auto's rule: tables describing tables records
// (0: not recorded) are rewritten for an archive of n records (< 0:
// unknown) when either count is unknown, when the archive is small
// (tablesSmall), when it holds a quarter more records than the tables,
// or fewer (repair dropped what they describe).
func rewriteDue(n, tables int64) bool {
	return n < 0 || tables == 0 || n < tablesSmall || n < tables || n*growthDen >= tables*growthNum
}

// tablesDue says whether ingest, having committed the archive at dir
// (files: the input files it added), rewrites the tables under mode.
// When -tables=auto leaves them behind, it records that in the tables
// (columnar.MarkBehind: verify then notes it rather than failing) and
// says so on stderr.
func tablesDue(dir string, mode tablesMode, files int, stderr io.Writer) bool {
	if mode == tablesNever {
		return false
	}
	tdir := filepath.Join(dir, "tables")
	g, ok, err := columnar.ReadGenerationInfo(tdir)
	if err != nil || !ok {
		return true // none, of unknown generation, or unreadable: rewriting settles it
	}
	a, err := openArchive(dir, io.Discard)
	if err != nil {
		return true // writeTables names the error
	}
	defer a.Close()
	now, err := a.Generation()
	if err != nil {
		return true
	}
	if g.Gen == now {
		return false
	}
	n := a.Records()
	if mode == tablesAlways || rewriteDue(n, g.Records) {
		if files == 0 {
			why := "an ingest stopped while it rewrote them, or -tables=false"
			if g.Behind != "" {
				why = "left behind by -tables=auto"
			}
			fmt.Fprintf(stderr, "blockwarc ingest: the tables describe an earlier commit of the archive (%s): rewriting them\n", why)
		}
		return true
	}
	if _, err := columnar.MarkBehind(tdir, g.Gen, now); err != nil {
		fmt.Fprintf(stderr, "blockwarc ingest: %v: rewriting the tables\n", err)
		return true
	}
	fmt.Fprintf(stderr, "blockwarc ingest: tables left as they were: they describe %d of the archive's %d records, and are rewritten once it holds %d (-tables=auto: so that their cost, a walk of the whole archive, does not grow with it at every crawl); 'blockwarc tables %s' brings them up to date now, -tables at every ingest\n",
		g.Records, n, (g.Records*growthNum+growthDen-1)/growthDen, dir)
	return false
}
