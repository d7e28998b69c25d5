package diff

import (
	"bytes"
	"testing"

	"github.com/blockwarc/blockwarc/partition"
)

// FuzzCompare: two pages from one input (cut at its first 0xff byte)
// compared block by block. Every block of both pages is listed once;
// changed parts lie inside their block, in order and disjoint, and only
// text-changed and markup-only blocks have them.
func FuzzCompare(f *testing.F) {
	f.Add([]byte(sprintf(pageTmpl, "two years", "abc123", "2024") + "\xff" + sprintf(pageTmpl, "five years", "zz9", "2025")))
	f.Add([]byte("<div><p>a</p><p>b</p><ul><li>x</li></ul></div>\xff<div><p>a</p><p>c</p><ul><li>x</li><li>y</li></ul></div>"))
	f.Add([]byte("<table><tr><td>1<td>2</table>\xff<table><tr><td>1<td>3</table>"))
	f.Fuzz(func(t *testing.T, in []byte) {
		a, b, ok := bytes.Cut(in, []byte{0xff})
		if !ok {
			return
		}
		old, err := partition.Partition(a, partition.Options{})
		if err != nil {
			t.Fatal(err)
		}
		new, err := partition.Partition(b, partition.Options{Prior: old})
		if err != nil {
			t.Fatal(err)
		}
		blocks, _ := Compare(old, new)
		seenOld, seenNew := map[*partition.Block]bool{}, map[*partition.Block]bool{}
		for _, bl := range blocks {
			if bl.Old != nil {
				if seenOld[bl.Old] {
					t.Fatalf("old block %s listed twice", bl.Old.Path)
				}
				seenOld[bl.Old] = true
			}
			if bl.New != nil {
				if seenNew[bl.New] {
					t.Fatalf("new block %s listed twice", bl.New.Path)
				}
				seenNew[bl.New] = true
			}
			changed := bl.Status == TextChanged || bl.Status == MarkupOnly
			if !changed && (bl.OldParts != nil || bl.NewParts != nil) {
				t.Fatalf("%s block has parts", bl.Status)
			}
			if changed && len(bl.OldParts)+len(bl.NewParts) == 0 {
				t.Fatalf("%s block without parts", bl.Status)
			}
			for _, side := range []struct {
				b     *partition.Block
				parts []Part
			}{{bl.Old, bl.OldParts}, {bl.New, bl.NewParts}} {
				prev := -1
				for _, p := range side.parts {
					if p.Start < side.b.Start || p.End > side.b.End || p.Start >= p.End || p.Start < prev {
						t.Fatalf("part [%d,%d) of block [%d,%d) after %d", p.Start, p.End, side.b.Start, side.b.End, prev)
					}
					prev = p.End
				}
			}
		}
		if len(seenOld) != len(old.Leaves) || len(seenNew) != len(new.Leaves) {
			t.Fatalf("%d of %d old and %d of %d new blocks listed", len(seenOld), len(old.Leaves), len(seenNew), len(new.Leaves))
		}
	})
}
