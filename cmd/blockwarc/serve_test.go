package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	pngpkg "image/png"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/export/replay"
)

// serveFixture ingests the first half of the samples and serves the
// archive; it returns the server and the `index` lines of those files.
func serveFixture(t *testing.T) (srv *httptest.Server, arch string, lines []string, rest []string) {
	t.Helper()
	files := sampleFiles(t)
	half := len(files) / 2
	arch = filepath.Join(t.TempDir(), "s.bwa")
	if code, _, errOut := runCmd(t, append([]string{"ingest", "-tables=false", arch}, files[:half]...)...); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	code, out, errOut := runCmd(t, append([]string{"index"}, files[:half]...)...)
	if code != exitOK {
		t.Fatalf("index: exit %d: %s", code, errOut)
	}
	lines = strings.SplitAfter(out, "\n")
	lines = lines[:len(lines)-1]
	h := &replay.Server{Dirs: []string{arch}, Error: func(err error) { t.Errorf("server: %v", err) }}
	srv = httptest.NewServer(h)
	t.Cleanup(func() { srv.Close(); h.Close() })
	return srv, arch, lines, files[half:]
}

func get(t *testing.T, c *http.Client, u string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// lineJSON returns a field of a CDXJ line's JSON block.
func lineJSON(t *testing.T, line, field string) string {
	_, js, _ := strings.Cut(line, " {")
	var m map[string]string
	if err := json.Unmarshal([]byte("{"+js), &m); err != nil {
		t.Fatalf("line %q: %v", line, err)
	}
	return m[field]
}

// TestServeCDX: /cdx answers with the lines `blockwarc index` writes of
// the original files, selected and filtered as the query says.
func TestServeCDX(t *testing.T) {
	srv, _, lines, _ := serveFixture(t)
	const page = "http://127.0.0.1:8103/LoveScout24/Privacy%20Policy.html"
	key := func(l string) string { k, _, _ := strings.Cut(l, " "); return k }
	ts := func(l string) string { f := strings.Fields(l); return f[1] }
	pick := func(keep func(l string) bool, limit int) string {
		var b strings.Builder
		n := 0
		for _, l := range lines {
			if keep(l) && (limit == 0 || n < limit) {
				b.WriteString(l)
				n++
			}
		}
		return b.String()
	}
	pageKey := "1,0,0,127:8103)/lovescout24/privacy%20policy.html"
	cases := []struct {
		query string
		want  string
	}{
		{"url=" + url.QueryEscape(page), pick(func(l string) bool { return key(l) == pageKey }, 0)},
		{"url=" + url.QueryEscape(page) + "&from=2022&to=202204", pick(func(l string) bool {
			return key(l) == pageKey && ts(l) >= "2022" && ts(l) <= "20220499999999"
		}, 0)},
		{"url=127.0.0.1:8103/&matchType=host", pick(func(l string) bool { return strings.HasPrefix(key(l), "1,0,0,127:8103)/") }, 0)},
		{"url=127.0.0.1:8103/LoveScout24/P&matchType=prefix", pick(func(l string) bool { return strings.HasPrefix(key(l), "1,0,0,127:8103)/lovescout24/p") }, 0)},
		{"url=127.0.0.1:8103/LoveScout24/*", pick(func(l string) bool { return strings.HasPrefix(key(l), "1,0,0,127:8103)/lovescout24/") }, 0)},
		{"url=gnu.org&matchType=domain", pick(func(l string) bool { return false }, 0)},
		{"url=metadata://gnu.org/software/wget/warc/&matchType=prefix", pick(func(l string) bool { return strings.HasPrefix(key(l), "metadata://gnu.org/software/wget/warc/") }, 0)},
		{"url=127.0.0.1:8103/&matchType=host&filter=" + url.QueryEscape("digest:I5|E6") + "&filter=!~filename:20221", pick(func(l string) bool {
			d := lineJSON(t, l, "digest")
			return strings.HasPrefix(key(l), "1,0,0,127:8103)/") && (strings.HasPrefix(d, "I5") || strings.HasPrefix(d, "E6")) &&
				!strings.Contains(lineJSON(t, l, "filename"), "20221")
		}, 0)},
		{"url=127.0.0.1:8103/&matchType=host&filter=" + url.QueryEscape("!url:.*Privacy") + "&limit=3", pick(func(l string) bool {
			return strings.HasPrefix(key(l), "1,0,0,127:8103)/") && !strings.Contains(lineJSON(t, l, "url"), "Privacy")
		}, 3)},
		{"url=127.0.0.1:8103/&matchType=host&filter=statuscode:404", ""},
	}
	for _, c := range cases {
		resp, body := get(t, srv.Client(), srv.URL+"/cdx?"+c.query)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: status %d: %s", c.query, resp.StatusCode, body)
			continue
		}
		if body != c.want {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", c.query, body, c.want)
		}
		if c.want == "" && !strings.Contains(c.query, "404") && !strings.Contains(c.query, "domain") {
			t.Errorf("%s: the test selects nothing", c.query)
		}
	}
	// output=json: a header row, then a row per line.
	resp, body := get(t, srv.Client(), srv.URL+"/cdx?output=json&url="+url.QueryEscape(page))
	var rows [][]string
	if err := json.Unmarshal([]byte(body), &rows); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("output=json: %d %v: %s", resp.StatusCode, err, body)
	}
	want := strings.Split(strings.TrimSuffix(cases[0].want, "\n"), "\n")
	if len(rows) != len(want)+1 || rows[0][0] != "urlkey" || rows[1][0] != pageKey || rows[1][1] != ts(want[0]) || rows[1][7] != lineJSON(t, want[0], "offset") {
		t.Errorf("output=json: %d rows, first %v; want %d lines, first %q", len(rows), rows[:min(2, len(rows))], len(want), want[0])
	}
	for _, bad := range []string{"", "url=x&matchType=nope", "url=x&filter=nocolon", "url=x&limit=-1", "url=x&output=xml", "url=x&from=20x"} {
		if resp, body := get(t, srv.Client(), srv.URL+"/cdx?"+bad); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("/cdx?%s: status %d (%s), want 400", bad, resp.StatusCode, body)
		}
	}
}

