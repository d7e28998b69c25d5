package shard

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
)

// Prove is dedupe.Prove of the archive in dir, sharded or not. A sharded
// archive's compressed originals are learnt and kept by shard 0 alone
// (reads; dedupe.Join reads them there), so it is proven there and the
// other shards are not written. From and To are the archive's
// generations (dedupe.Archive.Generation) before and after, which the
// tables record.
func Prove(ctx context.Context, dir string, originals []string, opts pack.Options) (res dedupe.ProveResult, from, to string, err error) {
	dirs, m, err := Dirs(dir)
	if err != nil {
		return res, "", "", err
	}
	var rest []string // the generations of shards 1…
	if m != nil {
		a := m.join(dir, opts)
		gen, err := a.Generation()
		a.Close()
		if err != nil {
			return res, "", "", fmt.Errorf("open archive %s: %w", dir, err)
		}
		rest = strings.Split(gen, ",")[1:]
	}
	res, err = dedupe.Prove(ctx, dirs[0], originals, opts)
	if err != nil {
		return res, "", "", err
	}
	gen := func(seq uint64) string {
		return strings.Join(append([]string{strconv.FormatUint(seq, 10)}, rest...), ",")
	}
	return res, gen(res.From), gen(res.To), nil
}
