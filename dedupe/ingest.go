package dedupe

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"blockwarc/dedupe/hdrcodec"
	"blockwarc/dedupe/pack"
	"blockwarc/dedupe/reencode"
	"blockwarc/partition"
	"blockwarc/warcio"
)

// DefaultLevel is the partition level of a URL without history: the
// adaptive partition (partition.LevelAdaptive), whose blocks are single
// regions of the page. Stored in a Version as is; archives written
// before it stored fixed levels (1 and up), which keep their meaning.
const DefaultLevel = partition.LevelAdaptive

// DefaultFrameSize is the frame size ingest asks of the pack store when
// Options.Pack.FrameSize is 0: a URL's successive captures compress
// against each other only inside one frame, and on the corpus 4 MiB frames
// make the archive a third smaller than 512 KiB ones, for a few
// milliseconds more to decompress a frame on restore.
const DefaultFrameSize = 4 << 20

// Options configure Ingest. The zero value is usable.
type Options struct {
	// Level is the partition level for URLs the archive has no level for
	// yet (DefaultLevel, adaptive, when 0). A URL keeps the level of its
	// history.
	Level int
	// Pack configures the object store (frame size, delta chain bound,
	// compression workers...).
	Pack pack.Options
	// MemLimit and TempDir bound and place the sort of the capture walk
	// (warcio.WalkOptions).
	MemLimit int64
	TempDir  string
	// Reader configures the input readers (malformed-record policy...).
	Reader warcio.Options
	// Workers is how many URLs are modelled (partitioned, matched,
	// encoded, checked) in parallel (default 1). The archive written does
	// not depend on it. With 1, everything runs in the caller's goroutine;
	// with more, one more goroutine stores the modelled objects. Frames
	// compress in the background when Pack.Workers > 1 (the CLI sets it
	// to Workers; each frame compressing holds Pack.NativeMemory's share).
	Workers int
	// CommitBytes is how many bytes of input records are ingested between
	// commits (default 64 MiB); commits fall between URLs.
	CommitBytes int64
	// Progress, when set, is called after each URL with the totals so far,
	// from one goroutine at a time (with several workers, not the
	// caller's).
	Progress func(Stats)
	// InputProgress, when set, receives the stored input bytes read.
	InputProgress func(int64)
	// ReadDone, when set, is called once the inputs are read and sorted,
	// before the first record is stored, with the total length of their
	// decompressed streams: Progress's InputBytes then counts up to it
	// (short of it by the records a resumed ingest finds stored).
	ReadDone func(int64)
	// Reencode bounds the search for encoder settings that reproduce a
	// content-coded HTML payload (reencode.Find; zero: its defaults,
	// among them at most 10 ms to re-encode on restore). The search
	// depends on the bytes and these limits only, not on timing, so the
	// archive stays deterministic.
	Reencode reencode.Limits
}

// Stats count what Ingest did.
type Stats struct {
	Files        int   `json:"files"`         // input files ingested
	FilesSkipped int   `json:"files_skipped"` // input files already in the archive (same name, size, SHA-256)
	Records      int64 `json:"records"`       // records read
	Repeats      int64 `json:"repeats"`       // records already in the catalog (a resumed ingest)
	Malformed    int64 `json:"malformed"`     // malformed records skipped by the readers
	InputBytes   int64 `json:"input_bytes"`   // uncompressed bytes of the records ingested
	NewObjects   int64 `json:"new_objects"`   // new objects of records (catalog segments not counted)
	NewBytes     int64 `json:"new_bytes"`     // plaintext bytes of the new objects
	Partitioned  int64 `json:"partitioned"`   // HTML payloads without Content-Encoding stored as layout + blocks
	// EncodedBlocks are HTML payloads with a Content-Encoding whose
	// encoding Find reproduces, stored as the layout + blocks of the
	// decoded document and re-encoded on restore; EncodedWhole the
	// other ones, stored whole.
	EncodedBlocks int64 `json:"encoded_blocks"`
	EncodedWhole  int64 `json:"encoded_whole"`
	WholePayload  int64 `json:"whole_payload"` // other HTTP payloads, stored whole
	NonHTTP       int64 `json:"non_http"`      // records stored as header + block
	RawRecords    int64 `json:"raw_records"`   // records stored whole because the model did not reproduce them
	// Gaps are the runs of input bytes between records (stray line ends,
	// damage the readers skipped) kept so that every input file can be
	// rebuilt (pieces of at most warcio.MaxGapPiece bytes); GapBytes their
	// length.
	Gaps     int64 `json:"gaps"`
	GapBytes int64 `json:"gap_bytes"`
	Commits  int   `json:"commits"`
}

