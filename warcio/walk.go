package warcio

import (
	"bytes"
	"context"
	"fmt"
	"io"
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
	// directory is removed before Walk returns, whatever happened; one
	// that a killed Walk left there (no live process holds it locked) is
	// removed when the next Walk starts.
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
	// Summarize, when set, is called by the goroutine that read a record
	// (Workers of them at once), with the record and the block bytes Keep
	// kept, and Walk keeps and sorts the bytes it returns instead of the
	// block: Capture.Summary holds them and Capture.Body reads nothing.
	// The work a consumer does on every block then runs on all workers
	// rather than in fn, one capture at a time, and the block's memory is
	// free again at once. rec's Length, End and Trailer are not final
	// yet (they are when fn gets the capture); block is valid only during
	// the call. A record whose block is larger than a quarter of MemLimit
	// streams to disk unsummarized (Capture.Summary nil, Body reads the
	// block), as do all records of Parts. An error stops the walk.
	Summarize func(rec *Record, block []byte) ([]byte, error)
	// Gaps makes Walk yield, besides the records, every run of bytes of a
	// file's decompressed stream that no record covers (stray line ends,
	// damaged or unparseable regions the readers skipped, garbage at the
	// end), as Captures with Gap set, in pieces of at most MaxGapPiece
	// bytes, so that a consumer can keep the whole file. It also turns on
	// the readers' StreamDigest. Gap bytes are read in a second pass over
	// the file, only for files that have gaps; standard input cannot be
	// read twice, so its gaps are counted (FileStream) but not yielded.
	Gaps bool
	// Relocate, when set, is called as Walk starts reading an input file
	// (not standard input, not Parts); the function it returns, when not
	// nil, is called with each of the file's records and gap pieces, in
	// the reading goroutine, once its Length is final and before it is
	// sorted, and may set its Offset, SkipInMember and Length: where the
	// record is in another copy of the file, compressed otherwise (Pos and
	// End stay this file's stream's, which the two copies share; the
	// Origin of a revisit keeps this file's offsets). Compact and upgrade
	// read a file the archive gives back only decompressed as its stream
	// and place its records where they were in the file ingested. An
	// error stops the walk.
	Relocate func(file string) func(rec *Record) error
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
	// sorts the records of Range (and of Select, which must accept no
	// key outside Range) from the parts' segments that hold keys of
	// Range, within MemLimit as it sorts records read from files,
	// instead of reading files, and yields what a Walk of their files with the same Select
	// yields, in the same order. OnFile is called with each part's
	// stream; inputs are not read.
	Parts []Part
	Range KeyRange

	onRecord func(rec *Record, key string) // PresortOptions.OnRecord
}

// readSummary returns the summary an item carries instead of its block:
// its bytes in memory, else read from its run.
func readSummary(it *item, body io.Reader) ([]byte, error) {
	if it.body != nil {
		return it.body, nil
	}
	b := make([]byte, it.bodyLen)
	if _, err := io.ReadFull(body, b); err != nil {
		return nil, fmt.Errorf("read run: summary: %w", err)
	}
	return b, nil
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
	// Summary is what WalkOptions.Summarize returned for the record's
	// block, when it was called (then Body reads nothing); nil otherwise.
	Summary []byte
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
	// What a killed walk left there (its sorted runs) goes first
	// (MakeLockedTemp); a live walk's is locked.
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
		if it.summary {
			sum, err := readSummary(it, body)
			if err != nil {
				return err
			}
			c.Summary, c.Body = sum, bytes.NewReader(nil)
		}
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
