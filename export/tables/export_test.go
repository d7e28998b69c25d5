package tables

// Test helpers for the external test package (tables_test), which can
// import export/columnar (an import cycle for package tables' own tests).
var IngestForTest = ingest
