package dedupe

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"blockwarc/dedupe/pack"
)

// archiveFiles reads every file under dir but the lock file, by path
// relative to dir.
func archiveFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "LOCK" {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameArchive reports how the files of got differ from want's.
func sameArchive(t *testing.T, got, want string) {
	t.Helper()
	g, w := archiveFiles(t, got), archiveFiles(t, want)
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
