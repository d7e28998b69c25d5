package reencode

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Codec is the container an encoded entity is in.
type Codec uint8

const (
	// CodecGzip is one gzip member (RFC 1952): the header as stored
	// (Params.Header), a deflate stream, CRC-32 and size of the decoded
	// bytes.
	CodecGzip Codec = 1
	// CodecZlib is a zlib stream (RFC 1950), what most servers send as
	// "deflate": the 2-byte header as stored, a deflate stream, Adler-32.
	CodecZlib Codec = 2
	// CodecDeflate is a raw deflate stream (RFC 1951), what some servers
	// send as "deflate".
	CodecDeflate Codec = 3
	// CodecBrotli is a brotli stream (RFC 7932).
	CodecBrotli Codec = 4
)

// Impl is the encoder implementation whose output Encode reproduces.
type Impl uint8

const (
	// ImplKlauspost is github.com/klauspost/compress/flate.
	ImplKlauspost Impl = 1
	// ImplStdlib is Go's compress/flate (what net/http servers such as
	// Caddy use through compress/gzip).
	ImplStdlib Impl = 2
	// ImplBrotli is github.com/andybalholm/brotli, a port of Google's C
	// encoder (same output for the same quality and window).
	ImplBrotli Impl = 3
)

// Params says how an encoded entity was produced from its decoded
// bytes: the container, the encoder and its settings, and the bytes that
// are not a function of the decoded content (a gzip header's MTIME, OS,
// FNAME…; a zlib header). Encode(Params, decoded) gives the entity back
// byte for byte.
type Params struct {
	Codec Codec
	Impl  Impl
	// Level is the flate level (-2 Huffman only, 0 stored, 1–9) or the
	// brotli quality (0–11).
	Level int
	// Window is the brotli window, log2 of its size (10–24); 0 for
	// flate codecs.
	Window int
	// Header is the gzip member header (10 bytes and the optional
	// fields its flags announce) or the 2-byte zlib header, exactly as
	// stored; nil for raw deflate and brotli.
	Header []byte
}

// paramsVersion is the version byte of MarshalBinary.
const paramsVersion = 1

// maxHeader bounds a gzip header kept in Params (FNAME, FCOMMENT and
// FEXTRA are free text a server rarely sets).
const maxHeader = 4096

// ErrParams says a Params value or its encoding is invalid.
var ErrParams = errors.New("invalid re-encoding params")

// check reports whether p names settings Encode knows.
func (p *Params) check() error {
	switch p.Codec {
	case CodecGzip, CodecZlib, CodecDeflate:
		if p.Impl != ImplKlauspost && p.Impl != ImplStdlib {
			return fmt.Errorf("%w: flate implementation %d", ErrParams, p.Impl)
		}
		if p.Level < -2 || p.Level > 9 {
			return fmt.Errorf("%w: flate level %d", ErrParams, p.Level)
		}
		if p.Window != 0 {
			return fmt.Errorf("%w: window %d for flate", ErrParams, p.Window)
		}
	case CodecBrotli:
		if p.Impl != ImplBrotli {
			return fmt.Errorf("%w: brotli implementation %d", ErrParams, p.Impl)
		}
		if p.Level < 0 || p.Level > 11 {
			return fmt.Errorf("%w: brotli quality %d", ErrParams, p.Level)
		}
		if p.Window < 10 || p.Window > 24 {
			return fmt.Errorf("%w: brotli window %d", ErrParams, p.Window)
		}
	default:
		return fmt.Errorf("%w: codec %d", ErrParams, p.Codec)
	}
	switch p.Codec {
	case CodecGzip:
		if n, err := gzipHeaderLen(p.Header); err != nil || n != len(p.Header) || n > maxHeader {
			return fmt.Errorf("%w: gzip header", ErrParams)
		}
	case CodecZlib:
		if len(p.Header) != 2 || !zlibHeaderOK(p.Header) {
			return fmt.Errorf("%w: zlib header", ErrParams)
		}
	default:
		if len(p.Header) != 0 {
			return fmt.Errorf("%w: header for codec %d", ErrParams, p.Codec)
		}
	}
	return nil
}

