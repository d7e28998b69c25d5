// Package reencode lets the archive keep a content-coded HTTP entity
// (Content-Encoding gzip, deflate, br) as the blocks of its decoded
// document: it finds encoder settings that reproduce the entity byte for
// byte from the decoded bytes, so a restore can re-encode instead of
// storing the compressed bytes whole.
//
// Words:
//
//   - an entity is the payload as sent, de-chunked, with one content
//     coding applied;
//   - Params are the settings that produced it: the container (gzip
//     member, zlib, raw deflate, brotli), the encoder implementation and
//     level or quality and window, and the bytes that are no function of
//     the content, kept literally (a gzip header's MTIME, OS, FNAME…, a
//     zlib header). Checksums and sizes in trailers are recomputed.
//
// Usage: at ingest, Find(coding, entity, Limits{}) returns the decoded
// document and Params when Encode(nil, params, decoded) equals entity;
// the caller stores decoded (partitioned) and params.MarshalBinary().
// At restore, Encode gives the entity back.
//
// Which encoders reproduce. Only encoders whose exact output Go code can
// compute are tried: Go's compress/flate (net/http servers such as Caddy
// gzip with it) and github.com/klauspost/compress/flate at levels -2 and
// 0–9, and github.com/andybalholm/brotli, a port of Google's C encoder
// (same output as the C library for the same quality and window, when
// the input is given at once: the C tool's size hint), qualities 0–11,
// the window read from the stream header. zlib's deflate (nginx, Apache,
// most servers and every gzip made by the gzip tool) is not reproducible
// in pure Go: none of the 43 gzip responses of the shared interop files
// reproduces (they carry OS byte 3 or 0: zlib), and Find refuses a gzip
// member whose OS byte is not Go's 255 without trying. Streams flushed
// while being written (several brotli meta-blocks, deflate sync flushes)
// do not reproduce either.
//
// Bounded work. Find decodes at most Limits.MaxDecoded bytes (8 MiB),
// tries each candidate setting through a writer that compares the
// output with the entity and stops the encoder at the first differing
// byte, and skips settings whose Encode of this document would take
// longer than Limits.MaxEncodeTime (10 ms, half the 20 ms p99 restore
// budget), estimated from rates measured by BenchmarkEncode (rates.go):
// brotli q10 and q11 are 100–200 times slower than flate level 1, so
// they pass only for small documents (q11 up to about 2 KiB, q10 up to
// 8 KiB). Such a refusal says "slow to re-encode". A trial costs at
// most that much, so a search costs at most about 20 × MaxEncodeTime.
//
// Durability. A restore depends on the encoder libraries producing
// exactly the bytes they produced at ingest. A dependency upgrade that
// changes an encoder's output would make every archive holding such
// params unrestorable (the restore's CRC check fails; nothing is
// silently wrong). TestGolden pins the SHA-256 of Encode's output for
// every settings family Find can return (every brotli quality at
// windows 22 and 10, every level of both flate implementations) on
// testdata/golden/input.html: an upgrade of klauspost/compress,
// andybalholm/brotli or Go that changes one fails it, and must not be
// taken without keeping the old encoder for old params (a new Impl
// value for the new one).
package reencode
