package warcio

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// walkDirPrefix names Walk's private directory of sorted runs.
const walkDirPrefix = "blockwarc-walk-"

// makeWalkDir creates Walk's private directory under parent (os.TempDir()
// when empty) and holds an exclusive lock on it until release, which also
// removes it. The lock tells a live Walk's directory from one a killed
// process left (RemoveStaleWalkDirs): the kernel drops it when the
// process dies.
func makeWalkDir(parent string) (string, func(), error) {
	return MakeLockedTemp(parent, walkDirPrefix)
}

// MakeLockedTemp creates a private directory under parent (os.TempDir()
// when empty), its name prefix and random characters, and holds an
// exclusive lock on it until release, which also removes it: one that a
// killed process left is told apart by RemoveStaleTemp (the kernel drops
// the lock when the process dies), which it runs first. Otherwise each
// killed run, run again as documented, would leave one more (sort runs,
// spools, restored originals: up to the inputs' size; kill -9 removes
// nothing). Walk's directories are made by it.
func MakeLockedTemp(parent, prefix string) (string, func(), error) {
	if parent == "" {
		parent = os.TempDir()
	}
	RemoveStaleTemp(parent, prefix) // best effort: what it cannot remove stays, as before
	// Made under a hidden name, locked, then renamed to its own: a
	// RemoveStaleTemp never sees it under its name unlocked. A hidden
	// one that is not locked may be what a process killed before the
	// rename left, so RemoveStaleTemp removes those too; when it takes
	// ours before we lock it, we make another, after a pause that grows
	// (to 1 ms) so that a remover's pass ends first: under the race
	// detector a remover in a loop took 16 attempts in a row.
	var err error
	for i := range 256 {
		var dir string
		var f *os.File
		var retry bool
		if dir, f, retry, err = makeLocked(parent, prefix); err == nil {
			return dir, func() {
				os.RemoveAll(dir)
				f.Close()
			}, nil
		} else if !retry {
			break
		}
		time.Sleep(time.Duration(i+1) * 4 * time.Microsecond)
	}
	return "", nil, fmt.Errorf("lock temp dir: %w", err)
}

// makeLocked is one attempt of MakeLockedTemp; retry says a concurrent
// RemoveStaleTemp took the hidden directory before it was locked.
func makeLocked(parent, prefix string) (dir string, f *os.File, retry bool, err error) {
	made, err := os.MkdirTemp(parent, "."+prefix)
	if err != nil {
		return "", nil, false, fmt.Errorf("create temp dir: %w", err)
	}
	if f, err = os.Open(made); err != nil {
		return "", nil, os.IsNotExist(err), err
	}
	if err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
		dir = filepath.Join(parent, strings.TrimPrefix(filepath.Base(made), "."))
		if err = os.Rename(made, dir); err == nil {
			return dir, f, false, nil
		}
		// Locked after a remover had unlinked it: the rename finds
		// nothing.
		retry = os.IsNotExist(err)
	} else {
		// A remover holds it and is about to remove it.
		retry = errors.Is(err, syscall.EWOULDBLOCK)
	}
	f.Close()
	if !retry {
		os.RemoveAll(made)
	}
	return "", nil, retry, err
}

// RemoveStaleWalkDirs removes from dir the private directories of Walks
// that were killed before they could remove them (kill -9, a crash):
// those no live process holds locked. A repair, whose walks keep their
// runs in the archive, calls it at its start. It returns the directories
// removed.
func RemoveStaleWalkDirs(dir string) ([]string, error) {
	return RemoveStaleTemp(dir, walkDirPrefix)
}

// RemoveStaleTemp removes from dir the directories MakeLockedTemp made
// with prefix (or was making, under the hidden name) that no live
// process holds locked. It returns the directories removed.
func RemoveStaleTemp(dir, prefix string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, e := range ents {
		// A hidden one is MakeLockedTemp's before its rename: a killed
		// process leaves it unlocked; a live one being made, if taken
		// here, is made again.
		if !e.IsDir() || !strings.HasPrefix(strings.TrimPrefix(e.Name(), "."), prefix) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close() // a live Walk's
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, fmt.Errorf("remove leftover %s: %w", p, err))
		} else {
			removed = append(removed, e.Name())
		}
		f.Close()
	}
	return removed, errors.Join(errs...)
}

// SyncDir makes the entries of directory dir durable (a file created,
// renamed or removed in it survives a crash once this returns): every
// writer of the project that publishes by rename calls it.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}
