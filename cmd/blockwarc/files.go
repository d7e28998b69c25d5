package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/dedupe/shard"
	"github.com/blockwarc/blockwarc/warcio"
)

// atomicFile is an output file written under a temporary name next to its
// target and renamed over it by Commit, so that a failed run never leaves
// a partial output under the final name. The CLI writes every file it
// publishes (an index, a report page, an export) through one.
//
// Unlike os.CreateTemp (always 0600) it asks for 0666 and lets the process
// umask decide, as os.Create does: an index or export is an ordinary file
// that a replay service running as another user may need to read, and a
// user who sets umask 077 wants it private.
type atomicFile struct {
	*os.File
	target string
	done   bool // committed or discarded
}

// createAtomic starts the file that Commit will publish as name. The
// temporary file is locked (flock) until Commit or Discard: what a run
// killed (kill -9, a crash) left for name, as big as what it was writing
// (an export of a whole archive), is told from a live run's and removed
// here, else every killed run re-run left one more.
func createAtomic(name string) (*atomicFile, error) {
	removeStaleTemps(name)
	dir, base := filepath.Dir(name), filepath.Base(name)
	for range 100 {
		p := filepath.Join(dir, "."+base+".tmp-"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if ok, err := lockedAsCreated(f); err != nil || !ok {
			// Taken as a leftover by another run before it was locked.
			f.Close()
			if err != nil {
				os.Remove(p)
				return nil, err
			}
			continue
		}
		return &atomicFile{File: f, target: name}, nil
	}
	return nil, &fs.PathError{Op: "createtemp", Path: filepath.Join(dir, "."+base+".tmp-*"), Err: fs.ErrExist}
}

// lockedAsCreated locks f, just created, and says whether its name still
// names it (a removeStaleTemps may have taken it before the lock). On a
// file system without flock the file is used unlocked: removeStaleTemps,
// which cannot lock there either, removes nothing there.
func lockedAsCreated(f *os.File) (bool, error) {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	now, err := os.Lstat(f.Name())
	return err == nil && os.SameFile(fi, now), nil
}

// removeStaleTemps removes the temporary files that killed runs left
// for final (createAtomic's names): those no live run holds locked.
func removeStaleTemps(final string) {
	dir, prefix := filepath.Dir(final), "."+filepath.Base(final)+".tmp-"
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			os.Remove(p)
		}
		f.Close()
	}
}

// Commit syncs the file and renames it over its target (never over a
// directory), then syncs the directory, so that the name is durable
// too. It renames before it closes: the lock keeps a live file from
// being taken as a leftover until it has its name. After an error the
// temporary file is gone.
func (f *atomicFile) Commit() error {
	if f.done {
		return fmt.Errorf("publish %s: already done", f.target)
	}
	f.done = true
	tmp := f.Name()
	err := f.Sync()
	if err == nil {
		if fi, serr := os.Stat(f.target); serr == nil && fi.IsDir() {
			err = fs.ErrExist
		} else if serr != nil && !errors.Is(serr, fs.ErrNotExist) {
			err = serr
		}
	}
	if err == nil {
		err = os.Rename(tmp, f.target)
	}
	if err != nil {
		os.Remove(tmp)
		f.Close()
		return fmt.Errorf("write %s: %w", f.target, err)
	}
	err = f.Close()
	if err == nil {
		err = warcio.SyncDir(filepath.Dir(f.target))
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", f.target, err)
	}
	return nil
}

// Discard closes and removes the temporary file unless it was committed:
// defer it after createAtomic.
func (f *atomicFile) Discard() {
	if f.done {
		return
	}
	f.done = true
	os.Remove(f.Name())
	f.Close()
}

// writeFileAtomic writes name through an atomicFile: a failed run never
// leaves a partial file.
func writeFileAtomic(name string, write func(io.Writer) error) error {
	f, err := createAtomic(name)
	if err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	defer f.Discard()
	if err := write(f); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return f.Commit()
}

