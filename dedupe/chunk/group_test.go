package chunk

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestGroupDrop: versions of a group (a capture's objects) stored in
// frames of their own by earlier writes name more frames than the bound
// together; GroupDrop picks frames to drop, PutDrop stores the versions
// again, and the group then decodes at most the bound, the open frame
// (where the chunks went) included; every version restores byte for
// byte, old and new.
func TestGroupDrop(t *testing.T) {
	const frame = 4 << 10
	var buf bytes.Buffer
	w, err := NewWriter(&buf, nil, Options{FrameSize: frame, ChainBytes: -1, MaxFrames: -1, PureGo: true, Workers: 1, Pending: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var datas [][]byte
	var lists [][]uint64
	for i := range 10 {
		d := make([]byte, 200+100*i) // each much smaller than a frame
		for k := range d {
			d[k] = byte(r.IntN(256))
		}
		refs, err := w.Put([]Part{{Data: d}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Fill the frame with filler so the next version starts a new one.
		fill := make([]byte, frame-len(d)-1)
		for k := range fill {
			fill[k] = byte(r.IntN(256))
		}
		if _, err := w.Put([]Part{{Data: fill}}, nil); err != nil {
			t.Fatal(err)
		}
		datas, lists = append(datas, d), append(lists, refs)
	}
	before := w.GroupCost(lists)
	const bound = 4 * frame
	if before <= bound {
		t.Fatalf("the group decodes %d bytes before, within the bound %d: the test does not exercise it", before, bound)
	}
	sizes := make([]int64, len(datas))
	for i, d := range datas {
		sizes[i] = int64(len(d))
	}
	drop := w.GroupDrop(lists, sizes, bound)
	if len(drop) == 0 {
		t.Fatalf("no frame dropped (cost %d, bound %d)", before, bound)
	}
	var moved [][]uint64
	for i, l := range lists {
		touches := false
		for _, c := range l {
			touches = touches || drop[w.FrameOf(c)]
		}
		if !touches {
			moved = append(moved, l)
			continue
		}
		refs, err := w.PutDrop([]Part{{Data: datas[i]}}, nil, drop)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range refs {
			if drop[w.FrameOf(c)] {
				t.Fatalf("version %d stored again still names dropped frame %d", i, w.FrameOf(c))
			}
		}
		moved = append(moved, refs)
	}
	after := w.GroupCost(moved)
	t.Logf("the group decodes %d bytes before, %d after; %d frames dropped", before, after, len(drop))
	if after > bound {
		t.Errorf("after GroupDrop the group decodes %d bytes (before %d), over %d", after, before, bound)
	}
	if again := w.GroupDrop(moved, sizes, bound); again != nil {
		t.Errorf("a second GroupDrop drops %v", again)
	}
	dir, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(bytes.NewReader(buf.Bytes()), dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range datas {
		for _, l := range [][]uint64{lists[i], moved[i]} {
			got, err := rd.Restore(nil, l)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, datas[i]) {
				t.Fatalf("version %d does not restore", i)
			}
		}
	}
	if _, plain := dir.Cost(slices0(moved)); plain > bound {
		t.Errorf("the group's restore decodes %d bytes, over %d", plain, bound)
	}
}

func slices0(ls [][]uint64) (out []uint64) {
	for _, l := range ls {
		out = append(out, l...)
	}
	return out
}
