package shard

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/warcio"
)

// Result is what Ingest did.
type Result struct {
	dedupe.Stats
	// Shards is how many shards the archive has (1: unsharded).
	Shards int
	// Note, when set, says something the caller asked for was not done
	// as asked: a later ingest with another shard count keeps the
	// archive's stored boundaries.
	Note string
}

// Split divides an ingest's workers and memory budget among its shards:
// concurrent shards are ingested at once (at most one per worker), each
// with workers model workers and mem bytes of budget (dedupe.SplitMemory
// divides each shard's share as for any ingest). goHeap is the soft limit
// for the whole process's Go heap: the shards' dedupe.Budget.GoHeap,
// with the 256 MiB for encoders' buffers counted once per shard running.
func Split(mem int64, workers, shards int) (shardMem int64, shardWorkers, concurrent int, goHeap int64) {
	if mem <= 0 {
		mem = warcio.DefaultWalkMemLimit
	}
	concurrent = max(1, min(shards, workers))
	shardWorkers = max(1, workers/concurrent)
	shardMem = mem / int64(concurrent)
	for range concurrent {
		goHeap += dedupe.SplitMemory(shardMem, shardWorkers, 0).GoHeap
	}
	return shardMem, shardWorkers, concurrent, goHeap
}

// Ingest adds inputs to the archive in dir. An archive with a shard
// manifest is ingested shard by shard, in parallel, each shard keeping
// the records of its key range (dedupe.Options.Select); a new archive
// with shards > 1 is first cut into shards by Boundaries, and the
// manifest written before any shard is ingested, so that an interrupted
// ingest leaves a readable archive that running the same ingest again
// completes. Otherwise (shards <= 1, or an existing unsharded archive
// with shards unset) it is dedupe.Ingest. opts.Workers and
// opts.MemLimit are divided among the shards (Split). The shards' bytes
// depend on the inputs, the boundaries and opts' archive settings only,
// not on workers, memory or input order.
func Ingest(ctx context.Context, dir string, inputs []string, shards int, opts dedupe.Options) (Result, error) {
	if err := checkTarget(dir); err != nil {
		return Result{}, err
	}
	m, err := ReadManifest(dir)
	created := false
	switch {
	case errors.Is(err, ErrNoManifest):
		if shards <= 1 {
			st, err := dedupe.Ingest(ctx, dir, inputs, opts)
			return Result{Stats: st, Shards: 1}, err
		}
		// Before the boundaries are cut and the shards created: nothing
		// is written when an input is not WARC or ARC (dedupe.Ingest
		// checks its own).
		if err := dedupe.CheckInputs(ctx, inputs); err != nil {
			return Result{}, err
		}
		if hasArchive(dir) {
			return Result{Shards: 1}, fmt.Errorf("%s is an unsharded archive: -shards applies to a new archive (resharding is not supported)", dir)
		}
		if m, err = create(ctx, dir, inputs, shards, opts); err != nil {
			return Result{}, err
		}
		created = true
	case err != nil:
		return Result{}, err
	}
	if !created {
		if err := dedupe.CheckInputs(ctx, inputs); err != nil {
			return Result{}, err
		}
	}
	res := Result{Shards: len(m.Shards)}
	// Both copies of the manifest whole again before anything is
	// ingested.
	if res.Note, err = MendManifest(dir, m); err != nil {
		return res, err
	}
	switch {
	case res.Note != "":
		// The manifest's repair says more than a -shards mismatch.
	case created && shards != len(m.Shards):
		res.Note = fmt.Sprintf("%s is cut into %d shard(s), not %d: the inputs' keys leave no more places to cut", dir, len(m.Shards), shards)
	case !created && shards > 0 && shards != len(m.Shards):
		res.Note = fmt.Sprintf("%s keeps its %d shard(s) and their stored key boundaries (-shards %d applies to a new archive only)", dir, len(m.Shards), shards)
	}
	st, err := ingestShards(ctx, dir, m, inputs, opts)
	res.Stats = st
	return res, err
}

// NotArchiveError refuses an ingest into an existing directory that
// holds other files but no archive: the archive's files would be mixed
// with the user's.
type NotArchiveError struct {
	Dir   string
	Names []string // some of the files there, sorted
}