// archiveError prints err as command cmd's failure on archive dir and,
// when err says the archive is damaged (a checksum, a length, a frame
// that does not decode), what to do about it: the error alone names a
// file and an offset, not the way out.
func archiveError(w io.Writer, cmd, dir string, err error) {
	fmt.Fprintf(w, "blockwarc %s: %v\n", cmd, err)
	if name, ok := missingFile(err); ok {
		if strings.HasSuffix(name, ".idx") {
			fmt.Fprintf(w, "blockwarc %s: the index %s, which the archive's commit names, is missing: 'blockwarc repair %s' rebuilds it from the packs (the original input files are not needed)\n", cmd, name, dir)
			return
		}
		fmt.Fprintf(w, "blockwarc %s: %s, a file the archive's commit names, is missing: 'blockwarc verify %s' names what is lost\n", cmd, name, dir)
		repairHint(w, cmd, dir, true)
		return
	}
	if errors.Is(err, pack.ErrCommitLost) {
		fmt.Fprintf(w, "blockwarc %s: the archive's list of files is lost: 'blockwarc repair %s' makes it again from the packs (the original input files are not needed)\n", cmd, dir)
		return
	}
	if !errors.Is(err, pack.ErrCorrupt) {
		return
	}
	if cmd != "verify" {
		fmt.Fprintf(w, "blockwarc %s: %s is damaged: 'blockwarc verify %s' names what is lost\n", cmd, dir, dir)
	}
	repairHint(w, cmd, dir, true)
}

// missingFile reports whether err is a pack or index of an archive that
// is not there (deleted), and its name.
func missingFile(err error) (string, bool) {
	var pe *fs.PathError
	if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	name := filepath.Base(pe.Path)
	base, ok := strings.CutSuffix(name, ".idx")
	if !ok {
		base, ok = strings.CutSuffix(name, ".pack")
	}
	if _, err := strconv.ParseUint(base, 16, 32); !ok || len(base) != 8 || err != nil {
		return "", false
	}
	return name, true
}

// removeLeftovers removes from the archive directory dir what a killed
// repair leaves there: the private directories of its walks over the
// original inputs (warcio.RemoveStaleWalkDirs; a live one is locked and
// kept). It returns their names. Ingest and repair call it: the next
// writer of the archive.
func removeLeftovers(dir string) []string {
	removed, _ := warcio.RemoveStaleWalkDirs(dir)
	return removed
}

// repairHint says how to salvage the damaged archive dir; lost: some
// captures (or the input-file table) may not restore, else the damage
// is what parity corrected, or a parity sidecar's own.
func repairHint(w io.Writer, cmd, dir string, lost bool) {
	if !lost {
		fmt.Fprintf(w, "blockwarc %s: no capture is lost: 'blockwarc repair %s' rewrites what is damaged\n", cmd, dir)
		return
	}
	fmt.Fprintf(w, "blockwarc %s: 'blockwarc repair %s' salvages it (rebuilds what can be read, names what is lost); given the original input files too, 'blockwarc repair %s ORIGINAL-INPUTS...' restores the lost captures\n", cmd, dir, dir)
}

// openArchive opens the archive at dir for reading, sharded or not (one
// opener for every command: shard.Open). When its COMMIT was damaged and
// the copy served, it says so on w: the archive reads as of the copy,
// and the next ingest (or 'blockwarc verify' to see what else is wrong)
// rewrites it. (The shards of a sharded archive are opened on first use;
// a damaged COMMIT of one is named when it is opened by then.)
func openArchive(dir string, w io.Writer) (*dedupe.Archive, error) {
	a, m, err := shard.Open(dir, pack.Options{})
	if err == nil {
		if m != nil && m.Recovered != "" {
			fmt.Fprintf(w, "blockwarc: warning: %s\n", m.Recovered)
		}
		if r := a.Recovered(); r != "" {
			fmt.Fprintf(w, "blockwarc: warning: %s\n", r)
		}
	}
	return a, err
}
