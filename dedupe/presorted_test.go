package dedupe

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/zlibenc"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/warcio"
)

// TestPresortLearnsOriginal: what Presort learns of a gzip file's
// members from its one read is what LearnOriginal learns reading the
// file again, byte for byte; a file it leaves to LearnOriginal is
// damaged or not gzip.
func TestPresortLearnsOriginal(t *testing.T) {
	if !zlibenc.Available {
		t.Skip("no zlib in this build")
	}
	files, err := filepath.Glob("../testdata/samples/*.warc.gz")
	if err != nil || len(files) < 10 {
		t.Fatalf("sample crawls missing: %v", err)
	}
	interop, err := warcio.ExpandInputs([]string{sharedtest.Interop(t)})
	if err != nil {
		t.Fatal(err)
	}
	files = append(files[:6], interop...)
	ctx := context.Background()
	fused, exact := 0, 0
	for _, f := range files {
		p, err := Presort(ctx, f, t.TempDir(), Options{MemLimit: 16 << 20, TempDir: t.TempDir()}, nil)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		want, err := LearnOriginal(ctx, f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		w, err := decodeLearned(want)
		if err != nil {
			t.Fatal(err)
		}
		if p.Original == nil {
			if w.why == originalExact || w.why == originalNoParams {
				t.Errorf("%s: left to LearnOriginal, which learns it (why %d)", f, w.why)
			}
			continue
		}
		fused++
		if w.why == originalExact {
			exact++
		}
		if !bytes.Equal(p.Original, want) {
			g, _ := decodeLearned(p.Original)
			t.Errorf("%s: the presort learnt %+v, LearnOriginal %+v", f, g, w)
		}
	}
	if fused < 6 || exact < 6 {
		t.Fatalf("%d of %d files learnt by their presort, %d of them exact: want the samples at least", fused, len(files), exact)
	}
	t.Logf("%d of %d files learnt by their presort, %d exact", fused, len(files), exact)
}
