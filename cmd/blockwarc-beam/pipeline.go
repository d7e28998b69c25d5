package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"syscall"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"golang.org/x/sys/unix"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/ingestflags"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/dedupe/shard"
	"github.com/blockwarc/blockwarc/export/columnar"
	"github.com/blockwarc/blockwarc/export/tables"
	"github.com/blockwarc/blockwarc/warcio"
)

// Config is what every step of the pipeline needs; its fields travel to
// the workers (JSON-encoded with the steps), so they are plain values.
// The archive settings in Ingest (Level, CommitBytes, NoParity) are those
// of 'blockwarc ingest' of the same name and default, parsed by the same
// owner (ingestflags): with the same values the pipeline writes the same
// bytes.
type Config struct {
	Archive string // the sharded archive to write (a new one, or Replace)
	Shards  int    // shards wanted (fewer when the keys leave fewer places to cut)
	// Ingest are each shard's ingest settings: -level, -commit,
	// -parity, -shard-workers (Workers), -shard-mem (MemLimit), -tmp,
	// -policy.
	Ingest ingestflags.Values
	// Replace lets the pipeline replace an existing archive: the new one
	// is published in its place by one atomic exchange.
	Replace bool
	// Extend adds the inputs to the existing sharded archive (set by Run
	// when Archive has a shard manifest and Replace is unset): no
	// sampling, the stored boundaries route the records, and each shard's
	// ingest extends the shard in place, committing as 'blockwarc ingest'
	// does.
	Extend bool
	// Lanes divides the files and the shards of each long step among
	// stages that Prism runs at once (Build); 1 or less: one.
	Lanes int
	// Boundaries are the stored boundaries of the archive Extend extends.
	Boundaries []string
	// FailFinalizeOnce names a file: when it exists, the finalize step
	// removes it and fails after staging the manifest, before
	// publishing (a killed finalize, for tests).
	FailFinalizeOnce string
	// FailShardOnce names a file: when it exists, extending an archive,
	// the last shard's ingest removes it and stops after its first
	// commit (a killed shard worker, for tests).
	FailShardOnce string
}

// staging is the directory the pipeline builds the archive in, beside
// it: published by renaming it to Archive.
func (c Config) staging() string {
	return filepath.Join(filepath.Dir(c.Archive), "."+filepath.Base(c.Archive)+".beam-staging")
}

// options are the ingest options 'blockwarc ingest' passes for the same
// settings (ingestflags makes both), with warnings to the worker's log.
func (c Config) options(ctx context.Context) dedupe.Options {
	o := c.Ingest.Options()
	if o.Reader.Policy == warcio.PolicyWarn {
		o.Reader.OnError = func(err error) { log.Warnf(ctx, "blockwarc-beam: %v", err) }
	}
	return o
}

// manifest is the manifest of the shards the pipeline writes: the one
// stored in the archive it extends, or the new one of the boundaries
// cut.
func (c Config) manifest(boundaries []string) (*shard.Manifest, error) {
	if c.Extend {
		return shard.ReadManifest(c.Archive)
	}
	return shard.NewManifest(boundaries)
}

// root is the directory the shards are written in: the archive extended,
// or the staging directory of a new one.
func (c Config) root() string {
	if c.Extend {
		return c.Archive
	}
	return c.staging()
}

// partsDir is where the inputs' parts (their records, in key-ordered
// segments) wait for the shard ingests, beside the archive: on the file
// system every worker sees, removed when the archive is published.
func (c Config) partsDir() string {
	return filepath.Join(filepath.Dir(c.Archive), "."+filepath.Base(c.Archive)+".beam-parts")
}

// tablesStage is where shard i's table parts wait for the finalize step.
func (c Config) tablesStage(i int) string {
	return filepath.Join(c.staging(), fmt.Sprintf(".tables-%04d", i))
}

