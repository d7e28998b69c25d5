package warcio

import (
	"io"
	"strings"
	"time"
)

// Format is the container format of a record, detected from its bytes.
type Format uint8

const (
	FormatWARC Format = iota + 1
	FormatARC
)

func (f Format) String() string {
	switch f {
	case FormatWARC:
		return "warc"
	case FormatARC:
		return "arc"
	}
	return "unknown"
}

// Compression is how the stored file is compressed, detected from its bytes.
type Compression uint8

const (
	CompressionNone Compression = iota
	CompressionGzip
	CompressionZstd
	CompressionLZ4
	CompressionBzip2
)

// Field is one header field in the order it was stored. Raw holds the exact
// stored bytes of the field, continuation lines and line ending included, so
// a header block can be rebuilt byte for byte from its fields.
type Field struct {
	Name  string // as stored (case kept)
	Value string // trimmed, continuation lines joined by a single space
	Raw   []byte
}

// Header is an ordered list of fields; repeated names are kept.
type Header []Field

// Get returns the value of the first field named name (case-insensitive),
// or "" when there is none.
func (h Header) Get(name string) string {
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// Values returns the values of every field named name, in stored order.
func (h Header) Values(name string) []string {
	var vs []string
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			vs = append(vs, f.Value)
		}
	}
	return vs
}

// Record is one WARC or ARC record. Fields other than Body and Length are
// set by Reader.Next; the slices stay valid after the next call to Next
// (a Record owns its memory).
type Record struct {
	File        string      // name given to NewReader
	Format      Format      // WARC or ARC
	Compression Compression // of the member holding the record

	// Offset is where the record begins in the file as stored: the start of
	// the compressed member (gzip member, zstd/LZ4 frame, bzip2 stream) that
	// holds its first byte, or its byte offset in an uncompressed file.
	// Skip decompresses SkipInMember bytes from Offset before the record
	// starts; it is 0 for per-record compression and uncompressed files.
	Offset       int64
	SkipInMember int64
	// Length is the number of stored bytes from Offset to the end of the
	// member holding the record's last byte (to the end of the record's
	// trailing newlines when uncompressed). With one record per member
	// (a well-formed .warc.gz) that is exactly the member, as CDX indexes
	// report it. When that member runs on past the record (a whole file in
	// one gzip member, bzip2), its end is not known yet: Length then covers
	// the stored bytes consumed when the record ended, which are enough to
	// decompress it (a re-reader must stop without the member's end); for
	// a gzip member inflated whole (a cgo build, members up to 1 MiB
	// stored) that is the whole member.
	// Length is set once Body has returned io.EOF (or by the next Next).
	Length int64

	// Pos and End are where the record begins and ends (after its
	// Trailer) in the file's decompressed stream, the concatenation of
	// every member's output as the Reader decoded it. Records and the
	// bytes between them (gaps: stray line ends, skipped damage) tile the
	// stream, so a file can be rebuilt from them. End is set with Length.
	Pos, End int64

	Version    string    // "WARC/1.0", "WARC/1.1", "WARC/0.17", "ARC/1"...
	Type       string    // WARC-Type; ARC: "warcinfo" for the filedesc record, else "response"
	TargetURI  string    // WARC-Target-URI, <> removed; ARC: the URL field
	Date       time.Time // WARC-Date (ARC: archive-date), UTC; zero when unparseable
	DateRaw    string    // as stored
	RecordID   string    // WARC-Record-ID as stored (with <>); ARC: ""
	Header     Header    // the WARC header fields (ARC: the URL-record line's fields, named by the filedesc)
	RawHeader  []byte    // exact stored bytes of version line + fields + blank line (ARC: the URL-record line)
	ContentLen int64     // Content-Length as declared

	// Revisit information (WARC-Type: revisit).
	Profile           string // WARC-Profile
	RefersTo          string // WARC-Refers-To
	RefersToTargetURI string // WARC-Refers-To-Target-URI
	RefersToDate      string // WARC-Refers-To-Date

	// Body reads the record block (Content-Length bytes, or fewer when the
	// file is clipped). Next skips whatever is left unread.
	Body io.Reader

	// Trailer holds the line ends stored between the end of the block and
	// the next record (normally "\r\n\r\n"; ARC: "\n"), within the block's
	// member; set with Length. Empty after a damaged block.
	Trailer []byte

	// Digests, known once Body has returned io.EOF (see Digests).
	digests Digests
}

// Digests reports the digests computed over the bytes of a record's block
// and payload, and whether they agree with the ones the record declares.
type Digests struct {
	BlockSHA1    []byte // SHA-1 of the whole block; nil when the block was not read
	PayloadSHA1  []byte // SHA-1 of the HTTP entity as stored (block minus HTTP header); nil if not HTTP or not read
	BlockMatch   Match  // against WARC-Block-Digest
	PayloadMatch Match  // against WARC-Payload-Digest
	// BlockLen and PayloadLen are the lengths of the bytes BlockSHA1 and
	// PayloadSHA1 cover (the block's last bytes, the payload's after the
	// HTTP header's blank line), so that a consumer holding those bytes
	// can reuse the digests instead of hashing again; meaningful only with
	// the digest.
	BlockLen, PayloadLen int64
}

// Match says how a computed digest compares with a declared one.
type Match uint8

const (
	MatchUnknown  Match = iota // nothing declared, an algorithm we do not compute, or body not read
	MatchOK                    // declared digest equals computed one
	MatchMismatch              // declared digest differs
)

// Digests returns the digests computed while the record's Body was read.
// They are set once Body has returned io.EOF (Next reads the rest of an
// unread body, so they are set for every record read with Options.Digests
// once Next has been called again); the zero value otherwise.
func (rec *Record) Digests() Digests { return rec.digests }

// dateLayouts are the forms of WARC-Date met in the wild: ISO 8601 with
// or without fractional seconds and zone, 0.17 drafts, and the 14-digit
// ARC form.
var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02",
	"20060102150405",
}

// parseDate returns the time a WARC or ARC date names, in UTC, or the zero
// time when it cannot be parsed.
func parseDate(s string) time.Time {
	s = strings.TrimSpace(s)
	if len(s) > 14 && isDigits(s) {
		s = s[:14] // ARC dates padded with extra digits
	}
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
