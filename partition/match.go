package partition

import (
	"bytes"
	"math"
	"slices"
	"sync"

	"github.com/zeebo/xxh3"
)

// Matching two versions of a page: the kept blocks (leaves) of the old and
// the new partition are aligned so that a version which gained one block
// reports one added block, not a cascade of changes after it. Identical
// blocks (same bytes) are aligned first, as a diff aligns equal lines; the
// unmatched runs between them are then paired by DVS similarity.

// MatchKind says how a block of one version relates to the other version.
type MatchKind uint8

const (
	Identical MatchKind = iota // same bytes in both versions
	Modified                   // different bytes, DVS (or text) similarity ≥ threshold
	Added                      // only in the new version (Old is nil)
	Removed                    // only in the old version (New is nil)
)

func (k MatchKind) String() string {
	switch k {
	case Identical:
		return "identical"
	case Modified:
		return "modified"
	case Added:
		return "added"
	case Removed:
		return "removed"
	}
	return "unknown"
}

// Pair is one step of the alignment. Sim is the DVS similarity and
// TextSim the text similarity of Old and New: both 1 for Identical, 0 for
// Added and Removed.
type Pair struct {
	Old, New *Block
	Kind     MatchKind
	Sim      float64
	TextSim  float64
}

// Match aligns the leaves of old and new (either may be nil) and returns
// the alignment in document order: every leaf of each version appears in
// exactly one Pair, the Old blocks of the pairs in old's order and the New
// blocks in new's order. Within a run of unmatched blocks, Removed pairs
// come before Added ones. The result is deterministic, and its cost is
// linear in the documents' sizes apart from bounded windows.
func Match(old, new *Result, opts SimOptions) []Pair {
	opts = opts.withDefaults()
	var ol, nl []*Block
	if old != nil {
		ol = old.Leaves
	}
	if new != nil {
		nl = new.Leaves
	}
	oh := old.leafKeys()
	nh := new.leafKeys()
	anchors := lcsIndex(oh, nh)
	m := matcher{old: old, new: new, opts: opts}
	out := make([]Pair, 0, max(len(ol), len(nl)))
	i, j := 0, 0
	for _, a := range anchors {
		// A hash collision would pair different bytes: check.
		if !bytes.Equal(blockBytes(old, ol[a[0]]), blockBytes(new, nl[a[1]])) {
			continue
		}
		out = m.alignRun(out, ol[i:a[0]], nl[j:a[1]], oh[i:a[0]], nh[j:a[1]])
		out = append(out, Pair{Old: ol[a[0]], New: nl[a[1]], Kind: Identical, Sim: 1, TextSim: 1})
		i, j = a[0]+1, a[1]+1
	}
	return m.alignRun(out, ol[i:], nl[j:], oh[i:], nh[j:])
}

func blockBytes(r *Result, b *Block) []byte {
	if r == nil || b.Start < 0 || b.End > len(r.Doc) || b.Start > b.End {
		return nil
	}
	return r.Doc[b.Start:b.End]
}

// leafKeyCache holds what Match computes of a Result's leaves, once: an
// ingest matches each page twice, as the new page and then as the old
// one. The leaf hashes are computed once; the signatures of the leaves
// Match compares (those the identical ones leave unpaired, often the
// same blocks that changed last time too) once per SimOptions.
type leafKeyCache struct {
	once sync.Once
	h    []uint64

	mu      sync.Mutex
	sigOpts SimOptions // the options sigs were made with
	sigs    map[*Block]Signature
}

// leafKeys is leafHashes of r's leaves (nil r: none). A Result's leaves
// and document do not change once it is made, so the keys are kept; safe
// for concurrent use.
func (r *Result) leafKeys() []uint64 {
	if r == nil {
		return nil
	}
	if r.keys == nil {
		return leafHashes(r, r.Leaves)
	}
	r.keys.once.Do(func() { r.keys.h = leafHashes(r, r.Leaves) })
	return r.keys.h
}

// signature is NewSignature(r, b, opts) for a leaf b of r, kept for
// Match's next call with r and the same options; safe for concurrent
// use. A Signature is not changed once made, so callers share it.
func (r *Result) signature(b *Block, opts SimOptions) Signature {
	if r == nil || r.keys == nil {
		return NewSignature(r, b, opts)
	}
	c := r.keys
	c.mu.Lock()
	s, ok := c.sigs[b]
	ok = ok && c.sigOpts == opts
	c.mu.Unlock()
	if ok {
		return s
	}
	s = NewSignature(r, b, opts)
	c.mu.Lock()
	if c.sigs == nil || c.sigOpts != opts {
		c.sigs, c.sigOpts = map[*Block]Signature{}, opts
	}
	c.sigs[b] = s
	c.mu.Unlock()
	return s
}

