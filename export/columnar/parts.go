package columnar

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Parts publishes the tables of a sharded archive: every shard's part
// files, written apart (by a Writer of each shard in parallel, or by
// other processes with NewPartWriter and then adopted), replace the
// target directory together in one step, as a Writer's Close does. The
// shards' part files are told apart by WriterOptions.Prefix.
type Parts struct {
	dir, tmp string
	lock     *os.File
	opts     WriterOptions
	done     bool
}

// NewParts starts the tables that will replace dir when Close is called,
// with the checks and the lock of NewWriter.
func NewParts(dir string, opts WriterOptions) (*Parts, error) {
	w, err := NewWriter(dir, opts)
	if err != nil {
		return nil, err
	}
	// The Writer made the directory, took the lock and cleaned up; the
	// Parts owns them from here.
	w.release()
	return &Parts{dir: w.dir, tmp: w.tmp, lock: w.lock, opts: w.opts}, nil
}

// Writer returns a Writer of the part files part-<prefix>-NNNNN into the
// tables; its Close finishes and syncs them. Writers of distinct prefixes
// may write at the same time.
func (p *Parts) Writer(prefix string) (*Writer, error) {
	if prefix == "" {
		return nil, errors.New("tables writer of parts: no prefix")
	}
	o := p.opts
	o.Prefix = prefix
	return newWriter(p.tmp, o), nil
}

// NewPartWriter returns a Writer of part files into a new directory dir
// (it must not exist) and publishes nothing: its Close finishes and syncs
// the parts for Parts.Adopt. Abort removes dir.
func NewPartWriter(dir string, opts WriterOptions) (*Writer, error) {
	opts, err := withDefaults(opts)
	if err != nil {
		return nil, err
	}
	if err := os.Mkdir(dir, 0o777); err != nil {
		return nil, fmt.Errorf("create tables directory: %w", err)
	}
	w := newWriter(dir, opts)
	w.own = true
	if err := mkTableDirs(dir); err != nil {
		w.Abort()
		return nil, err
	}
	return w, nil
}

// Adopt moves the part files a closed NewPartWriter wrote in dir into the
// tables (renames: dir must be on the same file system), then removes
// dir. A name the tables hold already is an error.
func (p *Parts) Adopt(dir string) error {
	for _, name := range Tables() {
		ents, err := os.ReadDir(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("adopt table parts: %w", err)
		}
		for _, e := range ents {
			n := e.Name()
			if !e.Type().IsRegular() || !strings.HasPrefix(n, "part-") || !strings.HasSuffix(n, p.opts.Format.Ext()) {
				return fmt.Errorf("adopt table parts: %s is not a part file", filepath.Join(dir, name, n))
			}
			to := filepath.Join(p.tmp, name, n)
			if _, err := os.Lstat(to); !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("adopt table parts: %s/%s twice (%v)", name, n, err)
			}
			if err := os.Rename(filepath.Join(dir, name, n), to); err != nil {
				return fmt.Errorf("adopt table parts: %w", err)
			}
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("adopt table parts: %w", err)
	}
	return nil
}

// SumStats adds up the Stats of the Writers of one Parts: the tables'
// rows, parts and bytes.
func SumStats(ws ...[]TableStats) []TableStats {
	var out []TableStats
	for _, s := range ws {
		if out == nil {
			out = append(out, s...)
			continue
		}
		for i := range s {
			out[i].Rows += s[i].Rows
			out[i].Parts += s[i].Parts
			out[i].Bytes += s[i].Bytes
		}
	}
	return out
}

// Close publishes the tables: every part written by the Writers (all
// closed by now) and adopted replaces the target directory in one step.
// After an error nothing is replaced.
func (p *Parts) Close() error {
	if p.done {
		return errors.New("close tables parts: already closed")
	}
	if err := syncDirs(p.tmp, Tables()); err != nil {
		p.Abort()
		return err
	}
	if err := writeGeneration(p.tmp, p.opts.generation()); err != nil {
		p.Abort()
		return err
	}
	if err := publish(p.tmp, p.dir); err != nil {
		p.Abort()
		return err
	}
	p.done = true
	unlockParent(p.lock)
	return nil
}

// Abort discards the parts: the target directory is left as it was.
func (p *Parts) Abort() error {
	if p.done {
		return nil
	}
	p.done = true
	err := os.RemoveAll(p.tmp)
	unlockParent(p.lock)
	if err != nil {
		return fmt.Errorf("remove unfinished tables: %w", err)
	}
	return nil
}
