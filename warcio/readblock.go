package warcio

// Reading a record's block and HTTP header with bounded allocation.

import (
	"bytes"
	"errors"
	"io"
	"slices"
)

// isFormatErr reports damage the Reader itself reports and counts at the
// next Next (under PolicyFail it returns it there): the block read so far
// is kept.
func isFormatErr(err error) bool {
	var fe *FormatError
	return errors.As(err, &fe)
}

// ReadBlock reads a record block into memory. declared, the block's
// Content-Length, only sizes the first allocation, capped at maxAlloc: it
// may lie, and a block that is as long as declared is then read without
// being copied again and again as io.ReadAll would grow its buffer.
func ReadBlock(r io.Reader, declared, maxAlloc int64) ([]byte, error) {
	if m, ok := r.(*memBody); ok && m.Len() == len(m.b) {
		// A block the walk held in memory and no longer needs: handed
		// over, not copied again.
		b := m.b
		m.Reset(nil)
		m.b = nil
		return b, nil
	}
	return readBlockInto(r, make([]byte, 0, min(max(declared, 0), maxAlloc)+1))
}

// readBlockInto reads a block into b[len(b):cap(b)], growing b (a copy
// elsewhere) beyond it.
func readBlockInto(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// readHTTPHeader reads a block up to the end of its HTTP header: the first
// empty line (CRLF CRLF or LF LF), or DefaultMaxHTTPHeader bytes.
func readHTTPHeader(r io.Reader, declared int64) ([]byte, error) {
	b := make([]byte, 0, min(max(declared, 0), 1<<10))
	for len(b) < DefaultMaxHTTPHeader {
		if len(b) == cap(b) {
			b = slices.Grow(b, min(len(b), DefaultMaxHTTPHeader-len(b)))
		}
		n, err := r.Read(b[len(b):min(cap(b), DefaultMaxHTTPHeader)])
		from := max(len(b)-3, 0)
		b = b[:len(b)+n]
		if i := bytes.Index(b[from:], []byte("\n\r\n")); i >= 0 {
			return b[:from+i+3], nil
		}
		if i := bytes.Index(b[from:], []byte("\n\n")); i >= 0 {
			return b[:from+i+2], nil
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}

// memBody reads a block the walk's sort held in memory (Capture.Body).
// The sort lets go of it once the capture is yielded, so ReadBlock of an
// unread memBody returns the bytes themselves.
type memBody struct {
	bytes.Reader
	b []byte
}

func newMemBody(b []byte) *memBody {
	m := &memBody{b: b}
	m.Reader.Reset(b)
	return m
}
