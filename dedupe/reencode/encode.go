package reencode

import (
	"bytes"
	stdflate "compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/flate"
)

// Encode appends to dst the entity p encodes decoded into: the bytes
// Find matched when p came from Find.
func Encode(dst []byte, p Params, decoded []byte) ([]byte, error) {
	if err := p.check(); err != nil {
		return dst, err
	}
	w := &appendWriter{b: dst}
	if err := encodeTo(w, &p, decoded); err != nil {
		return dst, fmt.Errorf("re-encode %s: %w", p, err)
	}
	return w.b, nil
}

// encodeTo writes the entity to w; p has been checked. The input goes to
// the encoder in one Write: brotli's encoder takes its size hint from the
// first input it sees (it changes the output from 1 MiB on), as the C
// command-line tool, which sets the hint to the file size, does.
func encodeTo(w io.Writer, p *Params, decoded []byte) error {
	if len(p.Header) > 0 {
		if _, err := w.Write(p.Header); err != nil {
			return err
		}
	}
	var enc io.WriteCloser
	switch {
	case p.Codec == CodecBrotli:
		enc = brotli.NewWriterOptions(w, brotli.WriterOptions{Quality: p.Level, LGWin: p.Window})
	case p.Impl == ImplKlauspost:
		fw, err := flate.NewWriter(w, p.Level)
		if err != nil {
			return err
		}
		enc = fw
	default:
		fw, err := stdflate.NewWriter(w, p.Level)
		if err != nil {
			return err
		}
		enc = fw
	}
	if _, err := enc.Write(decoded); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	var t []byte
	switch p.Codec {
	case CodecGzip:
		t = binary.LittleEndian.AppendUint32(t, crc32.ChecksumIEEE(decoded))
		t = binary.LittleEndian.AppendUint32(t, uint32(len(decoded)))
	case CodecZlib:
		t = binary.BigEndian.AppendUint32(t, adler32.Checksum(decoded))
	default:
		return nil
	}
	_, err := w.Write(t)
	return err
}

type appendWriter struct{ b []byte }

func (a *appendWriter) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}

// errDiffer stops a trial at the first byte that differs from the
// stored entity.
var errDiffer = errors.New("output differs")

// cmpWriter compares what an encoder writes with want and fails at the
// first difference, so a wrong setting costs only the encoder's work up
// to its first differing output.
type cmpWriter struct {
	want []byte
	n    int
}

func (c *cmpWriter) Write(p []byte) (int, error) {
	if len(p) > len(c.want)-c.n || !bytes.Equal(p, c.want[c.n:c.n+len(p)]) {
		return 0, errDiffer
	}
	c.n += len(p)
	return len(p), nil
}

// reproduces reports whether Encode(p, decoded) equals want.
func reproduces(p *Params, decoded, want []byte) bool {
	c := &cmpWriter{want: want}
	return encodeTo(c, p, decoded) == nil && c.n == len(want)
}
