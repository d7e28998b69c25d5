package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/gencrawl"
)

// TestIngestChain: -chain, an archive setting as -chunk-table is. An
// archive ingested a crawl at a time by default has frames of chunks
// that extend a chain (recorded bound 4 MiB); with -chain off none does,
// and a later ingest without the flag keeps it off (the recorded
// setting, not the default); -chain given to that archive replaces the
// setting from then on, as -chunk-table does, and its frames chain again.
// Each archive restores every capture. Values that make no sensible
// chain are refused before anything is written.
func TestIngestChain(t *testing.T) {
	root := t.TempDir()
	site := gencrawl.Site(11, 40, 6000)
	crawls := make([]string, 4)
	t0 := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := range crawls {
		crawls[i] = filepath.Join(root, fmt.Sprintf("c%d.warc", i))
		if err := gencrawl.WriteWARC(crawls[i], "http://chain.example", t0.Add(time.Duration(i)*24*time.Hour), site); err != nil {
			t.Fatal(err)
		}
		site = gencrawl.Edit(site, 3, uint64(i+1))
	}
	ingest := func(arch, file string, flags ...string) {
		t.Helper()
		args := append(append([]string{"ingest", "-tables=false", "-parity=false"}, flags...), arch, file)
		if code, _, stderr := runCmd(t, args...); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	stats := func(arch string) (pack.Settings, pack.Stats) {
		t.Helper()
		s, err := pack.Open(arch, pack.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		st, err := s.Stats()
		if err != nil {
			t.Fatal(err)
		}
		return s.Settings(), st
	}
	restores := func(arch string) {
		t.Helper()
		if code, out, stderr := runCmd(t, "verify", arch); code != exitOK {
			t.Fatalf("verify %s: exit %d: %s%s", arch, code, out, stderr)
		}
	}

	def := filepath.Join(root, "default.bwa")
	ingest(def, crawls[0])
	ingest(def, crawls[1])
	ingest(def, crawls[2])
	set, st := stats(def)
	if set.ChainBytes != 4<<20 || st.ChainedFrames == 0 {
		t.Fatalf("default: chain bound %d, %d of %d frames of chunks in a chain; want 4 MiB and some", set.ChainBytes, st.ChainedFrames, st.ChunkFrames)
	}
	restores(def)

	off := filepath.Join(root, "off.bwa")
	ingest(off, crawls[0], "-chain", "off")
	ingest(off, crawls[1], "-chain", "off")
	ingest(off, crawls[2]) // no flag: the archive's setting
	set, st = stats(off)
	if set.ChainBytes >= 0 || st.ChainedFrames != 0 || st.ChunkFrames < 3 {
		t.Fatalf("-chain off, then no flag: chain bound %d, %d of %d frames of chunks in a chain; want none", set.ChainBytes, st.ChainedFrames, st.ChunkFrames)
	}
	restores(off)
	// Given to an existing archive, the setting replaces the recorded one.
	ingest(off, crawls[3], "-chain", "1MiB")
	set, st = stats(off)
	if set.ChainBytes != 1<<20 || st.ChainedFrames == 0 {
		t.Fatalf("-chain 1MiB on the archive of -chain off: chain bound %d, %d of %d frames of chunks in a chain; want 1 MiB and some", set.ChainBytes, st.ChainedFrames, st.ChunkFrames)
	}
	restores(off)

	for _, bad := range []string{"1KiB", "65535", "17MiB", "1TiB", "-1", "on", "none", "4X"} {
		arch := filepath.Join(root, "bad.bwa")
		code, _, stderr := runCmd(t, "ingest", "-tables=false", "-chain", bad, arch, crawls[0])
		if code != exitUsage || !strings.Contains(stderr, "-chain") {
			t.Errorf("-chain %s: exit %d, %q; want a usage error naming -chain", bad, code, stderr)
		}
		if _, err := os.Stat(arch); !os.IsNotExist(err) {
			t.Errorf("-chain %s: %s was created (%v)", bad, arch, err)
		}
	}
	// The bounds themselves, and 0 (the archive's), are taken.
	for _, good := range []string{"64KiB", "16MiB", "0"} {
		arch := filepath.Join(root, "good"+good+".bwa")
		ingest(arch, crawls[0], "-chain", good)
		want := map[string]int{"64KiB": 64 << 10, "16MiB": 16 << 20, "0": 4 << 20}[good]
		if set, _ := stats(arch); set.ChainBytes != want {
			t.Errorf("-chain %s: recorded %d, want %d", good, set.ChainBytes, want)
		}
	}
}