// leafHashes keys each leaf by its bytes for the identical-block
// alignment: XXH3 (several times faster than the table-driven CRC-64 it
// replaced, which was a third of Match's time) mixed with the length.
// The alignment depends only on which keys are equal, and equal keys
// are confirmed byte for byte before two blocks are called identical.
func leafHashes(r *Result, leaves []*Block) []uint64 {
	h := make([]uint64, len(leaves))
	for i, b := range leaves {
		bb := blockBytes(r, b)
		h[i] = mix(xxh3.Hash(bb) ^ uint64(len(bb))*fnvPrime)
	}
	return h
}

type matcher struct {
	old, new *Result
	opts     SimOptions
}

// Bounds on the pairing of an unmatched run: runs up to maxRunCells
// candidate pairs are aligned exactly; longer ones greedily, looking
// runWindow blocks ahead on each side.
const (
	maxRunCells = 1 << 12
	runWindow   = 8
)

// alignRun pairs the blocks of two unmatched runs by similarity, keeping
// order (no crossing pairs), and appends the pairs to out. ohs and nhs
// are the blocks' byte keys: identical blocks the anchoring left out
// (repeated ones in ranges too large for an exact LCS) still pair as
// Identical here.
func (m *matcher) alignRun(out []Pair, olds, news []*Block, ohs, nhs []uint64) []Pair {
	if len(olds) == 0 || len(news) == 0 {
		for _, b := range olds {
			out = append(out, Pair{Old: b, Kind: Removed})
		}
		for _, b := range news {
			out = append(out, Pair{New: b, Kind: Added})
		}
		return out
	}
	os := make([]Signature, len(olds))
	for i, b := range olds {
		os[i] = m.old.signature(b, m.opts)
	}
	ns := make([]Signature, len(news))
	for j, b := range news {
		ns[j] = m.new.signature(b, m.opts)
	}
	n, k := len(olds), len(news)
	// weight scores a candidate pair, or returns ok=false below both
	// thresholds. More pairs beat fewer; then DVS similarity, then text
	// similarity, then closeness of relative position in the run.
	weight := func(i, j int) (w float64, p Pair, ok bool) {
		if ohs[i] == nhs[j] && bytes.Equal(blockBytes(m.old, olds[i]), blockBytes(m.new, news[j])) {
			return 7, Pair{Old: olds[i], New: news[j], Kind: Identical, Sim: 1, TextSim: 1}, true
		}
		p = Pair{Old: olds[i], New: news[j], Kind: Modified, Sim: os[i].Similarity(ns[j])}
		if p.Sim < m.opts.Threshold && textBound(os[i], ns[j]) < m.opts.TextThreshold {
			return 0, p, false // the text cannot rescue it: skip computing it
		}
		p.TextSim = os[i].TextSimilarity(ns[j])
		if p.Sim < m.opts.Threshold && p.TextSim < m.opts.TextThreshold {
			return 0, p, false
		}
		shift := math.Abs((float64(i)+0.5)/float64(n) - (float64(j)+0.5)/float64(k))
		return 4 + p.Sim + p.TextSim - 0.01*shift, p, true
	}
	var steps []Pair
	if n*k <= maxRunCells {
		steps = alignDP(olds, news, weight)
	} else {
		steps = alignGreedy(olds, news, weight)
	}
	// Removed before Added within each unmatched stretch.
	paired := func(p Pair) bool { return p.Old != nil && p.New != nil }
	for s := 0; s < len(steps); {
		if paired(steps[s]) {
			out = append(out, steps[s])
			s++
			continue
		}
		e := s
		for e < len(steps) && !paired(steps[e]) {
			e++
		}
		for _, p := range steps[s:e] {
			if p.Kind == Removed {
				out = append(out, p)
			}
		}
		for _, p := range steps[s:e] {
			if p.Kind == Added {
				out = append(out, p)
			}
		}
		s = e
	}
	return out
}

type weightFunc func(i, j int) (w float64, p Pair, ok bool)

