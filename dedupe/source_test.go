package dedupe

import (
	"bytes"
	"compress/bzip2"
	stdgzip "compress/gzip"
	"context"
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/warcio"
)

// plainStream decompresses a file with the standard library alone, as an
// oracle independent of warcio; ok is false for formats it does not read
// or damaged files.
func plainStream(path string) (b []byte, ok bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	switch {
	case bytes.HasPrefix(raw, []byte{0x1f, 0x8b}):
		zr, err := stdgzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, false
		}
		b, err = io.ReadAll(zr) // multistream: every member
		return b, err == nil
	case bytes.HasPrefix(raw, []byte("BZh")):
		b, err = io.ReadAll(bzip2.NewReader(bytes.NewReader(raw)))
		return b, err == nil
	case bytes.HasPrefix(raw, []byte("WARC/")), bytes.HasPrefix(raw, []byte("filedesc:")):
		return raw, true
	}
	return nil, false
}

// TestSourceRebuildsInterop: every interop file, odd and broken ones
// included, is rebuilt from the archive byte for byte (its decompressed
// stream), verify proves it, and where the standard library can
// decompress the file on its own the stream is the one it gives.
func TestSourceRebuildsInterop(t *testing.T) {
	dir := sharedtest.Interop(t)
	inputs, err := warcio.ExpandInputs([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	arch := filepath.Join(t.TempDir(), "a.bwa")
	st, err := Ingest(context.Background(), arch, inputs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Gaps == 0 {
		t.Error("no gaps kept: the broken interop files have bytes between records")
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	vst, err := a.Verify(func(p Problem) { t.Errorf("verify: %v", p) })
	if err != nil {
		t.Fatal(err)
	}
	if vst.Files != int64(len(inputs)) || vst.FilesUnknown != 0 || vst.Gaps != st.Gaps {
		t.Errorf("verify rebuilt %d of %d files (%d unknown), %d of %d gaps", vst.Files, len(inputs), vst.FilesUnknown, vst.Gaps, st.Gaps)
	}
	byName := map[string]string{}
	for _, p := range inputs {
		byName[filepath.Base(p)] = p
	}
	oracle, seen := 0, 0
	err = a.WalkSources(nil, func(f InputFile, vs []Version) error {
		seen++
		var out bytes.Buffer
		sst, err := a.WriteSource(&out, f, vs, nil)
		if err != nil {
			return err
		}
		if !sst.Exact || sst.SHA256 != sha256.Sum256(out.Bytes()) {
			t.Errorf("%s: not rebuilt exactly: %+v", f.Name, sst)
		}
		if want, ok := plainStream(byName[f.Name]); ok {
			oracle++
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("%s: rebuilt stream differs from the standard library's decompression (%d vs %d bytes)", f.Name, out.Len(), len(want))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != len(inputs) || oracle < len(inputs)/2 {
		t.Errorf("walked %d of %d files; %d checked against the standard library", seen, len(inputs), oracle)
	}
}

// TestSourceGapsAndClean: a file with garbage, stray line ends and a
// truncated last record comes back whole; the clean mode leaves out the
// gaps, the damaged record and the one with extra line ends, and what it
// writes reads without error.
func TestSourceGapsAndClean(t *testing.T) {
	rec := func(uri, body string) string {
		return "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Target-URI: " + uri + "\r\nWARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:" + strings.Repeat("1", 8) + "-0000-0000-0000-" + strings.Repeat(uri[len(uri)-1:], 12) + ">\r\nContent-Type: text/plain\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body + "\r\n\r\n"
	}
	plain := "\r\n" + rec("http://x/a", "first") + "junk that is no record\n" + rec("http://x/b", "second") + "\n\n\n" +
		rec("http://x/c", "third") + strings.TrimSuffix(rec("http://x/d", "truncated body"), "body\r\n\r\n")
	var gz bytes.Buffer
	zw := stdgzip.NewWriter(&gz)
	zw.Write([]byte(plain))
	zw.Close()
	dir := t.TempDir()
	in := filepath.Join(dir, "odd.warc.gz")
	if err := os.WriteFile(in, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	arch := filepath.Join(dir, "a.bwa")
	var announced int64
	st, err := Ingest(context.Background(), arch, []string{in}, Options{ReadDone: func(n int64) { announced = n }})
	if err != nil {
		t.Fatal(err)
	}
	// The progress of storing counts the stream's bytes to their end.
	if announced != int64(len(plain)) || st.InputBytes != announced {
		t.Errorf("ReadDone announced %d bytes, ingest stored %d; the stream is %d", announced, st.InputBytes, len(plain))
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if f := a.Files()[0]; !f.Rebuildable || f.Gaps == 0 || f.StreamLen != int64(len(plain)) || f.StreamSHA256 != sha256.Sum256([]byte(plain)) {
		t.Fatalf("input row %+v", f)
	}
	var whole, clean bytes.Buffer
	err = a.WalkSources([]string{"odd.warc.gz"}, func(f InputFile, vs []Version) error {
		if st, err := a.WriteSource(&whole, f, vs, nil); err != nil || !st.Exact {
			t.Errorf("whole: %+v, %v", st, err)
		}
		st, err := a.WriteSource(&clean, f, vs, warcio.WellFormed)
		// b's block is followed by more line ends than the standard's
		// two: other readers stumble there, so clean leaves it out too.
		if err != nil || st.Gaps != 0 || st.Records != 2 || st.Exact {
			t.Errorf("clean: %+v, %v", st, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if whole.String() != plain {
		t.Errorf("rebuilt %q\nwant %q", whole.String(), plain)
	}
	// Stray line ends are no damage to any reader; anything else is.
	r := warcio.NewReaderOptions(bytes.NewReader(clean.Bytes()), "clean", warcio.Options{})
	var uris []string
	for {
		rc, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("clean output: %v", err)
		}
		uris = append(uris, rc.TargetURI)
	}
	if r.Skipped() != 0 || strings.Join(uris, " ") != "http://x/a http://x/c" {
		t.Errorf("clean records %v", uris)
	}
	// The gaps are kept, but they are no captures.
	if vs, _ := a.Versions(""); len(vs) != 0 {
		t.Errorf("Versions(\"\") shows %d gaps", len(vs))
	}
	vst, err := a.Verify(func(p Problem) { t.Errorf("verify: %v", p) })
	if err != nil || vst.Files != 1 || vst.Records != 4 || vst.Gaps == 0 {
		t.Errorf("verify: %+v, %v", vst, err)
	}
}

// TestVerifyNamesDamageInFile: verify restores a rebuildable file's
// records once, in file order; a damaged object is still named per
// record, and the file as not restoring.
func TestVerifyNamesDamageInFile(t *testing.T) {
	in := filepath.Join(sharedtest.Interop(t), "pywb--example-wpull.warc.gz")
	arch := filepath.Join(t.TempDir(), "a.bwa")
	// Small frames: the damage hits data objects, not the catalog's frame.
	// No parity: it would correct the damage (TestFaultInjection covers that).
	if _, err := Ingest(context.Background(), arch, []string{in}, Options{Pack: pack.Options{FrameSize: 4 << 10, NoParity: true}}); err != nil {
		t.Fatal(err)
	}
	packs, _ := filepath.Glob(filepath.Join(arch, "*.pack"))
	b, err := os.ReadFile(packs[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/3] ^= 0x40
	if err := os.WriteFile(packs[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var records, files int
	vst, err := a.Verify(func(p Problem) {
		switch {
		case strings.HasPrefix(p.What, "record "):
			records++
		case strings.HasPrefix(p.What, "input file "):
			files++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if records == 0 || files != 1 || vst.Files != 0 {
		t.Errorf("damaged archive: %d record problems, %d file problems, %d files exact; want records named and the file failing", records, files, vst.Files)
	}
}
