//go:build unix

package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOutputsRespectUmask: what the CLI writes (an index, tables, a
// report, an export) gets the mode the user's umask gives, neither the
// 0600 of a temporary file nor a fixed 0644.
func TestOutputsRespectUmask(t *testing.T) {
	files := sampleFiles(t)[:2]
	dir := t.TempDir()
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	arch := filepath.Join(dir, "a.bwa")
	steps := [][]string{
		append([]string{"index", "-o", filepath.Join(dir, "i.cdxj")}, files...),
		append([]string{"ingest", arch}, files...),
		{"report", "-html", filepath.Join(dir, "r.html"), arch},
		{"export-warc", "-o", filepath.Join(dir, "e.warc.gz"), arch},
	}
	for _, args := range steps {
		if code, _, stderr := runCmd(t, args...); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args[0], code, stderr)
		}
	}
	for _, f := range []string{"i.cdxj", "r.html", "e.warc.gz"} {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o640 {
			t.Errorf("%s: mode %v, want 0640 under umask 027", f, fi.Mode().Perm())
		}
	}
	// Every file of the archive too (packs, indexes, parity, COMMIT,
	// LOCK, tables): a replay service running as another user reads them.
	n := 0
	err := filepath.WalkDir(arch, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o640)
		if d.IsDir() {
			want = 0o750
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
		n++
		return nil
	})
	if err != nil || n < 14 {
		t.Fatalf("archive: %d entries, %v", n, err)
	}
}

// TestAtomicFileKilledTemps: the temporary file a run killed while
// writing an output left beside it (an export's size) is removed by the
// next output of that name, and a live run's is not: it is locked.
func TestAtomicFileKilledTemps(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "a.warc.gz")
	live, err := createAtomic(target)
	if err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, ".a.warc.gz.tmp-killed")
	other := filepath.Join(dir, ".b.warc.gz.tmp-killed")
	for _, p := range []string{stale, other} {
		if err := os.WriteFile(p, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	next, err := createAtomic(target)
	if err != nil {
		t.Fatal(err)
	}
	defer next.Discard()
	if _, err := os.Lstat(stale); err == nil {
		t.Error("a killed run's temporary file is still there")
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another output's temporary file was removed: %v", err)
	}
	if _, err := live.WriteString("whole"); err != nil {
		t.Fatal(err)
	}
	if err := live.Commit(); err != nil {
		t.Fatalf("a live run's file: %v", err)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "whole" {
		t.Errorf("published %q, %v", b, err)
	}
}