func init() {
	register.DoFn3x1[context.Context, string, func(string), error](&matchFn{})
	register.DoFn3x1[context.Context, string, func(fileRead), error](&presortFn{})
	register.DoFn3x1[context.Context, fileRead, func(int, learnt), error](&learnFn{})
	register.DoFn2x0[fileRead, func([]byte)](&sampleOfFn{})
	register.DoFn2x0[string, func(string)](&fileLaneFn{})
	register.DoFn3x0[int, learnt, func(int, learnt)](&learntLaneFn{})
	register.DoFn2x0[shardDone, func(shardDone)](&doneLaneFn{})
	register.Function2x2(mergeSamples)
	register.DoFn2x1[[]byte, func([]string), error](&cutFn{})
	register.DoFn4x0[context.Context, fileRead, []string, func(int, shardInput)](&keyFn{})
	register.DoFn5x1[context.Context, int, func(*shardInput) bool, func(*learnt) bool, func(shardDone), error](&ingestShardFn{})
	register.DoFn3x1[context.Context, int, func(*shardDone) bool, error](&finalizeFn{})
	register.DoFn4x0[context.Context, int, func(*shardDone) bool, func(shardDone)](&fanOutFn{})
	register.DoFn3x1[context.Context, shardDone, func(shardDone), error](&tablesFn{})
	register.Emitter1[string]()
	register.Emitter1[[]byte]()
	register.Emitter1[fileRead]()
	register.Emitter2[int, learnt]()
	register.Iter1[learnt]()
	register.Emitter1[[]string]()
	register.Emitter1[shardDone]()
	register.Emitter2[int, shardInput]()
	register.Iter1[shardInput]()
	register.Iter1[shardDone]()
	beam.RegisterType(reflect.TypeFor[fileRead]())
	beam.RegisterType(reflect.TypeFor[learnt]())
	beam.RegisterType(reflect.TypeFor[shardInput]())
	beam.RegisterType(reflect.TypeFor[shardDone]())
}

// fileRead is one input file read once (shard.Presort): its part
// (dedupe.Part, JSON: the paths of its key-ordered segments and what the
// input-file rows say of the file) and its key sample (shard.Sample,
// JSON; none when extending). learnt is what dedupe.LearnOriginal
// learnt of a file's gzip members.
type fileRead struct {
	File   string
	Part   []byte
	Sample []byte
}

type learnt struct {
	File     string
	Original []byte
}

// shardInput is one input file given to a shard (its part), with the
// boundaries of the shards; shardDone a shard written (or its tables),
// with the same boundaries. The steps that run as long as a shard's ingest or tables
// take the boundaries from their elements, not from a side input: Prism
// reschedules a step that reads a side input, without waiting, for as
// long as its bundle runs (its scheduler then took a third of the
// pipeline's CPU).
type shardInput struct {
	File       string
	Part       []byte
	Boundaries []string
}

type shardDone struct {
	Shard      int
	Boundaries []string
}

// The pipeline's counters (Beam metrics, read from the runner's result):
// shuffled counts the bytes of the elements the steps emit into a
// shuffle (reshuffle, group by key, the samples' combine), estimated
// from their fields as the coders write them (a string: a length prefix
// and its bytes; an int: 8 bytes), as runners move them between
// workers; each shard's input-bytes the bytes of the records it kept.
const metricsNamespace = "blockwarc"

var shuffled = beam.NewCounter(metricsNamespace, "shuffle-bytes")

// decompressed counts the input bytes the pipeline decompresses: each
// file's stream once per read of it (the presort's, a second pass over
// a file with gaps, the member search of a damaged gzip file).
// presorted the bytes the presorts decompressed (their first read of
// each file), stream the inputs' stream bytes.
var (
	decompressed = beam.NewCounter(metricsNamespace, "decompressed-bytes")
	presorted    = beam.NewCounter(metricsNamespace, "presorted-bytes")
	streamBytes  = beam.NewCounter(metricsNamespace, "stream-bytes")
)

