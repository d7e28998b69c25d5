package dedupe

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/partition"
)

// partitionedLevels returns the stored level of every version partitioned
// into blocks, by input file (base name).
func partitionedLevels(t *testing.T, arch string) map[string][]int {
	t.Helper()
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	out := map[string][]int{}
	err = a.Walk(func(u URLVersions) error {
		for i := range u.Versions {
			v := &u.Versions[i]
			if v.Storage().How == StoredBlocks {
				out[filepath.Base(v.File)] = append(out[filepath.Base(v.File)], v.Level)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAdaptiveLevelStored: an archive ingested with the adaptive
// partition stores its level (-1) and reads it back through the
// catalog's uvarint; an archive
// written before (testdata/v2.bwa, level 1) keeps level 1 for its URLs
// when extended, so its stored levels keep their meaning.
func TestAdaptiveLevelStored(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(root, "testdata", "samples", "ota-lovescout24-20220425123217.warc.gz")
	fresh := filepath.Join(t.TempDir(), "new.bwa")
	adaptive := testOpts()
	adaptive.Level = partition.LevelAdaptive
	if _, err := Ingest(context.Background(), fresh, []string{in}, adaptive); err != nil {
		t.Fatal(err)
	}
	lv := partitionedLevels(t, fresh)[filepath.Base(in)]
	if len(lv) == 0 {
		t.Fatal("no capture partitioned into blocks")
	}
	for _, l := range lv {
		if l != partition.LevelAdaptive {
			t.Errorf("new archive: stored level %d, want %d (adaptive)", l, partition.LevelAdaptive)
		}
	}

	old := filepath.Join(t.TempDir(), "v2.bwa")
	if err := os.CopyFS(old, os.DirFS(filepath.Join("testdata", "v2.bwa"))); err != nil {
		t.Fatal(err)
	}
	if _, err := Ingest(context.Background(), old, []string{in}, adaptive); err != nil {
		t.Fatal(err)
	}
	byFile := partitionedLevels(t, old)
	if len(byFile[filepath.Base(in)]) == 0 || len(byFile) < 2 {
		t.Fatalf("extended archive: partitioned versions by file %v", byFile)
	}
	for f, ls := range byFile {
		for _, l := range ls {
			if l != 1 {
				t.Errorf("%s: stored level %d, want 1 (the URLs' history was archived at level 1)", f, l)
			}
		}
	}
}
