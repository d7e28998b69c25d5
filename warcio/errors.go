package warcio

import (
	"errors"
	"fmt"
)

// Sentinel errors name the kind of damage a *FormatError reports; callers
// branch on them with errors.Is. They are never returned bare.
var (
	// ErrTruncated means the input ends inside a record or a compressed
	// member: typically a file still being written or cut short in transfer.
	ErrTruncated = errors.New("truncated input")
	// ErrBadHeader means a WARC or ARC header block could not be parsed: a
	// missing version line, a header without its blank end line, a header
	// larger than Options.MaxHeaderBytes, or a missing required field.
	ErrBadHeader = errors.New("malformed record header")
	// ErrBadLength means a declared length is missing, not a number,
	// negative, or does not match where the next record begins: the block
	// was clipped or the record skipped.
	ErrBadLength = errors.New("bad record length")
	// ErrCorrupt means compressed data failed to decode (bad checksum, bad
	// block, invalid header); the rest of the member is lost and reading
	// resumes at the next member found.
	ErrCorrupt = errors.New("corrupt compressed data")
	// ErrGarbage means bytes that are not a record were found where a record
	// should begin; they were skipped up to the next record found.
	ErrGarbage = errors.New("unrecognised bytes between records")
	// ErrBadTrailer means a block is not followed by the line ends the format
	// requires (two for WARC, one for ARC), e.g. stray CR/LF between records.
	// Nothing is skipped: the extra or missing bytes are kept in Trailer.
	ErrBadTrailer = errors.New("bad record trailer")
)

// FormatError reports malformed input at a position in a named file.
// Offset is the byte offset in the file as stored: for compressed input it
// is the start of the compressed member holding the damage, and Msg says
// how far into the decompressed member it lies.
type FormatError struct {
	File   string
	Offset int64
	Msg    string
	Err    error // one of the sentinel errors above, possibly wrapping a cause
}

func (e *FormatError) Error() string {
	s := fmt.Sprintf("%s: offset %d: %s", e.File, e.Offset, e.Msg)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *FormatError) Unwrap() error { return e.Err }

// kindError joins a sentinel with its cause so errors.Is finds both.
type kindError struct {
	kind  error
	cause error
}

func (e *kindError) Error() string { return e.kind.Error() + ": " + e.cause.Error() }

func (e *kindError) Unwrap() []error { return []error{e.kind, e.cause} }

func wrapKind(kind, cause error) error {
	if cause == nil {
		return kind
	}
	return &kindError{kind: kind, cause: cause}
}
