package pack

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// archiveLock is a writer's hold on an archive: flock(LOCK_EX) on the
// archive directory itself, and on the LOCK file that writers before
// the directory lock took (so that an older blockwarc running beside
// this one is still kept out). The directory lock is the one that
// counts: a user can delete a stale-looking LOCK file (people do), but
// not the directory an ingest is writing into, so deleting LOCK lets no
// second writer in. flock locks belong to the open file description, so
// a second Begin in the same process is refused like one in another
// process, and the kernel drops them when a killed writer's descriptors
// close.
type archiveLock struct {
	dir, file *os.File
}

// lockDir takes the archive's exclusive writer lock without waiting.
func lockDir(dir string) (*archiveLock, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("open archive directory to lock it: %w", err)
	}
	if err := flockNB(d); err != nil {
		d.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &LockedError{Path: dir}
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	path := filepath.Join(dir, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		unflock(d)
		return nil, fmt.Errorf("open lock: %w", err)
	}
	if err := flockNB(f); err != nil {
		unflock(d)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &LockedError{Path: path}
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &archiveLock{dir: d, file: f}, nil
}

func flockNB(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

func unflock(f *os.File) {
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	f.Close()
}

func unlock(l *archiveLock) {
	unflock(l.file)
	unflock(l.dir)
}
