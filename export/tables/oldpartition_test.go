package tables

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
)

// TestBuildOldPartition: an archive written by an older partition (see
// testdata/README.md) opens, verifies, and gets capture_blocks rows for
// every capture kept as blocks — exactly its stored blocks, in order —
// with the blocks rows they join to, although today's partition cuts two
// of its pages elsewhere.
func TestBuildOldPartition(t *testing.T) {
	// A copy: opening takes the archive's lock file.
	dir := filepath.Join(t.TempDir(), "old.bwa")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "old-partition.bwa"))); err != nil {
		t.Fatal(err)
	}
	a, err := dedupe.Open(dir, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Verify(func(p dedupe.Problem) { t.Errorf("verify: %v", p) }); err != nil {
		t.Fatal(err)
	}
	r, st := build(t, a, Options{})
	checkTables(t, a, r, st)
	if st.Respanned != 2 || st.BlockMismatches != 0 {
		t.Fatalf("respanned %d, mismatches %d; want 2 and 0", st.Respanned, st.BlockMismatches)
	}
	stored := map[[2]string][]string{} // (surt, fetch time) -> stored block ids
	err = a.Walk(func(uv dedupe.URLVersions) error {
		for _, v := range uv.Versions {
			if v.Storage().How.String() == "blocks" {
				var ids []string
				for _, id := range v.Blocks {
					ids = append(ids, id.String())
				}
				stored[[2]string{uv.Key, v.Date.UTC().String()}] = ids
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rows := map[[2]string][]string{}
	for _, cb := range r.cbs {
		k := [2]string{cb.URLSURTKey, cb.FetchTime.UTC().String()}
		rows[k] = append(rows[k], cb.BlockID)
	}
	blockText := map[string]bool{}
	for _, b := range r.blocks {
		blockText[b.BlockID] = true
	}
	if len(stored) == 0 {
		t.Fatal("no capture stored as blocks")
	}
	for k, ids := range stored {
		got := rows[k]
		if len(got) != len(ids) {
			t.Errorf("%v: %d capture_blocks rows, %d stored blocks", k, len(got), len(ids))
			continue
		}
		for i := range ids {
			if got[i] != ids[i] {
				t.Errorf("%v: row %d is block %s, stored %s", k, i+1, got[i], ids[i])
			}
			if !blockText[got[i]] {
				t.Errorf("%v: block %s has no blocks row", k, got[i])
			}
		}
	}
}
