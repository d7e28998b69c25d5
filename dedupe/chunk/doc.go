// Package chunk is the proposed storage engine of the next archive format
// version ("Storage v2 (proposed)" in docs/FORMAT.md): every stored byte string (a
// version) is cut into content-defined chunks (FastCDC, 512 B average),
// deduplicated, and the new chunks are appended in walk order to large
// shared zstd frames, so that a crawl's new bytes across URLs compress
// together. It is not yet used by the archive.
//
// Vocabulary:
//
//   - Chunk file: a sequence of frames, each a zstd frame of its chunk
//     table and one of its chunks' bytes (laid out by class); its
//     Directory (kept by the owner, about 12 bytes a frame) locates them.
//   - Chunk number: a chunk is named by its place, not by a hash: chunks
//     are numbered from 0 in the order they were appended, frame after
//     frame, so frame f holds chunks FirstChunk(f) … FirstChunk(f)+Chunks(f)-1
//     and chunk c is (frame, ordinal) = (FrameOf(c), c-FirstChunk). No hash
//     index is stored.
//   - Ref list: a version's chunk numbers in order, coded against the ref
//     list of the same URL's previous capture (EncodeRefs: copy runs and
//     runs of consecutive numbers).
//
// Minimal loop:
//
//	w, err := chunk.NewWriter(file, nil, chunk.Options{})
//	refs, err := w.Put([]chunk.Part{{Data: hdr}, {Data: payload, Class: 2}}, prevRefs)
//	code := chunk.EncodeRefs(nil, refs, prevRefs) // keep in the catalog
//	dir, err := w.Close()                         // keep dir too
//	r, err := chunk.NewReader(file, dir, 4<<20)
//	data, err := r.Restore(nil, refs)
//
// Deduplication needs no stored index: a Writer keeps a bounded table of
// the hashes (SHA-256, 16 bytes kept) of the chunks it stored and reused,
// and learns the chunks of each version's previous capture (Put's prev)
// by reading them back when an earlier Writer stored them.
//
// Restore work is bounded (Options.MaxFrames): a version never names
// chunks in more than MaxFrames frames unless its own new bytes need more.
// A group of versions restored together (the objects of one capture)
// can be bounded as well, by its owner (GroupDrop, PutDrop): the chunks
// it reuses from the frames it needs least are stored again until its
// restore decodes at most a given number of bytes, or storing again
// would cost more than a quarter of the bytes it saves decoding.
package chunk
