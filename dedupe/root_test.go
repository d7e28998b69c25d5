package dedupe

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/pack"
)

// manyRuns is the root of an archive ingested a crawl at a time: a file
// part and a run per ingest, the run of one segment (of none, or of
// three, every seventh and eleventh), with its dates.
func manyRuns(n int) *root {
	r := &root{}
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		r.Parts = append(r.Parts, filePart{Rows: 1 + i%3, ID: pack.Sum(fmt.Appendf(nil, "part %d", i))})
		ns := 1
		switch {
		case i%7 == 3:
			ns = 0
		case i%11 == 5:
			ns = 3
		}
		var run []segRef
		for k := range ns {
			run = append(run, segRef{First: fmt.Sprintf("com,example)/%05d/%d", i, k), Last: fmt.Sprintf("org,example)/%05d/%d", i, k), ID: pack.Sum(fmt.Appendf(nil, "seg %d %d", i, k))})
		}
		r.Runs = append(r.Runs, run)
		d := runDates{Known: true}
		if ns > 0 { // a run of no capture has no dates
			at := t0.Add(time.Duration(i) * 24 * time.Hour)
			d = runDates{Known: true, Any: true, Min: at, Max: at.Add(time.Hour)}
		}
		r.Dates = append(r.Dates, d)
	}
	return r
}

// encodeDecodeRoot encodes r and decodes the payload.
func encodeDecodeRoot(t *testing.T, r *root) ([]byte, *root) {
	t.Helper()
	b, err := r.encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := decodeRoot(b)
	if err != nil {
		t.Fatal(err)
	}
	return b, back
}

// TestRootManyRuns: a root of many runs, some of no segment and some of
// several, decodes to its runs; a run appended to after the decode (as
// an ingest extends the last) leaves the others as they were.
func TestRootManyRuns(t *testing.T) {
	r := manyRuns(351)
	_, back := encodeDecodeRoot(t, r)
	if !slices.Equal(back.Parts, r.Parts) || len(back.Runs) != len(r.Runs) || len(back.Dates) != len(r.Dates) {
		t.Fatalf("%d parts, %d runs, %d dates; want %d, %d, %d", len(back.Parts), len(back.Runs), len(back.Dates), len(r.Parts), len(r.Runs), len(r.Dates))
	}
	for i := range r.Runs {
		if !slices.Equal(back.Runs[i], r.Runs[i]) || !back.Dates[i].Min.Equal(r.Dates[i].Min) || back.Dates[i].Any != r.Dates[i].Any {
			t.Fatalf("run %d: %+v %+v, want %+v %+v", i, back.Runs[i], back.Dates[i], r.Runs[i], r.Dates[i])
		}
	}
	for i := range back.Runs {
		back.Runs[i] = append(back.Runs[i], segRef{First: "x", Last: "y"})
	}
	for i := range r.Runs {
		if got := back.Runs[i][:len(back.Runs[i])-1]; !slices.Equal(got, r.Runs[i]) {
			t.Fatalf("run %d changed when the others were appended to: %+v", i, got)
		}
	}
}

// BenchmarkDecodeRoot decodes the root of an archive of 351 one-crawl
// ingests (the corpus's crawls ingested a crawl at a time), as every
// open does.
func BenchmarkDecodeRoot(b *testing.B) {
	p, err := manyRuns(351).encode()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeRoot(p); err != nil {
			b.Fatal(err)
		}
	}
}
