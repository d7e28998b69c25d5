package dedupe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/partition"
	"github.com/blockwarc/blockwarc/warcio"
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

func reingestObjects(ctx context.Context, dir string, originals []string, opts pack.Options) (ReingestResult, error) {
	var res ReingestResult
	opts.Plain = true
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
	payload := s.Payload()
	r, err := decodeRoot(payload)
	if err != nil {
		return res, fmt.Errorf("open catalog of %s: %w", dir, err)
	}
	// A part of the input-file table that still does not read was named
	// by recoverFileRows; the originals of its rows are refused below.
	_ = r.loadReadable(s)
	// A catalog segment names most objects by a prefix of their id, which
	// the indexes resolve: the prefix of an object the archive lost
	// resolves to nothing, and reads as the prefix and zeros
	// (lostResolver). An object put back is matched by its prefix.
	prefixes := map[pack.ID]int{} // such ids → prefix length
	resolve := lostResolver(s, func(id pack.ID, n int) { prefixes[id] = n })
	put := map[pack.ID]bool{} // ids and prefix placeholders put back
	places := lostPlaces{s: s, read: map[pack.ID]error{}}
	has := func(id pack.ID) bool {
		if put[id] {
			return true
		}
		if _, ok := id.Place(); ok {
			// Never put back: its segment is re-ingested.
			return places.readable(id)
		}
		if _, ok := prefixes[id]; ok {
			return false
		}
		ok, err := w.Has(id)
		return err == nil && ok
	}
	// 1. The lost versions, the objects they lack, and every version of
	// their URLs by run (a run is one ingest: a page's Prior is the
	// URL's previous page of the same run).
	needed := map[pack.ID]bool{}
	lostKeys := map[string]bool{}
	var lost []Version
	type entry struct {
		key string
		vs  []Version
	}
	var entries []entry
	var keys []string // lostKeys, for the second pass
	for pass := 0; pass < 2; pass++ {
		for _, run := range r.Runs {
			for _, ref := range run {
				if pass == 1 && !slices.ContainsFunc(keys, func(k string) bool { return k >= ref.First && k <= ref.Last }) {
					continue
				}
				seg, _, err := s.Get(ref.ID)
				var urls []URLVersions
				if err == nil {
					urls, err = decodeSegment(seg, resolve)
				}
				if err != nil {
					continue // recoverSegments
				}
				for _, u := range urls {
					if pass == 1 {
						if lostKeys[u.Key] {
							entries = append(entries, entry{u.Key, u.Versions})
						}
						continue
					}
					for i := range u.Versions {
						v := &u.Versions[i]
						missing := false
						for _, id := range objectsOf(v) {
							if !has(id) {
								needed[id], missing = true, true
							}
						}
						if !missing && places.restores(v) != nil {
							// Its places read, but not as its record:
							// its segment is re-ingested.
							missing = true
						}
						if missing {
							lost = append(lost, *v)
							lostKeys[u.Key] = true
						}
					}
				}
			}
		}
		if len(lost) == 0 {
			break
		}
		for k := range lostKeys {
			keys = append(keys, k)
		}
	}
	commit := func() error {
		if res.Objects == 0 {
			return nil
		}
		if err := w.Commit(payload); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		return nil
	}
	if len(lost) == 0 {
		return res, commit()
	}
	res.Lost = len(lost)
	for _, v := range lost {
		res.lostAt = append(res.lostAt, place{v.File, v.Offset, v.Skip})
	}

	// 2. The originals: matched to the recorded input files by content
	// (size and SHA-256), and checked. Places are keyed by the rows'
	// names from here on: the catalog's paths are those ingest was
	// given, the originals' those repair is given.
	byName, refused, err := matchOriginals(ctx, originals, r.Files)
	if err != nil {
		return res, err
	}
	nameOf := fileNames(r.Files)
	rowOf := map[string]string{} // original's path → row name
	for n, p := range byName {
		rowOf[p] = n
	}
	res.Refused = refused
	wanted := map[place]*Version{}
	for i := range entries {
		for j := range entries[i].vs {
			v := &entries[i].vs[j]
			wanted[place{nameOf(v.File), v.Offset, v.Skip}] = v
		}
	}
	missing := map[string]bool{}
	for _, v := range lost {
		if b := nameOf(v.File); byName[b] == "" && !missing[b] {
			missing[b] = true
			res.Missing = append(res.Missing, v.File)
		}
	}

	// 3. The objects of each record, cut as the model cuts them; those
	// the archive needs are put back.
	lens := map[int]bool{}
	for _, n := range prefixes {
		lens[n] = true
	}
	offer := func(kind pack.Kind, data []byte) error {
		id := s.Sum(data)
		keys := []pack.ID{id}
		for n := range lens {
			var ph pack.ID
			copy(ph[:n], id[:n])
			keys = append(keys, ph)
		}
		if !slices.ContainsFunc(keys, func(k pack.ID) bool { return needed[k] }) {
			return nil
		}
		if _, _, err := w.Add(kind, data); err != nil {
			return fmt.Errorf("put back object %s: %w", id, err)
		}
		for _, k := range keys {
			if needed[k] {
				delete(needed, k)
				put[k] = true
			}
		}
		res.Objects++
		return nil
	}
	type record struct{ header, block []byte }
	got := map[*Version]record{}
	byKey := map[string][]int{} // entries by URL key
	for i, e := range entries {
		byKey[e.key] = append(byKey[e.key], i)
	}
	part := partition.NewPartitioner()
	flush := func(key string) error {
		defer clear(got)
		for _, i := range byKey[key] {
			var prior *partition.Result // the URL's previous page in this run
			for j := range entries[i].vs {
				v := &entries[i].vs[j]
				rec, ok := got[v]
				if !ok {
					if v.Mode == modeHTTP && v.Form == formBlocks {
						prior = nil // unknown: the next page is tried without
					}
					continue
				}
				next, err := reingestRecord(v, rec.header, rec.block, prior, part, s.Sum, offer)
				if err != nil {
					return err
				}
				if v.Mode == modeHTTP && v.Form == formBlocks {
					prior = next
				}
			}
		}
		return nil
	}

	// 4. The records, read again from the originals as ingest walks them
	// (gaps included), each checked against its recorded CRC-32C. The
	// walk yields the captures of one URL key together, in all files: a
	// key's records are held until the next key starts.
	var files []string
	for _, p := range byName {
		files = append(files, p)
	}
	slices.Sort(files)
	files = slices.Compact(files)
	found := map[place]bool{}
	cur, started := "", false
	_, err = warcio.Walk(ctx, files, warcio.WalkOptions{
		TempDir: dir, Reader: warcio.Options{Digests: true, Policy: warcio.PolicyWarn}, Gaps: true,
		// Only the lost captures' URLs are kept and sorted.
		Select: func(key string) bool { return byKey[key] != nil },
	}, func(c *warcio.Capture) error {
		if !started || c.Key != cur {
			if started {
				if err := flush(cur); err != nil {
					return err
				}
			}
			cur, started = c.Key, true
		}
		at := place{rowOf[c.File], c.Offset, c.SkipInMember}
		v := wanted[at]
		if v == nil || v.Gap != c.Gap {
			return nil
		}
		found[at] = true
		block, err := warcio.ReadBlock(c.Body, c.ContentLen, maxJobBytes)
		if err != nil {
			res.Unread = append(res.Unread, fmt.Sprintf("%s at offset %d: %v", c.File, c.Offset, err))
			return nil
		}
		crc := crc32.Update(crc32.Checksum(c.RawHeader, castagnoli), castagnoli, block)
		if crc = crc32.Update(crc, castagnoli, c.Trailer); crc != v.CRC || !bytes.Equal(c.Trailer, v.Trailer) {
			res.Unread = append(res.Unread, fmt.Sprintf("%s at offset %d: not the record ingested there (CRC-32C %08x, recorded %08x)", c.File, c.Offset, crc, v.CRC))
			return nil
		}
		got[v] = record{bytes.Clone(c.RawHeader), block}
		return nil
	})
	if err == nil && started {
		err = flush(cur)
	}
	if err != nil {
		return res, fmt.Errorf("read originals: %w", err)
	}
	for i := range lost {
		v := &lost[i]
		at := place{nameOf(v.File), v.Offset, v.Skip}
		if p := byName[at.file]; p != "" && !found[at] {
			res.Unread = append(res.Unread, fmt.Sprintf("%s at offset %d: no record there", p, v.Offset))
		}
	}
	if err := commit(); err != nil {
		return res, err
	}
	for i := range lost {
		if !slices.ContainsFunc(objectsOf(&lost[i]), func(id pack.ID) bool { return !has(id) }) {
			res.Restored++
		}
	}
	return res, nil
}