// expandInputs is warcio.ExpandInputs (the rule index uses too), sorted:
// an ingest reads its files in name order whatever order they are given
// in, so the same files give the same archive. Ingest hashes each file
// before reading it, so standard input ("-") is not an input here.
func expandInputs(inputs []string) ([]string, error) {
	if slices.Contains(inputs, "-") {
		return nil, errors.New("find input: ingest reads files (it hashes each one first); standard input is not supported")
	}
	out, err := warcio.ExpandInputs(inputs)
	if err != nil {
		return nil, err
	}
	sort.Strings(out)
	return slices.Compact(out), nil
}

// hashFile returns the name, size and SHA-256 of the file at path, read
// with buf (allocated when nil).
func hashFile(ctx context.Context, path string, buf []byte) (InputFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return InputFile{}, fmt.Errorf("hash input: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if buf == nil {
		buf = make([]byte, 256<<10)
	}
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return InputFile{}, err
		}
		k, err := f.Read(buf)
		h.Write(buf[:k])
		n += int64(k)
		if err == io.EOF {
			break
		}
		if err != nil {
			return InputFile{}, fmt.Errorf("hash input %s: %w", path, err)
		}
	}
	in := InputFile{Name: filepath.Base(path), Size: n}
	h.Sum(in.SHA256[:0])
	return in, nil
}

