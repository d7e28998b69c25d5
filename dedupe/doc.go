// Package dedupe is the block-level delta archive: it ingests WARC/ARC
// records into a content-addressed object store (package pack) so that a
// new capture of a page costs only what changed, and restores every
// record byte for byte. docs/FORMAT.md ("Archive level") is the format.
//
// Vocabulary:
//
//   - Key: the SURT of a record's target URI; a URL's captures share it.
//   - Version: one input record in the catalog — where it came from
//     (file, offset, date, record id) and which objects rebuild it. For a
//     200 text/html response that is the paper's ⟨Layout, {Block},
//     MetaData⟩: the page's layout and blocks (package partition) plus the
//     header encodings; other records are a payload or block object, or,
//     for a small non-HTTP block, bytes held in the catalog entry.
//     Version.Storage says which of these a version is and why.
//   - Anchor: the raw header of an earlier record of the same key and type
//     that a header is encoded against (package hdrcodec). Header
//     encodings are held inline in the catalog.
//   - Catalog: per key, its versions in capture order, stored as segment
//     objects sorted by key; the commit payload lists the segments (one
//     run per ingest) and the input files ingested completely (with
//     their record and malformed-record counts).
//
// Store (the paper's Algorithm 4) is content addressing plus deltas: an
// unchanged layout or block is the same object and costs nothing, a changed
// layout is a new object stored as a delta of the previous one, a block that
// partition.Match pairs with a modified predecessor is a delta of it, and an
// identical capture adds no object. A URL keeps the partition level of its
// history (the Level Manager). Before a record is added, ingest restores it
// from what it is about to store and stores it whole if the bytes differ.
//
// Minimal use:
//
//	st, err := dedupe.Ingest(ctx, "site.bwa", []string{"crawl/"}, dedupe.Options{})
//	a, err := dedupe.Open("site.bwa", pack.Options{})
//	v, err := a.Find("http://example.com/", time.Time{}) // latest capture
//	p, err := a.Restore(&v)                               // p.Record(), p.Payload
//	vs, err := a.Verify(func(p dedupe.Problem) { ... })
//
// Ingest takes the archive lock (a second ingest fails with
// pack.ErrLocked), commits periodically, skips input files already
// ingested, and resumes idempotently after a crash. Its output does not
// depend on Options.Workers. An Archive is safe for concurrent readers.
package dedupe
