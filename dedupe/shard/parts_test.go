package shard

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/gencrawl"
)

// archiveFiles reads every file of an archive directory, by relative
// path.
func archiveFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[rel], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// sameFiles lists how two archives' files differ.
func sameFiles(a, b map[string][]byte) []string {
	var diffs []string
	for name, x := range a {
		if y, ok := b[name]; !ok {
			diffs = append(diffs, name+" missing")
		} else if !bytes.Equal(x, y) {
			diffs = append(diffs, fmt.Sprintf("%s differs (%d bytes, want %d)", name, len(y), len(x)))
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			diffs = append(diffs, name+" extra")
		}
	}
	slices.Sort(diffs)
	return diffs
}

// routed ingests inputs into the sharded archive dir as the Beam
// pipeline does: each file presorted once and its originals learnt
// once (by its presort when it can, else apart), then each shard from
// the parts of its range. A new archive's
// boundaries are cut from the parts' samples; drop, when set, edits the
// parts first.
func routed(t *testing.T, dir string, inputs []string, shards int, opts dedupe.Options, drop func(map[string]dedupe.Part)) {
	t.Helper()
	ctx := context.Background()
	partsDir := t.TempDir()
	parts := map[string]dedupe.Part{}
	originals := map[string][]byte{}
	var all Sample
	for _, f := range inputs {
		p, s, err := Presort(ctx, f, partsDir, opts)
		if err != nil {
			t.Fatal(err)
		}
		parts[f] = p
		all.Merge(s)
		if p.Original == nil { // learnt apart: not gzip, or damaged
			if originals[f], err = dedupe.LearnOriginal(ctx, f); err != nil {
				t.Fatal(err)
			}
		}
	}
	if drop != nil {
		drop(parts)
	}
	m, err := ReadManifest(dir)
	if err != nil {
		if m, err = NewManifest(all.Cut(shards)); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := WriteManifest(dir, m); err != nil {
			t.Fatal(err)
		}
	}
	for i, s := range m.Shards {
		if _, err := IngestParts(ctx, filepath.Join(dir, s.Name), m, i, inputs, parts, originals, opts); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPartsSameShards: ingesting each input once, routed by key
// (Presort, LearnOriginal, IngestParts), writes the archive 'blockwarc
// ingest -shards 2' writes, byte for byte: a new archive (its boundaries
// from the parts' samples), then extended, with inputs big enough
// (≈ 2 × 21 MB, 10 MB of unique text a shard) to fill the chunk table,
// and gzip inputs whose members restore bit-exact (originals learnt
// apart). An ingest that misses one segment of records writes other
// bytes.
func TestPartsSameShards(t *testing.T) {
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
	gz, err := filepath.Glob("../../testdata/samples/*.warc.gz")
	if err != nil || len(gz) < 10 {
		t.Fatalf("sample crawls missing: %v", err)
	}
	batches := [][]string{append([]string{a}, gz[:12]...), append([]string{b}, gz[12:]...)}
	opts := dedupe.Options{MemLimit: 128 << 20}
	cli, pipe := filepath.Join(dir, "cli.bwa"), filepath.Join(dir, "routed.bwa")
	for _, in := range batches {
		if _, err := Ingest(context.Background(), cli, in, 2, opts); err != nil {
			t.Fatal(err)
		}
		routed(t, pipe, in, 2, opts, nil)
		if d := sameFiles(archiveFiles(t, cli), archiveFiles(t, pipe)); len(d) > 0 {
			t.Fatalf("routed ingest of %d files: %d files differ from the CLI's: %q", len(in), len(d), d)
		}
	}
	m, err := ReadManifest(cli)
	if err != nil || len(m.Shards) != 2 {
		t.Fatalf("manifest %+v, %v: want 2 shards", m, err)
	}
	a2, _, err := Open(cli, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	files := a2.Files()
	a2.Close()
	exact := 0
	for _, f := range files {
		if f.OriginalCompressed() {
			exact++
		}
	}
	if exact == 0 {
		t.Fatalf("no input file restores bit-exact compressed: the originals were not exercised")
	}

	// The same first ingest missing one segment of a.warc's records
	// (the sensitivity of the comparison above).
	missing := filepath.Join(dir, "missing.bwa")
	routed(t, missing, batches[0], 2, opts, func(parts map[string]dedupe.Part) {
		p := parts[a]
		if len(p.Segments) < 2 {
			t.Fatalf("%s: %d segments, want several", a, len(p.Segments))
		}
		p.Segments = slices.Clone(p.Segments[1:])
		parts[a] = p
	})
	first := filepath.Join(dir, "first.bwa")
	if _, err := Ingest(context.Background(), first, batches[0], 2, opts); err != nil {
		t.Fatal(err)
	}
	if d := sameFiles(archiveFiles(t, first), archiveFiles(t, missing)); len(d) == 0 {
		t.Fatal("an ingest missing a segment of records wrote the same archive")
	}
	t.Logf("%d of %d input files restore compressed bit-exact", exact, len(files))
}
