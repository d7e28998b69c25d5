package pack

import (
	"errors"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/chunk"
)

// TestOpenDirectoryChecks: the directory an open builds from the rows
// (openDirectory, without keeping them) is sorted by first chunk and
// checked as chunkDirectory's: a gap, an overlap, an empty frame or a
// chain the directory does not hold is corrupt, named by the pack and
// the offset of the frame's header.
func TestOpenDirectoryChecks(t *testing.T) {
	row := func(pack uint32, off int64, first uint64, chunks uint32, prefix uint8) chunkRow {
		return chunkRow{pack: pack, off: off, len: frameFixedSize + 4 + 100, first: first, chunks: chunks, plain: 1000, crc: uint32(off), prefix: prefix}
	}
	good := []chunkRow{row(1, 16, 0, 3, 0), row(1, 500, 3, 2, 1), row(2, 16, 5, 4, 0)}
	// Out of order, as rows of indexes that do not follow chunk order.
	dir, err := checkDirectory([]chunk.Frame{frameOf(good[2]), frameOf(good[0]), frameOf(good[1])})
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range dir {
		if want := frameOf(good[i]); f != want {
			t.Errorf("frame %d: %+v, want %+v", i, f, want)
		}
	}
	if d2, err := directoryOf(append([]chunkRow(nil), good...)); err != nil || len(d2) != len(dir) || d2[2] != dir[2] {
		t.Errorf("directoryOf: %v, %v; openDirectory's frames %v", d2, err, dir)
	}
	for _, c := range []struct {
		name string
		rows []chunkRow
		at   chunkRow // the row the error must name
		says string
	}{
		{"gap", []chunkRow{good[0], row(1, 500, 4, 2, 0)}, row(1, 500, 4, 2, 0), "from 4 (2 chunks), expected 3"},
		{"overlap", []chunkRow{good[0], row(2, 900, 2, 2, 0)}, row(2, 900, 2, 2, 0), "from 2 (2 chunks), expected 3"},
		{"empty", []chunkRow{good[0], row(3, 64, 3, 0, 0)}, row(3, 64, 3, 0, 0), "(0 chunks)"},
		{"chain", []chunkRow{good[0], row(1, 500, 3, 2, 2)}, row(1, 500, 3, 2, 2), "extends a chain of 2 frames"},
	} {
		frames := make([]chunk.Frame, len(c.rows))
		for i, r := range c.rows {
			frames[i] = frameOf(r)
		}
		_, err := checkDirectory(frames)
		var ce *CorruptError
		if !errors.As(err, &ce) || ce.File != packName(c.at.pack) || ce.Offset != c.at.off || !strings.Contains(ce.Reason, c.says) {
			t.Errorf("%s: %v, want a corrupt %s at %d saying %q", c.name, err, packName(c.at.pack), c.at.off, c.says)
		}
	}
}