// reingestRecord offers put every object the model can have cut the
// record of v into: the record whole (raw), its block, its headers as
// anchors, its payload whole and, for a page stored as blocks, the layout
// and blocks of its partition at the version's level, with prior as
// Prior and without. It returns the partition that gives v's layout (the
// next page's Prior).
func reingestRecord(v *Version, header, block []byte, prior *partition.Result, part *partition.Partitioner, sum func([]byte) pack.ID, put func(pack.Kind, []byte) error) (*partition.Result, error) {
	if v.Gap {
		return nil, put(pack.KindRecord, block)
	}
	if err := errors.Join(
		put(pack.KindRecord, append(bytes.Clone(header), block...)),
		put(pack.KindRecord, block),
		put(pack.KindWARCHeader, anchorObject(header)),
	); err != nil {
		return nil, err
	}
	m, httpLen := httpMessage(v.Type, block)
	if m == nil {
		return nil, nil
	}
	payload := block[httpLen:]
	if err := errors.Join(
		put(pack.KindHTTPHeader, anchorObject(block[:httpLen])),
		put(pack.KindPayload, payload),
	); err != nil {
		return nil, err
	}
	if v.Mode != modeHTTP || v.Form != formBlocks {
		return nil, nil
	}
	doc := payload
	if v.Framing != nil {
		dc, err := io.ReadAll(warcio.NewDechunker(bytes.NewReader(doc)))
		if err != nil {
			return nil, nil // not the payload ingest de-chunked: its ids will not match
		}
		doc = dc
	}
	if v.Coding != nil {
		cr, err := warcio.DecodeContent(bytes.NewReader(doc), m.ContentEncodings(), 0)
		if err != nil {
			return nil, nil
		}
		if doc, err = io.ReadAll(cr); err != nil {
			return nil, nil
		}
	}
	// Ingest partitioned with the URL's previous page as Prior; that page
	// may be unknown here (not read again), or the first of its run.
	tries := []*partition.Result{prior}
	if prior != nil {
		tries = append(tries, nil)
	}
	var found *partition.Result
	for _, pr := range tries {
		res, err := part.Partition(doc, storedPageOptions(m, v.Level, v.TargetURI, pr))
		if err != nil {
			continue
		}
		lay := res.Layout.Encode()
		for _, b := range res.Leaves {
			if err := put(pack.KindBlock, res.BlockBytes(b)); err != nil {
				return nil, err
			}
		}
		if err := put(pack.KindLayout, lay); err != nil {
			return nil, err
		}
		if found == nil {
			found = res
		}
		if sum(lay) == v.Layout {
			found = res
			break
		}
	}
	return found, nil
}

