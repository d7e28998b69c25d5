package dedupe

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/blockwarc/blockwarc/dedupe/pack"
)

// RebuildCommit makes the commit of the archive in dir again when
// COMMIT and COMMIT.copy are both lost (pack.ErrCommitLost): the list of
// files from the packs on disk (pack.RebuildCommit), and the catalog
// root from the catalog objects the packs hold, which is all a root
// names (docs/FORMAT.md "Losses and what repair restores"): every part
// of the input-file table (magic BWIF), in the order written, and every
// catalog segment (BWSG), in runs (rebuildRoot). The root is
// published only when it checks: every segment reads, every version
// names a file of the table, and every file's records and gaps are
// exactly those the segments name (a segment missing or one too many
// would break that), so a root that is not the lost one is never
// committed. The open ingest a root may hold is not made again: an
// ingest that was stopped starts over from the last commit's files.
func RebuildCommit(dir string, opts pack.Options) (pack.RepairResult, error) {
	return pack.RebuildCommit(dir, opts, rebuildRoot, checkPayload)
}

// rebuildRoot is the root of the catalog objects s holds. Runs are told
// apart by the input-file parts: an ingest writes its part at its final
// commit, after its run's last segment, so the segments written between
// two parts are one run (in key order; a segment whose keys do not
// follow the one before starts another). Segments after the last part
// are a run whose ingest had not finished, or one repair re-ingested:
// kept when the root then checks (checkRoot), else left out (an
// unfinished ingest's files have no rows; running it again ingests them
// anew).
func rebuildRoot(s *pack.Store) ([]byte, error) {
	objs, err := s.CatalogObjects()
	if err != nil {
		return nil, err
	}
	if len(objs) == 0 {
		return nil, nil // an empty payload is an empty archive
	}
	r := &root{}
	var partRows [][]InputFile // the rows of each of r.Parts
	var run []segRef
	// The dates of each run, from the versions of its segments (all of
	// which are decoded here): exact, whatever the runs were.
	dates := runDates{Known: true}
	endRun := func() {
		if len(run) > 0 {
			r.Runs = append(r.Runs, run)
			r.Dates = append(r.Dates, dates)
			run, dates = nil, runDates{Known: true}
		}
	}
	for _, o := range objs {
		b, _, err := s.Get(o.ID)
		if err != nil {
			return nil, fmt.Errorf("read catalog object %s: %w", o.ID, err)
		}
		switch {
		case strings.HasPrefix(string(b), filePartMagic):
			n, k := binary.Uvarint(b[len(filePartMagic):])
			if k <= 0 || n == 0 || n > maxFileRows {
				return nil, fmt.Errorf("catalog object %s: input-file part without a row count", o.ID)
			}
			rows, err := decodeFilePart(b, int(n))
			if err != nil {
				return nil, fmt.Errorf("catalog object %s: %w", o.ID, err)
			}
			// A part that holds every row of earlier parts again replaced
			// them (blockwarc prove writes again the parts holding the
			// rows it proved, now with member tables; before 30 Nov 2026
			// the whole table as one part): it takes the place of the
			// first, the others are left out, or each file would have two
			// rows and the table another order.
			at := len(r.Parts)
			for k := len(r.Parts) - 1; k >= 0; k-- { // from the end: k stays valid
				if supersedes(rows, partRows[k]) {
					r.Parts = slices.Delete(r.Parts, k, k+1)
					partRows = slices.Delete(partRows, k, k+1)
					at = k
				}
			}
			r.Parts = slices.Insert(r.Parts, at, filePart{Rows: int(n), ID: o.ID})
			partRows = slices.Insert(partRows, at, rows)
			endRun()
		case strings.HasPrefix(string(b), segmentMagic):
			urls, err := decodeSegment(b, readResolver(s))
			if err != nil {
				return nil, fmt.Errorf("catalog segment %s: %w", o.ID, err)
			}
			if len(urls) == 0 {
				return nil, fmt.Errorf("catalog segment %s: no URL", o.ID)
			}
			ref := segRef{First: urls[0].Key, Last: urls[len(urls)-1].Key, ID: o.ID}
			if len(run) > 0 && run[len(run)-1].Last >= ref.First {
				endRun()
			}
			run = append(run, ref)
			dates.addVersions(urls)
		default:
			return nil, fmt.Errorf("catalog object %s: neither a catalog segment nor an input-file part", o.ID)
		}
	}
	if len(run) > 0 {
		with := &root{Parts: r.Parts, Runs: append(slices.Clone(r.Runs), run), Dates: append(slices.Clone(r.Dates), dates)}
		if checkRoot(s, with) == nil {
			r = with
		}
	}
	return r.encode()
}

// supersedes says that rows hold again every file of old (same name,
// size and SHA-256).
func supersedes(rows, old []InputFile) bool {
	type file struct {
		name string
		size int64
		sum  [32]byte
	}
	have := make(map[file]bool, len(rows))
	for _, f := range rows {
		have[file{f.Name, f.Size, f.SHA256}] = true
	}
	for _, f := range old {
		if !have[file{f.Name, f.Size, f.SHA256}] {
			return false
		}
	}
	return true
}

// checkPayload checks the root s holds against its catalog (checkRoot).
func checkPayload(s *pack.Store) error {
	if len(s.Payload()) == 0 {
		return nil
	}
	r, err := decodeRoot(s.Payload())
	if err != nil {
		return err
	}
	return checkRoot(s, r)
}

// checkRoot checks root r against the catalog of s: every segment reads,
// every version names a row of the input-file table, and each row's
// records and gaps are exactly the versions naming it.
func checkRoot(s *pack.Store, r *root) error {
	if err := r.load(s); err != nil {
		return err
	}
	defer func() { r.Files, r.loaded = nil, false }()
	nameOf := fileNames(r.Files)
	rows := map[string]bool{}
	for _, f := range r.Files {
		if rows[f.Name] {
			return fmt.Errorf("two rows of the input-file table name %s", f.Name)
		}
		rows[f.Name] = true
	}
	records, gaps := map[string]int64{}, map[string]int64{}
	var bad error
	eachSegment(s, r, func(ref segRef, urls []URLVersions, err error) {
		if err != nil && bad == nil {
			bad = fmt.Errorf("catalog segment %s: %w", ref.ID, err)
		}
		for _, u := range urls {
			for _, v := range u.Versions {
				n := nameOf(v.File)
				if !rows[n] && bad == nil {
					bad = fmt.Errorf("catalog segment %s names %s, which has no row", ref.ID, v.File)
				}
				if v.Gap {
					gaps[n]++
				} else {
					records[n]++
				}
			}
		}
	})
	if bad != nil {
		return bad
	}
	for _, f := range r.Files {
		if f.Records >= 0 && (records[f.Name] != f.Records || gaps[f.Name] != f.Gaps) {
			return fmt.Errorf("%s: %d records and %d gaps in its row, %d and %d in the catalog's segments", f.Name, f.Records, f.Gaps, records[f.Name], gaps[f.Name])
		}
	}
	return nil
}
