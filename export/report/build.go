package report

import (
	"context"
	"fmt"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/export/tables"
)

// Build computes the report of the archive a, opened from dir: it walks
// the archive with tables.Build into an Aggregator (to options the walk),
// then adds the archive-level figures (Aggregator.Finish).
//
// A caller that walks the archive anyway (writing its tables) can instead
// pass an Aggregator to that walk, with tables.Tee, and call Finish: the
// report is the same, for one walk instead of two.
func Build(ctx context.Context, dir string, a *dedupe.Archive, o Options, to tables.Options) (*Report, error) {
	g := NewAggregator(o)
	if _, err := tables.Build(ctx, a, to, g); err != nil {
		return nil, fmt.Errorf("build rows: %w", err)
	}
	return g.Finish(ctx, dir, a)
}

// Finish returns the report once every row was received (the walk closed
// the Aggregator): the rows' figures plus the archive-level ones of a,
// opened from dir, and with Options.Alternatives the alternatives
// measured. Call it after the tables are written: the report counts
// their bytes.
func (g *Aggregator) Finish(ctx context.Context, dir string, a *dedupe.Archive) (*Report, error) {
	if err := g.Close(); err != nil {
		return nil, err
	}
	r, err := g.Report(dir, a)
	if err != nil {
		return nil, err
	}
	if g.o.Alternatives {
		m, err := MeasureAlternatives(ctx, a)
		if err != nil {
			return nil, err
		}
		if err := r.alternatives(dir, m); err != nil {
			return nil, err
		}
	}
	return r, nil
}
