package dedupe

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestLearnOrderDeterministic: a URL whose history holds two places with
// the same bytes (a metadata block from ingest 1, a resource block from
// ingest 2 that took the place another URL gave the same bytes in its
// commit) must learn them in a fixed order (it once ranged over a map),
// or the place the next capture of those bytes gets, and the archive's
// bytes, vary from run to run.
func TestLearnOrderDeterministic(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	blk := make([]byte, 6<<10)
	for i := range blk {
		blk[i] = "abcdefghij klmnop\n"[rng.IntN(18)]
	}
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	f1, f2, f3 := filepath.Join(dir, "one.warc"), filepath.Join(dir, "two.warc"), filepath.Join(dir, "three.warc")
	writeFile(t, f1, warcRecord("metadata", "http://b.example/", t0, 1, blk))
	writeFile(t, f2,
		warcRecord("resource", "http://a.example/", t0.Add(time.Hour), 2, blk),
		warcRecord("resource", "http://b.example/", t0.Add(time.Hour), 3, blk))
	writeFile(t, f3, warcRecord("metadata", "http://b.example/", t0.Add(2*time.Hour), 4, blk))
	base := filepath.Join(dir, "base.bwa")
	for _, f := range []string{f1, f2} {
		if _, err := Ingest(context.Background(), base, []string{f}, testOpts()); err != nil {
			t.Fatal(err)
		}
	}
	vs := keyVersions(t, base, "example,b)/", 2)
	t.Logf("history of b: metadata block %s, resource block %s", vs[0].Block, vs[1].Block)
	seen := map[string]pack.ID{}
	for i := range 12 {
		arch := filepath.Join(dir, fmt.Sprintf("run%d.bwa", i))
		sharedtest.CopyDir(t, base, arch)
		if _, err := Ingest(context.Background(), arch, []string{f3}, testOpts()); err != nil {
			t.Fatal(err)
		}
		vs := keyVersions(t, arch, "example,b)/", 3)
		var sum bytes.Buffer
		files := sharedtest.ArchiveFiles(t, arch)
		for _, n := range []string{"COMMIT"} {
			sum.Write(files[n])
		}
		seen[string(sum.Bytes())] = vs[2].Block
	}
	if len(seen) > 1 {
		for _, id := range seen {
			t.Logf("new capture's block: %s", id)
		}
		t.Errorf("12 identical third ingests wrote %d different archives", len(seen))
	}
}

// keyVersions returns the n versions of key in the archive in dir.
func keyVersions(t *testing.T, dir, key string, n int) []Version {
	t.Helper()
	a, err := Open(dir, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	vs, err := a.Versions(key)
	if err != nil || len(vs) != n {
		t.Fatalf("versions of %s: %v, %d of %d", key, err, len(vs), n)
	}
	return vs
}