// TestServeWeb: /web/TSid_/URL gives the bytes of `cat -part http`,
// /web/TS/URL redirects to the nearest capture, and what the archive does
// not hold is 404.
func TestServeWeb(t *testing.T) {
	srv, arch, lines, _ := serveFixture(t)
	noRedirect := *srv.Client()
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c := &noRedirect
	n := 0
	for _, l := range lines {
		if !strings.HasPrefix(l, "1,0,0,127") {
			continue
		}
		f := strings.Fields(l)
		u := lineJSON(t, l, "url")
		resp, body := get(t, c, srv.URL+"/web/"+f[1]+"id_/"+u)
		code, want, errOut := runCmd(t, "cat", "-part", "http", "-at", f[1], arch, u)
		if code != exitOK {
			t.Fatalf("cat: %s", errOut)
		}
		if resp.StatusCode != http.StatusOK || body != want {
			t.Errorf("%s id_ %s: status %d, %d bytes; want 200 and the %d bytes of cat -part http", f[1], u, resp.StatusCode, len(body), len(want))
		}
		if md := resp.Header.Get("Memento-Datetime"); md == "" || !strings.Contains(resp.Header.Get("Link"), `rel="original"`) {
			t.Errorf("%s id_ %s: Memento-Datetime %q, Link %q", f[1], u, md, resp.Header.Get("Link"))
		}
		n++
	}
	if n == 0 {
		t.Fatal("no capture fetched")
	}
	const page = "http://127.0.0.1:8103/LoveScout24/Privacy%20Policy.html"
	for _, r := range []struct{ path, loc string }{
		{"/web/2022/" + page, "/web/20220120143355id_/" + page},
		{"/web/20220126id_/" + page, "/web/20220125183142id_/" + page},
		{"/web/20300101000000/" + page, ""},
		{"/web/" + page, ""},
	} {
		resp, _ := get(t, c, srv.URL+r.path)
		loc := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusFound || (r.loc != "" && loc != r.loc) || !strings.Contains(loc, "id_/") {
			t.Errorf("%s: status %d, Location %q; want 302 to %q", r.path, resp.StatusCode, loc, r.loc)
			continue
		}
		// The redirect's target is a capture.
		if resp, _ := get(t, c, srv.URL+loc); resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %s gives %d", r.path, loc, resp.StatusCode)
		}
	}
	for _, p := range []string{"/web/2022id_/http://example.com/nothing", "/web/2022/http://example.com/", "/nothing", "/web/", "/timemap/link/http://example.com/"} {
		if resp, body := get(t, c, srv.URL+p); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: status %d (%s), want 404", p, resp.StatusCode, body)
		}
	}
	// A browser (Accept: text/html) is given the stored response as the
	// response: the stored status and fields, the payload as the body.
	req, _ := http.NewRequest("GET", srv.URL+"/web/20220120143355id_/"+page, nil)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	_, payload, _ := runCmd(t, "cat", "-at", "20220120143355", arch, page)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || string(b) != payload ||
		resp.Header.Get("Memento-Datetime") != "Thu, 20 Jan 2022 14:33:55 GMT" {
		t.Errorf("id_ for a browser: %d %q %q, %d bytes; want 200 text/html and the %d bytes of the payload", resp.StatusCode,
			resp.Header.Get("Content-Type"), resp.Header.Get("Memento-Datetime"), len(b), len(payload))
	}
	resp, body := get(t, c, srv.URL+"/timemap/link/"+page)
	if resp.StatusCode != http.StatusOK || strings.Count(body, `rel="memento"`) != strings.Count(strings.Join(lines, ""), "privacy%20policy.html ") {
		t.Errorf("timemap: %d\n%s", resp.StatusCode, body)
	}
}

