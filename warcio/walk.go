package warcio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base32"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultWalkMemLimit is the memory Walk uses for sorting when
// WalkOptions.MemLimit is 0.
const DefaultWalkMemLimit = 1 << 30

// WalkOptions configures Walk.
type WalkOptions struct {
	// MemLimit bounds the record bytes Walk holds in memory while sorting
	// (0 means DefaultWalkMemLimit). Beyond it, sorted runs are written to
	// TempDir and merged; the merge itself needs a few MiB more.
	MemLimit int64
	// TempDir is where Walk creates its private directory of runs
	// (os.TempDir() when empty). Nothing is written anywhere else, and the
	// directory is removed before Walk returns, whatever happened.
	TempDir string
	// Reader configures the reader of every input.
	Reader Options
	// Progress, when set, is called as input is read with the total number
	// of stored (compressed) input bytes read so far. Calls are serialised.
	Progress func(storedBytesRead int64)
	// Workers is how many inputs are read at once (0: GOMAXPROCS). Each
	// input is still read by one goroutine, once; the output does not
	// depend on it.
	Workers int
	// Stdin is read for the input "-".
	Stdin io.Reader
	// Keep, when set, says how many leading bytes of a record's block Walk
	// keeps (negative: all of it). The rest is still read once (and
	// digested when Reader.Digests is set) but neither stored nor sorted;
	// Capture.Body then reads only the kept prefix. Consumers that need
	// headers only, such as an index, save the copy and the memory.
	Keep func(rec *Record) int64
	// Gaps makes Walk yield, besides the records, every run of bytes of a
	// file's decompressed stream that no record covers (stray line ends,
	// damaged or unparseable regions the readers skipped, garbage at the
	// end), as Captures with Gap set, in pieces of at most MaxGapPiece
	// bytes, so that a consumer can keep the whole file. It also turns on
	// the readers' StreamDigest. Gap bytes are read in a second pass over
	// the file, only for files that have gaps; standard input cannot be
	// read twice, so its gaps are counted (FileStream) but not yielded.
	Gaps bool
	// OnFile, when set, is called once per input read to its end, with its
	// decompressed stream's length and digest and its gaps. Calls are
	// serialised, in no particular order.
	OnFile func(FileStream)
	// OnRead, when set, is called once every input has been read, before
	// the first record is handed to fn, with how many Captures (records
	// and gap pieces) fn will get: the second half of the work can then
	// show its progress.
	OnRead func(captures int64)
	// Select, when set, says which keys Walk yields: a record (or gap,
	// key "") whose key it rejects is still read, counted and digested
	// (FileStream describes the whole file) but neither stored nor
	// sorted. A sharded ingest walks every input once per shard, each
	// walk keeping its shard's key range.
	Select func(key string) bool
	// Parts, when set, are the inputs, read already by Presort: Walk
	// merges the parts' segments that hold keys of Range (and of
	// Select, which must accept no key outside Range) instead of reading
	// files, and yields what a Walk of their files with the same Select
	// yields, in the same order. OnFile is called with each part's
	// stream; inputs are not read.
	Parts []Part
	Range KeyRange

	onRecord func(rec *Record, key string) // PresortOptions.OnRecord
}

// MaxGapPiece bounds the bytes of one gap Capture: a long damaged region
// is yielded in pieces, so no piece costs more memory than that.
const MaxGapPiece = 1 << 20

// FileStream describes an input's decompressed stream, read to its end.
type FileStream struct {
	File string // as given to Walk (after expansion)
	Stream
	Gaps     int   // runs of bytes between, before or after records
	GapBytes int64 // their total length
	// Tiled says that the records and gaps cover the stream exactly, each
	// byte once, so the stream can be rebuilt from them: false when the
	// gaps could not be yielded (standard input) or records overlapped.
	Tiled bool
}

// KeepHTTPHeader, returned by WalkOptions.Keep, keeps a block up to the
// blank line ending its HTTP header (at most DefaultMaxHTTPHeader bytes).
const KeepHTTPHeader = -2

