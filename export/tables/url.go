package tables

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/export/changerate"
	"github.com/blockwarc/blockwarc/export/diff"
	"github.com/blockwarc/blockwarc/partition"
)

// capOut is one capture's rows and what the builder charges to it.
type capOut struct {
	row    *Capture
	refs   []pack.ID // objects the record is stored as (contentRefs)
	sizes  []int64   // their lengths; -1: ask the archive
	part   int       // of a union, the part objects named by place are of
	blocks []*CaptureBlock
	ids    []pack.ID          // block id of each capture_blocks row
	first  map[pack.ID]*Block // blocks first seen (in this URL) here
	links  []*Link            // the capture's links, when they differ from the URL's last capture with links
	change *Change            // with the previous capture; nil for the first
}

// prevCap is what the next capture needs of the one before it, copied:
// rows handed on belong to the sink.
type prevCap struct {
	version  int32
	time     time.Time
	digest   string
	layoutID *string
}

// history is what the urls row needs of a URL's captures, copied.
type history struct {
	n              int64
	url, key, host string
	domain         *string
	first, last    time.Time
	intervals      []float64
	changed        []bool
	observed       int64
	digests        map[string]bool
	volatile       map[string]int
}

// url turns the versions of one key into rows: emit receives each
// capture's rows in capture order, and url returns the urls row (nil
// when the key has no capture) and the counts of its work. Only the
// previous capture's page and a few pages for reuse stay in memory, so
// a URL's history may be of any length.
func (w *worker) url(uv dedupe.URLVersions, emit func(*capOut) error) (*URL, Stats, error) {
	var st Stats
	clear(w.pages)
	defer clear(w.pages)
	var (
		prev     *prevCap             // previous capture
		prevPage *page                // previous capture with blocks
		byDigest = map[string]int{}   // content digest -> index in uv.Versions of its latest non-revisit capture
		cache    pageCache            // recent records, for revisits
		seenHere = map[pack.ID]bool{} // blocks seen in this URL
		h        = history{digests: map[string]bool{}, volatile: map[string]int{}}
		web      bool // a capture of the web: the URL has a urls row
		// The visible text of the URL's last capture with a page: a
		// capture's visible_text is written when it differs, so each
		// text of a URL is kept once (docs/TABLES.md).
		prevText *string
		ls       = linkState{blocks: map[pack.ID][]*Link{}}
	)
	for i := range uv.Versions {
		v := &uv.Versions[i]
		st.Records++
		if !isCapture(v) {
			continue
		}
		h.n++
		rec, err := w.look(v)
		if err != nil {
			return nil, st, fmt.Errorf("build tables for %q: %w", uv.Key, err)
		}
		pg := rec.page
		if rec.revisitIdentical {
			orig, err := w.original(uv, i, rec, byDigest, &cache)
			if err != nil {
				return nil, st, fmt.Errorf("build tables for %q: %w", uv.Key, err)
			}
			if orig != nil {
				st.Revisits++
				pg = orig.page
				if rec.digest == "" {
					rec.digest = orig.digest
				}
			} else {
				st.RevisitsUnresolved++
			}
		} else {
			byDigest[rec.digest] = i
			cache.put(i, rec)
		}
		if rec.digest == "" {
			rec.digest = sha1Digest(rec.payload)
		}
		if own := rec.page; own != nil {
			switch {
			case own.text:
				st.TextOnly++
			case own.mismatch:
				st.BlockMismatches++
			default:
				st.Partitioned++
				if own.respanned {
					st.Respanned++
				}
			}
		}
		row := w.captureRow(uv.Key, v, int32(h.n), rec, pg)
		if pg != nil && (prevText == nil || *prevText != pg.visible) {
			t := pg.visible
			row.VisibleText, prevText = &t, &t
		}
		rec.payload = nil
		c := &capOut{row: row, part: v.Part()}
		c.refs, c.sizes = contentRefs(v, rec)
		if prev != nil {
			ch := prev.digest != row.ContentDigest
			row.Changed = &ch
			if !ch { // same payload: nothing a reader sees changed either
				row.TextChanged = new(bool)
			}
		}

		// Blocks against the previous capture with blocks.
		var changedBytes, partBytes int64
		var paths []string
		if pg.hasBlocks() {
			if prevPage != nil && prevPage.layoutID != (pack.ID{}) && pg.layoutID != (pack.ID{}) {
				lc := prevPage.layoutID != pg.layoutID
				row.LayoutChanged = &lc
			}
			changedBytes, partBytes, paths = w.blockRows(c, row, pg, prevPage, seenHere, &ls)
			prevPage = pg
		}
		if prev != nil {
			c.change = changeRow(prev, row, pg.hasBlocks(), changedBytes, partBytes, paths)
		}
		if isWeb(row.URLProtocol) {
			h.add(row, c.change)
			web = true
		} else {
			// A record about the crawl (wget's log, dns:): a captures row,
			// but no change and no urls row, so that rates, hosts and URL
			// counts are the site's pages only.
			c.change = nil
		}
		prev = &prevCap{version: row.Version, time: row.FetchTime, digest: row.ContentDigest, layoutID: row.LayoutID}
		if err := emit(c); err != nil {
			return nil, st, err
		}
	}
	if !web {
		return nil, st, nil
	}
	return h.urlRow(), st, nil
}

