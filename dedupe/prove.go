package dedupe

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/blockwarc/blockwarc/dedupe/pack"
)

// The proof that a .warc.gz input restores bit for bit (its gzip member
// table, original.go) is the most expensive part of ingest: zlib deflates
// every decompressed byte again to find each member's settings, 20–60 %
// of a proving ingest's CPU on the corpus sites (BenchmarkIngestVsZstd).
// An ingest told to skip it (Options.SkipOriginal; `ingest` without
// -prove, its default) stores
// everything else and marks the files "not examined"; Prove learns the
// tables later, from the originals, when cores are idle and before the
// originals are deleted (`blockwarc prove`, then `verify -originals`).

// ProveResult says what Prove did.
type ProveResult struct {
	// Proven names the input files whose member table was learnt: they
	// now restore as given, compressed, bit for bit.
	Proven []string
	// NotExact names, with the reason, the files examined that do not
	// restore bit-exact compressed (they still restore decompressed).
	NotExact []string
	// Unmatched names the originals given that are the content of no
	// input file left to prove (already proven, or another file).
	Unmatched []string
	// Left counts the input files still not examined (no original given).
	Left int
	// From and To are the archive's commit sequence numbers before and
	// after (equal when nothing was committed): the tables, which say
	// nothing of originals, describe To as well as they did From.
	From, To uint64
}

// Prove learns, from the original files given (files, directories or
// globs, as to ingest), the member tables of the archive's input files
// that an ingest did not examine (Options.SkipOriginal), and commits them.
// An original is taken for an input file of the same size and SHA-256
// only. The parts of the input-file table that hold a row examined are
// written again, each with its rows in their order (a compacted copy
// ingests the files in that order); the other parts stay. Nothing is written
// when no table was learnt.
func Prove(ctx context.Context, dir string, originals []string, opts pack.Options) (ProveResult, error) {
	var res ProveResult
	paths, err := expandInputs(originals)
	if err != nil {
		return res, err
	}
	// An archive ingested with -parity=false gets none from prove either:
	// a few sidecars beside files without any make verify name the rest
	// as missing parity.
	opts.NoParity = opts.NoParity || pack.WithoutParity(dir)
	s, err := pack.Open(dir, opts)
	if err != nil {
		return res, err
	}
	defer s.Close()
	w, err := s.Begin()
	if err != nil {
		return res, err
	}
	defer w.Close()
	res.From, res.To = s.Seq(), s.Seq()
	r, err := decodeRoot(s.Payload())
	if err != nil {
		return res, fmt.Errorf("open catalog of %s: %w", dir, err)
	}
	if r.Open != nil {
		return res, fmt.Errorf("%s: an ingest was interrupted; run it again to finish it before prove", dir)
	}
	if lost := r.loadReadable(s); len(lost) > 0 {
		return res, fmt.Errorf("%s: the input-file table does not read (%v); run blockwarc repair first", dir, lost[0])
	}
	todo := map[int]bool{} // rows not examined
	for i, f := range r.Files {
		if f.OriginalWhy == originalSkipped && f.StreamLen >= 0 && f.Rebuildable {
			todo[i] = true
		}
	}
	// Match the originals to rows by content, then learn in parallel.
	type job struct {
		row  int
		path string
	}
	var jobs []job
	buf := make([]byte, 256<<10)
	for _, p := range paths {
		in, err := hashFile(ctx, p, buf)
		if err != nil {
			return res, err
		}
		row := -1
		for i := range r.Files {
			if todo[i] && r.Files[i].Size == in.Size && r.Files[i].SHA256 == in.SHA256 {
				row = i
				break
			}
		}
		if row < 0 {
			res.Unmatched = append(res.Unmatched, p)
			continue
		}
		delete(todo, row)
		jobs = append(jobs, job{row, p})
	}
	res.Left = len(todo)
	if len(jobs) == 0 {
		return res, nil
	}
	type out struct {
		o   *Original
		why uint8
		err error
	}
	outs := make([]out, len(jobs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for k, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			f := &r.Files[j.row]
			o, why, sum, size, err := learnOriginal(ctx, j.path, f.StreamSHA256)
			if err == nil && why == originalExact && (sum != f.SHA256 || size != f.Size) {
				why = originalChanged
			}
			outs[k] = out{o, why, err}
		}()
	}
	wg.Wait()
	for k, j := range jobs {
		o := outs[k]
		if o.err != nil {
			return ProveResult{}, fmt.Errorf("prove %s: %w", j.path, o.err)
		}
		f := &r.Files[j.row]
		f.OriginalWhy = o.why
		if o.why == originalExact {
			f.Original = o.o
			res.Proven = append(res.Proven, f.Name)
		} else {
			res.NotExact = append(res.NotExact, f.Name+": "+f.OriginalReason())
		}
	}
	if err := markPerPiece(dir, r, res.Proven); err != nil {
		return ProveResult{}, err
	}
	// The parts holding a row examined, again (the other parts as they
	// are).
	changed := make(map[int]bool, len(jobs))
	for _, j := range jobs {
		changed[j.row] = true
	}
	if err := r.rewriteParts(w, changed); err != nil {
		return ProveResult{}, err
	}
	payload, err := r.encode()
	if err == nil {
		err = w.Commit(payload)
	}
	if err != nil {
		return ProveResult{}, fmt.Errorf("commit proven input files: %w", err)
	}
	res.To = res.From + 1
	return res, nil
}

// markPerPiece gives the tables just learnt for the files named the form
// ingest gives them (Original.PerPiece: member i holds piece i, its
// lengths not stored) where the file's records and gaps, in file order,
// each begin a member: then the table of an ingest with the proof and
// that of one proven later are the same bytes, and as small.
func markPerPiece(dir string, r *root, names []string) error {
	if len(names) == 0 {
		return nil
	}
	a, err := Open(dir, pack.Options{})
	if err != nil {
		return err
	}
	defer a.Close()
	byName := make(map[string]*InputFile, len(names))
	for i := range r.Files {
		if f := &r.Files[i]; f.Original != nil && slices.Contains(names, f.Name) {
			byName[f.Name] = f
		}
	}
	return a.WalkSources(names, func(old InputFile, vs []Version) error {
		f := byName[old.Name]
		if f == nil {
			return nil
		}
		o := f.Original
		if o.PerPiece || o.extents.n != int64(len(vs)) || len(o.Lens) != len(vs) {
			return nil
		}
		var ps pieceSum
		for i := range vs {
			ps.add(vs[i].Offset, vs[i].Skip, o.Lens[i])
		}
		o.markPerPiece(ps)
		return nil
	})
}