// Ingest adds the records of inputs to the archive in dir, creating it
// when dir holds none. It takes the archive lock (a second concurrent
// ingest fails with pack.ErrLocked), commits every Options.CommitBytes and
// at the end; after a crash the archive is at its last commit and running
// Ingest again completes it. Files already ingested completely are
// skipped.
func Ingest(ctx context.Context, dir string, inputs []string, opts Options) (Stats, error) {
	var st Stats
	if opts.Level == 0 {
		opts.Level = DefaultLevel
	}
	if opts.CommitBytes <= 0 {
		opts.CommitBytes = 64 << 20
	}
	if opts.Pack.FrameSize <= 0 {
		opts.Pack.FrameSize = DefaultFrameSize
	}
	s, err := pack.Open(dir, opts.Pack)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, pack.ErrNotArchive) {
		s, err = pack.Create(dir, opts.Pack)
	}
	if err != nil {
		return st, err
	}
	defer s.Close()
	w, err := s.Begin()
	if err != nil {
		return st, err
	}
	defer w.Close()
	r, err := decodeRoot(s.Payload())
	if err != nil {
		return st, fmt.Errorf("open catalog of %s: %w", dir, err)
	}

	files, err := expandInputs(inputs)
	if err != nil {
		return st, err
	}
	todo, skipped, later, err := selectInputs(ctx, files, r.Files)
	if err != nil {
		return st, err
	}
	st.FilesSkipped = skipped
	if len(todo) == 0 {
		return st, nil
	}
	// The inputs no earlier file can equal are hashed while they are
	// walked (the hash only goes into the input-file table at the end).
	hctx, stopHash := context.WithCancel(ctx)
	defer stopHash()
	hashed := make(chan error, 1)
	go func() {
		var err error
		buf := make([]byte, 256<<10)
		for _, i := range later {
			if todo[i].in, err = hashFile(hctx, todo[i].path, buf); err != nil {
				break
			}
		}
		hashed <- err
	}()

	g := &ingester{ctx: ctx, opts: &opts, s: s, w: w, r: r, st: &st, run: len(r.Runs),
		hist:    &root{Runs: r.Runs[:len(r.Runs):len(r.Runs)]},
		records: map[string]int64{}, malformed: map[string]int64{}, streams: map[string]warcio.FileStream{}}
	r.Runs = append(r.Runs, nil)
	g.start()
	defer g.finish()
	paths := make([]string, len(todo))
	for i := range todo {
		paths[i] = todo[i].path // not todo[i].in: being hashed
	}
	ws, err := warcio.Walk(ctx, paths, warcio.WalkOptions{
		MemLimit: opts.MemLimit, TempDir: opts.TempDir, Reader: g.readerOpts(opts.Reader),
		Progress: opts.InputProgress,
		Gaps:     true, OnFile: func(fs warcio.FileStream) { g.streams[fs.File] = fs },
		OnRead: func(int64) {
			if opts.ReadDone != nil {
				var total int64
				for _, fs := range g.streams {
					total += fs.Len
				}
				opts.ReadDone(total)
			}
		},
	}, g.capture)
	if err == nil {
		err = g.endURL()
	}
	if err != nil {
		g.failed.Store(true) // what is still queued is not applied
	}
	if ferr := g.finish(); ferr != nil {
		err = ferr // the applier's error, which stopped the walk
	}
	st.Malformed = ws.Skipped
	if err != nil {
		return st, err
	}
	if err := <-hashed; err != nil {
		return st, err
	}
	for _, t := range todo {
		in := t.in
		in.Records, in.Malformed = g.records[t.path], g.malformed[t.path]
		in.StreamLen = -1
		if fs, ok := g.streams[t.path]; ok {
			in.StreamLen, in.StreamSHA256, in.Gaps, in.Rebuildable = fs.Len, fs.SHA256, int64(fs.Gaps), fs.Tiled
		}
		r.Files = append(r.Files, in)
	}
	st.Files = len(todo)
	if err := g.commit(); err != nil {
		return st, err
	}
	return st, nil
}

// input is an input file to ingest; in is complete once it is hashed.
type input struct {
	path string
	in   InputFile
}

// selectInputs drops the files already in the archive (same name, size
// and SHA-256) and the later copies of a file among the inputs. Only a
// file sharing name and size with another one must be hashed to decide;
// the indexes (into todo) of the others, not hashed yet, are in later.
func selectInputs(ctx context.Context, files []string, have []InputFile) (todo []input, skipped int, later []int, err error) {
	type nameSize struct {
		name string
		size int64
	}
	seen := map[nameSize]int{}
	for _, f := range have {
		seen[nameSize{f.Name, f.Size}] += 2
	}
	sizes := make([]int64, len(files))
	for i, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			return nil, 0, nil, fmt.Errorf("hash input: %w", err)
		}
		sizes[i] = fi.Size()
		seen[nameSize{filepath.Base(f), fi.Size()}]++
	}
	var done []InputFile
	for i, f := range files {
		if seen[nameSize{filepath.Base(f), sizes[i]}] == 1 {
			later = append(later, len(todo))
			todo = append(todo, input{path: f})
			continue
		}
		in, err := hashFile(ctx, f, nil)
		if err != nil {
			return nil, 0, nil, err
		}
		// The same file under two paths (or a copy) is ingested once.
		if hasFile(have, in) || hasFile(done, in) {
			skipped++
			continue
		}
		todo = append(todo, input{path: f, in: in})
		done = append(done, in)
	}
	return todo, skipped, later, nil
}

// hasFile reports whether files holds in's name, size and SHA-256.
func hasFile(files []InputFile, in InputFile) bool {
	for _, f := range files {
		if f.Name == in.Name && f.Size == in.Size && f.SHA256 == in.SHA256 {
			return true
		}
	}
	return false
}

