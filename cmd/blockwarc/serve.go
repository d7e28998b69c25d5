package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/export/replay"
)

// serveHeap paces the collector by the server's memory (serveLimit: the
// cache, then as much again, at least 64 MiB, for requests in flight and
// their garbage) instead of by its live heap: a server whose cache is not
// yet full has a live heap of a few MB, which the default pacing
// collects every 20-odd fetches. Each collection stops the world twice, and on a
// machine an ingest keeps busy a stop waits for the scheduler to run
// every thread of the process again: 50-100 ms pauses, the tail of the
// fetches (issue 36, BenchmarkServeDuringIngest). A live heap past the
// limit (many large records at once) is still collected, the runtime
// then bounding the collector's share of the CPU. release restores the
// process's settings.
//
// The room beside the cache has a floor: under a limit of twice a small
// cache (4 MiB for -cache 2MiB) the live heap of requests alone passed
// it, and the collector ran without pause (1,433 collections during
// BenchmarkServeDuringIngestSmallCache's 1,000 fetches).
func serveHeap(cache int64) (release func()) {
	limit := debug.SetMemoryLimit(serveLimit(cache))
	percent := debug.SetGCPercent(-1)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}

// serveLimit is the Go heap limit of a server whose cache holds cache bytes.
func serveLimit(cache int64) int64 { return cache + max(cache, 64<<20) }

const serveAbout = `Serve ARCHIVEs to a replay front end (pywb, a Wayback machine) over HTTP
until interrupted:

  /cdx?url=U          the CDX Server API: matchType=exact|prefix|host|domain,
                      from, to, filter=[!][~]field:value (repeatable),
                      limit, output=cdxj (default: the lines 'blockwarc
                      index' writes of the original files) or json
  /web/TSid_/URL      the capture of URL at TS (14 digits): its HTTP
                      response as stored, status line, headers and payload
                      byte for byte, as application/http, with
                      Memento-Datetime and Link headers; a client whose
                      Accept names text/html (a browser) gets the stored
                      response as the response, to render it
  /web/TS/URL         302 to the id_ URL of the capture nearest TS
  /timemap/link/URL   every capture of URL as a Memento TimeMap

The archives are opened read-only, as 'blockwarc cat' opens them, and kept
open between requests: every request sees their last commit, also while
an ingest extends them. Frames decoded for one request are kept for the
next ones, across commits, up to -cache bytes; the process's Go heap is
held near -cache plus as much again (at least 64 MiB), the garbage of
requests collected only there.`

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", "ARCHIVE...", serveAbout, stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "`HOST:PORT` to listen on")
	cache := byteSize(pack.DefaultCacheBytes)
	fs.Var(&cache, "cache", "decoded frames kept for later requests (`SIZE`: 1048576, 500KB, 64MiB); the heap is held near this plus as much again, at least 64MiB")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if cache < 1<<20 {
		fmt.Fprintf(stderr, "blockwarc serve: -cache %d: want at least 1MiB\n", cache)
		return exitUsage
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "blockwarc serve: want at least one ARCHIVE")
		fs.Usage()
		return exitUsage
	}
	var mu sync.Mutex
	logf := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stderr, "blockwarc serve: "+format+"\n", a...)
	}
	// Refuse what cat would refuse before listening.
	for _, d := range fs.Args() {
		a, err := openArchive(d, stderr)
		if err != nil {
			archiveError(stderr, "serve", d, err)
			return exitFailure
		}
		a.Close()
	}
	defer serveHeap(int64(cache))()
	srv := &replay.Server{
		Dirs:  fs.Args(),
		Cache: pack.NewCache(int64(cache)),
		Warn:  func(s string) { logf("warning: %s", s) },
		Error: func(err error) { logf("%v", err) },
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "blockwarc serve: %v\n", err)
		return exitFailure
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	logf("listening on http://%s/", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		fmt.Fprintf(stderr, "blockwarc serve: %v\n", err)
		return exitFailure
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	defer srv.Close()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(stderr, "blockwarc serve: %v\n", err)
		return exitFailure
	}
	return exitOK
}
