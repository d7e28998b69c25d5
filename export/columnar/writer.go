package columnar

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/blockwarc/blockwarc/export/tables"
	"github.com/blockwarc/blockwarc/internal/countio"
)

// Format is the file format of the tables.
type Format string

const (
	// Parquet writes part-NNNNN.parquet files: brotli and zstd, row
	// groups of at most RowGroupRows rows. The default.
	Parquet Format = "parquet"
	// Arrow writes Arrow IPC files (the "Feather v2" file format),
	// part-NNNNN.arrow, one record batch per row group, uncompressed so
	// that readers can map them.
	Arrow Format = "arrow"
)

// ParseFormat reads a -format flag value.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case Parquet, Arrow:
		return Format(s), nil
	}
	return "", fmt.Errorf("unknown table format %q: want parquet or arrow", s)
}

// Ext is the file name extension of the format's part files.
func (f Format) Ext() string {
	if f == Arrow {
		return ".arrow"
	}
	return ".parquet"
}

// Limits and defaults of WriterOptions.
const (
	MaxRowGroupRows      = 65536
	DefaultRowGroupBytes = 64 << 20
	DefaultPartRows      = 1 << 20
)

// WriterOptions configure a Writer. The zero value writes Parquet with the
// defaults below.
type WriterOptions struct {
	// Format is Parquet (default) or Arrow.
	Format Format
	// RowGroupRows is the most rows in a row group (record batch); 0 or
	// more than MaxRowGroupRows means MaxRowGroupRows.
	RowGroupRows int
	// RowGroupBytes ends a row group early once its rows hold about this
	// many bytes (0: DefaultRowGroupBytes). With the row limit it bounds
	// the memory of a table's builders: one row group each.
	RowGroupBytes int
	// PartRows starts a new part file after this many rows (0:
	// DefaultPartRows). It is rounded up to whole row groups.
	PartRows int64
	// Allocator holds the Arrow buffers (nil: memory.DefaultAllocator).
	// Tests pass a checked allocator.
	Allocator memory.Allocator
	// Prefix, when set, names the part files part-<Prefix>-NNNNN: the
	// parts of one shard of a sharded archive (Parts), the shard's number.
	Prefix string
	// Generation, when set, is written to the file GenerationFile of the
	// tables when they are published: the state of the archive they
	// describe (dedupe.Archive.Generation), for readers to tell stale
	// tables (ReadGeneration).
	Generation string
	// Records, when positive, is written beside Generation: the number
	// of the archive's records at that generation (Generation.Records),
	// for an ingest to weigh what rewriting the tables would cost.
	Records int64
}

// generation is what the options say GenerationFile holds.
func (o WriterOptions) generation() Generation {
	return Generation{Gen: o.Generation, Records: o.Records}
}

// TableStats count what was written to one table.
type TableStats struct {
	Name  string `json:"name"`
	Rows  int64  `json:"rows"`
	Parts int    `json:"parts"`
	Bytes int64  `json:"bytes"` // bytes of its part files
}

// Writer writes the six tables into a directory. It implements
// tables.Sink: rows are buffered per table one row group at a time and
// encoded as each row group fills. Close publishes the directory; Abort
// (after an error) discards it. A Writer is not safe for concurrent use.
type Writer struct {
	dir  string // the target directory; "" for a writer of parts (Parts)
	tmp  string // the directory being written, a sibling of dir
	lock *os.File
	opts WriterOptions
	// own: Abort removes tmp (the Writer made it); a writer of a Parts
	// leaves that to the Parts.
	own bool

	all    []tableWriter          // in tables.Specs order
	byName map[string]tableWriter // the same, by table name

	err  error // first error; sticky
	done bool  // Close or Abort was called
}

var _ tables.Sink = (*Writer)(nil)

