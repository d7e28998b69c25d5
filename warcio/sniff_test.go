package warcio

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestCheckRecords: a WARC, gzipped or not, passes; a file that is no
// record is ErrNotRecords; and checking a gzip file again allocates
// almost nothing, its Reader reused (an ingest checks every input
// first): 152 bytes a check here, 169 KB with a new Reader each time.
func TestCheckRecords(t *testing.T) {
	dir := t.TempDir()
	rec := record("one", "resource", "hello")
	gz := filepath.Join(dir, "a.warc.gz")
	plain := filepath.Join(dir, "b.warc")
	readme := filepath.Join(dir, "README")
	for p, b := range map[string][]byte{gz: gzipMember(t, []byte(rec), 6), plain: []byte(rec), readme: []byte("not a crawl\n")} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{gz, plain} {
		if err := CheckRecords(p); err != nil {
			t.Errorf("%s: %v", filepath.Base(p), err)
		}
	}
	if err := CheckRecords(readme); !errors.Is(err, ErrNotRecords) {
		t.Errorf("README: %v, want ErrNotRecords", err)
	}
	if raceEnabled {
		return // the race detector allocates beside the code measured
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const n = 20
	for range n {
		if err := CheckRecords(gz); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per >= storedBufSize/4 {
		t.Errorf("checking a small gzip file allocates %d bytes", per)
	} else {
		t.Logf("checking a small gzip file allocates %d bytes", per)
	}
}