// shardInputBytes is the counter of the record bytes shard i ingested.
func shardInputBytes(i int) beam.Counter {
	return beam.NewCounter(metricsNamespace, fmt.Sprintf("shard-%04d-input-bytes", i))
}

// stringsSize is the estimated encoded size of strings.
func stringsSize(ss ...string) int64 {
	var n int64
	for _, s := range ss {
		n += int64(len(s) + len(binary.AppendUvarint(nil, uint64(len(s)))))
	}
	return n
}

func (in shardInput) size() int64 {
	return stringsSize(in.File, string(in.Part)) + stringsSize(in.Boundaries...)
}
func (d shardDone) size() int64 { return 8 + stringsSize(d.Boundaries...) }

// Build adds the ingest of inputs into cfg.Archive to the pipeline:
//
//	inputs → match files ─(lanes)→ each file: presort (read once, its gzip members learnt from that read)
//	                               → learn the members of a file the presort could not (damaged), read again
//	presorts → samples → merge → boundaries (side input of the keying)
//	presorts → key each file's part by shard ─(lanes)→ co-group with the members learnt → ingest each shard
//	→ once all are ─(lanes)→ each shard's table parts → finalize: the manifest and the tables published
//
// Each input is read (decompressed) once, by its presort, into segments
// of consecutive keys beside the archive; a shard's ingest merges the
// segments of its key range, so it reads no input. Extending an archive
// (cfg.Extend), the boundaries are the stored ones and nothing is
// sampled. Every shard is given every file's part: a shard's catalog
// lists whole input files, as 'blockwarc ingest -shards' writes it.
//
// Each step that runs long runs in cfg.Lanes lanes, each its own stage
// after a reshuffle, its elements (files, shards) divided among them:
// Prism runs all the elements a stage has waiting as one bundle, one
// after the other, and only separate stages at once. Runners that split
// a stage's elements among workers (Dataflow, Flink, Spark) need no
// lanes; they do no harm there.
func Build(s beam.Scope, cfg Config, inputs []string) {
	s = s.Scope("blockwarc-ingest")
	lanes := max(cfg.Lanes, 1)
	files := beam.ParDo(s, &matchFn{}, beam.CreateList(s, inputs))
	var reads, learns []beam.PCollection
	for j := range lanes {
		lane := beam.Reshuffle(s, beam.ParDo(s, &fileLaneFn{Lane: j, Lanes: lanes}, files))
		read := beam.ParDo(s, &presortFn{Cfg: cfg}, lane)
		reads = append(reads, read)
		learns = append(learns, beam.ParDo(s, &learnFn{Cfg: cfg}, read))
	}
	read, learned := beam.Flatten(s, reads...), beam.Flatten(s, learns...)
	var boundaries beam.PCollection
	if cfg.Extend {
		boundaries = beam.Create(s, append([]string{}, cfg.Boundaries...))
	} else {
		samples := beam.ParDo(s, &sampleOfFn{}, read)
		merged := beam.Combine(s, mergeSamples, samples)
		boundaries = beam.ParDo(s, &cutFn{Shards: cfg.Shards}, merged)
	}
	var dones []beam.PCollection
	for j := range lanes {
		keyed := beam.ParDo(s, &keyFn{Lane: j, Lanes: lanes}, read, beam.SideInput{Input: boundaries})
		learnt := beam.ParDo(s, &learntLaneFn{Lane: j, Lanes: lanes}, learned)
		dones = append(dones, beam.ParDo(s, &ingestShardFn{Cfg: cfg}, beam.CoGroupByKey(s, keyed, learnt)))
	}
	// The tables of a shard look up revisits' originals in every shard:
	// they start once all shards are written. The grouping steps take
	// every shard under one key: as a side input of an impulse instead,
	// Prism polls the waiting step for as long as the shards take (a
	// third more CPU).
	written := beam.ParDo(s, &fanOutFn{}, beam.GroupByKey(s, beam.AddFixedKey(s, beam.Flatten(s, dones...))))
	var tabled []beam.PCollection
	for j := range lanes {
		lane := beam.Reshuffle(s, beam.ParDo(s, &doneLaneFn{Lane: j, Lanes: lanes}, written))
		tabled = append(tabled, beam.ParDo(s, &tablesFn{Cfg: cfg}, lane))
	}
	beam.ParDo0(s, &finalizeFn{Cfg: cfg}, beam.GroupByKey(s, beam.AddFixedKey(s, beam.Flatten(s, tabled...))))
}

