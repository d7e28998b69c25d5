package pack

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
)

// The digest table (docs/FORMAT.md "Digest table"): a format-5 index
// lists, for each object of at least Settings.DigestMin bytes that its
// commit stored new, the first 8 bytes of the object's SHA-256 and its
// place. A writer looks an object up there before storing it, so that
// the same bytes under another URL, in an ingest years later, take the
// place they already have, whatever the writer's tables still hold.
// Merges carry the rows along as they do entries.
//
// Eight bytes are a fingerprint, not a name: a writer reads a candidate
// back and hashes it (Writer.Learn) before taking its place, so a false
// match costs one restore, never a wrong byte.

// digestRow is one row: key is the representative (8 bytes of a chunk
// hash), place the object's.
type digestRow struct {
	key   [8]byte
	place uint64
}

const (
	digestRowSize = 8 + 6
	maxDigestRows = 1<<32 - 1
	maxPlace      = 1<<48 - 1
)

// digestFanBits is how many leading bits of a key the fan-out of nd rows
// buckets them by: about 8 rows a bucket, at most 256 buckets, so that
// the few rows of most commits do not pay for a kilobyte of fan-out.
func digestFanBits(nd uint64) uint {
	k := uint(0)
	for k < 8 && nd>>k > 8 {
		k++
	}
	return k
}

// bucketOf is the fan-out bucket of key among 2^k.
func bucketOf(key [8]byte, k uint) int { return int(key[0]) >> (8 - k) }

func compareDigest(a, b digestRow) int {
	if c := bytes.Compare(a.key[:], b.key[:]); c != 0 {
		return c
	}
	switch {
	case a.place < b.place:
		return -1
	case a.place > b.place:
		return 1
	}
	return 0
}

func (r digestRow) appendTo(b []byte) []byte {
	b = append(b, r.key[:]...)
	for i := range 6 {
		b = append(b, byte(r.place>>(8*i)))
	}
	return b
}

func decodeDigestRow(b []byte) digestRow {
	r := digestRow{key: [8]byte(b[:8])}
	for i := range 6 {
		r.place |= uint64(b[8+i]) << (8 * i)
	}
	return r
}

// writeDigests writes a format-5 index's digest section: rows (sorted),
// their fan-out, their count.
func writeDigests(w io.Writer, rows []digestRow) {
	var b []byte
	for _, r := range rows {
		b = r.appendTo(b[:0])
		w.Write(b)
	}
	w.Write(appendDigestTail(b[:0], rows, uint64(len(rows))))
}

