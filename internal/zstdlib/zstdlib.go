// Package zstdlib is the one place the reference zstd library (through
// cgo) compresses: frames of objects (package pack) and frames of chunks
// (package chunk) at level 19, with or without a raw-content dictionary.
// Without cgo, Available is false and callers use klauspost/compress.
// Frames are standard zstd either way; readers decode them with
// klauspost/compress.
package zstdlib

import "errors"

// ErrFormattedDict: the library reads a dictionary that starts with the
// zstd dictionary magic as a formatted dictionary, anything else as raw
// content. A raw dictionary (previous frames' bytes, delta bases) may
// start with any bytes: such a one is left to the pure-Go encoder.
var ErrFormattedDict = errors.New("dictionary starts with the zstd dictionary magic")

var dictMagic = []byte{0x37, 0xa4, 0x30, 0xec}

// NameDict rewrites the header of a zstd frame (RFC 8878 §3.1.1.1) that
// names no dictionary so that it names dictionary id (one byte, 1..255):
// the library writes no id for a raw-content dictionary, and the
// archive's frames name the one they need. Only the header changes: the
// frame checksum covers the content alone.
func NameDict(frame []byte, id byte) ([]byte, error) {
	if len(frame) < 6 || frame[0] != 0x28 || frame[1] != 0xb5 || frame[2] != 0x2f || frame[3] != 0xfd {
		return nil, errors.New("not a zstd frame")
	}
	fhd := frame[4]
	if fhd&3 != 0 {
		return nil, errors.New("zstd frame names a dictionary already")
	}
	at := 5
	if fhd&0x20 == 0 { // not single-segment: a window descriptor follows
		at++
	}
	out := make([]byte, 0, len(frame)+1)
	out = append(out, frame[:at]...)
	out[4] |= 1 // Dictionary_ID_flag 1: a 1-byte id
	out = append(out, id)
	return append(out, frame[at:]...), nil
}
