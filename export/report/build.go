package report

import (
	"context"
	"fmt"

	"blockwarc/dedupe"
	"blockwarc/export/tables"
)

// Build computes the report of the archive a, opened from dir: it walks
// the archive with tables.Build into an Aggregator (to options the walk),
// then adds the archive-level figures (Aggregator.Report).
func Build(ctx context.Context, dir string, a *dedupe.Archive, o Options, to tables.Options) (*Report, error) {
	g := NewAggregator(o)
	if _, err := tables.Build(ctx, a, to, g); err != nil {
		return nil, fmt.Errorf("build rows: %w", err)
	}
	if err := g.Close(); err != nil {
		return nil, err
	}
	r, err := g.Report(dir, a)
	if err != nil {
		return nil, err
	}
	if o.Alternatives {
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
