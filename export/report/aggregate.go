package report

import (
	"cmp"
	"container/heap"
	"errors"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/blockwarc/blockwarc/export/changerate"
	"github.com/blockwarc/blockwarc/export/tables"
)

// Options bound what the report keeps and set the back-test. The zero
// value is usable.
type Options struct {
	TopHosts  int // hosts listed (default 20)
	MaxHosts  int // hosts with their own totals; later hosts are summed into other_hosts (default 100,000)
	TopURLs   int // URL histories kept for the charts (default 20)
	TopBlocks int // volatile block positions listed (default 20)
	MaxPoints int // points per URL history; longer histories are merged into runs (default 240)

	// MinCaptures is the fewest captures a URL needs to be back-tested
	// (default 4, the least that leaves two fitted intervals and one
	// predicted); Threshold the PChange at or above which the model
	// predicts a change (default 0.5).
	MinCaptures int
	Threshold   float64

	// Alternatives measures the computed alternatives (gzip_revisits,
	// zstd_long): a second full read of the archive, compressing every
	// record.
	Alternatives bool
}

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.TopHosts, 20)
	def(&o.MaxHosts, 100_000)
	def(&o.TopURLs, 20)
	def(&o.TopBlocks, 20)
	def(&o.MaxPoints, 240)
	def(&o.MinCaptures, 4)
	if o.MinCaptures < 3 {
		o.MinCaptures = 3 // a fitted interval and a predicted one
	}
	if !(o.Threshold > 0 && o.Threshold <= 1) {
		o.Threshold = 0.5
	}
	return o
}

// Aggregator is a tables.Sink that sums the rows for the report. Its
// memory is bounded by Options (top lists, host totals) plus the history
// of the URL being received (a few dozen bytes per capture and per
// changed block path of that URL).
type Aggregator struct {
	o Options

	caps      Captures
	storage   map[Storage]int64
	hosts     map[string]*Host
	other     Host
	hostsFull bool
	nonHTTP   NonHTTP
	schemes   map[string]int64
	days      map[int64]*Period // by day since the epoch, UTC
	bt        Backtest
	blocks    Blocks
	statuses  map[string]int64
	labels    map[string]int64

	cur      urlState
	series   seriesHeap
	volatile volatileHeap
	// volatileByID indexes the volatile list by block id once the blocks
	// rows start (the list is final by then), to describe them.
	volatileByID map[string][]*VolatileBlock

	closed bool
}

// urlState is the history of the URL being received.
type urlState struct {
	key, url, host string
	points         []Point
	intervals      []float64
	changed        []bool
	pathChanges    map[string]int64
	pathBlock      map[string]string // path → block id, latest capture
	http           bool              // a capture has an HTTP status: a web page
	nonWeb         bool              // the URL's scheme is not http or https
}

// isWeb says whether a url_protocol is the web's: the others (metadata,
// dns, urn…) are a crawler's own records, not the site's URLs.
func isWeb(scheme string) bool { return scheme == "http" || scheme == "https" }

// NewAggregator returns an empty Aggregator.
func NewAggregator(o Options) *Aggregator {
	o = o.withDefaults()
	return &Aggregator{
		o:        o,
		storage:  map[Storage]int64{},
		hosts:    map[string]*Host{},
		days:     map[int64]*Period{},
		statuses: map[string]int64{},
		labels:   map[string]int64{},
		schemes:  map[string]int64{},
		bt:       Backtest{MinCaptures: o.MinCaptures, Threshold: o.Threshold},
		cur:      urlState{pathChanges: map[string]int64{}, pathBlock: map[string]string{}},
	}
}

var errClosed = errors.New("report: row after Close")

// enter makes key the current URL, finishing the previous one when the
// rows moved on without its urls row.
func (g *Aggregator) enter(key string) {
	if key != g.cur.key {
		g.finishURL()
		g.cur.key = key
	}
}