func (e *NotArchiveError) Error() string {
	names := strings.Join(e.Names, ", ")
	if len(e.Names) == maxNamed {
		names += ", …"
	}
	return fmt.Sprintf("%s is a directory holding other files (%s) but no archive: ingest creates an archive only in a new or empty directory, so as not to mix its files with yours; give a new name such as %s", e.Dir, names, filepath.Join(e.Dir, "site.bwa"))
}

const maxNamed = 3

// checkTarget refuses (*NotArchiveError) a dir that exists and holds
// files but no archive: no COMMIT or COMMIT.copy, no SHARDS or
// SHARDS.copy. What an ingest that stopped while creating the archive
// left (a lock, a temporary commit or manifest, shard directories) does
// not count as the user's. A missing or empty dir is a new archive.
func checkTarget(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil // missing, or not a directory: said when it is opened
	}
	var others []string
	for _, e := range ents {
		n := e.Name()
		commit, made := pack.DirFile(n)
		switch {
		case commit, n == ManifestName, n == CopyName:
			return nil // an archive (a damaged one is verify's and repair's)
		case made, e.IsDir() && strings.HasPrefix(n, "shard-"), strings.HasPrefix(n, "."+ManifestName+".tmp-"):
		default:
			if len(others) < maxNamed {
				others = append(others, n)
			}
		}
	}
	if len(others) == 0 {
		return nil
	}
	return &NotArchiveError{Dir: dir, Names: others}
}

// hasArchive says whether dir holds an ordinary (unsharded) archive.
func hasArchive(dir string) bool {
	s, err := pack.Open(dir, pack.Options{})
	if err != nil {
		return false
	}
	s.Close()
	return true
}

// create cuts a new archive into shards: boundaries from the inputs, an
// empty archive per shard, then the manifest.
func create(ctx context.Context, dir string, inputs []string, n int, opts dedupe.Options) (*Manifest, error) {
	b, err := Boundaries(ctx, inputs, n, opts.Reader)
	if err != nil {
		return nil, err
	}
	m, err := NewManifest(b)
	if err != nil {
		return nil, err
	}
	return m, createShards(dir, m, opts.Pack)
}

// createShards makes dir an archive of m's shards, each empty, then
// writes the manifest.
func createShards(dir string, m *Manifest, opts pack.Options) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("create archive: %w", err)
	}
	for _, s := range m.Shards {
		st, err := pack.Create(filepath.Join(dir, s.Name), opts)
		if errors.Is(err, fs.ErrExist) {
			// Left by an attempt that stopped before its manifest was
			// written: nothing was ingested into it.
			continue
		}
		if err != nil {
			return err
		}
		st.Close()
	}
	return WriteManifest(dir, m)
}

// ingestShards ingests inputs into every shard of m, concurrent shards
// at a time; the first error cancels the others.
func ingestShards(ctx context.Context, dir string, m *Manifest, inputs []string, opts dedupe.Options) (dedupe.Stats, error) {
	mem, workers, conc, _ := Split(opts.MemLimit, max(opts.Workers, 1), len(m.Shards))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := newProgress(len(m.Shards), opts)
	stats := make([]dedupe.Stats, len(m.Shards))
	errs := make([]error, len(m.Shards))
	sem := make(chan struct{}, conc)
	var wg sync.WaitGroup
	for i, s := range m.Shards {
		o := opts
		o.Workers, o.MemLimit = workers, mem
		p.wrap(i, &o)
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			defer func() { <-sem }()
			stats[i], errs[i] = IngestShard(ctx, filepath.Join(dir, s.Name), m, i, inputs, o)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("shard %s: %w", s.Name, errs[i])
				cancel()
			}
		}()
	}
	wg.Wait()
	st := sumStats(stats)
	for _, err := range errs {
		// The first error that is not the cancellation it caused.
		if err != nil && !errors.Is(err, context.Canceled) {
			return st, err
		}
	}
	for _, err := range errs {
		if err != nil {
			return st, err
		}
	}
	return st, nil
}

