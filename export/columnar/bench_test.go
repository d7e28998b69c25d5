package columnar

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/export/tables"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// memSink keeps every row: the writer benchmark replays them.
type memSink struct{ synthRows }

// It takes no links, as the five tables it replays need none.
func (s *memSink) Takes(t string) bool { return t != tables.LinksTable }
func (s *memSink) Add(r tables.Row) error {
	switch r := r.(type) {
	case *tables.Capture:
		s.captures = append(s.captures, *r)
	case *tables.CaptureBlock:
		s.captureBlocks = append(s.captureBlocks, *r)
	case *tables.Change:
		s.changes = append(s.changes, *r)
	case *tables.URL:
		s.urls = append(s.urls, *r)
	case *tables.Block:
		s.blocks = append(s.blocks, *r)
	}
	return nil
}
func (s *memSink) Close() error { return nil }

func (s *synthRows) count() int64 {
	return int64(len(s.captures) + len(s.blocks) + len(s.captureBlocks) + len(s.changes) + len(s.urls))
}

// writeJSONL is the baseline: the same rows as JSON lines, one file per
// table, buffered like the writer's files and synced.
func (s *synthRows) writeJSONL(b *testing.B, dir string) int64 {
	var total int64
	write := func(name string, rows func(*json.Encoder) error) {
		f, err := os.Create(filepath.Join(dir, name+".jsonl"))
		if err != nil {
			b.Fatal(err)
		}
		bw := bufio.NewWriterSize(f, 1<<20)
		if err := rows(json.NewEncoder(bw)); err != nil {
			b.Fatal(err)
		}
		must(b, bw.Flush())
		must(b, f.Sync())
		fi, err := f.Stat()
		must(b, err)
		total += fi.Size()
		must(b, f.Close())
	}
	enc := func(n int, row func(int) any) func(*json.Encoder) error {
		return func(e *json.Encoder) error {
			for i := range n {
				if err := e.Encode(row(i)); err != nil {
					return err
				}
			}
			return nil
		}
	}
	write(Captures, enc(len(s.captures), func(i int) any { return &s.captures[i] }))
	write(Blocks, enc(len(s.blocks), func(i int) any { return &s.blocks[i] }))
	write(CaptureBlocks, enc(len(s.captureBlocks), func(i int) any { return &s.captureBlocks[i] }))
	write(Changes, enc(len(s.changes), func(i int) any { return &s.changes[i] }))
	write(URLs, enc(len(s.urls), func(i int) any { return &s.urls[i] }))
	return total
}

// corpusRows ingests corpus sites from ../shared into a temporary archive
// and returns the rows of its tables and the archive's size in bytes.
func corpusRows(b *testing.B, sites ...string) (*synthRows, int64) {
	var inputs []string
	for _, s := range sites {
		inputs = append(inputs, sharedtest.Dir(b, "corpus", s))
	}
	dir := filepath.Join(b.TempDir(), "bench.bwa")
	if _, err := dedupe.Ingest(context.Background(), dir, inputs, dedupe.Options{Level: dedupe.DefaultLevel}); err != nil {
		b.Fatal(err)
	}
	size := dirSize(b, dir)
	a, err := dedupe.Open(dir, pack.Options{})
	must(b, err)
	defer a.Close()
	sink := &memSink{}
	if _, err := tables.Build(context.Background(), a, tables.Options{Workers: 2, TempDir: b.TempDir()}, sink); err != nil {
		b.Fatal(err)
	}
	return &sink.synthRows, size
}

func dirSize(b *testing.B, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			n += fi.Size()
		}
		return err
	})
	must(b, err)
	return n
}

// BenchmarkWriter writes the tables of two corpus sites (mkdocs-org and
// ota-mektoube: 1,063 HTML captures) from rows held in memory: the writer
// alone. Bytes are those of the same rows as JSON lines; x-jsonl is the
// writer's time over the time of encoding the rows as JSON lines files
// (measured in the same run); tables-%-archive is the tables' size as a
// share of the archive's, jsonl-%-archive the JSON lines' share.
func BenchmarkWriter(b *testing.B) {
	rows, archive := corpusRows(b, "mkdocs-org", "ota-mektoube")
	n := rows.count()

	jsonBytes := rows.writeJSONL(b, b.TempDir())

	for _, f := range []Format{Parquet, Arrow} {
		b.Run(string(f), func(b *testing.B) {
			b.SetBytes(jsonBytes)
			b.ReportAllocs()
			var size int64
			start := time.Now()
			for b.Loop() {
				dir := filepath.Join(b.TempDir(), "tables")
				w, err := NewWriter(dir, WriterOptions{Format: f})
				must(b, err)
				rows.writeAll(b, w)
				size = 0
				for _, st := range w.Stats() {
					size += st.Bytes
				}
			}
			per := time.Since(start) / time.Duration(b.N)
			// The baseline as many times, right after, under the same load.
			b.StopTimer()
			start = time.Now()
			for range b.N {
				rows.writeJSONL(b, b.TempDir())
			}
			base := time.Since(start) / time.Duration(b.N)
			b.ReportMetric(float64(n)/per.Seconds(), "rows/s")
			b.ReportMetric(float64(per)/float64(base), "x-jsonl")
			b.ReportMetric(100*float64(size)/float64(archive), "tables-%-archive")
			b.ReportMetric(100*float64(jsonBytes)/float64(archive), "jsonl-%-archive")
		})
	}
}