// NewWriter starts writing tables that will replace dir when the Writer
// closes. It writes into a fresh sibling directory (dir + ".tmp-*", so in
// the archive directory for ARCHIVE/tables) and holds a lock on dir's
// parent directory until Close or Abort, so two writers of the same
// target do not interleave. Leftovers of an interrupted writer of the same
// target are cleaned up first. An existing dir is replaced only if it
// holds nothing but table directories of part files: NewWriter refuses to
// replace any other directory.
func NewWriter(dir string, opts WriterOptions) (*Writer, error) {
	opts, err := withDefaults(opts)
	if err != nil {
		return nil, err
	}
	dir = filepath.Clean(dir)
	lock, err := lockParent(dir)
	if err != nil {
		return nil, err
	}
	if err := recoverTarget(dir); err != nil {
		unlockParent(lock)
		return nil, err
	}
	if err := checkReplaceable(dir); err != nil {
		unlockParent(lock)
		return nil, err
	}
	tmp, err := mkdirTemp(filepath.Dir(dir), filepath.Base(dir)+tmpInfix)
	if err != nil {
		unlockParent(lock)
		return nil, fmt.Errorf("create tables directory: %w", err)
	}
	w := newWriter(tmp, opts)
	w.dir, w.lock, w.own = dir, lock, true
	if err := mkTableDirs(tmp); err != nil {
		w.Abort()
		return nil, err
	}
	return w, nil
}

// withDefaults fills in the zero fields of opts.
func withDefaults(opts WriterOptions) (WriterOptions, error) {
	if opts.Format == "" {
		opts.Format = Parquet
	}
	if _, err := ParseFormat(string(opts.Format)); err != nil {
		return opts, err
	}
	if opts.RowGroupRows <= 0 || opts.RowGroupRows > MaxRowGroupRows {
		opts.RowGroupRows = MaxRowGroupRows
	}
	if opts.RowGroupBytes <= 0 {
		opts.RowGroupBytes = DefaultRowGroupBytes
	}
	if opts.PartRows <= 0 {
		opts.PartRows = DefaultPartRows
	}
	if opts.Allocator == nil {
		opts.Allocator = memory.DefaultAllocator
	}
	return opts, nil
}

// newWriter returns a Writer of part files into the table directories of
// tmp.
func newWriter(tmp string, opts WriterOptions) *Writer {
	w := &Writer{tmp: tmp, opts: opts}
	w.byName = make(map[string]tableWriter, len(tables.Specs))
	for _, s := range tables.Specs {
		t := specByName[s.Name].newTable(w)
		w.all = append(w.all, t)
		w.byName[s.Name] = t
	}
	return w
}

// mkTableDirs creates a directory per table in dir.
func mkTableDirs(dir string) error {
	for _, name := range Tables() {
		if err := os.Mkdir(filepath.Join(dir, name), 0o777); err != nil {
			return fmt.Errorf("create table directory: %w", err)
		}
	}
	return nil
}

// Takes implements tables.Sink: the Writer writes every table.
func (w *Writer) Takes(string) bool { return true }

// Add adds a row to its table (tables.Sink). The first error stops the
// writer: it is returned by every later call and by Close.
func (w *Writer) Add(r tables.Row) error {
	if w.err != nil {
		return w.err
	}
	t := w.byName[r.Table()]
	if t == nil {
		return fmt.Errorf("add row: no table %q", r.Table())
	}
	if w.done {
		return fmt.Errorf("add %s row: writer closed", r.Table())
	}
	if err := t.add(r); err != nil {
		w.err = err
	}
	return w.err
}

// Stats returns the rows, parts and file bytes written per table, in the
// order of Tables(). File bytes are final after Close.
func (w *Writer) Stats() []TableStats {
	out := make([]TableStats, len(w.all))
	for i, t := range w.all {
		out[i] = t.stats()
	}
	return out
}

// Close writes the last row groups, syncs every file and replaces the
// target directory with the new tables in one step: a reader or a crash
// sees the old tables or the new ones. After an error nothing is
// replaced and the temporary directory is removed. A writer of parts
// (Parts.Writer, NewPartWriter) publishes nothing: its parts wait for
// Parts.Close.
func (w *Writer) Close() error {
	if w.done {
		return errors.New("close tables writer: already closed")
	}
	if w.err != nil {
		w.Abort()
		return w.err
	}
	for _, t := range w.all {
		if err := t.finish(); err != nil {
			w.Abort()
			return err
		}
	}
	w.release()
	if err := syncDirs(w.tmp, Tables()); err != nil {
		w.Abort()
		return err
	}
	if w.dir == "" {
		w.done = true
		return nil
	}
	if err := writeGeneration(w.tmp, w.opts.generation()); err != nil {
		w.Abort()
		return err
	}
	if err := publish(w.tmp, w.dir); err != nil {
		w.Abort()
		return err
	}
	w.done = true
	unlockParent(w.lock)
	return nil
}

