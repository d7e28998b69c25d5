package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/zlibenc"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/warcio"
)

// interopArchive ingests every interop file into a new archive.
func interopArchive(t *testing.T) (dir string, inputs []string, arch string) {
	t.Helper()
	dir = sharedtest.Interop(t)
	inputs, err := warcio.ExpandInputs([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	arch = filepath.Join(t.TempDir(), "a.bwa")
	if _, err := dedupe.Ingest(context.Background(), arch, inputs, dedupe.Options{MemLimit: 64 << 20}); err != nil {
		t.Fatal(err)
	}
	return dir, inputs, arch
}

// TestExportSources: every interop file comes back from -sources
// -decompressed as its decompressed stream (checked here against gzip's
// own decompression where gzip reads the file whole), -gzip writes
// members that decompress to the same stream, ls -files says each
// restores exactly, a second run keeps what the first wrote and does not
// overwrite a file that differs, and -source writes one file to standard
// output.
func TestExportSources(t *testing.T) {
	dir, inputs, arch := interopArchive(t)
	out := filepath.Join(t.TempDir(), "src")
	code, _, stderr := runExport(t, "-sources", out, "-decompressed", arch)
	if code != exitOK {
		t.Fatalf("export-warc -sources: exit %d: %s", code, stderr)
	}
	if n := strings.Count(stderr, "restores exactly"); n != len(inputs) {
		t.Errorf("%d of %d files restore exactly:\n%s", n, len(inputs), stderr)
	}
	written, _ := os.ReadDir(out)
	if len(written) != len(inputs) {
		t.Errorf("wrote %d files for %d inputs", len(written), len(inputs))
	}
	checked := 0
	for _, in := range inputs {
		if !strings.HasSuffix(in, ".warc.gz") {
			continue
		}
		raw, _ := os.ReadFile(in)
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			continue
		}
		want, err := io.ReadAll(zr)
		if err != nil {
			continue // damaged: gzip stops where our reader goes on
		}
		name := strings.TrimSuffix(filepath.Base(in), ".gz")
		got, err := os.ReadFile(filepath.Join(out, name))
		if os.IsNotExist(err) {
			got, err = os.ReadFile(filepath.Join(out, filepath.Base(in)+".plain"))
		}
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: rebuilt file differs from gzip -d of the input (%v)", in, err)
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("only %d files checked against gzip", checked)
	}
	if code, _, stderr := runExport(t, "-sources", out, "-decompressed", arch); code != exitOK || strings.Count(stderr, "(size and SHA-256 checked): kept") != len(inputs) {
		t.Errorf("second -sources into the same directory: exit %d, %s", code, stderr)
	}
	changed := filepath.Join(out, written[0].Name())
	os.WriteFile(changed, []byte("not the file"), 0o644)
	if code, _, stderr := runExport(t, "-sources", out, "-decompressed", arch); code != exitFailure || !strings.Contains(stderr, changed+" exists and is not the file to write") {
		t.Errorf("-sources over a file that differs: exit %d, %s", code, stderr)
	}

	// One file to standard output, and again as gzip members.
	const one = "pywb--example-wpull.warc.gz"
	raw, _ := os.ReadFile(filepath.Join(dir, one))
	zr, _ := gzip.NewReader(bytes.NewReader(raw))
	want, _ := io.ReadAll(zr)
	code, plain, stderr := runExport(t, "-source", one, "-decompressed", arch)
	if code != exitOK || !bytes.Equal(plain, want) {
		t.Errorf("-source %s: exit %d, %d bytes (want %d): %s", one, code, len(plain), len(want), stderr)
	}
	code, gz, _ := runExport(t, "-source", one, "-gzip", arch)
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	unz, _ := io.ReadAll(zr)
	if code != exitOK || !bytes.Equal(unz, want) || countRecords(t, gz) != countRecords(t, want) {
		t.Errorf("-source -gzip: exit %d, %d bytes decompressed (want %d)", code, len(unz), len(want))
	}
	if code, _, stderr := runExport(t, "-source", "no-such.warc.gz", arch); code != exitFailure || !strings.Contains(stderr, "holds 0 of the 1") {
		t.Errorf("-source of a file not in the archive: exit %d, %s", code, stderr)
	}
	if code, _, _ := runExport(t, "-source", one, "-url", "http://x", arch); code != exitUsage {
		t.Errorf("-source with -url: exit %d, want usage", code)
	}

	// ls -files: one line per input, every one exact.
	var lsOut, lsErr bytes.Buffer
	if code := run(context.Background(), []string{"ls", "-files", arch}, &lsOut, &lsErr); code != exitOK {
		t.Fatalf("ls -files: exit %d: %s", code, lsErr.String())
	}
	lsText := lsOut.String()
	lines := strings.Split(strings.TrimSpace(lsText), "\n")
	if len(lines) != len(inputs) {
		t.Errorf("ls -files: %d lines for %d inputs", len(lines), len(inputs))
	}
	compressed := 0
	for _, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 7 || f[5] != "exact" || f[6] != "exact" && !strings.HasPrefix(f[6], "exact (not compressed)") && !strings.HasPrefix(f[6], "no: ") {
			t.Errorf("ls -files: %q", l)
		}
		if len(f) == 7 && f[6] == "exact" {
			compressed++
		}
	}
	sum := sha256.Sum256(want)
	lsOut.Reset()
	run(context.Background(), []string{"ls", "-files", "-json", arch}, &lsOut, &lsErr)
	if !strings.Contains(lsOut.String(), `"stream_sha256":"`+hex.EncodeToString(sum[:])+`"`) {
		t.Errorf("ls -files -json does not give %s's stream digest", one)
	}

	if !zlibenc.Available {
		if compressed != 0 {
			t.Errorf("ls -files: %d files bit-exact compressed in a build without zlib", compressed)
		}
		return // no zlib (cgo): no -original of gzip files
	}
	if compressed < 20 {
		t.Errorf("ls -files: %d files bit-exact compressed, want the 30 zlib wrote", compressed)
	}

	// -original: a gzip file as given, bit for bit; a file zlib did not
	// write is not written, and says why.
	code, orig, stderr := runExport(t, "-source", one, "-original", arch)
	if code != exitOK || !bytes.Equal(orig, raw) {
		t.Errorf("-source %s -original: exit %d, %d bytes, want the file's %d: %s", one, code, len(orig), len(raw), stderr)
	}
	const goGzip = "iagowarc--test.warc.gz"
	if code, orig, stderr := runExport(t, "-source", goGzip, "-original", arch); code != exitFailure || len(orig) != 0 || !strings.Contains(stderr, "NOT WRITTEN") {
		t.Errorf("-source %s -original (Go's gzip): exit %d, %d bytes, %s", goGzip, code, len(orig), stderr)
	}
	if code, _, _ := runExport(t, "-source", one, "-original", "-gzip", arch); code != exitUsage {
		t.Errorf("-original with -gzip: exit %d, want usage", code)
	}
	origDir := filepath.Join(t.TempDir(), "orig")
	code, _, stderr = runExport(t, "-sources", origDir, "-original", arch)
	if n := strings.Count(stderr, "NOT WRITTEN"); code != exitFailure || n != len(inputs)-len(lines)+strings.Count(lsText, "\tno: ") {
		t.Errorf("-sources -original: exit %d, %d not written: %s", code, n, stderr)
	}
	sameFiles := 0
	for _, in := range inputs {
		got, err := os.ReadFile(filepath.Join(origDir, filepath.Base(in)))
		if err != nil {
			continue
		}
		want, _ := os.ReadFile(in)
		if !bytes.Equal(got, want) {
			t.Errorf("-sources -original: %s differs from the input", in)
		}
		sameFiles++
	}
	if sameFiles != compressed+strings.Count(lsText, "exact (not compressed)") {
		t.Errorf("-sources -original wrote %d files identical to their inputs, want %d", sameFiles, compressed)
	}

	// The default: each file as given where it restores so, the others
	// decompressed.
	defDir := filepath.Join(t.TempDir(), "def")
	code, _, stderr = runExport(t, "-sources", defDir, arch)
	if code != exitOK || strings.Count(stderr, "restores exactly, as given") != sameFiles || strings.Count(stderr, "restores exactly (decompressed stream") != len(inputs)-sameFiles {
		t.Errorf("-sources: exit %d, want %d as given and %d decompressed: %s", code, sameFiles, len(inputs)-sameFiles, stderr)
	}
}

