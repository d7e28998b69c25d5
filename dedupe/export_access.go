package dedupe

import "fmt"

// WalkOrdered calls fn with every key of the archive once, keys ascending
// (byte-wise, as the catalog sorts them), each with all its versions in
// capture order — the order Versions returns and the order ingest added
// them in. Walk visits run by run, so a key ingested twice appears twice
// there; WalkOrdered merges the runs instead, holding one decoded catalog
// segment per run (≈ 64 KiB of entries each), never the whole catalog.
// That is the order of a re-exported WARC. Gaps (Version.Gap) are left
// out; a key of gaps only is not visited.
func (a *Archive) WalkOrdered(fn func(URLVersions) error) error {
	if a.u != nil {
		return a.unionWalk(fn, true, false)
	}
	cur := make([]*runCursor, 0, len(a.root.Runs))
	for _, run := range a.root.Runs {
		c := &runCursor{a: a, run: run}
		if err := c.fill(); err != nil {
			return err
		}
		if !c.done() {
			cur = append(cur, c)
		}
	}
	for len(cur) > 0 {
		key := cur[0].key()
		for _, c := range cur[1:] {
			if k := c.key(); k < key {
				key = k
			}
		}
		var vs []Version
		live := cur[:0]
		for _, c := range cur {
			// A run holds a key once; the loop is defensive against a
			// segment boundary splitting it.
			for !c.done() && c.key() == key {
				vs = append(vs, c.urls[c.i].Versions...)
				if err := c.next(); err != nil {
					return err
				}
			}
			if !c.done() {
				live = append(live, c)
			}
		}
		cur = live
		if vs = dropGaps(vs); len(vs) == 0 {
			continue
		}
		if err := fn(URLVersions{Key: key, Versions: sortVersions(vs)}); err != nil {
			return err
		}
	}
	return nil
}

// runCursor reads one run's segments in key order, one at a time.
type runCursor struct {
	a    *Archive
	run  []segRef
	seg  int // index in run of the next segment to read
	urls []URLVersions
	i    int
}

func (c *runCursor) done() bool  { return c.i >= len(c.urls) }
func (c *runCursor) key() string { return c.urls[c.i].Key }

// fill reads segments until one has an entry or the run ends.
func (c *runCursor) fill() error {
	for c.done() && c.seg < len(c.run) {
		ref := c.run[c.seg]
		c.seg++
		b, _, err := c.a.store.Get(ref.ID)
		if err != nil {
			return fmt.Errorf("read catalog segment %s: %w", ref.ID, err)
		}
		if c.urls, err = decodeSegment(b, readResolver(c.a.store)); err != nil {
			return fmt.Errorf("read catalog segment %s: %w", ref.ID, err)
		}
		c.i = 0
	}
	return nil
}

func (c *runCursor) next() error {
	c.urls[c.i] = URLVersions{} // let the versions go once handed out
	c.i++
	return c.fill()
}