// Abort discards what was written: the target directory is left as it
// was. It may be called after a failed Close, and more than once.
func (w *Writer) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	var first error
	for _, t := range w.all {
		if err := t.abort(); err != nil && first == nil {
			first = err
		}
	}
	w.release()
	if w.own {
		if err := os.RemoveAll(w.tmp); err != nil && first == nil {
			first = fmt.Errorf("remove unfinished tables: %w", err)
		}
	}
	unlockParent(w.lock)
	return first
}

func (w *Writer) release() {
	for _, t := range w.all {
		t.release()
	}
}

// tableWriter is what the Writer does with each table whatever its rows.
type tableWriter interface {
	add(tables.Row) error
	finish() error
	abort() error
	release()
	stats() TableStats
}

// table buffers one table's rows in Arrow builders and writes each full
// row group to the current part file.
type table[R any, P rowPtr[R]] struct {
	w    *Writer
	name string
	cols []column[R]
	size func(*R) int

	schema   *arrow.Schema
	rb       *array.RecordBuilder
	builders []array.Builder
	rows     int // rows in the row group being built
	bytes    int // their estimated bytes

	part      partFile // open part file, or nil
	parts     int      // part files started
	partRows  int64    // rows in the open part
	total     int64
	fileBytes int64 // bytes of the closed part files
}

func newTable[R any, P rowPtr[R]](w *Writer, name string, cols []column[R], size func(*R) int) *table[R, P] {
	t := &table[R, P]{w: w, name: name, cols: cols, size: size, schema: schemaOf(cols)}
	t.rb = array.NewRecordBuilder(w.opts.Allocator, t.schema)
	t.builders = t.rb.Fields()
	return t
}

func (t *table[R, P]) add(row tables.Row) error {
	p, ok := row.(P)
	if !ok {
		return fmt.Errorf("add %s row: a %T is not one", t.name, row)
	}
	r := (*R)(p)
	for i, c := range t.cols {
		c.put(t.builders[i], r)
	}
	t.rows++
	t.bytes += t.size(r)
	if t.rows >= t.w.opts.RowGroupRows || t.bytes >= t.w.opts.RowGroupBytes {
		return t.flush()
	}
	return nil
}

// flush encodes the buffered rows as one row group of the open part file,
// starting a part file when none is open and ending it once full.
func (t *table[R, P]) flush() error {
	if t.rows == 0 {
		return nil
	}
	rec := t.rb.NewRecordBatch()
	defer rec.Release()
	n := int64(t.rows)
	t.rows, t.bytes = 0, 0
	if t.part == nil {
		if err := t.openPart(); err != nil {
			return err
		}
	}
	if err := t.part.write(rec); err != nil {
		return fmt.Errorf("write %s: %w", t.partName(), err)
	}
	t.partRows += n
	t.total += n
	if t.partRows >= t.w.opts.PartRows {
		return t.closePart()
	}
	return nil
}

func (t *table[R, P]) partName() string {
	prefix := ""
	if t.w.opts.Prefix != "" {
		prefix = t.w.opts.Prefix + "-"
	}
	return filepath.Join(t.name, fmt.Sprintf("part-%s%05d%s", prefix, t.parts-1, t.w.opts.Format.Ext()))
}

func (t *table[R, P]) openPart() error {
	t.parts++
	path := filepath.Join(t.w.tmp, t.partName())
	p, err := createPart(path, t.name, t.schema, t.w.opts)
	if err != nil {
		return fmt.Errorf("create %s: %w", t.partName(), err)
	}
	t.part, t.partRows = p, 0
	return nil
}

func (t *table[R, P]) closePart() error {
	p := t.part
	t.part = nil
	n, err := p.close()
	if err != nil {
		return fmt.Errorf("finish %s: %w", t.partName(), err)
	}
	t.fileBytes += n
	return nil
}

