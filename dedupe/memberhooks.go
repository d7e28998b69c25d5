package dedupe

import (
	"context"
	"crypto/sha256"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/semaphore"

	"github.com/blockwarc/blockwarc/warcio"
)

// An ingest learns each gzip input's member table from the members its
// walk decompresses anyway (warcio.Options.OnMember), so that an input
// is inflated once, not once by the walk and again by learnOriginal.
// Each file's members go, in order, to a search of its own that runs
// beside the walk (the deflates that prove a member are the costly
// part, and must not hold up the walk). What the searches hold is
// bounded: at most hookFiles files at once and hookBytes of decompressed
// members queued; past either the walk waits. A file the hook cannot
// learn whole (a damaged member, bytes between members, a file that is
// not one run of members) is learnt apart afterwards, as before.

// hookMembers turns the hooks on; a test turns them off to compare.
var hookMembers = true

const hookBytes = 64 << 20

type memberHooks struct {
	ctx   context.Context
	files *semaphore.Weighted // open file hooks
	bytes *semaphore.Weighted // queued decompressed bytes
	mu    sync.Mutex
	open  map[string]*fileHook
	skip  map[string]bool // learnt apart, or given (Options.Originals)
	// stopped are the hooks stop ended (tests look at them).
	stopped map[string]*fileHook
}

// fileHook is one file's search: memberHook fed from a queue, plus the
// SHA-256 of the stored bytes its members cover, which stand for a read
// of the file when they tile it.
type fileHook struct {
	memberHook
	q      chan queued
	over   chan struct{}
	next   int64 // stored offset the next member must start at
	tiled  bool
	failed bool // the walk stopped feeding it (cancelled)
	// settled is set once the search has an answer no later member can
	// change (no zlib setting reproduces a member, damage, a read
	// error): the walk then stops copying and queueing the file's
	// members, which would be work on its path for nothing.
	settled atomic.Bool
	copied  atomic.Int64 // members queued (a test counts them)
}

type queued struct {
	m    warcio.Member
	cost int64
	buf  *[]byte
}

func newMemberHooks(ctx context.Context, given map[string][]byte) *memberHooks {
	skip := map[string]bool{"-": true} // standard input cannot be read again
	for f := range given {
		skip[f] = true
	}
	return &memberHooks{ctx: ctx, skip: skip,
		files: semaphore.NewWeighted(int64(runtime.GOMAXPROCS(0) + 1)),
		bytes: semaphore.NewWeighted(hookBytes),
		open:  map[string]*fileHook{}}
}

// member is the walk's OnMember: it runs on the walk worker reading
// m.File, so one file's members come in order from one goroutine.
func (hs *memberHooks) member(m warcio.Member) {
	hs.mu.Lock()
	h, skip := hs.open[m.File], hs.skip[m.File]
	hs.mu.Unlock()
	if skip {
		return
	}
	if h == nil {
		if h = hs.start(m.File); h == nil {
			return
		}
	}
	if h.failed || h.settled.Load() {
		return
	}
	cost := min(int64(len(m.Plain)), hookBytes)
	if err := hs.bytes.Acquire(hs.ctx, cost); err != nil {
		h.failed = true
		return
	}
	// m.Plain is valid only during the call; the copy's buffer comes
	// back to plainBufs once the search is done with it.
	buf := plainBufs.Get().(*[]byte)
	*buf = append((*buf)[:0], m.Plain...)
	m.Plain = *buf
	h.copied.Add(1)
	h.q <- queued{m, cost, buf}
}

// plainBufs recycles the copies of members' decompressed bytes.
var plainBufs = sync.Pool{New: func() any { return new([]byte) }}

// start opens the file's hook; nil (learnt apart) when the file cannot
// be opened again or the ingest is cancelled.
func (hs *memberHooks) start(file string) *fileHook {
	apart := func() *fileHook {
		hs.mu.Lock()
		hs.skip[file] = true
		hs.mu.Unlock()
		return nil
	}
	if err := hs.files.Acquire(hs.ctx, 1); err != nil {
		return apart()
	}
	f, err := os.Open(file)
	if err != nil {
		hs.files.Release(1)
		return apart()
	}
	h := &fileHook{memberHook: memberHook{f: f, t: newMemberTable()},
		q: make(chan queued, 64), over: make(chan struct{}), tiled: true}
	h.sum = sha256.New()
	hs.mu.Lock()
	hs.open[file] = h
	hs.mu.Unlock()
	go func() {
		defer close(h.over)
		for j := range h.q {
			if j.m.Damaged || j.m.Stored != h.next {
				h.tiled = false
			}
			if h.tiled {
				h.member(j.m)
				h.next = j.m.StoredEnd
				if h.why != 0 || h.apart || h.err != nil {
					h.settled.Store(true)
				}
			}
			if cap(*j.buf) <= hookBytes {
				plainBufs.Put(j.buf)
			}
			hs.bytes.Release(j.cost)
		}
		h.t.release()
		h.f.Close()
		hs.files.Release(1)
	}()
	return h
}

// finish ends the feeding of file's hook (its walk read it to its end)
// and returns it, or nil when the walk decompressed no gzip member of
// it.
func (hs *memberHooks) finish(file string) *fileHook {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	h := hs.open[file]
	if h != nil {
		delete(hs.open, file)
		close(h.q)
	}
	return h
}

// stop ends the hooks of files the walk did not finish (an error or a
// cancel stopped it) and waits for every search.
func (hs *memberHooks) stop() {
	hs.mu.Lock()
	var all []*fileHook
	hs.stopped = map[string]*fileHook{}
	for f, h := range hs.open {
		hs.stopped[f] = h
		h.failed = true
		close(h.q)
		delete(hs.open, f)
		all = append(all, h)
	}
	hs.mu.Unlock()
	for _, h := range all {
		<-h.over
	}
}

// result waits for the file's search and returns what it learnt, or nil
// when the file must be learnt apart. Members that tile the file from 0
// to where the walk met its end were read whole (ReadAt), so their
// SHA-256 and length are the file's, which apply compares with the
// hashing read's.
func (h *fileHook) result() *learned {
	<-h.over
	if h.failed || !h.tiled || h.err != nil || h.apart || h.members == 0 {
		return nil
	}
	if h.why != 0 {
		return &learned{why: h.why} // what learnOriginal would find too
	}
	r := &learned{}
	var o *Original
	o, r.why, r.stream = h.t.finish()
	if r.why == originalExact {
		r.o, r.size = o, h.next
		h.sum.Sum(r.sum[:0])
	}
	return r
}
