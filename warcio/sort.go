package warcio

// The sorter behind Walk: every input read once into records held in
// memory up to a limit and spilled in sorted runs beyond it, then merged
// in capture order (SURT, time, file, offset).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
)

// sorter accumulates records into sorted runs. While inputs are read its
// methods are called from several goroutines: mu guards everything below.
type sorter struct {
	mu          sync.Mutex
	dir         string
	limit       int64
	batch       []*item
	batchMem    int64
	runs        []*run
	runsWritten int
	items       int64 // records and gap pieces read

	// Candidates for URL-agnostic revisits (response and resource records),
	// written compactly to side, and the targets revisits asked for.
	side     sideList
	sideFile *os.File
	wanted   map[string]*Origin
	// notes, when set (Presort), gets the revisit notes of each record
	// under its key instead of side and wanted: which of them a shard
	// keeps is decided when its walk loads them.
	notes *bytes.Buffer
}

// bigRecord is the block size beyond which a record goes to its own run.
func (s *sorter) bigRecord() int64 { return max(s.limit/4, 1) }

// fanIn bounds how many runs are merged at once, so that the merge's
// decoders (about 2*runWindow each) stay within a quarter of the limit;
// at least 48, so that a small limit costs at most ~30 MiB more rather than
// rewriting every byte in extra merge passes.
func (s *sorter) fanIn() int {
	return int(min(max(s.limit/(4*(2*runWindow+64<<10)), 48), 512))
}

type storedCounter struct {
	r io.Reader
	n int64
}

func (c *storedCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// maxScratch bounds the buffer a walk worker keeps to read the blocks it
// summarizes: one larger is dropped after its block.
const maxScratch = 1 << 20

// readAll reads the inputs with opts.Workers goroutines; the first error
// stops the others.
func (s *sorter) readAll(ctx context.Context, files []string, opts *WalkOptions, st *WalkStats) error {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(min(workers, len(files)), 1)
	if opts.Gaps {
		opts.Reader.StreamDigest = true
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		errMu    sync.Mutex
		firstErr error
		stored   atomic.Int64
		progMu   sync.Mutex
	)
	progress := func(delta int64) {
		total := stored.Add(delta)
		if opts.Progress != nil {
			progMu.Lock()
			opts.Progress(total)
			progMu.Unlock()
		}
	}
	jobs := make(chan string)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var rd *Reader     // one per worker: Reset reuses its buffers and decoders across files
			var sl slab        // and the memory of blocks across files
			var scratch []byte // blocks to summarize (WalkOptions.Summarize)
			for name := range jobs {
				n, skipped, dropped, err := s.readInput(ctx, name, opts, progress, &rd, &sl, &scratch)
				s.mu.Lock()
				st.Files++
				st.StoredBytes += n
				st.Skipped += skipped
				st.Dropped += dropped
				s.mu.Unlock()
				if err != nil {
					errMu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					errMu.Unlock()
					cancel()
				}
			}
		}()
	}