// capture takes a tables.Capture row.
func (g *Aggregator) capture(c *tables.Capture) error {
	if g.closed {
		return errClosed
	}
	g.enter(c.URLSURTKey)
	g.cur.url = c.URL
	if c.FetchStatus != nil {
		g.cur.http = true
	}
	k := &g.caps
	k.Total++
	why := ""
	if c.StoredWhy != nil {
		why = *c.StoredWhy
	}
	g.storage[Storage{StoredAs: c.StoredAs, StoredWhy: why}]++
	if c.StoredAs == "blocks" {
		k.AsBlocks++
	} else {
		k.Whole++
	}
	k.PayloadBytes += c.PayloadLength
	k.AddedBytes += c.AddedBytes
	k.RecordBytes += c.WARCRecordLength
	if !isWeb(c.URLProtocol) {
		// A crawler's own record: counted apart, in no URL, host or
		// change figure.
		g.cur.nonWeb = true
		n := &g.nonHTTP
		n.Captures++
		n.RecordBytes += c.WARCRecordLength
		n.AddedBytes += c.AddedBytes
		g.schemes[c.URLProtocol]++
		return nil
	}
	host := hostKey(c.URL, c.URLHostName)
	g.cur.host = host
	switch {
	case c.Changed == nil:
		k.First++
	case *c.Changed:
		k.Changed++
		if c.TextChanged != nil {
			if *c.TextChanged {
				k.TextChanged++
			} else {
				k.MarkupOnly++
			}
		}
	default:
		k.Unchanged++
	}
	if c.WARCType == "revisit" {
		k.Revisits++
	}

	changed := c.Changed != nil && *c.Changed
	h := g.host(host)
	h.Captures++
	if changed {
		h.Changed++
	}
	h.RecordBytes += c.WARCRecordLength
	h.PayloadBytes += c.PayloadLength
	h.AddedBytes += c.AddedBytes

	var ch, tx, mo int64
	if changed {
		ch = 1
		switch {
		case c.TextChanged == nil:
		case *c.TextChanged:
			tx = 1
		default:
			mo = 1
		}
	}
	if !c.FetchTime.IsZero() {
		t := c.FetchTime.UTC()
		if k.FirstTime == nil || t.Before(*k.FirstTime) {
			k.FirstTime = &t
		}
		if k.LastTime == nil || t.After(*k.LastTime) {
			k.LastTime = &t
		}
		day := floorDiv(t.Unix(), 86400)
		p := g.days[day]
		if p == nil {
			p = &Period{Start: time.Unix(day*86400, 0).UTC()}
			g.days[day] = p
		}
		p.Captures++
		p.Changed += ch
		p.TextChanged += tx
		p.MarkupOnly += mo
		p.AddedBytes += c.AddedBytes
		p.RecordBytes += c.WARCRecordLength
	}
	g.cur.points = append(g.cur.points, Point{Time: c.FetchTime.UTC(), Captures: 1, Changes: ch, TextChanges: tx, MarkupOnly: mo})
	return nil
}

// host returns the totals of a host, or of the other hosts once MaxHosts
// hosts have their own.
func (g *Aggregator) host(name string) *Host {
	if h := g.hosts[name]; h != nil {
		return h
	}
	if len(g.hosts) >= g.o.MaxHosts {
		g.hostsFull = true
		return &g.other
	}
	h := &Host{Host: name}
	g.hosts[name] = h
	return h
}

// hostKey is the host of a URL with its port when the URL names one (the
// corpus serves each site on its own port), lower-case; hostName (the
// table's url_host_name) when the URL does not parse.
func hostKey(u, hostName string) string {
	if p, err := url.Parse(u); err == nil && p.Host != "" {
		return strings.ToLower(p.Host)
	}
	return hostName
}

// captureBlock takes a tables.CaptureBlock row.
func (g *Aggregator) captureBlock(b *tables.CaptureBlock) error {
	if g.closed {
		return errClosed
	}
	g.enter(b.URLSURTKey)
	g.blocks.References++
	g.statuses[b.Status]++
	g.cur.pathBlock[b.Path] = b.BlockID
	return nil
}

// change takes a tables.Change row.
func (g *Aggregator) change(c *tables.Change) error {
	if g.closed {
		return errClosed
	}
	g.enter(c.URLSURTKey)
	if g.cur.nonWeb {
		return nil
	}
	g.cur.intervals = append(g.cur.intervals, c.IntervalDays)
	g.cur.changed = append(g.cur.changed, c.Changed)
	for _, p := range c.ChangedPaths {
		g.cur.pathChanges[p]++
	}
	return nil
}

// url takes a tables.URL row.
func (g *Aggregator) url(u *tables.URL) error {
	if g.closed {
		return errClosed
	}
	g.enter(u.URLSURTKey)
	if g.cur.url == "" {
		g.cur.url = u.URL
	}
	if !isWeb(u.URLProtocol) {
		g.cur.nonWeb = true
	}
	if g.cur.host == "" && !g.cur.nonWeb {
		g.cur.host = hostKey(u.URL, u.URLHostName)
	}
	g.finishURL()
	return nil
}

