package pack

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// mergeFrom returns where the run of indexes to merge starts, or len(refs)
// when none should be: the newest indexes are merged while the one before
// them is at most twice their summed size. Like a binary counter this keeps
// O(log n) index files, each entry rewritten O(log n) times, so lookups
// stay fast over thousands of commits.
func mergeFrom(refs []fileRef) int {
	if len(refs) < 2 {
		return len(refs)
	}
	j := len(refs) - 1
	sum := refs[j].size
	for j > 0 && refs[j-1].size <= 2*sum {
		j--
		sum += refs[j].size
	}
	if j == len(refs)-1 {
		return len(refs)
	}
	return j
}

// mergeIndexes writes one index holding the entries of ins (oldest first),
// streaming: memory is one read buffer per input. Entries keep their
// frames; frame tables are concatenated. An id present twice is reported
// as corruption.
func mergeIndexes(path string, num uint32, ins []*indexFile, o *Options) (int64, error) {
	var fan [256]uint32
	var n, nf uint64
	frameBase := make([]uint32, len(ins))
	lay := entryLayout{id: ins[0].lay.id, off: 1, len: 1}
	for i, ix := range ins {
		if ix.lay.id != lay.id {
			return 0, corrupt(ix.path, 0, "index has %d-byte ids, %s %d-byte ones", ix.lay.id, ins[0].path, lay.id)
		}
		lay.off, lay.len = max(lay.off, ix.lay.off), max(lay.len, ix.lay.len)
		for b := range fan {
			fan[b] += ix.fanout[b]
		}
		frameBase[i] = uint32(nf)
		n += ix.n
		nf += ix.nf
	}
	if nf > 1<<32-1 {
		return 0, fmt.Errorf("merge indexes: %d frames is over the format limit", nf)
	}
	lay.frame = byteWidth(uint32(max(nf, 1) - 1))
	lay.whole = n < fanoutMin
	if err := o.fault("write", path); err != nil {
		return 0, fmt.Errorf("merge indexes: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return 0, fmt.Errorf("merge indexes: %w", err)
	}
	fail := func(err error) (int64, error) {
		f.Close()
		os.Remove(path)
		return 0, err
	}
	h := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(f, h), 64<<10)
	head := appendIndexHead(nil, num, &fan, lay)
	fanCRC := crc(head[indexHeaderSize:])
	bw.Write(head)
	eh := crc32.New(castagnoli) // the entries' checksum, in place of the fan-out's

	type cursor struct {
		r    *bufio.Reader
		ix   *indexFile
		left uint64
		cur  entry
		ok   bool
		// bucket is the fan-out bucket (first id byte) of the next entry.
		bucket int
	}
	curs := make([]*cursor, len(ins))
	next := func(c *cursor) error {
		if c.left == 0 {
			c.ok = false
			return nil
		}
		var b [maxEntrySize]byte
		es := uint64(c.ix.lay.size())
		if _, err := io.ReadFull(c.r, b[:es]); err != nil {
			return fmt.Errorf("merge indexes: read %s: %w", c.ix.path, err)
		}
		i := c.ix.n - c.left // this entry's number
		eoff := c.ix.lay.entriesOff()
		for uint64(c.ix.fanout[c.bucket]) <= i {
			c.bucket++ // ends below 256: fanout[255] == n > i
		}
		prev, had := c.cur.id, c.ok
		c.cur, c.ok = decodeEntry(b[:es], c.ix.lay, byte(c.bucket)), true
		c.left--
		if had && bytes.Compare(prev[:], c.cur.id[:]) >= 0 {
			return corrupt(c.ix.path, int64(eoff+i*es), "entries not sorted")
		}
		if uint64(c.cur.frame) >= c.ix.nf {
			return corrupt(c.ix.path, int64(eoff+i*es), "entry names frame %d of %d", c.cur.frame, c.ix.nf)
		}
		return nil
	}
	for i, ix := range ins {
		c := &cursor{ix: ix, left: ix.n,
			r: bufio.NewReaderSize(io.NewSectionReader(ix.f, int64(ix.lay.entriesOff()), int64(ix.n*uint64(ix.lay.size()))), 32<<10)}
		if err := next(c); err != nil {
			return fail(err)
		}
		curs[i] = c
	}
	b := make([]byte, 0, maxEntrySize)
	var written uint64
	for {
		best := -1
		for i, c := range curs {
			if !c.ok {
				continue
			}
			if best < 0 {
				best = i
				continue
			}
			switch bytes.Compare(c.cur.id[:], curs[best].cur.id[:]) {
			case -1:
				best = i
			case 0:
				return fail(corrupt(c.ix.path, 0, "object %s is also in %s", c.cur.id, curs[best].ix.path))
			}
		}
		if best < 0 {
			break
		}
		e := curs[best].cur
		e.frame += frameBase[best]
		b = e.appendTo(b[:0], lay)
		bw.Write(b)
		eh.Write(b)
		written++
		if err := next(curs[best]); err != nil {
			return fail(err)
		}
	}
	if written != n {
		return fail(fmt.Errorf("merge indexes: wrote %d of %d entries", written, n))
	}
	if lay.whole {
		fanCRC = eh.Sum32()
	}
	var nc uint64
	for _, ix := range ins {
		_, foff, _ := indexBodySizes(ix.n, ix.nf, ix.lay)
		if _, err := io.Copy(bw, io.NewSectionReader(ix.f, int64(foff), int64(ix.nf*frameRowSize))); err != nil {
			return fail(fmt.Errorf("merge indexes: read %s: %w", ix.path, err))
		}
	}
	// The merged index is of this version: the chunk-frame tables of the
	// inputs (none before format 3) follow, in order, with their count.
	for _, ix := range ins {
		if ix.ver < 3 {
			continue
		}
		coff, _ := chunkSection(ix.n, ix.nf, ix.nc, ix.lay)
		if _, err := io.Copy(bw, io.NewSectionReader(ix.f, int64(coff), int64(ix.nc*chunkRowSize))); err != nil {
			return fail(fmt.Errorf("merge indexes: read %s: %w", ix.path, err))
		}
		nc += ix.nc
	}
	if nc > 1<<32-1 {
		return fail(fmt.Errorf("merge indexes: %d chunk frames is over the format limit", nc))
	}
	bw.Write(le.AppendUint32(nil, uint32(nc)))
	nd, err := mergeDigests(bw, ins)
	if err != nil {
		return fail(err)
	}
	if err := bw.Flush(); err != nil {
		return fail(fmt.Errorf("merge indexes: write %s: %w", path, err))
	}
	tr := appendTrailerHead(nil, n, nf, lay)
	tr = le.AppendUint32(tr, fanCRC)
	tr = le.AppendUint32(tr, h.Sum32())
	tr = append(tr, indexMagic...)
	tr = le.AppendUint32(tr, crc(tr))
	if _, err := f.Write(tr); err != nil {
		return fail(fmt.Errorf("merge indexes: write %s: %w", path, err))
	}
	err = o.fault("sync", path)
	if err == nil {
		err = fsync(f, o.noSync)
	}
	if err != nil {
		return fail(fmt.Errorf("merge indexes: sync %s: %w", path, err))
	}
	if err := f.Close(); err != nil {
		return fail(fmt.Errorf("merge indexes: write %s: %w", path, err))
	}
	_, size := chunkSection(n, nf, nc, lay)
	return int64(size + digestSectionSize(nd)), nil
}
