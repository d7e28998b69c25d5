package warcio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// ErrNotRecords means a file holds no WARC or ARC record at all and does
// not begin with one: a README, an HTML page or a tarball given as input
// by mistake.
var ErrNotRecords = errors.New("not WARC or ARC: no record found, and it does not begin with one")

// checkReaders keeps the Readers of CheckRecords for the next checks: an
// ingest checks every input first, and a new Reader's buffers (128 KiB,
// and a gzip reader's state), allocated and cleared for each file, were
// most of what a check cost.
var checkReaders sync.Pool

// CheckRecords tells whether the file at path is WARC or ARC input, as
// the Reader reads it (compressed or not, detected from the bytes): it
// is when its first bytes, decompressed, begin a WARC or ARC record, or
// when reading it finds a record further on (damaged or preceded by other
// bytes, as a salvaged dump may be). Otherwise it returns an error
// wrapping ErrNotRecords. An empty file (or an empty decompressed stream)
// passes: it holds no record, but nothing else either. Only a file that
// does not begin with a record is read further, up to its first record.
func CheckRecords(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r, _ := checkReaders.Get().(*Reader)
	if r == nil {
		r = NewReaderOptions(f, path, Options{})
	} else {
		r.Reset(f, path)
	}
	defer checkReaders.Put(r)
	// One record is read: streamed, without the megabyte the whole-member
	// path would allocate for every file checked.
	r.c.whole.off = true
	head, err := r.peek(5)
	switch {
	case bytes.HasPrefix(head, []byte("WARC/")):
		return nil
	case len(head) == 0 && err == io.EOF:
		return nil // empty
	case err != nil && !isFormat(err) && err != io.EOF:
		return err
	}
	if r.arcLineAhead() {
		return nil
	}
	rec, err := r.Next()
	if rec != nil {
		return nil
	}
	if err != nil && err != io.EOF {
		return err
	}
	return fmt.Errorf("%s: %w", path, ErrNotRecords)
}
