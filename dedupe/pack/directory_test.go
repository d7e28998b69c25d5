package pack

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

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

// TestOpenDirectoryBlocks: an index whose chunk-frame table spans several
// of eachChunkRow's reads gives openDirectory the directory chunkDirectory
// gives, and a bad row in a later read is named at its own offset.
func TestOpenDirectoryBlocks(t *testing.T) {
	n := 2*chunkRowBlock + 5
	rows := synthRows(n)
	ix := chunkIndex(t, 1, rows)
	got, err := openDirectory([]*indexFile{ix})
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := chunkDirectory([]*indexFile{ix})
	if err != nil || len(got) != n || !slices.Equal(got, want) {
		t.Fatalf("openDirectory: %d frames, chunkDirectory: %d (%v); equal %v", len(got), len(want), err, slices.Equal(got, want))
	}
	bad := chunkRowBlock + 7
	rows[bad].off = 0 // before the pack's header: a bad row
	ix2 := chunkIndex(t, 2, rows)
	off, _ := chunkSection(ix2.n, ix2.nf, ix2.nc, ix2.lay)
	_, err = openDirectory([]*indexFile{ix2})
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Offset != int64(off)+int64(bad*chunkRowSize) || !strings.Contains(ce.Reason, "bad chunk-frame row") {
		t.Errorf("got %v, want a bad chunk-frame row at %d", err, int64(off)+int64(bad*chunkRowSize))
	}
}

// synthRows are n chunk-frame rows of 8 chunks each, numbered in order,
// 64 Ki frames a pack.
func synthRows(n int) []chunkRow {
	rows := make([]chunkRow, n)
	for i := range rows {
		rows[i] = chunkRow{pack: 1 + uint32(i>>16), off: packHeaderSize + int64(i&0xffff)*4096, len: frameFixedSize + 4 + 4000,
			first: uint64(i) * 8, chunks: 8, table: 100, plain: 16000, crc: uint32(i)}
	}
	return rows
}

// chunkIndex writes an index file numbered num holding only the
// chunk-frame rows and opens it (closed when tb ends).
func chunkIndex(tb testing.TB, num uint32, rows []chunkRow) *indexFile {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), indexName(num))
	size, err := writeIndex(path, num, nil, nil, rows, nil, 16, &Options{})
	if err != nil {
		tb.Fatal(err)
	}
	ix, err := openIndex(path, num, size)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.f.Close() })
	return ix
}

// BenchmarkOpenDirectory (issue 31, the cost of an open at scale): the
// chunk directory of an index of 1 M chunk-frame rows (BLOCKWARC_DIR_FRAMES
// to change it), built as every open builds it (openDirectory) against
// the way that also returns the rows (chunkDirectory, which verify uses and
// which every open used before): bytes allocated per frame by each
// (B/frame-open, B/frame-rows) and their ratio, and the time's
// (x-time-vs-rows). Run: go test -run '^$' -bench OpenDirectory
// -benchtime 3x ./dedupe/pack/
func BenchmarkOpenDirectory(b *testing.B) {
	n := 1 << 20
	if v, err := strconv.Atoi(os.Getenv("BLOCKWARC_DIR_FRAMES")); err == nil && v > 0 {
		n = v
	}
	idx := []*indexFile{chunkIndex(b, 1, synthRows(n))}
	measure := func(build func() error) (time.Duration, uint64) {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		t0 := time.Now()
		if err := build(); err != nil {
			b.Fatal(err)
		}
		d := time.Since(t0)
		runtime.ReadMemStats(&m1)
		return d, m1.TotalAlloc - m0.TotalAlloc
	}
	// What a restore of one capture asks of the directory after an open:
	// the frames of a few chunks (a capture's objects name some tens of
	// chunks in a few frames), and the chain before each.
	rng := rand.New(rand.NewPCG(1, 2))
	chunks := make([]uint64, 16)
	restore := func(d chunk.Frames) error {
		for k := range chunks {
			chunks[k] = rng.Uint64N(d.NextChunk())
		}
		for _, c := range chunks {
			i, _, err := d.Find(c)
			if err != nil {
				return err
			}
			if i < 0 {
				return fmt.Errorf("chunk %d not found", c)
			}
			for j := max(i-3, 0); j <= i; j++ {
				if _, err := d.Frame(j); err != nil {
					return err
				}
			}
		}
		return nil
	}
	var tOpen, tRows, tLazy time.Duration
	var aOpen, aRows, aLazy uint64
	for range b.N {
		d, a := measure(func() error {
			dir, err := openDirectory(idx)
			if err != nil {
				return err
			}
			return restore(dir)
		})
		tOpen, aOpen = tOpen+d, a
		d, a = measure(func() error { _, _, err := chunkDirectory(idx); return err })
		tRows, aRows = tRows+d, a
		d, a = measure(func() error {
			dir, err := newLazyDirectory(idx)
			if err != nil {
				return err
			}
			if _, ok := dir.(*lazyDirectory); !ok {
				return errors.New("the index's rows were read whole")
			}
			return restore(dir)
		})
		tLazy, aLazy = tLazy+d, a
	}
	b.ReportMetric(float64(aOpen)/float64(n), "B/frame-open")
	b.ReportMetric(float64(aRows)/float64(n), "B/frame-rows")
	b.ReportMetric(float64(aOpen)/float64(aRows), "x-bytes-vs-rows")
	b.ReportMetric(tOpen.Seconds()/tRows.Seconds(), "x-time-vs-rows")
	b.ReportMetric(float64(aLazy), "B-lazy-open-and-lookups")
	b.ReportMetric(float64(aLazy)/float64(aOpen), "x-bytes-lazy-vs-whole")
	b.ReportMetric(tLazy.Seconds()/tOpen.Seconds(), "x-time-lazy-vs-whole")
}

// wholeDir is every frame cr reads.
func wholeDir(t testing.TB, cr *chunk.Reader) chunk.Directory {
	t.Helper()
	d, err := cr.Frames().Whole()
	if err != nil {
		t.Fatal(err)
	}
	return d
}
