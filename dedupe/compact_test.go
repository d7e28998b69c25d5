package dedupe

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/warcio"
)

// TestCompactDense: an archive ingested a crawl at a time, compacted, is
// byte for byte the archive one ingest of the same files writes, and
// smaller than the one it was compacted from; the source is untouched,
// a complete archive is not overwritten, and an interrupted compaction
// completes to the same bytes.
func TestCompactDense(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "samples", "*.warc.gz"))
	if len(files) < 8 {
		t.Fatalf("want the sample dumps, found %d", len(files))
	}
	files = files[:8]
	dir := t.TempDir()
	crawls, dense, compacted := filepath.Join(dir, "crawls.bwa"), filepath.Join(dir, "dense.bwa"), filepath.Join(dir, "compact.bwa")
	opts := Options{CommitBytes: 256 << 10, TempDir: t.TempDir()}
	for _, f := range files {
		if _, err := Ingest(context.Background(), crawls, []string{f}, opts); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Ingest(context.Background(), dense, files, opts); err != nil {
		t.Fatal(err)
	}
	before := sharedtest.ArchiveFiles(t, crawls)
	if _, err := Compact(context.Background(), crawls, compacted, opts); err != nil {
		t.Fatal(err)
	}
	want, got := sharedtest.ArchiveFiles(t, dense), sharedtest.ArchiveFiles(t, compacted)
	sameFiles(t, "compacted vs one ingest", got, want)
	sameFiles(t, "source after compaction", sharedtest.ArchiveFiles(t, crawls), before)
	if g, b := total(got), total(before); g >= b {
		t.Errorf("compacted archive %d B, the crawl-at-a-time one %d B: not smaller", g, b)
	}
	t.Logf("crawl at a time %d B, compacted %d B", total(before), total(got))
	if ents, _ := os.ReadDir(opts.TempDir); len(ents) != 0 {
		t.Errorf("compaction left %d entries in its temporary directory", len(ents))
	}

	// A complete archive is not written over, nor the source itself.
	if _, err := Compact(context.Background(), crawls, dense, opts); err == nil || !strings.Contains(err.Error(), "archive already") {
		t.Errorf("compaction into a complete archive: %v", err)
	}
	if _, err := Compact(context.Background(), crawls, crawls, opts); err == nil {
		t.Error("compaction into its own source: no error")
	}

	// Interrupted (the first commit of the copy, then a cancel),
	// completed by a second run: the same bytes.
	resumed := filepath.Join(dir, "resumed.bwa")
	ctx, cancel := context.WithCancel(context.Background())
	iopts := opts
	iopts.CommitBytes = 64 << 10
	commits := 0
	iopts.Progress = func(st Stats) {
		if st.Commits > commits {
			commits = st.Commits
			cancel()
		}
	}
	if _, err := Compact(ctx, crawls, resumed, iopts); err == nil {
		t.Fatal("a cancelled compaction returned no error")
	}
	if commits == 0 {
		t.Fatal("the compaction was cancelled before its first commit: the test resumes nothing")
	}
	iopts.Progress = nil
	if _, err := Compact(context.Background(), crawls, resumed, iopts); err != nil {
		t.Fatalf("resume: %v", err)
	}
	once := filepath.Join(dir, "once.bwa")
	if _, err := Compact(context.Background(), crawls, once, iopts); err != nil {
		t.Fatal(err)
	}
	sameFiles(t, "resumed vs one pass", sharedtest.ArchiveFiles(t, resumed), sharedtest.ArchiveFiles(t, once))
}

// TestCompactRefusesInexact: an input the archive cannot give back as
// given stops the compaction before anything is written.
func TestCompactRefusesInexact(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "testdata", "samples", "ota-lovescout24-20220120143355.warc.gz")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	// A trailing byte that is no gzip member: kept as a gap, but the
	// file is not rebuilt as given.
	odd := filepath.Join(dir, "odd.warc.gz")
	if err := os.WriteFile(odd, append(b, 'x'), 0o644); err != nil {
		t.Fatal(err)
	}
	arch := filepath.Join(dir, "a.bwa")
	if _, err := Ingest(context.Background(), arch, []string{odd}, Options{}); err != nil {
		t.Fatal(err)
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	exact := a.Files()[0].OriginalExact()
	a.Close()
	if exact {
		t.Skip("this build restores the odd file as given; nothing to refuse")
	}
	out := filepath.Join(dir, "c.bwa")
	if _, err := Compact(context.Background(), arch, out, Options{TempDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "odd.warc.gz") {
		t.Fatalf("compaction of an archive with an inexact input: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused compaction wrote its output")
	}
}

func sameFiles(t *testing.T, what string, got, want map[string][]byte) {
	t.Helper()
	for name, b := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("%s: %s missing", what, name)
		} else if !bytes.Equal(g, b) {
			t.Errorf("%s: %s differs (%d vs %d B)", what, name, len(g), len(b))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: %s extra", what, name)
		}
	}
}

func total(fs map[string][]byte) (n int) {
	for _, b := range fs {
		n += len(b)
	}
	return n
}

// TestCompactRemovesKilledTemp: a compaction killed (kill -9) left its
// restored originals, the collection's size, in -tmp; the next
// compaction removes them (and what one killed while making its
// directory left), but never a live compaction's.
func TestCompactRemovesKilledTemp(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	src := filepath.Join("..", "testdata", "samples", "ota-lovescout24-20220120143355.warc.gz")
	arch := filepath.Join(dir, "a.bwa")
	opts := Options{TempDir: tmp}
	if _, err := Ingest(context.Background(), arch, []string{src}, opts); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(tmp, compactPrefix+"123")
	if err := os.MkdirAll(filepath.Join(stale, "000000000"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stale, "000000000", "x.warc.gz"), []byte("restored"), 0o600); err != nil {
		t.Fatal(err)
	}
	hidden := filepath.Join(tmp, "."+compactPrefix+"456")
	if err := os.Mkdir(hidden, 0o700); err != nil {
		t.Fatal(err)
	}
	live, release, err := warcio.MakeLockedTemp(tmp, compactPrefix)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, err := Compact(context.Background(), arch, filepath.Join(dir, "c.bwa"), opts); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{stale, hidden} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a killed compaction's %s is still there (%v)", filepath.Base(p), err)
		}
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live compaction's directory was removed: %v", err)
	}
}
