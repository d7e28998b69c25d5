// Package report is the storage report of an archive: what the collection
// cost as WARC/ARC input and what it costs as the archive, where the
// archive's bytes go, how captures are stored, and how well the Poisson
// change-rate model predicts the archive's own history.
//
// Vocabulary (docs/REPORT.md defines every figure and its JSON name):
//
//   - Input bytes: the stored sizes of the input files ingested (the
//     archive's input-file table), compressed as they were given.
//   - Archive bytes: the files of the archive directory, except the
//     derived tables/ directory.
//   - Category: a share of the archive bytes — WARC headers, HTTP headers,
//     layouts, blocks, block deltas, other payloads, index and metadata —
//     from the object store's account (pack.Stats) and the catalog.
//   - Back-test: for each URL with enough captures, the change rate fitted
//     on the earlier part of its history (package changerate) predicts the
//     changes of the later part; precision, recall and coverage say how well.
//
// The figures that come from rows are computed by an Aggregator, a
// tables.Sink: the report counts exactly the rows a notebook sees. It keeps
// bounded memory — per-host totals (up to Options.MaxHosts hosts), the
// current URL's history, and fixed-size top lists for the charts — so it
// runs on archives of any size.
//
// Minimal use:
//
//	r, err := report.Build(ctx, "site.bwa", a, report.Options{})
//	err = r.WriteText(os.Stdout)
//	err = r.WriteHTML(f) // one self-contained page: inline SVG, no scripts
//
// or, to feed the walk that writes the tables to the report too (what
// ingest -report does):
//
//	ag := report.NewAggregator(report.Options{})
//	_, err := tables.Build(ctx, a, tables.Options{}, tables.Tee(writer, ag))
//	r, err := ag.Finish(ctx, "site.bwa", a) // after the tables are published
package report
