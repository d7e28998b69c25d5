package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/gencrawl"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestRecommitKeepsSettings: an archive ingested with its own settings
// (-chunk-table, -digest-min) loses COMMIT and COMMIT.copy; repair
// rebuilds the commit with those settings (docs/FORMAT.md "Settings
// object"), and the next ingest writes the same pack bytes as on the
// undamaged archive. The chunk table is small enough to bite on these
// captures: the same ingest under the default settings writes other
// bytes (checked, so the test sees the settings): the ingest must be
// large enough for that, the lovescout24 samples are not.
func TestRecommitKeepsSettings(t *testing.T) {
	root := t.TempDir()
	// A site, then the same bodies under other URLs: found again only
	// through the chunk table (digest rows off), which the seed of a
	// table of 256 entries (64 chunks) does not hold.
	site := gencrawl.Site(5, 300, 7000)
	moved := make([]gencrawl.Page, len(site))
	for i, p := range site {
		moved[i] = gencrawl.Page{Path: "/moved" + p.Path, Body: p.Body}
	}
	first, second := filepath.Join(root, "a.warc"), filepath.Join(root, "b.warc")
	t0 := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	if err := gencrawl.WriteWARC(first, "http://a.example", t0, site); err != nil {
		t.Fatal(err)
	}
	if err := gencrawl.WriteWARC(second, "http://b.example", t0.Add(time.Hour), moved); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(root, "src.bwa")
	args := []string{"ingest", "-tables=false", "-chunk-table", "256", "-digest-min", "off", src, first}
	if code, _, stderr := runCmd(t, args...); code != exitOK {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	settings := func(dir string) pack.Settings {
		s, err := pack.Open(dir, pack.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		return s.Settings()
	}
	want := settings(src)
	if want.ChunkTable != 256 || want.DigestMin >= 0 {
		t.Fatalf("settings of the ingest: %+v", want)
	}
	lost := filepath.Join(root, "lost.bwa")
	sharedtest.CopyDir(t, src, lost)
	for _, n := range []string{"COMMIT", "COMMIT.copy"} {
		if err := os.Remove(filepath.Join(lost, n)); err != nil {
			t.Fatal(err)
		}
	}
	if code, out, stderr := runCmd(t, "repair", lost); code != exitOK {
		t.Fatalf("repair exit %d: %s%s", code, out, stderr)
	}
	if got := settings(lost); got != want {
		t.Fatalf("settings after the commit was rebuilt: %+v, want %+v", got, want)
	}
	defaults := filepath.Join(root, "defaults.bwa")
	sharedtest.CopyDir(t, src, defaults)
	packs := func(dir string, flags ...string) []byte {
		args := append(append([]string{"ingest", "-tables=false"}, flags...), dir)
		if code, _, stderr := runCmd(t, append(args, second)...); code != exitOK {
			t.Fatalf("ingest into %s exit %d: %s", dir, code, stderr)
		}
		names, _ := filepath.Glob(filepath.Join(dir, "*.pack"))
		var all []byte
		for _, n := range names {
			b, _ := os.ReadFile(n)
			all = append(all, b...)
		}
		return all
	}
	a, b := packs(src), packs(lost)
	if !bytes.Equal(a, b) {
		t.Fatalf("the next ingest wrote other pack bytes after the rebuild (%d against %d)", len(b), len(a))
	}
	// Under the default settings the same ingest finds the moved bodies
	// (more than the settings object's few bytes apart: 1.38 MB against
	// 0.71 MB when measured), so the bytes compared above decide.
	if c := packs(defaults, "-chunk-table", "1048576", "-digest-min", "off"); len(c)*10 > len(a)*9 {
		t.Fatalf("the next ingest under the default settings wrote %d pack bytes, with the archive's %d: the test does not see the chunk table", len(c), len(a))
	}
}
