package warcio

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	slyrz "github.com/slyrz/warc"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestOracleSlyrz compares our records with github.com/slyrz/warc, an
// independent WARC reader, on every interop sample it can read. slyrz
// cannot be our parser: its headers are a map (order, repeated fields and
// raw bytes are lost), it reports no offsets, reads no ARC, zstd or LZ4,
// stops at the first malformed record, and buffers whole blocks in memory.
// So the comparison covers the records slyrz returns before it stops.
func TestOracleSlyrz(t *testing.T) {
	dir := sharedtest.Interop(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	compared := 0
	for _, path := range files {
		name := filepath.Base(path)
		if name == "SOURCES.md" || interop[name].format == FormatARC {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ours, _, _ := readAll(t, name, data, Options{})
		sr, err := slyrz.NewReaderMode(bytes.NewReader(data), slyrz.SequentialMode)
		if err != nil {
			continue
		}
		for i := 0; ; i++ {
			theirs, err := sr.ReadRecord()
			if err != nil {
				break
			}
			block, err := io.ReadAll(theirs.Content)
			if err != nil {
				break
			}
			if i >= len(ours) {
				t.Errorf("%s: slyrz found record #%d, we found %d records", name, i, len(ours))
				break
			}
			rec := ours[i]
			if !bytes.Equal(block, rec.block) {
				t.Errorf("%s #%d: block differs from slyrz (%d vs %d bytes)", name, i, len(rec.block), len(block))
			}
			if folded(rec.rec) {
				continue // slyrz does not join continuation lines
			}
			if i > 0 && string(ours[i-1].rec.Trailer) != "\r\n\r\n" {
				// slyrz expects exactly two empty lines between records and
				// otherwise eats the first field as the version line.
				continue
			}
			want := map[string]string{}
			for _, f := range rec.rec.Header {
				want[strings.ToLower(f.Name)] = f.Value // slyrz keeps the last of repeated fields
			}
			for k, v := range want {
				if theirs.Header[k] != v {
					t.Errorf("%s #%d: field %s = %q, slyrz %q", name, i, k, v, theirs.Header[k])
				}
			}
			if len(theirs.Header) != len(want) {
				t.Errorf("%s #%d: %d distinct fields, slyrz %d", name, i, len(want), len(theirs.Header))
			}
			compared++
		}
		sr.Close()
	}
	if compared < 100 {
		t.Fatalf("compared only %d records with slyrz", compared)
	}
}

func folded(rec *Record) bool {
	for _, f := range rec.Header {
		if bytes.Count(f.Raw, []byte{'\n'}) > 1 {
			return true
		}
	}
	return false
}
