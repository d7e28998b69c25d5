package reencode

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"io"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/flate"
)

// Limits bound the work of Find on one entity. The zero value means the
// defaults.
type Limits struct {
	// MaxDecoded is the largest decoded size Find accepts (default
	// DefaultMaxDecoded).
	MaxDecoded int
	// MaxTrials is how many encoder settings Find tries at most
	// (default: all the candidates, at most 22).
	MaxTrials int
	// MaxEncodeTime is how long Encode may take, estimated from the
	// decoded size and the setting's measured speed (encodeRate);
	// settings that would be slower are not tried (default
	// DefaultMaxEncodeTime). It keeps a restore within its budget.
	MaxEncodeTime time.Duration
}

// Defaults of Limits.
const (
	// DefaultMaxDecoded: HTML pages are rarely above a few hundred KiB;
	// above 8 MiB Find is not worth its memory and time.
	DefaultMaxDecoded = 8 << 20
	// DefaultMaxEncodeTime is half the 20 ms restore budget (p99) of a
	// record: the rest goes to reading and decompressing frames.
	DefaultMaxEncodeTime = 10 * time.Millisecond
)

func (l Limits) withDefaults() Limits {
	if l.MaxDecoded <= 0 {
		l.MaxDecoded = DefaultMaxDecoded
	}
	if l.MaxTrials <= 0 {
		l.MaxTrials = 1 << 30
	}
	if l.MaxEncodeTime <= 0 {
		l.MaxEncodeTime = DefaultMaxEncodeTime
	}
	return l
}

// Find decodes encoded, an entity with one content coding ("gzip",
// "x-gzip", "deflate" zlib-wrapped or raw, "br"), and searches for
// encoder settings with which Encode reproduces encoded byte for byte.
// When ok, decoded is the decoded entity and p the settings; otherwise
// why says briefly why not ("no setting reproduces it", "slow to
// re-encode", "decoded larger than the limit"…) and decoded may be nil.
// Find never panics on input, and its work is bounded by lim.
func Find(coding string, encoded []byte, lim Limits) (decoded []byte, p Params, ok bool, why string) {
	lim = lim.withDefaults()
	switch coding {
	case "gzip", "x-gzip":
		return findGzip(encoded, lim)
	case "deflate":
		return findDeflate(encoded, lim)
	case "br":
		return findBrotli(encoded, lim)
	}
	return nil, Params{}, false, fmt.Sprintf("coding %q not supported", coding)
}

// inflate decodes the deflate stream at the start of b and returns it
// with the number of bytes of b it took.
func inflate(b []byte, max int) ([]byte, int, string) {
	br := bytes.NewReader(b) // an io.ByteReader: flate reads no further than the stream
	fr := flate.NewReader(br)
	defer fr.Close()
	out, err := io.ReadAll(io.LimitReader(fr, int64(max)+1))
	if err != nil {
		return nil, 0, "bad deflate stream"
	}
	if len(out) > max {
		return nil, 0, "decoded larger than the limit"
	}
	return out, len(b) - br.Len(), ""
}

func findGzip(encoded []byte, lim Limits) ([]byte, Params, bool, string) {
	h, err := gzipHeaderLen(encoded)
	if err != nil {
		return nil, Params{}, false, "bad gzip header"
	}
	if h > maxHeader {
		return nil, Params{}, false, "gzip header too long"
	}
	dec, n, why := inflate(encoded[h:], lim.MaxDecoded)
	if why != "" {
		return nil, Params{}, false, why
	}
	t := encoded[h+n:]
	switch {
	case len(t) < 8:
		return dec, Params{}, false, "truncated gzip member"
	case len(t) > 8:
		return dec, Params{}, false, "bytes after the gzip member"
	case binary.LittleEndian.Uint32(t) != crc32.ChecksumIEEE(dec) || binary.LittleEndian.Uint32(t[4:]) != uint32(len(dec)):
		return dec, Params{}, false, "gzip trailer does not match"
	}
	// Go's gzip writers (compress/gzip, klauspost/compress/gzip) write
	// OS = 255 and XFL = 2 for level 9, 4 for level 1, else 0. Another
	// OS byte means another writer (zlib writes 3 on Unix, 0 on
	// Windows), whose deflate output no Go encoder reproduces: trying
	// would cost up to 22 encodes of the page for nothing.
	if encoded[9] != 255 {
		return dec, Params{}, false, fmt.Sprintf("gzip not written by Go (OS byte %d)", encoded[9])
	}
	var levels []int
	switch encoded[8] {
	case 2:
		levels = []int{9}
	case 4:
		levels = []int{1}
	case 0:
		levels = []int{6, 5, 4, 7, 8, 3, 2, 0, -2}
	default:
		return dec, Params{}, false, "gzip XFL not written by Go"
	}
	p := Params{Codec: CodecGzip, Header: bytes.Clone(encoded[:h])}
	return searchFlate(dec, encoded, p, levels, lim)
}

