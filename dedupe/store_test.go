package dedupe

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// warcRecord returns one WARC/1.0 record with the usual fields; block is
// the record block (an HTTP message for responses).
func warcRecord(typ, uri string, date time.Time, n int, block []byte) []byte {
	var b bytes.Buffer
	d := sha1.Sum(block)
	fmt.Fprintf(&b, "WARC/1.0\r\nWARC-Type: %s\r\n", typ)
	if uri != "" {
		fmt.Fprintf(&b, "WARC-Target-URI: %s\r\n", uri)
	}
	fmt.Fprintf(&b, "WARC-Date: %s\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012d>\r\n", date.UTC().Format(time.RFC3339), n)
	if typ == "response" {
		b.WriteString("Content-Type: application/http; msgtype=response\r\n")
	} else {
		b.WriteString("Content-Type: text/plain\r\n")
	}
	fmt.Fprintf(&b, "WARC-Block-Digest: sha1:%s\r\nContent-Length: %d\r\n\r\n", base32.StdEncoding.EncodeToString(d[:]), len(block))
	b.Write(block)
	b.WriteString("\r\n\r\n")
	return b.Bytes()
}

func httpResponse(ctype string, body []byte, chunked bool) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 200 OK\r\nContent-Type: %s\r\n", ctype)
	if chunked {
		b.WriteString("Transfer-Encoding: chunked\r\n\r\n")
		for i := 0; i < len(body); i += 100 {
			c := body[i:min(len(body), i+100)]
			fmt.Fprintf(&b, "%x\r\n%s\r\n", len(c), c)
		}
		b.WriteString("0\r\n\r\n")
		return b.Bytes()
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(body))
	b.Write(body)
	return b.Bytes()
}

func writeFile(t testing.TB, path string, recs ...[]byte) {
	t.Helper()
	if err := os.WriteFile(path, bytes.Join(recs, nil), 0o644); err != nil {
		t.Fatal(err)
	}
}

const page = `<html><head><title>T</title></head><body><div id="nav"><a href="/">home</a> <a href="/b">b</a></div>
<div id="main"><h1>Heading</h1><p>First paragraph of the page, long enough to be a block.</p><p>Second paragraph %s.</p></div>
<div id="foot">copyright 2024</div></body></html>`

