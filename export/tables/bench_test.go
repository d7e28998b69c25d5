package tables

import (
	"context"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// countSink discards rows, counting them; it takes no links, so Build
// does not extract them.
type countSink struct{ rows int64 }

func (s *countSink) Takes(t string) bool { return t != LinksTable }
func (s *countSink) Add(Row) error       { s.rows++; return nil }
func (s *countSink) Close() error        { return nil }

// restoreWalk is the baseline: walk the archive in table order and
// restore every capture, the least any table builder must do.
func restoreWalk(b *testing.B, a *dedupe.Archive) (bytes int64) {
	err := a.WalkOrdered(func(uv dedupe.URLVersions) error {
		for i := range uv.Versions {
			if !isCapture(&uv.Versions[i]) {
				continue
			}
			p, err := a.Restore(&uv.Versions[i])
			if err != nil {
				return err
			}
			bytes += int64(len(p.WARCHeader) + len(p.Block))
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return bytes
}

// BenchmarkBuild builds the tables of the mkdocs-org corpus site (863
// HTML captures of 22 URLs, 10 years). rows/s counts rows of all six
// tables; x-restore is the time of a Build over the time of a walk that
// only restores every capture (measured in the same run); bytes are the
// restored captures' record bytes.
func BenchmarkBuild(b *testing.B) {
	a := ingest(b, b.TempDir(), sharedtest.CorpusFiles(b, "mkdocs-org"))
	start := time.Now()
	const baseRuns = 3
	var n int64
	for range baseRuns {
		n = restoreWalk(b, a)
	}
	base := time.Since(start) / baseRuns
	for _, workers := range []int{1, 2} {
		b.Run(map[int]string{1: "workers=1", 2: "workers=2"}[workers], func(b *testing.B) {
			b.SetBytes(n)
			b.ReportAllocs()
			var rows int64
			b.ResetTimer()
			for range b.N {
				s := &countSink{}
				if _, err := Build(context.Background(), a, Options{Workers: workers, TempDir: b.TempDir()}, s); err != nil {
					b.Fatal(err)
				}
				rows += s.rows
			}
			el := b.Elapsed()
			b.ReportMetric(float64(rows)/el.Seconds(), "rows/s")
			b.ReportMetric(float64(el)/float64(b.N)/float64(base), "x-restore")
		})
	}
}
