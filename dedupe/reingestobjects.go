package dedupe

import (
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"slices"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/partition"
	"github.com/blockwarc/blockwarc/warcio"
)

// objectReingest is one run of reingestObjects: the archive open for
// writing, the objects its catalog names and it lacks, the captures that
// lack them, and what the originals gave back. Its steps, in order:
// findLost, matchOriginals, readOriginals (which cuts each record again,
// reingestKey, and offers its objects, offer), commit, countRestored.
type objectReingest struct {
	s       *pack.Store
	w       *pack.Writer
	payload []byte // the catalog root, committed unchanged
	r       *root
	res     ReingestResult

	// A catalog segment names most objects by a prefix of their id, which
	// the indexes resolve: the prefix of an object the archive lost
	// resolves to nothing, and reads as the prefix and zeros
	// (lostResolver). An object put back is matched by its prefix.
	prefixes map[pack.ID]int  // such ids → prefix length
	put      map[pack.ID]bool // ids and prefix placeholders put back
	places   lostPlaces

	// findLost: the objects needed, the lost versions, and every version
	// of their URLs by run.
	needed  map[pack.ID]bool
	lost    []Version
	entries []lostEntry
	byKey   map[string][]int // entries by URL key

	// matchOriginals: places are keyed by the rows' names from there on.
	byName map[string]string        // row name → original's path
	rowOf  map[string]string        // original's path → row name
	nameOf func(path string) string // a catalog path → its row's name
	wanted map[place]*Version
	lens   map[int]bool // the prefix lengths of prefixes
}

// lostEntry is every version of a URL with a lost capture, in one run (a
// run is one ingest: a page's Prior is the URL's previous page of the
// same run).
type lostEntry struct {
	key string
	vs  []Version
}

// reingestRecordBytes is a record read again from its original.
type reingestRecordBytes struct{ header, block []byte }

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
	ri := &objectReingest{s: s, w: w, payload: s.Payload(),
		prefixes: map[pack.ID]int{}, put: map[pack.ID]bool{},
		places: lostPlaces{s: s, read: map[pack.ID]error{}}}
	if ri.r, err = decodeRoot(ri.payload); err != nil {
		return ri.res, fmt.Errorf("open catalog of %s: %w", dir, err)
	}
	// A part of the input-file table that still does not read was named
	// by recoverFileRows; the originals of its rows are refused below.
	_ = ri.r.loadReadable(s)
	ri.findLost()
	if len(ri.lost) == 0 {
		return ri.res, ri.commit()
	}
	ri.res.Lost = len(ri.lost)
	for _, v := range ri.lost {
		ri.res.lostAt = append(ri.res.lostAt, place{v.File, v.Offset, v.Skip})
	}
	if err := ri.matchOriginals(ctx, originals); err != nil {
		return ri.res, err
	}
	if err := ri.readOriginals(ctx, dir); err != nil {
		return ri.res, err
	}
	if err := ri.commit(); err != nil {
		return ri.res, err
	}
	ri.countRestored()
	return ri.res, nil
}

// has reports whether the archive holds id, or it was put back.
func (ri *objectReingest) has(id pack.ID) bool {
	if ri.put[id] {
		return true
	}
	if _, ok := id.Place(); ok {
		// Never put back: its segment is re-ingested.
		return ri.places.readable(id)
	}
	if _, ok := ri.prefixes[id]; ok {
		return false
	}
	ok, err := ri.w.Has(id)
	return err == nil && ok
}

// findLost is step 1: the lost versions, the objects they lack, and
// every version of their URLs by run.
func (ri *objectReingest) findLost() {
	resolve := lostResolver(ri.s, func(id pack.ID, n int) { ri.prefixes[id] = n })
	ri.needed = map[pack.ID]bool{}
	lostKeys := map[string]bool{}
	var keys []string // lostKeys, for the second pass
	for pass := 0; pass < 2; pass++ {
		for _, run := range ri.r.Runs {
			for _, ref := range run {
				if pass == 1 && !slices.ContainsFunc(keys, func(k string) bool { return k >= ref.First && k <= ref.Last }) {
					continue
				}
				seg, _, err := ri.s.Get(ref.ID)
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
							ri.entries = append(ri.entries, lostEntry{u.Key, u.Versions})
						}
						continue
					}
					for i := range u.Versions {
						v := &u.Versions[i]
						missing := false
						for _, id := range objectsOf(v) {
							if !ri.has(id) {
								ri.needed[id], missing = true, true
							}
						}
						if !missing && ri.places.restores(v) != nil {
							// Its places read, but not as its record:
							// its segment is re-ingested.
							missing = true
						}
						if missing {
							ri.lost = append(ri.lost, *v)
							lostKeys[u.Key] = true
						}
					}
				}
			}
		}
		if len(ri.lost) == 0 {
			break
		}
		for k := range lostKeys {
			keys = append(keys, k)
		}
	}
}

// matchOriginals is step 2: the originals, matched to the recorded
// input files by content (size and SHA-256), and checked. Places are
// keyed by the rows' names from here on: the catalog's paths are those
// ingest was given, the originals' those repair is given.
func (ri *objectReingest) matchOriginals(ctx context.Context, originals []string) error {
	byName, refused, err := matchOriginals(ctx, originals, ri.r.Files)
	if err != nil {
		return err
	}
	ri.byName = byName
	ri.nameOf = fileNames(ri.r.Files)
	ri.rowOf = map[string]string{}
	for n, p := range byName {
		ri.rowOf[p] = n
	}
	ri.res.Refused = refused
	ri.wanted = map[place]*Version{}
	for i := range ri.entries {
		for j := range ri.entries[i].vs {
			v := &ri.entries[i].vs[j]
			ri.wanted[place{ri.nameOf(v.File), v.Offset, v.Skip}] = v
		}
	}
	missing := map[string]bool{}
	for _, v := range ri.lost {
		if b := ri.nameOf(v.File); byName[b] == "" && !missing[b] {
			missing[b] = true
			ri.res.Missing = append(ri.res.Missing, v.File)
		}
	}
	return nil
}

