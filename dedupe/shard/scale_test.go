package shard

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/internal/gencrawl"
)

// TestWorkersSameShards: a sharded ingest writes the same shards at 1
// and 2 workers, with two successive ingests big enough (≈ 2 × 21 MB,
// 10 MB of unique text a shard) that the chunk table and seed a shard's
// share of memory gave, before tables were archive settings, differed
// between the two (128 MiB for one shard at a time, 64 MiB each for two
// at once).
func TestWorkersSameShards(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests 2 × 21 MB twice; -short")
	}
	dir := t.TempDir()
	site := gencrawl.Site(47, 3000, 7000)
	moved := make([]gencrawl.Page, len(site))
	for i, p := range site {
		moved[i] = gencrawl.Page{Path: "/moved" + p.Path, Body: p.Body}
	}
	a, b := filepath.Join(dir, "a.warc"), filepath.Join(dir, "b.warc")
	t0 := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	if err := gencrawl.WriteWARC(a, "http://a.example", t0, site); err != nil {
		t.Fatal(err)
	}
	if err := gencrawl.WriteWARC(b, "http://b.example", t0.Add(24*time.Hour), moved); err != nil {
		t.Fatal(err)
	}
	var first map[string][]byte
	for _, workers := range []int{1, 2} {
		arch := filepath.Join(dir, fmt.Sprintf("w%d.bwa", workers))
		opts := dedupe.Options{MemLimit: 128 << 20, Workers: workers}
		for _, in := range []string{a, b} {
			if _, err := Ingest(context.Background(), arch, []string{in}, 2, opts); err != nil {
				t.Fatal(err)
			}
		}
		files := map[string][]byte{}
		err := filepath.WalkDir(arch, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(arch, p)
			files[rel], err = os.ReadFile(p)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = files
			continue
		}
		if len(files) != len(first) {
			t.Fatalf("%d workers wrote %d files, 1 worker %d", workers, len(files), len(first))
		}
		for name, b := range first {
			if !bytes.Equal(files[name], b) {
				t.Errorf("%d workers: %s (%d bytes) differs from 1 worker's (%d bytes)", workers, name, len(files[name]), len(b))
			}
		}
	}
}