feed:
	for _, name := range files {
		select {
		case jobs <- name:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr == nil {
		return parent.Err()
	}
	return firstErr
}

// readInput reads one input into the sorter and returns the stored bytes
// it read, the records its reader skipped and the bytes of damaged
// compressed members it dropped.
func (s *sorter) readInput(ctx context.Context, name string, opts *WalkOptions, progress func(int64), reuse **Reader, sl *slab, scratch *[]byte) (stored, skipped, dropped int64, err error) {
	var src io.Reader
	if name == "-" {
		if opts.Stdin == nil {
			return 0, 0, 0, errors.New("read -: no standard input given")
		}
		src = opts.Stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return 0, 0, 0, fmt.Errorf("open input: %w", err)
		}
		defer f.Close()
		src = f
	}
	cr := &storedCounter{r: src}
	rd := *reuse
	if rd == nil {
		rd = NewReaderOptions(cr, name, opts.Reader)
		*reuse = rd
	} else {
		rd.Reset(cr, name)
	}
	var place func(*Record) error
	if opts.Relocate != nil && name != "-" {
		place = opts.Relocate(name)
	}
	reported := int64(0)
	var pending *item // added once its Length is final (after the next Next)
	var pendingRun *runWriter
	flushPending := func() error {
		if pending == nil {
			return nil
		}
		it, w := pending, pendingRun
		pending, pendingRun = nil, nil
		if place != nil {
			if err := place(it.rec); err != nil {
				if w != nil {
					w.abort()
				}
				return err
			}
		}
		if w != nil {
			path, err := w.close()
			if err != nil {
				return err
			}
			s.mu.Lock()
			s.runsWritten++
			s.runs = append(s.runs, &run{path: path, bodyOnly: it})
			s.items++
			s.mu.Unlock()
			return nil
		}
		return s.add(it)
	}
	defer func() {
		if pendingRun != nil {
			pendingRun.abort()
		}
	}()
	fail := func(err error) (int64, int64, int64, error) { return cr.n, rd.Skipped(), rd.Dropped(), err }
	// The stream positions no record covers: gaps. A record's End is
	// known once the next Next has returned.
	var (
		gaps  []span
		cover int64
		last  *Record
		tiled = true
	)
	for {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		rec, err := rd.Next()
		if last != nil {
			cover = max(cover, last.End)
			last = nil
		}
		if rec != nil {
			switch {
			case rec.Pos > cover:
				gaps = append(gaps, span{cover, rec.Pos})
			case rec.Pos < cover:
				tiled = false
			}
			last = rec
		}
		if ferr := flushPending(); ferr != nil {
			return fail(ferr)
		}
		progress(cr.n - reported)
		reported = cr.n
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(fmt.Errorf("read %s: %w", name, err))
		}
		it := &item{rec: rec, key: SURT(rec.TargetURI)}
		if opts.onRecord != nil {
			opts.onRecord(rec, it.key)
		}
		if opts.Select != nil && !opts.Select(it.key) {
			continue // the reader skips the unread block
		}
		keep := int64(-1)
		if opts.Keep != nil {
			keep = opts.Keep(rec)
		}
		var berr error
		switch {
		case keep == KeepHTTPHeader:
			it.body, berr = readHTTPHeader(rec.Body, rec.ContentLen)
			it.bodyLen = int64(len(it.body))
		case opts.Summarize != nil && keep >= 0 && keep < rec.ContentLen:
			*scratch, berr = readBlockInto(io.LimitReader(rec.Body, keep), (*scratch)[:0])
			it.body = *scratch
		case keep >= 0 && keep < rec.ContentLen:
			it.body, berr = sl.readBlock(io.LimitReader(rec.Body, keep), keep)
			it.bodyLen = int64(len(it.body))
		case opts.Summarize != nil && rec.ContentLen <= s.bigRecord():
			// The block is summarized at once: read into the worker's
			// scratch buffer, not the slab that holds blocks for the sort.
			*scratch, berr = readBlockInto(rec.Body, (*scratch)[:0])
			it.body = *scratch
		case rec.ContentLen > s.bigRecord():
			w, err := newRunWriter(s.dir)
			if err != nil {
				return fail(err)
			}
			pendingRun = w
			it.bodyLen, berr = io.Copy(w.bw, rec.Body)
		default:
			it.body, berr = sl.readBlock(rec.Body, rec.ContentLen)
			it.bodyLen = int64(len(it.body))
		}
		if berr != nil && !isFormatErr(berr) {
			return fail(fmt.Errorf("read %s: record at %d: %w", name, rec.Offset, berr))
		}
		if opts.Summarize != nil && pendingRun == nil {
			sum, err := opts.Summarize(rec, it.body)
			if err != nil {
				return fail(err)
			}
			if sum == nil {
				sum = []byte{}
			}
			it.body, it.bodyLen, it.summary = sum, int64(len(sum)), true
			if cap(*scratch) > maxScratch {
				*scratch = nil // a large block's buffer is not kept for the small ones
			}
		}
		rec.Body = nil
		pending = it
		if err := s.noteRevisitTarget(rec, it.key); err != nil {
			return fail(err)
		}
	}
	if opts.Gaps || opts.OnFile != nil {
		fs := FileStream{File: name, Stream: rd.Stream()}
		if fs.Len > cover {
			gaps = append(gaps, span{cover, fs.Len})
		}
		for _, g := range gaps {
			fs.Gaps++
			fs.GapBytes += g.end - g.start
		}
		fs.Tiled = tiled
		if opts.Gaps && len(gaps) > 0 && tiled && (opts.Select == nil || opts.Select("")) {
			if name == "-" {
				fs.Tiled = false
			} else if err := s.readGaps(ctx, name, gaps, fs.Len, place); err != nil {
				return fail(err)
			}
		}
		if opts.OnFile != nil {
			s.mu.Lock()
			opts.OnFile(fs)
			s.mu.Unlock()
		}
	}
	return cr.n, rd.Skipped(), rd.Dropped(), nil
}

// add puts an in-memory item into the batch, spilling the batch first when
// it would exceed the limit.
func (s *sorter) add(it *item) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items++
	size := it.memSize()
	if s.batchMem+size > s.limit && len(s.batch) > 0 {
		if err := s.spill(); err != nil {
			return err
		}
	}
	s.batch = append(s.batch, it)
	s.batchMem += size
	return nil
}

// spill sorts the batch and writes it as a run.
func (s *sorter) spill() error {
	sortItems(s.batch)
	w, err := newRunWriter(s.dir)
	if err != nil {
		return err
	}
	for i, it := range s.batch {
		if err := w.write(it, bytes.NewReader(it.body)); err != nil {
			w.abort()
			return err
		}
		s.batch[i] = nil
	}
	path, err := w.close()
	if err != nil {
		return err
	}
	s.runsWritten++
	s.runs = append(s.runs, &run{path: path})
	s.batch, s.batchMem = s.batch[:0], 0
	return nil
}

// finish merges disk runs until a single merge can open them all.
func (s *sorter) finish(ctx context.Context) error {
	fan := s.fanIn()
	for len(s.runs) > fan {
		group := s.runs[:fan]
		w, err := newRunWriter(s.dir)
		if err != nil {
			return err
		}
		err = mergeRuns(group, func(it *item, body io.Reader) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			return w.write(it, body)
		})
		if err != nil {
			w.abort()
			return err
		}
		path, err := w.close()
		if err != nil {
			return err
		}
		s.runsWritten++
		s.runs = append(s.runs[fan:], &run{path: path})
	}
	return nil
}

// cleanup closes whatever runs are still open; their files go with the
// temporary directory.
func (s *sorter) cleanup() {
	for _, r := range s.runs {
		r.close()
	}
	if s.sideFile != nil {
		s.sideFile.Close()
	}
}
