package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/sync/errgroup"
	"golang.org/x/term"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/shard"
	"github.com/blockwarc/blockwarc/export/columnar"
	"github.com/blockwarc/blockwarc/export/tables"
)

const tablesAbout = `Write the tables of ARCHIVE (captures, blocks, capture_blocks, changes,
urls, links: see docs/TABLES.md) as Parquet files DIR/<table>/part-NNNNN.parquet
(brotli and zstd, row groups of at most 65,536 rows; each text and each block id
kept once, a block named by its block_no elsewhere), or as Arrow IPC files
part-NNNNN.arrow with -format arrow. Open a table with a glob, e.g. in
DuckDB: SELECT * FROM read_parquet('ARCHIVE/tables/captures/*.parquet').
The tables are derived data, rewritten whole: they are written next to DIR
and replace it in one step, so a reader or a crash sees the old tables or
the new ones, never a mix. DIR (default ARCHIVE/tables) is replaced only if
it holds nothing but tables. ingest writes ARCHIVE/tables itself. A sharded
archive's tables are built shard by shard in parallel, each shard's parts
named part-SSSS-NNNNN, and published together (docs/TABLES.md).`

// tablesOptions are the flags of the tables command, also used by ingest.
type tablesOptions struct {
	out     string // target directory; "" = ARCHIVE/tables
	format  columnar.Format
	workers int
	tempDir string
	// also receives every row the walk makes besides the writer (the
	// storage report's Aggregator, so that ingest -report walks once);
	// done, when set, runs with the archive once the tables are published.
	also tables.Sink
	done func(*dedupe.Archive) error
}

// tablesSummary is what writeTables did: the -json line (snake_case
// names, as ingest -json and report -json) and the stderr summary.
type tablesSummary struct {
	Dir    string                `json:"dir"`
	Format columnar.Format       `json:"format"`
	Build  tables.Stats          `json:"build"`
	Tables []columnar.TableStats `json:"tables"`
}

func runTables(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("tables", "ARCHIVE", tablesAbout, stderr)
	var opts tablesOptions
	format := fs.String("format", string(columnar.Parquet), "`FORMAT` of the files: parquet or arrow")
	fs.StringVar(&opts.out, "o", "", "write the tables to `DIR` (default ARCHIVE/tables), replacing it")
	fs.IntVar(&opts.workers, "workers", runtime.NumCPU(), "`N` URLs restored and partitioned in parallel (the tables are the same for any N)")
	fs.StringVar(&opts.tempDir, "tmp", "", "`DIR` for the blocks table's temporary spill file (default: the system temp dir)")
	asJSON := fs.Bool("json", false, "print a one-line JSON summary on standard output")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "blockwarc tables: want exactly one ARCHIVE")
		fs.Usage()
		return exitUsage
	}
	var err error
	if opts.format, err = columnar.ParseFormat(*format); err != nil {
		fmt.Fprintf(stderr, "blockwarc tables: bad -format %q: want parquet or arrow\n", *format)
		return exitUsage
	}
	if opts.workers < 1 {
		fmt.Fprintln(stderr, "blockwarc tables: -workers must be at least 1")
		return exitUsage
	}
	sum, err := writeTables(ctx, fs.Arg(0), opts, stderr)
	if err != nil {
		archiveError(stderr, "tables", fs.Arg(0), err)
		return exitFailure
	}
	if *asJSON {
		b, _ := json.Marshal(sum)
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		printTablesSummary(stderr, "blockwarc tables", sum)
	}
	return exitOK
}

