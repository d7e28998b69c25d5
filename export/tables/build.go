package tables

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/partition"
)

// Options configure Build. The zero value is usable.
type Options struct {
	// Workers is how many URLs are restored and partitioned in parallel
	// (default 1). The rows do not depend on it; memory grows with it by
	// a few URLs' pages and rows per worker.
	Workers int
	// TempDir holds the blocks table's spill file while the other tables
	// are written ("" = os.TempDir()).
	TempDir string
	// Progress, when set, is called after each URL with the totals so far.
	Progress func(Stats)
}

// Stats count what Build did.
type Stats struct {
	Records       int64 `json:"records"`        // catalog versions walked (captures and other records)
	URLs          int64 `json:"urls"`           // urls rows
	Captures      int64 `json:"captures"`       // captures rows
	CaptureBlocks int64 `json:"capture_blocks"` // capture_blocks rows
	Changes       int64 `json:"changes"`        // changes rows
	Blocks        int64 `json:"blocks"`         // blocks rows: distinct blocks
	Links         int64 `json:"links"`          // links rows (0 when the sink takes no links)
	Partitioned   int64 `json:"partitioned"`    // captures whose page is their own layout + blocks (re-partitioned, or a repeat of an earlier capture's)
	TextOnly      int64 `json:"text_only"`      // HTML payloads kept whole, read for title and main text only
	Revisits      int64 `json:"revisits"`       // revisits standing for the page they revisit
	// RevisitsUnresolved counts identical-payload revisits whose original
	// the archive does not hold: they have no page.
	RevisitsUnresolved int64 `json:"revisits_unresolved"`
	// BlockMismatches counts captures kept as blocks whose blocks could
	// not be read (no document or span per stored block): they get no
	// capture_blocks (blocks_* 0). A non-zero count is a bug.
	BlockMismatches int64 `json:"block_mismatches"`
	// Respanned counts captures whose stored blocks today's partition
	// cuts differently (an archive written by an older partition): their
	// rows describe the stored blocks, read at their spans, with paths
	// borrowed from today's block tree (see docs/TABLES.md).
	Respanned  int64 `json:"respanned"`
	AddedBytes int64 `json:"added_bytes"` // sum of captures.added_bytes
	Objects    int64 `json:"objects"`     // distinct objects referenced by captures
	SpillBytes int64 `json:"spill_bytes"` // compressed bytes of the blocks spill file
}

func (s *Stats) add(o *Stats) {
	s.Records += o.Records
	s.Partitioned += o.Partitioned
	s.TextOnly += o.TextOnly
	s.Revisits += o.Revisits
	s.RevisitsUnresolved += o.RevisitsUnresolved
	s.BlockMismatches += o.BlockMismatches
	s.Respanned += o.Respanned
}

// Build walks the archive in table order (dedupe.Archive.WalkOrdered) and
// hands every row of the six tables to sink, in the order Sink documents,
// then closes sink. On error sink is not closed; the caller discards it.
//
// Memory: per worker, the URL's catalog entry (which WalkOrdered hands
// over whole), a few of its partitioned pages, the rows of at most
// jobBuffer captures and about 10 bytes per capture for the change rate,
// whatever the length of the URL's history; plus, for the whole archive,
// about 45 bytes per distinct object the captures reference (added_bytes
// is charged to the first capture referencing an object) and 83 bytes per
// distinct block (its counts, see blockCount). Block attributes are
// spilled to a temporary file in Options.TempDir.
func Build(ctx context.Context, a *dedupe.Archive, opts Options, sink Sink) (Stats, error) {
	return buildPart(ctx, a, -1, opts, sink)
}

// ShardBlockNos is the stride of block_no between the shards of a sharded
// archive: shard i numbers its blocks i×ShardBlockNos + 1, 2, … (shard 0
// as an unsharded archive does), so that the shards' numbers never meet
// and each shard numbers its own without waiting for the others'.
const ShardBlockNos = 1_000_000_000_000

// BuildShard is Build of the rows of part i of a (a sharded archive read
// through dedupe.Join; 0 for any other archive): it walks that part
// alone, so that the shards' tables are built apart — in parallel, or by
// other processes — and together are the archive's tables. What Build
// counts across the whole walk is counted within the shard: block_no is
// i×ShardBlockNos plus the shard's order of first sight (a block two
// shards both hold has a blocks row in each, under each one's number),
// blocks.captures and blocks.urls count the shard's, and added_bytes is
// charged to the shard's first capture referencing an object (each shard
// stores its own copy). A revisit's original at another URL is looked up
// in the whole of a, in whichever shard holds it.
func BuildShard(ctx context.Context, a *dedupe.Archive, i int, opts Options, sink Sink) (Stats, error) {
	if i < 0 || i >= a.Parts() {
		return Stats{}, fmt.Errorf("build tables of shard %d: the archive has %d", i, a.Parts())
	}
	return buildPart(ctx, a, i, opts, sink)
}