// alignDP is the order-keeping alignment of greatest total weight
// (Needleman–Wunsch with zero gap cost).
func alignDP(olds, news []*Block, weight weightFunc) []Pair {
	n, k := len(olds), len(news)
	best := make([]float64, (n+1)*(k+1))
	wt := make([]float64, n*k)
	pairs := make([]Pair, n*k)
	ok := make([]bool, n*k)
	at := func(i, j int) int { return i*(k+1) + j }
	for i := 1; i <= n; i++ {
		for j := 1; j <= k; j++ {
			v := max(best[at(i-1, j)], best[at(i, j-1)])
			w, p, good := weight(i-1, j-1)
			c := (i-1)*k + j - 1
			wt[c], pairs[c], ok[c] = w, p, good
			if good && best[at(i-1, j-1)]+w > v {
				v = best[at(i-1, j-1)] + w
			}
			best[at(i, j)] = v
		}
	}
	steps := make([]Pair, 0, n+k)
	i, j := n, k
	for i > 0 || j > 0 {
		switch {
		case i > 0 && j > 0 && ok[(i-1)*k+j-1] && best[at(i, j)] == best[at(i-1, j-1)]+wt[(i-1)*k+j-1]:
			steps = append(steps, pairs[(i-1)*k+j-1])
			i, j = i-1, j-1
		case i > 0 && (j == 0 || best[at(i, j)] == best[at(i-1, j)]):
			steps = append(steps, Pair{Old: olds[i-1], Kind: Removed})
			i--
		default:
			steps = append(steps, Pair{New: news[j-1], Kind: Added})
			j--
		}
	}
	slices.Reverse(steps)
	return steps
}

// alignGreedy walks both runs, pairing the nearest good match within
// runWindow blocks ahead on each side. Successive windows overlap, so
// scores are memoised: O((n+k)·runWindow) comparisons.
func alignGreedy(olds, news []*Block, score weightFunc) []Pair {
	type scored struct {
		w  float64
		p  Pair
		ok bool
	}
	memo := make(map[[2]int]scored)
	weight := func(i, j int) (float64, Pair, bool) {
		if s, ok := memo[[2]int{i, j}]; ok {
			return s.w, s.p, s.ok
		}
		w, p, ok := score(i, j)
		memo[[2]int{i, j}] = scored{w, p, ok}
		return w, p, ok
	}
	steps := make([]Pair, 0, len(olds)+len(news))
	i, j := 0, 0
	for i < len(olds) && j < len(news) {
		bi, bj, bw, bp := -1, -1, 0.0, Pair{}
		for d := 0; d < 2*runWindow-1 && bi < 0; d++ { // nearest first: di+dj = d
			for di := max(0, d-runWindow+1); di <= min(d, runWindow-1); di++ {
				dj := d - di
				if i+di >= len(olds) || j+dj >= len(news) {
					continue
				}
				if w, p, ok := weight(i+di, j+dj); ok && (bi < 0 || w > bw) {
					bi, bj, bw, bp = i+di, j+dj, w, p
				}
			}
		}
		if bi < 0 {
			steps = append(steps, Pair{Old: olds[i], Kind: Removed}, Pair{New: news[j], Kind: Added})
			i, j = i+1, j+1
			continue
		}
		for ; i < bi; i++ {
			steps = append(steps, Pair{Old: olds[i], Kind: Removed})
		}
		for ; j < bj; j++ {
			steps = append(steps, Pair{New: news[j], Kind: Added})
		}
		steps = append(steps, bp)
		i, j = i+1, j+1
	}
	for ; i < len(olds); i++ {
		steps = append(steps, Pair{Old: olds[i], Kind: Removed})
	}
	for ; j < len(news); j++ {
		steps = append(steps, Pair{New: news[j], Kind: Added})
	}
	return steps
}

// textBound is an upper bound of s.TextSimilarity(t) from the sketch
// sizes alone: exact sets of sizes a ≤ b share at most a of b elements.
// Sketches that were cut to SketchSize give no bound.
func textBound(s, t Signature) float64 {
	a, b := len(s.text), len(t.text)
	if a > b {
		a, b = b, a
	}
	k := s.opts.withDefaults().SketchSize
	if b == 0 || b >= k {
		return 1
	}
	return float64(a) / float64(b)
}

// Bound on the exact LCS of a range without unique common elements.
const maxLCSCells = 1 << 18

