package main

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// createTemp creates a new file next to name, to be renamed over it when
// complete, so that a failed run never leaves a partial output under the
// final name. Unlike os.CreateTemp (always 0600) it asks for 0666 and lets
// the process umask decide, as os.Create does: an index or export is an
// ordinary file that a replay service running as another user may need to
// read, and a user who sets umask 077 wants it private.
func createTemp(name string) (*os.File, error) {
	dir, base := filepath.Dir(name), filepath.Base(name)
	for range 100 {
		p := filepath.Join(dir, "."+base+".tmp-"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, &fs.PathError{Op: "createtemp", Path: filepath.Join(dir, "."+base+".tmp-*"), Err: fs.ErrExist}
}