// offer is step 3 for one object the model can have cut a record into:
// put back when the archive needs it (by id, or by the prefix a segment
// names it by).
func (ri *objectReingest) offer(kind pack.Kind, data []byte) error {
	id := ri.s.Sum(data)
	keys := []pack.ID{id}
	for n := range ri.lens {
		var ph pack.ID
		copy(ph[:n], id[:n])
		keys = append(keys, ph)
	}
	if !slices.ContainsFunc(keys, func(k pack.ID) bool { return ri.needed[k] }) {
		return nil
	}
	if _, _, err := ri.w.Add(kind, data); err != nil {
		return fmt.Errorf("put back object %s: %w", id, err)
	}
	for _, k := range keys {
		if ri.needed[k] {
			delete(ri.needed, k)
			ri.put[k] = true
		}
	}
	ri.res.Objects++
	return nil
}

// reingestKey is step 3 for one URL key: the objects of each record got
// of it, cut as the model cuts them, offered run by run (a page's Prior
// is the URL's previous page in its run). got is emptied.
func (ri *objectReingest) reingestKey(key string, got map[*Version]reingestRecordBytes, part *partition.Partitioner) error {
	defer clear(got)
	for _, i := range ri.byKey[key] {
		var prior *partition.Result // the URL's previous page in this run
		for j := range ri.entries[i].vs {
			v := &ri.entries[i].vs[j]
			rec, ok := got[v]
			if !ok {
				if v.Mode == modeHTTP && v.Form == formBlocks {
					prior = nil // unknown: the next page is tried without
				}
				continue
			}
			next, err := reingestRecord(v, rec.header, rec.block, prior, part, ri.s.Sum, ri.offer)
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

// readOriginals is step 4: the records, read again from the originals as
// ingest walks them (gaps included), each checked against its recorded
// CRC-32C. The walk yields the captures of one URL key together, in all
// files: a key's records are held until the next key starts, then
// re-ingested (reingestKey).
func (ri *objectReingest) readOriginals(ctx context.Context, dir string) error {
	ri.lens = map[int]bool{}
	for _, n := range ri.prefixes {
		ri.lens[n] = true
	}
	got := map[*Version]reingestRecordBytes{}
	ri.byKey = map[string][]int{}
	for i, e := range ri.entries {
		ri.byKey[e.key] = append(ri.byKey[e.key], i)
	}
	part := partition.NewPartitioner()

	var files []string
	for _, p := range ri.byName {
		files = append(files, p)
	}
	slices.Sort(files)
	files = slices.Compact(files)
	found := map[place]bool{}
	cur, started := "", false
	_, err := warcio.Walk(ctx, files, warcio.WalkOptions{
		TempDir: dir, Reader: warcio.Options{Digests: true, Policy: warcio.PolicyWarn}, Gaps: true,
		// Only the lost captures' URLs are kept and sorted.
		Select: func(key string) bool { return ri.byKey[key] != nil },
	}, func(c *warcio.Capture) error {
		if !started || c.Key != cur {
			if started {
				if err := ri.reingestKey(cur, got, part); err != nil {
					return err
				}
			}
			cur, started = c.Key, true
		}
		at := place{ri.rowOf[c.File], c.Offset, c.SkipInMember}
		v := ri.wanted[at]
		if v == nil || v.Gap != c.Gap {
			return nil
		}
		found[at] = true
		block, err := warcio.ReadBlock(c.Body, c.ContentLen, maxJobBytes)
		if err != nil {
			ri.res.Unread = append(ri.res.Unread, fmt.Sprintf("%s at offset %d: %v", c.File, c.Offset, err))
			return nil
		}
		crc := crc32.Update(crc32.Checksum(c.RawHeader, castagnoli), castagnoli, block)
		if crc = crc32.Update(crc, castagnoli, c.Trailer); crc != v.CRC || !bytes.Equal(c.Trailer, v.Trailer) {
			ri.res.Unread = append(ri.res.Unread, fmt.Sprintf("%s at offset %d: not the record ingested there (CRC-32C %08x, recorded %08x)", c.File, c.Offset, crc, v.CRC))
			return nil
		}
		got[v] = reingestRecordBytes{bytes.Clone(c.RawHeader), block}
		return nil
	})
	if err == nil && started {
		err = ri.reingestKey(cur, got, part)
	}
	if err != nil {
		return fmt.Errorf("read originals: %w", err)
	}
	for i := range ri.lost {
		v := &ri.lost[i]
		at := place{ri.nameOf(v.File), v.Offset, v.Skip}
		if p := ri.byName[at.file]; p != "" && !found[at] {
			ri.res.Unread = append(ri.res.Unread, fmt.Sprintf("%s at offset %d: no record there", p, v.Offset))
		}
	}
	return nil
}

// commit publishes the objects put back, if any, under the catalog root
// as it was.
func (ri *objectReingest) commit() error {
	if ri.res.Objects == 0 {
		return nil
	}
	if err := ri.w.Commit(ri.payload); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// countRestored counts the lost captures that lack no object now.
func (ri *objectReingest) countRestored() {
	for i := range ri.lost {
		if !slices.ContainsFunc(objectsOf(&ri.lost[i]), func(id pack.ID) bool { return !ri.has(id) }) {
			ri.res.Restored++
		}
	}
}