// Origin locates the capture a revisit record repeats.
type Origin struct {
	File         string
	Offset       int64
	SkipInMember int64
	Date         time.Time
	URI          string
	RecordID     string
}

// Capture is one record as Walk yields it: every header field of the
// Record, its grouping key, and its block. Body reads the block bytes and is
// valid only during the callback; the other fields stay valid after it.
type Capture struct {
	Record
	// Key is SURT(TargetURI): captures of one URL share it. Records
	// without a target URI (warcinfo, some metadata) have the key "".
	Key string
	// Gap marks bytes of the file that belong to no record (WalkOptions.Gaps):
	// Body reads them; File, Offset, SkipInMember, Length, Pos and End
	// locate them, Key, Type and the other fields are empty. A gap sorts
	// with the records without a target URI (key ""), by file and
	// position.
	Gap bool
	// RevisitOf is set for a revisit record whose original was found among
	// the inputs: first the latest earlier capture of the same key with the
	// revisit's payload digest, else (URL-agnostic revisits) the capture
	// named by WARC-Refers-To, or by WARC-Refers-To-Target-URI and
	// WARC-Refers-To-Date. It is nil when the original was not found.
	RevisitOf *Origin
}

// WalkStats counts what a Walk did.
type WalkStats struct {
	Files              int   // input files read
	Records            int64 // records yielded
	Skipped            int64 // malformed records skipped by the readers
	Dropped            int64 // stored bytes of damaged compressed members that do not decompress (Reader.Dropped)
	StoredBytes        int64 // stored (compressed) input bytes read
	Runs               int   // sorted runs written to TempDir
	Gaps               int64 // gap pieces yielded (WalkOptions.Gaps)
	Revisits           int64 // revisit records yielded
	UnresolvedRevisits int64 // revisits whose original was not found
}