// buildPart is Build (part < 0) or BuildShard.
func buildPart(ctx context.Context, a *dedupe.Archive, part int, opts Options, sink Sink) (Stats, error) {
	objects := a
	if part >= 0 {
		// The part stores every object its captures reference: asking
		// the union would open every shard.
		p, err := a.Part(part)
		if err != nil {
			return Stats{}, err
		}
		objects = p
	}
	spill, err := newBlockSpill(opts.TempDir)
	if err != nil {
		return Stats{}, err
	}
	defer spill.close()
	b := &builder{
		a:       a,
		part:    part,
		objects: objects,
		opts:    opts,
		sink:    sink,
		spill:   spill,
		seen:    map[objKey]struct{}{},
		blocks:  map[pack.ID]blockCount{},
	}
	b.links = sink.Takes(LinksTable)
	if err := b.run(ctx); err != nil {
		return b.st, err
	}
	b.st.SpillBytes = spill.size()
	if err := spill.emit(b.blocks, func(r *Block) error {
		b.st.Blocks++
		return sink.Add(r)
	}); err != nil {
		return b.st, err
	}
	if err := sink.Close(); err != nil {
		return b.st, fmt.Errorf("close table sink: %w", err)
	}
	return b.st, nil
}

// builder applies the URLs' results in table order: it owns everything
// that depends on earlier URLs (added_bytes, block counts, first sight).
type builder struct {
	a            *dedupe.Archive
	part         int             // the part walked (BuildShard), or -1: all of a
	objects      *dedupe.Archive // where the captures' objects are: a, or its part
	opts         Options
	sink         Sink
	spill        *blockSpill
	st           Stats
	seen         map[objKey]struct{} // objects referenced by an earlier capture
	blocks       map[pack.ID]blockCount
	nURL         int64
	nCap         int64
	links        bool  // the sink takes links: extract them
	lastProgress int64 // Captures at the last Progress call
}

// job is one URL on its way through a worker: its captures' rows stream
// through caps (closed when the worker is done), then url, st and err
// are set.
type job struct {
	caps chan *capOut
	url  *URL
	st   Stats
	err  error
}

// jobBuffer is how many captures' rows a worker may run ahead of the
// builder on a URL that is not the builder's current one.
const jobBuffer = 64

var errAborted = errors.New("build aborted")

// walk walks what the tables describe: the archive, or one part of it.
func (b *builder) walk(fn func(dedupe.URLVersions) error) error {
	if b.part < 0 {
		return b.a.WalkOrdered(fn)
	}
	return b.a.WalkOrderedPart(b.part, fn)
}

func (b *builder) run(ctx context.Context) error {
	workers := max(b.opts.Workers, 1)
	if workers == 1 {
		w := newWorker(b.a, b.links)
		return b.walk(func(uv dedupe.URLVersions) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			b.nURL++
			u, st, err := w.url(uv, b.capture)
			if err != nil {
				return err
			}
			return b.endURL(u, &st)
		})
	}
	pool := make(chan *worker, workers)
	for range workers {
		pool <- newWorker(b.a, b.links)
	}
	abort := make(chan struct{})
	var running sync.WaitGroup
	var queue []*job
	// drainTo applies the queued URLs in order until at most n remain.
	// Keeping fewer than workers queued guarantees a free worker, so the
	// walk never waits for a worker that waits for the builder.
	drainTo := func(n int) error {
		for len(queue) > n {
			j := queue[0]
			queue = queue[1:]
			b.nURL++
			for c := range j.caps {
				if err := b.capture(c); err != nil {
					return err
				}
			}
			if j.err != nil {
				return j.err
			}
			if err := b.endURL(j.url, &j.st); err != nil {
				return err
			}
		}
		return nil
	}
	err := b.walk(func(uv dedupe.URLVersions) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := drainTo(workers - 1); err != nil {
			return err
		}
		j := &job{caps: make(chan *capOut, jobBuffer)}
		queue = append(queue, j)
		w := <-pool
		running.Add(1)
		go func() {
			defer running.Done()
			defer close(j.caps)
			j.url, j.st, j.err = w.url(uv, func(c *capOut) error {
				select {
				case j.caps <- c:
					return nil
				case <-abort:
					return errAborted
				}
			})
			pool <- w
		}()
		return nil
	})
	if err == nil {
		err = drainTo(0)
	}
	if err != nil {
		close(abort) // workers blocked on a full buffer give up
		running.Wait()
	}
	return err
}

