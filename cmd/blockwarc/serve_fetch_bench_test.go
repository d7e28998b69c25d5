package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/export/replay"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// discardWriter is an http.ResponseWriter that keeps the status and
// counts the body, so the benchmark measures the handler alone.
type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(code int)        { w.status = code }
func (w *discardWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// BenchmarkServeFetch is the server's side of one id_ fetch of
// BenchmarkServeDuringIngest, with no HTTP and no clients: the handler
// answers random captures of two corpus sites from a warm cache. Its
// CPU and allocations per op are those of the fetch path alone.
func BenchmarkServeFetch(b *testing.B) {
	h, picks, reqs, sizes := serveFetchSetup(b)
	var total int64
	for _, n := range sizes {
		total += int64(n)
	}
	b.SetBytes(total / int64(len(sizes)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := i % len(reqs)
		w := &discardWriter{h: http.Header{}}
		h.ServeHTTP(w, reqs[j])
		if w.n != sizes[j] {
			b.Fatalf("%s: %d bytes, want %d", picks[j], w.n, sizes[j])
		}
	}
}

// BenchmarkServeFetchHTTP is BenchmarkServeFetch over HTTP, with the
// 8 clients of BenchmarkServeDuringIngest reading each answer whole, and
// no ingest: cpu-ms/fetch is its idle-cpu-ms/fetch (the process's CPU,
// clients and server) without the minute of setting up around it.
func BenchmarkServeFetchHTTP(b *testing.B) {
	h, picks, _, sizes := serveFetchSetup(b)
	srv := httptest.NewServer(h)
	defer srv.Close()
	const clients = 8
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuTime()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= b.N {
					return
				}
				j := i % len(picks)
				resp, err := client.Get(srv.URL + picks[j])
				if err != nil {
					b.Error(err)
					return
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK || len(body) != sizes[j] {
					b.Errorf("%s: status %d, %d bytes, want 200 and %d (%v)", picks[j], resp.StatusCode, len(body), sizes[j], err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric((cpuTime()-c0).Seconds()*1000/float64(b.N), "cpu-ms/fetch")
}

// serveFetchSetup ingests two corpus sites and returns a server of the
// archive, 1,000 id_ URLs of its captures picked with a fixed seed, a
// request of each, and the size of each answer (the cache warmed).
func serveFetchSetup(b *testing.B) (h *replay.Server, picks []string, reqs []*http.Request, sizes []int) {
	b.Helper()
	files := sharedtest.CorpusFiles(b, "ota-mektoube", "ota-lovescout24")
	arch := filepath.Join(b.TempDir(), "s.bwa")
	var errb bytes.Buffer
	if code := run(context.Background(), append([]string{"ingest", "-tables=false", arch}, files...), io.Discard, &errb); code != exitOK {
		b.Fatalf("ingest: exit %d: %s", code, errb.String())
	}
	h = &replay.Server{Dirs: []string{arch}, Cache: pack.NewCache(pack.DefaultCacheBytes), Error: func(err error) { b.Errorf("server: %v", err) }}
	b.Cleanup(func() { h.Close() })
	var uris []string
	for _, host := range []string{"127.0.0.1:8104", "127.0.0.1:8103"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/cdx?output=json&matchType=host&url="+host+"/", nil))
		var rows [][]string
		if err := json.Unmarshal(rec.Body.Bytes(), &rows); err != nil || len(rows) < 2 {
			b.Fatalf("cdx %s: %d rows, %v", host, len(rows), err)
		}
		col := map[string]int{}
		for j, f := range rows[0] {
			col[f] = j
		}
		for _, r := range rows[1:] {
			if r[col["mime"]] != "warc/revisit" {
				uris = append(uris, "/web/"+r[col["timestamp"]]+"id_/"+r[col["url"]])
			}
		}
	}
	rng := rand.New(rand.NewPCG(36, 1000))
	picks = make([]string, 1000)
	for j := range picks {
		picks[j] = uris[rng.IntN(len(uris))]
	}
	reqs = make([]*http.Request, len(picks))
	for j, u := range picks {
		reqs[j] = httptest.NewRequest(http.MethodGet, u, nil)
	}
	sizes = make([]int, len(picks))
	for j, r := range reqs {
		w := &discardWriter{h: http.Header{}}
		h.ServeHTTP(w, r)
		if w.status != 0 && w.status != http.StatusOK || w.n == 0 {
			b.Fatalf("%s: status %d, %d bytes", picks[j], w.status, w.n)
		}
		sizes[j] = w.n
	}
	return h, picks, reqs, sizes
}
