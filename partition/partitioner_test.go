package partition

import (
	"bytes"
	"crypto/sha1"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// resultDigest writes everything a Result tells a caller: every block
// at every level with its annotations, the leaves, the layout, the main
// text and the style of every node.
func resultDigest(res *Result) string {
	var w strings.Builder
	var visit func(b *Block)
	visit = func(b *Block) {
		fmt.Fprintf(&w, "%s|%d|%d|%d|%d|%s|%s|%s|%+v|%q|%q|%s\n", b.Path, b.Depth, b.Level, b.Start, b.End,
			b.Tag, b.ID, b.Class, b.Features, b.Text, b.Topic, b.Label)
		for _, c := range b.Children {
			visit(c)
		}
	}
	for _, b := range res.Blocks {
		visit(b)
	}
	for _, b := range res.Leaves {
		fmt.Fprintf(&w, "L %s %d %d\n", b.Path, b.Start, b.End)
	}
	fmt.Fprintf(&w, "layout %x\nmain %q\n", res.Layout.Encode(), MainText(res))
	for _, n := range res.nodes {
		fmt.Fprintf(&w, "S %+v\n", res.StyleOf(n))
	}
	return w.String()
}

// partitionerPages returns the package's test pages and the distinct
// captures of ota-tinder, whose pages carry tens of KB of inline CSS
// that repeats from capture to capture (what the sheet cache is for).
func partitionerPages(t *testing.T) [][]byte {
	t.Helper()
	var pages [][]byte
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*.html*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("find test pages: %v (%d files)", err, len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("read %s: %v", f, err)
			}
			if b, err = io.ReadAll(zr); err != nil {
				t.Fatalf("read %s: %v", f, err)
			}
		}
		pages = append(pages, b)
	}
	seen := map[[20]byte]bool{}
	for _, c := range readCorpus(t, "ota-tinder") {
		if h := sha1.Sum(c.Payload); !seen[h] && len(seen) < 40 {
			seen[h] = true
			pages = append(pages, c.Payload)
		}
	}
	return pages
}

// TestPartitionerSameAsPartition checks that one Partitioner, fed real
// pages in sequence and then in reverse order (so every page meets warm
// caches holding other pages' sheets and stems), gives for each page
// exactly what a fresh Partition gives; and that its caches stay within
// their bounds, also when the bounds are small enough to force eviction.
func TestPartitionerSameAsPartition(t *testing.T) {
	pages := partitionerPages(t)
	opts := []Options{{}, {Level: 5, StyleSheets: []string{"p { font-size: 20px } .nav { display: none }"}}}
	want := make([][]string, len(pages))
	for i, p := range pages {
		for _, o := range opts {
			res, err := Partition(p, o)
			if err != nil {
				t.Fatalf("page %d: %v", i, err)
			}
			want[i] = append(want[i], resultDigest(res))
		}
	}
	check := func(name string, pp *Partitioner, order []int) {
		t.Helper()
		for _, i := range order {
			for k, o := range opts {
				res, err := pp.Partition(pages[i], o)
				if err != nil {
					t.Fatalf("%s: page %d: %v", name, i, err)
				}
				if got := resultDigest(res); got != want[i][k] {
					t.Fatalf("%s: page %d options %d: Partitioner result differs from Partition's", name, i, k)
				}
			}
			sc := &pp.sheets
			if sc.bytes > sc.maxBytes || sc.lru.Len() > sc.maxEntries || len(sc.byKey) != sc.lru.Len() {
				t.Fatalf("%s: sheet cache %d bytes, %d entries (%d keys) exceeds %d bytes, %d entries",
					name, sc.bytes, sc.lru.Len(), len(sc.byKey), sc.maxBytes, sc.maxEntries)
			}
			if len(pp.stems.m) > pp.stems.max {
				t.Fatalf("%s: stem cache %d entries exceeds %d", name, len(pp.stems.m), pp.stems.max)
			}
		}
	}
	forward := make([]int, len(pages))
	backward := make([]int, len(pages))
	for i := range pages {
		forward[i], backward[i] = i, len(pages)-1-i
	}
	pp := NewPartitioner()
	check("forward", pp, forward)
	if pp.sheets.lru.Len() == 0 || len(pp.stems.m) == 0 {
		t.Fatalf("caches unused: %d sheets, %d stems", pp.sheets.lru.Len(), len(pp.stems.m))
	}
	check("backward", pp, backward)

	small := NewPartitioner()
	small.sheets.maxBytes, small.sheets.maxEntries, small.stems.max = 64<<10, 3, 500
	check("small bounds", small, backward)
	check("small bounds", small, forward)
}

// TestPartitionerResultsIndependent checks that a Result stays valid
// after the Partitioner has processed other pages.
func TestPartitionerResultsIndependent(t *testing.T) {
	pages := partitionerPages(t)
	pp := NewPartitioner()
	res, err := pp.Partition(pages[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	before := resultDigest(res)
	for _, p := range pages[1:] {
		if _, err := pp.Partition(p, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if resultDigest(res) != before {
		t.Fatal("a Result changed when its Partitioner processed later pages")
	}
}
