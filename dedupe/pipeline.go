package dedupe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"sync"
	"sync/atomic"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/partition"
	"github.com/blockwarc/blockwarc/warcio"
)

// ingester is the state of one Ingest. The walk callback cuts the
// captures into jobs (one URL, or a slice of a long URL history); jobs are
// modelled in parallel, then applied to the writer strictly in walk
// order, so the archive does not depend on the number of workers.
//
// With one worker everything runs in the walk callback's goroutine. With
// more, a job is modelled in a goroutine of its own (at most Workers at a
// time) and applied by the applier goroutine, which owns the writer until
// finish: the walk goes on cutting and handing out jobs while the applier
// adds objects and waits for frames to be compressed.
type ingester struct {
	ctx  context.Context
	opts *Options
	s    *pack.Store
	w    *pack.Writer
	r    *root
	hist *historyReader // the runs of earlier ingests, read by workers
	// segVotes counts, per earlier catalog segment, the pending URLs
	// whose newest earlier versions it holds (segmentBase).
	segVotes map[pack.ID]int
	// chunkEnd is the number of chunks the archive held when this ingest
	// began (historyAnchor).
	chunkEnd uint64
	st       *Stats
	run      int // index of this ingest's run in r.Runs
	// budget divides Options.MemLimit (SplitMemory).
	budget Budget

	prevFirst    *firstPage    // the first page of the last URL that had one (applier)
	pending      []URLVersions // catalog entries not yet in a segment
	pendingBytes int
	sinceCommit  int64

	cur     *job             // the job receiving captures
	records map[string]int64 // records read, by input path (walk callback)
	// rename maps an input path to the name its versions take (repair's
	// re-ingest: the name the file was ingested under, recoverSegments).
	rename map[string]string
	// walk digests the captures walked (walk callback); while resume is
	// set, captures up to its key are skipped as committed, and resumed
	// counts the records skipped.
	walk    *walkDigest
	resume  *openIngest
	resumed int64

	// Model slots, each with its Partitioner (cached style sheets and
	// stems; identical output to partition.Partition). With one worker
	// slots is nil and part serves the caller's goroutine.
	slots    chan *partition.Partitioner
	part     *partition.Partitioner
	applyq   chan *job     // jobs in walk order, to the applier
	applied  chan struct{} // closed when the applier has returned
	applyErr error         // the applier's first error, read after applied
	failed   atomic.Bool   // stop: an error happened on either side

	mu        sync.Mutex
	room      sync.Cond           // signalled when inflight shrinks or on failure
	inflight  int64               // bytes of the jobs handed out, not yet applied
	malformed map[string]int64    // malformed records skipped, by input path
	pieces    map[string]pieceSum // the extents of its records and gaps, by input path (Original.PerPiece)
	streams   map[string]warcio.FileStream
}

// errStopped stops the walk after the applier failed; finish returns the
// applier's error.
var errStopped = errors.New("ingest stopped")

// Bounds of the job pipeline.
const (
	maxJobBytes      = 16 << 20 // a longer URL history is cut into several jobs
	maxJobsPerWorker = 64       // jobs handed out and not yet applied, per worker
)

// capData is one capture as a job holds it.
type capData struct {
	v         Version
	rawHeader []byte
	block     []byte
}

// job is a run of captures of one URL, modelled by one worker.
type job struct {
	key     string
	first   bool     // the URL's first job: load its history
	last    bool     // the URL's last job: queue its catalog entry
	walk    [32]byte // a last job's: the walk digest up to its URL's end
	u       *urlState
	caps    []capData
	bytes   int64
	prev    chan struct{} // closed when the URL's previous job is modelled
	done    chan struct{}
	results []result
	st      Stats
	err     error
}

// result is one modelled record: its version and the objects to add.
type result struct {
	v    Version
	plan *plan
}

