package warcio

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExpandInputs: the one rule for what a directory, glob or path
// names, for index and ingest alike: every compression warcio reads, in
// any case; a missing path, an empty directory and a glob matching
// nothing are errors.
func TestExpandInputs(t *testing.T) {
	dir := t.TempDir()
	names := []string{"a.warc.gz", "B.WARC.GZ", "c.warc.zstd", "d.warc.zst", "e.arc", "f.warc.lz4", "g.warc.bz2", "h.warc.gz.open", "sub/i.warc"}
	for _, n := range append(slices.Clone(names), "notes.txt", "j.warc.gz.bak", "sub/k.cdx") {
		p := filepath.Join(dir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ExpandInputs([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, n := range names {
		want = append(want, filepath.Join(dir, n))
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("directory gives %q,\nwant %q", got, want)
	}
	// A file named twice, or by a glob and by name, comes once; "-" passes.
	got, err = ExpandInputs([]string{filepath.Join(dir, "a.warc.gz"), filepath.Join(dir, "*.warc.gz"), "-"})
	if err != nil || !slices.Equal(got, []string{filepath.Join(dir, "a.warc.gz"), "-"}) {
		t.Errorf("dedup: %q, %v", got, err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for in, msg := range map[string]string{
		empty:                            "no WARC or ARC files",
		filepath.Join(dir, "missing.gz"): "no such file",
		filepath.Join(dir, "*.nothing"):  "no files match",
	} {
		if _, err := ExpandInputs([]string{in}); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v, want %q", in, err, msg)
		}
	}
}
