package chunk

import (
	"encoding/binary"
	"fmt"
	"sort"
)

// Frame locates one frame of a chunk file and the chunks it holds.
type Frame struct {
	Offset     int64  // of the zstd frame in the chunk file
	Size       uint32 // compressed bytes (table and body)
	Table      uint32 // of which the chunk table's zstd frame
	Plain      uint32 // plaintext bytes of the body (the chunks)
	FirstChunk uint64 // chunk number of the frame's chunk 0
	Chunks     uint32 // chunks held
	CRC        uint32 // CRC-32C (Castagnoli) of the compressed bytes
}

// Directory lists a chunk file's frames in file order: frames are
// contiguous from offset 0, chunk numbers contiguous from 0.
type Directory []Frame

// NextChunk is the number the next new chunk gets.
func (d Directory) NextChunk() uint64 {
	if len(d) == 0 {
		return 0
	}
	f := d[len(d)-1]
	return f.FirstChunk + uint64(f.Chunks)
}

// End is the chunk file's length.
func (d Directory) End() int64 {
	if len(d) == 0 {
		return 0
	}
	f := d[len(d)-1]
	return f.Offset + int64(f.Size)
}

// FrameOf returns the index of the frame holding chunk c, or -1.
func (d Directory) FrameOf(c uint64) int {
	i := sort.Search(len(d), func(i int) bool { return d[i].FirstChunk > c }) - 1
	if i < 0 || c >= d[i].FirstChunk+uint64(d[i].Chunks) {
		return -1
	}
	return i
}

// Append encodes the directory: uvarint frame count, then per frame
// uvarint Size, Table, Plain, Chunks and 4 bytes CRC (little-endian).
// Offsets and first chunks are the running sums: about 12 bytes a frame.
func (d Directory) Append(dst []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(d)))
	for _, f := range d {
		dst = binary.AppendUvarint(dst, uint64(f.Size))
		dst = binary.AppendUvarint(dst, uint64(f.Table))
		dst = binary.AppendUvarint(dst, uint64(f.Plain))
		dst = binary.AppendUvarint(dst, uint64(f.Chunks))
		dst = binary.LittleEndian.AppendUint32(dst, f.CRC)
	}
	return dst
}

// DecodeDirectory decodes Directory.Append's coding, all of b.
func DecodeDirectory(b []byte) (Directory, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) { // ≥ 8 bytes a frame
		return nil, fmt.Errorf("chunk: corrupt directory")
	}
	b = b[k:]
	d := make(Directory, 0, n)
	var off int64
	var first uint64
	for range n {
		var v [4]uint64
		for j := range v {
			x, k := binary.Uvarint(b)
			if k <= 0 || x > 1<<32-1 {
				return nil, fmt.Errorf("chunk: corrupt directory")
			}
			v[j] = x
			b = b[k:]
		}
		if len(b) < 4 {
			return nil, fmt.Errorf("chunk: corrupt directory")
		}
		if v[1] > v[0] {
			return nil, fmt.Errorf("chunk: corrupt directory")
		}
		f := Frame{Offset: off, Size: uint32(v[0]), Table: uint32(v[1]), Plain: uint32(v[2]), FirstChunk: first, Chunks: uint32(v[3]), CRC: binary.LittleEndian.Uint32(b)}
		b = b[4:]
		d = append(d, f)
		off += int64(f.Size)
		first += uint64(f.Chunks)
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("chunk: %d bytes after the directory", len(b))
	}
	return d, nil
}