func (g *ingester) capture(c *warcio.Capture) error {
	if g.failed.Load() {
		return errStopped
	}
	if !c.Gap {
		g.records[c.File]++
	}
	block, err := warcio.ReadBlock(c.Body, c.ContentLen, maxJobBytes)
	if err != nil {
		return fmt.Errorf("read record %s at %d: %w", c.File, c.Offset, err)
	}
	if !g.opts.SkipOriginal { // only the member search compares them
		ps := g.pieces[c.File]
		ps.add(c.Offset, c.SkipInMember, int64(len(c.RawHeader)+len(block)+len(c.Trailer)))
		g.pieces[c.File] = ps
	}
	file := c.File
	if n, ok := g.rename[file]; ok {
		file = n
	}
	v := Version{
		File: file, Offset: c.Offset, Length: c.Length, Skip: c.SkipInMember,
		Date: c.Date, Type: c.Type, RecordID: c.RecordID, TargetURI: c.TargetURI,
		Trailer: bytes.Clone(c.Trailer), Gap: c.Gap,
	}
	h := crc32.Checksum(c.RawHeader, castagnoli)
	h = crc32.Update(h, castagnoli, block)
	v.CRC = crc32.Update(h, castagnoli, c.Trailer)
	d := c.Digests()
	v.BlockDigestOK, v.PayloadDigestOK = d.BlockMatch == warcio.MatchOK, d.PayloadMatch == warcio.MatchOK
	if d.BlockSHA1 != nil {
		v.read = &d
	}
	if g.resume != nil {
		if c.Key > g.resume.Key {
			// Past the committed position: resume only if the walk up
			// to it is the one committed.
			if g.walk.sum() != g.resume.Walk {
				return errResumeMismatch
			}
			g.resume = nil
		} else {
			g.walk.add(c.Key, &v)
			if !c.Gap {
				g.resumed++
			}
			return nil
		}
	}
	if g.cur == nil || c.Key != g.cur.key {
		if err := g.endURL(); err != nil {
			return err
		}
		g.cur = &job{key: c.Key, first: true, u: &urlState{key: c.Key}, done: make(chan struct{})}
	} else if g.cur.bytes >= maxJobBytes {
		prev := g.cur
		if err := g.submit(prev); err != nil {
			return err
		}
		g.cur = &job{key: c.Key, u: prev.u, prev: prev.done, done: make(chan struct{})}
	}
	g.walk.add(c.Key, &v)
	j := g.cur
	j.caps = append(j.caps, capData{v: v, rawHeader: bytes.Clone(c.RawHeader), block: block})
	j.bytes += int64(len(c.RawHeader) + len(block) + len(c.Trailer))
	return nil
}

// endURL hands the current URL's last job to the pipeline.
func (g *ingester) endURL() error {
	j := g.cur
	if j == nil {
		return nil
	}
	g.cur = nil
	j.last = true
	j.walk = g.walk.sum()
	return g.submit(j)
}

// start sets up the pipeline: with more than one worker, model slots and
// the applier goroutine.
func (g *ingester) start() {
	g.room.L = &g.mu
	workers := g.opts.Workers
	if workers <= 1 {
		g.part = partition.NewPartitioner()
		return
	}
	g.slots = make(chan *partition.Partitioner, workers)
	for range workers {
		g.slots <- partition.NewPartitioner()
	}
	// Bytes bound what is in flight (submit); the count only bounds the
	// per-job overhead. A count as low as a few jobs per worker idles the
	// workers behind one long URL history.
	g.applyq = make(chan *job, maxJobsPerWorker*workers)
	g.applied = make(chan struct{})
	go g.applier()
}