// fileLaneFn keeps the files of one lane (by a hash of the name);
// learntLaneFn and doneLaneFn the shards of one lane (shard i in lane i
// mod Lanes).
type fileLaneFn struct{ Lane, Lanes int }

func (f *fileLaneFn) ProcessElement(file string, emit func(string)) {
	h := fnv.New32a()
	h.Write([]byte(file))
	if int(h.Sum32()%uint32(f.Lanes)) == f.Lane {
		emit(file)
	}
}

type learntLaneFn struct{ Lane, Lanes int }

func (f *learntLaneFn) ProcessElement(i int, l learnt, emit func(int, learnt)) {
	if i%f.Lanes == f.Lane {
		emit(i, l)
	}
}

type doneLaneFn struct{ Lane, Lanes int }

func (f *doneLaneFn) ProcessElement(d shardDone, emit func(shardDone)) {
	if d.Shard%f.Lanes == f.Lane {
		emit(d)
	}
}

// matchFn expands an input argument into files by the rule every
// blockwarc command uses.
type matchFn struct{}

func (*matchFn) ProcessElement(ctx context.Context, input string, emit func(string)) error {
	files, err := warcio.ExpandInputs([]string{input})
	if err != nil {
		return err
	}
	for _, f := range files {
		shuffled.Inc(ctx, stringsSize(f)) // into the reshuffle
		emit(f)
	}
	return nil
}

// presortFn reads one input file once (shard.Presort) into its part, in
// the run's parts directory, and samples its keys (a new archive).
type presortFn struct{ Cfg Config }

func (f *presortFn) ProcessElement(ctx context.Context, file string, emit func(fileRead)) error {
	_, release := holdHeap(f.Cfg.Ingest.MemLimit, f.Cfg.Ingest.Workers, 1)
	defer release()
	o, done, err := f.Cfg.private(ctx, "presort-")
	if err != nil {
		return err
	}
	defer done()
	p, sample, err := shard.Presort(ctx, file, f.Cfg.partsDir(), o)
	if err != nil {
		return err
	}
	decompressed.Inc(ctx, p.Stream.Len)
	presorted.Inc(ctx, p.Stream.Len)
	streamBytes.Inc(ctx, p.Stream.Len)
	if p.Stream.Gaps > 0 && p.Stream.Tiled {
		decompressed.Inc(ctx, p.Stream.Len) // read again for the gaps' bytes
	}
	out := fileRead{File: file}
	if out.Part, err = json.Marshal(p); err != nil {
		return err
	}
	if !f.Cfg.Extend {
		if out.Sample, err = json.Marshal(sample); err != nil {
			return err
		}
	}
	shuffled.Inc(ctx, stringsSize(file, string(out.Part), string(out.Sample))) // into the keying and the samples' combine
	emit(out)
	return nil
}

// learnFn learns the gzip members of a file whose presort could not
// (dedupe.Part.Original: a damaged file) by reading it again
// (dedupe.LearnOriginal), for shard 0, which writes them (IngestShard
// learns them there); the others' go to shard 0 with their parts.
type learnFn struct{ Cfg Config }