// TestServeDuringIngest: 8 clients fetch captures and CDX lines while an
// ingest adds the other half of the samples; every answer is whole and
// correct for the commit it saw, and afterwards the new captures are
// served.
func TestServeDuringIngest(t *testing.T) {
	srv, arch, lines, rest := serveFixture(t)
	const page = "http://127.0.0.1:8103/LoveScout24/Privacy%20Policy.html"
	first := strings.Fields(lines[0])
	firstURL := lineJSON(t, lines[0], "url")
	_, want, _ := runCmd(t, "cat", "-part", "http", "-at", first[1], arch, firstURL)
	var before strings.Builder
	for _, l := range lines {
		if strings.HasPrefix(l, "1,0,0,127:8103)/lovescout24/privacy") {
			before.WriteString(l)
		}
	}
	done := make(chan struct{})
	ingestErr := make(chan string, 1)
	go func() {
		defer close(done)
		if code, _, errOut := runCmd(t, append([]string{"ingest", "-tables=false", "-commit", "1KiB", arch}, rest...)...); code != exitOK {
			ingestErr <- fmt.Sprintf("exit %d: %s", code, errOut)
		}
	}()
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[int]bool{} // the line counts the clients saw: one per commit
	for g := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					if i > 0 {
						return
					}
				default:
				}
				if (g+i)%2 == 0 {
					resp, err := srv.Client().Get(srv.URL + "/web/" + first[1] + "id_/" + firstURL)
					if err != nil {
						t.Error(err)
						return
					}
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK || string(b) != want {
						t.Errorf("goroutine %d: id_ fetch during ingest: %d, %d bytes, want %d", g, resp.StatusCode, len(b), len(want))
						return
					}
					continue
				}
				resp, err := srv.Client().Get(srv.URL + "/cdx?url=" + url.QueryEscape(page))
				if err != nil {
					t.Error(err)
					return
				}
				sc := bufio.NewScanner(resp.Body)
				sc.Buffer(nil, 1<<20)
				var got strings.Builder
				for sc.Scan() {
					got.WriteString(sc.Text() + "\n")
				}
				resp.Body.Close()
				mu.Lock()
				seen[strings.Count(got.String(), "\n")] = true
				mu.Unlock()
				// The lines of the first half come first (they are older);
				// the ingest's commits add lines after them.
				if resp.StatusCode != http.StatusOK || !strings.HasPrefix(got.String(), before.String()) {
					t.Errorf("goroutine %d: cdx during ingest: %d\n%s", g, resp.StatusCode, got.String())
					return
				}
			}
		})
	}
	wg.Wait()
	<-done
	t.Logf("the clients saw %d generations of the archive", len(seen))
	select {
	case e := <-ingestErr:
		t.Fatalf("ingest: %s", e)
	default:
	}
	// After the ingest: the lines of every sample.
	files := sampleFiles(t)
	_, all, _ := runCmd(t, append([]string{"index"}, files...)...)
	var wantAll strings.Builder
	for _, l := range strings.SplitAfter(all, "\n") {
		if strings.HasPrefix(l, "1,0,0,127:8103)/lovescout24/privacy") {
			wantAll.WriteString(l)
		}
	}
	if _, body := get(t, srv.Client(), srv.URL+"/cdx?url="+url.QueryEscape(page)); body != wantAll.String() {
		t.Errorf("cdx after the ingest:\n%s\nwant\n%s", body, wantAll.String())
	}
}

