package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/warcio"
)

// warcioJS returns the warcio.js command installed by `make npm`; it fails
// under CI=true when missing, else skips.
func warcioJS(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(sharedtest.RepoRoot(t), "testdata", "npm", "node_modules", ".bin", "warcio")
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("warcio.js missing at %s (CI=true): run `make npm`", bin)
		}
		t.Skipf("warcio.js missing at %s: run `make npm`", bin)
	}
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node not found (CI=true): warcio.js needs it")
		}
		t.Skip("node not found: warcio.js needs it")
	}
	return bin
}

// warcioJSCannot lists the interop samples warcio.js 2.4.11 cannot index:
// it exits 0 on all of them but writes entries that do not describe the
// records (urlkey "undefined", no url) or none at all. The test checks that
// this is still so, so the table cannot go stale silently.
var warcioJSCannot = map[string]string{
	"warcio--example.arc":                                   "ARC: warcio.js reads WARC only (urlkey undefined)",
	"warcio--example.arc.gz":                                "ARC: warcio.js reads WARC only",
	"warcio--example-space-in-url.arc":                      "ARC: warcio.js reads WARC only",
	"warcio--bad.arc":                                       "ARC: warcio.js reads WARC only",
	"aut--example.arc.gz":                                   "ARC: warcio.js reads WARC only",
	"aut--badexample.arc.gz":                                "ARC: warcio.js reads WARC only",
	"wac--IAH-20080430204825-00000-blackbook-truncated.arc": "ARC: warcio.js reads WARC only",
	"slyrz--test.warc.bz2":                                  "bzip2: warcio.js reads gzip and plain files only",
	"resiliparse--block-sized-records.warc.lz4":             "LZ4: warcio.js reads gzip and plain files only",
}

// oneMemberFiles hold several records in one gzip member. A record's
// offset is then where its member starts (all records share offset 0),
// while warcio.js reports positions in the decompressed stream. Entries are
// matched by URL and timestamp there, and offset and length not compared.
var oneMemberFiles = map[string]bool{
	"slyrz--test.warc.gz":                             true,
	"warcio--example-bad-non-chunked.warc.gz":         true,
	"iagowarc--good.warc.gz.open":                     true,
	"iagowarc--corrupted-trailing-bytes.warc.gz.open": true,
	"iagowarc--corrupted-mid-record.warc.gz.open":     true,
}

// knownDifferences are single fields where we knowingly disagree with
// warcio.js, keyed by "file@offset field".
var knownDifferences = map[string]string{
	// Gzip members do not match records: our length runs to the end of the
	// member holding the record's last byte, so offset+length holds all of
	// it; warcio.js stops inside the next member.
	"warcio--example-wrong-chunks.warc.gz@0 length": "members not aligned with records",
	// Lines end in CR CR LF: warcio.js reads no HTTP header, we read the
	// status line "HTTP/1.0 302 " (no reason phrase).
	"pywb--missing-status-text.warc@0 status": "CR CR LF line ends",
	// Its record ends with "\r\r\n\r\r\n": warcio.js counts those six
	// bytes in the record, we count the block only, as for every
	// uncompressed record.
	"pywb--missing-status-text.warc@0 length": "CR CR LF line ends",
	// Heritrix 1.14 (WARC/0.17) declared some Content-Lengths short of the
	// block; warcio.js then reports the WARC Content-Type
	// ("application/http; msgtype=response", "text/dns") as mime and no
	// status for the records that follow; we read their HTTP headers.
	"aut--example.warc.gz@* status": "short Content-Length (WARC/0.17)",
	"aut--example.warc.gz@* mime":   "short Content-Length (WARC/0.17)",
}

type cdxjLine struct {
	key, ts string
	f       map[string]string
}

func parseCDXJ(t testing.TB, out []byte) []cdxjLine {
	t.Helper()
	var lines []cdxjLine
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		l := sc.Text()
		// The urlkey may hold spaces (non-HTTP URIs are kept as is): the
		// JSON block starts at ` {"`, the timestamp is the word before it.
		i := strings.Index(l, ` {"`)
		if i < 0 {
			t.Fatalf("bad CDXJ line %q", l)
		}
		js := l[i+1:]
		j := strings.LastIndexByte(l[:i], ' ')
		if j < 0 {
			t.Fatalf("bad CDXJ line %q", l)
		}
		key, ts := l[:j], l[j+1:i]
		m := map[string]string{}
		if err := json.Unmarshal([]byte(js), &m); err != nil {
			t.Fatalf("bad CDXJ line %q: %v", l, err)
		}
		lines = append(lines, cdxjLine{key, ts, m})
	}
	return lines
}