// findDigest calls fn with the place of each row of key, in order.
func (ix *indexFile) findDigest(key [8]byte, fn func(place uint64)) error {
	if ix.ver < 5 || ix.nd == 0 {
		return nil
	}
	b := bucketOf(key, digestFanBits(ix.nd))
	lo, end := uint32(0), ix.dfan[b]
	if b > 0 {
		lo = ix.dfan[b-1]
	}
	base := ix.digestOff()
	var row [digestRowSize]byte
	read := func(i uint32) (digestRow, error) {
		if _, err := ix.f.ReadAt(row[:], base+int64(i)*digestRowSize); err != nil {
			return digestRow{}, fmt.Errorf("read index %s: %w", ix.path, err)
		}
		return decodeDigestRow(row[:]), nil
	}
	// The first row whose key is not below key.
	hi := end
	for lo < hi {
		mid := lo + (hi-lo)/2
		r, err := read(mid)
		if err != nil {
			return err
		}
		if bytes.Compare(r.key[:], key[:]) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for i := lo; i < end; i++ {
		r, err := read(i)
		if err != nil {
			return err
		}
		if r.key != key {
			break
		}
		fn(r.place)
	}
	return nil
}

// digestReader streams an index's digest rows in order.
type digestReader struct {
	r  *bufio.Reader
	ix *indexFile
	i  uint64
}

func newDigestReader(ix *indexFile) *digestReader {
	if ix.ver < 5 {
		return &digestReader{ix: ix}
	}
	return &digestReader{ix: ix, r: bufio.NewReaderSize(io.NewSectionReader(ix.f, ix.digestOff(), int64(ix.nd*digestRowSize)), 32<<10)}
}

func (d *digestReader) next() (digestRow, bool, error) {
	if d.ix.ver < 5 || d.i >= d.ix.nd {
		return digestRow{}, false, nil
	}
	var b [digestRowSize]byte
	if _, err := io.ReadFull(d.r, b[:]); err != nil {
		return digestRow{}, false, fmt.Errorf("merge indexes: read %s: %w", d.ix.path, err)
	}
	d.i++
	return decodeDigestRow(b[:]), true, nil
}

// mergeDigests writes the digest section of the merge of ins: their rows
// merged in order (a row in two inputs is kept once).
func mergeDigests(w io.Writer, ins []*indexFile) (uint64, error) {
	var fan [256]uint32 // by first byte; folded to the width n calls for
	rs := make([]*digestReader, len(ins))
	cur := make([]digestRow, len(ins))
	ok := make([]bool, len(ins))
	for i, ix := range ins {
		rs[i] = newDigestReader(ix)
		var err error
		if cur[i], ok[i], err = rs[i].next(); err != nil {
			return 0, err
		}
	}
	var n uint64
	var b []byte
	var last digestRow
	for {
		best := -1
		for i := range rs {
			if ok[i] && (best < 0 || compareDigest(cur[i], cur[best]) < 0) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		r := cur[best]
		if n == 0 || r != last {
			b = r.appendTo(b[:0])
			w.Write(b)
			fan[r.key[0]]++
			n++
			last = r
		}
		var err error
		if cur[best], ok[best], err = rs[best].next(); err != nil {
			return 0, err
		}
	}
	if n > maxDigestRows {
		return 0, fmt.Errorf("merge indexes: %d digest rows is over the format limit", n)
	}
	w.Write(appendFanTail(b[:0], &fan, n))
	return n, nil
}

// appendDigestTail appends what follows the sorted rows: their fan-out
// (when n > 0) and n.
func appendDigestTail(b []byte, rows []digestRow, n uint64) []byte {
	var fan [256]uint32
	for _, r := range rows {
		fan[r.key[0]]++
	}
	return appendFanTail(b, &fan, n)
}

// appendFanTail appends the fan-out of n rows counted by first byte in
// fan, at the width n calls for, and n.
func appendFanTail(b []byte, fan *[256]uint32, n uint64) []byte {
	if n > 0 {
		k := digestFanBits(n)
		var sum uint32
		for bucket := range 1 << k {
			for x := bucket << (8 - k); x < (bucket+1)<<(8-k); x++ {
				sum += fan[x]
			}
			b = le.AppendUint32(b, sum)
		}
	}
	return le.AppendUint32(b, uint32(n))
}

// keptDigests reads the digest rows of m's indexes that open and read
// whole (repair rebuilds the indexes from the packs, which hold no
// digests), less those whose place is past the chunks of rows.
func (s *Store) keptDigests(m *manifest, rows []chunkRow) []digestRow {
	var end uint64
	for _, r := range rows {
		end = max(end, r.first+uint64(r.chunks))
	}
	var out []digestRow
	for _, ref := range m.indexes {
		ix, err := openIndex(filepath.Join(s.dir, indexName(ref.num)), ref.num, ref.size)
		if err != nil {
			continue
		}
		if ix.scan(nil, nil) != nil {
			ix.f.Close()
			continue
		}
		d := newDigestReader(ix)
		for {
			r, ok, err := d.next()
			if err != nil || !ok {
				break
			}
			if r.place < end {
				out = append(out, r)
			}
		}
		ix.f.Close()
	}
	return sortDigests(out)
}

// digestsOf sorts rows for writeIndex.
func sortDigests(rows []digestRow) []digestRow {
	slices.SortFunc(rows, compareDigest)
	return slices.CompactFunc(rows, func(a, b digestRow) bool { return a == b })
}
