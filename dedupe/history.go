package dedupe

import (
	"fmt"
	"sort"
	"sync"

	"github.com/blockwarc/blockwarc/dedupe/pack"
)

// historyReader reads the earlier versions of the keys an ingest meets,
// in key order, as versionsOf does, but keeps each run's segment open
// at the last key read: the next key resumes there instead of reading
// the segment again from its first entry. An archive ingested a crawl
// at a time has a run per crawl, so every page looks in hundreds of
// runs; reading each segment from the start for every page was a third
// of the CPU of 351 one-crawl ingests of a mixed collection. A key
// before a run's position (workers may ask slightly out of order) is
// read from the segment's start, as versionsOf does.
type historyReader struct {
	mu   sync.Mutex
	s    *pack.Store
	r    *root
	cur  []*segCursor // per run; nil when none is open
	held int          // segment bytes the open cursors hold
	max  int          // bound of held: historyHeld
	tick uint64
}

// historyHeld bounds the segment bytes the open cursors hold by default
// (ingest: Budget.Cache): beyond it, the cursor used least recently is
// dropped (and opened again when needed), so that an archive of
// thousands of runs holds no more.
const historyHeld = 16 << 20

// segCursor is a decoder positioned in one run's segment.
type segCursor struct {
	seg    int // index in the run
	b      []byte
	d      *dec
	files  []string
	left   int    // entries not yet read
	last   string // key of the last entry whose versions were read
	read   bool   // whether any was
	peeked bool   // an entry's key and count are read, its versions not
	peekK  string
	peekN  int
	used   uint64
}

// newHistoryReader reads the runs of r; its open segments hold at most
// held bytes (historyHeld when 0).
func newHistoryReader(s *pack.Store, r *root, held int) *historyReader {
	if held <= 0 {
		held = historyHeld
	}
	return &historyReader{s: s, r: r, cur: make([]*segCursor, len(r.Runs)), max: held}
}

// versions returns the versions of key in every run, in capture order,
// and the catalog segment of the newest run that holds some (zero when
// none does).
func (h *historyReader) versions(key string) ([]Version, pack.ID, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var all []Version
	var newest pack.ID
	for i, run := range h.r.Runs {
		j := sort.Search(len(run), func(j int) bool { return run[j].Last >= key })
		if j == len(run) || run[j].First > key {
			continue
		}
		vs, err := h.find(i, j, key)
		if err != nil {
			h.drop(i)
			return nil, pack.ID{}, fmt.Errorf("read catalog segment %s: %w", run[j].ID, err)
		}
		if len(vs) > 0 {
			newest = run[j].ID
		}
		all = append(all, vs...)
	}
	return sortVersions(all), newest, nil
}

// find returns the versions of key in segment j of run i.
func (h *historyReader) find(i, j int, key string) ([]Version, error) {
	c := h.cur[i]
	if c != nil && (c.seg != j || (c.read && c.last >= key)) {
		h.drop(i)
		c = nil
	}
	if c == nil {
		b, _, err := h.s.Get(h.r.Runs[i][j].ID)
		if err != nil {
			return nil, err
		}
		d, files, err := openSegment(b, readResolver(h.s))
		if err != nil {
			return nil, err
		}
		n := d.count("url count", 2)
		if d.err != nil {
			return nil, d.err
		}
		c = &segCursor{seg: j, b: b, d: d, files: files, left: n}
		h.cur[i] = c
		h.held += len(b)
		h.trim(i)
	}
	h.tick++
	c.used = h.tick
	d := c.d
	for {
		if !c.peeked {
			if c.left == 0 {
				return nil, nil
			}
			c.left--
			c.peekK = d.str("key")
			c.peekN = d.count("version count", minVersionBytes)
			if d.err != nil {
				return nil, d.err
			}
			c.peeked = true
		}
		if c.peekK > key {
			return nil, nil
		}
		d.skip = c.peekK != key
		vs := d.versions(c.files, c.peekN)
		if d.err != nil {
			return nil, d.err
		}
		c.peeked, c.last, c.read = false, c.peekK, true
		if c.last == key {
			return vs, nil
		}
	}
}

// drop closes run i's cursor.
func (h *historyReader) drop(i int) {
	if c := h.cur[i]; c != nil {
		h.held -= len(c.b)
		h.cur[i] = nil
	}
}

// trim drops the cursors used least recently, but keep's, while the
// open ones hold more than h.max.
func (h *historyReader) trim(keep int) {
	for h.held > h.max {
		old := -1
		for i, c := range h.cur {
			if c != nil && i != keep && (old < 0 || c.used < h.cur[old].used) {
				old = i
			}
		}
		if old < 0 {
			return
		}
		h.drop(old)
	}
}
