package dedupe

import (
	"context"
	"fmt"

	"github.com/blockwarc/blockwarc/dedupe/pack"
)

// ReingestResult says what Reingest did.
type ReingestResult struct {
	Lost     int // captures (and gaps) that lacked objects before
	Restored int // of them, those that lack none after
	Objects  int // objects put back
	// Refused names the originals not used, and why (a file that differs
	// from the one ingested under its name); Unread the records of the
	// originals that could not be used (not found at their recorded
	// offset, or different from the record ingested there); Missing the
	// input files of lost captures no original was given for.
	Refused, Unread, Missing []string
	// Unlisted names the catalog segments that do not read and were not
	// re-ingested, by key range and the input files that held their
	// records, and the parts of the input-file table that do not read
	// (their files' originals are then refused); Recovered the segments
	// whose records were re-ingested.
	Unlisted, Recovered []string

	// lostAt are the places of the lost captures, to count at the end
	// those that restore (objects named by place come back with their
	// segments, recoverSegments).
	lostAt []place
}

// Reingest puts back, from the original input files, the objects the
// captures of the archive in dir need and the archive lacks. Where a
// capture's catalog version names its objects by id, the hash of their
// bytes, the catalog is not rewritten: reading the record again from its
// file and cutting it as ingest's model does (model.go) gives objects
// with exactly those ids. An object named by place cannot be put back
// (its place is a chunk number, taken): a catalog segment that names one
// that does not read is re-ingested whole, like a segment that does not
// read (recoverSegments), and its captures name new objects. Call it after pack.RebuildIndexes, so that no index names an
// object whose frame does not read (the writer would take it as stored).
//
// An original is used only when its base name, size and SHA-256 are
// those of an input file the archive recorded, and each record read from
// it only when it matches the CRC-32C recorded for its capture. Header
// anchors are raw headers of an earlier capture of the same URL and type,
// and a page's partition depends on the URL's previous page in the same
// ingest (partition.Options.Prior): every capture of a URL with a lost
// capture is read again, from the originals given. The objects put back
// are stored whole (no chunks, no delta bases): they then depend on no
// other frame.
//
// A catalog segment that does not read is re-ingested whole
// (recoverSegments) once the objects are back.
func Reingest(ctx context.Context, dir string, originals []string, opts pack.Options) (ReingestResult, error) {
	return ReingestWith(ctx, dir, originals, opts, ReingestOptions{})
}

// ReingestOptions are the settings of the ingests that wrote an archive
// that the input-file rows Reingest computes again depend on: a shard
// (shard.ReingestShard) counts only the records of its keys and, but for
// shard 0, learns no compressed originals. Rows computed otherwise would
// differ from those ingest wrote (a shard's Records the whole file's).
type ReingestOptions struct {
	Select       func(key string) bool // Options.Select
	SkipOriginal bool                  // Options.SkipOriginal
}

// ReingestWith is Reingest of an archive ingested with ro's settings.
func ReingestWith(ctx context.Context, dir string, originals []string, opts pack.Options, ro ReingestOptions) (ReingestResult, error) {
	// An archive written without parity gets none from a repair either:
	// sidecars beside files without any would be named missing parity.
	if pack.WithoutParity(dir) {
		opts.NoParity = true
	}
	// The input-file rows first: they check the originals used below.
	var rows ReingestResult
	if err := recoverFileRows(ctx, dir, originals, opts, ro, &rows); err != nil {
		return rows, err
	}
	res, err := reingestObjects(ctx, dir, originals, opts)
	res.Refused = append(rows.Refused, res.Refused...)
	res.Unlisted = append(rows.Unlisted, res.Unlisted...)
	res.Recovered = append(rows.Recovered, res.Recovered...)
	if err != nil {
		return res, err
	}
	if err := recoverSegments(ctx, dir, originals, opts, &res); err != nil {
		return res, err
	}
	if len(res.lostAt) > 0 {
		res.Restored, err = countRestored(dir, opts, res.lostAt)
	}
	return res, err
}

// countRestored counts the captures at the places given whose every
// version in the catalog now has all its objects.
func countRestored(dir string, opts pack.Options, at []place) (int, error) {
	s, err := pack.Open(dir, opts)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	r, err := decodeRoot(s.Payload())
	if err != nil {
		return 0, fmt.Errorf("open catalog of %s: %w", dir, err)
	}
	ok := map[place]bool{}
	for _, p := range at {
		ok[p] = false
	}
	bad := map[place]bool{}
	objs := lostPlaces{s: s, read: map[pack.ID]error{}}
	eachSegment(s, r, func(_ segRef, urls []URLVersions, err error) {
		if err != nil {
			return
		}
		for _, u := range urls {
			for i := range u.Versions {
				v := &u.Versions[i]
				p := place{v.File, v.Offset, v.Skip}
				if _, want := ok[p]; !want {
					continue
				}
				if objs.readable(objectsOf(v)...) && objs.restores(v) == nil {
					ok[p] = true
				} else {
					bad[p] = true
				}
			}
		}
	})
	n := 0
	for p, good := range ok {
		if good && !bad[p] {
			n++
		}
	}
	return n, nil
}

// place is where a record was in its input file, by the file's base name
// (originals are matched by base name).
type place struct {
	file      string
	off, skip int64
}
