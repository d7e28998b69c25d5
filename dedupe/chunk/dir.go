package chunk

import (
	"fmt"
	"sort"
)

// Frame locates one frame of a chunk file and the chunks it holds. A
// reader holds one per frame of the archive (Directory), so the 8-byte
// fields come first: 40 bytes, not the 48 that padding made of them
// before.
type Frame struct {
	Offset     int64  // of the zstd frame in the chunk file
	FirstChunk uint64 // chunk number of the frame's chunk 0
	Size       uint32 // compressed bytes (table and body)
	Table      uint32 // of which the chunk table's zstd frame
	Plain      uint32 // plaintext bytes of the body (the chunks)
	Chunks     uint32 // chunks held
	CRC        uint32 // CRC-32C (Castagnoli) of the compressed bytes
	// Prefix is the number of frames just before this one whose bodies,
	// concatenated in file order, are the raw zstd dictionary its body is
	// compressed with (0: none). Those frames are the chain that the
	// previous frame ends: its own Prefix is Prefix-1 (docs/FORMAT.md
	// "Chains of frames of chunks").
	Prefix uint8
}

// MaxPrefix is the longest chain a frame may extend.
const MaxPrefix = 255

// maxChainPlain bounds the plaintext of a frame and the chain before it,
// whatever a directory says: what one decode may hold in memory.
const maxChainPlain = 1 << 28

// ChainStart is the first frame of the chain frame i ends (i itself when
// it has no prefix).
func (d Directory) ChainStart(i int) int { return i - int(d[i].Prefix) }

// CheckFrame checks that frame i's prefix names a chain the directory
// holds: frames i-Prefix..i-1, each extending the one before, within
// maxChainPlain bytes of plaintext in all.
func (d Directory) CheckFrame(i int) error {
	p := int(d[i].Prefix)
	if p > i {
		return errChainStart(i, p)
	}
	return checkChain(i, d[i-p:i+1])
}

func errChainStart(i, p int) error {
	return fmt.Errorf("frame %d extends a chain of %d frames, only %d precede it", i, p, i)
}

// checkChain checks chain, frames i-p..i where p is frame i's prefix:
// each extends the one before, within maxChainPlain bytes in all.
func checkChain(i int, chain []Frame) error {
	p := len(chain) - 1
	if p == 0 {
		return nil
	}
	if chain[p-1].Prefix != uint8(p-1) {
		return fmt.Errorf("frame %d extends a chain of %d frames, frame %d ends one of %d", i, p, i-1, int(chain[p-1].Prefix)+1)
	}
	var sum int64
	for _, f := range chain {
		sum += int64(f.Plain)
	}
	if sum > maxChainPlain {
		return fmt.Errorf("frame %d: its chain holds %d bytes (limit %d)", i, sum, maxChainPlain)
	}
	return nil
}

// CheckChains checks every frame's prefix (CheckFrame).
func (d Directory) CheckChains() error {
	for i := range d {
		if err := d.CheckFrame(i); err != nil {
			return err
		}
	}
	return nil
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

// Frames is the directory a Reader reads through: a Directory held
// whole, or one whose frames are read on demand (an archive's index
// rows), so that opening an archive to restore one capture does not cost
// O(frames) time and memory.
type Frames interface {
	Len() int
	// NextChunk is the number the next new chunk gets.
	NextChunk() uint64
	// Frame returns frame i (0 ≤ i < Len()).
	Frame(i int) (Frame, error)
	// Find returns the index of the frame holding chunk c and the frame
	// (-1 when none does).
	Find(c uint64) (int, Frame, error)
	// Whole returns every frame: what a Writer continues.
	Whole() (Directory, error)
}

// Len is the number of frames.
func (d Directory) Len() int { return len(d) }

// Frame returns frame i.
func (d Directory) Frame(i int) (Frame, error) { return d[i], nil }

// Find is FrameOf with the frame.
func (d Directory) Find(c uint64) (int, Frame, error) {
	i := d.FrameOf(c)
	if i < 0 {
		return -1, Frame{}, nil
	}
	return i, d[i], nil
}

// Whole returns d.
func (d Directory) Whole() (Directory, error) { return d, nil }