// finishURL folds the current URL's history into the totals and top lists.
func (g *Aggregator) finishURL() {
	c := &g.cur
	if c.key == "" && len(c.points) == 0 && len(c.intervals) == 0 {
		return
	}
	defer func() {
		c.key, c.url, c.host, c.http, c.nonWeb = "", "", "", false, false
		c.points = c.points[:0]
		c.intervals = c.intervals[:0]
		c.changed = c.changed[:0]
		clear(c.pathChanges)
		clear(c.pathBlock)
	}()
	if c.nonWeb {
		if c.key != "" {
			g.nonHTTP.URLs++
		}
		g.bt.NotPages++
		return
	}
	if len(c.points) == 0 && len(c.intervals) == 0 {
		return // a urls row without captures: nothing to count
	}
	g.caps.URLs++
	if c.host != "" {
		g.host(c.host).URLs++
	}
	g.backtest()

	var changes int64
	for _, ch := range c.changed {
		if ch {
			changes++
		}
	}
	g.series.offer(g.o.TopURLs, URLSeries{
		URL: c.url, Captures: int64(len(c.points)), Changes: changes,
	}, func() []Point { return mergePoints(c.points, g.o.MaxPoints) })

	if n := int64(len(c.intervals)); n > 0 && len(c.pathChanges) > 0 {
		// The URL's most volatile paths only, so that one page does not
		// fill the list.
		var mine volatileHeap
		for p, k := range c.pathChanges {
			mine.offer(volatilePerURL, VolatileBlock{
				URL: c.url, Path: p, Changes: k, Intervals: n,
				Rate: float64(k) / float64(n), BlockID: c.pathBlock[p],
			})
		}
		for _, v := range mine {
			g.volatile.offer(g.o.TopBlocks, v)
		}
	}
}

// volatilePerURL is the most block paths of one URL in the volatile list
// (as the urls table's volatile_paths).
const volatilePerURL = 5

// backtest fits the change rate on the first two thirds of the current
// URL's captures and predicts the intervals of the last third.
func (g *Aggregator) backtest() {
	c := &g.cur
	bt := &g.bt
	if !c.http {
		bt.NotPages++
		return // not a web page: a crawler's log, say
	}
	bt.URLs++
	n := len(c.intervals)
	bt.Intervals += int64(n)
	m := n + 1 // captures
	if m < g.o.MinCaptures {
		return
	}
	fit := (2*m+2)/3 - 1 // intervals among the first ⌈2m/3⌉ captures
	if fit < 1 || fit >= n {
		return
	}
	r, ok := changerate.Estimate(c.intervals[:fit], c.changed[:fit])
	if !ok || math.IsNaN(r.Rate) {
		return
	}
	bt.URLsTested++
	for i := fit; i < n; i++ {
		p := changerate.PChange(r.Rate, c.intervals[i])
		if math.IsNaN(p) {
			p = 0
		}
		pred := p >= g.o.Threshold
		act := c.changed[i]
		bt.IntervalsTested++
		bt.ExpectedChanges += p
		if act {
			bt.ActualChanges++
		}
		if pred {
			bt.PredictedChanges++
		}
		switch {
		case pred && act:
			bt.CorrectChanges++
		case !pred && !act:
			bt.CorrectUnchanged++
		}
	}
}

// mergePoints returns the points, merged into at most max runs of
// consecutive captures.
func mergePoints(ps []Point, max int) []Point {
	if len(ps) <= max {
		return slices.Clone(ps)
	}
	per := (len(ps) + max - 1) / max
	out := make([]Point, 0, max)
	for i := 0; i < len(ps); i += per {
		run := ps[i:min(i+per, len(ps))]
		p := Point{Time: run[0].Time}
		for _, q := range run {
			p.Captures += q.Captures
			p.Changes += q.Changes
			p.TextChanges += q.TextChanges
			p.MarkupOnly += q.MarkupOnly
		}
		out = append(out, p)
	}
	return out
}

// block takes a tables.Block row.
func (g *Aggregator) block(b *tables.Block) error {
	if g.closed {
		return errClosed
	}
	g.finishURL()
	if g.volatileByID == nil {
		g.volatileByID = map[string][]*VolatileBlock{}
		for i := range g.volatile {
			v := &g.volatile[i]
			if v.BlockID != "" {
				g.volatileByID[v.BlockID] = append(g.volatileByID[v.BlockID], v)
			}
		}
	}
	for _, v := range g.volatileByID[b.BlockID] {
		v.Tag, v.Label, v.Text = b.Tag, b.Label, snippet(b.Text, 80)
	}
	k := &g.blocks
	k.Distinct++
	k.Bytes += int64(b.Bytes)
	k.ReferencedBytes += int64(b.Bytes) * b.Captures
	if b.URLs > 1 {
		k.SharedAcrossURLs++
		k.SharedBytes += int64(b.Bytes)
	}
	g.labels[b.Label]++
	return nil
}

