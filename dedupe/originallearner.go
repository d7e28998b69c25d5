package dedupe

// The originals an ingest learns beside its walk, and how they become
// the input-file rows' OriginalWhy and Original.

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/blockwarc/blockwarc/warcio"
)

// originalLearner reads gzip inputs a second time, each as soon as the
// walk has read it to its end (Walk's OnFile), while the ingest goes on,
// at most GOMAXPROCS files at once: the member search (one deflate per
// member) then overlaps the modelling instead of following it. Each
// search holds one member (at most maxMemberPlain bytes decompressed).
type originalLearner struct {
	ctx    context.Context
	cancel context.CancelFunc
	sem    chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	res    map[string]*learned
	given  map[string][]byte // Options.Originals: learnt already
	hooks  *memberHooks      // members the walk decompressed; nil: none
}

type learned struct {
	o    *Original
	why  uint8
	sum  [32]byte
	size int64
	// stream is the stream the members gave, when the search read them
	// all; against compares it with the walk's.
	stream *[32]byte
	err    error
}

// against is what was learnt of a file whose walk read the stream want:
// a file whose members give another stream changed under the ingest.
func (r *learned) against(want [32]byte) *learned {
	if r.err == nil && r.stream != nil && *r.stream != want {
		return &learned{why: originalChanged}
	}
	return r
}

func newOriginalLearner(ctx context.Context) *originalLearner {
	l := &originalLearner{sem: make(chan struct{}, runtime.GOMAXPROCS(0)), res: map[string]*learned{}}
	l.ctx, l.cancel = context.WithCancel(ctx)
	return l
}

// start begins learning the file fs describes, when its stream can be
// rebuilt and it can be read again.
func (l *originalLearner) start(fs warcio.FileStream) {
	var h *fileHook
	if l.hooks != nil {
		h = l.hooks.finish(fs.File) // whatever follows: its search ends
	}
	if !fs.Tiled || fs.File == "-" {
		return
	}
	if b, ok := l.given[fs.File]; ok {
		r, err := decodeLearned(b)
		if err != nil {
			r = &learned{err: fmt.Errorf("learnt original of %s: %w", fs.File, err)}
		}
		l.mu.Lock()
		l.res[fs.File] = r.against(fs.SHA256)
		l.mu.Unlock()
		return
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		if h != nil {
			if r := h.result(); r != nil {
				l.mu.Lock()
				l.res[fs.File] = r.against(fs.SHA256)
				l.mu.Unlock()
				return
			}
		}
		select {
		case l.sem <- struct{}{}:
		case <-l.ctx.Done():
			return
		}
		defer func() { <-l.sem }()
		r := &learned{}
		r.o, r.why, r.sum, r.size, r.err = learnOriginal(l.ctx, fs.File, fs.SHA256)
		l.mu.Lock()
		l.res[fs.File] = r
		l.mu.Unlock()
	}()
}

// stop abandons what is still running and waits for it.
func (l *originalLearner) stop() {
	l.cancel()
	if l.hooks != nil {
		l.hooks.stop()
	}
	l.wg.Wait()
}

// apply waits for every search and sets Original and OriginalWhy of the
// rows (paths[i] is row i's file); with skip it only marks them.
func (l *originalLearner) apply(rows []InputFile, paths []string, pieces map[string]pieceSum, skip bool) error {
	l.wg.Wait()
	for i := range rows {
		in := &rows[i]
		r := l.res[paths[i]]
		switch {
		case in.StreamLen < 0:
			// no version 6 field is written
		case paths[i] == "-": // standard input cannot be read again
			in.OriginalWhy = originalSkipped
		case in.Rebuildable && in.StreamLen == in.Size && in.StreamSHA256 == in.SHA256:
			// Not compressed: nothing to prove, with the proof or
			// without.
			in.OriginalWhy = originalPlain
		case skip:
			in.OriginalWhy = originalSkipped
		case !in.Rebuildable:
			in.OriginalWhy = originalStream
		case r == nil:
			if err := l.ctx.Err(); err != nil {
				return err
			}
			in.OriginalWhy = originalSkipped
		case r.err != nil:
			return r.err
		case r.why == originalExact && (r.sum != in.SHA256 || r.size != in.Size):
			in.OriginalWhy = originalChanged
		default:
			in.Original, in.OriginalWhy = r.o, r.why
			r.o.markPerPiece(pieces[paths[i]])
		}
	}
	return nil
}
