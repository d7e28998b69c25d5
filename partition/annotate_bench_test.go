package partition

import (
	"bytes"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// tokenizeOnly is the baseline: one pass of the x/net/html tokenizer over
// the page, the least any HTML-reading step must cost.
func tokenizeOnly(doc []byte) int {
	z := html.NewTokenizer(bytes.NewReader(doc))
	n := 0
	for z.Next() != html.ErrorToken {
		n++
	}
	return n
}

// BenchmarkAnnotate measures Partition with annotation (text, features,
// topics, labels of every block) on the article-extraction pages. Each
// iteration also times a tokenizer-only pass over the same pages and a
// second annotation of the partitions, so the run reports
// x-tokenizer = Partition throughput / tokenizer throughput (target
// >= 0.4) and x-annotate-share = annotation time / Partition time.
func BenchmarkAnnotate(b *testing.B) {
	pages := loadArticles(b)
	total := 0
	for _, pg := range pages {
		total += len(pg.html)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	results := make([]*Result, len(pages))
	var tok, part, ann time.Duration
	for b.Loop() {
		t0 := time.Now()
		for _, pg := range pages {
			tokenizeOnly(pg.html)
		}
		t1 := time.Now()
		for i, pg := range pages {
			r, err := Partition(pg.html, Options{})
			if err != nil {
				b.Fatalf("partition %s: %v", pg.id, err)
			}
			results[i] = r
		}
		t2 := time.Now()
		for _, r := range results {
			annotate(r, Options{}, nil, nil, nil)
		}
		t3 := time.Now()
		tok += t1.Sub(t0)
		part += t2.Sub(t1)
		ann += t3.Sub(t2)
	}
	if part > 0 {
		b.ReportMetric(float64(tok)/float64(part), "x-tokenizer")
		b.ReportMetric(float64(ann)/float64(part), "x-annotate-share")
	}
}