// lcsIndex returns index pairs (i, j) with a[i] == b[j], increasing in both
// i and j: a common subsequence as long as a patience diff finds. Common
// prefix and suffix are matched first; elements that occur exactly once
// in each range anchor the rest (longest increasing subsequence of their
// positions); ranges between anchors recurse; a range without unique
// elements gets an exact LCS when it has at most maxLCSCells cells, and
// no matches otherwise. Cost is O((len(a)+len(b))·log) plus bounded DP.
func lcsIndex(a, b []uint64) [][2]int {
	var out [][2]int
	lcsRange(a, b, 0, len(a), 0, len(b), &out, 0)
	return out
}

func lcsRange(a, b []uint64, a0, a1, b0, b1 int, out *[][2]int, depth int) {
	for a0 < a1 && b0 < b1 && a[a0] == b[b0] {
		*out = append(*out, [2]int{a0, b0})
		a0, b0 = a0+1, b0+1
	}
	end := a1
	for a0 < a1 && b0 < b1 && a[a1-1] == b[b1-1] {
		a1, b1 = a1-1, b1-1
	}
	lcsMiddle(a, b, a0, a1, b0, b1, out, depth)
	for i := 0; a1+i < end; i++ {
		*out = append(*out, [2]int{a1 + i, b1 + i})
	}
}

// lcsMiddle matches a range whose ends differ.
func lcsMiddle(a, b []uint64, a0, a1, b0, b1 int, out *[][2]int, depth int) {
	if a0 >= a1 || b0 >= b1 {
		return
	}
	anchors := uniqueAnchors(a, b, a0, a1, b0, b1)
	if len(anchors) == 0 || depth > 64 {
		if (a1-a0)*(b1-b0) <= maxLCSCells {
			lcsDP(a, b, a0, a1, b0, b1, out)
		}
		return
	}
	i, j := a0, b0
	for _, p := range anchors {
		lcsRange(a, b, i, p[0], j, p[1], out, depth+1)
		*out = append(*out, p)
		i, j = p[0]+1, p[1]+1
	}
	lcsRange(a, b, i, a1, j, b1, out, depth+1)
}

// uniqueAnchors returns the longest increasing run of positions of the
// elements found exactly once in a[a0:a1] and once in b[b0:b1].
func uniqueAnchors(a, b []uint64, a0, a1, b0, b1 int) [][2]int {
	type occ struct{ na, nb, ia, ib int }
	seen := make(map[uint64]*occ, (a1-a0)+(b1-b0))
	for i := a0; i < a1; i++ {
		o := seen[a[i]]
		if o == nil {
			o = &occ{}
			seen[a[i]] = o
		}
		o.na++
		o.ia = i
	}
	for j := b0; j < b1; j++ {
		if o := seen[b[j]]; o != nil {
			o.nb++
			o.ib = j
		}
	}
	var cand [][2]int // in a's order
	for i := a0; i < a1; i++ {
		if o := seen[a[i]]; o.na == 1 && o.nb == 1 {
			cand = append(cand, [2]int{o.ia, o.ib})
		}
	}
	if len(cand) == 0 {
		return nil
	}
	// Longest increasing subsequence of cand[].[1] (patience sorting).
	tails := []int{} // index into cand of the smallest tail of each length
	prev := make([]int, len(cand))
	for c := range cand {
		lo, hi := 0, len(tails)
		for lo < hi {
			mid := (lo + hi) / 2
			if cand[tails[mid]][1] < cand[c][1] {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo > 0 {
			prev[c] = tails[lo-1]
		} else {
			prev[c] = -1
		}
		if lo == len(tails) {
			tails = append(tails, c)
		} else {
			tails[lo] = c
		}
	}
	res := make([][2]int, len(tails))
	for c, k := tails[len(tails)-1], len(tails)-1; k >= 0; c, k = prev[c], k-1 {
		res[k] = cand[c]
	}
	return res
}

// lcsDP appends an exact longest common subsequence of two small ranges.
func lcsDP(a, b []uint64, a0, a1, b0, b1 int, out *[][2]int) {
	n, m := a1-a0, b1-b0
	t := make([]int32, (n+1)*(m+1))
	at := func(i, j int) int { return i*(m+1) + j }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[a0+i] == b[b0+j] {
				t[at(i, j)] = t[at(i+1, j+1)] + 1
			} else {
				t[at(i, j)] = max(t[at(i+1, j)], t[at(i, j+1)])
			}
		}
	}
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case a[a0+i] == b[b0+j]:
			*out = append(*out, [2]int{a0 + i, b0 + j})
			i, j = i+1, j+1
		case t[at(i+1, j)] >= t[at(i, j+1)]:
			i++
		default:
			j++
		}
	}
}