// readerOpts turns digests on and counts each input's malformed records:
// the readers report every skipped record or region as a *FormatError,
// except stray line ends (ErrBadTrailer), which they skip without
// counting. Under PolicySkip the errors are counted and dropped.
func (g *ingester) readerOpts(o warcio.Options) warcio.Options {
	o.Digests = true
	if o.Policy == warcio.PolicyFail {
		return o
	}
	forward := o.OnError
	if o.Policy != warcio.PolicyWarn {
		forward = nil
	}
	o.Policy = warcio.PolicyWarn
	o.OnError = func(err error) {
		var fe *warcio.FormatError
		if errors.As(err, &fe) && !errors.Is(err, warcio.ErrBadTrailer) {
			g.mu.Lock()
			g.malformed[fe.File]++
			g.mu.Unlock()
		}
		if forward != nil {
			forward(err)
		}
	}
	return o
}

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
	hist *root // the runs of earlier ingests, read by workers
	st   *Stats
	run  int // index of this ingest's run in r.Runs

	prevFirst    *firstPage    // the first page of the last URL that had one (applier)
	pending      []URLVersions // catalog entries not yet in a segment
	pendingBytes int
	sinceCommit  int64

	cur     *job             // the job receiving captures
	records map[string]int64 // records read, by input path (walk callback)

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
	room      sync.Cond        // signalled when inflight shrinks or on failure
	inflight  int64            // bytes of the jobs handed out, not yet applied
	malformed map[string]int64 // malformed records skipped, by input path
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
	first   bool // the URL's first job: load its history
	last    bool // the URL's last job: queue its catalog entry
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

// anchor is the raw header that later headers of a URL and type are
// encoded against.
type anchor struct {
	id  pack.ID
	enc []byte // the anchor object
	raw []byte
}

// urlState is what ingest keeps about the URL whose captures it is
// modelling: its history's predecessors. Jobs of one URL use it one after
// the other.
type urlState struct {
	key      string
	seen     map[[3]any]bool // (file, offset, skip) of versions already stored
	added    []Version
	level    int
	warcAnch map[string]*anchor // by WARC-Type
	httpAnch map[string]*anchor
	prevObj  map[string]pack.ID     // last block/record object by WARC-Type
	prevPay  pack.ID                // last whole payload
	prevLay  pack.ID                // last layout
	prevRes  *partition.Result      // last partition (this ingest only)
	prevBlk  []pack.ID              // its block ids
	part     *partition.Partitioner // of the job being modelled
}

// gapType is the prevObj key of gaps: no WARC-Type has a NUL.
const gapType = "\x00gap"

func identity(file string, off, skip int64) [3]any { return [3]any{file, off, skip} }