// writeTables builds the tables of the archive at dir and writes them with
// a columnar.Writer; on any error the previous tables stay as they were.
func writeTables(ctx context.Context, dir string, opts tablesOptions, stderr io.Writer) (tablesSummary, error) {
	out := opts.out
	if out == "" {
		out = filepath.Join(dir, "tables")
	}
	sum := tablesSummary{Dir: out, Format: opts.format}
	a, err := openArchive(dir, stderr)
	if err != nil {
		return sum, err
	}
	defer a.Close()
	gen, err := a.Generation()
	if err != nil {
		return sum, err
	}
	if _, err := shard.ReadManifest(dir); err == nil {
		return writeShardTables(ctx, a, out, gen, opts, sum, stderr)
	} else if !errors.Is(err, shard.ErrNoManifest) {
		return sum, err
	}
	w, err := columnar.NewWriter(out, columnar.WriterOptions{Format: opts.format, Generation: gen, Records: a.Records()})
	if err != nil {
		return sum, err
	}
	bopts := tables.Options{Workers: opts.workers, TempDir: opts.tempDir}
	bar := newSpinner(stderr, "writing tables")
	if bar != nil {
		bopts.Progress = func(st tables.Stats) {
			bar.Describe(fmt.Sprintf("writing tables: %d URLs, %d captures", st.URLs, st.Captures))
			bar.Add(1)
		}
	}
	var sink tables.Sink = w
	if opts.also != nil {
		sink = tables.Tee(w, opts.also)
	}
	st, err := tables.Build(ctx, a, bopts, sink)
	if bar != nil {
		bar.Finish()
	}
	sum.Build = st
	if err != nil {
		w.Abort()
		return sum, fmt.Errorf("write tables %s: %w", out, err)
	}
	sum.Tables = w.Stats()
	if opts.done != nil {
		return sum, opts.done(a)
	}
	return sum, nil
}

// writeShardTables writes the tables of a sharded archive: each shard's
// parts (part-SSSS-NNNNN, tables.BuildShard) built in parallel, then
// published together in one step. The report's rows (opts.also) are not
// fed from here: the shards' rows arrive at once, and the report walks
// the archive on its own.
func writeShardTables(ctx context.Context, a *dedupe.Archive, out, gen string, opts tablesOptions, sum tablesSummary, stderr io.Writer) (tablesSummary, error) {
	parts, err := columnar.NewParts(out, columnar.WriterOptions{Format: opts.format, Generation: gen, Records: a.Records()})
	if err != nil {
		return sum, err
	}
	n := a.Parts()
	// As the ingest's shards: concurrent shards, the workers divided.
	concurrent := max(1, min(n, opts.workers))
	bopts := tables.Options{Workers: max(1, opts.workers/concurrent), TempDir: opts.tempDir}
	bar := newSpinner(stderr, "writing tables")
	var mu sync.Mutex
	builds := make([]tables.Stats, n)
	if bar != nil {
		bopts.Progress = func(tables.Stats) {
			mu.Lock()
			defer mu.Unlock()
			var t tables.Stats
			for _, s := range builds {
				t.URLs += s.URLs
				t.Captures += s.Captures
			}
			bar.Describe(fmt.Sprintf("writing tables: %d URLs, %d captures", t.URLs, t.Captures))
			bar.Add(1)
		}
	}
	stats := make([][]columnar.TableStats, n)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(concurrent)
	for i := range n {
		g.Go(func() error {
			w, err := parts.Writer(shardPrefix(i))
			if err != nil {
				return err
			}
			o := bopts
			if bar != nil {
				progress := o.Progress
				o.Progress = func(st tables.Stats) {
					mu.Lock()
					builds[i] = st
					mu.Unlock()
					progress(st)
				}
			}
			st, err := tables.BuildShard(gctx, a, i, o, w)
			if err != nil {
				w.Abort()
				return fmt.Errorf("shard %d: %w", i, err)
			}
			mu.Lock()
			builds[i], stats[i] = st, w.Stats()
			mu.Unlock()
			return nil
		})
	}
	err = g.Wait()
	if bar != nil {
		bar.Finish()
	}
	for _, st := range builds {
		sum.Build = addBuildStats(sum.Build, st)
	}
	if err == nil {
		err = parts.Close()
	} else {
		parts.Abort()
	}
	if err != nil {
		return sum, fmt.Errorf("write tables %s: %w", out, err)
	}
	sum.Tables = columnar.SumStats(stats...)
	return sum, nil
}

