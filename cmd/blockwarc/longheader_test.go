package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func resourceRecord(id, url, extra, body string) string {
	return fmt.Sprintf("WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:%s>\r\nWARC-Date: 2022-01-01T00:00:00Z\r\nWARC-Target-URI: %s\r\n%sContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n",
		id, url, extra, len(body), body)
}

// TestLongHeaderIsGap: a record whose WARC header is longer than 1 MiB
// is not read as a record: counted malformed, no capture, its bytes
// kept as a gap, so the input file still comes back byte for byte
// (docs/COMMANDS.md, ingest; docs/FORMAT.md "Gaps").
func TestLongHeaderIsGap(t *testing.T) {
	dir := t.TempDir()
	long := "X-Long: " + strings.Repeat("x", 1<<20+10) + "\r\n"
	data := resourceRecord("a", "http://a.example/", "", "alpha") +
		resourceRecord("b", "http://b.example/", long, "bravo") +
		resourceRecord("c", "http://c.example/", "", "charlie")
	in := filepath.Join(dir, "long.warc")
	os.WriteFile(in, []byte(data), 0o644)
	arch := filepath.Join(dir, "a.bwa")
	code, out, errOut := runCmd(t, "ingest", "-tables=false", "-json", arch, in)
	if code != exitSkipped || !strings.Contains(out, `"malformed":1`) || !strings.Contains(errOut, "longer than 1048576 bytes") {
		t.Fatalf("ingest: exit %d, %s %s", code, out, errOut)
	}
	for url, want := range map[string]string{"http://a.example/": "alpha", "http://c.example/": "charlie"} {
		if code, got, errOut := runCmd(t, "cat", arch, url); code != exitOK || got != want {
			t.Errorf("cat %s: exit %d, %q %s", url, code, got, errOut)
		}
	}
	if code, _, errOut := runCmd(t, "cat", arch, "http://b.example/"); code != exitFailure || !strings.Contains(errOut, "no capture") {
		t.Errorf("cat of the long-header record: exit %d, %s", code, errOut)
	}
	code, got, errOut := runCmd(t, "export-warc", "-source", "long.warc", arch)
	if code != exitOK || got != data {
		t.Errorf("export-warc -source: exit %d, %d of %d bytes, %s", code, len(got), len(data), errOut)
	}
}