// TestServeChromium loads a capture through /web/TSid_/URL in headless
// Chromium: the page renders (the screenshot is not one colour).
func TestServeChromium(t *testing.T) {
	bin := chromium(t)
	srv, _, _, _ := serveFixture(t)
	const page = "http://127.0.0.1:8103/LoveScout24/Privacy%20Policy.html"
	shots := os.Getenv("BLOCKWARC_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	png := filepath.Join(shots, "serve-id.png")
	if out, err := exec.Command(bin, chromiumArgs(t, "--window-size=1200,900", "--virtual-time-budget=5000",
		"--screenshot="+png, srv.URL+"/web/20220120143355id_/"+page)...).CombinedOutput(); err != nil {
		t.Fatalf("screenshot: %v\n%s", err, out)
	}
	f, err := os.Open(png)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := pngpkg.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", png, err)
	}
	colours := map[color.RGBA]bool{}
	bnd := img.Bounds()
	for y := bnd.Min.Y; y < bnd.Max.Y && len(colours) < 3; y += 3 {
		for x := bnd.Min.X; x < bnd.Max.X; x += 3 {
			colours[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)] = true
		}
	}
	if len(colours) < 3 {
		t.Errorf("screenshot %s is blank (%d colours)", png, len(colours))
	}
	t.Logf("screenshot: %s", png)
}