// matchOriginals maps the names of the input files the archive recorded
// to the originals given for them: an original is the file of every row
// of its size and SHA-256, whatever its path (two inputs of one base
// name, from two directories, are told apart so); refused says why the
// others are not used.
func matchOriginals(ctx context.Context, originals []string, files []InputFile) (byName map[string]string, refused []string, err error) {
	paths, err := expandInputs(originals)
	if err != nil {
		return nil, nil, err
	}
	nameOf := fileNames(files)
	byName = map[string]string{}
	for _, p := range paths {
		in, err := hashFile(ctx, p, nil)
		if err != nil {
			return nil, nil, err
		}
		var named *InputFile
		matched := false
		for i := range files {
			f := &files[i]
			if f.Size == in.Size && f.SHA256 == in.SHA256 {
				byName[f.Name] = p
				matched = true
			}
			if f.Name == nameOf(p) {
				named = f
			}
		}
		switch {
		case matched:
		case named == nil:
			refused = append(refused, fmt.Sprintf("%s: the archive has no input file of that name or content (%d bytes, SHA-256 %x)", p, in.Size, in.SHA256))
		default:
			refused = append(refused, fmt.Sprintf("%s: differs from the file ingested under that name (%d bytes, SHA-256 %x; the archive recorded %d bytes, %x)", p, in.Size, in.SHA256, named.Size, named.SHA256))
		}
	}
	return byName, refused, nil
}

