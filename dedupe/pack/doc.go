// Package pack is the on-disk object store of a blockwarc archive: a
// directory NAME.bwa/ of append-only pack files, sorted index files and a
// small COMMIT manifest. docs/FORMAT.md is its specification.
//
// Vocabulary:
//
//   - Object: an opaque byte string with a Kind, named by its ID, the
//     SHA-256 of its plaintext (its first ShortID bytes in an archive
//     created since short ids: Store.Sum). Storing the same bytes twice
//     stores them once.
//   - Frame: one zstd frame holding several objects compressed together.
//     The caller groups related objects (one URL's history) into a frame so
//     they share compression context, and closes it with Writer.Flush.
//   - Base: an object whose plaintext serves as zstd raw dictionary for a
//     frame (a delta). Chains of bases are bounded by Options.MaxChain.
//   - Pack: an append-only file of frames. Index: an immutable file, sorted
//     by ID with a 256-entry fan-out table, mapping IDs to frames; one per
//     commit. Commit: the manifest naming the packs (with their committed
//     lengths) and indexes in force, plus an opaque caller payload.
//
// Minimal loop:
//
//	s, err := pack.Create("site.bwa", pack.Options{})
//	w, err := s.Begin()          // takes the archive lock
//	id, isNew, err := w.Add(pack.KindBlock, data)
//	_, _, err = w.AddDelta(pack.KindPayload, next, id)
//	err = w.Flush()              // close the frame: next objects start a new one
//	err = w.Commit(catalogRef)   // atomic: all or nothing after a crash
//	err = w.Close()              // drops anything uncommitted, releases the lock
//	data, kind, err := s.Get(id)
//
// Short references: Store.Resolve names an object by a prefix of its id
// (the oldest object having it); Writer.Unique says whether a prefix names
// one object alone, so a caller may store RefLen bytes instead of 32.
//
// Memory: a Store keeps 1 KiB per index file plus a bounded cache of
// decoded frames (Options.CacheBytes, but always the frame decoded last)
// and up to as many bytes of buffers of frames that left it, reused for
// the next decodes (a held frame's buffer is never reused: object bytes
// stay valid while their frame is held); lookups read index entries in
// place. GetMany reads objects grouped by frame, so that a small cache
// decodes each frame once.
// A Writer keeps the current frame, up to Options.Workers + 1 flushed frames
// compressing (with the reference zstd library's state outside the Go
// heap: Options.NativeMemory), and about 100 bytes per object added since
// the last commit, so a long ingest should commit periodically.
//
// Objects are verified on the way out (frame CRC-32C, SHA-256 of the
// plaintext against the id); damage is reported as a *CorruptError that
// names the file and byte offset. Store.Verify checks everything.
//
// A Store is safe for concurrent readers. Only one Writer per archive may
// exist at a time, across processes (flock on NAME.bwa/LOCK); a Writer is
// used by one goroutine. Readers need no lock: they see the last commit.
package pack
