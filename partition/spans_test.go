package partition

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestPartitionSpans: given the leaves Partition found, PartitionSpans
// gives back the same blocks — bytes, node, text, label, topic — and a
// layout that reassembles the page; spans of another partition (another
// level) become exactly those blocks.
func TestPartitionSpans(t *testing.T) {
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
		for _, level := range []int{1, 3} {
			want, err := Partition(doc, Options{Level: level})
			if err != nil {
				t.Fatal(err)
			}
			spans := make([][2]int, len(want.Leaves))
			for i, b := range want.Leaves {
				spans[i] = [2]int{b.Start, b.End}
			}
			got, err := pp.PartitionSpans(doc, spans, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Leaves) != len(want.Leaves) {
				t.Fatalf("%s level %d: %d leaves, want %d", f, level, len(got.Leaves), len(want.Leaves))
			}
			for i, b := range got.Leaves {
				w := want.Leaves[i]
				if b.Start != w.Start || b.End != w.End || b.Text != w.Text || b.Label != w.Label || b.Tag != w.Tag {
					t.Errorf("%s level %d leaf %d: [%d,%d) %s %q %q, want [%d,%d) %s %q %q",
						f, level, i, b.Start, b.End, b.Tag, b.Label, trunc(b.Text), w.Start, w.End, w.Tag, w.Label, trunc(w.Text))
					break
				}
			}
			leaves := make([][]byte, len(got.Leaves))
			for i, b := range got.Leaves {
				leaves[i] = got.BlockBytes(b)
			}
			if back, err := Reassemble(got.Layout, leaves); err != nil || !bytes.Equal(back, doc) {
				t.Errorf("%s: layout + leaves do not reassemble the page (%v)", f, err)
			}
		}
	}
	if _, err := pp.PartitionSpans([]byte("<p>a</p><p>b</p>"), [][2]int{{8, 16}, {0, 8}}, Options{}); !errors.Is(err, ErrSpans) {
		t.Errorf("spans out of order: %v", err)
	}
	if _, err := pp.PartitionSpans([]byte("<p>a</p>"), [][2]int{{0, 99}}, Options{}); !errors.Is(err, ErrSpans) {
		t.Errorf("span past the end: %v", err)
	}
}

func trunc(s string) string { return s[:min(len(s), 40)] }

// FuzzPartitionSpans: any bytes and any ordered spans give blocks at
// exactly those spans, reassembling the input.
func FuzzPartitionSpans(f *testing.F) {
	f.Add([]byte("<html><body><div><p>one</p><p>two</p></div>text<b>x</b></body></html>"), uint8(3))
	f.Add([]byte("<p>a<p>b<table><tr><td>c"), uint8(7))
	f.Fuzz(func(t *testing.T, doc []byte, step uint8) {
		var spans [][2]int
		st := int(step%13) + 1
		for s := 0; s+st <= len(doc); s += 2 * st {
			spans = append(spans, [2]int{s, s + st})
		}
		res, err := NewPartitioner().PartitionSpans(doc, spans, Options{})
		if err != nil {
			t.Fatal(err)
		}
		leaves := make([][]byte, len(res.Leaves))
		for i, b := range res.Leaves {
			if b.Start != spans[i][0] || b.End != spans[i][1] {
				t.Fatalf("leaf %d at [%d,%d), span %v", i, b.Start, b.End, spans[i])
			}
			leaves[i] = res.BlockBytes(b)
		}
		if back, err := Reassemble(res.Layout, leaves); err != nil || !bytes.Equal(back, doc) {
			t.Fatalf("no reassembly: %v", err)
		}
	})
}