func (g *ingester) capture(c *warcio.Capture) error {
	if g.failed.Load() {
		return errStopped
	}
	if !c.Gap {
		g.records[c.File]++
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
	block, err := warcio.ReadBlock(c.Body, c.ContentLen, maxJobBytes)
	if err != nil {
		return fmt.Errorf("read record %s at %d: %w", c.File, c.Offset, err)
	}
	v := Version{
		File: c.File, Offset: c.Offset, Length: c.Length, Skip: c.SkipInMember,
		Date: c.Date, Type: c.Type, RecordID: c.RecordID, TargetURI: c.TargetURI,
		Trailer: bytes.Clone(c.Trailer), Gap: c.Gap,
	}
	h := crc32.Checksum(c.RawHeader, castagnoli)
	h = crc32.Update(h, castagnoli, block)
	v.CRC = crc32.Update(h, castagnoli, c.Trailer)
	d := c.Digests()
	v.BlockDigestOK, v.PayloadDigestOK = d.BlockMatch == warcio.MatchOK, d.PayloadMatch == warcio.MatchOK
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
	mem := g.opts.MemLimit
	if mem <= 0 {
		mem = warcio.DefaultWalkMemLimit // what the walk uses then
	}
	// A quarter of the memory: enough for several URLs to be in flight
	// (the jobs of one URL are modelled one after the other).
	limit := max(mem/4, maxJobBytes*2)
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
		if err := g.loadHistory(u); err != nil {
			j.err = err
			return
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

// loadHistory fills u from the versions earlier ingests stored.
func (g *ingester) loadHistory(u *urlState) error {
	key := u.key
	u.seen, u.level = map[[3]any]bool{}, g.opts.Level
	u.warcAnch, u.httpAnch, u.prevObj = map[string]*anchor{}, map[string]*anchor{}, map[string]pack.ID{}
	vs, err := versionsOf(g.s, g.hist, key)
	if err != nil {
		return fmt.Errorf("read history of %q: %w", key, err)
	}
	for i := range vs {
		v := &vs[i]
		u.seen[identity(v.File, v.Offset, v.Skip)] = true
		if v.Level != 0 { // LevelAdaptive is negative
			u.level = v.Level
		}
		switch {
		case v.Gap:
			u.prevObj[gapType] = v.Record
		case v.Mode == modeRaw:
			u.prevObj[v.Type] = v.Record
		case v.Mode == modeBlock:
			u.prevObj[v.Type] = v.Block
		case v.Mode == modeHTTP:
			if v.Form == formWhole {
				u.prevPay = v.Payload
			} else {
				u.prevLay, u.prevRes, u.prevBlk = v.Layout, nil, nil
			}
		}
		if v.Mode != modeRaw && v.WARCAnchor != (pack.ID{}) {
			u.warcAnch[v.Type] = &anchor{id: v.WARCAnchor}
		}
		if v.Mode == modeHTTP && v.HTTPAnchor != (pack.ID{}) {
			u.httpAnch[v.Type] = &anchor{id: v.HTTPAnchor}
		}
	}
	// Anchors are decoded once per URL.
	for _, m := range []map[string]*anchor{u.warcAnch, u.httpAnch} {
		for _, a := range m {
			enc, _, err := g.s.Get(a.id)
			if err != nil {
				return fmt.Errorf("read anchor of %q: %w", key, err)
			}
			raw, err := hdrcodec.Decode(nil, enc, nil, hdrcodec.Unknown())
			if err != nil {
				return fmt.Errorf("decode anchor of %q: %w", key, err)
			}
			a.enc, a.raw = enc, raw
		}
	}
	return nil
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
	for _, r := range j.results {
		p := r.plan
		if p.res != nil {
			g.crossBases(&r)
		}
		for _, id := range p.ids {
			o := p.objs[id]
			var isNew bool
			var err error
			if o.near {
				_, isNew, err = g.w.AddNear(o.kind, o.data, o.base)
			} else if o.base != (pack.ID{}) && o.base != id {
				_, isNew, err = g.w.AddDelta(o.kind, o.data, o.base)
				if errors.Is(err, pack.ErrNotFound) {
					_, isNew, err = g.w.Add(o.kind, o.data)
				}
			} else {
				_, isNew, err = g.w.Add(o.kind, o.data)
			}
			if err != nil {
				return fmt.Errorf("store object of %s at %d: %w", r.v.File, r.v.Offset, err)
			}
			if isNew {
				g.st.NewObjects++
				g.st.NewBytes += int64(len(o.data))
			}
		}
	}
	j.results = nil
	if !j.last {
		return nil
	}
	if len(j.u.added) > 0 {
		g.pending = append(g.pending, URLVersions{Key: j.key, Versions: j.u.added})
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
		return g.commit()
	}
	return nil
}

// crossBases gives the blocks (and layout) of a URL's first page, which
// have no predecessor of their own, delta bases among the first page of
// the previous URL in walk order: neighbouring URLs are mostly pages of
// one site, and their first captures in an ingest mostly come from the
// same crawl, so they share the site's templates, style sheets and
// scripts as they were then. A base is used only when it costs readers
// nothing (pack.Writer.AddNear: it is in the object's frame, or in a
// frame that frame depends on already): a base in a frame of its own
// would make every restore of an object of this frame decode that frame
// too (on ota-tinder, +15 % decoded bytes per restore for −3.5 % archive).
// The choice runs in the applier, in walk order, so it does not depend on
// the workers.
func (g *ingester) crossBases(r *result) {
	p, res := r.plan, r.plan.res
	prev := g.prevFirst
	g.prevFirst = &firstPage{res: res, layout: r.v.Layout}
	if prev == nil {
		return
	}
	for _, pr := range partition.Match(prev.res, res, partition.SimOptions{}) {
		if pr.Kind != partition.Modified || pr.Old == nil || pr.New == nil {
			continue
		}
		id := pack.Sum(res.BlockBytes(pr.New))
		o, ok := p.objs[id]
		if !ok || o.base != (pack.ID{}) || o.kind != pack.KindBlock {
			continue
		}
		o.base, o.near = pack.Sum(prev.res.BlockBytes(pr.Old)), true
		p.objs[id] = o
	}
	if o, ok := p.objs[r.v.Layout]; ok && o.base == (pack.ID{}) && prev.layout != r.v.Layout {
		o.base, o.near = prev.layout, true
		p.objs[r.v.Layout] = o
	}
	r.plan.res = nil
}

// firstPage is the first partitioned page of a URL, for crossBases.
type firstPage struct {
	res    *partition.Result
	layout pack.ID
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
	var id pack.ID
	var err error
	if run := g.r.Runs[g.run]; len(run) > 0 {
		id, _, err = g.w.AddDelta(pack.KindVersionCatalog, seg, run[len(run)-1].ID)
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
	g.pending, g.pendingBytes = nil, 0
	return nil
}

func (g *ingester) commit() error {
	if err := g.writeSegment(); err != nil {
		return err
	}
	// An empty run would only cost bytes.
	runs := g.r.Runs
	if len(runs[g.run]) == 0 {
		g.r.Runs = runs[:g.run]
	}
	payload, err := g.r.encode()
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

// obj is an object a version needs, with its delta base (zero: none).
type obj struct {
	kind pack.Kind
	data []byte
	base pack.ID
	near bool // base only if free to readers (pack.Writer.AddNear; crossBases)
}

// plan collects the objects of one record before anything is stored, so
// that the record can be checked first.
type plan struct {
	objs map[pack.ID]obj
	ids  []pack.ID // in the order to store
	// A partitioned payload whose blocks had no predecessor to be
	// matched with (the URL's first page in this ingest): its partition,
	// for the applier to match with the previous URL's (crossBases).
	res *partition.Result
}

func (p *plan) add(kind pack.Kind, data []byte, base pack.ID) pack.ID {
	id := pack.Sum(data)
	if _, ok := p.objs[id]; !ok {
		p.objs[id] = obj{kind: kind, data: data, base: base}
		p.ids = append(p.ids, id)
	}
	return id
}

// have makes an object already stored available to the check.
func (p *plan) have(id pack.ID, data []byte) {
	if _, ok := p.objs[id]; !ok {
		p.objs[id] = obj{data: data}
	}
}

func (p *plan) get(id pack.ID) ([]byte, error) {
	if o, ok := p.objs[id]; ok {
		return o.data, nil
	}
	return nil, fmt.Errorf("%w: %s not in the record's plan", pack.ErrNotFound, id)
}

// store is the paper's Store() for one record: it cuts the record into
// objects and checks that they restore it byte for byte; when they do
// not, the record is kept whole. It returns the objects to add.
func (g *ingester) store(u *urlState, v *Version, rawHeader, block []byte, st *Stats) *plan {
	p := &plan{objs: map[pack.ID]obj{}}
	if v.Gap {
		// Bytes between records: kept as they are, each a delta of the
		// URL key's previous gap (mostly the same stray line ends).
		v.Mode, v.Record = modeRaw, p.add(pack.KindRecord, block, u.prevObj[gapType])
		u.prevObj[gapType] = v.Record
		return p
	}
	var res *partition.Result
	var blockIDs []pack.ID
	g.modelRecord(u, v, p, rawHeader, block, &res, &blockIDs, st)
	got, err := restore(v, p.get)
	if err != nil || !bytes.Equal(got.WARCHeader, rawHeader) || !bytes.Equal(got.Block, block) {
		p = &plan{objs: map[pack.ID]obj{}}
		rec := append(bytes.Clone(rawHeader), block...)
		*v = Version{File: v.File, Offset: v.Offset, Length: v.Length, Skip: v.Skip, Date: v.Date, prevRecordID: v.prevRecordID,
			Type: v.Type, RecordID: v.RecordID, TargetURI: v.TargetURI, Trailer: v.Trailer, CRC: v.CRC,
			BlockDigestOK: v.BlockDigestOK, PayloadDigestOK: v.PayloadDigestOK,
			Mode: modeRaw, Record: p.add(pack.KindRecord, rec, u.prevObj[v.Type])}
		res, blockIDs = nil, nil
		st.RawRecords++
	}
	// Update the URL's predecessors.
	switch v.Mode {
	case modeRaw:
		u.prevObj[v.Type] = v.Record
	case modeBlock:
		u.prevObj[v.Type] = v.Block
		st.NonHTTP++
	case modeHTTP:
		if v.Form == formWhole {
			u.prevPay = v.Payload
		} else {
			u.prevLay, u.prevRes, u.prevBlk = v.Layout, res, blockIDs
			if v.Coding != nil {
				st.EncodedBlocks++
			} else {
				st.Partitioned++
			}
		}
	}
	inlineBlock(v, p) // a small block goes into the catalog entry
	return p
}

// modelRecord fills v and p with the structured form of the record.
func (g *ingester) modelRecord(u *urlState, v *Version, p *plan, rawHeader, block []byte, res **partition.Result, blockIDs *[]pack.ID, st *Stats) {
	httpLen := -1
	var m *warcio.HTTPMessage
	if isHTTPType(v.Type) {
		if msg, err := warcio.ReadHTTP(bytes.NewReader(block), 0); err == nil && !msg.Truncated && len(msg.Raw) <= len(block) && bytes.Equal(msg.Raw, block[:len(msg.Raw)]) {
			m, httpLen = msg, len(msg.Raw)
		}
	}
	if m == nil {
		v.Mode = modeBlock
		v.Block = p.add(pack.KindRecord, block, u.prevObj[v.Type])
	} else {
		v.Mode = modeHTTP
		hh, payload := block[:httpLen], block[httpLen:]
		g.modelPayload(u, v, p, m, payload, res, blockIDs, st)
		v.HTTPHeader, v.HTTPAnchor = g.header(p, u.httpAnch, v.Type, pack.KindHTTPHeader, hh, httpContext(v, payload))
	}
	v.WARCHeader, v.WARCAnchor = g.header(p, u.warcAnch, v.Type, pack.KindWARCHeader, rawHeader, warcContext(v, block, httpLen))
}

func isHTTPType(t string) bool {
	switch t {
	case "response", "request", "revisit":
		return true
	}
	return false
}

// header encodes raw against the URL's anchor for the record type,
// choosing a new anchor when there is none or the encoding against it is
// large.
func (g *ingester) header(p *plan, anchors map[string]*anchor, typ string, kind pack.Kind, raw []byte, ctx hdrcodec.Context) (enc []byte, anch pack.ID) {
	a := anchors[typ]
	if a != nil {
		e := hdrcodec.Encode(nil, raw, a.raw, ctx)
		if len(e)*2 <= len(a.enc) {
			p.have(a.id, a.enc)
			return e, a.id
		}
	}
	a = &anchor{enc: hdrcodec.Encode(nil, raw, nil, hdrcodec.Unknown()), raw: bytes.Clone(raw)}
	a.id = p.add(kind, a.enc, pack.ID{})
	anchors[typ] = a
	return hdrcodec.Encode(nil, raw, a.raw, ctx), a.id
}

// modelPayload stores a 200 text/html payload as layout + blocks, any
// other payload whole. A payload with one content coding is stored as
// the blocks of its decoded document when reencode.Find finds encoder
// settings that reproduce it byte for byte (the restore re-encodes);
// otherwise whole, with reason content-encoding.
func (g *ingester) modelPayload(u *urlState, v *Version, p *plan, m *warcio.HTTPMessage, payload []byte, res **partition.Result, blockIDs *[]pack.ID, st *Stats) {
	codings := m.ContentEncodings()
	whole := func(reason uint8) {
		// Whatever stops a content-coded page from becoming blocks, the
		// report counts it as content-encoding, as before re-encoding.
		if len(codings) > 0 && reason >= reasonChunking {
			reason = reasonContentEncoding
		}
		v.Form, v.reason = formWhole, reason
		v.Payload = p.add(pack.KindPayload, payload, u.prevPay)
		if reason == reasonContentEncoding {
			st.EncodedWhole++
		} else {
			st.WholePayload++
		}
	}
	switch {
	case m.Request:
		whole(reasonRequest)
		return
	case m.StatusCode != 200:
		whole(reasonNot200)
		return
	case m.MediaType() != "text/html":
		whole(reasonNotHTML)
		return
	case len(payload) == 0:
		whole(reasonEmpty)
		return
	case len(codings) > 1 || len(codings) == 1 && len(m.Codings()) != 1:
		// Two codings, or a transfer coding besides chunked: not
		// attempted.
		whole(reasonContentEncoding)
		return
	}
	doc := payload
	var framing []byte
	if m.Chunked() {
		d := warcio.NewDechunker(bytes.NewReader(payload))
		dc, err := io.ReadAll(d)
		f := d.Framing()
		if err != nil || f.Overflow {
			whole(reasonChunking)
			return
		}
		if rb, err := warcio.Rebuild(dc, f); err != nil || !bytes.Equal(rb, payload) {
			whole(reasonChunking)
			return
		}
		fb, err := f.MarshalBinary()
		if err != nil {
			whole(reasonChunking)
			return
		}
		doc, framing = dc, fb
	}
	var coding []byte
	if len(codings) == 1 {
		dec, params, ok, _ := reencode.Find(codings[0], doc, g.opts.Reencode)
		if !ok {
			whole(reasonContentEncoding)
			return
		}
		b, err := params.MarshalBinary()
		if err != nil {
			whole(reasonContentEncoding)
			return
		}
		doc, coding = dec, b
	}
	popts := PageOptions(m.ContentType(), u.level, v.TargetURI)
	popts.Prior = u.prevRes // adaptive: keep the URL's partition while its layout holds
	r, err := u.part.Partition(doc, popts)
	if err != nil {
		whole(reasonPartition)
		return
	}
	v.Form, v.Level = formBlocks, u.level
	// Algorithm 4: a block the matcher pairs with a modified predecessor is
	// stored as a delta of it; identical blocks and an unchanged layout cost
	// nothing (content addressing).
	bases := map[*partition.Block]pack.ID{}
	if u.prevRes != nil {
		for _, pr := range partition.Match(u.prevRes, r, partition.SimOptions{}) {
			if pr.Kind == partition.Modified && pr.Old != nil && pr.New != nil {
				bases[pr.New] = pack.Sum(u.prevRes.BlockBytes(pr.Old))
			}
		}
	}
	ids := make([]pack.ID, len(r.Leaves))
	for i, b := range r.Leaves {
		ids[i] = p.add(pack.KindBlock, r.BlockBytes(b), bases[b])
	}
	v.Layout = p.add(pack.KindLayout, r.Layout.Encode(), u.prevLay)
	v.Blocks = ids
	if u.prevRes == nil {
		p.res = r
	}
	v.Framing, v.Coding = framing, coding
	*res, *blockIDs = r, ids
}
