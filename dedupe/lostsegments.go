package dedupe

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/blockwarc/blockwarc/dedupe/pack"
)

// lostSegments are the catalog segments of an archive that do not read,
// and the input files that held their records.
type lostSegments struct {
	refs  map[pack.ID]error
	desc  []string          // each lost segment: ID, key range
	why   []error           // and why it does not read
	held  []string          // names of the input files with records no segment that reads names
	named map[string]string // name → the file name versions give (as ingest was given it)
}

// findLostSegments reads every catalog segment of the archive in dir. An
// input file's row counts its records and gaps; the versions the readable
// segments hold of it say how many are missing: a file with missing
// records held records of a lost segment (the root does not say which
// files a run read).
func findLostSegments(dir string, opts pack.Options) (*root, *lostSegments, error) {
	s, err := pack.Open(dir, opts)
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	r, err := decodeRoot(s.Payload())
	if err != nil {
		return nil, nil, fmt.Errorf("open catalog of %s: %w", dir, err)
	}
	// A part of the input-file table that does not read: recoverFileRows
	// named it.
	_ = r.loadReadable(s)
	ls := &lostSegments{refs: map[pack.ID]error{}, named: map[string]string{}}
	nameOf := fileNames(r.Files)
	records, gaps := map[string]int64{}, map[string]int64{}
	places := lostPlaces{s: s, read: map[pack.ID]error{}}
	eachSegment(s, r, func(ref segRef, urls []URLVersions, err error) {
		if err == nil {
			// A segment that names an object named by place which does
			// not read is re-ingested like a lost one: a place cannot be
			// filled again, so its versions must name new objects.
			err = places.check(urls)
		}
		if err != nil {
			ls.refs[ref.ID] = err
			ls.desc = append(ls.desc, fmt.Sprintf("catalog segment %s (keys %q to %q)", ref.ID, ref.First, ref.Last))
			ls.why = append(ls.why, err)
			return
		}
		for _, u := range urls {
			for _, v := range u.Versions {
				b := nameOf(v.File)
				ls.named[b] = v.File
				if v.Gap {
					gaps[b]++
				} else {
					records[b]++
				}
			}
		}
	})
	if len(ls.refs) == 0 {
		return r, ls, nil
	}
	for _, f := range r.Files {
		if f.Records < 0 || records[f.Name] < f.Records || gaps[f.Name] < f.Gaps {
			ls.held = append(ls.held, f.Name)
		}
	}
	return r, ls, nil
}

// eachSegment calls fn with every catalog segment of r's runs, decoded,
// or with the error that stops it from reading; an object a segment
// names and the archive lost reads as its prefix and zeros.
func eachSegment(s *pack.Store, r *root, fn func(ref segRef, urls []URLVersions, err error)) {
	resolve := lostResolver(s, func(pack.ID, int) {})
	for _, run := range r.Runs {
		for _, ref := range run {
			seg, _, err := s.Get(ref.ID)
			var urls []URLVersions
			if err == nil {
				urls, err = decodeSegment(seg, resolve)
			}
			fn(ref, urls, err)
		}
	}
}

// LostSegments names the catalog segments of the archive in dir that do
// not read, by key range, with the input files that held their records
// (the originals repair needs to re-ingest them).
func LostSegments(dir string, opts pack.Options) ([]string, error) {
	_, ls, err := findLostSegments(dir, opts)
	if err != nil {
		return nil, err
	}
	var out []string
	for i, d := range ls.desc {
		out = append(out, fmt.Sprintf("%s: %v; its records were in %s", d, ls.why[i], heldFiles(ls.held)))
	}
	return out, nil
}

func heldFiles(held []string) string {
	if len(held) == 0 {
		return "no input file the archive recorded (their records are counted in other segments)"
	}
	return strings.Join(held, ", ")
}

// recovery is what ingest does differently for recoverSegments: the lost
// segments leave the root, and the files keep the names they were
// ingested under.
type recovery struct {
	lost  map[pack.ID]error
	names map[string]string // original's path → name versions give
}

// drop removes the lost segments from r's runs.
func (rc *recovery) drop(r *root) {
	for i, run := range r.Runs {
		r.Runs[i] = slices.DeleteFunc(run, func(ref segRef) bool { return rc.lost[ref.ID] != nil })
	}
}

// recoverSegments re-ingests the records of catalog segments that do not
// read: the input files that held them (findLostSegments) are read again,
// from originals checked against the archive's input-file rows, keeping
// the keys of the lost segments' ranges; a record a segment that reads
// names is skipped as ingest skips a record already ingested (same file
// name, offset), so what is added are the lost segments' records, as a
// new run, in the commit that removes the lost segments from the root.
// Nothing is done unless an original is given for every file that held
// them: the lost key ranges would otherwise be forgotten.
func recoverSegments(ctx context.Context, dir string, originals []string, opts pack.Options, res *ReingestResult) error {
	r, ls, err := findLostSegments(dir, opts)
	if err != nil || len(ls.refs) == 0 {
		return err
	}
	byName := map[string]string{}
	if len(originals) > 0 {
		if byName, _, err = matchOriginals(ctx, originals, r.Files); err != nil {
			return err
		}
	}
	nameOf := fileNames(r.Files)
	var missing, files []string
	names := map[string]string{}
	for _, b := range ls.held {
		p := byName[b]
		if p == "" {
			missing = append(missing, b)
			continue
		}
		files = append(files, p)
		// The versions re-ingested name the file as those that read do;
		// when none does, by the original's path, or by the row's name if
		// that path ends in another (matchOriginals matched its content).
		if n := ls.named[b]; n != "" {
			names[p] = n
		} else if nameOf(p) != b {
			names[p] = b
		}
	}
	why := ""
	switch {
	case len(originals) == 0:
	case len(missing) > 0:
		why = "; not re-ingested: no original given for " + strings.Join(missing, ", ")
	case r.Open != nil:
		why = "; not re-ingested: an interrupted ingest is open (run it again first)"
	case len(ls.held) == 0:
		why = "; not re-ingested: no input file has records the other segments do not name"
	}
	if len(originals) == 0 || why != "" {
		for i, d := range ls.desc {
			res.Unlisted = append(res.Unlisted, fmt.Sprintf("%s: %v; its records were in %s%s", d, ls.why[i], heldFiles(ls.held), why))
		}
		return nil
	}
	var ranges [][2]string
	for _, run := range r.Runs {
		for _, ref := range run {
			if ls.refs[ref.ID] != nil {
				ranges = append(ranges, [2]string{ref.First, ref.Last})
			}
		}
	}
	o := Options{
		Pack: opts, SkipOriginal: true, TempDir: dir,
		// One commit: the root without the lost segments and the run
		// that replaces them are published together.
		CommitBytes: math.MaxInt64,
		Select: func(key string) bool {
			return slices.ContainsFunc(ranges, func(k [2]string) bool { return key >= k[0] && key <= k[1] })
		},
	}
	st, err := ingest(ctx, dir, files, o, false, &recovery{lost: ls.refs, names: names})
	if err != nil {
		return fmt.Errorf("re-ingest lost catalog segments: %w", err)
	}
	res.Recovered = append(res.Recovered, ls.desc...)
	res.Recovered = append(res.Recovered, fmt.Sprintf("%d record(s) and gap(s) of their key ranges re-ingested from %s", st.Records+st.Gaps-st.Repeats, strings.Join(files, ", ")))
	return nil
}
