package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/warcio"
)

// runMainEnv set to 1 makes the test binary run main (TestMain).
const runMainEnv = "BLOCKWARC_TEST_RUN_MAIN"

// TestIngestInterrupt sends SIGINT (Ctrl-C) to a real ingest after its
// first commit: it stops with status 1 and says that running it again
// resumes; the archive verifies as it is, and running the same command
// again completes it (every input file restores exactly).
func TestIngestInterrupt(t *testing.T) {
	site := sharedtest.Dir(t, "corpus", "ota-tinder")
	arch := filepath.Join(t.TempDir(), "i.bwa")
	// -commit 1: a commit after every URL, so there is one to stop after.
	args := []string{"ingest", "-commit", "1", "-workers", "1", "-tables=false", arch, site}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	commitFile := filepath.Join(arch, "COMMIT")
	var first []byte
	deadline := time.After(2 * time.Minute)
poll:
	for {
		select {
		case err := <-exited:
			t.Fatalf("ingest ended (%v) before its second commit could be interrupted: %s", err, stderr.String())
		case <-deadline:
			cmd.Process.Kill()
			t.Fatal("no commit after 2 minutes")
		case <-time.After(20 * time.Millisecond):
		}
		b, err := os.ReadFile(commitFile)
		switch {
		case err != nil || len(b) == 0:
		case first == nil:
			first = b // the empty archive's
		case !bytes.Equal(b, first):
			break poll
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := <-exited
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitFailure {
		t.Fatalf("interrupted ingest: %v, want exit status %d; stderr: %s", err, exitFailure, stderr.String())
	}
	want := regexp.MustCompile(`blockwarc ingest: interrupted; ` + regexp.QuoteMeta(arch) +
		` is at its last commit \(([0-9]+) this run\): run the same command again to resume\n$`)
	if m := want.FindStringSubmatch(stderr.String()); m == nil || m[1] == "0" {
		t.Fatalf("interrupted ingest said %q", stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("interrupted ingest printed a summary: %q", stdout.String())
	}
	if code, out, errOut := runCmd(t, "verify", arch); code != exitOK {
		t.Fatalf("the interrupted archive does not verify: %s %s", out, errOut)
	}
	if code, out, errOut := runCmd(t, args...); code != exitOK || !strings.Contains(out, " file(s), ") {
		t.Fatalf("resumed ingest: exit %d: %s %s", code, out, errOut)
	}
	files, err := warcio.ExpandInputs([]string{site})
	if err != nil {
		t.Fatal(err)
	}
	if _, out, _ := runCmd(t, "verify", arch); !strings.Contains(out, fmt.Sprintf(" %d input files rebuilt exactly,", len(files))) {
		t.Errorf("the resumed archive does not hold every input file: %s", out)
	}
}

// TestIndexHTTPXStatusLine: a response whose status line reads
// "HTTPX/1.1 200 OK" (pywb's example-extra.warc) keeps its mime and
// status in the CDXJ, as pywb and warcio.js index it.
func TestIndexHTTPXStatusLine(t *testing.T) {
	for _, tc := range []struct{ line, status string }{
		{"HTTPX/1.1 200 OK", "200"},
		{"HTTP/1.1 404 Not Found", "404"},
	} {
		body := tc.line + "\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: 5\r\n\r\nhello"
		rec := "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://example.com/\r\n" +
			"WARC-Date: 2014-01-03T03:03:21Z\r\nWARC-Record-ID: <urn:uuid:a9c51e3e-0221-11e7-bf66-0242ac120005>\r\n" +
			"Content-Type: application/http; msgtype=response\r\n" +
			fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body)) + body + "\r\n\r\n"
		in := filepath.Join(t.TempDir(), "x.warc")
		if err := os.WriteFile(in, []byte(rec), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCmd(t, "index", in)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", tc.line, code, errOut)
		}
		ls := parseCDXJ(t, []byte(out))
		if len(ls) != 1 || ls[0].f["mime"] != "text/html" || ls[0].f["status"] != tc.status {
			t.Errorf("%s: %s", tc.line, out)
		}
	}
}

// TestURLsNonHTTP: wget's metadata:// records (its log and arguments)
// stay in captures, marked url_protocol 'metadata' and without a host
// (the log's URL names gnu.org, which was not crawled), but have no urls
// row and no changes: urls and the change rates are the site's pages.
func TestURLsNonHTTP(t *testing.T) {
	in := filepath.Join(sharedtest.Interop(t), "pywb--example-wget-1-14.warc.gz")
	arch := filepath.Join(t.TempDir(), "w.bwa")
	if code, _, errOut := runCmd(t, "ingest", arch, in); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	tables := filepath.ToSlash(filepath.Join(arch, "tables"))
	out := duckQuery(t, []string{}, map[string]string{
		"urls": "SELECT url, url_protocol FROM read_parquet('" + tables + "/urls/*.parquet') ORDER BY url",
		"meta": `SELECT count(*) AS n, count(*) FILTER (WHERE url_host_name = '' AND url_host_registered_domain IS NULL) AS hostless
			FROM read_parquet('` + tables + `/captures/*.parquet') WHERE url_protocol = 'metadata' AND url LIKE 'metadata://%'`,
		"changes": "SELECT count(*) AS n FROM read_parquet('" + tables + "/changes/*.parquet') WHERE url NOT LIKE 'http%'",
	})
	var http int
	for _, r := range out["urls"] {
		url, proto := fmt.Sprint(r["url"]), fmt.Sprint(r["url_protocol"])
		if strings.HasPrefix(url, "http://") && proto == "http" {
			http++
		} else {
			t.Errorf("urls row %s: url_protocol %q, want only http(s) pages", url, proto)
		}
	}
	if http == 0 {
		t.Errorf("urls: no http rows: %v", out["urls"])
	}
	if m := out["meta"]; len(m) != 1 || fmt.Sprint(m[0]["n"]) == "0" || fmt.Sprint(m[0]["n"]) != fmt.Sprint(m[0]["hostless"]) {
		t.Errorf("captures of metadata:// records, and those without a host: %v, want some, all hostless", m)
	}
	if c := out["changes"]; len(c) != 1 || fmt.Sprint(c[0]["n"]) != "0" {
		t.Errorf("changes rows of records about the crawl: %v, want 0", c)
	}
}
