package dedupe

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/dedupe/reencode"
	"github.com/blockwarc/blockwarc/dedupe/zlibenc"
	"github.com/blockwarc/blockwarc/partition"
	"github.com/blockwarc/blockwarc/warcio"
)

// DefaultCommitBytes is Options.CommitBytes' default: 256 MiB of input
// records between commits, about 25 s of one core's work to do again
// after a crash. A commit costs more than its write: the last frame
// compressed holds up the pipeline (a second or two at level 19), and
// the next commit's chunk writer starts from the committed archive,
// knowing of it what each URL's previous capture names and the chunks
// of its last 32 MiB of frames (chunk.Options.SeedBytes), so chunks
// other URLs share are stored again only when older. At 64 MiB, the
// default before, a commit came every 3 MB of new bytes, before one
// frame filled: all four corpus sites in one ingest (120 MB) came out
// 4.6 % larger, with one commit more, than at 256 MiB; 1.3 % larger
// since the seed.
const DefaultCommitBytes = 256 << 20

// DefaultLevel is the partition level of a URL without history: the
// adaptive partition (partition.LevelAdaptive), whose kept blocks are
// single regions of the page, so that the archive's blocks, the tables'
// and what blocks and diff show are the same (issue 12). It costs more
// objects than the coarsest level 1; with short object ids (16-byte
// index entries) the corpus archives at the adaptive level are 1.0-3.3 %
// smaller than they were at level 1 with whole ids on three sites and
// 3.7 % larger on mkdocs-org, whose articles divide into many sections
// (docs/FORMAT.md "Object ids"; `ingest -level 1` keeps the coarsest).
const DefaultLevel = partition.LevelAdaptive

// DefaultFrameSize is the frame size ingest asks of the pack store when
// Options.Pack.FrameSize is 0: a URL's successive captures compress
// against each other only inside one frame, and on the corpus 4 MiB frames
// make the archive a third smaller than 512 KiB ones, for a few
// milliseconds more to decompress a frame on restore.
const DefaultFrameSize = 4 << 20

// Options configure Ingest. The zero value is usable.
type Options struct {
	// rename and rowNames give, per input path, the name the catalog's
	// versions and the input-file table record (Compact: originals
	// restored under a temporary directory keep their names).
	rename, rowNames map[string]string
	// restored are the inputs that are the streams of files the archive
	// gives back only decompressed (Compact, Upgrade), by path.
	restored map[string]*restoredStream
	// Level is the partition level for URLs the archive has no level for
	// yet (DefaultLevel when 0; partition.LevelAdaptive for the adaptive
	// partition). A URL keeps the level of its history.
	Level int
	// Pack configures the object store (frame size, delta chain bound,
	// compression workers...).
	Pack pack.Options
	// MemLimit is the memory budget for the records ingest holds (0:
	// warcio.DefaultWalkMemLimit), divided by SplitMemory between the
	// capture walk's sort and the records in flight; it also sets how
	// many frames compress at once when Pack.Workers is 0. TempDir
	// places the sort's spilled runs.
	MemLimit int64
	TempDir  string
	// Reader configures the input readers (malformed-record policy...).
	Reader warcio.Options
	// Workers is how many URLs are modelled (partitioned, matched,
	// encoded, checked) in parallel (default 1). The archive written does
	// not depend on it. With 1, everything runs in the caller's goroutine;
	// with more, one more goroutine stores the modelled objects. Frames
	// compress in the background when Pack.Workers > 1 (0: the budget's
	// Compress; each frame compressing holds Pack.NativeMemory's share).
	Workers int
	// CommitBytes is how many bytes of input records are ingested between
	// commits (default DefaultCommitBytes); commits fall between URLs.
	CommitBytes int64
	// Progress, when set, is called after each URL with the totals so far,
	// from one goroutine at a time (with several workers, not the
	// caller's).
	Progress func(Stats)
	// InputProgress, when set, receives the stored input bytes read.
	InputProgress func(int64)
	// Finishing, when set, is called once storing is done, before each
	// step that remains, with what it does: "hashing the input files",
	// "checking that the input files restore bit for bit" (re-deflating
	// their gzip members, which can outlast storing), "committing". A
	// progress display that counts stored bytes would otherwise sit near
	// its end with no word of why.
	Finishing func(step string)
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
	// SkipOriginal: do not read gzip inputs a second time to learn their
	// members, so no file restores bit-exact compressed (its stream
	// still restores). What the second read costs is measured by
	// BenchmarkOriginalShare.
	SkipOriginal bool
	// Select, when set, limits the ingest to the records (and gaps, key
	// "") whose SURT key it accepts (warcio.WalkOptions.Select): one
	// shard of a sharded archive. Every input is still read whole, so the
	// input-file rows describe whole files; Records counts the selected
	// records only.
	Select func(key string) bool
	// Parts, when set, are the inputs read already (Presort), by path:
	// the ingest walks their segments of PartRange (which must hold
	// every key Select accepts) instead of reading the files, and writes
	// the same archive. Every input must have its part.
	Parts     map[string]Part
	PartRange warcio.KeyRange
	// Originals are what LearnOriginal learnt of input files, by path:
	// not learnt again (the others are, unless SkipOriginal).
	Originals map[string][]byte
}

