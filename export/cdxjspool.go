package export

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/blockwarc/blockwarc/warcio"
)

// CDXJSpool puts the lines of a CDXJ index in index order (CompareCDXJ)
// with bounded memory. Its input is what an index walk in key order
// (warcio.Walk feeding a CDXJIndexer) yields: the main stream, lines
// sorted by urlkey and timestamp, kept in memory up to MemLimit, then in a
// temporary file; and the few "late" lines of POST captures whose urlkey
// (with the request body) is not their capture's key, merged in by
// CopyTo. Call Cleanup when done.
type CDXJSpool struct {
	TempDir  string // for the temporary file ("" = os.TempDir())
	MemLimit int    // bytes of main lines kept in memory (0: 16MiB)

	mem     bytes.Buffer
	f       *os.File
	release func() // removes f's locked directory
	fw      *bufio.Writer
	late    [][]byte
	run     [][]byte // main lines of one (urlkey, timestamp), not written yet
	undated [][]byte // main lines of the current urlkey without a date
	key     []byte   // the current urlkey
}

const spoolMem = 16 << 20

// spoolPrefix names the locked directory of a spool's temporary file.
const spoolPrefix = "blockwarc-index-"

// maxUndated bounds the undated lines of one urlkey held back.
const maxUndated = 1 << 16

// Main takes the next line of the main stream. Lines come sorted by
// urlkey and timestamp; lines that share both are held and written in
// byte order (CompareCDXJ), whatever order the walk gave them in.
//
// The walk gives a key's records without a parseable date first; their
// timestamp "null" sorts after every date byte-wise, so they are held
// and written after the key's dated lines.
func (s *CDXJSpool) Main(line []byte) error {
	k, ts := keyTime(line)
	if s.key != nil && !bytes.Equal(k, s.key) {
		if err := s.flushKey(); err != nil {
			return err
		}
	}
	if s.key == nil {
		s.key = slices.Clone(k)
	}
	if string(ts) == "null" {
		s.undated = append(s.undated, slices.Clone(line))
		if len(s.undated) >= maxUndated {
			// A hostile dump: memory stays bounded, the key's order is
			// then walk order, not byte order.
			if err := s.flushRun(s.undated); err != nil {
				return err
			}
			s.undated = s.undated[:0]
		}
		return nil
	}
	if len(s.run) > 0 && !sameKeyTime(s.run[0], line) {
		if err := s.flushRun(s.run); err != nil {
			return err
		}
		s.run = s.run[:0]
	}
	s.run = append(s.run, slices.Clone(line))
	return nil
}

// flushKey writes what is held of the current key.
func (s *CDXJSpool) flushKey() error {
	if err := s.flushRun(s.run); err != nil {
		return err
	}
	if err := s.flushRun(s.undated); err != nil {
		return err
	}
	s.run, s.undated, s.key = s.run[:0], s.undated[:0], nil
	return nil
}

func (s *CDXJSpool) flushRun(run [][]byte) error {
	slices.SortFunc(run, bytes.Compare)
	for _, l := range run {
		if err := s.writeSorted(l); err != nil {
			return err
		}
	}
	return nil
}

func keyTime(l []byte) (key, ts []byte) {
	key, rest, _ := bytes.Cut(l, []byte{' '})
	ts, _, _ = bytes.Cut(rest, []byte{' '})
	return key, ts
}

// sameKeyTime reports whether two CDXJ lines share urlkey and timestamp.
func sameKeyTime(a, b []byte) bool {
	ka, ta := keyTime(a)
	kb, tb := keyTime(b)
	return bytes.Equal(ka, kb) && bytes.Equal(ta, tb)
}

func (s *CDXJSpool) writeSorted(line []byte) error {
	if s.f == nil {
		s.mem.Write(line)
		limit := s.MemLimit
		if limit == 0 {
			limit = spoolMem
		}
		if s.mem.Len() < limit {
			return nil
		}
		// In a directory of its own, locked while the spool lives: the
		// file a killed index left (kill -9 removes nothing), the
		// index's size, is told from a live one's and removed (MakeLockedTemp).
		d, release, err := warcio.MakeLockedTemp(s.TempDir, spoolPrefix)
		if err != nil {
			return fmt.Errorf("create temp file: %w", err)
		}
		f, err := os.CreateTemp(d, "index-*.cdxj")
		if err != nil {
			release()
			return fmt.Errorf("create temp file: %w", err)
		}
		s.f, s.fw, s.release = f, bufio.NewWriterSize(f, 256<<10), release
		_, err = s.fw.Write(s.mem.Bytes())
		s.mem = bytes.Buffer{}
		return err
	}
	_, err := s.fw.Write(line)
	return err
}

// Late takes a line that belongs elsewhere than the main stream's place:
// it is sorted in by CopyTo.
func (s *CDXJSpool) Late(line []byte) { s.late = append(s.late, slices.Clone(line)) }

// CopyTo writes the main lines merged with the sorted late lines to w.
func (s *CDXJSpool) CopyTo(w *bufio.Writer) error {
	if err := s.flushKey(); err != nil {
		return err
	}
	var src *bufio.Reader
	if s.f != nil {
		if err := s.fw.Flush(); err != nil {
			return fmt.Errorf("write temp file: %w", err)
		}
		if _, err := s.f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("read temp file: %w", err)
		}
		src = bufio.NewReaderSize(s.f, 256<<10)
	} else {
		src = bufio.NewReaderSize(&s.mem, 256<<10)
	}
	slices.SortStableFunc(s.late, CompareCDXJ)
	late := s.late
	for {
		line, err := src.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: assemble it.
			full := slices.Clone(line)
			for err == bufio.ErrBufferFull {
				line, err = src.ReadSlice('\n')
				full = append(full, line...)
			}
			line = full
		}
		if len(line) > 0 {
			for len(late) > 0 && CompareCDXJ(late[0], line) < 0 {
				if _, err := w.Write(late[0]); err != nil {
					return fmt.Errorf("write index: %w", err)
				}
				late = late[1:]
			}
			if _, err := w.Write(line); err != nil {
				return fmt.Errorf("write index: %w", err)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("read temp file: %w", err)
		}
	}
	for _, l := range late {
		if _, err := w.Write(l); err != nil {
			return fmt.Errorf("write index: %w", err)
		}
	}
	return nil
}

// Cleanup removes the temporary file, if any.
func (s *CDXJSpool) Cleanup() {
	if s.f != nil {
		s.f.Close()
		os.Remove(s.f.Name())
		s.release()
	}
}