// finish writes the last row group and closes the last part; a table with
// no rows still gets one (empty) part, so its glob matches a file.
func (t *table[R, P]) finish() error {
	if err := t.flush(); err != nil {
		return err
	}
	if t.part == nil && t.parts == 0 {
		if err := t.openPart(); err != nil {
			return err
		}
	}
	if t.part != nil {
		return t.closePart()
	}
	return nil
}

func (t *table[R, P]) abort() error {
	if t.part == nil {
		return nil
	}
	p := t.part
	t.part = nil
	return p.discard()
}

func (t *table[R, P]) release() {
	if t.rb != nil {
		t.rb.Release()
		t.rb, t.builders = nil, nil
	}
}

func (t *table[R, P]) stats() TableStats {
	return TableStats{Name: t.name, Rows: t.total, Parts: t.parts, Bytes: t.fileBytes}
}

// partFile is one open part file of either format.
type partFile interface {
	write(arrow.RecordBatch) error
	// close ends the file, syncs it and returns its size.
	close() (int64, error)
	// discard releases the encoder and closes the file without syncing.
	discard() error
}

// createPart creates a part file of table at path in the options' format.
func createPart(path, table string, schema *arrow.Schema, opts WriterOptions) (partFile, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return nil, err
	}
	cw := &countedFile{bw: bufio.NewWriterSize(f, 1<<20)}
	cw.W = cw.bw
	if opts.Format == Arrow {
		iw, err := ipc.NewFileWriter(cw, ipc.WithSchema(schema), ipc.WithAllocator(opts.Allocator))
		if err != nil {
			f.Close()
			return nil, err
		}
		return &ipcPart{f: f, cw: cw, w: iw}, nil
	}
	props := parquet.NewWriterProperties(parquetProps(opts, table)...)
	// No stored Arrow schema (pqarrow.WithStoreSchema): it repeats the
	// Parquet schema as base64 in every footer (1-3 KB a file, 9 KB of a
	// small site's tables), and readers derive the same Arrow types from
	// the Parquet logical types (timestamps: isAdjustedToUTC → tz=UTC).
	aprops := pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(opts.Allocator))
	pw, err := pqarrow.NewFileWriter(schema, cw, props, aprops)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &parquetPart{f: f, cw: cw, w: pw}, nil
}

// statsColumns are the sort keys (docs/TABLES.md): the only columns
// whose min/max statistics let a reader skip row groups and pages.
var statsColumns = []string{"url_surtkey", "fetch_time", "first_url_surtkey", "first_fetch_time"}

// parquetProps are the Parquet settings of a part file of table, chosen
// by measuring tables bytes ÷ archive bytes on the corpus sites
// (BenchmarkTablesSize in export/tables).
func parquetProps(opts WriterOptions, table string) []parquet.WriterProperty {
	props := []parquet.WriterProperty{
		parquet.WithAllocator(opts.Allocator),
		// Brotli at quality 10 (brotliLevel) for every column but those of
		// zstdColumns: on words (blocks.text, anchor text, titles, URLs)
		// it compresses 5-10 % better than zstd's level 19 (its built-in
		// dictionary knows the words of web pages), and its frames are
		// smaller, which counts in the many small column chunks. It
		// writes more slowly (see brotliLevel).
		parquet.WithCompression(compress.Codecs.Brotli),
		parquet.WithCompressionLevel(brotliLevel),
		parquet.WithMaxRowGroupLength(int64(opts.RowGroupRows)),
		// No dictionaries: a column's repeats (a URL over its captures, a
		// label, a block id over its pages) sit next to one another in
		// table order, where the compressor finds them; a dictionary page
		// and its index runs cost more than they save on every corpus
		// site (5-8 %).
		parquet.WithDictionaryDefault(false),
		// Statistics only for the sort keys: min/max of hex ids and free
		// text help no query, and cost their bytes twice (page header and
		// footer) for every column chunk.
		parquet.WithStats(false),
		parquet.WithCreatedBy("blockwarc"),
	}
	for _, c := range statsColumns {
		props = append(props, parquet.WithStatsFor(c, true))
	}
	for _, c := range deltaColumns[table] {
		props = append(props, parquet.WithEncodingFor(c, parquet.Encodings.DeltaBinaryPacked))
	}
	for _, c := range idColumns {
		// The lengths of the ids apart from their digits: zstd then
		// meets digits alone (1-2 % smaller).
		props = append(props, parquet.WithEncodingFor(c, parquet.Encodings.DeltaLengthByteArray))
	}
	for _, c := range zstdColumns(table) {
		props = append(props,
			parquet.WithCompressionFor(c, compress.Codecs.Zstd),
			// zstd's best level: with cgo the reference library's (as the
			// archive's frames), else klauspost's (zstd.go).
			parquet.WithCompressionLevelFor(c, 19))
	}
	return props
}

