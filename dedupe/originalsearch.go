package dedupe

// The member search: a gzip input read member by member (or its members
// as a walk decompressed them: memberhooks.go), and for each member the
// zlib settings that reproduce its deflate data from its bytes.

import (
	"bufio"
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"sync"

	"github.com/blockwarc/blockwarc/dedupe/zlibenc"
)

// parseGzipHeader reads one gzip member header from br (RFC 1952) and
// returns its bytes and, when its FEXTRA holds an 8-byte "sl" subfield,
// the offset of that subfield's data (-1 otherwise).
func parseGzipHeader(br *bufio.Reader) ([]byte, int, error) {
	h := make([]byte, 10, 64)
	if _, err := io.ReadFull(br, h); err != nil {
		return nil, -1, err
	}
	if h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 || h[3]&0xe0 != 0 {
		return nil, -1, errors.New("not a gzip member header")
	}
	flg, sl := h[3], -1
	if flg&4 != 0 {
		var xl [2]byte
		if _, err := io.ReadFull(br, xl[:]); err != nil {
			return nil, -1, err
		}
		n := int(binary.LittleEndian.Uint16(xl[:]))
		x := make([]byte, n)
		if _, err := io.ReadFull(br, x); err != nil {
			return nil, -1, err
		}
		base := len(h) + 2
		for i := 0; i+4 <= n; {
			sn := int(binary.LittleEndian.Uint16(x[i+2:]))
			if i+4+sn > n {
				break
			}
			if x[i] == 's' && x[i+1] == 'l' && sn == 8 && sl < 0 {
				sl = base + i + 4
			}
			i += 4 + sn
		}
		h = append(append(h, xl[:]...), x...)
	}
	for _, bit := range []byte{8, 16} { // FNAME, FCOMMENT: zero-terminated
		if flg&bit != 0 {
			s, err := br.ReadBytes(0)
			if err != nil {
				return nil, -1, err
			}
			h = append(h, s...)
		}
	}
	if flg&2 != 0 {
		// FHCRC: a CRC of the header, which rewriting "sl" would change.
		var c [2]byte
		if _, err := io.ReadFull(br, c[:]); err != nil {
			return nil, -1, err
		}
		h, sl = append(h, c[:]...), -1
	}
	return h, sl, nil
}

// learnOriginal reads the gzip file at path again, member by member, and
// finds for each member zlib settings that reproduce its deflate data
// from its decompressed bytes, trying the previous member's settings
// first, then zlibenc.Candidates, and giving up on the file at the first
// member none reproduces (so a file zlib did not write costs one member's
// search). want is the stream the first read saw; a file whose members
// do not give it changed under the ingest. It returns the SHA-256 and
// length of the bytes it read, which the caller compares with the file's.
func learnOriginal(ctx context.Context, path string, want [32]byte) (o *Original, why uint8, sum [32]byte, size int64, err error) {
	r := &learned{}
	r.o, r.why, r.sum, r.size, r.stream, r.err = learnOriginalStream(ctx, path)
	r = r.against(want)
	return r.o, r.why, r.sum, r.size, r.err
}

// learnOriginalStream is learnOriginal without the stream to compare:
// it returns the stream the members give (nil when the search stopped
// before the end), which learned.against compares.
func learnOriginalStream(ctx context.Context, path string) (o *Original, why uint8, sum [32]byte, size int64, stream *[32]byte, err error) {
	if !zlibenc.Available {
		return nil, originalNoZlib, sum, 0, nil, nil
	}
	o, why, raw, stream, err := learnMembers(ctx, path)
	if raw != nil {
		raw.h.Sum(sum[:0])
		size = raw.n
	}
	return o, why, sum, size, stream, err
}

// learntApart, when set (tests), is told of each file read again for
// its members.
var learntApart func(path string)