// TestServeCLI: the command listens until interrupted (exit 0), and
// refuses a missing archive (1) or none (2) before listening.
func TestServeCLI(t *testing.T) {
	_, arch, _, _ := serveFixture(t)
	if code, _, _ := runCmd(t, "serve"); code != exitUsage {
		t.Errorf("serve without ARCHIVE: exit %d, want %d", code, exitUsage)
	}
	if code, _, errOut := runCmd(t, "serve", "-addr", "127.0.0.1:0", filepath.Join(t.TempDir(), "none.bwa")); code != exitFailure {
		t.Errorf("serve of a missing archive: exit %d, want %d: %s", code, exitFailure, errOut)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	codec := make(chan int, 1)
	go func() {
		codec <- run(ctx, []string{"serve", "-addr", "127.0.0.1:0", arch}, io.Discard, pw)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	_, addr, ok := strings.Cut(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("first line %q", line)
	}
	resp, err := http.Get(addr + "cdx?url=127.0.0.1:8103/&matchType=host&limit=1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || strings.Count(string(b), "\n") != 1 {
		t.Errorf("cdx through the command: %d %q", resp.StatusCode, b)
	}
	cancel()
	if code := <-codec; code != exitOK {
		t.Errorf("serve interrupted: exit %d, want 0", code)
	}
}

// TestServeSeesNewCommit: the server keeps an archive open between
// requests (with the versions of the URLs asked for), yet a commit made
// after a request is seen by the next one: a URL's TimeMap and its latest
// capture include what a later ingest added.
// A sharded archive too (its commit is each shard's COMMIT).
func TestServeSeesNewCommit(t *testing.T) {
	t.Run("plain", func(t *testing.T) {
		srv, arch, _, rest := serveFixture(t)
		seesNewCommit(t, srv, arch, rest)
	})
	t.Run("sharded", func(t *testing.T) {
		files := sampleFiles(t)
		half := len(files) / 2
		arch := filepath.Join(t.TempDir(), "s.bwa")
		if code, _, errOut := runCmd(t, append([]string{"ingest", "-tables=false", "-shards", "2", arch}, files[:half]...)...); code != exitOK {
			t.Fatalf("ingest: exit %d: %s", code, errOut)
		}
		if _, err := os.Stat(filepath.Join(arch, "shard-0001", "COMMIT")); err != nil {
			t.Fatalf("not sharded: %v", err)
		}
		h := &replay.Server{Dirs: []string{arch}, Error: func(err error) { t.Errorf("server: %v", err) }}
		srv := httptest.NewServer(h)
		t.Cleanup(func() { srv.Close(); h.Close() })
		seesNewCommit(t, srv, arch, files[half:])
	})
}

func seesNewCommit(t *testing.T, srv *httptest.Server, arch string, rest []string) {
	const page = "http://127.0.0.1:8103/LoveScout24/Privacy%20Policy.html"
	count := func() int {
		resp, body := get(t, srv.Client(), srv.URL+"/timemap/link/"+page)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("timemap: %d: %s", resp.StatusCode, body)
		}
		return strings.Count(body, `rel="memento`) + strings.Count(body, `rel="first memento`) + strings.Count(body, `rel="last memento`)
	}
	latest := func() string {
		resp, err := srv.Client().Transport.RoundTrip(must(http.NewRequest("GET", srv.URL+"/web/"+page, nil)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.Header.Get("Location")
	}
	before, beforeLatest := count(), latest()
	if code, _, errOut := runCmd(t, append([]string{"ingest", "-tables=false", arch}, rest...)...); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	after, afterLatest := count(), latest()
	if before == 0 || after <= before {
		t.Errorf("timemap: %d mementos before the ingest, %d after: want more after", before, after)
	}
	if afterLatest == beforeLatest || afterLatest == "" {
		t.Errorf("latest capture before the ingest %q, after %q: want a later one", beforeLatest, afterLatest)
	}
	// And the new latest is served whole.
	resp, body := get(t, srv.Client(), srv.URL+afterLatest)
	if resp.StatusCode != http.StatusOK || len(body) == 0 {
		t.Errorf("%s: %d, %d bytes", afterLatest, resp.StatusCode, len(body))
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestServeKeepsFramesAcrossCommits: a view opened after a commit (the
// ingest of more files) finds the frames the earlier view decoded in the
// server's cache: the same capture fetched again decodes nothing it
// decoded before, and is served the same bytes. Without the shared cache
// every commit an ingest makes sent every client back to cold frames.
func TestServeKeepsFramesAcrossCommits(t *testing.T) {
	files := sampleFiles(t)
	half := len(files) / 2
	arch := filepath.Join(t.TempDir(), "s.bwa")
	if code, _, errOut := runCmd(t, append([]string{"ingest", "-tables=false", arch}, files[:half]...)...); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	h := &replay.Server{Dirs: []string{arch}, Error: func(err error) { t.Errorf("server: %v", err) }}
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.Close(); h.Close() })
	const page = "http://127.0.0.1:8103/LoveScout24/Privacy%20Policy.html"
	resp, err := srv.Client().Transport.RoundTrip(must(http.NewRequest("GET", srv.URL+"/web/"+page, nil)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	memento := resp.Header.Get("Location")
	s0 := h.Stats()
	resp, first := get(t, srv.Client(), srv.URL+memento)
	if resp.StatusCode != http.StatusOK || first == "" {
		t.Fatalf("%s: %d, %d bytes", memento, resp.StatusCode, len(first))
	}
	s1 := h.Stats()
	if s1.Decoded <= s0.Decoded {
		t.Fatalf("the first fetch of %s decoded %d bytes into the server's cache: want some", memento, s1.Decoded-s0.Decoded)
	}
	if code, _, errOut := runCmd(t, append([]string{"ingest", "-tables=false", arch}, files[half:]...)...); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	resp, again := get(t, srv.Client(), srv.URL+memento)
	s2 := h.Stats()
	if resp.StatusCode != http.StatusOK || again != first {
		t.Fatalf("%s after the commit: %d, %d bytes, want 200 and the %d bytes served before", memento, resp.StatusCode, len(again), len(first))
	}
	if s2.Views <= s1.Views {
		t.Fatalf("%d views opened before the commit, %d after: the fetch did not see the commit", s1.Views, s2.Views)
	}
	t.Logf("first fetch decoded %d bytes, the fetch after the commit %d", s1.Decoded-s0.Decoded, s2.Decoded-s1.Decoded)
	if s2.Decoded-s1.Decoded >= s1.Decoded-s0.Decoded {
		t.Errorf("the fetch after the commit decoded %d bytes, the first %d: the new view started cold", s2.Decoded-s1.Decoded, s1.Decoded-s0.Decoded)
	}
}

// TestServeHeap: serve holds the heap near -cache plus as much again, at
// least 64 MiB, collecting only there (a server's live heap is small, and
// each collection stops every request), and gives the process its
// settings back when it stops; a -cache below 1 MiB is a usage error.
func TestServeHeap(t *testing.T) {
	percent0, limit0 := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	defer func() { debug.SetGCPercent(percent0); debug.SetMemoryLimit(limit0) }()
	release := serveHeap(64 << 20)
	percent := debug.SetGCPercent(-1)
	if limit := debug.SetMemoryLimit(-1); percent != -1 || limit != 128<<20 {
		t.Errorf("while serving: GOGC %d, memory limit %d; want off and %d", percent, limit, 128<<20)
	}
	release()
	// A small cache: room for requests all the same.
	release = serveHeap(2 << 20)
	if limit := debug.SetMemoryLimit(-1); limit != 66<<20 {
		t.Errorf("-cache 2MiB: memory limit %d, want %d", limit, 66<<20)
	}
	release()
	percent = debug.SetGCPercent(100)
	if limit := debug.SetMemoryLimit(-1); percent != 100 || limit != math.MaxInt64 {
		t.Errorf("after serving: GOGC %d, memory limit %d; want the 100 and %d before", percent, limit, int64(math.MaxInt64))
	}
	_, arch, _, _ := serveFixture(t)
	// Interrupted already: a -cache taken serves nothing and exits 0.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []string{"1000", "bogus"} {
		var errOut strings.Builder
		if code := run(ctx, []string{"serve", "-addr", "127.0.0.1:0", "-cache", c, arch}, io.Discard, &errOut); code != exitUsage {
			t.Errorf("serve -cache %s: exit %d, want %d: %s", c, code, exitUsage, errOut.String())
		}
	}
}

// TestServeWebCrawlAtATime: in an archive ingested one crawl at a time
// (a catalog run each), /web/TS/URL, which reads only the runs that may
// hold the capture nearest TS (dedupe.Archive.NearVersions), redirects
// to the memento the timemap (every run read) puts nearest TS, the
// earlier on a tie: at each capture's second, a second either side,
// long before and after every capture, and with no TS, the latest. The
// timemap is asked last: the server keeps the list it reads, and a
// /web/ request after it would choose from that list.
func TestServeWebCrawlAtATime(t *testing.T) {
	files := sampleFiles(t)
	arch := filepath.Join(t.TempDir(), "c.bwa")
	for _, f := range files {
		if code, _, errOut := runCmd(t, "ingest", "-tables=false", arch, f); code != exitOK {
			t.Fatalf("ingest %s: exit %d: %s", f, code, errOut)
		}
	}
	h := &replay.Server{Dirs: []string{arch}, Error: func(err error) { t.Errorf("server: %v", err) }}
	srv := httptest.NewServer(h)
	defer func() { srv.Close(); h.Close() }()
	c := *srv.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	// The times to ask at, from each URL's records as `ls -captures` lists
	// them (their dates are the mementos').
	_, ls, _ := runCmd(t, "ls", "-captures", arch)
	dates := map[string][]time.Time{}
	for _, line := range strings.Split(strings.TrimSpace(ls), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		if d, err := time.Parse(time.RFC3339, f[1]); err == nil {
			dates[f[0]] = append(dates[f[0]], d)
		}
	}
	if len(dates) == 0 {
		t.Fatalf("no capture listed by ls -captures:\n%s", ls)
	}
	asked := 0
	for target, ds := range dates {
		slices.SortFunc(ds, time.Time.Compare)
		ask := []time.Time{{}, ds[0].AddDate(-5, 0, 0), ds[len(ds)-1].AddDate(5, 0, 0)}
		for _, d := range ds {
			ask = append(ask, d, d.Add(-time.Second), d.Add(time.Second))
		}
		got := make([]string, len(ask))
		for i, at := range ask {
			path := "/web/" + target
			if !at.IsZero() {
				path = "/web/" + at.Format("20060102150405") + "/" + target
			}
			resp, _ := get(t, &c, srv.URL+path)
			got[i] = resp.Header.Get("Location")
			if resp.StatusCode == http.StatusNotFound {
				got[i] = "404"
			}
		}
		resp, body := get(t, &c, srv.URL+"/timemap/link/"+target)
		var ts []time.Time // the mementos, in time order
		for _, m := range regexp.MustCompile(`</web/(\d{14})id_/`).FindAllStringSubmatch(body, -1) {
			d, err := time.Parse("20060102150405", m[1])
			if err != nil {
				t.Fatal(err)
			}
			ts = append(ts, d)
		}
		for i, at := range ask {
			want := "404" // no page record (wget's metadata://)
			if resp.StatusCode == http.StatusOK && len(ts) > 0 {
				best := ts[len(ts)-1]
				if !at.IsZero() {
					best = ts[0]
					for _, d := range ts[1:] {
						if d.Sub(at).Abs() < best.Sub(at).Abs() {
							best = d
						}
					}
				}
				want = "/web/" + best.Format("20060102150405") + "id_/" + target
			}
			if got[i] != want {
				t.Fatalf("/web/ %s at %v: %q, want %q (the timemap's nearest)", target, at, got[i], want)
			}
			asked++
		}
	}
	if asked < 100 {
		t.Fatalf("only %d requests asked", asked)
	}
	t.Logf("%d requests over %d ingests", asked, len(files))
}
