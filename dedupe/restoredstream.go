package dedupe

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
	"sync/atomic"

	"github.com/blockwarc/blockwarc/warcio"
	"github.com/klauspost/compress/zstd"
)

// An input file that does not restore bit for bit as given (not proven
// yet, or a gzip file zlib does not reproduce) still restores as its
// decompressed stream. Compact and upgrade ingest that stream instead
// of the file, and place each record and gap where the archive says it
// was in the file ingested (warcio.WalkOptions.Relocate), then describe
// the file with its own row (name, size, SHA-256, why it does not
// restore as given). The copy's catalog then says what an ingest of the
// file itself says, and 'blockwarc prove' can still prove it from the
// original later.

// restoredStream is one such file: the row it stands for, and its
// places file, one placeSize entry per version in file order.
type restoredStream struct {
	row    InputFile
	places string
	n      int64        // entries in places
	placed atomic.Int64 // records and gaps the walk placed
}

// placeSize is an entry of a places file: the version's start and end in
// the stream, and its Offset, Skip and Length in the file ingested.
const placeSize = 5 * 8

type placeEntry struct{ pos, end, off, skip, length int64 }

// streamRestorable says whether compact and upgrade can copy f as its
// stream: its records and gaps tile a stream of known length and digest.
func streamRestorable(f *InputFile) bool { return f.Rebuildable && f.StreamLen >= 0 }