// snippet returns the first n runes of s with white space runs made one
// space, with "…" when cut.
func snippet(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// Takes implements tables.Sink: the report reads no links (Build then
// does not extract them).
func (g *Aggregator) Takes(table string) bool { return table != tables.LinksTable }

// Add implements tables.Sink.
func (g *Aggregator) Add(r tables.Row) error {
	switch r := r.(type) {
	case *tables.Capture:
		return g.capture(r)
	case *tables.CaptureBlock:
		return g.captureBlock(r)
	case *tables.Change:
		return g.change(r)
	case *tables.URL:
		return g.url(r)
	case *tables.Block:
		return g.block(r)
	}
	if g.closed {
		return errClosed
	}
	return nil
}

// Close implements tables.Sink: it finishes the last URL.
func (g *Aggregator) Close() error {
	if g.closed {
		return nil
	}
	g.finishURL()
	g.closed = true
	return nil
}

// fill copies the aggregated figures into r.
func (g *Aggregator) fill(r *Report) {
	g.finishURL()
	caps := g.caps
	caps.Hosts = int64(len(g.hosts))
	r.Captures = caps
	r.Storage = storageList(g.storage)

	hs := make([]Host, 0, len(g.hosts))
	for _, h := range g.hosts {
		hs = append(hs, *h)
	}
	slices.SortFunc(hs, func(a, b Host) int {
		return cmp.Or(cmp.Compare(b.Captures, a.Captures), cmp.Compare(a.Host, b.Host))
	})
	other := g.other
	other.Host = ""
	if len(hs) > g.o.TopHosts {
		for _, h := range hs[g.o.TopHosts:] {
			other.URLs += h.URLs
			other.Captures += h.Captures
			other.Changed += h.Changed
			other.RecordBytes += h.RecordBytes
			other.PayloadBytes += h.PayloadBytes
			other.AddedBytes += h.AddedBytes
		}
		hs = hs[:g.o.TopHosts]
	}
	for i := range hs {
		hs[i].PayloadSaving = saving(hs[i].AddedBytes, hs[i].PayloadBytes)
	}
	r.Hosts = hs
	r.NonHTTP = g.nonHTTP
	r.NonHTTP.Schemes = countList(g.schemes)
	if other.Captures > 0 || other.URLs > 0 {
		other.Host = "(other hosts)"
		if g.hostsFull {
			other.Host = "(other hosts; host list full)"
		}
		other.PayloadSaving = saving(other.AddedBytes, other.PayloadBytes)
		r.OtherHosts = &other
	}

	bt := g.bt
	bt.Precision = ratio(bt.CorrectChanges, bt.PredictedChanges)
	bt.Recall = ratio(bt.CorrectChanges, bt.ActualChanges)
	bt.Accuracy = ratio(bt.CorrectChanges+bt.CorrectUnchanged, bt.IntervalsTested)
	bt.BaseRate = ratio(bt.ActualChanges, bt.IntervalsTested)
	bt.CoverageURLs = ratio(bt.URLsTested, bt.URLs)
	bt.CoverageIntervals = ratio(bt.IntervalsTested, bt.Intervals)
	r.Backtest = bt

	bl := g.blocks
	bl.Statuses = countList(g.statuses)
	bl.Labels = countList(g.labels)
	r.Blocks = bl

	vs := slices.Clone(g.volatile)
	slices.SortFunc(vs, volatileCmp)
	r.VolatileBlocks = vs
	ss := make([]URLSeries, len(g.series))
	copy(ss, g.series)
	slices.SortFunc(ss, seriesCmp)
	r.URLSeries = ss
	r.Timeline, r.TimelinePeriod = timeline(g.days)
}

func storageList(m map[Storage]int64) []Storage {
	out := make([]Storage, 0, len(m))
	for s, n := range m {
		s.Count = n
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Storage) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.StoredAs, b.StoredAs), cmp.Compare(a.StoredWhy, b.StoredWhy))
	})
	return out
}

func countList(m map[string]int64) []Count {
	out := make([]Count, 0, len(m))
	for k, n := range m {
		out = append(out, Count{Name: k, Count: n})
	}
	slices.SortFunc(out, func(a, b Count) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Name, b.Name))
	})
	return out
}

