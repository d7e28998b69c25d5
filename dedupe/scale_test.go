package dedupe

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/internal/testhooks"
	"github.com/blockwarc/blockwarc/internal/gencrawl"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// archiveFiles reads an archive's files (sharedtest.ArchiveFiles).
func archiveFiles(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	return sharedtest.ArchiveFiles(t, dir)
}

func dirBytes(files map[string][]byte) (n int64) {
	for _, b := range files {
		n += int64(len(b))
	}
	return n
}

// mirrorDumps writes two dumps of the same pages, the second under
// another host and paths (a mirror, a site moved), big enough (≈ 11 MB
// of unique text) that their chunks outgrow the chunk table and the seed
// that 64 MiB of memory gave before tables were archive settings.
func mirrorDumps(t testing.TB, dir string, pages int) (a, b string) {
	t.Helper()
	site := gencrawl.Site(31, pages, 7000)
	moved := make([]gencrawl.Page, len(site))
	for i, p := range site {
		moved[i] = gencrawl.Page{Path: "/moved" + p.Path, Body: p.Body}
	}
	a, b = filepath.Join(dir, "a.warc"), filepath.Join(dir, "b.warc")
	t0 := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	if err := gencrawl.WriteWARC(a, "http://a.example", t0, site); err != nil {
		t.Fatal(err)
	}
	if err := gencrawl.WriteWARC(b, "http://b.example", t0.Add(30*24*time.Hour), moved); err != nil {
		t.Fatal(err)
	}
	return a, b
}

// TestMemSameArchive: two successive ingests whose chunks fill what a
// small -mem used to give the tables, at -mem 64MiB and 1GiB, write the
// same archive byte for byte (the tables are the archive's settings,
// not the budget's: before, 64 MiB gave a smaller table and seed, and the
// second ingest stored the first one's bodies again). And the second
// dump, the first's bodies under other URLs, costs next to nothing: its
// payloads are found through the digest tables.
func TestMemSameArchive(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests 2 × 11 MB twice; -short")
	}
	dir := t.TempDir()
	a, b := mirrorDumps(t, dir, 1600)
	var first map[string][]byte
	for _, mem := range []int64{64 << 20, 1 << 30} {
		arch := filepath.Join(dir, "mem"+formatSize(mem)+".bwa")
		opts := Options{MemLimit: mem}
		if _, err := Ingest(context.Background(), arch, []string{a}, opts); err != nil {
			t.Fatal(err)
		}
		afterA := dirBytes(archiveFiles(t, arch))
		if _, err := Ingest(context.Background(), arch, []string{b}, opts); err != nil {
			t.Fatal(err)
		}
		files := archiveFiles(t, arch)
		grew := dirBytes(files) - afterA
		t.Logf("-mem %s: %d bytes after the first dump, +%d for the mirror", formatSize(mem), afterA, grew)
		if grew*10 > afterA {
			t.Errorf("-mem %s: the mirror's dump added %d bytes to %d: its bodies were stored again", formatSize(mem), grew, afterA)
		}
		if first == nil {
			first = files
			continue
		}
		if len(files) != len(first) {
			t.Fatalf("-mem %s wrote %d files, -mem 64MiB %d", formatSize(mem), len(files), len(first))
		}
		for name, b := range first {
			if !bytes.Equal(files[name], b) {
				t.Errorf("-mem %s: %s (%d bytes) differs from -mem 64MiB's (%d bytes)", formatSize(mem), name, len(files[name]), len(b))
			}
		}
	}
}

func formatSize(n int64) string {
	switch {
	case n >= 1<<30:
		return itoa(n>>30) + "GiB"
	default:
		return itoa(n>>20) + "MiB"
	}
}

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestDigestAtDistance: the same payloads under new URLs, in a later
// ingest, after more bytes than the chunk table's seed holds (a small
// seed, an archive setting, stands in for the terabytes between them),
// cost no payload bytes: they are found through the digest tables.
// Without them (DigestMin -1) they are stored again.
func TestDigestAtDistance(t *testing.T) {
	dir := t.TempDir()
	files := gencrawl.Binary(5, 12, 48<<10) // 576 KiB that do not compress
	filler := gencrawl.Site(9, 1200, 7000)  // 8 MB of pages after them
	moved := make([]gencrawl.Page, len(files))
	for i, p := range files {
		moved[i] = gencrawl.Page{Path: "/mirror" + p.Path, Body: p.Body, Type: p.Type}
	}
	t0 := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	a, f, b := filepath.Join(dir, "a.warc"), filepath.Join(dir, "f.warc"), filepath.Join(dir, "b.warc")
	for _, w := range []struct {
		path, host string
		pages      []gencrawl.Page
	}{{a, "http://a.example", files}, {f, "http://f.example", filler}, {b, "http://z.example", moved}} {
		if err := gencrawl.WriteWARC(w.path, w.host, t0, w.pages); err != nil {
			t.Fatal(err)
		}
	}
	for _, digests := range []bool{true, false} {
		arch := filepath.Join(dir, fmt.Sprint("d", digests, ".bwa"))
		opts := Options{MemLimit: 64 << 20}
		opts.Pack.SetTestHooks(testhooks.Pack{SeedBytes: 256 << 10})
		opts.Pack.ChunkTable = 16 << 10
		if !digests {
			opts.Pack.DigestMin = -1
		}
		if _, err := Ingest(context.Background(), arch, []string{a, f}, opts); err != nil {
			t.Fatal(err)
		}
		before := dirBytes(archiveFiles(t, arch))
		st, err := Ingest(context.Background(), arch, []string{b}, opts)
		if err != nil {
			t.Fatal(err)
		}
		grew := dirBytes(archiveFiles(t, arch)) - before
		t.Logf("digests %v: the moved files added %d bytes (%d digest hits, %+v)", digests, grew, st.DigestHits, st)
		switch {
		case digests && (grew > 32<<10 || st.DigestHits != int64(len(files))):
			t.Errorf("with digests, %d payloads of 48 KiB under new URLs added %d bytes, %d found", len(files), grew, st.DigestHits)
		case !digests && grew < 12*40<<10:
			t.Errorf("without digests the moved files added only %d bytes: the test no longer reaches past the tables", grew)
		}
	}
}
