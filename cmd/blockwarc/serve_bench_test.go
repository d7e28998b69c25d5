package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/export/replay"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// BenchmarkServeDuringIngest measures issue 36's figure: the latency of
// 1,000 random /web/TSid_/URL fetches by 8 concurrent clients from the
// replay server while `blockwarc ingest` (the built binary, a process of
// its own as in use) extends the same archive, committing every 1 MiB of
// input. The archive holds two corpus sites (ota-mektoube,
// ota-lovescout24); the ingest adds a third (ota-tinder). The captures are
// picked with a fixed seed from the server's own CDX listing, and every
// answer must be 200 with the bytes `blockwarc cat -part http -at TS` writes
// of that capture. Baselines of the same run: the same 1,000 fetches with
// no ingest running (x-idle: p99 during the ingest ÷ idle p99), and `cat`
// of the same captures in-process, one at a time (x-cat: p99 during the
// ingest ÷ cat's p99), and the fetches again while a second ingest
// (mkdocs-org) runs at full priority, -nice 0 (full-*; the first runs at
// ingest's default, nice 10); idle-cpu-ms/fetch is this
// process's CPU (clients and server) per fetch with no ingest, a figure
// the machine's other load does not move. It fails when an ingest ends
// before the last fetch, or before its captures show in the listing.
//
// The server runs as 'blockwarc serve' does (its cache at the default
// -cache, its heap paced by serveHeap), in this process. Each phase logs
// what the server did: views opened (one per commit seen), bytes decoded
// per fetch (decoded-MB/fetch, views: the figures of the fetches during
// the ingest), what the cache holds, bytes allocated per fetch (the
// clients' too), collections and their stop-the-world time, and how
// many of the fetches slower than idle p99 overlapped a view's opening.
func BenchmarkServeDuringIngest(b *testing.B) { serveDuringIngest(b, pack.DefaultCacheBytes, true) }

// BenchmarkServeDuringIngestSmallCache is BenchmarkServeDuringIngest
// (without the full-priority ingest) with -cache 2MiB: less than the frames the
// 1,000 fetches read (about 3.5 MB, which the default cache holds
// whole), so fetches decode frames again while the ingest runs.
func BenchmarkServeDuringIngestSmallCache(b *testing.B) { serveDuringIngest(b, 2<<20, false) }

