package dedupe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"os"

	"github.com/blockwarc/blockwarc/dedupe/zlibenc"
	"github.com/blockwarc/blockwarc/warcio"
)

// A distributed ingest (cmd/blockwarc-beam, through dedupe/shard) splits
// what Ingest does with each input file so that every step runs once per
// file, on any worker: Presort reads the file once into key-ordered
// segments (warcio.Presort), LearnOriginal learns its gzip members, and
// each shard's Ingest is given both (Options.Parts, Options.Originals)
// instead of reading the file itself. The archive is the same, byte for
// byte, as an Ingest of the files with the same Select.

// Part is one input file read once by Presort: its records in capture
// order and what the shard ingests' input-file rows say of the whole
// file.
type Part struct {
	warcio.Part
	// Malformed is the file's malformed records, counted as Ingest
	// counts them (InputFile.Malformed).
	Malformed int64
	// Original is what LearnOriginal returns for the file, learnt from
	// the members the read decompressed (a gzip file whose members all
	// decompressed whole); nil when the file must be learnt apart.
	Original []byte
}

// Presort reads one input file as Ingest with opts reads it (reader
// options, policy, malformed records counted) into a Part whose segments
// are written in dir; onRecord, when set, sees every record read (a key
// sample). The segments stay until the caller removes them
// (warcio.Part.Remove).
func Presort(ctx context.Context, file, dir string, opts Options, onRecord func(rec *warcio.Record, key string)) (Part, error) {
	g := &ingester{malformed: map[string]int64{}}
	budget := SplitMemory(opts.MemLimit, max(opts.Workers, 1), opts.Pack.ChunkTable)
	ro := g.readerOpts(opts.Reader)
	var h *memberHook
	if zlibenc.Available {
		f, err := os.Open(file)
		if err != nil {
			return Part{}, fmt.Errorf("presort: %w", err)
		}
		defer f.Close()
		h = &memberHook{f: f, t: newMemberTable()}
		defer h.t.release()
		ro.OnMember, ro.MaxMemberPlain = h.member, maxMemberPlain
	}
	p, err := warcio.Presort(ctx, file, warcio.PresortOptions{Reader: ro,
		MemLimit: budget.Sort, TempDir: opts.TempDir, Dir: dir, OnRecord: onRecord})
	if err != nil {
		return Part{}, err
	}
	out := Part{Part: p, Malformed: g.malformed[file]}
	if h != nil {
		if out.Original, err = h.result(ctx); err != nil {
			p.Remove()
			return Part{}, err
		}
	}
	return out, nil
}

// memberHook learns a gzip file's member table from the members a read
// of it decompresses (warcio.Options.OnMember), as learnMembers would
// from a read of its own: each member's header and deflate data are
// read again stored (ReadAt), never decompressed again. A file with a
// member damaged, or bytes that start none, before the table stopped
// is left to learnMembers: it tells damage apart its own way.
type memberHook struct {
	f       *os.File
	t       *memberTable
	members int
	why     uint8 // why the table stopped (0: it goes on)
	apart   bool  // learnt apart (damage)
	err     error
	buf     []byte
	sum     hash.Hash // when set, of the stored bytes of the members read
}

func (h *memberHook) member(m warcio.Member) {
	h.members++
	switch {
	case h.why != 0 || h.apart || h.err != nil:
		return
	case m.Damaged:
		h.apart = true
		return
	case m.PlainLen > maxMemberPlain:
		h.why = originalLarge
		return
	}
	n := m.StoredEnd - m.Stored
	if cap(h.buf) < int(n) {
		h.buf = make([]byte, n)
	}
	b := h.buf[:n]
	if _, err := h.f.ReadAt(b, m.Stored); err != nil {
		h.err = fmt.Errorf("read gzip member of %s at %d: %w", h.f.Name(), m.Stored, err)
		return
	}
	if h.sum != nil {
		h.sum.Write(b)
	}
	hdr, slAt, err := parseGzipHeader(bufio.NewReader(bytes.NewReader(b)))
	if err != nil || len(b) < len(hdr)+8 {
		h.why = originalDamaged
		return
	}
	h.why = h.t.add(m.Stored, m.StoredEnd, hdr, slAt, b[len(hdr):len(b)-8], m.Plain)
}

// result is what LearnOriginal returns for the file, or nil when it
// must be learnt apart.
func (h *memberHook) result(ctx context.Context) ([]byte, error) {
	if h.err != nil {
		return nil, h.err
	}
	if h.apart || h.members == 0 {
		return nil, nil // damaged, or not read as gzip
	}
	r := &learned{why: h.why}
	if r.why == 0 {
		var o *Original
		o, r.why, r.stream = h.t.finish()
		if r.why == originalExact {
			in, err := hashFile(ctx, h.f.Name(), nil)
			if err != nil {
				return nil, err
			}
			r.o, r.sum, r.size = o, in.SHA256, in.Size
		}
	}
	return r.encode(), nil
}

// LearnOriginal learns which zlib settings restore the gzip input file
// at path bit-exact (what Ingest learns of each input it reads, unless
// Options.SkipOriginal), for Options.Originals: an opaque encoding.
func LearnOriginal(ctx context.Context, path string) ([]byte, error) {
	r := &learned{}
	r.o, r.why, r.sum, r.size, r.stream, r.err = learnOriginalStream(ctx, path)
	if r.err != nil {
		return nil, r.err // an error stops the ingest: the caller's to report
	}
	return r.encode(), nil
}

// encode is LearnOriginal's encoding of r.
func (r *learned) encode() []byte {
	b := []byte{learnedVersion, r.why}
	b = append(b, r.sum[:]...)
	b = binary.AppendVarint(b, r.size)
	if r.stream == nil {
		b = append(b, 0)
	} else {
		b = append(append(b, 1), r.stream[:]...)
	}
	if r.o == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendVarint(b, r.o.extents.n)
	b = binary.LittleEndian.AppendUint64(b, r.o.extents.sum)
	return r.o.appendTo(b)
}

const learnedVersion = 1

var errLearned = errors.New("bad learnt original")

// decodeLearned reads what LearnOriginal encoded.
func decodeLearned(b []byte) (*learned, error) {
	r := &learned{}
	if len(b) < 2+32 || b[0] != learnedVersion {
		return nil, errLearned
	}
	r.why = b[1]
	copy(r.sum[:], b[2:34])
	d := &dec{b: b[34:]}
	r.size = d.varint("size")
	switch f := d.bytes(1, "stream"); {
	case f == nil:
	case f[0] == 1:
		var s [32]byte
		copy(s[:], d.bytes(32, "stream"))
		r.stream = &s
	}
	if f := d.bytes(1, "table"); f != nil && f[0] == 1 {
		n := d.varint("extents")
		sum := d.bytes(8, "extents")
		if d.err == nil {
			r.o = decodeOriginal(d, true)
			if r.o != nil {
				r.o.extents = pieceSum{n: n, sum: binary.LittleEndian.Uint64(sum)}
			}
		}
	}
	if d.err != nil || len(d.b) != 0 {
		return nil, fmt.Errorf("%w: %v", errLearned, d.err)
	}
	return r, nil
}

// LearntStream is how many decompressed bytes the member search behind
// a LearnOriginal result read, when it read the whole file (a gzip file
// whose members all restore).
func LearntStream(b []byte) (int64, bool) {
	r, err := decodeLearned(b)
	if err != nil || r.o == nil {
		return 0, false
	}
	var n int64
	for _, l := range r.o.Lens {
		n += l
	}
	return n, true
}
