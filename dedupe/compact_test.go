package dedupe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/dedupe/zlibenc"
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

	// A finished compaction run again finds nothing to do and leaves
	// it as it is (a kill after its last commit is re-run so), and
	// removes the originals a killed one left in the temp directory.
	stale := filepath.Join(opts.TempDir, compactPrefix+"1")
	if err := os.Mkdir(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	st, err := Compact(context.Background(), crawls, compacted, opts)
	if err != nil || st.Files != 0 || st.FilesSkipped != len(files) {
		t.Errorf("compaction run again: %+v, %v", st, err)
	}
	if ents, _ := os.ReadDir(opts.TempDir); len(ents) != 0 {
		t.Errorf("compaction run again left %d entries in its temporary directory", len(ents))
	}
	sameFiles(t, "compacted, run again", sharedtest.ArchiveFiles(t, compacted), got)
	// A complete archive of other files, or of the same files written a
	// crawl at a time, is not written over, nor the source itself.
	fewer := filepath.Join(dir, "fewer.bwa")
	if _, err := Ingest(context.Background(), fewer, files[:2], opts); err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(dir, "copied.bwa")
	sharedtest.CopyDir(t, crawls, copied)
	for _, into := range []string{fewer, copied} {
		if _, err := Compact(context.Background(), crawls, into, opts); err == nil || !strings.Contains(err.Error(), "archive already") {
			t.Errorf("compaction into the complete archive %s: %v", filepath.Base(into), err)
		}
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

// TestCompactStreams: files the archive gives back only decompressed
// (ingested without the proof, or a gzip file with a byte after its
// last member) are compacted as their streams: the copy is byte for byte
// one ingest of the files themselves (with the proof or without, its
// rows say what the source's said), a killed copy completes to the same
// bytes, and prove then proves the copy from the originals.
func TestCompactStreams(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "samples", "*.warc.gz"))
	if len(files) < 6 {
		t.Fatalf("want the sample dumps, found %d", len(files))
	}
	dir := t.TempDir()
	// The inputs in one directory, in path order: the order one ingest
	// of them takes.
	var inputs []string
	for _, f := range files[:6] {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.Base(f))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, p)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	// A trailing byte that is no gzip member: the file does not restore
	// as given, proven or not.
	odd := filepath.Join(dir, "zz-odd.warc.gz")
	if err := os.WriteFile(odd, append(b, 'x'), 0o644); err != nil {
		t.Fatal(err)
	}
	inputs = append(inputs, odd)
	files = inputs[:6]
	crawls, dense := filepath.Join(dir, "crawls.bwa"), filepath.Join(dir, "dense.bwa")
	opts := Options{CommitBytes: 256 << 10, TempDir: t.TempDir(), SkipOriginal: true}
	for _, f := range inputs {
		if _, err := Ingest(context.Background(), crawls, []string{f}, opts); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Ingest(context.Background(), dense, inputs, opts); err != nil {
		t.Fatal(err)
	}
	want := sharedtest.ArchiveFiles(t, dense)
	for _, proof := range []bool{false, true} {
		copyOpts := opts
		copyOpts.SkipOriginal = !proof
		out := filepath.Join(dir, fmt.Sprintf("compact-%v.bwa", proof))
		if _, err := Compact(context.Background(), crawls, out, copyOpts); err != nil {
			t.Fatalf("compact (proof %v): %v", proof, err)
		}
		sameFiles(t, fmt.Sprintf("compacted (proof %v) vs one ingest", proof), sharedtest.ArchiveFiles(t, out), want)
	}
	if ents, _ := os.ReadDir(opts.TempDir); len(ents) != 0 {
		t.Errorf("compaction left %d entries in its temporary directory", len(ents))
	}

	// Killed after its first commit, completed by a second run.
	resumed := filepath.Join(dir, "resumed.bwa")
	ctx, cancel := context.WithCancel(context.Background())
	iopts := opts
	commits := 0
	iopts.Progress = func(st Stats) {
		if st.Commits > commits {
			commits = st.Commits
			cancel()
		}
	}
	if _, err := Compact(ctx, crawls, resumed, iopts); err == nil || commits == 0 {
		t.Fatalf("a compaction cancelled at its first commit (%d): %v", commits, err)
	}
	iopts.Progress = nil
	if _, err := Compact(context.Background(), crawls, resumed, iopts); err != nil {
		t.Fatalf("resume: %v", err)
	}
	sameFiles(t, "resumed vs one ingest", sharedtest.ArchiveFiles(t, resumed), want)

	if !zlibenc.Available {
		return
	}
	// The copy's rows are the files': prove finds and proves them.
	out := filepath.Join(dir, "compact-false.bwa")
	res, err := Prove(context.Background(), out, inputs, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Proven) != len(files) || len(res.NotExact) != 1 || !strings.HasPrefix(res.NotExact[0], "zz-odd.warc.gz: ") {
		t.Fatalf("prove of the copy: %+v; want the %d samples proven and zz-odd.warc.gz not exact", res, len(files))
	}
	a, err := Open(out, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	n := 0
	err = a.WalkSources(nil, func(f InputFile, vs []Version) error {
		if !f.OriginalExact() {
			return nil
		}
		var got bytes.Buffer
		if _, err := a.WriteOriginal(&got, f, vs); err != nil {
			return err
		}
		orig, err := os.ReadFile(filepath.Join(dir, f.Name))
		if err != nil {
			return err
		}
		if !bytes.Equal(got.Bytes(), orig) {
			t.Errorf("%s: %d bytes written as given, the original has %d", f.Name, got.Len(), len(orig))
		}
		n++
		return nil
	})
	if err != nil || n != len(files) {
		t.Fatalf("%d of %d originals written back: %v", n, len(files), err)
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

// TestCompactInteropStreams: every interop file (odd and broken ones,
// ARC, bzip2, LZ4, clipped and truncated gzip), ingested without the
// proof in one ingest; its compaction, which copies the compressed files
// as their streams, is the same archive byte for byte.
func TestCompactInteropStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: reads every interop file")
	}
	dir := sharedtest.Interop(t)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var inputs []string
	for _, e := range ents {
		if warcio.IsInputName(e.Name()) {
			inputs = append(inputs, filepath.Join(dir, e.Name()))
		}
	}
	work := t.TempDir()
	arch, out := filepath.Join(work, "a.bwa"), filepath.Join(work, "c.bwa")
	opts := testOpts()
	opts.SkipOriginal, opts.TempDir = true, t.TempDir()
	if _, err := Ingest(context.Background(), arch, inputs, opts); err != nil {
		t.Logf("ingest: %v", err) // the broken files' errors; the rest is in
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	streams, rows := 0, len(a.Files())
	for _, f := range a.Files() {
		if !f.OriginalExact() && streamRestorable(&f) {
			streams++
		}
	}
	a.Close()
	if streams < 10 {
		t.Fatalf("%d of %d files copied as their streams: the test copies too few", streams, rows)
	}
	if _, err := Compact(context.Background(), arch, out, opts); err != nil {
		t.Fatal(err)
	}
	sameFiles(t, "compacted vs ingested", sharedtest.ArchiveFiles(t, out), sharedtest.ArchiveFiles(t, arch))
	t.Logf("%d files, %d copied as their streams", rows, streams)
}

// TestRestoredStreamsSelected: a shard's ingest of restored streams (a
// sharded upgrade: every shard reads every file, keeps its keys) places
// only its records, and still describes each file as it was ingested.
func TestRestoredStreamsSelected(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "samples", "*.warc.gz"))
	files = files[:3]
	dir := t.TempDir()
	src := filepath.Join(dir, "a.bwa")
	opts := Options{TempDir: t.TempDir(), SkipOriginal: true}
	if _, err := Ingest(context.Background(), src, files, opts); err != nil {
		t.Fatal(err)
	}
	a, err := Open(src, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ro := opts
	paths, err := a.restoreInputs(context.Background(), t.TempDir(), &ro, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(ro.restored) != len(files) {
		t.Fatalf("%d of %d files restored as streams", len(ro.restored), len(files))
	}
	var kept atomic.Int64 // Select is called by the walk's readers at once
	ro.Select = func(key string) bool {
		if strings.Contains(key, "privacy") {
			kept.Add(1)
			return true
		}
		return false
	}
	dst := filepath.Join(dir, "shard.bwa")
	if _, err := Ingest(context.Background(), dst, paths, ro); err != nil {
		t.Fatal(err)
	}
	if kept.Load() == 0 {
		t.Fatal("the selection kept no record: the test selects nothing")
	}
	b, err := Open(dst, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for i, f := range b.Files() {
		w := a.Files()[i]
		if f.Name != w.Name || f.Size != w.Size || f.SHA256 != w.SHA256 || f.OriginalWhy != w.OriginalWhy {
			t.Errorf("row %d: %s %d %q, ingested as %s %d %q", i, f.Name, f.Size, f.OriginalReason(), w.Name, w.Size, w.OriginalReason())
		}
	}
}
