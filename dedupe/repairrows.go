package dedupe

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/warcio"
)

// recoverFileRows puts back the rows of the input-file table whose part
// (catalog version 8) does not read. The rows cannot be read back from
// anywhere else, but they are facts of the input files: from the
// originals given, each lost row is computed again as ingest computed
// it (size and SHA-256 of the file, records and malformed records read,
// decompressed stream, gaps, whether it restores bit-exact) and the rows
// are stored as a new part, published with the root without the lost
// parts in one commit. An original is used only when every record the
// readable catalog segments name in a file of its base name is the
// record at the same place of the original (CRC-32C), and the original
// holds no fewer records: the recorded SHA-256 that would prove it is
// what was lost. Nothing is done unless an original is given for every
// file whose row is lost (the table would otherwise silently forget a
// file, and a later ingest would take it in again).
func recoverFileRows(ctx context.Context, dir string, originals []string, opts pack.Options, ro ReingestOptions, res *ReingestResult) error {
	s, err := pack.Open(dir, opts)
	if err != nil {
		return err
	}
	defer s.Close()
	w, err := s.Begin()
	if err != nil {
		return err
	}
	defer w.Close()
	r, err := decodeRoot(s.Payload())
	if err != nil {
		return fmt.Errorf("open catalog of %s: %w", dir, err)
	}
	lostParts := r.loadReadable(s)
	if len(lostParts) == 0 {
		return nil
	}
	known := map[string]bool{}
	for _, f := range r.Files {
		known[f.Name] = true
	}
	nameOf := fileNames(r.Files)
	// The catalog's versions of the files no readable row names.
	crcs := map[place]uint32{}
	counts := map[string]int64{} // base name → versions (records and gaps)
	lostSegments := false
	eachSegment(s, r, func(_ segRef, urls []URLVersions, err error) {
		if err != nil {
			lostSegments = true
			return // a lost segment: recoverSegments
		}
		for _, u := range urls {
			for _, v := range u.Versions {
				b := nameOf(v.File) // a row's name, or the base name of a lost row's file
				if known[b] {
					continue
				}
				counts[b]++
				crcs[place{b, v.Offset, v.Skip}] = v.CRC
			}
		}
	})
	var bases []string
	for b := range counts {
		bases = append(bases, b)
	}
	slices.Sort(bases)
	say := func(why string) {
		for _, e := range lostParts {
			res.Unlisted = append(res.Unlisted, fmt.Sprintf("%v; %s", e, why))
		}
	}
	paths, err := expandInputs(originals)
	if err != nil {
		return err
	}
	lostRows := 0
	for _, l := range lostParts {
		lostRows += l.Rows
	}
	unnamed := false
	if len(bases) == 0 {
		// No readable segment names a file without a row: the segments
		// that did are lost too (a run's part is written beside its last
		// segment, and segments are deltas of the one before; a deleted
		// pack loses them all). The originals given that no row names
		// are candidates; a set of them is taken for a lost part only
		// if their rows, computed again, make that part byte for byte
		// (its id is the hash of its bytes: matchParts), and
		// recoverSegments then re-ingests the lost segments' records
		// from them.
		unnamed = true
		candidates := map[string]bool{}
		for _, p := range paths {
			if b := filepath.Base(p); !known[b] {
				candidates[b] = true
			}
		}
		if !lostSegments || len(candidates) < lostRows {
			say(fmt.Sprintf("no file the catalog names lacks a row, and %d original(s) given without a row for %d lost row(s) in %d part(s): its rows cannot be told", len(candidates), lostRows, len(lostParts)))
			return nil
		}
		for b := range candidates {
			bases = append(bases, b)
			counts[b] = 0
		}
		slices.Sort(bases)
	}
	if !unnamed && len(bases) < lostRows {
		// Readable segments name some of the lost rows' files, not all:
		// the others' segments are lost too (damage across two runs).
		// The originals no row names are candidates for those, told
		// apart as above (matchParts); committing the named files'
		// rows alone would forget the others' files, and their
		// originals would then be refused as unknown.
		for _, p := range paths {
			if b := filepath.Base(p); !known[b] && !slices.Contains(bases, b) {
				bases = append(bases, b)
			}
		}
		slices.Sort(bases)
		unnamed = true
		if len(bases) < lostRows {
			say(fmt.Sprintf("%d file(s) the catalog names and original(s) given without a row, for %d lost row(s) in %d part(s): the rows cannot all be told", len(bases), lostRows, len(lostParts)))
			return nil
		}
	}
	byBase := map[string]string{}
	for _, p := range paths {
		if b := filepath.Base(p); slices.Contains(bases, b) {
			byBase[b] = p
		}
	}
	var missing []string
	var files []string
	for _, b := range bases {
		if p := byBase[b]; p != "" {
			files = append(files, p)
		} else {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		say("its rows are those of " + strings.Join(bases, ", ") + "; not rebuilt: no original given for " + strings.Join(missing, ", "))
		return nil
	}
	rows, bad, err := rebuildRows(ctx, files, ro, func(c *warcio.Capture, crc uint32) bool {
		want, ok := crcs[place{filepath.Base(c.File), c.Offset, c.SkipInMember}]
		return !ok || want == crc // a record of a lost segment is not named
	})
	if err != nil {
		return err
	}
	for i, p := range files {
		if n := rows[i].Records + rows[i].Gaps; bad[p] > 0 || n < counts[filepath.Base(p)] {
			res.Refused = append(res.Refused, fmt.Sprintf("%s: not the file ingested under its name (%d of its records differ from the catalog's, %d records and gaps against %d named)", p, bad[p], n, counts[filepath.Base(p)]))
			missing = append(missing, filepath.Base(p))
		}
	}
	if len(missing) > 0 {
		say("not rebuilt: " + strings.Join(missing, ", ") + " refused")
		return nil
	}
	var partFiles [][]string // the files of each lost part, when told apart
	if unnamed {
		var ok bool
		if rows, partFiles, ok = matchParts(s, lostParts, rows, files); !ok {
			say("the original(s) given without a row (" + strings.Join(files, ", ") + ") do not make the lost parts again: their rows cannot be told")
			return nil
		}
	}
	r.Files = append(r.Files, rows...)
	if err := r.storeFiles(w); err != nil {
		return err
	}
	payload, err := r.encode()
	if err == nil {
		err = w.Commit(payload)
	}
	if err != nil {
		return fmt.Errorf("commit rebuilt input-file rows: %w", err)
	}
	for i, l := range lostParts {
		from := files
		if partFiles != nil {
			from = partFiles[i]
		}
		res.Recovered = append(res.Recovered, fmt.Sprintf("input-file table part %s (%d files): rows rebuilt from %s", l.ID, l.Rows, strings.Join(from, ", ")))
	}
	return nil
}

// matchParts finds, for each lost part, the rows (in the order of
// files, which is the order ingest gave them: sorted by name) that
// encode to it byte for byte; it returns the rows of all parts and
// each part's files, or false when a part is made by no set of them. Sets are
// tried in order, at most maxPartTries of them a part: a collection
// whose runs are the crawls of one site in time order finds each run's
// set among the first.
func matchParts(s *pack.Store, parts []lostPart, rows []InputFile, files []string) ([]InputFile, [][]string, bool) {
	const maxPartTries = 1 << 16
	used := make([]bool, len(rows))
	var outRows []InputFile
	var outFiles [][]string
	for _, l := range parts {
		pick := make([]int, 0, l.Rows)
		tries := 0
		var try func(from int) bool
		try = func(from int) bool {
			if len(pick) == l.Rows {
				tries++
				sel := make([]InputFile, len(pick))
				for i, j := range pick {
					sel[i] = rows[j]
				}
				return partMatches(s, l.ID, sel)
			}
			for j := from; j < len(rows) && tries < maxPartTries; j++ {
				if used[j] {
					continue
				}
				pick = append(pick, j)
				if try(j + 1) {
					return true
				}
				pick = pick[:len(pick)-1]
			}
			return false
		}
		if !try(0) {
			return nil, nil, false
		}
		var fs []string
		for _, j := range pick {
			used[j] = true
			outRows = append(outRows, rows[j])
			fs = append(fs, files[j])
		}
		outFiles = append(outFiles, fs)
	}
	return outRows, outFiles, true
}

// partMatches says whether rows, rebuilt by repair with the proof, encode
// to the lost part id as the ingest that wrote the part had them: proven,
// or not examined (ingest without -prove, its default), an uncompressed
// file then plain or, as before 30 Nov 2026, not examined too.
func partMatches(s *pack.Store, id pack.ID, rows []InputFile) bool {
	if s.Sum(encodeFilePart(rows)) == id {
		return true
	}
	for _, plainToo := range []bool{false, true} {
		v := slices.Clone(rows)
		for i := range v {
			f := &v[i]
			if f.StreamLen < 0 || f.OriginalWhy == originalPlain && !plainToo {
				continue
			}
			f.Original, f.OriginalWhy = nil, originalSkipped
		}
		if s.Sum(encodeFilePart(v)) == id {
			return true
		}
	}
	return false
}

// LostFileRows names the parts of the input-file table of the archive in
// dir that do not read, with the input files whose rows they held (the
// originals repair needs to rebuild them).
func LostFileRows(ctx context.Context, dir string, opts pack.Options) ([]string, error) {
	var res ReingestResult
	err := recoverFileRows(ctx, dir, nil, opts, ReingestOptions{}, &res)
	return res.Unlisted, err
}

// rebuildRows reads the files as ingest (with ro's settings) reads its
// inputs and returns their input-file rows (in the order of files), with
// how many records of each check refused.
func rebuildRows(ctx context.Context, files []string, ro ReingestOptions, check func(c *warcio.Capture, crc uint32) bool) ([]InputFile, map[string]int, error) {
	var mu sync.Mutex
	records, malformed, bad := map[string]int64{}, map[string]int64{}, map[string]int{}
	pieces := map[string]pieceSum{}
	streams := map[string]warcio.FileStream{}
	ropts := warcio.Options{Digests: true, Policy: warcio.PolicyWarn, OnError: func(err error) {
		var fe *warcio.FormatError
		if errors.As(err, &fe) && !errors.Is(err, warcio.ErrBadTrailer) {
			mu.Lock()
			malformed[fe.File]++
			mu.Unlock()
		}
	}}
	learner := newOriginalLearner(ctx)
	defer learner.stop()
	_, err := warcio.Walk(ctx, files, warcio.WalkOptions{Reader: ropts, Gaps: true, Select: ro.Select,
		OnFile: func(fs warcio.FileStream) {
			streams[fs.File] = fs
			if !ro.SkipOriginal {
				learner.start(fs)
			}
		}}, func(c *warcio.Capture) error {
		block, err := warcio.ReadBlock(c.Body, c.ContentLen, maxJobBytes)
		if err != nil {
			return fmt.Errorf("read record %s at %d: %w", c.File, c.Offset, err)
		}
		if !c.Gap {
			records[c.File]++
		}
		ps := pieces[c.File]
		ps.add(c.Offset, c.SkipInMember, int64(len(c.RawHeader)+len(block)+len(c.Trailer)))
		pieces[c.File] = ps
		crc := crc32.Update(crc32.Checksum(c.RawHeader, castagnoli), castagnoli, block)
		if !check(c, crc32.Update(crc, castagnoli, c.Trailer)) {
			bad[c.File]++
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	rows := make([]InputFile, len(files))
	for i, p := range files {
		in, err := hashFile(ctx, p, nil)
		if err != nil {
			return nil, nil, err
		}
		in.Records, in.Malformed, in.StreamLen = records[p], malformed[p], -1
		if fs, ok := streams[p]; ok {
			in.StreamLen, in.StreamSHA256, in.Gaps, in.Rebuildable = fs.Len, fs.SHA256, int64(fs.Gaps), fs.Tiled
		}
		rows[i] = in
	}
	if err := learner.apply(rows, files, pieces, ro.SkipOriginal); err != nil {
		return nil, nil, err
	}
	return rows, bad, nil
}