// capture emits one capture's rows and charges its objects.
func (b *builder) capture(c *capOut) error {
	b.nCap++
	added := int64(0)
	for i, id := range c.refs {
		k := objKey{part: -1, id: id}
		if _, ok := id.Place(); ok {
			k.part = c.part // a place names an object of one part
		}
		if _, ok := b.seen[k]; ok {
			continue
		}
		b.seen[k] = struct{}{}
		n := c.sizes[i]
		if n < 0 {
			_, size, err := b.objects.StatPart(c.part, id)
			if err != nil {
				return fmt.Errorf("stat object %s of %s at %d: %w", id, c.row.WARCFilename, c.row.WARCRecordOffset, err)
			}
			n = int64(size)
		}
		added += n
	}
	c.row.AddedBytes = added
	b.st.AddedBytes += added
	if err := b.sink.Add(c.row); err != nil {
		return fmt.Errorf("write captures row: %w", err)
	}
	b.st.Captures++
	for k, cb := range c.blocks {
		id := c.ids[k]
		cnt, ok := b.blocks[id]
		if !ok {
			first := c.first[id]
			if first == nil {
				return fmt.Errorf("build tables: block %s of %s has no first-sight row", id, c.row.URL)
			}
			// Numbered in first sight, which is the blocks table's order.
			cnt.no = max(int64(b.part), 0)*ShardBlockNos + int64(len(b.blocks)) + 1
			first.BlockNo = cnt.no
			if err := b.spill.add(first); err != nil {
				return err
			}
		}
		if cnt.lastCap != b.nCap {
			cnt.captures++
			cnt.lastCap = b.nCap
		}
		if cnt.lastURL != b.nURL {
			cnt.urls++
			cnt.lastURL = b.nURL
		}
		b.blocks[id] = cnt
		cb.BlockNo = cnt.no
		if cb.PredecessorBlockID != nil {
			// A block of the URL's previous capture: numbered already.
			n, err := b.blockNo(*cb.PredecessorBlockID)
			if err != nil {
				return fmt.Errorf("predecessor of block %s of %s: %w", id, c.row.URL, err)
			}
			cb.PredecessorBlockNo = &n
		}
		if err := b.sink.Add(cb); err != nil {
			return fmt.Errorf("write capture_blocks row: %w", err)
		}
		b.st.CaptureBlocks++
	}
	if b.links {
		for _, l := range c.links {
			n, err := b.blockNo(l.BlockID)
			if err != nil {
				return fmt.Errorf("links of %s: %w", c.row.URL, err)
			}
			l.BlockNo = n
			if err := b.sink.Add(l); err != nil {
				return fmt.Errorf("write links row: %w", err)
			}
			b.st.Links++
		}
	}
	if c.change != nil {
		if err := b.sink.Add(c.change); err != nil {
			return fmt.Errorf("write changes row: %w", err)
		}
		b.st.Changes++
	}
	return nil
}

// blockNo returns the block_no of a block seen already.
func (b *builder) blockNo(hexID string) (int64, error) {
	id, err := parseID(hexID)
	if err != nil {
		return 0, err
	}
	if cnt := b.blocks[id]; cnt.no != 0 {
		return cnt.no, nil
	}
	return 0, fmt.Errorf("block %s not seen before", hexID)
}

// endURL emits a URL's urls row (nil: the key had no capture of the web)
// and reports progress after every key that had captures, web or not.
func (b *builder) endURL(u *URL, st *Stats) error {
	b.st.add(st)
	captures := b.st.Captures
	if u != nil {
		if err := b.sink.Add(u); err != nil {
			return fmt.Errorf("write urls row: %w", err)
		}
		b.st.URLs++
	}
	if captures == b.lastProgress {
		return nil
	}
	b.lastProgress = captures
	b.st.Objects = int64(len(b.seen))
	if b.opts.Progress != nil {
		b.opts.Progress(b.st)
	}
	return nil
}

// objKey names an archive object among the parts of a union.
type objKey struct {
	part int
	id   pack.ID
}

// worker turns one URL's versions into rows; it owns a Partitioner.
type worker struct {
	a     *dedupe.Archive
	links bool // extract the links table (the sink takes them)
	p     *partition.Partitioner
	lang  *langDetector
	pages map[pageKey]*page // pages of the current URL, for reuse
}

func newWorker(a *dedupe.Archive, links bool) *worker {
	return &worker{a: a, links: links, p: partition.NewPartitioner(), lang: newLangDetector(), pages: map[pageKey]*page{}}
}
