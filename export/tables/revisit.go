package tables

import (
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/warcio"
)

// pageCacheSize is how many recent captures' records a worker keeps for
// the revisits that follow them: a revisit almost always repeats the
// capture just before it.
const pageCacheSize = 4

// pageCache holds the last few looked-at records of one URL, by index in
// its versions.
type pageCache struct {
	idx  [pageCacheSize]int
	recs [pageCacheSize]*record
	next int
}

func (c *pageCache) get(i int) *record {
	for k, r := range c.recs {
		if r != nil && c.idx[k] == i {
			return r
		}
	}
	return nil
}

func (c *pageCache) put(i int, r *record) {
	c.idx[c.next], c.recs[c.next] = i, r
	c.next = (c.next + 1) % pageCacheSize
}

// maxAgnosticLooks bounds the captures of another URL restored to find
// the original of a URL-agnostic revisit that names no record id.
const maxAgnosticLooks = 8

// original finds the capture an identical-payload revisit (version i of
// uv) repeats: the latest earlier capture of the URL with its digest (as
// warcio.Walk's RevisitOf), else the record its WARC-Refers-To names,
// else — for a URL-agnostic revisit — a capture of its
// WARC-Refers-To-Target-URI with its digest. nil when the archive holds
// none.
func (w *worker) original(uv dedupe.URLVersions, i int, r *record, byDigest map[string]int, cache *pageCache) (*record, error) {
	lookAt := func(vs []dedupe.Version, j int, c *pageCache) (*record, error) {
		if c != nil {
			if o := c.get(j); o != nil {
				return o, nil
			}
		}
		o, err := w.look(&vs[j])
		if err != nil {
			return nil, err
		}
		if c != nil {
			c.put(j, o)
		}
		return o, nil
	}
	if r.digest != "" {
		if j, ok := byDigest[r.digest]; ok {
			return lookAt(uv.Versions, j, cache)
		}
	}
	if r.refersTo != "" {
		for j := i - 1; j >= 0; j-- {
			if v := &uv.Versions[j]; v.RecordID == r.refersTo && isCapture(v) && v.Type != "revisit" {
				return lookAt(uv.Versions, j, cache)
			}
		}
	}
	if r.refersToTarget == "" {
		return nil, nil
	}
	key := warcio.SURT(r.refersToTarget)
	if key == uv.Key {
		return nil, nil
	}
	vs, err := w.a.Versions(key)
	if err != nil {
		return nil, err
	}
	at := uv.Versions[i].Date
	looks := 0
	for j := len(vs) - 1; j >= 0 && looks < maxAgnosticLooks; j-- {
		v := &vs[j]
		if !isCapture(v) || v.Type == "revisit" {
			continue
		}
		if r.refersTo != "" {
			if v.RecordID == r.refersTo {
				return lookAt(vs, j, nil)
			}
			continue
		}
		if !at.IsZero() && v.Date.After(at.Add(time.Second)) {
			continue
		}
		looks++
		o, err := lookAt(vs, j, nil)
		if err != nil {
			return nil, err
		}
		if r.digest == "" || o.digest == r.digest {
			return o, nil
		}
	}
	return nil, nil
}
