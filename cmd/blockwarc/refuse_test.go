package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// warcRecord is one WARC/1.0 record of type typ with the given extra
// header lines and block.
func warcRecord(typ, uri, date, id string, extra []string, block string) string {
	h := "WARC/1.0\r\nWARC-Type: " + typ + "\r\nWARC-Target-URI: " + uri + "\r\nWARC-Date: " + date +
		"\r\nWARC-Record-ID: <urn:uuid:" + id + ">\r\n"
	for _, e := range extra {
		h += e + "\r\n"
	}
	h += "Content-Type: application/http; msgtype=response\r\n"
	return h + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(block)) + block + "\r\n\r\n"
}

func writeFile(t *testing.T, path string, b []byte) string {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestIngestRefusesNonWARC: a file that holds no record and does not
// begin with one (a README given by mistake, gzipped or not) is refused,
// named on stderr, and nothing is written: no new archive, and an
// existing one is left at its commit, even when the other inputs are
// good. A file with bytes before its first record, or an empty one, is
// still input.
func TestIngestRefusesNonWARC(t *testing.T) {
	dir := t.TempDir()
	readme := writeFile(t, filepath.Join(dir, "README.md"), bytes.Repeat([]byte("# notes\nThis is not a WARC file.\n\n"), 200))
	readmeGz := writeFile(t, filepath.Join(dir, "notes.txt.gz"), gzipped(t, []byte("just text\n")))
	good := sampleFiles(t)[0]

	arch := filepath.Join(dir, "a.bwa")
	code, out, errOut := runCmd(t, "ingest", "-tables=false", arch, readme)
	if code != exitFailure || out != "" || !strings.Contains(errOut, "not WARC or ARC") || !strings.Contains(errOut, readme) || !strings.Contains(errOut, "nothing was ingested") {
		t.Errorf("ingest of a README: exit %d, stdout %q, stderr %q; want exit %d naming the file", code, out, errOut, exitFailure)
	}
	if _, err := os.Stat(arch); !os.IsNotExist(err) {
		t.Errorf("ingest of a README left %s (%v)", arch, err)
	}
	// With a good input too: refused whole, every bad file named.
	code, _, errOut = runCmd(t, "ingest", "-tables=false", arch, good, readme, readmeGz)
	if code != exitFailure || !strings.Contains(errOut, "2 input files are not WARC or ARC") || !strings.Contains(errOut, readme) || !strings.Contains(errOut, readmeGz) || strings.Contains(errOut, good) {
		t.Errorf("ingest of a good file and two bad ones: exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(arch); !os.IsNotExist(err) {
		t.Errorf("the refused ingest left %s (%v)", arch, err)
	}
	// Sharded, the same, before the shards are cut.
	code, _, errOut = runCmd(t, "ingest", "-tables=false", "-shards", "2", arch, good, readme)
	if code != exitFailure || !strings.Contains(errOut, readme) {
		t.Errorf("sharded ingest with a README: exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(arch); !os.IsNotExist(err) {
		t.Errorf("the refused sharded ingest left %s (%v)", arch, err)
	}

	// An existing archive stays at its commit.
	if code, _, errOut := runCmd(t, "ingest", "-tables=false", arch, good); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	before, err := os.ReadFile(filepath.Join(arch, "COMMIT"))
	if err != nil {
		t.Fatal(err)
	}
	names := dirNames(t, arch)
	if code, _, errOut := runCmd(t, "ingest", "-tables=false", arch, readme); code != exitFailure || !strings.Contains(errOut, readme) {
		t.Errorf("ingest of a README into an archive: exit %d, %q", code, errOut)
	}
	if after, _ := os.ReadFile(filepath.Join(arch, "COMMIT")); !bytes.Equal(before, after) || !slices.Equal(names, dirNames(t, arch)) {
		t.Errorf("the refused ingest changed the archive: %v, then %v", names, dirNames(t, arch))
	}

	// Still input: bytes before the first record (kept, counted as
	// malformed, exit 3), and an empty file.
	rec := warcRecord("response", "http://example.com/", "2022-01-02T03:04:05Z", "a9c51e3e-0221-11e7-bf66-0242ac120001", nil,
		"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello")
	salvaged := writeFile(t, filepath.Join(dir, "salvaged.warc"), []byte("some junk before the record\n"+rec))
	empty := writeFile(t, filepath.Join(dir, "empty.warc"), nil)
	code, _, errOut = runCmd(t, "ingest", "-tables=false", filepath.Join(dir, "b.bwa"), salvaged, empty)
	if code != exitSkipped || strings.Contains(errOut, "not WARC or ARC") {
		t.Errorf("ingest of a salvaged and an empty WARC: exit %d, %q; want %d", code, errOut, exitSkipped)
	}
}

// TestIngestRefusesUserDir: ingest into an existing directory holding
// other files and no archive is refused, and writes nothing there (no
// LOCK either); an empty directory becomes the archive.
func TestIngestRefusesUserDir(t *testing.T) {
	good := sampleFiles(t)[0]
	user := t.TempDir()
	writeFile(t, filepath.Join(user, "thesis.txt"), []byte("my own file\n"))
	for _, args := range [][]string{{"ingest", "-tables=false", user, good}, {"ingest", "-tables=false", "-shards", "2", user, good}} {
		code, out, errOut := runCmd(t, args...)
		if code != exitFailure || out != "" || !strings.Contains(errOut, user+" is a directory holding other files (thesis.txt) but no archive") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
		if names := dirNames(t, user); !slices.Equal(names, []string{"thesis.txt"}) {
			t.Errorf("%v wrote into the user's directory: %v", args, names)
		}
	}
	empty := t.TempDir()
	if code, _, errOut := runCmd(t, "ingest", "-tables=false", empty, good); code != exitOK {
		t.Errorf("ingest into an empty directory: exit %d: %s", code, errOut)
	}
	// An archive is extended as before.
	if code, _, errOut := runCmd(t, "ingest", "-tables=false", empty, sampleFiles(t)[1]); code != exitOK {
		t.Errorf("ingest into the archive made there: exit %d: %s", code, errOut)
	}
}