// deltaColumns are the integer columns, per table, that mostly count 1,
// 2, 3… from one row to the next (block_no in blocks, version within a
// URL, ordinal within a page or block) or step by a little
// (predecessor_block_no): delta encoding stores such runs in a few bits.
// The same names elsewhere (block_no in capture_blocks and links, version
// in capture_blocks) jump about and compress better plain.
var deltaColumns = map[string][]string{
	Blocks:        {"block_no"},
	Captures:      {"version"},
	CaptureBlocks: {"ordinal", "predecessor_block_no"},
	Changes:       {"from_version", "to_version"},
	Links:         {"ordinal"},
}

// idColumns hold digits of a hash, a new value on nearly every row.
var idColumns = []string{"block_id", "layout_id", "content_digest"}

// brotliLevel: quality 10 writes the tables in about 1.4× the CPU time
// of zstd's level 19 for 11 % smaller tables on mkdocs-org; quality 11,
// brotli's best, 3 % smaller again for 2.1× the time (tables are
// rewritten by every ingest).
const brotliLevel = 10

// zstdColumns are the columns of table that zstd compresses better than
// brotli: random digits (ids, digests, record ids), where brotli's
// dictionary does not help; delta-encoded runs; booleans.
func zstdColumns(table string) []string {
	out := append([]string{"warc_record_id"}, idColumns...)
	out = append(out, deltaColumns[table]...)
	if s := Schema(table); s != nil {
		for _, f := range s.Fields() {
			if f.Type.ID() == arrow.BOOL {
				out = append(out, f.Name)
			}
		}
	}
	return out
}

type parquetPart struct {
	f  *os.File
	cw *countedFile
	w  *pqarrow.FileWriter
}

func (p *parquetPart) write(rec arrow.RecordBatch) error { return p.w.Write(rec) }

func (p *parquetPart) close() (int64, error) {
	if err := p.w.Close(); err != nil {
		p.f.Close()
		return 0, err
	}
	return finishFile(p.f, p.cw)
}

func (p *parquetPart) discard() error {
	p.w.Close() // releases its buffers; the bytes go nowhere useful
	return p.f.Close()
}

type ipcPart struct {
	f  *os.File
	cw *countedFile
	w  *ipc.FileWriter
}

func (p *ipcPart) write(rec arrow.RecordBatch) error { return p.w.Write(rec) }

func (p *ipcPart) close() (int64, error) {
	if err := p.w.Close(); err != nil {
		p.f.Close()
		return 0, err
	}
	return finishFile(p.f, p.cw)
}

func (p *ipcPart) discard() error {
	p.w.Close()
	return p.f.Close()
}

// countedFile counts the bytes written to a part file through its buffer
// (the Seek of countio.Writer gives the Arrow IPC writer its position).
type countedFile struct {
	countio.Writer
	bw *bufio.Writer
}

// finishFile flushes the buffer, syncs and closes f, and returns its size.
func finishFile(f *os.File, cw *countedFile) (int64, error) {
	if err := cw.bw.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	return cw.N, nil
}

// mkdirTemp creates a new directory dir/prefix<random>. Unlike
// os.MkdirTemp (always 0700) it asks for 0777 and lets the process umask
// decide, as os.Mkdir does: the tables are renamed into place and are
// meant to be read by whoever may read the archive.
func mkdirTemp(dir, prefix string) (string, error) {
	for range 100 {
		p := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 36))
		err := os.Mkdir(p, 0o777)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return p, err
	}
	return "", &fs.PathError{Op: "mkdirtemp", Path: filepath.Join(dir, prefix+"*"), Err: fs.ErrExist}
}