// serveDuringIngest runs the fetches of BenchmarkServeDuringIngest with
// a server of -cache cache, the full-priority ingest too if fullToo.
func serveDuringIngest(b *testing.B, cache int64, fullToo bool) {
	base := sharedtest.CorpusFiles(b, "ota-mektoube", "ota-lovescout24")
	more := sharedtest.CorpusFiles(b, "ota-tinder")
	fullMore := sharedtest.CorpusFiles(b, "mkdocs-org")
	hosts := []string{"127.0.0.1:8104", "127.0.0.1:8103"} // mektoube, lovescout24
	const fetches, clients = 1000, 8
	bin := filepath.Join(b.TempDir(), "blockwarc")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	var idle, busy, full, cat []time.Duration
	var idleDecoded, busyDecoded, busyViews float64
	ms := func(d time.Duration) float64 { return d.Seconds() * 1000 }
	pct := func(d []time.Duration, q float64) float64 {
		s := slices.Clone(d)
		slices.Sort(s)
		return ms(s[int(math.Ceil(q*float64(len(s))))-1])
	}
	var idleCPU time.Duration
	var listed int
	var ingestTime time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		arch := filepath.Join(b.TempDir(), "s.bwa")
		var errb bytes.Buffer
		if code := run(context.Background(), append([]string{"ingest", "-tables=false", arch}, base...), io.Discard, &errb); code != exitOK {
			b.Fatalf("ingest: exit %d: %s", code, errb.String())
		}
		// The server as 'blockwarc serve' runs it: its cache, at the
		// default -cache, and its heap (serveHeap, from the idle fetches on).
		h := &replay.Server{Dirs: []string{arch}, Cache: pack.NewCache(cache), Error: func(err error) { b.Errorf("server: %v", err) }}
		// reopened[j] says whether fetch j (its X-Fetch header) overlapped
		// the opening of a view: the server saw a new commit meanwhile.
		reopened := make([]atomic.Bool, fetches)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			j, err := strconv.Atoi(r.Header.Get("X-Fetch"))
			if err != nil {
				h.ServeHTTP(w, r)
				return
			}
			v0 := h.Stats().Views
			h.ServeHTTP(w, r)
			reopened[j].Store(h.Stats().Views != v0)
		}))
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}

		// The captures, from the server's CDX listing.
		type capture struct{ ts, url string }
		var all []capture
		for _, h := range hosts {
			resp, err := client.Get(srv.URL + "/cdx?output=json&matchType=host&url=" + h + "/")
			if err != nil {
				b.Fatal(err)
			}
			var rows [][]string
			err = json.NewDecoder(resp.Body).Decode(&rows)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK || len(rows) < 2 {
				b.Fatalf("cdx %s: status %d, %d rows, %v", h, resp.StatusCode, len(rows), err)
			}
			col := map[string]int{}
			for j, f := range rows[0] {
				col[f] = j
			}
			for _, r := range rows[1:] {
				if r[col["mime"]] != "warc/revisit" {
					all = append(all, capture{r[col["timestamp"]], r[col["url"]]})
				}
			}
		}
		listed = len(all)
		rng := rand.New(rand.NewPCG(36, 1000))
		picks := make([]capture, fetches)
		for j := range picks {
			picks[j] = all[rng.IntN(len(all))]
		}

		// The bytes each must be, from cat (in-process, one at a time: its
		// latency is the cat baseline).
		want := map[capture][]byte{}
		cat = cat[:0]
		for _, c := range picks {
			var out, errb bytes.Buffer
			start := time.Now()
			code := run(context.Background(), []string{"cat", "-part", "http", "-at", c.ts, arch, c.url}, &out, &errb)
			cat = append(cat, time.Since(start))
			if code != exitOK || out.Len() == 0 {
				b.Fatalf("cat %s %s: exit %d, %d bytes: %s", c.ts, c.url, code, out.Len(), errb.String())
			}
			want[c] = out.Bytes()
		}

		// fetchAll fetches every pick with 8 clients and returns each
		// fetch's latency (request to last byte).
		fetchAll := func() []time.Duration {
			lat := make([]time.Duration, len(picks))
			var next atomic.Int64
			var wg sync.WaitGroup
			for range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						j := int(next.Add(1)) - 1
						if j >= len(picks) {
							return
						}
						c := picks[j]
						req, err := http.NewRequest(http.MethodGet, srv.URL+"/web/"+c.ts+"id_/"+c.url, nil)
						if err != nil {
							b.Error(err)
							return
						}
						req.Header.Set("X-Fetch", strconv.Itoa(j))
						start := time.Now()
						resp, err := client.Do(req)
						if err != nil {
							b.Error(err)
							return
						}
						body, err := io.ReadAll(resp.Body)
						resp.Body.Close()
						lat[j] = time.Since(start)
						if err != nil || resp.StatusCode != http.StatusOK || !bytes.Equal(body, want[c]) {
							b.Errorf("%s %s: status %d, %d bytes, want 200 and %d bytes (%v)", c.ts, c.url, resp.StatusCode, len(body), len(want[c]), err)
						}
					}
				}()
			}
			wg.Wait()
			return lat
		}
		// phase measures what the server did during a phase: views
		// opened, bytes decoded, garbage collections and their pauses.
		type phase struct {
			st           replay.Stats
			gc           uint32
			pause, alloc uint64
		}
		mark := func() phase {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			return phase{h.Stats(), ms.NumGC, ms.PauseTotalNs, ms.TotalAlloc}
		}
		report := func(name string, p0 phase, lat []time.Duration) {
			p1 := mark()
			slow := pct(idle, 0.99)
			n, overlap := 0, 0
			for j, d := range lat {
				if ms(d) > slow {
					n++
					if reopened[j].Load() {
						overlap++
					}
				}
			}
			b.Logf("%s: %d views opened, %.2f MB decoded per fetch, cache holds %.1f MB in %d frames (objects %.1f, chunks %.1f); %.2f MB allocated per fetch (clients too), %d GCs, %.1f ms paused; %d fetches slower than idle p99 (%.1f ms), %d of them overlapping a view's opening",
				name, p1.st.Views-p0.st.Views, float64(p1.st.Decoded-p0.st.Decoded)/1e6/fetches,
				float64(p1.st.Objects+p1.st.Chunks)/1e6, p1.st.Frames, float64(p1.st.Objects)/1e6, float64(p1.st.Chunks)/1e6,
				float64(p1.alloc-p0.alloc)/1e6/fetches, p1.gc-p0.gc, float64(p1.pause-p0.pause)/1e6, n, slow, overlap)
			if name == "busy" {
				busyViews, busyDecoded = float64(p1.st.Views-p0.st.Views), float64(p1.st.Decoded-p0.st.Decoded)/1e6/fetches
			}
			for j := range reopened {
				reopened[j].Store(false)
			}
		}
		release := serveHeap(cache)
		c0 := cpuTime()
		p0 := mark()
		idle = fetchAll()
		idleCPU = cpuTime() - c0
		idleDecoded = float64(mark().st.Decoded-p0.st.Decoded) / 1e6 / fetches
		report("idle", p0, idle)

		// during fetches every pick while `blockwarc ingest` (with flags,
		// e.g. -nice 0) adds files of another site (on host) to the
		// archive; it returns the latencies and the ingest's wall time.
		during := func(flags []string, files []string, host string) ([]time.Duration, time.Duration) {
			args := append(append(append([]string{"ingest"}, flags...), "-tables=false", "-commit", "1MiB", arch), files...)
			cmd := exec.Command(bin, args...)
			var ingestErr bytes.Buffer
			cmd.Stderr = &ingestErr
			start := time.Now()
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// Let the ingest get going (its workers busy) before fetching.
			time.Sleep(time.Second)
			lat := fetchAll()
			select {
			case err := <-done:
				b.Fatalf("the ingest ended (%v) before the last fetch: add input to it\n%s", err, ingestErr.String())
			default:
			}
			// Readers see the last commit: the ingest's captures appear
			// in the listing before it ends.
			for seen := false; !seen; {
				resp, err := client.Get(srv.URL + "/cdx?matchType=host&limit=1&url=" + host + "/")
				if err != nil {
					b.Fatal(err)
				}
				line, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if seen = len(line) > 0; !seen {
					select {
					case err := <-done:
						b.Fatalf("no capture of %s listed while the ingest ran (%v)\n%s", host, err, ingestErr.String())
					case <-time.After(100 * time.Millisecond):
					}
				}
			}
			if err := <-done; err != nil {
				b.Fatalf("ingest: %v\n%s", err, ingestErr.String())
			}
			return lat, time.Since(start)
		}
		b.StartTimer()
		p0 = mark()
		busy, ingestTime = during(nil, more, "127.0.0.1:8102")
		report("busy", p0, busy)
		if fullToo {
			p0 = mark()
			full, _ = during([]string{"-nice", "0"}, fullMore, "127.0.0.1:8101")
			report("full", p0, full)
		}
		b.StopTimer()
		release()
		srv.Close()
		h.Close()
	}
	b.ReportMetric(pct(busy, 0.5), "p50-ms")
	b.ReportMetric(pct(busy, 0.99), "p99-ms")
	b.ReportMetric(pct(idle, 0.5), "idle-p50-ms")
	b.ReportMetric(pct(idle, 0.99), "idle-p99-ms")
	b.ReportMetric(pct(cat, 0.99), "cat-p99-ms")
	b.ReportMetric(pct(busy, 0.99)/pct(idle, 0.99), "x-idle")
	b.ReportMetric(pct(busy, 0.99)/pct(cat, 0.99), "x-cat")
	b.ReportMetric(ingestTime.Seconds(), "ingest-s")
	if fullToo {
		b.ReportMetric(pct(full, 0.5), "full-p50-ms")
		b.ReportMetric(pct(full, 0.99), "full-p99-ms")
		b.ReportMetric(pct(full, 0.99)/pct(idle, 0.99), "full-x-idle")
	}
	b.ReportMetric(idleCPU.Seconds()*1000/fetches, "idle-cpu-ms/fetch")
	b.ReportMetric(float64(listed), "captures")
	b.ReportMetric(idleDecoded, "idle-decoded-MB/fetch")
	b.ReportMetric(busyDecoded, "decoded-MB/fetch")
	b.ReportMetric(busyViews, "views")
	b.ReportMetric(float64(cache)/(1<<20), "cache-MiB")
}