// submit hands j to the pipeline. With one worker it is modelled and
// applied right here; with more, it is modelled by a goroutine of its own
// and applied by the applier, and submit waits only while the jobs handed
// out hold too many bytes.
func (g *ingester) submit(j *job) error {
	if g.slots == nil {
		g.model(j, g.part)
		return g.apply(j)
	}
	limit := g.budget.InFlight
	g.mu.Lock()
	for g.inflight > 0 && g.inflight+j.bytes > limit && !g.failed.Load() {
		g.room.Wait()
	}
	g.inflight += j.bytes
	g.mu.Unlock()
	if g.failed.Load() {
		return errStopped
	}
	go func() {
		if j.prev != nil {
			<-j.prev // before taking a slot: waiting jobs hold none
		}
		part := <-g.slots
		g.model(j, part)
		g.slots <- part
	}()
	g.applyq <- j // the applier drains the queue until finish, even after a failure
	return nil
}

// applier applies the jobs in walk order as they are modelled. After a
// failure (its own or the walk's) it only waits for the jobs, so that no
// worker outlives Ingest.
func (g *ingester) applier() {
	defer close(g.applied)
	for j := range g.applyq {
		<-j.done
		if !g.failed.Load() {
			if err := g.apply(j); err != nil {
				g.applyErr = err
				g.failed.Store(true)
			}
		}
		j.results = nil
		g.mu.Lock()
		g.inflight -= j.bytes
		g.room.Broadcast()
		g.mu.Unlock()
	}
}

// finish waits until every job handed out is applied (or, after a failure,
// modelled) and returns the applier's error. It may be called again.
func (g *ingester) finish() error {
	if g.applyq == nil {
		return nil
	}
	close(g.applyq)
	<-g.applied
	g.applyq = nil
	return g.applyErr
}

// model runs in a worker: it turns the job's captures into versions and
// object plans. It touches only the job and its URL state.
func (g *ingester) model(j *job, part *partition.Partitioner) {
	defer close(j.done)
	u := j.u
	u.part = part // the URL's jobs are modelled one after the other
	if j.first {
		unread, err := g.loadHistory(u)
		if err != nil {
			j.err = err
			return
		}
		if unread > 0 {
			j.st.HistoryUnread++
		}
	}
	for i := range j.caps {
		c := &j.caps[i]
		if c.v.Gap {
			j.st.Gaps++
			j.st.GapBytes += int64(len(c.block))
		} else {
			j.st.Records++
		}
		id := identity(c.v.File, c.v.Offset, c.v.Skip)
		if u.seen[id] {
			j.st.Repeats++
			continue
		}
		u.seen[id] = true
		j.st.InputBytes += int64(len(c.rawHeader) + len(c.block) + len(c.v.Trailer))
		v := c.v
		if len(u.added) > 0 {
			v.prevRecordID = u.added[len(u.added)-1].RecordID
		}
		p := g.store(u, &v, c.rawHeader, c.block, &j.st)
		j.results = append(j.results, result{v: v, plan: p})
		u.added = append(u.added, v)
		c.rawHeader, c.block = nil, nil
	}
	j.caps = nil
}

