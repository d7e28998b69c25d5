package shard

import (
	"context"
	"errors"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
)

// Upgrade is dedupe.Upgrade for an archive sharded or not: a sharded
// one is checked and locked shard by shard, and rewritten whole into
// as many shards cut at the same key boundaries (its manifest's), so
// that every record stays in the shard it was in.
func Upgrade(ctx context.Context, dir string, opts dedupe.UpgradeOptions) (dedupe.UpgradeStats, error) {
	if _, err := ReadManifest(dir); errors.Is(err, ErrNoManifest) {
		return dedupe.Upgrade(ctx, dir, opts)
	} else if err != nil {
		return dedupe.UpgradeStats{}, err
	}
	opts.Layout = &dedupe.Layout{
		Dirs: func(dir string) ([]string, error) {
			dirs, _, err := Dirs(dir)
			return dirs, err
		},
		Open: func(dir string) (*dedupe.Archive, error) {
			a, _, err := Open(dir, pack.Options{})
			return a, err
		},
		Ingest: func(ctx context.Context, old, dir string, inputs []string, opts dedupe.Options) (dedupe.Stats, error) {
			m, err := ReadManifest(old)
			if err != nil {
				return dedupe.Stats{}, err
			}
			if m, err = NewManifest(m.Boundaries()); err != nil {
				return dedupe.Stats{}, err
			}
			if err := createShards(dir, m, opts.Pack); err != nil {
				return dedupe.Stats{}, err
			}
			return ingestShards(ctx, dir, m, inputs, opts)
		},
	}
	return dedupe.Upgrade(ctx, dir, opts)
}
