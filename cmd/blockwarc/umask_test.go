//go:build unix

package main

import (
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestArchiveHonoursUmask: under a group-writable umask (002, a shared
// collection) every file and directory of a new archive — packs,
// indexes, parity, COMMIT, the shard manifest, the tables — is
// group-writable, as files made by os.Create are; under 022 none is.
// Archive files once had a fixed 0644 that ignored the umask.
func TestArchiveHonoursUmask(t *testing.T) {
	in := filepath.Join(sharedtest.Interop(t), "pywb--iana.warc.gz")
	for _, tc := range []struct {
		umask int
		group bool
	}{{0o002, true}, {0o022, false}} {
		arch := filepath.Join(t.TempDir(), "a.bwa")
		old := syscall.Umask(tc.umask)
		code, errs := runCLI(t, "ingest", "-shards", "2", arch, in)
		syscall.Umask(old)
		if code != exitOK {
			t.Fatalf("ingest: exit %d: %s", code, errs)
		}
		n := 0
		err := filepath.WalkDir(arch, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			n++
			if got := fi.Mode().Perm()&0o020 != 0; got != tc.group {
				t.Errorf("umask %03o: %s has mode %v, group-writable %v, want %v", tc.umask, p, fi.Mode().Perm(), got, tc.group)
			}
			return nil
		})
		if err != nil || n < 10 {
			t.Fatalf("walk %s: %d entries, %v", arch, n, err)
		}
	}
}
