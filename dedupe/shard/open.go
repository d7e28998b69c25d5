package shard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
)

// Open opens the archive in dir for reading, sharded or not: with a
// manifest, the union of its shards (dedupe.Join; each shard is opened
// on first use, so finding one URL reads the manifest and one shard);
// without, the archive itself. m is nil for an unsharded archive.
func Open(dir string, opts pack.Options) (a *dedupe.Archive, m *Manifest, err error) {
	if fi, err := os.Stat(dir); err != nil {
		return nil, nil, fmt.Errorf("open archive: %w", err)
	} else if !fi.IsDir() {
		return nil, nil, fmt.Errorf("open archive %s: %w", dir, syscall.ENOTDIR)
	}
	m, err = ReadManifest(dir)
	if errors.Is(err, ErrNoManifest) {
		a, err := dedupe.Open(dir, opts)
		return a, nil, err
	}
	if err != nil {
		return nil, nil, fmt.Errorf("open archive: %w", err)
	}
	return m.join(dir, opts), m, nil
}

// OpenShards opens the shards of m in dir as one archive, as Open does
// with a manifest, for a sharded archive whose manifest is not yet
// written there (a pipeline's staged shards, before it publishes).
func OpenShards(dir string, m *Manifest, opts pack.Options) *dedupe.Archive {
	return m.join(dir, opts)
}

// join is the union of m's shards in dir.
func (m *Manifest) join(dir string, opts pack.Options) *dedupe.Archive {
	opens := make([]func() (*dedupe.Archive, error), len(m.Shards))
	for i, s := range m.Shards {
		p := filepath.Join(dir, s.Name)
		opens[i] = func() (*dedupe.Archive, error) {
			a, err := dedupe.Open(p, opts)
			if err != nil {
				return nil, fmt.Errorf("shard %s: %w", s.Name, err)
			}
			return a, nil
		}
	}
	return dedupe.Join(opens, m.Route)
}

// Dirs returns the directories of the ordinary archives that make up the
// archive in dir, with its manifest: its shards', or dir itself and a
// nil manifest when it has none.
func Dirs(dir string) ([]string, *Manifest, error) {
	m, err := ReadManifest(dir)
	if errors.Is(err, ErrNoManifest) {
		return []string{dir}, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	out := make([]string, len(m.Shards))
	for i, s := range m.Shards {
		out[i] = filepath.Join(dir, s.Name)
	}
	return out, m, nil
}