// add notes a capture's row, and its change row, before they are handed on.
func (h *history) add(row *Capture, ch *Change) {
	if h.first.IsZero() {
		h.first = row.FetchTime
	}
	h.last = row.FetchTime
	h.url, h.key, h.host, h.domain = row.URL, row.URLSURTKey, row.URLHostName, row.URLHostRegisteredDomain
	h.digests[row.ContentDigest] = true
	if ch == nil {
		return
	}
	h.intervals = append(h.intervals, ch.IntervalDays)
	h.changed = append(h.changed, ch.Changed)
	if ch.Changed {
		h.observed++
	}
	for _, p := range ch.ChangedPaths {
		h.volatile[p]++
	}
}

// pageWords is diff.PageWords(pg.res), computed once.
func (pg *page) pageWords() []string {
	if !pg.wordsDone {
		pg.words, pg.wordsDone = diff.PageWords(pg.res), true
	}
	return pg.words
}

// blockRows fills c with the capture_blocks rows of pg matched against
// prev (nil: every block added) and returns the changes' bytes and paths.
func (w *worker) blockRows(c *capOut, row *Capture, pg, prev *page, seenHere map[pack.ID]bool, ls *linkState) (changedBytes, partBytes int64, paths []string) {
	var old *partition.Result
	if prev != nil {
		old = prev.res
	}
	var pairs []partition.Pair
	if old == pg.res {
		// The same page again (a repeated payload, a revisit): every
		// block is unchanged, as Match would find at greater cost.
		pairs = make([]partition.Pair, len(pg.res.Leaves))
		for i, b := range pg.res.Leaves {
			pairs[i] = partition.Pair{Old: b, New: b, Kind: partition.Identical, Sim: 1, TextSim: 1}
		}
	} else {
		pairs = partition.Match(old, pg.res, partition.SimOptions{})
	}
	// The visible verdicts are the diff command's (export/diff), from the
	// same alignment: a block whose bytes changed but whose words a reader
	// sees did not is markup churn.
	var verdicts []diff.Block
	var sum diff.Summary
	if old != pg.res {
		// The same page again has no verdict but unchanged.
		var oldWords []string
		if prev != nil {
			oldWords = prev.pageWords()
		}
		verdicts, sum = diff.ClassifyWords(old, pg.res, pairs, oldWords, pg.pageWords())
	}
	textChanged := make(map[*partition.Block]bool, len(verdicts))
	for i := range verdicts {
		v := &verdicts[i]
		if v.New != nil && (v.Status == diff.TextChanged || v.Status == diff.Added && len(v.Words) > 0) {
			textChanged[v.New] = true
		}
		switch v.Status {
		case diff.TextChanged, diff.MarkupOnly:
			partBytes += int64(v.PartBytes())
		case diff.Added:
			partBytes += int64(v.New.End - v.New.Start)
		case diff.Removed:
			partBytes += int64(v.Old.End - v.Old.Start)
		}
	}
	if row.Changed != nil {
		tc := *row.Changed && sum.VisibleChange
		row.TextChanged = &tc
	}
	row.BlocksTotal = int32(len(pg.res.Leaves))
	c.blocks = make([]*CaptureBlock, 0, len(pg.res.Leaves))
	c.ids = make([]pack.ID, 0, len(pg.res.Leaves))
	inPaths := map[string]bool{}
	addPath := func(p string) {
		if !inPaths[p] {
			inPaths[p] = true
			paths = append(paths, p)
		}
	}
	var lp *linkPage // made on the first block new to the previous capture
	var capLinks []*Link
	var next map[pack.ID][]*Link
	if w.links {
		next = make(map[pack.ID][]*Link, len(pg.res.Leaves))
	}
	oi, ni := 0, 0
	for _, pr := range pairs {
		var oldID pack.ID
		if pr.Old != nil {
			oldID = prev.cids[oi]
			oi++
		}
		if pr.New == nil { // Removed
			row.BlocksRemoved++
			changedBytes += int64(pr.Old.End - pr.Old.Start)
			addPath(pr.Old.Path)
			continue
		}
		id := pg.cids[ni]
		b := pr.New
		ni++
		cb := &CaptureBlock{
			URLSURTKey: row.URLSURTKey, FetchTime: row.FetchTime, Version: row.Version,
			Ordinal: int32(ni), Path: b.Path, BlockID: id.String(),
			TextChanged: textChanged[b],
		}
		if cb.TextChanged {
			row.BlocksTextChanged++
		}
		switch pr.Kind {
		case partition.Identical:
			cb.Status = "unchanged"
			row.BlocksUnchanged++
		case partition.Modified:
			cb.Status = "modified"
			p, s := oldID.String(), pr.Sim
			cb.PredecessorBlockID, cb.Similarity = &p, &s
			row.BlocksModified++
			changedBytes += int64(b.End - b.Start)
			addPath(b.Path)
		default: // Added
			cb.Status = "added"
			row.BlocksAdded++
			changedBytes += int64(b.End - b.Start)
			addPath(b.Path)
		}
		c.blocks = append(c.blocks, cb)
		c.ids = append(c.ids, id)
		if !seenHere[id] {
			seenHere[id] = true
			if c.first == nil {
				c.first = map[pack.ID]*Block{}
			}
			c.first[id] = blockRow(id, row, pg.res, b)
		}
		if w.links {
			// A block of the previous capture keeps the links read
			// there; only blocks new to it are read.
			bl, ok := ls.blocks[id]
			if !ok {
				if lp == nil {
					lp = newLinkPage(pg.res, row.URL)
				}
				bl = lp.links(row.URLSURTKey, cb.BlockID, b)
			}
			next[id] = bl
			capLinks = append(capLinks, bl...)
		}
	}
	if w.links {
		ls.blocks = next // only the last capture's blocks: memory stays one page's
		ls.capture(c, row, capLinks)
	}
	return changedBytes, partBytes, paths
}

