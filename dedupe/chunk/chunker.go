package chunk

import (
	"bytes"
	"fmt"

	cdc "github.com/PlakarKorp/go-cdc-chunkers"
	_ "github.com/PlakarKorp/go-cdc-chunkers/chunkers/fastcdc" // registers "fastcdc-v1.0.0"
)

// cdcAlgorithm is go-cdc-chunkers' FastCDC with normalised chunking
// (level 2) and its fixed, unkeyed gear table: the same bytes always cut
// at the same places, in every process. Boundaries are not part of the
// stored format (a reader never re-chunks), so a later change of the
// library or its parameters costs deduplication, never correctness.
const cdcAlgorithm = "fastcdc-v1.0.0"

// splitter cuts byte strings into content-defined chunks. Not safe for
// concurrent use.
type splitter struct {
	c   *cdc.Chunker
	r   bytes.Reader
	min int
}

// newSplitter returns a splitter for an average chunk size avg (a power of
// two ≥ 128): chunks are avg/4 to avg*8 bytes, the last of a string
// shorter.
func newSplitter(avg int) (*splitter, error) {
	if avg < 128 || avg&(avg-1) != 0 {
		return nil, fmt.Errorf("chunk: average chunk size %d is not a power of two ≥ 128", avg)
	}
	s := &splitter{min: avg / 4}
	opts := &cdc.ChunkerOpts{MinSize: avg / 4, NormalSize: avg, MaxSize: avg * 8}
	c, err := cdc.NewChunkerBuffer(cdcAlgorithm, &s.r, opts, make([]byte, 2*opts.MaxSize))
	if err != nil {
		return nil, fmt.Errorf("chunk: %w", err)
	}
	s.c = c
	return s, nil
}

// split appends to dst the chunks of data, as subslices of data.
func (s *splitter) split(dst [][]byte, data []byte) ([][]byte, error) {
	if len(data) == 0 {
		return dst, nil
	}
	if len(data) <= s.min { // one chunk: skip the reader's copy
		return append(dst, data), nil
	}
	s.r.Reset(data)
	s.c.Reset(&s.r)
	off := 0
	err := s.c.Split(func(_, n uint, _ []byte) error {
		if n > 0 {
			dst = append(dst, data[off:off+int(n)])
			off += int(n)
		}
		return nil
	})
	if err != nil {
		return dst, fmt.Errorf("chunk: %w", err)
	}
	if off != len(data) {
		return dst, fmt.Errorf("chunk: chunker covered %d of %d bytes", off, len(data))
	}
	return dst, nil
}
