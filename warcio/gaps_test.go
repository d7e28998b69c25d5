package warcio

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// rebuildStreams walks inputs with Gaps and rebuilds each file's
// decompressed stream from its records (raw header ‖ block ‖ trailer) and
// gap pieces in stream order.
func rebuildStreams(t *testing.T, inputs []string, mem int64) (map[string][]byte, map[string]FileStream, WalkStats) {
	t.Helper()
	type piece struct {
		pos, end int64
		b        []byte
	}
	pieces := map[string][]piece{}
	streams := map[string]FileStream{}
	announced, yielded := int64(-1), int64(0)
	st, err := Walk(context.Background(), inputs, WalkOptions{Gaps: true, MemLimit: mem, TempDir: t.TempDir(),
		OnFile: func(fs FileStream) { streams[fs.File] = fs },
		OnRead: func(n int64) {
			if yielded != 0 {
				t.Error("OnRead called after the first capture")
			}
			announced = n
		}}, func(c *Capture) error {
		yielded++
		body, err := io.ReadAll(c.Body)
		if err != nil {
			return err
		}
		var b []byte
		if c.Gap {
			b = body
		} else {
			b = append(append(append(b, c.RawHeader...), body...), c.Trailer...)
		}
		pieces[c.File] = append(pieces[c.File], piece{c.Pos, c.End, b})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if announced != yielded || yielded != st.Records+st.Gaps {
		t.Errorf("OnRead announced %d captures; %d were yielded (%d records, %d gaps)", announced, yielded, st.Records, st.Gaps)
	}
	out := map[string][]byte{}
	for f, ps := range pieces {
		slices.SortFunc(ps, func(a, b piece) int { return cmpInt(a.pos, b.pos) })
		var buf bytes.Buffer
		for _, p := range ps {
			if p.pos != int64(buf.Len()) {
				t.Errorf("%s: piece at %d, the stream so far has %d bytes", f, p.pos, buf.Len())
			}
			if int64(len(p.b)) != p.end-p.pos {
				t.Errorf("%s: piece [%d, %d) holds %d bytes", f, p.pos, p.end, len(p.b))
			}
			buf.Write(p.b)
		}
		out[f] = buf.Bytes()
	}
	return out, streams, st
}

// TestGapsTileInterop is the invariant behind restoring input files: on
// every interop file, odd and broken ones included, the records and the
// gaps Walk yields rebuild the decompressed stream byte for byte.
func TestGapsTileInterop(t *testing.T) {
	dir := sharedtest.Interop(t)
	files, err := ExpandInputs([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	got, streams, st := rebuildStreams(t, files, 0)
	if len(streams) != len(files) {
		t.Fatalf("OnFile called for %d of %d files", len(streams), len(files))
	}
	withGaps := 0
	for _, f := range files {
		fs := streams[f]
		if !fs.Tiled {
			t.Errorf("%s: records and gaps do not tile the stream", f)
			continue
		}
		if fs.Gaps > 0 {
			withGaps++
		}
		b := got[f]
		if int64(len(b)) != fs.Len || sha256.Sum256(b) != fs.SHA256 {
			t.Errorf("%s: rebuilt %d bytes (sha256 %x), the stream is %d (%x)", f, len(b), sha256.Sum256(b), fs.Len, fs.SHA256)
		}
	}
	if withGaps == 0 || st.Gaps == 0 {
		t.Errorf("no interop file has gaps (%d pieces): the broken files should", st.Gaps)
	}
	t.Logf("%d files, %d with gaps, %d gap pieces", len(files), withGaps, st.Gaps)
}

// TestGapsSmallMemory checks gap pieces through spilled runs, a long
// damaged region cut into pieces, and the stream digest against one
// computed independently of the reader.
func TestGapsSmallMemory(t *testing.T) {
	rec := "WARC/1.0\r\nWARC-Type: resource\r\nWARC-Target-URI: http://x/\r\nWARC-Date: 2020-01-01T00:00:00Z\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n"
	garbage := bytes.Repeat([]byte("not a record "), (2*MaxGapPiece)/13+7)
	plain := []byte("\r\n" + rec + string(garbage) + rec + "\n\n\n\n" + rec + "trailing")
	dir := t.TempDir()
	p := filepath.Join(dir, "g.warc")
	if err := os.WriteFile(p, plain, 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	for _, part := range [][]byte{plain[:100], plain[100:]} { // a member boundary inside a record
		w := gzip.NewWriter(&gz)
		w.Write(part)
		w.Close()
	}
	pg := filepath.Join(dir, "g.warc.gz")
	if err := os.WriteFile(pg, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, streams, st := rebuildStreams(t, []string{p, pg}, 256<<10)
	for _, f := range []string{p, pg} {
		if !bytes.Equal(got[f], plain) {
			t.Errorf("%s: rebuilt %d bytes, want %d", f, len(got[f]), len(plain))
		}
		if fs := streams[f]; fs.SHA256 != sha256.Sum256(plain) || !fs.Tiled || fs.GapBytes < int64(len(garbage)) {
			t.Errorf("%s: stream %+v", f, fs)
		}
	}
	if st.Runs == 0 || st.Gaps < 6 {
		t.Errorf("want spilled runs and the garbage in pieces: %+v", st)
	}
}

// TestRelocate: Relocate sees every record and gap piece of a file (not
// another file's), once each, with its Length final, and what it sets is
// what the captures say; Pos and End stay the stream's. An error it
// returns stops the walk.
func TestRelocate(t *testing.T) {
	dir := t.TempDir()
	rec := "WARC/1.0\r\nWARC-Type: resource\r\nWARC-Target-URI: http://a.example/x\r\nWARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:1>\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n"
	moved, kept := filepath.Join(dir, "moved.warc"), filepath.Join(dir, "kept.warc")
	// "junk\n" between the records: a gap.
	if err := os.WriteFile(moved, []byte(rec+"junk\n"+rec), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kept, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	seen := map[int64]int{}
	relocate := func(file string) func(*Record) error {
		if file != moved {
			return nil
		}
		return func(r *Record) error {
			if r.File != moved || r.Length <= 0 {
				t.Errorf("relocated %s at %d with length %d", r.File, r.Pos, r.Length)
			}
			seen[r.Pos]++
			r.Offset, r.SkipInMember, r.Length = 1000+r.Pos, 7, 42
			return nil
		}
	}
	var caps []Capture
	_, err := Walk(context.Background(), []string{moved, kept}, WalkOptions{Gaps: true, TempDir: t.TempDir(), Relocate: relocate}, func(c *Capture) error {
		caps = append(caps, *c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	gaps := 0
	for _, c := range caps {
		switch {
		case c.File == kept && (c.Offset != c.Pos || c.SkipInMember != 0):
			t.Errorf("%s at %d: moved to %d+%d", c.File, c.Pos, c.Offset, c.SkipInMember)
		case c.File == moved && (c.Offset != 1000+c.Pos || c.SkipInMember != 7 || c.Length != 42):
			t.Errorf("%s at %d (gap %v): offset %d, skip %d, length %d", c.File, c.Pos, c.Gap, c.Offset, c.SkipInMember, c.Length)
		}
		if c.Gap {
			gaps++
		}
	}
	if len(caps) != 4 || gaps != 1 || len(seen) != 3 {
		t.Fatalf("%d captures, %d gaps, %d relocated: want 4, 1 and the 3 of moved.warc", len(caps), gaps, len(seen))
	}
	for pos, n := range seen {
		if n != 1 {
			t.Errorf("the piece at %d relocated %d times", pos, n)
		}
	}
	stop := errors.New("stop")
	_, err = Walk(context.Background(), []string{moved}, WalkOptions{Gaps: true, TempDir: t.TempDir(),
		Relocate: func(string) func(*Record) error { return func(*Record) error { return stop } }}, func(*Capture) error { return nil })
	if !errors.Is(err, stop) {
		t.Fatalf("a Relocate error: walk returned %v", err)
	}
}