// runWarcioJS indexes files with warcio.js, in batches over two processes.
func runWarcioJS(t *testing.T, bin string, files []string) []cdxjLine {
	batches := [2][]string{}
	for i, f := range files {
		batches[i%2] = append(batches[i%2], f)
	}
	var (
		wg   sync.WaitGroup
		outs [2][]byte
		errs [2]error
	)
	for i := range batches {
		if len(batches[i]) == 0 {
			continue
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.Command(bin, append([]string{"cdx-index"}, batches[i]...)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			outs[i], errs[i] = cmd.Output()
			if errs[i] != nil {
				errs[i] = fmt.Errorf("%v: %s", errs[i], stderr.String())
			}
		}(i)
	}
	wg.Wait()
	var lines []cdxjLine
	for i := range outs {
		if errs[i] != nil {
			t.Fatalf("warcio cdx-index: %v", errs[i])
		}
		lines = append(lines, parseCDXJ(t, outs[i])...)
	}
	return lines
}

// TestInteropWarcioJS compares our CDXJ with warcio.js cdx-index on every
// interop sample it can read and every corpus file: same entries (by file
// and offset), and the same urlkey, url, timestamp, status, digest and
// length for each.
//
// Documented differences, normalised before comparing:
//   - digest: warcio.js leaves it out when the record declares no
//     WARC-Payload-Digest; we compute it. Compared where warcio.js has one.
//   - status: warcio.js reads an HTTP status line from any response block,
//     also from non-HTTP ones (dns:, ftp:); we only from HTTP blocks.
//     Compared where the URL is http(s).
func TestInteropWarcioJS(t *testing.T) {
	bin := warcioJS(t)
	var files []string
	interop, _ := filepath.Glob(filepath.Join(sharedtest.Interop(t), "*"))
	for _, f := range interop {
		if filepath.Base(f) == "SOURCES.md" {
			continue
		}
		files = append(files, f)
	}
	corpus := sharedtest.CorpusFiles(t)
	if len(interop) < 50 || len(corpus) < 300 {
		t.Fatalf("expected the interop samples and the corpus under ../shared; found %d and %d files", len(interop), len(corpus))
	}
	files = append(files, corpus...)

	theirs := runWarcioJS(t, bin, files)

	var out, errOut bytes.Buffer
	opts := indexOptions{mem: 64 << 20, policy: warcio.PolicySkip, tempDir: t.TempDir()}
	if _, err := index(context.Background(), files, opts, &out, &errOut); err != nil {
		t.Fatalf("index: %v\n%s", err, errOut.String())
	}
	ours := parseCDXJ(t, out.Bytes())

	type pos struct{ file, at string }
	at := func(l cdxjLine) pos {
		if oneMemberFiles[l.f["filename"]] {
			return pos{l.f["filename"], l.ts + " " + l.f["url"] + " " + l.f["mime"]}
		}
		return pos{l.f["filename"], l.f["offset"]}
	}
	byPos := map[pos][]cdxjLine{}
	for _, l := range ours {
		byPos[at(l)] = append(byPos[at(l)], l)
	}
	seenCannot := map[string]bool{}
	compared := map[string]int{}
	for _, l := range theirs {
		file := l.f["filename"]
		if _, ok := warcioJSCannot[file]; ok {
			if l.key == "undefined" || l.f["url"] == "" {
				seenCannot[file] = true
			}
			continue
		}
		p := at(l)
		os, ok := byPos[p]
		if !ok {
			t.Errorf("%s: warcio.js indexes a record at %s (%s %s) that we do not", file, p.at, l.key, l.f["url"])
			continue
		}
		o := os[0]
		if len(os) == 1 {
			delete(byPos, p)
		} else {
			byPos[p] = os[1:]
		}
		compared[file]++
		check := func(what, a, b string) {
			if a == b {
				return
			}
			if _, ok := knownDifferences[file+"@"+l.f["offset"]+" "+what]; ok {
				return
			}
			if _, ok := knownDifferences[file+"@* "+what]; ok {
				return
			}
			t.Errorf("%s at %s: %s: ours %q, warcio.js %q", file, l.f["offset"], what, a, b)
		}
		theirKey := l.key
		if theirKey == "undefined" && l.f["url"] == "" {
			theirKey = "-" // no WARC-Target-URI: our documented urlkey
		}
		check("urlkey", o.key, theirKey)
		check("timestamp", o.ts, l.ts)
		check("url", o.f["url"], l.f["url"])
		check("mime", o.f["mime"], l.f["mime"])
		if !oneMemberFiles[file] {
			check("offset", o.f["offset"], l.f["offset"])
			check("length", o.f["length"], l.f["length"])
		}
		if l.f["digest"] != "" {
			check("digest", o.f["digest"], l.f["digest"])
		}
		u := strings.ToLower(l.f["url"])
		if strings.HasPrefix(u, "http:") || strings.HasPrefix(u, "https:") {
			check("status", o.f["status"], l.f["status"])
		}
	}
	for p, ls := range byPos {
		l := ls[0]
		if _, ok := warcioJSCannot[p.file]; ok {
			continue
		}
		t.Errorf("%s: we index a record at %s (%s %s) that warcio.js does not", p.file, p.at, l.key, l.f["url"])
	}
	for f, why := range warcioJSCannot {
		if !seenCannot[f] {
			t.Errorf("%s is listed as unreadable by warcio.js (%s) but it indexed it: update warcioJSCannot", f, why)
		}
	}
	var names []string
	for f := range compared {
		names = append(names, f)
	}
	sort.Strings(names)
	n := 0
	for _, f := range names {
		n += compared[f]
	}
	t.Logf("compared %d entries in %d files with warcio.js", n, len(names))
	if len(names) < 300 {
		t.Errorf("only %d files compared", len(names))
	}
}
