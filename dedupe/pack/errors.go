package pack

import (
	"errors"
	"fmt"
)

var (
	// ErrNotFound means the archive holds no object with the requested id.
	ErrNotFound = errors.New("object not found")
	// ErrCorrupt is matched (errors.Is) by every *CorruptError: a checksum,
	// magic, size or id check failed, typically a damaged or truncated file.
	ErrCorrupt = errors.New("archive corrupt")
	// ErrChainTooLong means a delta chain is deeper than Options.MaxChain, or
	// a lookup needed more frames than allowed; with a writer that honours the
	// bound it only happens on corrupt data or a lower MaxChain than at write.
	ErrChainTooLong = errors.New("delta chain too long")
	// ErrLocked is matched by *LockedError: another writer holds the archive.
	ErrLocked = errors.New("archive locked")
	// ErrNotArchive means the directory has no COMMIT file.
	ErrNotArchive = errors.New("not a blockwarc archive")
	// ErrConflict is matched by *ConflictError: another writer
	// committed since this one began.
	ErrConflict = errors.New("archive changed by another writer")
	// ErrClosed is returned by a Writer or Store used after Close.
	ErrClosed = errors.New("closed")
	// ErrSharedCache is returned by Begin on a Store opened with a
	// shared Cache (Options.Cache), which is read-only.
	ErrSharedCache = errors.New("a store sharing a cache is read-only")
	// ErrRedundancy is matched by *RedundancyError: a parity sidecar or
	// COMMIT.copy that the archive should have is missing or not right.
	ErrRedundancy = errors.New("redundancy lost")
)

// CorruptError names the file and byte offset where a check failed.
type CorruptError struct {
	File   string // path of the damaged file
	Offset int64  // byte offset of the damaged structure in File
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("corrupt %s at offset %d: %s", e.File, e.Offset, e.Reason)
}

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

func corrupt(file string, off int64, format string, args ...any) error {
	return &CorruptError{File: file, Offset: off, Reason: fmt.Sprintf(format, args...)}
}

// LockedError reports that another writer holds the archive lock.
type LockedError struct {
	Path string // what is locked: the archive directory, or its LOCK file
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("archive is locked: another ingest is running (lock held on %s)", e.Path)
}

// ConflictError reports that a commit found another generation than the
// one its writer began from: nothing was published.
type ConflictError struct {
	Dir          string
	Began, Found uint64 // generations
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("commit refused: %s is at generation %d, but this ingest began from %d (another writer committed meanwhile); nothing was published, run the ingest again", e.Dir, e.Found, e.Began)
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }
