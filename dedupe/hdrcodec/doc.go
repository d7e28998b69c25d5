// Package hdrcodec stores WARC and HTTP header blocks compactly and byte for
// byte.
//
// A header block (a WARC header: version line, fields, blank line; or an
// HTTP header: status or request line, fields, blank line) is mostly
// repetition and facts the archive already holds: the previous capture of
// the same URL has nearly the same fields in the same order, Content-Length
// and the digests follow from the block, the record date is the capture
// time, and record ids are 16 random bytes spelt as 45 characters. Compressed
// one by one, headers would cost as much as a whole zstd file of the
// collection; this package writes them as edits of a predecessor instead.
//
// Vocabulary:
//
//   - raw: the exact bytes of one header block, whatever they are.
//   - prev: the raw bytes of the predecessor block (same URL and record
//     type, previous capture), or nil. The caller picks it and must hand the
//     same bytes to Decode.
//   - Context: facts the caller knows again at restore time (block and
//     payload lengths and digests, capture time, URL, record ids it can
//     name). A field whose value equals one of them is stored as a reference
//     to it. Decode needs the same Context that Encode was given.
//   - line: the block is cut at every "\n"; each line is its content and its
//     ending (CRLF, LF, or none for a last line without one). A line whose
//     content is "name:" plus optional blanks plus value is a field; any other
//     line (start line, folded continuation, blank line, junk) is raw.
//
// Minimal loop:
//
//	enc := hdrcodec.Encode(nil, raw, prev, ctx)   // never fails
//	...
//	raw, err := hdrcodec.Decode(nil, enc, prev, ctx)
//
// Choosing prev and Context is the caller's trade between size and restore
// cost: prev should be the block of the previous capture of the same URL and
// record type (for warcinfo and wget's metadata and resource records, the
// previous record of the same type), so that restoring one capture decodes
// at most one chain. Putting the record ids a record names (its warcinfo's,
// its request's) in Context.Refs saves 16 bytes each, but then restoring
// the record needs those records' headers first.
//
// Encode checks its own output by decoding it and falls back to storing the
// bytes literally when the structured form would not reproduce them, so
// losslessness never rests on the field model being right. The byte layout is
// in FORMAT.md next to this file; it is meant to be compressed afterwards
// (the pack store groups one URL's objects into a zstd frame), so it has no
// randomness and keeps literal text in the clear.
package hdrcodec