// apply adds a modelled job's objects to the writer, in walk order, and
// for a URL's last job queues its catalog entry and commits when due.
func (g *ingester) apply(j *job) error {
	if j.err != nil {
		return j.err
	}
	// The walk may have handed out its last job long ago.
	if err := g.ctx.Err(); err != nil {
		return err
	}
	g.st.add(&j.st)
	g.sinceCommit += j.st.InputBytes
	if j.first {
		g.w.Learn(j.u.learn...)
		j.u.learn = nil
	}
	for _, r := range j.results {
		p := r.plan
		if p.res != nil {
			g.crossBases(&r)
		}
		for _, id := range p.ids {
			o := p.objs[id]
			var got pack.ID
			var isNew bool
			var err error
			// id is the plan's g.s.Sum of o.data: not hashed again.
			if o.near {
				got, isNew, err = g.w.AddSummed(o.kind, o.data, id, &o.base, true)
			} else if o.base != (pack.ID{}) && o.base != id {
				got, isNew, err = g.w.AddSummed(o.kind, o.data, id, &o.base, false)
				if errors.Is(err, pack.ErrNotFound) {
					got, isNew, err = g.w.AddSummed(o.kind, o.data, id, nil, false)
				}
			} else {
				got, isNew, err = g.w.AddSummed(o.kind, o.data, id, nil, false)
			}
			if err != nil {
				return fmt.Errorf("store object of %s at %d: %w", r.v.File, r.v.Offset, err)
			}
			if got != id {
				// Named by place: the catalog entry takes the name.
				if j.u.named == nil {
					j.u.named = map[pack.ID]pack.ID{}
				}
				j.u.named[id] = got
			}
			if isNew {
				g.st.NewObjects++
				g.st.NewBytes += int64(len(o.data))
			}
		}
		if err := g.boundCapture(j.u, &r); err != nil {
			return fmt.Errorf("store objects of %s at %d: %w", r.v.File, r.v.Offset, err)
		}
	}
	j.results = nil
	if !j.last {
		return nil
	}
	if len(j.u.added) > 0 {
		for i := range j.u.added {
			j.u.rename(&j.u.added[i])
		}
		g.pending = append(g.pending, URLVersions{Key: j.key, Versions: j.u.added})
		if j.u.histSeg != (pack.ID{}) {
			if g.segVotes == nil {
				g.segVotes = map[pack.ID]int{}
			}
			g.segVotes[j.u.histSeg]++
		}
		g.pendingBytes += len(j.key) + 200*len(j.u.added)
	}
	if g.pendingBytes >= 64<<10 {
		if err := g.writeSegment(); err != nil {
			return err
		}
	}
	if g.opts.Progress != nil {
		g.opts.Progress(*g.st)
	}
	if g.sinceCommit >= g.opts.CommitBytes {
		return g.commit(&openIngest{Run: g.run, Key: j.key, Walk: j.walk})
	}
	return nil
}

// add sums the counters a job gathered into s.
func (s *Stats) add(o *Stats) {
	s.Records += o.Records
	s.Repeats += o.Repeats
	s.InputBytes += o.InputBytes
	s.Partitioned += o.Partitioned
	s.EncodedBlocks += o.EncodedBlocks
	s.EncodedWhole += o.EncodedWhole
	s.WholePayload += o.WholePayload
	s.NonHTTP += o.NonHTTP
	s.RawRecords += o.RawRecords
	s.Gaps += o.Gaps
	s.GapBytes += o.GapBytes
	s.HistoryUnread += o.HistoryUnread
}

// segmentTail is how many bytes of other objects a catalog segment's
// frame may take along (writeSegment).
const segmentTail = 16 << 10

func (g *ingester) writeSegment() error {
	if len(g.pending) == 0 {
		return nil
	}
	seg, serr := encodeSegment(g.pending, g.w.Unique)
	if serr != nil {
		return serr
	}
	// A segment gets a frame of its own, so that finding a URL
	// decompresses only catalog; but a few small objects left since the
	// last data frame (header anchors of the last URLs, say) share it:
	// alone, they would cost a frame header and compress poorly, and
	// decoding them along with the segment costs next to nothing.
	if g.w.FrameBytes() > segmentTail {
		if err := g.w.Flush(); err != nil {
			return err
		}
	}
	// The previous segment of the run is the frame's zstd dictionary:
	// segments repeat the same input file names, types, target URI
	// shapes and header encodings, which a 64 KiB segment alone cannot
	// learn. The chain is bounded by the store's MaxChain, so finding a
	// URL decodes at most that many segments (usually cached).
	// A run's first segment takes the last segment of the run before it:
	// an archive ingested a crawl at a time starts a run per crawl, and
	// its segments differ in little but dates and record ids.
	var id pack.ID
	var err error
	if base, ok := g.segmentBase(); ok {
		id, _, err = g.w.AddDelta(pack.KindVersionCatalog, seg, base)
	} else {
		id, _, err = g.w.Add(pack.KindVersionCatalog, seg)
	}
	if err != nil {
		return fmt.Errorf("store catalog segment: %w", err)
	}
	if err := g.w.Flush(); err != nil {
		return err
	}
	g.r.Runs[g.run] = append(g.r.Runs[g.run], segRef{First: g.pending[0].Key, Last: g.pending[len(g.pending)-1].Key, ID: id})
	if g.run < len(g.r.Dates) {
		g.r.Dates[g.run].addVersions(g.pending)
	}
	g.pending, g.pendingBytes = nil, 0
	clear(g.segVotes)
	return nil
}