func (f *learnFn) ProcessElement(ctx context.Context, r fileRead, emit func(int, learnt)) error {
	var p dedupe.Part
	if err := json.Unmarshal(r.Part, &p); err != nil {
		return fmt.Errorf("decode part of %s: %w", r.File, err)
	}
	if p.Original != nil {
		return nil
	}
	b, err := dedupe.LearnOriginal(ctx, r.File)
	if err != nil {
		return err
	}
	if n, ok := dedupe.LearntStream(b); ok {
		decompressed.Inc(ctx, n)
	}
	l := learnt{File: r.File, Original: b}
	shuffled.Inc(ctx, 8+stringsSize(l.File, string(l.Original))) // into the group by shard
	emit(0, l)
	return nil
}

// sampleOfFn passes a file's key sample on to the combine.
type sampleOfFn struct{}

func (*sampleOfFn) ProcessElement(r fileRead, emit func([]byte)) {
	emit(r.Sample)
}

// mergeSamples merges two encoded samples (shard.Sample.Merge: any order
// gives the sample of all the files).
func mergeSamples(a, b []byte) ([]byte, error) {
	var x, y shard.Sample
	if err := json.Unmarshal(a, &x); err != nil {
		return nil, fmt.Errorf("decode key sample: %w", err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		return nil, fmt.Errorf("decode key sample: %w", err)
	}
	x.Merge(y)
	return json.Marshal(x)
}

// cutFn chooses the shard boundaries from the merged sample.
type cutFn struct{ Shards int }

func (f *cutFn) ProcessElement(sample []byte, emit func([]string)) error {
	var s shard.Sample
	if err := json.Unmarshal(sample, &s); err != nil {
		return fmt.Errorf("decode key sample: %w", err)
	}
	emit(s.Cut(f.Shards))
	return nil
}

// keyFn sends a file's part to every shard of its lane: each walks the
// segments of its key range, and describes the whole file in its
// catalog.
type keyFn struct{ Lane, Lanes int }

func (f *keyFn) ProcessElement(ctx context.Context, r fileRead, boundaries []string, emit func(int, shardInput)) {
	for i := f.Lane; i < len(boundaries)+1; i += f.Lanes {
		in := shardInput{File: r.File, Part: r.Part, Boundaries: boundaries}
		shuffled.Inc(ctx, 8+in.size()) // into the group by shard
		emit(i, in)
	}
}

// holdHeap sets the worker's Go heap limit for a shard's ingest (a
// variable for tests to watch).
var holdHeap = ingestflags.HoldHeap

// ingestShardFn writes one shard: the unchanged shard ingest into a
// directory of its own attempt, renamed to the shard's name when
// complete, so that a retried or duplicated attempt never leaves half a
// shard under that name.
type ingestShardFn struct{ Cfg Config }

func (f *ingestShardFn) ProcessElement(ctx context.Context, i int, files func(*shardInput) bool, learned func(*learnt) bool, emit func(shardDone)) error {
	var inputs, boundaries []string
	parts := map[string]dedupe.Part{}
	var in shardInput
	for files(&in) {
		var p dedupe.Part
		if err := json.Unmarshal(in.Part, &p); err != nil {
			return fmt.Errorf("decode part of %s: %w", in.File, err)
		}
		inputs, boundaries, parts[in.File] = append(inputs, in.File), in.Boundaries, p
	}
	originals := map[string][]byte{}
	var l learnt
	for learned(&l) {
		originals[l.File] = l.Original
	}
	m, err := f.Cfg.manifest(boundaries)
	if err != nil {
		return err
	}
	if i < 0 || i >= len(m.Shards) {
		return fmt.Errorf("shard %d of %d", i, len(m.Shards))
	}
	slices.Sort(inputs) // the ingest sorts them too; sorted, the log reads the same
	name := m.Shards[i].Name
	// The worker's Go heap held near the shard's budget, as 'blockwarc
	// ingest' holds its own; shards ingested at once on one worker add up.
	_, release := holdHeap(f.Cfg.Ingest.MemLimit, f.Cfg.Ingest.Workers, 1)
	defer release()
	if f.Cfg.Extend {
		// In place, as 'blockwarc ingest' extends a shard: its commits
		// are atomic, and a run again resumes from the last one.
		o, done, err := f.Cfg.private(ctx, name+"-")
		if err != nil {
			return err
		}
		defer done()
		if f.Cfg.FailShardOnce != "" && i == len(m.Shards)-1 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(ctx)
			defer cancel()
			o.Progress = func(st dedupe.Stats) {
				if st.Commits > 0 && os.Remove(f.Cfg.FailShardOnce) == nil {
					cancel()
				}
			}
		}
		st, err := shard.IngestParts(ctx, filepath.Join(f.Cfg.Archive, name), m, i, inputs, parts, originals, o)
		if err != nil {
			return fmt.Errorf("shard %s: %w", name, err)
		}
		log.Infof(ctx, "shard %s: %d records from %d files", name, st.Records, st.Files)
		emitDone(ctx, st, shardDone{Shard: i, Boundaries: boundaries}, emit)
		return nil
	}
	staging := f.Cfg.staging()
	if err := os.MkdirAll(staging, 0o755); err != nil {
		return fmt.Errorf("stage shard: %w", err)
	}
	// Written on the worker's local disk (-tmp), where its lock holds,
	// then copied beside the archive into a directory of this attempt's
	// own and renamed to the shard's name: no two attempts, on any host,
	// ever write into one directory of the shared file system.
	o, done, err := f.Cfg.private(ctx, name+"-")
	if err != nil {
		return fmt.Errorf("stage shard: %w", err)
	}
	defer done()
	local := o.TempDir
	st, err := shard.IngestParts(ctx, filepath.Join(local, name), m, i, inputs, parts, originals, o)
	if err != nil {
		return fmt.Errorf("shard %s: %w", name, err)
	}
	attempt := filepath.Join(staging, "."+name+".attempt-"+randomHex())
	defer os.RemoveAll(attempt) // left only by a failed attempt
	if err := copyDir(filepath.Join(local, name), attempt); err != nil {
		return fmt.Errorf("stage shard %s: %w", name, err)
	}
	at("shard-copied")
	err = os.Rename(attempt, filepath.Join(staging, name))
	if errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.ENOTEMPTY) {
		// Another attempt of this shard finished first; its bytes are
		// the same (the ingest is deterministic).
		err = nil
	}
	if err != nil {
		return fmt.Errorf("publish shard %s: %w", name, err)
	}
	log.Infof(ctx, "shard %s: %d records from %d files", name, st.Records, st.Files)
	emitDone(ctx, st, shardDone{Shard: i, Boundaries: boundaries}, emit)
	return nil
}