func TestIdenticalCaptureAddsNoObject(t *testing.T) {
	dir := t.TempDir()
	arch := filepath.Join(dir, "a.bwa")
	body := []byte(fmt.Sprintf(page, "same"))
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	f1, f2 := filepath.Join(dir, "one.warc"), filepath.Join(dir, "two.warc")
	writeFile(t, f1, warcRecord("response", "http://example.com/", t0, 1, httpResponse("text/html", body, false)))
	writeFile(t, f2, warcRecord("response", "http://example.com/", t0.Add(24*time.Hour), 2, httpResponse("text/html", body, false)))
	st1, err := Ingest(context.Background(), arch, []string{f1}, testOpts())
	if err != nil {
		t.Fatal(err)
	}
	if st1.Partitioned != 1 || st1.NewObjects < 4 {
		t.Fatalf("first capture: %+v, want a partitioned page", st1)
	}
	st2, err := Ingest(context.Background(), arch, []string{f2}, testOpts())
	if err != nil {
		t.Fatal(err)
	}
	// Only the catalog entry naming the new capture is new.
	if st2.Records != 1 || st2.NewObjects != 0 {
		t.Errorf("identical capture added %d objects (%+v), want none", st2.NewObjects, st2)
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if n := checkRoundTrip(t, a); n != 2 {
		t.Errorf("restored %d records, want 2", n)
	}
	vs, err := a.Versions("com,example)/")
	if err != nil || len(vs) != 2 || !vs[0].Date.Before(vs[1].Date) {
		t.Fatalf("versions %+v, %v: want two in capture order", vs, err)
	}
	// A changed paragraph costs its block (and the header encodings that
	// name new digests), not the page again.
	f3 := filepath.Join(dir, "three.warc")
	body3 := []byte(fmt.Sprintf(page, "changed"))
	writeFile(t, f3, warcRecord("response", "http://example.com/", t0.Add(48*time.Hour), 3, httpResponse("text/html", body3, true)))
	st3, err := Ingest(context.Background(), arch, []string{f3}, testOpts())
	if err != nil {
		t.Fatal(err)
	}
	if st3.NewBytes >= int64(len(body3)) {
		t.Errorf("changed capture stored %d new plaintext bytes, the page has %d", st3.NewBytes, len(body3))
	}
	if err := a.Store().Reload(); err != nil {
		t.Fatal(err)
	}
	a2, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a2.Close()
	if n := checkRoundTrip(t, a2); n != 3 {
		t.Errorf("restored %d records, want 3", n)
	}
	v, err := a2.Find("http://example.com/", t0.Add(36*time.Hour))
	if err != nil || v.File != f2 {
		t.Errorf("Find at +36h = %s, %v; want the capture of %s", v.File, err, f2)
	}
}

// TestResumeIsIdempotent simulates an ingest interrupted after its last
// commit but before the input-file table was written: running it again
// must add no version and no object.
func TestResumeIsIdempotent(t *testing.T) {
	dir := t.TempDir()
	arch := filepath.Join(dir, "a.bwa")
	in := sharedtest.Dir(t, "corpus", "ota-lovescout24")
	st, err := Ingest(context.Background(), arch, []string{in}, testOpts())
	if err != nil {
		t.Fatal(err)
	}
	// Forget the input-file table, as a crash before the final commit would.
	s, err := pack.Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := decodeRoot(s.Payload())
	if err != nil {
		t.Fatal(err)
	}
	r.Files, r.Parts = nil, nil
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	payload, err := r.encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(payload); err != nil {
		t.Fatal(err)
	}
	w.Close()
	s.Close()

	st2, err := Ingest(context.Background(), arch, []string{in}, testOpts())
	if err != nil {
		t.Fatal(err)
	}
	if st2.Repeats != st.Records || st2.NewObjects != 0 {
		t.Errorf("resumed ingest: %d repeats of %d records, %d new objects; want all repeats, no object", st2.Repeats, st.Records, st2.NewObjects)
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if len(a.Files()) != st.Files {
		t.Errorf("input-file table has %d rows, want %d", len(a.Files()), st.Files)
	}
	n := 0
	if err := a.Walk(func(u URLVersions) error { n += len(u.Versions); return nil }); err != nil {
		t.Fatal(err)
	}
	if int64(n) != st.Records {
		t.Errorf("catalog holds %d versions after resume, want %d", n, st.Records)
	}
}

func TestSecondIngestRefused(t *testing.T) {
	dir := t.TempDir()
	arch := filepath.Join(dir, "a.bwa")
	f := filepath.Join(dir, "one.warc")
	writeFile(t, f, warcRecord("resource", "http://example.com/x", time.Unix(0, 0), 1, []byte("x")))
	s, err := pack.Create(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := Ingest(context.Background(), arch, []string{f}, testOpts()); !errorsIsLocked(err) {
		t.Errorf("ingest while locked: %v, want pack.ErrLocked", err)
	}
}

// FuzzStore ingests arbitrary captures — random bytes as HTML, random
// order, repeated URLs and times, chunked or not — and checks that every
// record restores exactly.
func FuzzStore(f *testing.F) {
	f.Add([]byte(fmt.Sprintf(page, "a")), []byte(fmt.Sprintf(page, "b")), uint8(3), uint16(7))
	f.Add([]byte("<p>x"), []byte("<p>x"), uint8(0), uint16(0))
	f.Add([]byte(""), []byte("<div><div>"), uint8(255), uint16(65535))
	f.Fuzz(func(t *testing.T, a, b []byte, shape uint8, seed uint16) {
		if len(a)+len(b) > 1<<16 {
			return
		}
		dir := t.TempDir()
		urls := []string{"http://example.com/", "http://example.com/p", "https://EXAMPLE.com:443/"}
		var recs [][]byte
		s := uint32(seed)
		next := func() uint32 { s = s*1103515245 + 12345; return s >> 8 }
		for i := 0; i < 2+int(shape%5); i++ {
			body := a
			if next()%2 == 0 {
				body = b
			}
			if next()%3 == 0 { // a slice of both
				body = append(append([]byte{}, a[:len(a)/2]...), b[len(b)/2:]...)
			}
			ctype := "text/html"
			if next()%5 == 0 {
				ctype = "text/plain"
			}
			date := time.Date(2020, 1, 1+int(next()%3), 0, 0, 0, 0, time.UTC)
			var resp []byte
			// Content-coded pages made by Go encoders, which ingest keeps
			// as the blocks of the decoded page and re-encodes.
			switch chunked := next()%2 == 0; next() % 6 {
			case 0:
				var gz bytes.Buffer
				w, _ := gzip.NewWriterLevel(&gz, 1+int(seed%9))
				w.Write(body)
				w.Close()
				resp = codedResponse("gzip", gz.Bytes(), chunked)
			case 1:
				var br bytes.Buffer
				w := brotli.NewWriterOptions(&br, brotli.WriterOptions{Quality: int(seed % 10), LGWin: 10 + int(seed%15)})
				w.Write(body)
				w.Close()
				resp = codedResponse("br", br.Bytes(), chunked)
			default:
				resp = httpResponse(ctype, body, chunked)
			}
			rec := warcRecord("response", urls[next()%uint32(len(urls))], date, i, resp)
			if next()%7 == 0 {
				rec = warcRecord("metadata", urls[next()%uint32(len(urls))], date, i, body)
			}
			recs = append(recs, rec)
			name := filepath.Join(dir, fmt.Sprintf("f%d.warc", next()%2))
			fh, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			fh.Write(rec)
			fh.Close()
		}
		arch := filepath.Join(dir, "a.bwa")
		opts := testOpts()
		opts.Level = 1 + int(shape%4)
		// Small fast frames: the fuzzer checks the model, not compression.
		opts.Pack.Level, opts.Pack.FrameSize = zstd.SpeedFastest, 1+int(seed%4096)*16
		if shape&0x80 != 0 {
			// A commit after every URL: each commit's chunk writer starts
			// from the chunks of the frames before (the seed).
			opts.CommitBytes = 1
		}
		var ins []string
		for _, n := range []string{"f0.warc", "f1.warc"} {
			if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
				ins = append(ins, filepath.Join(dir, n))
			}
		}
		if _, err := Ingest(context.Background(), arch, ins, opts); err != nil {
			t.Fatal(err)
		}
		ar, err := Open(arch, pack.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer ar.Close()
		want := map[string]bool{}
		for _, r := range recs {
			want[string(r)] = true
		}
		n := 0
		err = ar.Walk(func(u URLVersions) error {
			for i := range u.Versions {
				p, err := ar.Restore(&u.Versions[i])
				if err != nil {
					t.Fatal(err)
				}
				if !want[string(p.Record())] {
					t.Fatalf("restored record is none of the input records:\n%q", p.Record())
				}
				n++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n != len(recs) {
			t.Fatalf("restored %d records, wrote %d", n, len(recs))
		}
	})
}

func errorsIsLocked(err error) bool { return err != nil && errors.Is(err, pack.ErrLocked) }

// TestWorkersSameArchive checks that the archive's bytes do not depend on
// the number of workers (modelling and compression): 1, 2 (the default of
// the command) and an odd 3.
func TestWorkersSameArchive(t *testing.T) {
	in := sharedtest.Dir(t, "corpus", "mkdocs-org")
	var first map[string][]byte
	for _, workers := range []int{1, 2, 3} {
		arch := filepath.Join(t.TempDir(), "a.bwa")
		opts := testOpts()
		opts.Workers = workers
		opts.Pack.Workers = workers
		if _, err := Ingest(context.Background(), arch, []string{in}, opts); err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		ents, err := os.ReadDir(arch)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(arch, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			files[e.Name()] = b
		}
		if first == nil {
			first = files
			continue
		}
		if len(files) != len(first) {
			t.Fatalf("%d workers wrote %d files, 1 worker %d", workers, len(files), len(first))
		}
		for name, b := range first {
			if !bytes.Equal(files[name], b) {
				t.Errorf("%d workers: %s differs from the 1-worker archive", workers, name)
			}
		}
	}
}

// TestWholeRecordKeepsAnchors: a record the model does not reproduce is
// kept whole, and the header anchors the model had chosen for it are not
// stored; the URL's next records must not be encoded against them.
func TestWholeRecordKeepsAnchors(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2022, 5, 6, 7, 8, 9, 0, time.UTC)
	var recs [][]byte
	for i := range 4 {
		body := fmt.Sprintf(page, fmt.Sprintf("capture %d", i))
		recs = append(recs, warcRecord("response", "http://a.example/", t0.Add(time.Duration(i)*time.Hour), i+1, httpResponse("text/html", []byte(body), false)))
	}
	in := filepath.Join(dir, "a.warc")
	writeFile(t, in, recs...)
	var mu sync.Mutex
	spoilt := 0
	testModelHook = func(v *Version) {
		mu.Lock()
		defer mu.Unlock()
		if v.Type == "response" && spoilt == 0 {
			spoilt++
			v.WARCHeader = append(bytes.Clone(v.WARCHeader), 0xff) // no longer the header
		}
	}
	defer func() { testModelHook = nil }()
	arch := filepath.Join(dir, "a.bwa")
	st, err := Ingest(context.Background(), arch, []string{in}, testOpts())
	if err != nil {
		t.Fatal(err)
	}
	if spoilt != 1 || st.RawRecords != 1 {
		t.Fatalf("spoilt %d, kept whole %d; want 1 and 1", spoilt, st.RawRecords)
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if n := checkRoundTrip(t, a); n != 4 {
		t.Fatalf("%d of 4 records restore", n)
	}
	if vs, err := a.Verify(func(p Problem) { t.Errorf("verify: %v", p) }); err != nil || vs.Problems > 0 {
		t.Fatalf("verify: %d problems, %v", vs.Problems, err)
	}
}