// TestExportSourcesResume: -sources writes each file as given where it
// restores so (bit for bit), the others decompressed; an export
// interrupted (a file not written yet, a temporary file left) completes
// when run again, keeping what is there after checking it, and a file
// that differs is not overwritten. -decompressed writes every stream.
func TestExportSourcesResume(t *testing.T) {
	root := t.TempDir()
	coll := filepath.Join(root, "crawls")
	files := sameNameCollection(t, coll)
	// Go's gzip: zlib does not reproduce its member.
	goGzip := filepath.Join(coll, "2024-04", "crawl.warc.gz")
	os.MkdirAll(filepath.Dir(goGzip), 0o755)
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(gunzipFile(t, files["2024-01"]))
	zw.Close()
	os.WriteFile(goGzip, zb.Bytes(), 0o644)
	bwa := filepath.Join(root, "a.bwa")
	if code, _, stderr := runCmd(t, "ingest", "-tables=false", "-prove", bwa, coll); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	out := filepath.Join(root, "out")
	check := func(when string) {
		t.Helper()
		for m, p := range files {
			want, _ := os.ReadFile(p)
			if got, err := os.ReadFile(filepath.Join(out, m, "crawl.warc.gz")); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s: %s/crawl.warc.gz is not the original (%d bytes, want %d, %v)", when, m, len(got), len(want), err)
			}
		}
		got, err := os.ReadFile(filepath.Join(out, "2024-04", "crawl.warc"))
		if err != nil || !bytes.Equal(got, gunzipFile(t, goGzip)) {
			t.Fatalf("%s: 2024-04/crawl.warc is not the decompressed stream (%v)", when, err)
		}
		if _, err := os.Stat(filepath.Join(out, "2024-04", "crawl.warc.gz")); err == nil {
			t.Fatalf("%s: Go's gzip file written as given", when)
		}
	}
	code, _, stderr := runCmd(t, "export-warc", "-sources", out, bwa)
	if code != exitOK || !strings.Contains(stderr, "2024-04/crawl.warc.gz: 8 records, 0 gaps, 54582 bytes: restores exactly (decompressed stream") || !strings.Contains(stderr, "4 file(s) written to "+out+", 0 there already") {
		t.Fatalf("-sources: exit %d: %s", code, stderr)
	}
	check("first run")

	// Interrupted: one file not there yet, a temporary file left.
	os.Remove(filepath.Join(out, "2024-02", "crawl.warc.gz"))
	stale := filepath.Join(out, "2024-02", ".crawl.warc.gz.tmp-12345")
	os.WriteFile(stale, []byte("half"), 0o644)
	code, _, stderr = runCmd(t, "export-warc", "-sources", out, bwa)
	if code != exitOK || !strings.Contains(stderr, "1 file(s) written to "+out+", 3 there already") || strings.Count(stderr, "(size and SHA-256 checked): kept") != 3 {
		t.Fatalf("-sources run again: exit %d: %s", code, stderr)
	}
	check("second run")
	if _, err := os.Stat(stale); err == nil {
		t.Fatal("the temporary file of the interrupted run is left")
	}

	// A file that differs is not overwritten.
	bad := filepath.Join(out, "2024-01", "crawl.warc.gz")
	os.WriteFile(bad, []byte("other"), 0o644)
	if code, _, stderr := runCmd(t, "export-warc", "-sources", out, bwa); code != exitFailure || !strings.Contains(stderr, bad+" exists and is not the file to write (5 bytes") {
		t.Fatalf("-sources over a file that differs: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(bad); string(b) != "other" {
		t.Fatal("a file that differs was overwritten")
	}

	// -decompressed: every file's stream.
	dec := filepath.Join(root, "dec")
	if code, _, stderr := runCmd(t, "export-warc", "-sources", dec, "-decompressed", bwa); code != exitOK {
		t.Fatalf("-sources -decompressed: exit %d: %s", code, stderr)
	}
	for m, p := range files {
		if got, err := os.ReadFile(filepath.Join(dec, m, "crawl.warc")); err != nil || !bytes.Equal(got, gunzipFile(t, p)) {
			t.Fatalf("-decompressed: %s/crawl.warc is not the stream (%v)", m, err)
		}
	}
}

