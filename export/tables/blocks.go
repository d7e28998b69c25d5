package tables

import (
	"bufio"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/warcio"

	"github.com/klauspost/compress/zstd"
)

// blockCount is what Build keeps in memory for each distinct block: its
// number, its counts and the last capture and URL that counted it. With
// the 32-byte id as map key that is 72 bytes of data, about 83 bytes per
// block with the map's own overhead — 830 MB for ten million distinct
// blocks. The
// block's attributes (text, topic, features) go to the spill file.
type blockCount struct {
	no               int64 // block_no: 1-based rank in first sight
	captures, urls   int64
	lastCap, lastURL int64 // 1-based ordinals; 0 = none yet
}

// blockSpill holds the first-sight rows of the blocks table on disk,
// zstd-compressed gob records in first-sight order: table order
// (url_surtkey, then capture order, then page order), which is block_no
// order, the blocks table's.
type blockSpill struct {
	f       *os.File
	release func() // removes the spill's locked directory
	zw      *zstd.Encoder
	bw      *bufio.Writer
	enc     *gob.Encoder
	rows    int64
}

// blockSpillPrefix names the locked directory of a spill file.
const blockSpillPrefix = "blockwarc-blocks-"

// newBlockSpill makes the spill file in a directory of its own under dir
// (os.TempDir() when empty), locked while the spill lives: the file a
// killed run left (kill -9 removes nothing), the size of the blocks
// table, is told from a live run's and removed (MakeLockedTemp).
func newBlockSpill(dir string) (*blockSpill, error) {
	d, release, err := warcio.MakeLockedTemp(dir, blockSpillPrefix)
	if err != nil {
		return nil, fmt.Errorf("create block spill file: %w", err)
	}
	f, err := os.CreateTemp(d, "blocks-*.gob.zst")
	if err != nil {
		release()
		return nil, fmt.Errorf("create block spill file: %w", err)
	}
	zw, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		f.Close()
		release()
		return nil, fmt.Errorf("create block spill encoder: %w", err)
	}
	s := &blockSpill{f: f, zw: zw, release: release}
	s.bw = bufio.NewWriterSize(zw, 64<<10)
	s.enc = gob.NewEncoder(s.bw)
	return s, nil
}

func (s *blockSpill) add(b *Block) error {
	s.rows++
	if err := s.enc.Encode(b); err != nil {
		return fmt.Errorf("write block spill file: %w", err)
	}
	return nil
}

// size returns the bytes written to the spill file so far.
func (s *blockSpill) size() int64 {
	fi, err := s.f.Stat()
	if err != nil {
		return 0
	}
	return fi.Size()
}

// emit reads the rows back in table order, fills in their counts and
// passes them to fn.
func (s *blockSpill) emit(counts map[pack.ID]blockCount, fn func(*Block) error) error {
	if err := s.bw.Flush(); err != nil {
		return fmt.Errorf("write block spill file: %w", err)
	}
	if err := s.zw.Close(); err != nil {
		return fmt.Errorf("write block spill file: %w", err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("rewind block spill file: %w", err)
	}
	zr, err := zstd.NewReader(s.f, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return fmt.Errorf("read block spill file: %w", err)
	}
	defer zr.Close()
	dec := gob.NewDecoder(bufio.NewReaderSize(zr, 64<<10))
	for n := int64(0); n < s.rows; n++ {
		b := new(Block)
		if err := dec.Decode(b); err != nil {
			return fmt.Errorf("read block spill file row %d: %w", n, err)
		}
		id, err := parseID(b.BlockID)
		if err != nil {
			return fmt.Errorf("read block spill file row %d: %w", n, err)
		}
		c := counts[id]
		b.Captures, b.URLs = c.captures, c.urls
		b.FirstFetchTime = b.FirstFetchTime.UTC()
		if err := fn(b); err != nil {
			return err
		}
	}
	return nil
}

// close removes the spill file (and its directory).
func (s *blockSpill) close() error {
	s.zw.Close()
	err := s.f.Close()
	if rerr := os.Remove(s.f.Name()); err == nil {
		err = rerr
	}
	s.release()
	return err
}

var errBadID = errors.New("malformed object id")

// parseID reads an id as pack.ID.String writes it: 64 hex digits, or 32
// for a short id (the rest zero).
func parseID(s string) (pack.ID, error) {
	var id pack.ID
	if len(s) != 2*len(id) && len(s) != 2*pack.ShortID {
		return id, fmt.Errorf("%w: %q", errBadID, s)
	}
	for i := range len(s) / 2 {
		hi, ok1 := unhex(s[2*i])
		lo, ok2 := unhex(s[2*i+1])
		if !ok1 || !ok2 {
			return id, fmt.Errorf("%w: %q", errBadID, s)
		}
		id[i] = hi<<4 | lo
	}
	return id, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// microUTC is the timestamp as the tables hold it: UTC, microseconds.
func microUTC(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }
