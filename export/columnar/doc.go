// Package columnar writes the tables of docs/TABLES.md (captures, blocks,
// capture_blocks, changes, urls, links) as Parquet or Arrow IPC files, so that a
// notebook opens an archive with DuckDB, pandas or polars without knowing
// anything about WARC.
//
// Words:
//
//   - table: one of the six tables of tables.Specs; its rows are the
//     structs of package export/tables and its Arrow schema is
//     Schema(name), one column per struct field in the same order. Adding a
//     table is a spec in tables.Specs, its row type (with its Table
//     method), and its columns in layouts (schema.go): the writer, Tables()
//     and Schema follow.
//   - part: one file of a table, DIR/<table>/part-NNNNN.parquet (or .arrow;
//     part-SSSS-NNNNN for shard SSSS of a sharded archive, see Parts),
//     holding at most WriterOptions.PartRows rows; a table always has at
//     least one part, empty when the table is, so a glob never matches
//     nothing.
//   - row group: the rows buffered in Arrow builders before they are encoded
//     (Parquet row group, or Arrow record batch); at most
//     WriterOptions.RowGroupRows rows and about RowGroupBytes bytes of
//     strings. One row group per table is the writer's memory.
//
// The usual loop hands a Writer to tables.Build as its Sink:
//
//	w, err := columnar.NewWriter(filepath.Join(archiveDir, "tables"), columnar.WriterOptions{})
//	if err != nil { ... }
//	if _, err := tables.Build(ctx, archive, tables.Options{}, w); err != nil {
//		w.Abort()
//		...
//	}
//	// Build closed w: the new tables replaced the old ones in one step.
//
// The tables are derived data and are rewritten whole: NewWriter writes into
// a fresh sibling directory, and Close syncs it and swaps it with the target
// directory, so a reader (or a crash) sees the old tables or the new ones,
// never a mix.
package columnar