// reached, when set (by the kill test's helper process), is called at
// the named points of the steps that publish: a test stops the process
// there (kill -9) to check that no such moment leaves a published archive
// unreadable or a run again unable to complete it.
var reached func(point string)

func at(point string) {
	if reached != nil {
		reached(point)
	}
}

// localPrefix begins the names of the steps' private directories on a
// worker's local disk (-tmp: Config.private).
const localPrefix = "blockwarc-beam-step-"

// private are the ingest options of a step with a private temporary
// directory of its own in -tmp, locked while the step runs (and removed
// by done): everything the step writes on the worker's local disk (the
// sort runs of its walks, a shard written before it is copied, the
// tables' spill files) goes in it, and what a killed step left there is
// removed by the next step that starts on the worker (removeStale).
func (c Config) private(ctx context.Context, name string) (o dedupe.Options, done func(), err error) {
	removeStale(ctx, c.Ingest.TempDir)
	dir, release, err := warcio.MakeLockedTemp(c.Ingest.TempDir, localPrefix+name)
	if err != nil {
		return dedupe.Options{}, nil, err
	}
	o = c.options(ctx)
	o.TempDir = dir
	return o, release, nil
}

// removeStale removes from the worker's -tmp what killed steps left
// there: the local copies of shards and the sort runs of walks that no
// live process holds (a worker killed never removes them).
func removeStale(ctx context.Context, tmp string) {
	tmp = cmp.Or(tmp, os.TempDir())
	removed, err := warcio.RemoveStaleTemp(tmp, localPrefix)
	for _, d := range removed {
		log.Infof(ctx, "removed %s, left in %s by a killed run", d, tmp)
	}
	if err != nil {
		log.Warnf(ctx, "blockwarc-beam: %v", err)
	}
}