func learnMembers(ctx context.Context, path string) (*Original, uint8, *hashingReader, *[32]byte, error) {
	if learntApart != nil {
		learntApart(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, nil, nil, fmt.Errorf("open input again for its gzip members: %w", err)
	}
	defer f.Close()
	raw := &hashingReader{r: f, h: sha256.New()}
	br := bufio.NewReaderSize(raw, 256<<10)
	if head, _ := br.Peek(2); len(head) < 2 || head[0] != 0x1f || head[1] != 0x8b {
		return nil, originalNotGzip, nil, nil, nil
	}
	pos := func() int64 { return raw.n - int64(br.Buffered()) }
	t := newMemberTable()
	defer t.release()
	var fr io.ReadCloser
	var plain bytes.Buffer
	comp := []byte(nil)
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, nil, nil, err
		}
		if _, err := br.Peek(1); err == io.EOF {
			break
		}
		start := pos()
		hdr, slAt, err := parseGzipHeader(br)
		if err != nil {
			return nil, originalDamaged, nil, nil, nil
		}
		bodyAt := pos()
		if fr == nil {
			fr = flate.NewReader(br)
		} else if err := fr.(flate.Resetter).Reset(br, nil); err != nil {
			return nil, 0, nil, nil, err
		}
		plain.Reset()
		n, err := io.Copy(&plain, io.LimitReader(fr, maxMemberPlain+1))
		if n > maxMemberPlain {
			return nil, originalLarge, nil, nil, nil
		}
		if err != nil {
			return nil, originalDamaged, nil, nil, nil
		}
		bodyEnd := pos()
		var tr [8]byte
		if _, err := io.ReadFull(br, tr[:]); err != nil {
			return nil, originalDamaged, nil, nil, nil
		}
		data := plain.Bytes()
		if binary.LittleEndian.Uint32(tr[:]) != crc32.ChecksumIEEE(data) || binary.LittleEndian.Uint32(tr[4:]) != uint32(len(data)) {
			return nil, originalDamaged, nil, nil, nil
		}
		end := pos()
		comp = comp[:0]
		if cap(comp) < int(bodyEnd-bodyAt) {
			comp = make([]byte, bodyEnd-bodyAt)
		}
		comp = comp[:bodyEnd-bodyAt]
		if _, err := f.ReadAt(comp, bodyAt); err != nil {
			return nil, 0, nil, nil, fmt.Errorf("read gzip member of %s at %d: %w", path, start, err)
		}
		if why := t.add(start, end, hdr, slAt, comp, data); why != 0 {
			return nil, why, nil, nil, nil
		}
	}
	if _, err := io.Copy(io.Discard, br); err != nil {
		return nil, 0, nil, nil, err
	}
	o, why, got := t.finish()
	if why != originalExact {
		return nil, why, nil, got, nil
	}
	return o, originalExact, raw, got, nil
}

// memberTable learns a gzip file's member table one member at a time,
// in file order: from a read of its own (learnMembers) or from the
// members an ingest's reader decompresses anyway (memberHook).
type memberTable struct {
	o      *Original
	hdrs   map[string]int
	stream hash.Hash
	prev   *zlibenc.Params
	zs     *zlibenc.Stream
}

func newMemberTable() *memberTable {
	return &memberTable{o: &Original{}, hdrs: map[string]int{}, stream: sha256.New(),
		zs: zlibStreams.Get().(*zlibenc.Stream)}
}

func (t *memberTable) release() { zlibStreams.Put(t.zs) }

// add learns the member stored at start..end: its header hdr (with its
// "sl" subfield at slAt, or -1), its deflate data comp and its
// decompressed bytes data. It returns why the file cannot be learnt
// (0: it can, so far).
func (t *memberTable) add(start, end int64, hdr []byte, slAt int, comp, data []byte) uint8 {
	p, ok := findParams(t.zs, data, comp, t.prev)
	if !ok {
		return originalNoParams
	}
	t.prev = &p
	o := t.o
	// The header: "sl" is recomputed when it says what it should
	// (member length, decompressed length); otherwise kept literally.
	mh := memberHeader{Bytes: hdr, slAt: -1}
	if slAt >= 0 && binary.LittleEndian.Uint32(hdr[slAt:]) == uint32(end-start) &&
		binary.LittleEndian.Uint32(hdr[slAt+4:]) == uint32(len(data)) {
		mh.Bytes = bytes.Clone(hdr)
		clear(mh.Bytes[slAt : slAt+8])
		mh.SL, mh.slAt = true, slAt
	}
	key := string(mh.Bytes)
	if mh.SL {
		key += "\x00sl"
	}
	hi, seen := t.hdrs[key]
	if !seen {
		hi = len(o.Headers)
		t.hdrs[key] = hi
		o.Headers = append(o.Headers, mh)
	}
	if r := len(o.Runs) - 1; r >= 0 && o.Runs[r].P == p && o.Runs[r].Header == hi {
		o.Runs[r].Count++
	} else {
		o.Runs = append(o.Runs, memberRun{Count: 1, P: p, Header: hi})
	}
	o.Lens = append(o.Lens, int64(len(data)))
	o.extents.add(start, 0, int64(len(data)))
	t.stream.Write(data)
	return 0
}

// finish returns the table of every member added (originalExact), or
// why there is none, and the stream the members gave.
func (t *memberTable) finish() (*Original, uint8, *[32]byte) {
	got := new([32]byte)
	t.stream.Sum(got[:0])
	if len(t.o.appendTo(nil)) > maxMemberTable {
		return nil, originalLarge, got
	}
	return t.o, originalExact, got
}

// zlibStreams are deflate states (about 300 KiB of C memory each) for
// the member searches and rebuilds running at a time; a state dropped by
// the pool is freed when collected.
var zlibStreams = sync.Pool{New: func() any { return zlibenc.NewStream() }}

// findParams returns zlib settings under which data deflates to comp.
func findParams(zs *zlibenc.Stream, data, comp []byte, prev *zlibenc.Params) (zlibenc.Params, bool) {
	if prev != nil {
		if ok, _ := zs.Reproduces(data, comp, *prev); ok {
			return *prev, true
		}
	}
	for _, p := range zlibenc.Candidates() {
		if prev != nil && p == *prev {
			continue
		}
		if ok, _ := zs.Reproduces(data, comp, p); ok {
			return p, true
		}
	}
	return zlibenc.Params{}, false
}

type hashingReader struct {
	r io.Reader
	h hash.Hash
	n int64
}

func (c *hashingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	return n, err
}