func findDeflate(encoded []byte, lim Limits) ([]byte, Params, bool, string) {
	if zlibHeaderOK(encoded) {
		if dec, n, why := inflate(encoded[2:], lim.MaxDecoded); why == "" {
			t := encoded[2+n:]
			if len(t) != 4 || binary.BigEndian.Uint32(t) != adler32.Checksum(dec) {
				return dec, Params{}, false, "zlib trailer does not match"
			}
			// Go's zlib writers derive FLEVEL from the level.
			levels := [][]int{{1, 0, -2}, {5, 4, 3, 2}, {6}, {9, 7, 8}}[encoded[1]>>6]
			p := Params{Codec: CodecZlib, Header: bytes.Clone(encoded[:2])}
			return searchFlate(dec, encoded, p, levels, lim)
		}
	}
	dec, n, why := inflate(encoded, lim.MaxDecoded)
	if why != "" {
		return nil, Params{}, false, why
	}
	if n != len(encoded) {
		return dec, Params{}, false, "bytes after the deflate stream"
	}
	return searchFlate(dec, encoded, Params{Codec: CodecDeflate}, []int{6, 5, 1, 9, 4, 7, 8, 3, 2, 0, -2}, lim)
}

// searchFlate tries levels of the standard library's encoder and of
// klauspost's, level by level (the standard library first: Go servers
// use compress/gzip).
func searchFlate(dec, encoded []byte, p Params, levels []int, lim Limits) ([]byte, Params, bool, string) {
	var cands []Params
	for _, l := range levels {
		for _, impl := range []Impl{ImplStdlib, ImplKlauspost} {
			q := p
			q.Impl, q.Level = impl, l
			cands = append(cands, q)
		}
	}
	return search(dec, encoded, cands, lim)
}

// brotliQualities is the order Find tries brotli qualities in: 11 (the
// C tool's default, for files compressed ahead of time), 5 and 6
// (common on-the-fly defaults), 4, 9, 1, then the rest.
var brotliQualities = [...]int{11, 5, 6, 4, 9, 1, 0, 2, 3, 7, 8, 10}

func findBrotli(encoded []byte, lim Limits) ([]byte, Params, bool, string) {
	win, ok := brotliWindow(encoded)
	if !ok {
		return nil, Params{}, false, "brotli window not supported"
	}
	out, err := io.ReadAll(io.LimitReader(brotli.NewReader(bytes.NewReader(encoded)), int64(lim.MaxDecoded)+1))
	if err != nil {
		return nil, Params{}, false, "bad brotli stream"
	}
	if len(out) > lim.MaxDecoded {
		return nil, Params{}, false, "decoded larger than the limit"
	}
	cands := make([]Params, 0, len(brotliQualities))
	for _, q := range brotliQualities {
		cands = append(cands, Params{Codec: CodecBrotli, Impl: ImplBrotli, Level: q, Window: win})
		// Qualities 0 and 1 write a window of at least 18 in the header
		// but keep distances within the one asked for.
		if q <= 1 && win == 18 {
			for w := 17; w >= 10; w-- {
				cands = append(cands, Params{Codec: CodecBrotli, Impl: ImplBrotli, Level: q, Window: w})
			}
		}
	}
	return search(out, encoded, cands, lim)
}

// brotliWindow reads the window size (WBITS) from a brotli stream
// header (RFC 7932 section 9.1). Large-window streams are refused.
func brotliWindow(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	x := uint(b[0]) // the header is in the first 7 bits
	if x&1 == 0 {
		return 16, true
	}
	if n := (x >> 1) & 7; n != 0 {
		return 17 + int(n), true
	}
	switch m := (x >> 4) & 7; {
	case m == 0:
		return 17, true
	case m == 1:
		return 0, false // large window
	default:
		return 8 + int(m), true
	}
}

// search tries the candidates in order within the limits.
func search(dec, encoded []byte, cands []Params, lim Limits) ([]byte, Params, bool, string) {
	tried, slow := 0, false
	for i := range cands {
		if encodeTime(&cands[i], len(dec)) > lim.MaxEncodeTime {
			slow = true
			continue
		}
		if tried >= lim.MaxTrials {
			return dec, Params{}, false, "trial budget spent"
		}
		tried++
		if reproduces(&cands[i], dec, encoded) {
			return dec, cands[i], true, ""
		}
	}
	if slow {
		return dec, Params{}, false, "slow to re-encode"
	}
	return dec, Params{}, false, "no encoder setting reproduces it"
}
