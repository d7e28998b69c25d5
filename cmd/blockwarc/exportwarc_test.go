package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/warcio"
)

// exportArchive ingests inputs (names in ../shared/testdata/interop) into
// a new archive.
func exportArchive(t *testing.T, names ...string) string {
	t.Helper()
	dir := sharedtest.Interop(t)
	var in []string
	for _, n := range names {
		in = append(in, filepath.Join(dir, n))
	}
	arch := filepath.Join(t.TempDir(), "a.bwa")
	if _, err := dedupe.Ingest(context.Background(), arch, in, dedupe.Options{MemLimit: 64 << 20}); err != nil {
		t.Fatalf("ingest: %v", err)
	}
	return arch
}

func runExport(t *testing.T, args ...string) (code int, stdout []byte, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{"export-warc"}, args...), &out, &errb)
	return code, out.Bytes(), errb.String()
}

// countRecords reads a WARC with warcio, failing on any malformed byte.
func countRecords(t *testing.T, b []byte) int {
	t.Helper()
	r := warcio.NewReaderOptions(bytes.NewReader(b), "export", warcio.Options{Policy: warcio.PolicyFail})
	n := 0
	for {
		_, err := r.Next()
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			t.Fatalf("read export: %v", err)
		}
		n++
	}
}

func TestExportWARCCommand(t *testing.T) {
	arch := exportArchive(t, "pywb--example-url-agnostic-revisit.warc.gz", "nodewarc--books.toscrape.warc")
	outDir := t.TempDir()
	out := filepath.Join(outDir, "x.warc.gz")

	code, stdout, stderr := runExport(t, "-o", out, arch)
	if code != exitOK || len(stdout) != 0 {
		t.Fatalf("exit %d, %d bytes on stdout, stderr %q", code, len(stdout), stderr)
	}
	file, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if file[0] != 0x1f || file[1] != 0x8b {
		t.Errorf("output does not start with a gzip member")
	}
	n := countRecords(t, file)
	if n < 3 {
		t.Errorf("export holds %d records", n)
	}
	ents, _ := os.ReadDir(outDir)
	if len(ents) != 1 {
		t.Errorf("output dir holds %d entries, want only the WARC (temp file left behind?)", len(ents))
	}

	// Standard output gets the same bytes.
	code, stdout, stderr = runExport(t, arch)
	if code != exitOK || !bytes.Equal(stdout, file) {
		t.Errorf("stdout export: exit %d, %d bytes (file %d), stderr %q", code, len(stdout), len(file), stderr)
	}

	// A filter that selects part of it.
	code, stdout, _ = runExport(t, "-url", "http://books.toscrape.com/", arch)
	if m := countRecords(t, stdout); code != exitOK || m == 0 || m >= n {
		t.Errorf("-url export: exit %d, %d of %d records", code, m, n)
	}
	code, stdout, _ = runExport(t, "-from", "2100", arch)
	if code != exitOK || len(stdout) != 0 {
		t.Errorf("-from 2100: exit %d, %d bytes", code, len(stdout))
	}
}

func TestExportWARCExitStatus(t *testing.T) {
	arch := exportArchive(t, "pywb--example-url-agnostic-orig.warc.gz", "aut--example.arc.gz")
	dir := t.TempDir()

	// ARC records are left out and counted: exit 3, the WARC part written.
	out := filepath.Join(dir, "with-arc.warc.gz")
	code, _, stderr := runExport(t, "-o", out, arch)
	if code != exitSkipped || !strings.Contains(stderr, "ARC record") {
		t.Errorf("archive with ARC records: exit %d, stderr %q; want %d", code, stderr, exitSkipped)
	}
	if b, err := os.ReadFile(out); err != nil || countRecords(t, b) == 0 {
		t.Errorf("archive with ARC records: output %v", err)
	}

	// A failure leaves no file under the final name, and no temp file.
	failDir := t.TempDir()
	bad := filepath.Join(failDir, "bad.warc.gz")
	if code, _, stderr := runExport(t, "-o", bad, filepath.Join(dir, "missing.bwa")); code != exitFailure || stderr == "" {
		t.Errorf("missing archive: exit %d, stderr %q; want %d", code, stderr, exitFailure)
	}
	if ents, _ := os.ReadDir(failDir); len(ents) != 0 {
		t.Errorf("failed export left %d file(s) behind", len(ents))
	}

	for _, args := range [][]string{
		{},
		{arch, arch},
		{"-from", "yesterday", arch},
		{"-to", "2022-13", arch},
		{"-from", "2023", "-to", "2022", arch},
		{"-nosuchflag", arch},
	} {
		if code, _, _ := runExport(t, args...); code != exitUsage {
			t.Errorf("export-warc %q: exit %d, want %d", args, code, exitUsage)
		}
	}
	if code, _, _ := runExport(t, "-help"); code != exitOK {
		t.Errorf("export-warc -help: exit %d", code)
	}
}
