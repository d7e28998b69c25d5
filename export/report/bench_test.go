package report

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/export/tables"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// countSink is the baseline: it receives the rows and does nothing.
type countSink struct{ n int64 }

func (s *countSink) Takes(t string) bool  { return t != tables.LinksTable }
func (s *countSink) Add(tables.Row) error { s.n++; return nil }
func (s *countSink) Close() error         { return nil }

// BenchmarkReport times the whole report of a corpus site (rows,
// aggregation, archive figures, text and HTML) against the row walk alone
// (tables.Build into a sink that only counts), measured in the same run:
// x-tables-build is how many times the walk alone the report takes.
func BenchmarkReport(b *testing.B) {
	site := sharedtest.Dir(b, "corpus", "mkdocs-org")
	dir := filepath.Join(b.TempDir(), "site.bwa")
	ctx := context.Background()
	st, err := dedupe.Ingest(ctx, dir, []string{site}, dedupe.Options{Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	a, err := dedupe.Open(dir, pack.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	to := tables.Options{Workers: 1}

	b.SetBytes(st.InputBytes)
	b.ReportAllocs()
	b.ResetTimer()
	var base time.Duration
	for range b.N {
		// The baseline, untimed by b, alternated with the timed report so
		// both see the same machine load.
		b.StopTimer()
		start := time.Now()
		var sink countSink
		if _, err := tables.Build(ctx, a, to, &sink); err != nil {
			b.Fatal(err)
		}
		base += time.Since(start)
		b.StartTimer()

		r, err := Build(ctx, dir, a, Options{}, to)
		if err != nil {
			b.Fatal(err)
		}
		if err := r.WriteHTML(discard{}); err != nil {
			b.Fatal(err)
		}
		if err := r.WriteText(discard{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed())/float64(base), "x-tables-build")
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
