package partition

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSkipAnnotation checks that Options.SkipAnnotation changes nothing
// but the annotation: the same blocks (paths, spans, levels) and layout,
// with Text, Topic and Label left empty.
func TestSkipAnnotation(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join("testdata", "pages", "*.html"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no test pages (%v)", err)
	}
	pp := NewPartitioner()
	for _, p := range pages {
		doc, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		full, err := pp.Partition(doc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		bare, err := pp.Partition(doc, Options{SkipAnnotation: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(full.Leaves) != len(bare.Leaves) || string(full.Layout.Encode()) != string(bare.Layout.Encode()) {
			t.Fatalf("%s: %d leaves / %d without annotation, or layouts differ", p, len(full.Leaves), len(bare.Leaves))
		}
		labelled := 0
		for i, b := range bare.Leaves {
			f := full.Leaves[i]
			if b.Path != f.Path || b.Start != f.Start || b.End != f.End || b.Level != f.Level {
				t.Errorf("%s leaf %d: %s [%d,%d) level %d, annotated %s [%d,%d) level %d", p, i, b.Path, b.Start, b.End, b.Level, f.Path, f.Start, f.End, f.Level)
			}
			if b.Text != "" || len(b.Topic) != 0 || b.Label != "" {
				t.Errorf("%s leaf %s annotated though asked not to", p, b.Path)
			}
			if f.Label != "" {
				labelled++
			}
		}
		if labelled == 0 {
			t.Errorf("%s: no leaf labelled with annotation on", p)
		}
	}
}

// BenchmarkPartitionSkipAnnotation partitions the corpus and article
// pages with and without annotation in alternation and reports
// x-annotated: time annotated ÷ time without (what ingest saves per page
// partitioned by skipping text, topics and labels it does not store).
func BenchmarkPartitionSkipAnnotation(b *testing.B) {
	corpus, articles := benchPages(b)
	pages := append(corpus, articles...)
	total := 0
	for _, p := range pages {
		total += len(p)
	}
	b.SetBytes(int64(total))
	pp := NewPartitioner()
	var full, bare time.Duration
	for b.Loop() {
		b.StopTimer()
		t0 := time.Now()
		for _, p := range pages {
			if _, err := pp.Partition(p, Options{}); err != nil {
				b.Fatal(err)
			}
		}
		full += time.Since(t0)
		b.StartTimer()
		t1 := time.Now()
		for _, p := range pages {
			if _, err := pp.Partition(p, Options{SkipAnnotation: true}); err != nil {
				b.Fatal(err)
			}
		}
		bare += time.Since(t1)
	}
	b.ReportMetric(float64(full)/float64(bare), "x-annotated")
}
