package report

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
)

// TablesDir is the archive subdirectory of the derived tables, left out of
// the archive bytes: deleting it loses nothing.
const TablesDir = "tables"

// Report returns the report: the figures of the rows received so far plus
// the archive-level ones of a, opened from dir — input files, archive
// bytes, bytes by category and the records of the catalog.
func (g *Aggregator) Report(dir string, a *dedupe.Archive) (*Report, error) {
	r := &Report{Archive: dir}
	g.fill(r)

	known := true
	var read, malformed int64
	for _, f := range a.Files() {
		r.InputFiles++
		r.InputBytes += f.Size
		r.Inputs.add(f)
		if f.Records < 0 || f.Malformed < 0 {
			known = false
		}
		read += f.Records
		malformed += f.Malformed
	}
	if known {
		r.Records.Read, r.Records.Malformed = &read, &malformed
	}

	size, err := ArchiveBytes(dir)
	if err != nil {
		return nil, err
	}
	r.ArchiveBytes = size
	r.SavedBytes = r.InputBytes - r.ArchiveBytes
	r.Saving = saving(r.ArchiveBytes, r.InputBytes)
	if r.ArchiveBytes > 0 {
		f := float64(r.InputBytes) / float64(r.ArchiveBytes)
		r.Ratio = &f
	}

	r.apportionHosts()

	inline, err := walkCatalog(a, &r.Records)
	if err != nil {
		return nil, err
	}
	st, err := a.StoreStats()
	if err != nil {
		return nil, fmt.Errorf("read store stats: %w", err)
	}
	r.Categories = categories(st, inline, r.ArchiveBytes)
	if err := r.alternatives(dir, nil); err != nil {
		return nil, err
	}
	return r, nil
}

// apportionHosts gives each host (and the non-HTTP records) its share of
// the headline's bytes, so that its saving is on the headline's basis:
// input_bytes in proportion to the host's record_bytes (its capture
// records as stored in the input), archive_bytes in proportion to its
// added_bytes (the plaintext of the objects its captures first brought).
// The archive cannot say exactly which on-disk bytes a host costs: a frame
// compresses objects of several hosts together and the pack exposes no
// object's frame, so the archive-wide ratio stands in for each frame's.
// What no capture brings (request and warcinfo records, the catalog, the
// index) is spread over the hosts the same way.
func (r *Report) apportionHosts() {
	var rec, added int64
	hs := make([]*Host, 0, len(r.Hosts)+1)
	for i := range r.Hosts {
		hs = append(hs, &r.Hosts[i])
	}
	if r.OtherHosts != nil {
		hs = append(hs, r.OtherHosts)
	}
	for _, h := range hs {
		rec += h.RecordBytes
		added += h.AddedBytes
	}
	rec += r.NonHTTP.RecordBytes
	added += r.NonHTTP.AddedBytes
	share := func(total, part, whole int64) int64 {
		if whole <= 0 {
			return 0
		}
		return int64(math.Round(float64(total) * float64(part) / float64(whole)))
	}
	for _, h := range hs {
		h.InputBytes = share(r.InputBytes, h.RecordBytes, rec)
		h.StoredBytes = share(r.ArchiveBytes, h.AddedBytes, added)
		h.Saving = saving(h.StoredBytes, h.InputBytes)
	}
	r.NonHTTP.InputBytes = share(r.InputBytes, r.NonHTTP.RecordBytes, rec)
	r.NonHTTP.StoredBytes = share(r.ArchiveBytes, r.NonHTTP.AddedBytes, added)
}

// ArchiveBytes sums the sizes of the regular files under dir except
// tables/ (derived data): what the archive costs on disk, as the report's
// headline and ingest's summary give it.
func ArchiveBytes(dir string) (int64, error) {
	n, err := sumFiles(dir, true)
	if err != nil {
		return 0, fmt.Errorf("size archive %s: %w", dir, err)
	}
	return n, nil
}

// sumFiles sums the sizes of the regular files under root; with
// skipTables, root's tables/ directory is left out.
func sumFiles(root string, skipTables bool) (total int64, err error) {
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skipTables && path != root && d.Name() == TablesDir && filepath.Dir(path) == filepath.Clean(root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while walking (a temp file)
			}
			return err
		}
		total += fi.Size()
		return nil
	})
	return total, err
}

// inlineBytes are the plaintext bytes the catalog holds inline: header
// encodings (dedupe.Version.WARCHeader, HTTPHeader) and the small blocks
// of records stored "inline".
type inlineBytes struct{ warc, http, blocks int64 }