// emitDone counts a shard's input bytes and emits it written.
func emitDone(ctx context.Context, st dedupe.Stats, d shardDone, emit func(shardDone)) {
	shardInputBytes(d.Shard).Inc(ctx, st.InputBytes)
	shuffled.Inc(ctx, 8+d.size()) // into the group under one key
	emit(d)
}

// fanOutFn emits every shard written, once all are.
type fanOutFn struct{}

func (*fanOutFn) ProcessElement(ctx context.Context, _ int, done func(*shardDone) bool, emit func(shardDone)) {
	var d shardDone
	for done(&d) {
		shuffled.Inc(ctx, d.size()) // into the reshuffle
		emit(d)
	}
}

// tablesFn writes the table parts of one shard (tables.BuildShard, as
// 'blockwarc tables' of a sharded archive) into a directory of its own
// attempt, renamed to the shard's stage when complete.
type tablesFn struct{ Cfg Config }

func (f *tablesFn) ProcessElement(ctx context.Context, d shardDone, emit func(shardDone)) error {
	i := d.Shard
	m, err := f.Cfg.manifest(d.Boundaries)
	if err != nil {
		return err
	}
	o, done, err := f.Cfg.private(ctx, fmt.Sprintf("tables-%04d-", i))
	if err != nil {
		return err
	}
	defer done()
	a := shard.OpenShards(f.Cfg.root(), m, pack.Options{})
	defer a.Close()
	stage := f.Cfg.tablesStage(i)
	if err := os.MkdirAll(filepath.Dir(stage), 0o755); err != nil {
		return fmt.Errorf("stage tables: %w", err)
	}
	attempt := stage + ".attempt-" + randomHex()
	w, err := columnar.NewPartWriter(attempt, columnar.WriterOptions{Prefix: fmt.Sprintf("%04d", i)})
	if err != nil {
		return err
	}
	defer os.RemoveAll(attempt) // left only by a failed attempt
	st, err := tables.BuildShard(ctx, a, i, tables.Options{Workers: max(f.Cfg.Ingest.Workers, 1), TempDir: o.TempDir}, w)
	if err != nil {
		w.Abort()
		return fmt.Errorf("tables of shard %d: %w", i, err)
	}
	err = os.Rename(attempt, stage)
	if errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.ENOTEMPTY) {
		err = nil // another attempt finished first, with the same parts
	}
	if err != nil {
		return fmt.Errorf("stage tables of shard %d: %w", i, err)
	}
	log.Infof(ctx, "tables of shard %d: %d captures, %d blocks", i, st.Captures, st.Blocks)
	shuffled.Inc(ctx, 8+d.size()) // into the group under one key
	emit(d)
	return nil
}

// finalizeFn, once every shard and its table parts are staged, writes
// the manifest of a new archive and publishes it with its tables by one
// rename: until then a reader sees the previous archive, or none.
// Extending an archive, whose shards have committed already, it
// publishes the tables (the CLI keeps the manifest as it is too).
type finalizeFn struct{ Cfg Config }