// Stats count what Ingest did.
type Stats struct {
	Files        int   `json:"files"`         // input files ingested
	FilesSkipped int   `json:"files_skipped"` // input files already in the archive (same name, size, SHA-256)
	Records      int64 `json:"records"`       // records read
	Repeats      int64 `json:"repeats"`       // records already in the catalog (a resumed ingest)
	Malformed    int64 `json:"malformed"`     // malformed records skipped by the readers
	DroppedBytes int64 `json:"dropped_bytes"` // compressed bytes of damaged members after the damage: not decompressed, not stored (warcio.WalkStats.Dropped)
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
	// DigestHits counts objects found through the digest tables of
	// earlier commits (docs/FORMAT.md "Digest table"): stored before,
	// under any URL, and not stored again.
	DigestHits int64 `json:"digest_hits"`
	// CaptureMoved counts objects stored again to keep a capture's
	// restore within the archive's CaptureFrames (pack.Settings).
	CaptureMoved int64 `json:"capture_moved,omitempty"`
	// HistoryUnread counts the URLs whose earlier captures' header
	// anchors were lost (with a damaged frame, after a repair without the
	// original files): their new captures were stored without them,
	// complete on their own; verify names the old ones.
	HistoryUnread int64 `json:"history_unread"`
	// Recovered says, when the archive's COMMIT was damaged and its copy
	// served (pack.Store.Recovered), what was wrong; this ingest's
	// commits rewrote both files.
	Recovered string `json:"recovered,omitempty"`
}

// Ingest adds the records of inputs to the archive in dir, creating it
// when dir holds none. It takes the archive lock (a second concurrent
// ingest fails with pack.ErrLocked), commits every Options.CommitBytes and
// at the end; after a crash the archive is at its last commit and running
// Ingest again completes it. Files already ingested completely are
// skipped.
//
// An ingest interrupted and run again with the same inputs and options
// writes the same archive bytes as one that was not (docs/FORMAT.md
// "Crash and resume").
func Ingest(ctx context.Context, dir string, inputs []string, opts Options) (Stats, error) {
	st, err := ingest(ctx, dir, inputs, opts, true, nil)
	if errors.Is(err, errResumeMismatch) {
		// Nothing was added: the walk stops at the first capture past
		// the committed position. What the interrupted ingest committed
		// is then history, as an earlier ingest's would be.
		st, err = ingest(ctx, dir, inputs, opts, false, nil)
	}
	return st, err
}