// fileNames returns the function that names the input-file row a path
// belongs to (rowName), or the path's base name when no row's name ends
// it (a row lost with its part of the table).
func fileNames(files []InputFile) func(path string) string {
	names := map[string]bool{}
	for _, f := range files {
		names[f.Name] = true
	}
	return func(p string) string {
		if n := rowName(p, names); n != "" {
			return n
		}
		return filepath.Base(p)
	}
}

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

// lostPlaces checks the versions of catalog segments that name objects
// by place.
type lostPlaces struct {
	s    *pack.Store
	read map[pack.ID]error
}

// check returns an error naming the first version of urls that names an
// object by place and does not restore.
func (lp *lostPlaces) check(urls []URLVersions) error {
	for _, u := range urls {
		for i := range u.Versions {
			if err := lp.restores(&u.Versions[i]); err != nil {
				return fmt.Errorf("it names objects by place, and the record %s at %d does not restore: %w", u.Versions[i].File, u.Versions[i].Offset, err)
			}
		}
	}
	return nil
}

// restores returns why v, when it names an object by place, does not
// restore, its CRC-32C included: a place does not prove its bytes as a
// hash does, and once repair has dropped a lost frame of chunks a later
// ingest may give its numbers to new chunks, so that the old place reads
// another object. nil for a version that names none.
func (lp *lostPlaces) restores(v *Version) error {
	if !slices.ContainsFunc(objectsOf(v), func(id pack.ID) bool { _, ok := id.Place(); return ok }) {
		return nil
	}
	_, err := restore(v, func(id pack.ID) ([]byte, error) {
		b, _, err := lp.s.Get(id)
		return b, err
	})
	return err
}

// get reads an object named by place once and returns why it does not
// read; nil for other ids.
func (lp *lostPlaces) get(id pack.ID) error {
	if _, ok := id.Place(); !ok {
		return nil
	}
	err, seen := lp.read[id]
	if !seen {
		_, _, err = lp.s.Get(id)
		lp.read[id] = err
	}
	return err
}

// readable reports whether every one of ids reads: objects named by
// place are read, others looked up.
func (lp *lostPlaces) readable(ids ...pack.ID) bool {
	for _, id := range ids {
		if _, ok := id.Place(); ok {
			if lp.get(id) != nil {
				return false
			}
		} else if id != (pack.ID{}) {
			if ok, err := lp.s.Has(id); err != nil || !ok {
				return false
			}
		}
	}
	return true
}

// place is where a record was in its input file, by the file's base name
// (originals are matched by base name).
type place struct {
	file      string
	off, skip int64
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