// MarshalBinary encodes p: version byte 1, codec, implementation, level
// + 2, window (one byte each), then the header as uvarint length +
// bytes. It fails on invalid params.
func (p Params) MarshalBinary() ([]byte, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	b := make([]byte, 0, 6+len(p.Header))
	b = append(b, paramsVersion, byte(p.Codec), byte(p.Impl), byte(p.Level+2), byte(p.Window))
	b = binary.AppendUvarint(b, uint64(len(p.Header)))
	return append(b, p.Header...), nil
}

// UnmarshalBinary decodes what MarshalBinary wrote. It is strict: an
// unknown version, invalid settings or extra bytes are errors, so that a
// params blob has one meaning.
func (p *Params) UnmarshalBinary(b []byte) error {
	if len(b) < 6 || b[0] != paramsVersion {
		return fmt.Errorf("%w: bad version or length", ErrParams)
	}
	q := Params{Codec: Codec(b[1]), Impl: Impl(b[2]), Level: int(b[3]) - 2, Window: int(b[4])}
	n, k := binary.Uvarint(b[5:])
	// The length must be in its shortest form: one blob, one meaning.
	if k <= 0 || n != uint64(len(b)-5-k) || k != len(binary.AppendUvarint(nil, n)) {
		return fmt.Errorf("%w: bad header length", ErrParams)
	}
	if n > 0 {
		q.Header = append([]byte(nil), b[5+k:]...)
	}
	if err := q.check(); err != nil {
		return err
	}
	*p = q
	return nil
}

// String names the settings ("gzip/stdlib-6", "br/q11-w22").
func (p Params) String() string {
	names := map[Codec]string{CodecGzip: "gzip", CodecZlib: "zlib", CodecDeflate: "deflate", CodecBrotli: "br"}
	switch p.Impl {
	case ImplKlauspost:
		return fmt.Sprintf("%s/klauspost-%d", names[p.Codec], p.Level)
	case ImplStdlib:
		return fmt.Sprintf("%s/stdlib-%d", names[p.Codec], p.Level)
	case ImplBrotli:
		return fmt.Sprintf("br/q%d-w%d", p.Level, p.Window)
	}
	return fmt.Sprintf("codec%d/impl%d-%d", p.Codec, p.Impl, p.Level)
}

// gzipHeaderLen returns the length of the gzip member header at the
// start of b (RFC 1952 section 2.3), checking its header CRC when FHCRC
// is set only for presence (the bytes are kept as stored).
func gzipHeaderLen(b []byte) (int, error) {
	errHdr := errors.New("bad gzip header")
	if len(b) < 10 || b[0] != 0x1f || b[1] != 0x8b || b[2] != 8 || b[3]&0xe0 != 0 {
		return 0, errHdr
	}
	flg, n := b[3], 10
	if flg&4 != 0 { // FEXTRA
		if len(b) < n+2 {
			return 0, errHdr
		}
		n += 2 + int(binary.LittleEndian.Uint16(b[n:]))
		if n > len(b) {
			return 0, errHdr
		}
	}
	for _, bit := range []byte{8, 16} { // FNAME, FCOMMENT: zero-terminated
		if flg&bit == 0 {
			continue
		}
		for {
			if n >= len(b) {
				return 0, errHdr
			}
			n++
			if b[n-1] == 0 {
				break
			}
		}
	}
	if flg&2 != 0 { // FHCRC
		n += 2
		if n > len(b) {
			return 0, errHdr
		}
	}
	return n, nil
}

// zlibHeaderOK reports whether h is a zlib header Encode can follow:
// deflate, a window of at most 32 KiB, a valid check, no preset
// dictionary.
func zlibHeaderOK(h []byte) bool {
	return len(h) >= 2 && h[0]&0x0f == 8 && h[0]>>4 <= 7 && (uint(h[0])<<8|uint(h[1]))%31 == 0 && h[1]&0x20 == 0
}
