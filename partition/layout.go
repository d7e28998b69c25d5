package partition

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// Layout is the document with every kept block (leaf) cut out: Gaps[i]
// is the run of bytes before leaf i, and Gaps[len(Gaps)-1] the run after
// the last leaf. Gaps alias the document; they are not copies.
// Paths names the leaf each placeholder stands for, for the human view;
// it is not part of the encoding.
type Layout struct {
	Gaps  [][]byte // len(Leaves)+1 byte runs between the kept blocks
	Paths []string // Path of each leaf, len(Gaps)-1 (empty after Decode)
}

func newLayout(doc []byte, leaves []*Block) Layout {
	l := Layout{Gaps: make([][]byte, 0, len(leaves)+1), Paths: make([]string, 0, len(leaves))}
	at := 0
	for _, b := range leaves {
		l.Gaps = append(l.Gaps, doc[at:b.Start:b.Start])
		l.Paths = append(l.Paths, b.Path)
		at = b.End
	}
	l.Gaps = append(l.Gaps, doc[at:len(doc):len(doc)])
	return l
}

// Blocks is the number of placeholders in l.
func (l Layout) Blocks() int { return max(0, len(l.Gaps)-1) }

// ErrBlockCount is returned by Reassemble when the number of blocks does
// not match the layout's placeholders.
var ErrBlockCount = errors.New("block count does not match layout")

// Reassemble interleaves the layout's gaps with blocks: for the layout
// and leaves of a partition it returns exactly the partitioned document.
func Reassemble(l Layout, blocks [][]byte) ([]byte, error) {
	if len(l.Gaps) == 0 && len(blocks) == 0 {
		return []byte{}, nil
	}
	if len(blocks) != len(l.Gaps)-1 {
		return nil, fmt.Errorf("reassemble %d blocks into %d placeholders: %w", len(blocks), l.Blocks(), ErrBlockCount)
	}
	n := 0
	for _, g := range l.Gaps {
		n += len(g)
	}
	for _, b := range blocks {
		n += len(b)
	}
	out := make([]byte, 0, n)
	for i, b := range blocks {
		out = append(out, l.Gaps[i]...)
		out = append(out, b...)
	}
	return append(out, l.Gaps[len(l.Gaps)-1]...), nil
}

// layoutMagic opens every encoded layout; the byte after it is the
// format version.
const (
	layoutMagic   = "BWLY"
	layoutVersion = 1
)

// ErrLayoutFormat is wrapped by Decode for bytes that are not an encoded
// layout (typically a truncated or corrupt archive object).
var ErrLayoutFormat = errors.New("malformed layout encoding")

// Encode returns the archive form of l: "BWLY", version byte 1, uvarint
// number of gaps, then each gap as uvarint length and bytes. It is
// unambiguous for any gap bytes and stable: equal gaps encode equally
// (Paths are not encoded, so a layout's identity is its bytes).
func (l Layout) Encode() []byte {
	n := len(layoutMagic) + 1 + binary.MaxVarintLen64
	for _, g := range l.Gaps {
		n += binary.MaxVarintLen64 + len(g)
	}
	out := make([]byte, 0, n)
	out = append(out, layoutMagic...)
	out = append(out, layoutVersion)
	out = binary.AppendUvarint(out, uint64(len(l.Gaps)))
	for _, g := range l.Gaps {
		out = binary.AppendUvarint(out, uint64(len(g)))
		out = append(out, g...)
	}
	return out
}

// Decode parses the output of Encode. The gaps alias data.
func Decode(data []byte) (Layout, error) {
	if !bytes.HasPrefix(data, []byte(layoutMagic)) {
		return Layout{}, fmt.Errorf("decode layout: missing magic: %w", ErrLayoutFormat)
	}
	p := data[len(layoutMagic):]
	if len(p) == 0 || p[0] != layoutVersion {
		return Layout{}, fmt.Errorf("decode layout: unsupported version: %w", ErrLayoutFormat)
	}
	p = p[1:]
	count, k := binary.Uvarint(p)
	if k <= 0 || count == 0 || count > uint64(len(p)) {
		return Layout{}, fmt.Errorf("decode layout: bad gap count: %w", ErrLayoutFormat)
	}
	p = p[k:]
	l := Layout{Gaps: make([][]byte, 0, count)}
	for i := uint64(0); i < count; i++ {
		n, k := binary.Uvarint(p)
		if k <= 0 || n > uint64(len(p)-k) {
			return Layout{}, fmt.Errorf("decode layout: gap %d: bad length: %w", i, ErrLayoutFormat)
		}
		p = p[k:]
		l.Gaps = append(l.Gaps, p[:n:n])
		p = p[n:]
	}
	if len(p) != 0 {
		return Layout{}, fmt.Errorf("decode layout: %d trailing bytes: %w", len(p), ErrLayoutFormat)
	}
	return l, nil
}

// Human returns the layout for people: the gaps with a placeholder
// comment <!--blockwarc:block PATH--> where each block was (PATH is the
// leaf's path, or its 1-based index when Paths is unknown). It is a view,
// not a format: the page itself may contain such comments; use Encode to
// store a layout.
func (l Layout) Human() []byte {
	var b bytes.Buffer
	for i, g := range l.Gaps {
		b.Write(g)
		if i == len(l.Gaps)-1 {
			break
		}
		b.WriteString("<!--blockwarc:block ")
		if i < len(l.Paths) {
			b.WriteString(l.Paths[i])
		} else {
			fmt.Fprintf(&b, "%d", i+1)
		}
		b.WriteString("-->")
	}
	return b.Bytes()
}
