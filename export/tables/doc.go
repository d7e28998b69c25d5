// Package tables derives the six tables of docs/TABLES.md (captures,
// blocks, capture_blocks, changes, urls, links) from a block-level delta archive
// and hands their rows to a Sink, in table order. The tables are listed
// once, in Specs; each has one row type (a Row).
//
// Words:
//
//   - capture: a response, revisit or resource record with a target URI;
//     other records (requests, warcinfo, metadata) are not rows.
//   - page: what a capture shows. A capture the archive keeps as layout +
//     blocks is partitioned again at the level ingest used, so its leaves
//     are exactly the archive's block objects; an HTML payload kept whole
//     gives title and main text only; a revisit of identical payload
//     stands for the page it revisits.
//   - table order: url_surtkey (the archive's key) ascending, then capture
//     order (WARC-Date, file, offset), the order dedupe.Archive.WalkOrdered
//     yields; blocks by first_url_surtkey, first_fetch_time, block_id.
//
// Minimal use:
//
//	a, err := dedupe.Open("site.bwa", pack.Options{})
//	st, err := tables.Build(ctx, a, tables.Options{Workers: 4}, sink)
//
// The rows depend only on the archive's records and objects, never on
// Options.Workers nor on how many ingests built the archive.
package tables