// Walk reads every input once and calls fn with every record of every
// input, in capture order: grouped by Key (byte-wise ascending), and within
// a key by WARC-Date (records without a parseable date first), ties broken
// by file name, then offset. The order does not depend on the order of the
// inputs or of the records inside them, nor on MemLimit.
//
// All record types are yielded — warcinfo, request, metadata, resource and
// conversion records too — so that a consumer can keep every input record.
//
// Inputs are files, directories (searched recursively for names ending in
// .warc, .arc, optionally followed by .gz, .zst, .lz4, .bz2 and .open),
// glob patterns, and "-" for opts.Stdin. A file listed twice is read once.
//
// Memory is bounded by opts.MemLimit: records are sorted in memory up to
// the limit, then written as compressed sorted runs to a private directory
// under opts.TempDir and merged; a record larger than a quarter of the limit
// streams into a run of its own. The directory is removed before Walk
// returns, also on error or when ctx is cancelled.
//
// Walk stops at the first error returned by a reader (see Options.Policy
// for what the readers skip instead) or by fn, and returns it.
func Walk(ctx context.Context, inputs []string, opts WalkOptions, fn func(*Capture) error) (WalkStats, error) {
	var st WalkStats
	var files []string
	if opts.Parts == nil {
		var err error
		if files, err = ExpandInputs(inputs); err != nil {
			return st, err
		}
	}
	if opts.MemLimit <= 0 {
		opts.MemLimit = DefaultWalkMemLimit
	}
	dir, release, err := makeWalkDir(opts.TempDir)
	if err != nil {
		return st, err
	}
	defer release()

	s := &sorter{dir: dir, limit: opts.MemLimit, wanted: map[string]*Origin{}}
	defer s.cleanup()
	if opts.Parts != nil {
		err = s.loadParts(ctx, &opts, &st)
	} else {
		err = s.readAll(ctx, files, &opts, &st)
	}
	if err != nil {
		return st, err
	}
	if err := s.finish(ctx); err != nil {
		return st, err
	}
	if opts.OnRead != nil {
		opts.OnRead(s.items)
	}
	st.Runs = s.runsWritten
	if err := s.resolveAgnostic(); err != nil {
		return st, err
	}
	runs := s.runs
	s.runs = nil
	if len(s.batch) > 0 {
		sortItems(s.batch)
		runs = append(runs, &run{mem: s.batch})
		s.batch = nil
	}

	var (
		curKey  string
		digests = map[string]*Origin{}
		c       Capture
	)
	err = mergeRuns(runs, func(it *item, body io.Reader) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if it.key != curKey {
			curKey = it.key
			if len(digests) > 64 {
				digests = map[string]*Origin{} // clear would cost its grown capacity at every key
			} else {
				clear(digests)
			}
		}
		c = Capture{Record: *it.rec, Key: it.key, Gap: it.gap}
		c.Body = body
		if it.gap {
			st.Gaps++
			return fn(&c)
		}
		if c.Type == "revisit" {
			st.Revisits++
			if d := normDigest(c.Header.Get("WARC-Payload-Digest")); d != "" {
				c.RevisitOf = digests[d]
			}
			if c.RevisitOf == nil {
				c.RevisitOf = s.lookupAgnostic(it.rec)
			}
			if c.RevisitOf == nil {
				st.UnresolvedRevisits++
			}
		} else if isOriginal(it.rec) {
			if d := payloadDigest(it.rec); d != "" {
				digests[d] = originOf(it.rec)
			}
		}
		st.Records++
		return fn(&c)
	})
	return st, err
}

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
	side     bytes.Buffer
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
			var rd *Reader // one per worker: Reset reuses its buffers and decoders across files
			for name := range jobs {
				n, skipped, dropped, err := s.readInput(ctx, name, opts, progress, &rd)
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
func (s *sorter) readInput(ctx context.Context, name string, opts *WalkOptions, progress func(int64), reuse **Reader) (stored, skipped, dropped int64, err error) {
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
	reported := int64(0)
	var pending *item // added once its Length is final (after the next Next)
	var pendingRun *runWriter
	flushPending := func() error {
		if pending == nil {
			return nil
		}
		it, w := pending, pendingRun
		pending, pendingRun = nil, nil
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
		case keep >= 0 && keep < rec.ContentLen:
			it.body, berr = ReadBlock(io.LimitReader(rec.Body, keep), keep, 1<<20)
			it.bodyLen = int64(len(it.body))
		case rec.ContentLen > s.bigRecord():
			w, err := newRunWriter(s.dir)
			if err != nil {
				return fail(err)
			}
			pendingRun = w
			it.bodyLen, berr = io.Copy(w.bw, rec.Body)
		default:
			it.body, berr = ReadBlock(rec.Body, rec.ContentLen, 1<<20)
			it.bodyLen = int64(len(it.body))
		}
		if berr != nil && !isFormatErr(berr) {
			return fail(fmt.Errorf("read %s: record at %d: %w", name, rec.Offset, berr))
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
			} else if err := s.readGaps(ctx, name, gaps, fs.Len); err != nil {
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

// span is a range [start, end) of a decompressed stream.
type span struct{ start, end int64 }

// readGaps reads the file's decompressed stream again and adds the bytes
// of each gap as gap items (the first pass kept only their positions: a
// gap is found only once the record after it starts). want is the
// stream's length in the first pass; a different length now means the
// file changed under the walk.
func (s *sorter) readGaps(ctx context.Context, name string, gaps []span, want int64) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("open input again for its gaps: %w", err)
	}
	defer f.Close()
	c := newContainer(f, name)
	var pos int64
	// read fills p from the stream; the container reports damage it
	// skips as a *FormatError (the first pass reported it already) and
	// goes on.
	read := func(p []byte) (int, error) {
		got := 0
		for got < len(p) {
			n, err := c.Read(p[got:])
			got += n
			pos += int64(n)
			if err == io.EOF {
				if got < len(p) {
					return got, fmt.Errorf("read %s again for its gaps: %w", name, io.ErrUnexpectedEOF)
				}
				break
			}
			if err != nil && !isFormatErr(err) {
				return got, fmt.Errorf("read %s again for its gaps: %w", name, err)
			}
		}
		return got, nil
	}
	skip := make([]byte, 64<<10)
	for _, g := range gaps {
		for pos < g.start {
			if err := ctx.Err(); err != nil {
				return err
			}
			if _, err := read(skip[:min(int64(len(skip)), g.start-pos)]); err != nil {
				return err
			}
			c.prune(pos - 1)
		}
		for start := g.start; start < g.end; {
			n := min(g.end-start, MaxGapPiece)
			body := make([]byte, n)
			if _, err := read(body); err != nil {
				return err
			}
			off, skipIn := c.locate(start)
			end, ok := c.endOf(start + n - 1)
			if !ok {
				end = c.storedPos()
			}
			rec := &Record{File: name, Compression: c.comp, Offset: off, SkipInMember: skipIn,
				Length: max(end-off, 0), Pos: start, End: start + n, ContentLen: n}
			if err := s.add(&item{rec: rec, bodyLen: n, body: body, gap: true}); err != nil {
				return err
			}
			c.prune(start + n - 1)
			start += n
		}
	}
	if pos < want {
		var n int64
		for {
			m, err := c.Read(skip)
			n += int64(m)
			if err == io.EOF {
				break
			}
			if err != nil && !isFormatErr(err) {
				return fmt.Errorf("read %s again for its gaps: %w", name, err)
			}
		}
		pos += n
	}
	if pos != want {
		return fmt.Errorf("read %s again for its gaps: the decompressed stream is %d bytes, it was %d in the first pass (did the file change?)", name, pos, want)
	}
	return nil
}

// isFormatErr reports damage the Reader itself reports and counts at the
// next Next (under PolicyFail it returns it there): the block read so far
// is kept.
func isFormatErr(err error) bool {
	var fe *FormatError
	return errors.As(err, &fe)
}

// ReadBlock reads a record block into memory. declared, the block's
// Content-Length, only sizes the first allocation, capped at maxAlloc: it
// may lie, and a block that is as long as declared is then read without
// being copied again and again as io.ReadAll would grow its buffer.
func ReadBlock(r io.Reader, declared, maxAlloc int64) ([]byte, error) {
	b := make([]byte, 0, min(max(declared, 0), maxAlloc)+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// readHTTPHeader reads a block up to the end of its HTTP header: the first
// empty line (CRLF CRLF or LF LF), or DefaultMaxHTTPHeader bytes.
func readHTTPHeader(r io.Reader, declared int64) ([]byte, error) {
	b := make([]byte, 0, min(max(declared, 0), 1<<10))
	for len(b) < DefaultMaxHTTPHeader {
		if len(b) == cap(b) {
			b = slices.Grow(b, min(len(b), DefaultMaxHTTPHeader-len(b)))
		}
		n, err := r.Read(b[len(b):min(cap(b), DefaultMaxHTTPHeader)])
		from := max(len(b)-3, 0)
		b = b[:len(b)+n]
		if i := bytes.Index(b[from:], []byte("\n\r\n")); i >= 0 {
			return b[:from+i+3], nil
		}
		if i := bytes.Index(b[from:], []byte("\n\n")); i >= 0 {
			return b[:from+i+2], nil
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
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

// ---------------------------------------------------------------------------
// Revisit resolution.

// isOriginal says whether a record can be the original of a revisit.
func isOriginal(r *Record) bool {
	return r.Type == "response" || r.Type == "resource"
}

func originOf(r *Record) *Origin {
	return &Origin{File: r.File, Offset: r.Offset, SkipInMember: r.SkipInMember,
		Date: r.Date, URI: r.TargetURI, RecordID: r.RecordID}
}

// payloadDigest is the record's payload digest in normalised form: the
// declared one, else the computed SHA-1.
func payloadDigest(r *Record) string {
	if d := normDigest(r.Header.Get("WARC-Payload-Digest")); d != "" {
		return d
	}
	if r.digests.PayloadSHA1 != nil {
		return "sha1:" + string(r.digests.PayloadSHA1)
	}
	return ""
}

// normDigest turns "sha1:BASE32" (or SHA-1 in hex or base64) into
// "sha1:" + the raw 20 bytes, so that the spellings compare equal; other
// algorithms are kept as "alg:value" with the algorithm lower-cased.
func normDigest(d string) string {
	alg, val, ok := strings.Cut(strings.TrimSpace(d), ":")
	if !ok || val == "" {
		return ""
	}
	alg = strings.ToLower(alg)
	if alg == "sha1" || alg == "sha-1" {
		var raw []byte
		var err error
		switch len(val) {
		case 32:
			raw, err = base32.StdEncoding.DecodeString(strings.ToUpper(val))
		case 40:
			raw, err = hex.DecodeString(val)
		case 28:
			raw, err = base64.StdEncoding.DecodeString(val)
			if err != nil {
				raw, err = base64.URLEncoding.DecodeString(val)
			}
		default:
			err = errBadMeta
		}
		if err == nil && len(raw) == 20 {
			return "sha1:" + string(raw)
		}
	}
	return alg + ":" + val
}

// parseRefDate parses WARC-Refers-To-Date (W3C-DTF, any precision).
func parseRefDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "20060102150405"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

func agnosticKeys(key string, date time.Time) string {
	return "u\x00" + key + "\x00" + fmt.Sprint(date.Unix())
}

// noteRevisitTarget records what a URL-agnostic revisit refers to, and
// keeps a compact line for every possible original.
func (s *sorter) noteRevisitTarget(r *Record, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case r.Type == "revisit":
		if r.RefersTo != "" {
			s.want(key, "i\x00"+r.RefersTo)
		}
		if r.RefersToTargetURI != "" {
			if t, ok := parseRefDate(r.RefersToDate); ok {
				s.want(key, agnosticKeys(SURT(r.RefersToTargetURI), t))
			}
		}
	case isOriginal(r):
		var e []byte
		e = appendStr(e, key)
		e = binary.AppendVarint(e, r.Date.Unix())
		e = binary.AppendUvarint(e, uint64(r.Date.Nanosecond()))
		e = appendStr(e, r.RecordID)
		e = appendStr(e, r.File)
		e = binary.AppendVarint(e, r.Offset)
		e = binary.AppendVarint(e, r.SkipInMember)
		e = appendStr(e, r.TargetURI)
		if s.notes != nil {
			appendNote(s.notes, noteOriginal, key, e)
			return nil
		}
		return s.addCandidate(e)
	}
	return nil
}

// want notes a target a revisit of key asks for.
func (s *sorter) want(key, target string) {
	if s.notes != nil {
		appendNote(s.notes, noteWanted, key, []byte(target))
		return
	}
	s.wanted[target] = nil
}

// addCandidate keeps the compact line of a possible original, spilling
// the lines to a temporary file beyond 1 MiB.
func (s *sorter) addCandidate(e []byte) error {
	var b [binary.MaxVarintLen64]byte
	s.side.Write(b[:binary.PutUvarint(b[:], uint64(len(e)))])
	s.side.Write(e)
	if s.side.Len() > 1<<20 {
		if s.sideFile == nil {
			f, err := os.CreateTemp(s.dir, "originals-*")
			if err != nil {
				return fmt.Errorf("create temp file: %w", err)
			}
			s.sideFile = f
		}
		if _, err := s.sideFile.Write(s.side.Bytes()); err != nil {
			return fmt.Errorf("write temp file: %w", err)
		}
		s.side.Reset()
	}
	return nil
}

// resolveAgnostic finds the originals URL-agnostic revisits asked for by
// scanning the compact list of candidates once.
func (s *sorter) resolveAgnostic() error {
	if len(s.wanted) == 0 {
		return nil
	}
	scan := func(br *bufio.Reader) error {
		var buf []byte
		for {
			n, err := binary.ReadUvarint(br)
			if err == io.EOF {
				return nil
			}
			if err != nil || n > 1<<24 {
				return fmt.Errorf("read temp file: %w", errBadMeta)
			}
			buf = slices.Grow(buf[:0], int(n))[:n]
			if _, err := io.ReadFull(br, buf); err != nil {
				return fmt.Errorf("read temp file: %w", err)
			}
			d := &metaDecoder{b: buf}
			key := d.str()
			sec := d.varint()
			nsec := d.uvarint()
			o := &Origin{RecordID: d.str(), File: d.str(), Offset: d.varint(), SkipInMember: d.varint(), URI: d.str()}
			if d.err != nil {
				return fmt.Errorf("read temp file: %w", d.err)
			}
			o.Date = time.Unix(sec, int64(nsec)).UTC()
			for _, wk := range []string{"i\x00" + o.RecordID, agnosticKeys(key, o.Date)} {
				if prev, ok := s.wanted[wk]; ok && (prev == nil || o.Date.Before(prev.Date)) {
					s.wanted[wk] = o
				}
			}
		}
	}
	if s.sideFile != nil {
		if _, err := s.sideFile.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("read temp file: %w", err)
		}
		if err := scan(bufio.NewReaderSize(s.sideFile, 64<<10)); err != nil {
			return err
		}
	}
	return scan(bufio.NewReader(bytes.NewReader(s.side.Bytes())))
}

func (s *sorter) lookupAgnostic(r *Record) *Origin {
	if len(s.wanted) == 0 {
		return nil
	}
	if r.RefersTo != "" {
		if o := s.wanted["i\x00"+r.RefersTo]; o != nil {
			return o
		}
	}
	if r.RefersToTargetURI != "" {
		if t, ok := parseRefDate(r.RefersToDate); ok {
			return s.wanted[agnosticKeys(SURT(r.RefersToTargetURI), t)]
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// Inputs.

// IsInputName tells whether a file name is one ExpandInputs picks from a
// directory.
func IsInputName(name string) bool { return warcName.MatchString(name) }

// ExpandInputs turns command-line inputs — files, directories (searched
// recursively for names ending .warc or .arc, optionally .gz, .zst,
// .zstd, .lz4 or .bz2, then optionally .open, in any case), glob patterns
// and "-" — into a list of files, each once, in the order given
// (directory contents sorted). It is the one rule every command uses. A
// missing path is an error naming it, and so is a directory holding no
// input file: an archive or index of nothing is a mistake, not a result.
func ExpandInputs(inputs []string) ([]string, error) {
	in, err := ExpandInputNames(inputs)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(in))
	for i, f := range in {
		out[i] = f.Path
	}
	return out, nil
}

// An Input is a file ExpandInputNames found: its path, and its name
// relative to the argument it was found under — its base name when the
// argument named the file (or a glob matched it), its path below the
// directory (with "/" between components) when it was found in one.
// Ingest records inputs under these names, so that 2024-01/crawl.warc.gz
// and 2024-02/crawl.warc.gz of one directory stay two files.
type Input struct {
	Path, Name string
}

// ExpandInputNames is ExpandInputs with each file's name relative to its
// argument (Input).
func ExpandInputNames(inputs []string) ([]Input, error) {
	var out []Input
	seen := map[string]bool{}
	addFile := func(p, name string) {
		key := filepath.Clean(p)
		if !seen[key] {
			seen[key] = true
			out = append(out, Input{Path: p, Name: name})
		}
	}
	addPath := func(p string) error {
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("open input: %w", err)
		}
		if !fi.IsDir() {
			addFile(p, filepath.Base(p))
			return nil
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && warcName.MatchString(d.Name()) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("list input directory: %w", err)
		}
		if len(found) == 0 {
			return fmt.Errorf("open input: %s: no WARC or ARC files in directory", p)
		}
		sort.Strings(found)
		for _, f := range found {
			rel, err := filepath.Rel(p, f)
			if err != nil {
				rel = filepath.Base(f)
			}
			addFile(f, filepath.ToSlash(rel))
		}
		return nil
	}
	for _, in := range inputs {
		if in == "-" {
			addFile(in, in)
			continue
		}
		if _, err := os.Lstat(in); err != nil && strings.ContainsAny(in, "*?[") {
			matches, gerr := filepath.Glob(in)
			if gerr != nil {
				return nil, fmt.Errorf("expand input pattern %q: %w", in, gerr)
			}
			if len(matches) == 0 {
				return nil, fmt.Errorf("expand input pattern %q: no files match", in)
			}
			for _, m := range matches {
				if err := addPath(m); err != nil {
					return nil, err
				}
			}
			continue
		}
		if err := addPath(in); err != nil {
			return nil, err
		}
	}
	return out, nil
}
