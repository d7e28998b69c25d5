package dedupe

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// sameArchive reports how the files of got differ from want's.
func sameArchive(t *testing.T, got, want string) {
	t.Helper()
	g, w := sharedtest.ArchiveFiles(t, got), sharedtest.ArchiveFiles(t, want)
	var names []string
	for n := range w {
		names = append(names, n)
	}
	for n := range g {
		if _, ok := w[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		gb, gok := g[n]
		wb, wok := w[n]
		switch {
		case !gok:
			t.Errorf("%s: missing (one-pass has %d bytes)", n, len(wb))
		case !wok:
			t.Errorf("%s: %d bytes, not in the one-pass archive", n, len(gb))
		case !bytes.Equal(gb, wb):
			t.Errorf("%s: %d bytes, differ from the one-pass archive's %d", n, len(gb), len(wb))
		}
	}
}

// TestResumeOnePass interrupts an ingest after every number of URLs in
// turn (a commit after every URL), runs it again, and wants the archive
// bytes of one uninterrupted ingest, with one worker and with several.
func TestResumeOnePass(t *testing.T) {
	in := filepath.Join("..", "testdata", "samples")
	for _, workers := range []int{1, 3} {
		opts := Options{CommitBytes: 1, Workers: workers, Pack: pack.Options{FrameSize: 16 << 10}}
		ref := filepath.Join(t.TempDir(), "ref.bwa")
		st, err := Ingest(context.Background(), ref, []string{in}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if st.Commits < 4 {
			t.Fatalf("%d commits: too few to interrupt between", st.Commits)
		}
		urls := 0
		o := opts
		o.Progress = func(Stats) { urls++ }
		if _, err := Ingest(context.Background(), filepath.Join(t.TempDir(), "count.bwa"), []string{in}, o); err != nil {
			t.Fatal(err)
		}
		for stop := 1; stop < urls; stop++ {
			arch := filepath.Join(t.TempDir(), "a.bwa")
			ctx, cancel := context.WithCancel(context.Background())
			o := opts
			n := 0
			o.Progress = func(Stats) {
				if n++; n == stop {
					cancel()
				}
			}
			if _, err := Ingest(ctx, arch, []string{in}, o); !errors.Is(err, context.Canceled) {
				t.Fatalf("workers %d, stop after %d URLs: %v, want canceled", workers, stop, err)
			}
			cancel()
			st, err := Ingest(context.Background(), arch, []string{in}, opts)
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			if st.Repeats == 0 {
				t.Errorf("workers %d, stop after %d URLs: resumed ingest skipped no record", workers, stop)
			}
			sameArchive(t, arch, ref)
			if t.Failed() {
				t.Fatalf("workers %d: interrupted after %d of %d URLs", workers, stop, urls)
			}
		}
	}
}

// TestResumeOtherInputs interrupts an ingest and runs it again with fewer
// files: the walk differs from the one committed, so the re-run adds its
// files as a new run; then the whole set completes, every record once.
func TestResumeOtherInputs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "samples", "*.warc.gz"))
	if err != nil || len(files) < 4 {
		t.Fatalf("samples: %v", files)
	}
	arch := filepath.Join(t.TempDir(), "a.bwa")
	ctx, cancel := context.WithCancel(context.Background())
	opts := Options{CommitBytes: 1}
	o := opts
	n := 0
	o.Progress = func(st Stats) {
		if n++; n == 3 {
			cancel()
		}
	}
	if _, err := Ingest(ctx, arch, files, o); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted ingest: %v", err)
	}
	cancel()
	if _, err := Ingest(context.Background(), arch, files[1:], opts); err != nil {
		t.Fatalf("re-run with other inputs: %v", err)
	}
	if a, err := Open(arch, pack.Options{}); err != nil {
		t.Fatal(err)
	} else {
		if len(a.root.Runs) != 2 || a.root.Open != nil {
			t.Errorf("after the re-run: %d runs (open ingest %v), want the interrupted run and a new one, closed", len(a.root.Runs), a.root.Open)
		}
		a.Close()
	}
	st, err := Ingest(context.Background(), arch, files, opts)
	if err != nil {
		t.Fatal(err)
	}
	if st.Files != 1 {
		t.Errorf("last ingest took %d files, want the one left out", st.Files)
	}
	ref := filepath.Join(t.TempDir(), "ref.bwa")
	if _, err := Ingest(context.Background(), ref, files, opts); err != nil {
		t.Fatal(err)
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ra, err := Open(ref, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ra.Close()
	if got, want := catalogOf(t, a), catalogOf(t, ra); !slices.Equal(got, want) {
		t.Errorf("catalog has %d versions, one ingest of the files %d (or they differ)", len(got), len(want))
	}
	checkRoundTrip(t, a)
	if _, err := a.Verify(func(p Problem) { t.Errorf("verify: %v", p) }); err != nil {
		t.Error(err)
	}
}

// TestReadOpenIngest opens testdata/v7.bwa, v6.bwa's two ingests and a
// third killed after its second commit (testdata/README.md): it reads,
// restores and verifies at that commit, and running the third ingest
// again completes it into a version 6 root, without storing again what
// was committed.
func TestReadOpenIngest(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	arch := filepath.Join(t.TempDir(), "v7.bwa")
	if err := os.CopyFS(arch, os.DirFS(filepath.Join("testdata", "v7.bwa"))); err != nil {
		t.Fatal(err)
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := catalogVersionOf(t, a); got != 7 || a.root.Open == nil || a.root.Open.Run != 2 {
		t.Fatalf("catalog version %d, open ingest %+v: want version 7, run 2", got, a.root.Open)
	}
	if fs := a.Files(); len(fs) != 3 {
		t.Errorf("input files %+v, want the 3 of the finished ingests", fs)
	}
	committed := restoreAll(t, a, root, func(*Version) {})
	if committed <= 24 || committed >= 32 {
		t.Errorf("%d records restore, want the 24 of the finished ingests and some of the third's 8", committed)
	}
	if vs, err := a.Verify(func(p Problem) { t.Errorf("verify: %v", p) }); err != nil || vs.Records != int64(committed) {
		t.Errorf("verify: %+v, %v", vs, err)
	}
	a.Close()

	// The catalog names inputs by repository-relative paths.
	t.Chdir(root)
	st, err := Ingest(context.Background(), arch, []string{"testdata/samples/ota-lovescout24-20220425123217.warc.gz"}, Options{CommitBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	if st.Repeats != int64(committed-24) || st.Records != 8 {
		t.Errorf("resumed ingest: %d records, %d skipped as committed; want 8 and %d", st.Records, st.Repeats, committed-24)
	}
	a, err = Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if got := catalogVersionOf(t, a); got != catalogVersion || a.root.Open != nil || len(a.root.Runs) != 3 {
		t.Errorf("after the resumed ingest: catalog version %d, %d runs, open ingest %+v; want version %d, 3 runs, none open",
			got, len(a.root.Runs), a.root.Open, catalogVersion)
	}
	if n := restoreAll(t, a, root, func(*Version) {}); n != 32 {
		t.Errorf("%d records restore after the resumed ingest, want 32", n)
	}
	// The resumed run was begun under a version 7 root: its dates stay
	// unknown (what it held before is not read again), as the two
	// before it; Find answers as the exhaustive Find.
	checkFindOld(t, a, 3)
}