// ingest is Ingest; resume says whether to resume an interrupted ingest
// the root records. With rec, it is repair's re-ingest of lost catalog
// segments (recoverSegments).
func ingest(ctx context.Context, dir string, inputs []string, opts Options, resume bool, rec *recovery) (Stats, error) {
	var st Stats
	if opts.Level == 0 {
		opts.Level = DefaultLevel
	}
	if opts.CommitBytes <= 0 {
		opts.CommitBytes = DefaultCommitBytes
	}
	if opts.Pack.FrameSize <= 0 {
		opts.Pack.FrameSize = DefaultFrameSize
	}
	budget := SplitMemory(opts.MemLimit, max(opts.Workers, 1), opts.Pack.ChunkTable)
	if opts.Pack.Workers <= 0 {
		opts.Pack.Workers = budget.Compress
	}
	if opts.Pack.CacheBytes <= 0 {
		opts.Pack.CacheBytes = budget.Cache
	}
	if rec == nil {
		// Nothing is written, the archive not even created, when an
		// input is not WARC or ARC (repair reads originals ingested).
		if err := CheckInputs(ctx, inputs); err != nil {
			return st, err
		}
	}
	s, err := pack.Open(dir, opts.Pack)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, pack.ErrNotArchive) {
		s, err = pack.Create(dir, opts.Pack)
	}
	if err != nil {
		return st, err
	}
	defer s.Close()
	st.Recovered = s.Recovered()
	w, err := s.Begin()
	if err != nil {
		return st, err
	}
	defer w.Close()
	// The tables are the archive's (its settings), whatever the memory.
	budget = SplitMemory(opts.MemLimit, max(opts.Workers, 1), w.Settings().ChunkTable)
	if !opts.Pack.Plain {
		// New objects are named by place: no index entry, and a few
		// bytes in the catalog instead of an id (docs/FORMAT.md
		// "Objects named by place").
		if err := w.NamePlaces(); err != nil {
			return st, err
		}
	}
	r, err := decodeRoot(s.Payload())
	if err == nil {
		// Which files are in already decides what is ingested: a table
		// that does not read stops the ingest (repair names it).
		err = r.load(s)
	}
	if err != nil {
		return st, fmt.Errorf("open catalog of %s: %w", dir, err)
	}

	named, err := expandNamed(inputs)
	if err != nil {
		return st, err
	}
	files := make([]string, len(named))
	for i, f := range named {
		files[i] = f.Path
	}
	names := inputNames(named, r.Files)
	todo, skipped, later, err := selectInputs(ctx, files, names, r.Files)
	if rec != nil {
		// Files the archive has ingested: read again, not added.
		todo, skipped, later = nil, 0, nil
		for _, f := range files {
			todo = append(todo, input{path: f, name: names[f]})
		}
		rec.drop(r)
	}
	if err != nil {
		return st, err
	}
	st.FilesSkipped = skipped
	if err := checkRestoredTodo(opts.restored, todo); err != nil {
		return st, err
	}
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

	// A new run, or the run of the interrupted ingest to extend; the
	// history is the runs before it either way.
	run := len(r.Runs)
	var open *openIngest
	if resume && r.Open != nil {
		open, run = r.Open, r.Open.Run
	}
	g := &ingester{ctx: ctx, opts: &opts, s: s, w: w, r: r, st: &st, run: run, budget: budget,
		hist:    newHistoryReader(s, &root{Runs: r.Runs[:run:run]}, int(budget.Cache)),
		resume:  open,
		walk:    newWalkDigest(),
		records: map[string]int64{}, malformed: map[string]int64{}, pieces: map[string]pieceSum{}, streams: map[string]warcio.FileStream{}}
	if rec != nil {
		g.rename = rec.names
	} else {
		g.rename = opts.rename
	}
	if g.chunkEnd, err = s.NextChunk(); err != nil {
		return st, fmt.Errorf("open the chunks of %s: %w", dir, err)
	}
	if len(r.Runs) == run {
		r.Runs = append(r.Runs, nil)
		// A new run's dates are known: none yet. A resumed run keeps
		// those its root gave it (unknown from a root before version 10).
		r.setDates(run, runDates{Known: true})
	}
	g.start()
	defer g.finish()
	paths := make([]string, len(todo))
	for i := range todo {
		paths[i] = todo[i].path // not todo[i].in: being hashed
	}
	learner := newOriginalLearner(ctx)
	learner.given = opts.Originals
	ro := g.readerOpts(opts.Reader)
	if hookMembers && zlibenc.Available && !opts.SkipOriginal && opts.Parts == nil {
		learner.hooks = newMemberHooks(learner.ctx, opts.Originals)
		ro.OnMember, ro.MaxMemberPlain = learner.hooks.member, maxMemberPlain
	}
	defer learner.stop()
	var parts []warcio.Part
	if opts.Parts != nil {
		for _, p := range paths {
			part, ok := opts.Parts[p]
			if !ok {
				return st, fmt.Errorf("ingest %s: no presorted part of it", p)
			}
			parts = append(parts, part.Part)
			g.malformed[p] = part.Malformed
		}
	}
	ws, err := warcio.Walk(ctx, paths, warcio.WalkOptions{
		Parts: parts, Range: opts.PartRange,
		MemLimit: budget.Sort, TempDir: opts.TempDir, Reader: ro,
		Progress: opts.InputProgress, Select: opts.Select,
		Gaps: true, OnFile: func(fs warcio.FileStream) {
			g.streams[fs.File] = fs
			if !opts.SkipOriginal && opts.restored[fs.File] == nil {
				learner.start(fs)
			}
		},
		Relocate: relocator(opts.restored),
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
	if err == nil && g.resume != nil && g.walk.sum() != g.resume.Walk {
		err = errResumeMismatch // the walk ended at or before the committed position
	}
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
	st.DroppedBytes = ws.Dropped
	st.Records += g.resumed
	st.Repeats += g.resumed
	if err != nil {
		return st, err
	}
	finishing := func(step string) {
		if opts.Finishing != nil {
			opts.Finishing(step)
		}
	}
	finishing("hashing the input files")
	if err := <-hashed; err != nil {
		return st, err
	}
	rows := make([]InputFile, len(todo))
	for i, t := range todo {
		in := t.in
		in.Name = t.name
		in.Records, in.Malformed = g.records[t.path], g.malformed[t.path]
		in.StreamLen = -1
		if fs, ok := g.streams[t.path]; ok {
			in.StreamLen, in.StreamSHA256, in.Gaps, in.Rebuildable = fs.Len, fs.SHA256, int64(fs.Gaps), fs.Tiled
		}
		if n, ok := opts.rowNames[t.path]; ok {
			in.Name = n
		}
		rows[i] = in
	}
	if !opts.SkipOriginal {
		finishing("checking that the input files restore bit for bit")
	}
	if err := learner.apply(rows, paths, g.pieces, opts.SkipOriginal); err != nil {
		return st, err
	}
	for i, t := range todo {
		if rs := opts.restored[t.path]; rs != nil {
			if err := rs.apply(&rows[i], opts.Select != nil); err != nil {
				return st, err
			}
		}
	}
	if rec == nil {
		r.Files = append(r.Files, rows...)
	}
	st.Files = len(todo)
	finishing("committing")
	if err := g.commit(nil); err != nil {
		return st, err
	}
	st.DigestHits = w.Stats().DigestHits
	return st, nil
}
