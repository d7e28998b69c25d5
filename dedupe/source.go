package dedupe

import (
	"cmp"
	"crypto/sha256"
	"io"
	"slices"
)

// sourceBatch bounds the versions WalkSources holds at once: files are
// gathered in batches of about this many versions, one catalog pass per
// batch (a version is a few hundred bytes in memory).
const sourceBatch = 256 << 10

// WalkSources calls fn once per input file of the archive (Files) whose
// base name is in names (every file when names is nil), in input-table
// order, with the file's versions — records and gaps — in the order they
// had in the file. With a Rebuildable file, restoring them in that order
// and concatenating the records (Parts.Record) gives the file's
// decompressed stream back, byte for byte (WriteSource).
//
// Memory holds the versions of a batch of files (about sourceBatch
// versions); each batch costs one pass over the catalog.
func (a *Archive) WalkSources(names []string, fn func(f InputFile, vs []Version) error) error {
	if err := a.loadFiles(); err != nil {
		return err
	}
	paths, err := a.sourcePaths()
	if err != nil {
		return err
	}
	return a.walkSources(paths, names, fn)
}

// walkSources is WalkSources with the paths of sourcePaths.
func (a *Archive) walkSources(paths map[string]int, names []string, fn func(f InputFile, vs []Version) error) error {
	var want []int // rows of a.root.Files
	for i, f := range a.root.Files {
		if names == nil || slices.Contains(names, f.Name) {
			want = append(want, i)
		}
	}
	for len(want) > 0 {
		n, size := 0, int64(0)
		for n < len(want) {
			f := a.root.Files[want[n]]
			if n > 0 && size+max(f.Records, 0)+f.Gaps > sourceBatch {
				break
			}
			size += max(f.Records, 0) + f.Gaps
			n++
		}
		batch := want[:n]
		want = want[n:]
		inBatch := map[int]bool{}
		for _, row := range batch {
			inBatch[row] = true
		}
		byRow := map[int][]Version{}
		err := a.walk(func(u URLVersions) error {
			for _, v := range u.Versions {
				if row, ok := paths[v.File]; ok && inBatch[row] {
					byRow[row] = append(byRow[row], v)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, row := range batch {
			vs := byRow[row]
			slices.SortFunc(vs, func(a, b Version) int {
				if c := cmp.Compare(a.Offset, b.Offset); c != 0 {
					return c
				}
				return cmp.Compare(a.Skip, b.Skip)
			})
			if err := fn(a.root.Files[row], vs); err != nil {
				return err
			}
		}
	}
	return nil
}

// sourcePaths maps the file paths the catalog's versions name to the row
// of the input-file table each belongs to. The catalog names files by the
// path given to ingest, the table by the name rowName finds at the end
// of that path (inputNames). Archives written before names had
// directories may hold two rows of one base name (inputs from two
// directories): their paths are told apart by the rows' record and gap
// counts. A path of no row (an ingest interrupted before its final
// commit) is left out. One pass over the catalog, memory per distinct
// path.
func (a *Archive) sourcePaths() (map[string]int, error) {
	type counts struct{ recs, gaps int64 }
	seen := map[string]*counts{}
	err := a.walk(func(u URLVersions) error {
		for i := range u.Versions {
			v := &u.Versions[i]
			c := seen[v.File]
			if c == nil {
				c = &counts{}
				seen[v.File] = c
			}
			if v.Gap {
				c.gaps++
			} else {
				c.recs++
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rows := map[string][]int{} // name → rows
	names := map[string]bool{}
	for row, f := range a.root.Files {
		rows[f.Name] = append(rows[f.Name], row)
		names[f.Name] = true
	}
	byName := map[string][]string{} // name → paths
	for p := range seen {
		if n := rowName(p, names); n != "" {
			byName[n] = append(byName[n], p)
		}
	}
	out := map[string]int{}
	for n, paths := range byName {
		slices.Sort(paths)
		for _, row := range rows[n] {
			f := a.root.Files[row]
			cands := paths
			if len(cands) > 1 && f.Records >= 0 {
				for _, p := range cands {
					if c := seen[p]; c.recs == f.Records && c.gaps == f.Gaps {
						cands = []string{p}
						break
					}
				}
			}
			if len(cands) == 0 {
				continue
			}
			if _, taken := out[cands[0]]; !taken {
				out[cands[0]] = row
				paths = slices.DeleteFunc(paths, func(p string) bool { return p == cands[0] })
			}
		}
	}
	return out, nil
}

// SourceStats counts what WriteSource wrote.
type SourceStats struct {
	Records int64 // records written
	Gaps    int64 // gap pieces written
	Bytes   int64 // bytes written: the decompressed stream
	// SHA256 is the SHA-256 of the bytes written; Exact says it equals
	// the file's StreamSHA256 recorded at ingest (and the length its
	// StreamLen). Exact is false when the archive does not know the
	// stream (files ingested before catalog version 5) or the file is not
	// Rebuildable.
	SHA256 [32]byte
	Exact  bool
}

// WriteSource restores the versions of f (from WalkSources) in order and
// writes them to w: the file's decompressed stream. When clean is set,
// gaps are left out and so is every record that does not parse as one
// well-formed record (a truncated or clipped block, a bad header): what
// other WARC readers stop at. A record that does not restore is an
// error naming the file and offset.
func (a *Archive) WriteSource(w io.Writer, f InputFile, vs []Version, clean func(rec []byte) bool) (SourceStats, error) {
	return a.streamSource(w, f, vs, clean, nil)
}

// streamSource is WriteSource; visit, when set, is called with every
// version restored (its record's bytes in rec, built once for visit and
// the stream) or failing to restore (err), and its error stops the
// stream — returning nil goes on without the version's bytes, so that
// verify can name every damaged record of a file, each restored once.
func (a *Archive) streamSource(w io.Writer, f InputFile, vs []Version, clean func(rec []byte) bool,
	visit func(v *Version, p *Parts, rec []byte, err error) error) (SourceStats, error) {
	var st SourceStats
	h := sha256.New()
	for i := range vs {
		v := &vs[i]
		if clean != nil && v.Gap {
			continue
		}
		p, err := a.Restore(v)
		var rec []byte
		if p != nil {
			rec = p.Record()
		}
		if visit != nil {
			if err = visit(v, p, rec, err); err != nil {
				return st, err
			}
			if p == nil {
				continue
			}
		} else if err != nil {
			return st, err
		}
		if clean != nil && !clean(rec) {
			continue
		}
		if v.Gap {
			st.Gaps++
		} else {
			st.Records++
		}
		h.Write(rec)
		n, err := w.Write(rec)
		st.Bytes += int64(n)
		if err != nil {
			return st, err
		}
	}
	h.Sum(st.SHA256[:0])
	st.Exact = clean == nil && f.Rebuildable && f.StreamLen == st.Bytes && f.StreamSHA256 == st.SHA256
	return st, nil
}