// writeRestoredStream writes f's decompressed stream to p as zstd frames
// at the fastest level (a fraction of the stream's size on disk for a
// few percent of the CPU a re-deflate costs), and f's places beside it.
// A frame ends where a member of the file ends before a version starts
// in the next (the member a version starts in begins Skip bytes before
// it): a reader ends a record whose length is wrong at the end of its
// member, so the copy must keep the boundaries the file had.
func writeRestoredStream(a *Archive, p string, f InputFile, vs []Version) (*restoredStream, error) {
	rs := &restoredStream{row: f, places: p + ".places"}
	out, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	pf, err := os.OpenFile(rs.places, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	bw, pw := bufio.NewWriterSize(out, 1<<20), bufio.NewWriterSize(pf, 64<<10)
	zw, err := zstd.NewWriter(bw, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	fw := &memberFrames{zw: zw, dst: bw, plain: true}
	var pos int64
	var e [placeSize]byte
	st, err := a.streamSource(io.Discard, f, vs, nil, func(v *Version, _ *Parts, rec []byte, err error) error {
		if err != nil {
			return err
		}
		n := int64(len(rec))
		for i, x := range [...]int64{pos, pos + n, v.Offset, v.Skip, v.Length} {
			binary.LittleEndian.PutUint64(e[8*i:], uint64(x))
		}
		if err := fw.add(v, pos, rec); err != nil {
			return err
		}
		pos += n
		rs.n++
		_, err = pw.Write(e[:])
		return err
	})
	if err == nil {
		err = fw.close()
	}
	if err == nil && (st.Bytes != f.StreamLen || st.SHA256 != f.StreamSHA256) {
		err = fmt.Errorf("%s: its stream restores as %d bytes (SHA-256 %x), the archive recorded %d (%x): run blockwarc verify", f.Name, st.Bytes, st.SHA256, f.StreamLen, f.StreamSHA256)
	}
	for _, e := range []error{bw.Flush(), pw.Flush(), out.Sync(), pf.Sync()} {
		if err == nil {
			err = e
		}
	}
	if err != nil {
		return nil, err
	}
	return rs, nil
}

// memberFrames writes the versions of a file in zstd frames cut where
// its members were. A version's member may begin inside the version
// before it (which ran on into it), so that one is held until the next
// is known; the member of version i begins at or after the start of
// version i-1, since it begins at or after the member of i-1.
type memberFrames struct {
	zw         *zstd.Encoder
	dst        io.Writer
	held       []byte // the last version's bytes, not yet written
	heldAt     int64  // their stream position
	frameStart int64
	// plain: every version so far is where it is in the stream (an
	// uncompressed file): one frame, as the file was one stream.
	plain bool
}

func (m *memberFrames) add(v *Version, pos int64, rec []byte) error {
	if m.plain && (v.Offset != pos || v.Skip != 0) {
		m.plain = false
	}
	held := m.held
	if start := pos - v.Skip; !m.plain && start > m.frameStart && start >= m.heldAt && start-m.heldAt <= int64(len(held)) {
		cut := start - m.heldAt
		if _, err := m.zw.Write(held[:cut]); err != nil {
			return err
		}
		if err := m.zw.Close(); err != nil {
			return err
		}
		m.zw.Reset(m.dst)
		m.frameStart, held = start, held[cut:]
	}
	if _, err := m.zw.Write(held); err != nil {
		return err
	}
	m.held, m.heldAt = rec, pos
	return nil
}

func (m *memberFrames) close() error {
	if _, err := m.zw.Write(m.held); err != nil {
		return err
	}
	m.held = nil
	return m.zw.Close()
}

// relocator is the walk's Relocate for an ingest of restored streams:
// the places of a file are in memory while the walk reads it (40 bytes
// per record and gap of that file), not for the whole collection.
func relocator(restored map[string]*restoredStream) func(string) func(*warcio.Record) error {
	return func(file string) func(*warcio.Record) error {
		rs := restored[file]
		if rs == nil {
			return nil
		}
		places, err := readPlaces(rs)
		return func(rec *warcio.Record) error {
			if err != nil {
				return err
			}
			i, ok := slices.BinarySearchFunc(places, rec.Pos, func(e placeEntry, pos int64) int { return cmp.Compare(e.pos, pos) })
			if !ok || places[i].end != rec.End {
				return fmt.Errorf("%s restored from the archive: the bytes %d to %d of its stream read as a record or gap that is not one of the file ingested: nothing was written; the archive itself is unchanged", rs.row.Name, rec.Pos, rec.End)
			}
			rec.Offset, rec.SkipInMember, rec.Length = places[i].off, places[i].skip, places[i].length
			rs.placed.Add(1)
			return nil
		}
	}
}

func readPlaces(rs *restoredStream) ([]placeEntry, error) {
	f, err := os.Open(rs.places)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := make([]placeEntry, 0, rs.n)
	br := bufio.NewReaderSize(f, 64<<10)
	var e [placeSize]byte
	for {
		if _, err := io.ReadFull(br, e[:]); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("read %s: %w", rs.places, err)
		}
		var x [5]int64
		for i := range x {
			x[i] = int64(binary.LittleEndian.Uint64(e[8*i:]))
		}
		out = append(out, placeEntry{x[0], x[1], x[2], x[3], x[4]})
	}
	if int64(len(out)) != rs.n {
		return nil, fmt.Errorf("%s: %d places, %d written", rs.places, len(out), rs.n)
	}
	return out, nil
}

// apply makes in, the row an ingest of the stream wrote, the row of the
// file the stream stands for, once it has checked that the stream read
// as that file did. A shard's ingest (selected) places and counts only
// the records of its keys.
func (rs *restoredStream) apply(in *InputFile, selected bool) error {
	r := &rs.row
	switch {
	case !selected && rs.placed.Load() != rs.n:
		return fmt.Errorf("%s restored from the archive: %d of its %d records and gaps read back", r.Name, rs.placed.Load(), rs.n)
	case (!selected && in.Records != r.Records) || in.Gaps != r.Gaps:
		return fmt.Errorf("%s restored from the archive: read as %d records and %d gaps; the file ingested as %d and %d", r.Name, in.Records, in.Gaps, r.Records, r.Gaps)
	case in.StreamLen != r.StreamLen || in.StreamSHA256 != r.StreamSHA256 || in.Rebuildable != r.Rebuildable:
		return fmt.Errorf("%s restored from the archive: its stream reads as %d bytes (SHA-256 %x), the file's is %d (%x)", r.Name, in.StreamLen, in.StreamSHA256, r.StreamLen, r.StreamSHA256)
	}
	// What the file's reader skipped as malformed may be damage of its
	// compression (bytes after the last gzip member), which its stream
	// does not hold: the count is the file's.
	in.Size, in.SHA256, in.Malformed, in.Original, in.OriginalWhy = r.Size, r.SHA256, r.Malformed, r.Original, r.OriginalWhy
	if in.OriginalWhy == originalUnknown {
		// Ingested before catalog version 6 (upgrade): never examined,
		// which 'blockwarc prove' can do now that the row says so.
		in.OriginalWhy = originalSkipped
	}
	return nil
}

// checkRestoredTodo says when a restored stream is not among the inputs
// to read: an ingest takes a file equal to an earlier one (base name,
// size, SHA-256) for that one, and the copy would lack its row.
func checkRestoredTodo(restored map[string]*restoredStream, todo []input) error {
	if len(restored) == 0 {
		return nil
	}
	in := make(map[string]bool, len(todo))
	for _, t := range todo {
		in[t.path] = true
	}
	for p, rs := range restored {
		if !in[p] {
			return fmt.Errorf("%s restored from the archive as its stream (%s) is the same file as another input: the copy would lack its row; nothing was written", rs.row.Name, p)
		}
	}
	return nil
}