func blockRow(id pack.ID, row *Capture, res *partition.Result, b *partition.Block) *Block {
	f := &b.Features
	out := &Block{
		BlockID: id.String(), FirstURL: row.URL, FirstURLSURTKey: row.URLSURTKey, FirstFetchTime: row.FetchTime,
		Tag: b.Tag, Path: b.Path, Level: int32(b.Level),
		Label: string(b.Label), Text: b.Text,
		Bytes: int32(f.Bytes), TextLength: int32(f.TextLen), Words: int32(f.Words), Links: int32(f.Links),
		LinkTextRatio: f.LinkTextRatio, Images: int32(f.Images), Forms: int32(f.Forms), Inputs: int32(f.Inputs),
		Headings: int32(f.Headings), Position: f.Position,
	}
	if b.ID != "" {
		s := b.ID
		out.HTMLID = &s
	}
	if b.Class != "" {
		s := b.Class
		out.HTMLClass = &s
	}
	if len(b.Topic) > 0 {
		out.Topic = slices.Clone(b.Topic)
	}
	return out
}

// changeRow is the changes row from prev to the capture of row.
func changeRow(prev *prevCap, row *Capture, partitioned bool, changedBytes, partBytes int64, paths []string) *Change {
	ch := &Change{
		URL: row.URL, URLSURTKey: row.URLSURTKey,
		FromVersion: prev.version, ToVersion: row.Version,
		FromTime: prev.time, ToTime: row.FetchTime,
		IntervalDays: days(row.FetchTime.Sub(prev.time)),
		Changed:      *row.Changed, BlocksTextChanged: row.BlocksTextChanged,
		BlocksAdded: row.BlocksAdded, BlocksRemoved: row.BlocksRemoved,
		BlocksModified: row.BlocksModified, BlocksUnchanged: row.BlocksUnchanged,
	}
	if row.TextChanged != nil {
		tc := *row.TextChanged // rows handed on belong to the sink: no shared pointers
		ch.TextChanged = &tc
	}
	if prev.layoutID != nil && row.LayoutID != nil {
		lc := *prev.layoutID != *row.LayoutID
		ch.LayoutChanged = &lc
	}
	switch {
	case partitioned:
		ch.ChangedBytes, ch.ChangedPartBytes, ch.ChangedPaths = changedBytes, partBytes, paths
	case ch.Changed:
		ch.ChangedBytes, ch.ChangedPartBytes = row.PayloadLength, row.PayloadLength
	}
	return ch
}