func ratio(a, b int64) *float64 {
	if b == 0 {
		return nil
	}
	f := float64(a) / float64(b)
	return &f
}

// saving is 1 − part/whole; nil when whole is 0.
func saving(part, whole int64) *float64 {
	if whole == 0 {
		return nil
	}
	f := 1 - float64(part)/float64(whole)
	return &f
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// maxPeriods is the most bars the timeline has: the period is the
// shortest of day, week, month, year that stays within it.
const maxPeriods = 120

// timeline buckets the per-day counts into periods.
func timeline(days map[int64]*Period) ([]Period, string) {
	if len(days) == 0 {
		return nil, ""
	}
	keys := make([]int64, 0, len(days))
	for d := range days {
		keys = append(keys, d)
	}
	slices.Sort(keys)
	first := days[keys[0]].Start
	last := days[keys[len(keys)-1]].Start
	type unit struct {
		name  string
		start func(time.Time) time.Time
		next  func(time.Time) time.Time
	}
	units := []unit{
		{"day", func(t time.Time) time.Time { return t }, func(t time.Time) time.Time { return t.AddDate(0, 0, 1) }},
		{"week", func(t time.Time) time.Time { // weeks start on Monday
			return t.AddDate(0, 0, -((int(t.Weekday()) + 6) % 7))
		}, func(t time.Time) time.Time { return t.AddDate(0, 0, 7) }},
		{"month", func(t time.Time) time.Time {
			return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
		}, func(t time.Time) time.Time { return t.AddDate(0, 1, 0) }},
		{"year", func(t time.Time) time.Time {
			return time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
		}, func(t time.Time) time.Time { return t.AddDate(1, 0, 0) }},
	}
	for i, u := range units {
		start := u.start(first)
		n := 0
		for t := start; !t.After(last) && n <= maxPeriods; t = u.next(t) {
			n++
		}
		if n > maxPeriods && i < len(units)-1 {
			continue
		}
		out := make([]Period, 0, n)
		idx := map[time.Time]int{}
		for t := start; !t.After(last); t = u.next(t) {
			idx[t] = len(out)
			out = append(out, Period{Start: t})
		}
		for _, d := range keys {
			p := days[d]
			j := idx[u.start(p.Start)]
			out[j].Captures += p.Captures
			out[j].Changed += p.Changed
			out[j].TextChanged += p.TextChanged
			out[j].MarkupOnly += p.MarkupOnly
			out[j].AddedBytes += p.AddedBytes
			out[j].RecordBytes += p.RecordBytes
		}
		return out, u.name
	}
	return nil, ""
}

// seriesHeap keeps the URLs with the most captures: a min-heap whose
// root is the one to drop first.
type seriesHeap []URLSeries

func seriesCmp(a, b URLSeries) int {
	return cmp.Or(cmp.Compare(b.Captures, a.Captures), cmp.Compare(a.URL, b.URL))
}

func (h seriesHeap) Len() int           { return len(h) }
func (h seriesHeap) Less(i, j int) bool { return seriesCmp(h[i], h[j]) > 0 }
func (h seriesHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *seriesHeap) Push(x any)        { *h = append(*h, x.(URLSeries)) }
func (h *seriesHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// offer adds s when it ranks among the top n, computing its points only
// then.
func (h *seriesHeap) offer(n int, s URLSeries, points func() []Point) {
	if len(*h) >= n {
		if seriesCmp(s, (*h)[0]) >= 0 {
			return
		}
		heap.Pop(h)
	}
	s.Points = points()
	heap.Push(h, s)
}

// volatileHeap keeps the block positions that changed most often.
type volatileHeap []VolatileBlock

func volatileCmp(a, b VolatileBlock) int {
	return cmp.Or(cmp.Compare(b.Changes, a.Changes), cmp.Compare(b.Rate, a.Rate),
		cmp.Compare(a.URL, b.URL), cmp.Compare(a.Path, b.Path))
}

func (h volatileHeap) Len() int           { return len(h) }
func (h volatileHeap) Less(i, j int) bool { return volatileCmp(h[i], h[j]) > 0 }
func (h volatileHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *volatileHeap) Push(x any)        { *h = append(*h, x.(VolatileBlock)) }
func (h *volatileHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (h *volatileHeap) offer(n int, v VolatileBlock) {
	if len(*h) >= n {
		if volatileCmp(v, (*h)[0]) >= 0 {
			return
		}
		heap.Pop(h)
	}
	heap.Push(h, v)
}