// TestExportCleanReadsEverywhere: the export of the interop files keeps
// their malformed records byte for byte, which stops other readers; with
// -clean, warcio.js (an independent reader) indexes every record written.
func TestExportCleanReadsEverywhere(t *testing.T) {
	js := warcioJS(t)
	_, _, arch := interopArchive(t)
	tmp := t.TempDir()
	full, clean := filepath.Join(tmp, "full.warc.gz"), filepath.Join(tmp, "clean.warc.gz")
	if code, _, stderr := runExport(t, "-o", full, arch); code != exitSkipped {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	code, _, stderr := runExport(t, "-clean", "-o", clean, arch)
	if code != exitSkipped || !strings.Contains(stderr, "-clean left out") {
		t.Fatalf("export -clean: exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(clean)
	// Every record whole; stray line ends are tolerated by every reader.
	r := warcio.NewReaderOptions(bytes.NewReader(b), "clean", warcio.Options{})
	ours := 0
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, rec.Body); err != nil {
			t.Fatal(err)
		}
		ours++
	}
	if r.Skipped() != 0 {
		t.Errorf("the clean export has %d malformed records or regions", r.Skipped())
	}
	idx, err := exec.Command(js, "cdx-index", "-a", clean).Output()
	if err != nil {
		t.Fatalf("warcio.js cdx-index: %v", err)
	}
	theirs := strings.Count(strings.TrimSpace(string(idx)), "\n") + 1
	idxFull, _ := exec.Command(js, "cdx-index", "-a", full).Output()
	t.Logf("warcio.js reads %d of %d records of the clean export; %d lines of the full one", theirs, ours, strings.Count(string(idxFull), "\n"))
	if theirs != ours {
		t.Errorf("warcio.js indexed %d records of the clean export, we wrote %d", theirs, ours)
	}
}
