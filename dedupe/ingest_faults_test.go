package dedupe

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/internal/testhooks"
	"github.com/blockwarc/blockwarc/dedupe/pack"
)

// checkAtCommit opens the archive in dir and wants it to verify clean.
func checkAtCommit(t *testing.T, dir string) {
	t.Helper()
	a, err := Open(dir, pack.Options{})
	if err != nil {
		t.Fatalf("open after the failure: %v", err)
	}
	defer a.Close()
	if _, err := a.Verify(func(p Problem) { t.Errorf("verify after the failure: %v", p) }); err != nil {
		t.Errorf("verify after the failure: %v", err)
	}
}

// TestIngestFaults fails one file operation of an ingest's commits (a
// full disk, EIO on fsync or rename, of a pack, an index, a parity
// sidecar or the commit, through the Faults hook of pack.Options.SetTestHooks): the
// ingest must fail with the system's error naming the file, the archive
// verify at its last commit, and running the ingest again give the bytes
// of an ingest that never failed.
func TestIngestFaults(t *testing.T) {
	in := []string{filepath.Join("..", "testdata", "samples")}
	opts := Options{CommitBytes: 1, Pack: pack.Options{FrameSize: 16 << 10}}
	ref := filepath.Join(t.TempDir(), "ref.bwa")
	if _, err := Ingest(context.Background(), ref, in, opts); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		op, sfx string // the operation and the end of the file's path
		nth     int    // fail the nth such operation
		errno   syscall.Errno
	}{
		{"disk full writing a pack", "write", ".pack", 3, syscall.ENOSPC},
		{"disk full writing the commit", "write", "COMMIT.tmp", 4, syscall.ENOSPC},
		{"EIO syncing a pack", "sync", ".pack", 2, syscall.EIO},
		{"EIO syncing the commit", "sync", "COMMIT.tmp", 5, syscall.EIO},
		{"EIO renaming the commit", "rename", "COMMIT", 3, syscall.EIO},
		{"EIO renaming the commit's copy", "rename", "COMMIT.copy", 3, syscall.EIO},
		{"disk full writing an index", "write", ".idx", 3, syscall.ENOSPC},
		{"EIO syncing an index", "sync", ".idx", 2, syscall.EIO},
		{"EIO syncing a merged index", "sync", ".idx", 5, syscall.EIO},
		{"disk full writing a pack's parity", "write", ".pack.par", 1, syscall.ENOSPC},
		{"disk full writing an index's parity", "write", ".idx.par", 3, syscall.ENOSPC},
		{"EIO syncing parity", "sync", ".par", 4, syscall.EIO},
		{"EIO syncing coalesced parity", "sync", ".par.next", 2, syscall.EIO},
	} {
		t.Run(tc.name, func(t *testing.T) {
			arch := filepath.Join(t.TempDir(), "a.bwa")
			o := opts
			n := 0
			var failed string
			o.Pack.SetTestHooks(testhooks.Pack{Faults: func(op, path string) error {
				if op == tc.op && strings.HasSuffix(path, tc.sfx) {
					if n++; n == tc.nth {
						failed = path
						return tc.errno
					}
				}
				return nil
			}})
			_, err := Ingest(context.Background(), arch, in, o)
			if failed == "" {
				t.Fatalf("the fault was never reached (%d %s of %s): %v", n, tc.op, tc.sfx, err)
			}
			if !errors.Is(err, tc.errno) || !strings.Contains(err.Error(), failed) {
				t.Fatalf("ingest error %v, want %v naming %s", err, tc.errno, failed)
			}
			checkAtCommit(t, arch)
			if _, err := Ingest(context.Background(), arch, in, opts); err != nil {
				t.Fatalf("re-run: %v", err)
			}
			sameArchive(t, arch, ref)
		})
	}
}

// TestIngestReadOnly runs an ingest into an archive whose directory is
// read-only (chmod; as root, where chmod denies nothing, a read-only bind
// mount): a clear error naming a file of the archive, the archive as it
// was, and once writable again the ingest completes.
func TestIngestReadOnly(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "samples", "*.warc.gz"))
	if err != nil || len(files) < 2 {
		t.Fatalf("samples: %v", files)
	}
	arch := filepath.Join(t.TempDir(), "a.bwa")
	opts := Options{CommitBytes: 1}
	if _, err := Ingest(context.Background(), arch, files[:1], opts); err != nil {
		t.Fatal(err)
	}
	writable := readOnly(t, arch)
	_, err = Ingest(context.Background(), arch, files, opts)
	if !errors.Is(err, syscall.EACCES) && !errors.Is(err, syscall.EROFS) || !strings.Contains(err.Error(), arch) {
		t.Fatalf("ingest into a read-only archive: %v, want permission denied or read-only file system naming a file of %s", err, arch)
	}
	t.Logf("read-only: %v", err)
	checkAtCommit(t, arch)
	writable()
	st, err := Ingest(context.Background(), arch, files, opts)
	if err != nil {
		t.Fatalf("once writable: %v", err)
	}
	if st.Files != len(files)-1 {
		t.Errorf("once writable: %d files ingested, want %d", st.Files, len(files)-1)
	}
	checkAtCommit(t, arch)
}

// readOnly makes dir read-only and returns the function that undoes it.
func readOnly(t *testing.T, dir string) func() {
	t.Helper()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(dir, "probe")
	f, err := os.Create(probe)
	if err != nil {
		return func() { os.Chmod(dir, 0o755) }
	}
	// Root: chmod denies nothing.
	f.Close()
	os.Remove(probe)
	os.Chmod(dir, 0o755)
	if err := syscall.Mount(dir, dir, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("running as root, where chmod does not deny, and a read-only bind mount is not allowed here: %v", err)
	}
	undo := func() { syscall.Unmount(dir, 0) }
	if err := syscall.Mount("", dir, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		undo()
		t.Skipf("running as root, where chmod does not deny, and a read-only bind mount is not allowed here: %v", err)
	}
	var once bool
	t.Cleanup(func() {
		if !once {
			undo()
		}
	})
	return func() { once = true; undo() }
}

// TestIngestInputVanishes removes an input file while the ingest is
// reading its inputs: the error names the file, the archive verifies,
// and once the file is back the ingest gives the bytes of an ingest
// that never failed.
func TestIngestInputVanishes(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "samples", "*.warc.gz"))
	if err != nil || len(files) < 4 {
		t.Fatalf("samples: %v", files)
	}
	dir := t.TempDir()
	var in []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.Base(f))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		in = append(in, p)
	}
	slices.Sort(in)
	last := in[len(in)-1]
	saved, _ := os.ReadFile(last)
	opts := Options{CommitBytes: 1}
	ref := filepath.Join(t.TempDir(), "ref.bwa")
	if _, err := Ingest(context.Background(), ref, in, opts); err != nil {
		t.Fatal(err)
	}

	arch := filepath.Join(t.TempDir(), "a.bwa")
	o := opts
	o.InputProgress = func(int64) { os.Remove(last) }
	_, err = Ingest(context.Background(), arch, in, o)
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), last) {
		t.Fatalf("ingest with %s removed: %v, want an error naming it", last, err)
	}
	checkAtCommit(t, arch)
	if err := os.WriteFile(last, saved, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Ingest(context.Background(), arch, in, opts); err != nil {
		t.Fatalf("re-run: %v", err)
	}
	sameArchive(t, arch, ref)
}