// IngestShard adds to the archive in dir, shard i of m, the records of
// inputs in its key range: what Ingest does for each shard. Every shard
// is given every input (its input-file rows describe whole files), so
// that the shard's bytes depend on the inputs, m and opts' archive
// settings only.
func IngestShard(ctx context.Context, dir string, m *Manifest, i int, inputs []string, opts dedupe.Options) (dedupe.Stats, error) {
	sel, skip := m.reads(i)
	opts.Select, opts.SkipOriginal = sel, opts.SkipOriginal || skip
	return dedupe.Ingest(ctx, dir, inputs, opts)
}

// reads says what shard i of m takes of every input: the records its
// keys select, and the compressed originals unless skip. Shard 0 learns
// the originals for the whole archive (dedupe.Join reads them there):
// the others need not read every gzip input a second time.
func (m *Manifest) reads(i int) (sel func(key string) bool, skip bool) {
	return func(key string) bool { return m.Route(key) == i }, i > 0
}

// ReingestShard is dedupe.Reingest of shard i of m, in dir: the
// input-file rows it computes again from the originals are those
// IngestShard wrote (the records of the shard's keys; compressed
// originals learnt by shard 0 only).
func ReingestShard(ctx context.Context, dir string, m *Manifest, i int, originals []string, opts pack.Options) (dedupe.ReingestResult, error) {
	sel, skip := m.reads(i)
	return dedupe.ReingestWith(ctx, dir, originals, opts, dedupe.ReingestOptions{Select: sel, SkipOriginal: skip})
}

// sumStats adds up the shards' stats. Every shard reads every input, so
// the per-file counts (files, malformed records, dropped bytes) are shard 0's, and a
// file counts as ingested when some shard ingested it.
func sumStats(s []dedupe.Stats) dedupe.Stats {
	t := s[0]
	for _, x := range s[1:] {
		t.Files = max(t.Files, x.Files)
		t.FilesSkipped = min(t.FilesSkipped, x.FilesSkipped)
		t.Records += x.Records
		t.Repeats += x.Repeats
		t.InputBytes += x.InputBytes
		t.NewObjects += x.NewObjects
		t.NewBytes += x.NewBytes
		t.Partitioned += x.Partitioned
		t.EncodedBlocks += x.EncodedBlocks
		t.EncodedWhole += x.EncodedWhole
		t.WholePayload += x.WholePayload
		t.NonHTTP += x.NonHTTP
		t.RawRecords += x.RawRecords
		t.Gaps += x.Gaps
		t.GapBytes += x.GapBytes
		t.Commits += x.Commits
		t.HistoryUnread += x.HistoryUnread
		t.DigestHits += x.DigestHits
		if x.Recovered != "" {
			if t.Recovered != "" {
				t.Recovered += "; "
			}
			t.Recovered += x.Recovered
		}
	}
	return t
}

// progress merges the shards' progress callbacks into the caller's: the
// stored bytes read (every shard reads every input: their mean), then,
// once the first shard has read its inputs, the stats summed.
type progress struct {
	mu       sync.Mutex
	opts     dedupe.Options
	read     []int64
	stats    []dedupe.Stats
	readDone bool
}

func newProgress(n int, opts dedupe.Options) *progress {
	return &progress{opts: opts, read: make([]int64, n), stats: make([]dedupe.Stats, n)}
}

func (p *progress) wrap(i int, o *dedupe.Options) {
	if p.opts.InputProgress != nil {
		o.InputProgress = func(n int64) {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.read[i] = n
			if !p.readDone {
				var t int64
				for _, r := range p.read {
					t += r
				}
				p.opts.InputProgress(t / int64(len(p.read)))
			}
		}
	}
	if p.opts.ReadDone != nil {
		o.ReadDone = func(n int64) {
			p.mu.Lock()
			defer p.mu.Unlock()
			if !p.readDone {
				p.readDone = true
				p.opts.ReadDone(n)
			}
		}
	}
	if p.opts.Finishing != nil {
		o.Finishing = func(step string) {
			p.mu.Lock()
			defer p.mu.Unlock()
			if len(p.read) > 1 {
				step = fmt.Sprintf("shard %d of %d: %s", i+1, len(p.read), step)
			}
			p.opts.Finishing(step)
		}
	}
	if p.opts.Progress != nil {
		o.Progress = func(st dedupe.Stats) {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.stats[i] = st
			p.opts.Progress(sumStats(p.stats))
		}
	}
}
