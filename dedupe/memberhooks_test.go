package dedupe

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/zlibenc"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/warcio"
)

// TestIngestInflatesOnce: an ingest learns the gzip members of clean
// inputs from its walk's own decompression (no second read), damaged or
// odd ones apart, and the archive is byte for byte the one the second
// read gives.
func TestIngestInflatesOnce(t *testing.T) {
	if !zlibenc.Available {
		t.Skip("no zlib in this build")
	}
	samples, err := filepath.Glob("../testdata/samples/*.warc.gz")
	if err != nil || len(samples) < 6 {
		t.Fatalf("sample crawls missing: %v", err)
	}
	samples = samples[:6]
	interop, err := warcio.ExpandInputs([]string{sharedtest.Interop(t)})
	if err != nil {
		t.Fatal(err)
	}
	if sharedtest.Short(t, "two samples, no interop files") {
		// A few of each, enough for the hooks' goroutines to overlap
		// (under the race detector too).
		samples, interop = samples[:2], nil
	}
	files := append(slices.Clone(samples), interop...)
	var mu sync.Mutex
	apart := map[string]bool{}
	learntApart = func(p string) { mu.Lock(); apart[p] = true; mu.Unlock() }
	defer func() { learntApart, hookMembers = nil, true }()
	ingest := func(hooked bool) (map[string][]byte, map[string]bool) {
		hookMembers = hooked
		clear(apart)
		dir := filepath.Join(t.TempDir(), "a.bwa")
		if _, err := Ingest(context.Background(), dir, files, Options{Workers: 2, TempDir: t.TempDir()}); err != nil {
			t.Fatal(err)
		}
		return sharedtest.ArchiveFiles(t, dir), maps.Clone(apart)
	}
	got, gotApart := ingest(true)
	want, wantApart := ingest(false)
	sameFiles(t, "members learnt from the walk vs read again", got, want)
	for _, f := range samples {
		if gotApart[f] {
			t.Errorf("%s: read again for its members, though the walk decompressed them all", f)
		}
		if !wantApart[f] {
			t.Errorf("%s: not read again with the hooks off: the count is broken", f)
		}
	}
	t.Logf("read again: %d of %d files (without the hooks %d)", len(gotApart), len(files), len(wantApart))
}

// TestHookTiling: members that leave stored bytes between them (or a
// walk that stopped) do not stand for a read of the file: learnt apart.
func TestHookTiling(t *testing.T) {
	if !zlibenc.Available {
		t.Skip("no zlib in this build")
	}
	// A clean wget crawl: zlib wrote its members.
	samples, err := filepath.Glob("../testdata/samples/*.warc.gz")
	if err != nil || len(samples) == 0 {
		t.Fatalf("sample crawls missing: %v", err)
	}
	path := samples[0]
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	members := walkMembers(t, path, file)
	feed := func(shift int64, stop bool) *learned {
		hs := newMemberHooks(context.Background(), nil)
		for i, m := range members {
			if i == 2 {
				m.Stored += shift
			}
			hs.member(m)
		}
		if stop {
			hs.stop()
			return hs.stopped[path].result()
		}
		return hs.finish(path).result()
	}
	r := feed(0, false)
	want := sha256.Sum256(file)
	if r == nil || r.why != originalExact || r.sum != want || r.size != int64(len(file)) {
		t.Fatalf("three whole members: got %+v, want exact with the file's SHA-256 and size", r)
	}
	if r := feed(1, false); r != nil {
		t.Errorf("a byte between members: learnt %+v, want it left to a read of its own", r)
	}
	if r := feed(0, true); r != nil {
		t.Errorf("a walk that stopped: learnt %+v, want nothing", r)
	}
}

// TestHookSettled: once a file's search has its answer (here: no zlib
// setting reproduces a member Go's own deflater wrote), the walk stops
// copying and queueing that file's members, and the answer is the one
// a read of its own gives.
func TestHookSettled(t *testing.T) {
	if !zlibenc.Available {
		t.Skip("no zlib in this build")
	}
	samples, err := filepath.Glob("../testdata/samples/*.warc.gz")
	if err != nil || len(samples) == 0 {
		t.Fatalf("sample crawls missing: %v", err)
	}
	members := walkMembers(t, samples[0], nil)
	// The same records, each member deflated again by compress/gzip.
	var file bytes.Buffer
	for _, m := range members {
		zw, _ := gzip.NewWriterLevel(&file, gzip.BestSpeed)
		zw.Write(m.Plain)
		zw.Close()
	}
	path := filepath.Join(t.TempDir(), "go-gzip.warc.gz")
	if err := os.WriteFile(path, file.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	members = walkMembers(t, path, file.Bytes())
	hs := newMemberHooks(context.Background(), nil)
	hs.member(members[0])
	h := hs.open[path]
	deadline := time.Now().Add(time.Minute)
	for !h.settled.Load() {
		if time.Now().After(deadline) {
			t.Fatal("the search never settled on a member zlib cannot write")
		}
		time.Sleep(time.Millisecond)
	}
	for _, m := range members[1:] {
		hs.member(m)
	}
	if n := h.copied.Load(); n != 1 {
		t.Errorf("%d of %d members copied and queued after the search settled on the first, want 1", n, len(members))
	}
	got := hs.finish(path).result()
	apart, err := LearnOriginal(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if got == nil || !bytes.Equal(got.encode(), apart) {
		t.Errorf("settled search learnt %+v, want what a read of its own learns", got)
	}
	if got != nil && got.why != originalNoParams {
		t.Errorf("why %d, want %d (no zlib setting)", got.why, originalNoParams)
	}
}

// walkMembers is every gzip member the walk decompresses in path (data
// its bytes, or nil to read them).
func walkMembers(t *testing.T, path string, data []byte) []warcio.Member {
	t.Helper()
	if data == nil {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	var members []warcio.Member
	rd := warcio.NewReaderOptions(bytes.NewReader(data), path, warcio.Options{
		MaxMemberPlain: maxMemberPlain, OnMember: func(m warcio.Member) {
			m.Plain = bytes.Clone(m.Plain)
			members = append(members, m)
		}})
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, rec.Body)
	}
	if len(members) < 3 {
		t.Fatalf("%s: %d gzip members, want several", path, len(members))
	}
	return members
}
