package warcio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReader feeds arbitrary bytes to the Reader: it must not panic or
// hang, offsets must lie inside the input, each record's bytes must be
// found again at its offset, and gzip members inflated whole must give
// what streaming them gives (sameBothWays).
func FuzzReader(f *testing.F) {
	files, _ := filepath.Glob("testdata/*")
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil || len(data) > 64<<10 {
			continue
		}
		f.Add(data)
		if !bytes.HasPrefix(data, gzipMagic) {
			f.Add(gz(f, string(data)))
		}
	}
	f.Add([]byte(record("a", "resource", "x") + "junk" + record("b", "resource", "y")))
	a, b := gz(f, record("a", "resource", "x")), gz(f, record("b", "resource", "y"))
	f.Add(append(append(append([]byte{}, a...), b[:len(b)-3]...), a...))
	f.Fuzz(func(t *testing.T, data []byte) {
		var errs int
		r := NewReaderOptions(bytes.NewReader(data), "fuzz", Options{Digests: true, MaxHeaderBytes: 4 << 10,
			Policy: PolicyWarn, OnError: func(err error) {
				var fe *FormatError
				if !errors.As(err, &fe) || fe.Offset < 0 || fe.Offset > int64(len(data)) {
					t.Fatalf("bad error %v", err)
				}
				errs++
			}})
		var recs []readRec
		for i := 0; ; i++ {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("Next: %v", err)
			}
			if i > len(data) {
				t.Fatalf("more records than input bytes")
			}
			block, berr := io.ReadAll(io.LimitReader(rec.Body, 1<<20))
			if len(block) == 1<<20 {
				continue // a bomb: Next skips the rest, not worth re-reading
			}
			recs = append(recs, readRec{rec: rec, block: block, bodyErr: berr})
		}
		if r.Skipped() > int64(errs) {
			t.Fatalf("skipped %d, reported %d", r.Skipped(), errs)
		}
		checkReread(t, "fuzz", data, recs, false)
		if bytes.HasPrefix(data, gzipMagic) {
			sameBothWays(t, "fuzz", data)
		}
	})
}
