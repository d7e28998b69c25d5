package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/warcio"
)

// truncatedDump writes the first sample dump decompressed as whole.warc,
// and cut.warc: the same bytes cut in the middle of the block of a
// response record, which it returns (URL, and its whole bytes).
func truncatedDump(t *testing.T, dir string) (whole, cut, url string, rec []byte) {
	t.Helper()
	samples, _ := filepath.Glob(filepath.Join(sharedtest.RepoRoot(t), "testdata", "samples", "*.warc.gz"))
	f, err := os.Open(samples[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	r := warcio.NewReader(bytes.NewReader(data), "x.warc")
	var at int64 = -1
	var last *warcio.Record
	var lastBody int64
	for {
		h, err := r.Next()
		if last != nil { // its End is set now
			url = strings.Trim(last.Header.Get("WARC-Target-URI"), "<>")
			at = last.End - lastBody/2 - 4
			rec = data[last.Offset:last.End]
			last = nil
		}
		if err != nil {
			break
		}
		body, _ := io.ReadAll(h.Body)
		if h.Header.Get("WARC-Type") == "response" && len(body) > 1000 {
			last, lastBody = h, int64(len(body))
		}
	}
	if at < 0 {
		t.Fatal("no response record to cut")
	}
	whole, cut = filepath.Join(dir, "a-whole.warc"), filepath.Join(dir, "b-cut.warc")
	os.WriteFile(whole, data, 0o644)
	os.WriteFile(cut, data[:at], 0o644)
	return whole, cut, url, rec
}

// TestCatTruncated: cat of a capture whose record the input cut short
// warns and exits 3, writing the bytes stored; when the same capture is
// stored intact from another dump, cat writes that one, exit 0.
func TestCatTruncated(t *testing.T) {
	dir := t.TempDir()
	whole, cut, url, rec := truncatedDump(t, dir)
	arch := filepath.Join(dir, "cut.bwa")
	if code, _, errOut := runCmd(t, "ingest", "-tables=false", arch, cut); code != exitSkipped {
		t.Fatalf("ingest of a truncated dump: exit %d: %s", code, errOut)
	}
	code, out, errOut := runCmd(t, "cat", "-part", "record", arch, url)
	if code != exitSkipped || !strings.Contains(errOut, "is truncated") || len(out) == 0 || len(out) >= len(rec) || !bytes.HasPrefix(rec, []byte(out)) {
		t.Errorf("cat of a truncated record: exit %d, %d of %d bytes, %q", code, len(out), len(rec), errOut)
	}
	both := filepath.Join(dir, "both.bwa")
	if code, _, errOut := runCmd(t, "ingest", "-tables=false", both, cut, whole); code != exitSkipped {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	code, out, errOut = runCmd(t, "cat", "-part", "record", both, url)
	if code != exitOK || out != string(rec) {
		t.Errorf("cat with an intact copy stored: exit %d, %d of %d bytes, %q", code, len(out), len(rec), errOut)
	}
}

// TestDamagedGzipWording: of a .warc.gz damaged inside a member, ingest
// keeps what decompresses and says how many compressed bytes after the
// damage are not stored, rather than that every byte is kept; an intact
// file's malformed records are still said kept.
func TestDamagedGzipWording(t *testing.T) {
	samples, _ := filepath.Glob(filepath.Join(sharedtest.RepoRoot(t), "testdata", "samples", "*.warc.gz"))
	b, err := os.ReadFile(samples[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := len(b) / 2; i < len(b)/2+40; i++ {
		b[i] ^= 0x55
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "damaged.warc.gz")
	os.WriteFile(in, b, 0o644)
	code, out, errOut := runCmd(t, "ingest", "-tables=false", "-json", filepath.Join(dir, "a.bwa"), in)
	var st struct {
		Malformed    int64
		DroppedBytes int64 `json:"dropped_bytes"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if code != exitSkipped || st.DroppedBytes <= 0 || st.DroppedBytes > int64(len(b)/2) ||
		!strings.Contains(errOut, fmt.Sprintf("%d compressed byte(s) of damaged member(s), after the damage, do not decompress and are not stored", st.DroppedBytes)) ||
		strings.Contains(errOut, "their bytes are kept") {
		t.Errorf("ingest of a damaged .gz: exit %d, %+v, %q", code, st, errOut)
	}
	// Truncated, not damaged: every byte read is kept, and said so.
	_, cut, _, _ := truncatedDump(t, dir)
	code, _, errOut = runCmd(t, "ingest", "-tables=false", filepath.Join(dir, "b.bwa"), cut)
	if code != exitSkipped || !strings.Contains(errOut, "their bytes are kept") {
		t.Errorf("ingest of a truncated .warc: exit %d, %q", code, errOut)
	}
}
