package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/dedupe/shard"
)

// TestRepairShardedFileTable: a shard's input-file rows count the
// records of its key range only (and only shard 0 learns the compressed
// originals). Rows rebuilt from the originals for a shard whose
// input-file table part is lost are those ingest wrote, byte for byte
// (the part has its id again), so the archive's rows (Records summed
// over its shards) are too. They counted the whole files' records.
func TestRepairShardedFileTable(t *testing.T) {
	samples := filepath.Join("..", "..", "testdata", "samples")
	inputs := []string{
		filepath.Join(samples, "ota-lovescout24-20220120143355.warc.gz"),
		filepath.Join(samples, "ota-lovescout24-20220125183141.warc.gz"),
	}
	bwa := filepath.Join(t.TempDir(), "a.bwa")
	if code, _, stderr := runCmd(t, append([]string{"ingest", "-shards", "2", "-parity=false", "-tables=false", bwa}, inputs...)...); code != exitOK {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	rows := func() []dedupe.InputFile {
		t.Helper()
		a, _, err := shard.Open(bwa, pack.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		return append([]dedupe.InputFile(nil), a.Files()...)
	}
	want := rows()
	shards, _ := filepath.Glob(filepath.Join(bwa, "shard-*"))
	if len(shards) != 2 || len(want) != 2 {
		t.Fatalf("shards %v, rows %+v", shards, want)
	}
	a, err := dedupe.Open(shards[1], pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	parts := a.FileTableParts()
	if len(parts) != 1 {
		t.Fatalf("%d parts", len(parts))
	}
	wantPart := parts[0]
	file, off, n, err := a.Store().Locate(parts[0])
	a.Close()
	if err != nil {
		t.Fatal(err)
	}
	flipAt(t, filepath.Join(shards[1], file), off+int64(n)/2, 8)
	code, stdout, stderr := runCmd(t, append([]string{"repair", bwa}, inputs...)...)
	if code != exitOK || !strings.Contains(stdout, "rows rebuilt") {
		t.Fatalf("repair with the originals: exit %d: %s %s", code, stdout, stderr)
	}
	a, err = dedupe.Open(shards[1], pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	parts = a.FileTableParts()
	a.Close()
	if len(parts) != 1 || parts[0] != wantPart {
		t.Errorf("input-file table parts of %s after repair: %v, want %v (the rows ingest wrote)", shards[1], parts, wantPart)
	}
	got := rows()
	for i := range want {
		if i >= len(got) || got[i].Name != want[i].Name || got[i].Records != want[i].Records {
			t.Errorf("row %d after repair %+v, want %+v", i, got, want)
			break
		}
	}
}
