package partition

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestPartitionStored: the spans of any partition come back as the
// result's leaves, with unique paths; the adaptive partition's own spans
// come back as that partition (StoredCut, same paths).
func TestPartitionStored(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "pages", "*.html"))
	if len(files) < 3 {
		t.Fatalf("test pages missing: %v", files)
	}
	pp := NewPartitioner()
	for _, f := range files {
		doc, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, level := range []int{LevelAdaptive, 1, 3} {
			want, err := Partition(doc, Options{Level: level})
			if err != nil {
				t.Fatal(err)
			}
			spans := make([][2]int, len(want.Leaves))
			var paths []string
			for i, b := range want.Leaves {
				spans[i] = [2]int{b.Start, b.End}
				paths = append(paths, b.Path)
			}
			// Read as adaptive: the stored blocks decide the division.
			got, how, err := pp.PartitionStored(doc, spans, Options{Level: LevelAdaptive})
			if err != nil {
				t.Fatal(err)
			}
			if !SameSpans(got.Leaves, spans) {
				t.Errorf("%s level %d: leaves are not the stored spans", f, level)
			}
			var gotPaths []string
			seen := map[string]bool{}
			for _, b := range got.Leaves {
				if seen[b.Path] {
					t.Errorf("%s level %d: path %s twice", f, level, b.Path)
				}
				seen[b.Path] = true
				gotPaths = append(gotPaths, b.Path)
			}
			if level == LevelAdaptive && (how != StoredCut || !slices.Equal(gotPaths, paths)) {
				t.Errorf("%s: its own spans read as %d with paths %v, want StoredCut and %v", f, how, gotPaths, paths)
			}
		}
	}
}

// TestSpanPathsUnique: spans inside one block are named apart.
func TestSpanPathsUnique(t *testing.T) {
	doc := []byte("<html><body><p>one two three four five six</p><p>seven</p></body></html>")
	res, err := Partition(doc, Options{Level: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Leaves[len(res.Leaves)-1]
	if p.End-p.Start < 2 {
		t.Fatalf("leaf %s of %d bytes", p.Path, p.End-p.Start)
	}
	mid := (p.Start + p.End) / 2
	got := SpanPaths(res, [][2]int{{p.Start, mid}, {mid, p.End}})
	if want := []string{p.Path + "~1", p.Path + "~2"}; !slices.Equal(got, want) {
		t.Errorf("SpanPaths = %v, want %v", got, want)
	}
}
