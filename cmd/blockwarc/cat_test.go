package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestCatRevisit: the payload of a revisit is not in its record; cat
// says which capture it repeats (as the record names it) and how to
// write that one, writes nothing and exits 1. -part record writes the
// revisit itself.
func TestCatRevisit(t *testing.T) {
	dir := t.TempDir()
	uri := "http://example.com/page"
	body := "<html><body><p>hello</p></body></html>"
	resp := warcRecord("response", uri, "2022-01-02T03:04:05Z", "a9c51e3e-0221-11e7-bf66-0242ac120001", nil,
		fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
	rev := warcRecord("revisit", uri, "2022-02-03T04:05:06Z", "a9c51e3e-0221-11e7-bf66-0242ac120002", []string{
		"WARC-Profile: http://netpreserve.org/warc/1.0/revisit/identical-payload-digest",
		"WARC-Refers-To-Target-URI: " + uri,
		"WARC-Refers-To-Date: 2022-01-02T03:04:05Z",
	}, fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n", len(body)))
	in := writeFile(t, filepath.Join(dir, "r.warc"), []byte(resp+rev))
	arch := filepath.Join(dir, "r.bwa")
	if code, _, errOut := runCmd(t, "ingest", "-tables=false", arch, in); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	code, out, errOut := runCmd(t, "cat", arch, uri)
	want := uri + " captured 2022-02-03T04:05:06Z is a revisit: its record holds no payload, the capture it repeats does, " +
		uri + " captured 2022-01-02T03:04:05Z ('blockwarc cat -at 2022-01-02T03:04:05Z " + arch + " " + uri + "' writes it)"
	if code != exitFailure || out != "" || !strings.Contains(errOut, want) {
		t.Errorf("cat of a revisit: exit %d, stdout %q, stderr %q; want exit 1 and %q", code, out, errOut, want)
	}
	// The command it gives writes the page.
	if code, out, errOut := runCmd(t, "cat", "-at", "2022-01-02T03:04:05Z", arch, uri); code != exitOK || out != body {
		t.Errorf("cat of the capture revisited: exit %d, %q, %s", code, out, errOut)
	}
	if code, out, _ := runCmd(t, "cat", "-part", "record", arch, uri); code != exitOK || out != rev {
		t.Errorf("cat -part record of the revisit: exit %d, %q", code, out)
	}
}
