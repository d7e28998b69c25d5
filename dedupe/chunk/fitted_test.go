package chunk

import (
	"bytes"
	"testing"

	"github.com/blockwarc/blockwarc/internal/zstdlib"
)

// TestFitted: with Options.Fitted (the fast tier) every frame's body,
// chained or not, is the reference library's frame from a context fitted
// to it and its chain (zstdlib.Ctx at Level, dictionary named), and the
// chunk file verifies and restores. With Fitted ignored, the chained
// frames were zstdlib.Compress's, streamed at the level's full size, and
// differed.
func TestFitted(t *testing.T) {
	if !haveLibzstd {
		t.Skip("built without cgo")
	}
	const level = 6
	vs := pages(13, 6, 24, 20_000)
	f, dir, all := storeAll(t, vs, Options{Fitted: true, Level: level}, 24)
	r, err := NewReader(f, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Verify(); err != nil {
		t.Fatal(err)
	}
	restoreAll(t, r, all)
	ctx, err := zstdlib.NewCtx()
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	chained := 0
	for i, fr := range dir {
		bodies, err := r.ChainBodies(i, 1<<30)
		if err != nil || len(bodies) != int(fr.Prefix)+1 {
			t.Fatalf("frame %d: %d bodies for prefix %d: %v", i, len(bodies), fr.Prefix, err)
		}
		body := bodies[len(bodies)-1]
		var dict []byte
		if fr.Prefix > 0 {
			chained++
			dict = bytes.Join(bodies[:len(bodies)-1], nil)
		}
		want, err := ctx.Compress(nil, body, level, dict)
		if err == nil && dict != nil {
			want, err = zstdlib.NameDict(want, chainDictID)
		}
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, fr.Size-fr.Table)
		if _, err := f.ReadAt(got, fr.Offset+int64(fr.Table)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("frame %d (prefix %d): %d bytes, the fitted context's %d", i, fr.Prefix, len(got), len(want))
		}
	}
	if chained == 0 {
		t.Fatal("no chained frame: the test checks no dictionary")
	}
}