// segmentBase is the segment the next one is a delta of: the earlier
// segment that holds the previous versions of most of its URLs (their
// hosts, paths, header encodings and file names), else the run's last,
// else the last of the nearest earlier run that has one. A collection
// ingested a crawl at a time from many sites has its runs interleaved,
// so the run before is usually another site's: on 351 one-crawl
// ingests of the four corpus sites mixed, the catalog took 412 KB with
// the run before as base.
func (g *ingester) segmentBase() (pack.ID, bool) {
	var best pack.ID
	votes := 0
	for id, n := range g.segVotes {
		// Ties go to the smaller id: the same base whatever the map's order.
		if n > votes || (n == votes && bytes.Compare(id[:], best[:]) < 0) {
			best, votes = id, n
		}
	}
	if votes > 0 {
		return best, true
	}
	for r := g.run; r >= 0; r-- {
		if run := g.r.Runs[r]; len(run) > 0 {
			return run[len(run)-1].ID, true
		}
	}
	return pack.ID{}, false
}

// commit writes the pending catalog entries and commits, with open the
// position of the walk for every commit but the last (nil). What comes
// after a commit depends on the archive and the walk alone (resume.go):
// the previous URL's first page is forgotten here.
func (g *ingester) commit(open *openIngest) error {
	g.prevFirst = nil
	if err := g.writeSegment(); err != nil {
		return err
	}
	g.r.Open = open
	// An empty run would only cost bytes.
	runs := g.r.Runs
	if len(runs[g.run]) == 0 {
		g.r.Runs = runs[:g.run]
	}
	err := g.r.storeFiles(g.w)
	var payload []byte
	if err == nil {
		payload, err = g.r.encode()
	}
	if err == nil {
		err = g.w.Commit(payload)
	}
	g.r.Runs = runs
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	g.st.Commits++
	g.sinceCommit = 0
	return nil
}

// boundCapture keeps the restore of the capture r, its objects added,
// within the archive's CaptureFrames (pack.Writer.BoundCapture): the
// objects the writer stores again take their new places in the
// catalog. The objects are those its version names, in the order of
// Version's fields: what the restore reads.
func (g *ingester) boundCapture(u *urlState, r *result) error {
	if g.w.Settings().CaptureFrames <= 0 {
		return nil
	}
	v := &r.v
	ids := []pack.ID{v.Record, v.WARCAnchor, v.Block, v.HTTPAnchor, v.Payload, v.Layout}
	ids = append(ids, v.Blocks...)
	var objs []pack.CaptureObject
	var from []pack.ID
	for _, id := range ids {
		if id == (pack.ID{}) {
			continue
		}
		o, ok := r.plan.objs[id]
		if !ok {
			continue
		}
		name := id
		if n, ok := u.named[id]; ok {
			name = n
		}
		objs = append(objs, pack.CaptureObject{ID: name, Kind: o.kind, Data: o.data})
		from = append(from, id)
	}
	names, moved, err := g.w.BoundCapture(objs)
	if err != nil || moved == 0 {
		return err
	}
	g.st.CaptureMoved += int64(moved)
	for i, n := range names {
		if n != objs[i].ID {
			if u.named == nil {
				u.named = map[pack.ID]pack.ID{}
			}
			u.named[from[i]] = n
		}
	}
	return nil
}
