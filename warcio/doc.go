// Package warcio reads WARC and ARC crawl dumps as a stream of records.
//
// # Vocabulary
//
// A WARC file is a sequence of records. A record is a header block — the
// version line ("WARC/1.0", "WARC/1.1", or the drafts "WARC/0.17",
// "WARC/0.18"), named fields ("WARC-Type: response") and a blank line —
// then a block of Content-Length bytes, then a trailer of two line ends.
// The block of an application/http record is an HTTP message; the bytes
// after its HTTP header are the payload. The older ARC format stores one
// URL-record line ("URL IP DATE MIME LENGTH"), the block, and a LF; its
// first record (filedesc://) names the fields of the others.
//
// Files are stored uncompressed or compressed. A compressed member is one
// gzip member, zstd frame, LZ4 frame or bzip2 file; well-formed ".warc.gz"
// files hold one record per member, so each record can be fetched alone.
// The Reader detects format and compression from the bytes, never from the
// file name, and reports each record's position in the file as stored:
// Record.Offset (where its member starts), Record.SkipInMember (how many
// decompressed bytes of that member precede it) and Record.Length.
//
// # Reading
//
// The shape is that of archive/tar:
//
//	r := warcio.NewReader(f, name)
//	for {
//		rec, err := r.Next()
//		if err == io.EOF {
//			break
//		}
//		if err != nil {
//			return err // an I/O error, or a *FormatError under PolicyFail
//		}
//		// rec.Header, rec.TargetURI, rec.Date ...; rec.Body reads the block.
//	}
//	if r.Skipped() > 0 { ... } // malformed input was skipped
//
// Next skips whatever is left of the previous body, so a loop that reads
// only headers is cheap. Memory stays bounded whatever the record size:
// bodies stream, and a header block is bounded by Options.MaxHeaderBytes.
//
// # Lifetimes
//
// A *Record and every slice and string in it (Header, RawHeader, Trailer,
// Field.Raw) belong to the caller and stay valid after the next call to
// Next. Record.Body does not: it reads from the Reader's buffer and fails
// with an error once Next has been called again. Length, Trailer and
// Digests are set once Body has returned io.EOF, or by the next Next.
// RawHeader, the block and Trailer are the stored bytes of the record, in
// order, byte for byte.
//
// # Malformed input
//
// Real archives contain truncated files, wrong lengths, garbage between
// records and damaged compressed members. Each problem becomes a
// *FormatError naming the file and byte offset and wrapping a sentinel
// (ErrTruncated, ErrBadHeader, ErrBadLength, ErrCorrupt, ErrGarbage,
// ErrBadTrailer). Options.Policy decides what happens to it: skip and
// count (the default), skip, count and pass to Options.OnError, or fail.
// After a skip the Reader resynchronises at the next record it can find:
// the next "WARC/" version line at a line start, the next compressed
// member, or the next ARC URL-record line. A Content-Length that runs into
// the next record is clipped where that record begins, so the following
// records are not lost.
//
// # Digests
//
// With Options.Digests (on for NewReader), the SHA-1 of each block, and of
// the payload of application/http blocks, is computed as the Body streams,
// and compared with WARC-Block-Digest and WARC-Payload-Digest (sha1 in
// base32, hex or base64; sha256 when declared). See Record.Digests.
//
// # HTTP messages and payloads
//
// ReadHTTP (or Record.HTTP) parses the HTTP header at the start of an
// application/http block and leaves the entity streaming in
// HTTPMessage.Payload, exactly as stored; an HTTPReader does the same
// with buffers it reuses from one header to the next. The entity has
// three views:
//
//   - as stored: HTTPMessage.Payload;
//   - de-chunked: NewDechunker(payload), when Transfer-Encoding says chunked
//     (a body already stored de-chunked passes through unchanged); its
//     Framing records what was removed, so Rebuild/Rechunk give back the
//     stored bytes exactly;
//   - decoded: DecodeContent(dechunked, msg.Codings(), limit) undoes gzip,
//     deflate, br and zstd for analysis, capped at limit against
//     decompression bombs.
//
// The charset a page is read in is the partition package's decision
// (partition.DetectCharset); the stored bytes are never rewritten.
//
// # Capture order
//
// Walk reads a set of inputs (files, directories, globs, "-") once each and
// yields every record grouped by SURT key (the canonical URL form of pywb
// and Common Crawl, see SURT) and in capture-time order within a key, ties
// broken by file and offset, whatever the order of the inputs. Memory is
// bounded by WalkOptions.MemLimit: beyond it records spill to sorted,
// zstd-compressed runs on disk that are merged. Revisit records come with
// Capture.RevisitOf naming the capture they repeat.
package warcio
