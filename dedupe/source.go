package dedupe

import (
	"cmp"
	"crypto/sha256"
	"io"
	"path/filepath"
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
	var want []InputFile
	for _, f := range a.root.Files {
		if names == nil || slices.Contains(names, f.Name) {
			want = append(want, f)
		}
	}
	for len(want) > 0 {
		n, size := 0, int64(0)
		for n < len(want) && (n == 0 || size+max(want[n].Records, 0)+want[n].Gaps <= sourceBatch) {
			size += max(want[n].Records, 0) + want[n].Gaps
			n++
		}
		batch := want[:n]
		want = want[n:]
		byName := map[string]bool{}
		for _, f := range batch {
			byName[f.Name] = true
		}
		byPath := map[string][]Version{}
		err := a.walk(func(u URLVersions) error {
			for _, v := range u.Versions {
				if byName[filepath.Base(v.File)] {
					byPath[v.File] = append(byPath[v.File], v)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, f := range batch {
			vs := sourceOf(f, byPath)
			slices.SortFunc(vs, func(a, b Version) int {
				if c := cmp.Compare(a.Offset, b.Offset); c != 0 {
					return c
				}
				return cmp.Compare(a.Skip, b.Skip)
			})
			if err := fn(f, vs); err != nil {
				return err
			}
		}
	}
	return nil
}

// sourceOf picks the versions of f among those gathered by path: the
// catalog names files by the path given to ingest, the input table by
// base name. Two inputs of one base name (from different directories)
// are told apart by their record and gap counts.
func sourceOf(f InputFile, byPath map[string][]Version) []Version {
	var paths []string
	for p := range byPath {
		if filepath.Base(p) == f.Name {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	if len(paths) > 1 && f.Records >= 0 {
		for _, p := range paths {
			recs, gaps := int64(0), int64(0)
			for _, v := range byPath[p] {
				if v.Gap {
					gaps++
				} else {
					recs++
				}
			}
			if recs == f.Records && gaps == f.Gaps {
				return byPath[p]
			}
		}
	}
	if len(paths) == 0 {
		return nil
	}
	return byPath[paths[0]]
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
	var st SourceStats
	h := sha256.New()
	for i := range vs {
		v := &vs[i]
		if clean != nil && v.Gap {
			continue
		}
		p, err := a.Restore(v)
		if err != nil {
			return st, err
		}
		rec := p.Record()
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