func (f *finalizeFn) ProcessElement(ctx context.Context, _ int, done func(*shardDone) bool) error {
	have := map[int]bool{}
	var boundaries []string
	var d shardDone
	for done(&d) {
		have[d.Shard], boundaries = true, d.Boundaries
	}
	m, err := f.Cfg.manifest(boundaries)
	if err != nil {
		return err
	}
	if len(have) != len(m.Shards) {
		return fmt.Errorf("finalize: %d of %d shards written", len(have), len(m.Shards))
	}
	staging := f.Cfg.staging()
	if !f.Cfg.Extend {
		if err := shard.WriteManifest(staging, m); err != nil {
			return err
		}
		at("manifest-staged")
	}
	// The tables record the commits they describe, as the CLI's do.
	gen, records, err := generation(f.Cfg.root())
	if err != nil {
		return err
	}
	parts, err := columnar.NewParts(filepath.Join(f.Cfg.root(), "tables"), columnar.WriterOptions{Generation: gen, Records: records})
	if err != nil {
		return err
	}
	for i := range m.Shards {
		if err := parts.Adopt(f.Cfg.tablesStage(i)); err != nil {
			parts.Abort()
			return err
		}
	}
	if f.Cfg.FailFinalizeOnce != "" {
		if err := os.Remove(f.Cfg.FailFinalizeOnce); err == nil {
			parts.Abort()
			return errors.New("finalize: failed on purpose (FailFinalizeOnce)")
		}
	}
	at("tables-adopted")
	if err := parts.Close(); err != nil {
		return err
	}
	at("tables-published")
	// Every shard is written: the inputs' records are not read again.
	if err := os.RemoveAll(f.Cfg.partsDir()); err != nil {
		return err
	}
	if f.Cfg.Extend {
		if err := os.RemoveAll(staging); err != nil {
			return err
		}
		log.Infof(ctx, "extended %s: %d shards, tables published", f.Cfg.Archive, len(m.Shards))
		return nil
	}
	at("publishing")
	if err := publish(staging, f.Cfg.Archive, f.Cfg.Replace); err != nil {
		return err
	}
	at("published")
	log.Infof(ctx, "published %s: %d shards", f.Cfg.Archive, len(m.Shards))
	return nil
}

// generation is the commits of the sharded archive at dir (its manifest
// written), dedupe.Archive.Generation, and its records,
// dedupe.Archive.Records.
func generation(dir string) (string, int64, error) {
	a, _, err := shard.Open(dir, pack.Options{})
	if err != nil {
		return "", 0, err
	}
	defer a.Close()
	gen, err := a.Generation()
	return gen, a.Records(), err
}

// publish puts the directory staged at archive's name: a rename, or with
// replace and an archive there, an atomic exchange of the two
// directories (the old one then removed).
func publish(staged, archive string, replace bool) error {
	_, err := os.Stat(archive)
	if errors.Is(err, fs.ErrNotExist) {
		err = os.Rename(staged, archive)
	} else if err == nil && !replace {
		err = fmt.Errorf("%s exists (replace it with -replace)", archive)
	} else if err == nil {
		err = unix.Renameat2(unix.AT_FDCWD, staged, unix.AT_FDCWD, archive, unix.RENAME_EXCHANGE)
		if err == nil {
			at("exchanged")
			err = os.RemoveAll(staged)
		}
	}
	if err == nil {
		err = warcio.SyncDir(filepath.Dir(archive))
	}
	if err != nil {
		return fmt.Errorf("publish %s: %w", archive, err)
	}
	return nil
}

// copyDir copies the directory tree src to dst (a new directory), each
// file and directory synced.
func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			if err := os.Mkdir(to, 0o755); err != nil {
				return err
			}
			if rel != "." {
				return warcio.SyncDir(filepath.Dir(to))
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
		if err != nil {
			return err
		}
		_, err = io.Copy(out, in)
		if err == nil {
			err = out.Sync()
		}
		if e := out.Close(); err == nil {
			err = e
		}
		if err == nil {
			err = warcio.SyncDir(filepath.Dir(to))
		}
		return err
	})
}

func randomHex() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