// walkCatalog counts the records of the catalog by type and storage and
// sums the bytes held inline.
func walkCatalog(a *dedupe.Archive, rec *Records) (inlineBytes, error) {
	var in inlineBytes
	types := map[string]int64{}
	storage := map[Storage]int64{}
	err := a.Walk(func(u dedupe.URLVersions) error {
		for i := range u.Versions {
			v := &u.Versions[i]
			rec.Stored++
			types[v.Type]++
			st := v.Storage()
			storage[Storage{StoredAs: st.How.String(), StoredWhy: st.Why.String()}]++
			in.warc += int64(len(v.WARCHeader))
			in.http += int64(len(v.HTTPHeader))
			in.blocks += int64(v.InlineLen())
		}
		return nil
	})
	if err != nil {
		return in, fmt.Errorf("walk catalog: %w", err)
	}
	rec.ByType = countList(types)
	rec.Storage = storageList(storage)
	return in, nil
}

// categories splits the archive bytes. Objects are counted by kind from
// the store's account. The catalog's stored bytes are split between what
// it holds inline (header encodings, small blocks) and the rest (index and
// metadata) by plaintext share — the catalog is compressed as a whole, so this is an
// apportioning, not a measurement. Frame headers, index files and commits
// are index and metadata, and so are parity sidecars (redundancy for
// all of the archive's files, docs/FORMAT.md "Parity"); files that are none of those (a lock, an
// uncommitted pack tail) are other_files.
func categories(st pack.Stats, in inlineBytes, archive int64) []Category {
	k := func(kind pack.Kind) pack.KindStats { return st.Kinds[kind] }
	var sumStored int64
	for _, ks := range st.Kinds {
		sumStored += ks.Stored
	}
	cat := k(pack.KindVersionCatalog)
	share := func(part int64) int64 {
		if cat.Plain <= 0 || part <= 0 {
			return 0
		}
		return int64(float64(cat.Stored) * float64(min(part, cat.Plain)) / float64(cat.Plain))
	}
	warcIn, httpIn, blocksIn := share(in.warc), share(in.http), share(in.blocks)
	if warcIn+httpIn+blocksIn > cat.Stored { // rounding, or inline bytes over the catalog's plaintext
		blocksIn = max(cat.Stored-warcIn-httpIn, 0)
		httpIn = min(httpIn, cat.Stored-warcIn)
	}
	wh, hh, lay, blk := k(pack.KindWARCHeader), k(pack.KindHTTPHeader), k(pack.KindLayout), k(pack.KindBlock)
	pay, rec, oth := k(pack.KindPayload), k(pack.KindRecord), k(pack.KindOther)
	frameOverhead := max(st.PackBytes-sumStored, 0)
	cs := []Category{
		{Name: CatWARCHeaders, StoredBytes: wh.Stored + warcIn, PlainBytes: wh.Plain + in.warc, Objects: wh.Objects},
		{Name: CatHTTPHeaders, StoredBytes: hh.Stored + httpIn, PlainBytes: hh.Plain + in.http, Objects: hh.Objects},
		{Name: CatLayouts, StoredBytes: lay.Stored, PlainBytes: lay.Plain, Objects: lay.Objects},
		{Name: CatBlocks, StoredBytes: blk.Stored - blk.DeltaStored, PlainBytes: blk.Plain - blk.DeltaPlain, Objects: blk.Objects - blk.DeltaObjects},
		{Name: CatBlockDeltas, StoredBytes: blk.DeltaStored, PlainBytes: blk.DeltaPlain, Objects: blk.DeltaObjects},
		{Name: CatOtherPayloads, StoredBytes: pay.Stored + rec.Stored + oth.Stored + blocksIn, PlainBytes: pay.Plain + rec.Plain + oth.Plain + in.blocks, Objects: pay.Objects + rec.Objects + oth.Objects},
		{Name: CatIndexMetadata,
			StoredBytes: cat.Stored - warcIn - httpIn - blocksIn + frameOverhead + st.IndexBytes + st.CommitBytes + st.ParityBytes,
			PlainBytes:  max(cat.Plain-in.warc-in.http-in.blocks, 0), Objects: cat.Objects},
	}
	var sum int64
	for _, c := range cs {
		sum += c.StoredBytes
	}
	cs = append(cs, Category{Name: CatOtherFiles, StoredBytes: max(archive-sum, 0)})
	for i := range cs {
		if archive > 0 {
			cs[i].Share = float64(cs[i].StoredBytes) / float64(archive)
		}
	}
	return cs
}
