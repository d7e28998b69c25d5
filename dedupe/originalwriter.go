package dedupe

// Rebuilding an input file as given: its decompressed stream deflated
// member by member with the recorded settings (export-warc -source
// -original, verify).

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"

	"github.com/blockwarc/blockwarc/dedupe/zlibenc"
)

// originalWriter turns a file's decompressed stream, written to it in
// any pieces, into the file's gzip members, written to w.
type originalWriter struct {
	w          io.Writer
	o          *Original
	i          int // next member
	run, inRun int // its run, and its place in the run
	buf        []byte
	out        []byte
	zs         *zlibenc.Stream
	n          int64
	h          hash.Hash
	// err is the first error; with soft set, Write does not return it
	// (verify checks the stream and the compressed file in one pass, and
	// a fault of the second must not hide the first).
	err  error
	soft bool
}

func newOriginalWriter(w io.Writer, o *Original) *originalWriter {
	return &originalWriter{w: w, o: o, h: sha256.New(), zs: zlibStreams.Get().(*zlibenc.Stream)}
}

// release returns the writer's deflate state to the pool; the writer is
// not used after.
func (ow *originalWriter) release() {
	if ow.zs != nil {
		zlibStreams.Put(ow.zs)
		ow.zs = nil
	}
}

func (ow *originalWriter) Write(p []byte) (int, error) {
	n, err := ow.write(p)
	if err != nil && ow.err == nil {
		ow.err = err
	}
	if ow.soft {
		return len(p), nil
	}
	return n, err
}

func (ow *originalWriter) write(p []byte) (int, error) {
	if ow.err != nil {
		return 0, ow.err
	}
	n := len(p)
	if ow.o.PerPiece {
		// One Write per piece (streamSource): a member each.
		if ow.i >= ow.o.members() {
			return 0, errors.New("stream has more pieces than its gzip members")
		}
		ow.buf = append(ow.buf[:0], p...)
		return n, ow.emit()
	}
	for {
		if err := ow.flushFull(); err != nil {
			return 0, err
		}
		if len(p) == 0 {
			return n, nil
		}
		if ow.i >= len(ow.o.Lens) {
			return 0, errors.New("stream longer than its gzip members")
		}
		k := min(int64(len(p)), ow.o.Lens[ow.i]-int64(len(ow.buf)))
		ow.buf = append(ow.buf, p[:k]...)
		p = p[k:]
	}
}

// flushFull writes every member whose decompressed bytes are all in.
func (ow *originalWriter) flushFull() error {
	for ow.i < len(ow.o.Lens) && int64(len(ow.buf)) == ow.o.Lens[ow.i] {
		if err := ow.emit(); err != nil {
			return err
		}
	}
	return nil
}

// emit writes the buffer as the next member.
func (ow *originalWriter) emit() error {
	r := &ow.o.Runs[ow.run]
	h := ow.o.Headers[r.Header]
	ow.out = append(ow.out[:0], h.Bytes...)
	var err error
	if ow.out, err = ow.zs.Deflate(ow.out, ow.buf, r.P); err != nil {
		return err
	}
	ow.out = binary.LittleEndian.AppendUint32(ow.out, crc32.ChecksumIEEE(ow.buf))
	ow.out = binary.LittleEndian.AppendUint32(ow.out, uint32(len(ow.buf)))
	if h.SL {
		binary.LittleEndian.PutUint32(ow.out[h.slAt:], uint32(len(ow.out)))
		binary.LittleEndian.PutUint32(ow.out[h.slAt+4:], uint32(len(ow.buf)))
	}
	ow.h.Write(ow.out)
	if _, err := ow.w.Write(ow.out); err != nil {
		return err
	}
	ow.n += int64(len(ow.out))
	ow.buf = ow.buf[:0]
	ow.i++
	if ow.inRun++; ow.inRun == r.Count {
		ow.run, ow.inRun = ow.run+1, 0
	}
	return nil
}

// close writes trailing empty members and fails when the stream ended
// before the members did.
func (ow *originalWriter) close() error {
	if ow.err != nil {
		return ow.err
	}
	if err := ow.flushFull(); err != nil {
		return err
	}
	if m := ow.o.members(); ow.i != m {
		return fmt.Errorf("stream ends in gzip member %d of %d", ow.i+1, m)
	}
	return nil
}

// ErrNoOriginal says an input file cannot be restored as given
// (compressed); the error names why.
var ErrNoOriginal = errors.New("cannot restore the original compressed file")

// WriteOriginal restores f as given (its compressed bytes) from the
// versions WalkSources returned for it, and checks the result against
// the size and SHA-256 ingest recorded (Exact); a mismatch is reported
// in the stats, not hidden.
func (a *Archive) WriteOriginal(w io.Writer, f InputFile, vs []Version) (SourceStats, error) {
	if !f.OriginalExact() {
		return SourceStats{}, fmt.Errorf("%w %s: %s", ErrNoOriginal, f.Name, f.OriginalReason())
	}
	if f.Original == nil { // not compressed: the stream is the file
		st, err := a.streamSource(w, f, vs, nil, nil)
		st.Exact = st.Exact && st.Bytes == f.Size && st.SHA256 == f.SHA256
		return st, err
	}
	if !zlibenc.Available {
		return SourceStats{}, fmt.Errorf("%w %s: this build has no zlib (built without cgo)", ErrNoOriginal, f.Name)
	}
	ow := newOriginalWriter(w, f.Original)
	defer ow.release()
	st, err := a.streamSource(ow, f, vs, nil, nil)
	if err == nil {
		err = ow.close()
	}
	return originalStats(st, ow, f), err
}

// originalStats turns the stream's stats into the compressed file's.
func originalStats(st SourceStats, ow *originalWriter, f InputFile) SourceStats {
	stream := st.Exact
	st.Bytes = ow.n
	ow.h.Sum(st.SHA256[:0])
	st.Exact = stream && ow.err == nil && ow.i == ow.o.members() && st.Bytes == f.Size && st.SHA256 == f.SHA256
	return st
}