// staleTables says whether the tables ARCHIVE/tables of the archive a at
// dir describe an earlier state of it than its last commit: a sentence
// saying so, or "" when they are current, absent, or record no generation
// (written by an older blockwarc or the Beam pipeline: unknown). behind
// says that an ingest left them so on purpose at the archive's last
// commit ('ingest -tables=auto'); otherwise something stopped their
// rewrite (an ingest stopped while it rewrote them leaves the old ones).
func staleTables(dir string, a *dedupe.Archive) (msg string, behind bool, err error) {
	tdir := filepath.Join(dir, "tables")
	g, ok, err := columnar.ReadGenerationInfo(tdir)
	if err != nil || !ok {
		return "", false, err
	}
	now, err := a.Generation()
	if err != nil {
		return "", false, err
	}
	switch {
	case g.Gen == now:
		return "", false, nil
	case g.Behind == now:
		return fmt.Sprintf("the tables %s describe commit %s of the archive, which is at commit %s: ingest leaves them behind until the archive has grown by a quarter since they were written (-tables=auto, so that their cost does not grow with the archive at every crawl); 'blockwarc tables %s' brings them up to date now", tdir, g.Gen, now, dir), true, nil
	}
	return fmt.Sprintf("the tables %s are stale: they describe commit %s of the archive, which is at commit %s, so they lack what the later commits added (an ingest stopped while it rewrote them leaves the old ones); 'blockwarc tables %s' rewrites them", tdir, g.Gen, now, dir), false, nil
}

// shardPrefix names the part files of shard i (columnar.WriterOptions.Prefix).
func shardPrefix(i int) string { return fmt.Sprintf("%04d", i) }

// addBuildStats adds the counts of two shards' builds.
func addBuildStats(a, b tables.Stats) tables.Stats {
	a.Records += b.Records
	a.URLs += b.URLs
	a.Captures += b.Captures
	a.CaptureBlocks += b.CaptureBlocks
	a.Changes += b.Changes
	a.Blocks += b.Blocks
	a.Links += b.Links
	a.Partitioned += b.Partitioned
	a.TextOnly += b.TextOnly
	a.Revisits += b.Revisits
	a.RevisitsUnresolved += b.RevisitsUnresolved
	a.BlockMismatches += b.BlockMismatches
	a.Respanned += b.Respanned
	a.AddedBytes += b.AddedBytes
	a.Objects += b.Objects
	a.SpillBytes += b.SpillBytes
	return a
}

// printTablesSummary writes one line per table, and the count of captures
// whose blocks could not be matched (a bug worth reporting) if any.
func printTablesSummary(w io.Writer, prefix string, sum tablesSummary) {
	fmt.Fprintf(w, "%s: wrote %s (%s)\n", prefix, sum.Dir, sum.Format)
	for _, t := range sum.Tables {
		fmt.Fprintf(w, "  %-15s %10d rows %4d part(s) %12d bytes\n", t.Name, t.Rows, t.Parts, t.Bytes)
	}
	if sum.Build.BlockMismatches > 0 {
		fmt.Fprintf(w, "%s: warning: %d capture(s) stored as blocks could not be read as blocks; they have no capture_blocks rows\n",
			prefix, sum.Build.BlockMismatches)
	}
}

// newSpinner returns a progress spinner on stderr when it is a terminal,
// else nil: the table builder knows its count of URLs only at the end.
func newSpinner(stderr io.Writer, what string) *progressbar.ProgressBar {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(f),
		progressbar.OptionSetDescription(what),
		progressbar.OptionThrottle(100_000_000),
		progressbar.OptionClearOnFinish(),
	)
}