func days(d time.Duration) float64 { return d.Seconds() / 86400 }

// maxVolatile is how many paths urls.volatile_paths lists.
const maxVolatile = 5

// urlRow is the urls row of the URL's captures.
func (h *history) urlRow() *URL {
	u := &URL{
		URL: h.url, URLSURTKey: h.key, URLHostName: h.host, URLHostTLD: hostTLD(h.host), URLHostRegisteredDomain: h.domain,
		Captures: h.n, Versions: int64(len(h.digests)),
		FirstCapture: h.first, LastCapture: h.last, ObservedChanges: h.observed,
	}
	u.URLPath, u.URLQuery = urlParts(h.url)
	u.URLProtocol = urlScheme(h.url)
	u.URLPort = urlPort(h.url)
	if len(h.intervals) > 0 {
		mean := days(h.last.Sub(h.first)) / float64(len(h.intervals))
		u.MeanIntervalDays = &mean
		if est, ok := changerate.Estimate(h.intervals, h.changed); ok && est.Intervals >= changerate.MinIntervals {
			rate, method, reg := est.Rate, est.Method, est.Regular
			if low, high, ok := changerate.Interval(h.intervals, h.changed, changerate.Chi2For95); ok {
				u.ChangeRateLowPerDay = &low
				if !math.IsInf(high, 1) {
					u.ChangeRateHighPerDay = &high
				}
			}
			u.ChangeRatePerDay, u.ChangeRateMethod, u.ChangeRateRegularPerDay = &rate, &method, &reg
			if est.MLEOK {
				mle := est.MLE
				u.ChangeRateMLEPerDay = &mle
			}
			p1, p7 := changerate.PChange(rate, 1), changerate.PChange(rate, 7)
			u.PChange1D, u.PChange7D = &p1, &p7
		}
	}
	type pc struct {
		path string
		n    int
	}
	var top []pc
	for p, k := range h.volatile {
		top = append(top, pc{p, k})
	}
	slices.SortFunc(top, func(a, b pc) int {
		if a.n != b.n {
			return cmp.Compare(b.n, a.n)
		}
		return cmp.Compare(a.path, b.path)
	})
	for _, t := range top[:min(len(top), maxVolatile)] {
		u.VolatilePaths = append(u.VolatilePaths, t.path)
	}
	return u
}
