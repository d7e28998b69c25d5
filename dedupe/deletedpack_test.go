package dedupe

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestDeletedPackOfMany: an archive of several packs (two ingests, small
// packs) loses its first pack; the frames of chunks of the later packs
// can no longer be numbered, and repair with the originals still
// restores every record, byte for byte, and verifies.
func TestDeletedPackOfMany(t *testing.T) {
	dir := t.TempDir()
	samples := filepath.Join(sharedtest.RepoRoot(t), "testdata", "samples")
	files, _ := filepath.Glob(filepath.Join(samples, "ota-lovescout24-2022*.warc.gz"))
	if len(files) < 4 {
		t.Fatalf("want 4 sample dumps, found %d", len(files))
	}
	var ins []string
	for _, f := range files[:4] {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.Base(f))
		writeFile(t, p, b)
		ins = append(ins, p)
	}
	arch := filepath.Join(dir, "a.bwa")
	opts := testOpts()
	opts.Pack = pack.Options{PackSize: 12 << 10}
	for _, run := range [][]string{ins[:2], ins[2:]} {
		if _, err := Ingest(context.Background(), arch, run, opts); err != nil {
			t.Fatal(err)
		}
	}
	packs, _ := filepath.Glob(filepath.Join(arch, "*.pack"))
	if len(packs) < 3 {
		t.Fatalf("packs: %v, want 3 or more", packs)
	}
	t.Logf("%d packs; deleting %s", len(packs), filepath.Base(packs[0]))
	if err := os.Remove(packs[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := pack.RebuildIndexes(arch, pack.Options{}); err != nil {
		t.Fatal(err)
	}
	res, err := Reingest(context.Background(), arch, ins, pack.Options{})
	if err != nil || len(res.Unlisted) > 0 || len(res.Refused) > 0 {
		t.Fatalf("repair with the originals: %v, not re-ingested %v, refused %v", err, res.Unlisted, res.Refused)
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if st, err := a.Verify(func(p Problem) { t.Errorf("verify: %v", p) }); err != nil || st.Problems > 0 || len(st.Lost) > 0 {
		t.Fatalf("verify: %d problems, %d lost, %v", st.Problems, len(st.Lost), err)
	}
	if n := checkRoundTrip(t, a); n != 32 {
		t.Errorf("%d of 32 records restore after repair", n)
	}
}
