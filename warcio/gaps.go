package warcio

// Gaps: the bytes of an input's decompressed stream that no record
// covers, read again so that the file can be rebuilt.

import (
	"context"
	"fmt"
	"io"
	"os"
)

// span is a range [start, end) of a decompressed stream.
type span struct{ start, end int64 }

// readGaps reads the file's decompressed stream again and adds the bytes
// of each gap as gap items (the first pass kept only their positions: a
// gap is found only once the record after it starts). want is the
// stream's length in the first pass; a different length now means the
// file changed under the walk. place, when set, is the walk's Relocate
// for the file.
func (s *sorter) readGaps(ctx context.Context, name string, gaps []span, want int64, place func(*Record) error) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("open input again for its gaps: %w", err)
	}
	defer f.Close()
	c := newContainer(f, name)
	var pos int64
	// read fills p from the stream; the container reports damage it
	// skips as a *FormatError (the first pass reported it already) and
	// goes on.
	read := func(p []byte) (int, error) {
		got := 0
		for got < len(p) {
			n, err := c.Read(p[got:])
			got += n
			pos += int64(n)
			if err == io.EOF {
				if got < len(p) {
					return got, fmt.Errorf("read %s again for its gaps: %w", name, io.ErrUnexpectedEOF)
				}
				break
			}
			if err != nil && !isFormatErr(err) {
				return got, fmt.Errorf("read %s again for its gaps: %w", name, err)
			}
		}
		return got, nil
	}
	skip := make([]byte, 64<<10)
	for _, g := range gaps {
		for pos < g.start {
			if err := ctx.Err(); err != nil {
				return err
			}
			if _, err := read(skip[:min(int64(len(skip)), g.start-pos)]); err != nil {
				return err
			}
			c.prune(pos - 1)
		}
		for start := g.start; start < g.end; {
			n := min(g.end-start, MaxGapPiece)
			body := make([]byte, n)
			if _, err := read(body); err != nil {
				return err
			}
			off, skipIn := c.locate(start)
			end, ok := c.endOf(start + n - 1)
			if !ok {
				end = c.storedPos()
			}
			rec := &Record{File: name, Compression: c.comp, Offset: off, SkipInMember: skipIn,
				Length: max(end-off, 0), Pos: start, End: start + n, ContentLen: n}
			if place != nil {
				if err := place(rec); err != nil {
					return err
				}
			}
			if err := s.add(&item{rec: rec, bodyLen: n, body: body, gap: true}); err != nil {
				return err
			}
			c.prune(start + n - 1)
			start += n
		}
	}
	if pos < want {
		var n int64
		for {
			m, err := c.Read(skip)
			n += int64(m)
			if err == io.EOF {
				break
			}
			if err != nil && !isFormatErr(err) {
				return fmt.Errorf("read %s again for its gaps: %w", name, err)
			}
		}
		pos += n
	}
	if pos != want {
		return fmt.Errorf("read %s again for its gaps: the decompressed stream is %d bytes, it was %d in the first pass (did the file change?)", name, pos, want)
	}
	return nil
}
