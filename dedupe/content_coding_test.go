package dedupe

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/dedupe/reencode"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/partition"
	"github.com/blockwarc/blockwarc/warcio"
)

// storedGzip wraps doc in a gzip member whose deflate stream is one
// stored block, with Go's OS byte: a stream no Go encoder writes for a
// compressible input at any level, so Find must refuse it after trying
// every level.
func storedGzip(doc []byte) []byte {
	b := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}
	n := len(doc)
	b = append(b, 1, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
	b = append(b, doc...)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(doc))
	return binary.LittleEndian.AppendUint32(b, uint32(n))
}

func codedResponse(coding string, body []byte, chunked bool) []byte {
	r := httpResponse("text/html; charset=utf-8", body, chunked)
	return bytes.Replace(r, []byte("\r\n"), []byte("\r\nContent-Encoding: "+coding+"\r\n"), 1)
}

// TestContentCodedPages: Go-made gzip (plain and chunked) and brotli
// pages become the blocks of their decoded documents and restore byte
// for byte; a later capture of the same page, re-encoded, shares the
// unchanged blocks; a gzip no Go encoder made stays whole.
func TestContentCodedPages(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
	gz, br := gzipOf, brotliOf
	p1, p2 := fmt.Sprintf(page, "one"), fmt.Sprintf(page, "two")
	f := filepath.Join(dir, "in.warc")
	writeFile(t, f,
		warcRecord("response", "http://a.example/gz", t0, 1, codedResponse("gzip", gz(p1), false)),
		warcRecord("response", "http://a.example/gz", t0.Add(time.Hour), 2, codedResponse("gzip", gz(p2), true)),
		warcRecord("response", "http://a.example/br", t0, 3, codedResponse("br", br(p1, 5), false)),
		warcRecord("response", "http://a.example/br", t0.Add(time.Hour), 4, codedResponse("br", br(p2, 11), true)),
		warcRecord("response", "http://a.example/stored", t0, 5, codedResponse("gzip", storedGzip([]byte(p1)), false)),
		warcRecord("response", "http://a.example/twice", t0, 6, codedResponse("gzip, br", br(string(gz(p1)), 5), false)),
	)
	arch := filepath.Join(dir, "a.bwa")
	st, err := Ingest(context.Background(), arch, []string{f}, testOpts())
	if err != nil {
		t.Fatal(err)
	}
	if st.EncodedBlocks != 4 || st.EncodedWhole != 2 || st.RawRecords != 0 || st.Partitioned != 0 {
		t.Errorf("stats %+v: want 4 encoded as blocks, 2 whole", st)
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if n := checkRoundTrip(t, a); n != 6 {
		t.Fatalf("restored %d records", n)
	}
	for _, u := range []string{"http://a.example/gz", "http://a.example/br"} {
		vs, err := a.Versions(warcio.SURT(u))
		if err != nil || len(vs) != 2 {
			t.Fatalf("%s: %d versions, %v", u, len(vs), err)
		}
		for i := range vs {
			if st := vs[i].Storage(); st.How.String() != "blocks" || st.Why.String() != "content-encoding" {
				t.Errorf("%s #%d: Storage() = %v", u, i, st)
			}
		}
		// The blocks are those of the decoded page: the footer and nav
		// are unchanged between the two captures.
		r, err := partition.Partition([]byte(p1), partition.Options{Level: DefaultLevel, BaseURL: u})
		if err != nil {
			t.Fatal(err)
		}
		first, err := a.ContentID(&vs[0], vs[0].Blocks[0])
		if err != nil || len(vs[0].Blocks) != len(r.Leaves) || first != a.Sum(r.BlockBytes(r.Leaves[0])) {
			t.Errorf("%s: blocks are not the decoded page's", u)
		}
		shared := 0
		for _, id := range vs[1].Blocks {
			for _, old := range vs[0].Blocks {
				if id == old {
					shared++
					break
				}
			}
		}
		if shared == 0 {
			t.Errorf("%s: the second capture shares no block with the first", u)
		}
	}
	for _, u := range []string{"http://a.example/stored", "http://a.example/twice"} {
		vs, _ := a.Versions(warcio.SURT(u))
		if len(vs) != 1 {
			t.Fatalf("%s: %d versions", u, len(vs))
		}
		if st := vs[0].Storage(); st.How.String() != "payload" || st.Why.String() != "content-encoding" {
			t.Errorf("%s: Storage() = %v", u, st)
		}
	}
}

// contentCodedInterop are the interop files with gzip or br responses.
var contentCodedInterop = []string{
	"warcio--example.warc", "aut--issue-493.warc", "warciojs--example.warc",
	"pywb--example2.warc.gz", "iagowarc--test.warc.gz", "pywacz--example-collection-with-lists.warc",
}

// reproducible counts the captures of files that ingest can keep as
// blocks through re-encoding under lim: 200 text/html responses with one
// content coding (de-chunked) whose encoding reencode.Find reproduces.
func reproducible(t *testing.T, files []string, lim reencode.Limits) int64 {
	var n int64
	for _, p := range files {
		fh, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		rd := warcio.NewReader(fh, p)
		for {
			rec, err := rd.Next()
			if err != nil {
				break
			}
			if rec.Type != "response" {
				continue
			}
			m, err := rec.HTTP()
			if err != nil || m.StatusCode != 200 || m.MediaType() != "text/html" || len(m.ContentEncodings()) != 1 || len(m.Codings()) != 1 {
				continue
			}
			body, err := io.ReadAll(m.Payload)
			if err != nil || len(body) == 0 {
				continue
			}
			if m.Chunked() {
				if body, err = io.ReadAll(warcio.NewDechunker(bytes.NewReader(body))); err != nil {
					continue
				}
			}
			if _, _, ok, _ := reencode.Find(m.ContentEncodings()[0], body, lim); ok {
				n++
			}
		}
		fh.Close()
	}
	return n
}

// TestRoundTripContentCodedInterop ingests the interop files with
// content-coded responses, under the default re-encoding limits and
// with no restore-time bound: every record restores byte for byte, and
// exactly the responses reencode.Find reproduces are kept as blocks.
func TestRoundTripContentCodedInterop(t *testing.T) {
	dir := sharedtest.Interop(t)
	var files []string
	for _, n := range contentCodedInterop {
		files = append(files, filepath.Join(dir, n))
	}
	for _, c := range []struct {
		name string
		lim  reencode.Limits
	}{{"default", reencode.Limits{}}, {"unbounded", reencode.Limits{MaxEncodeTime: time.Hour}}} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "unbounded" && testing.Short() {
				// Minutes under the race detector (make test's -short run),
				// through the same pipeline as "default"; the full run checks it.
				t.Skip("unbounded re-encoding search skipped in -short mode")
			}
			want := reproducible(t, files, c.lim)
			if c.name == "unbounded" && want == 0 {
				t.Fatal("no interop response reproduces: the test needs some")
			}
			arch := filepath.Join(t.TempDir(), "a.bwa")
			opts := testOpts()
			opts.Reencode = c.lim
			st, err := Ingest(context.Background(), arch, files, opts)
			if err != nil {
				t.Logf("ingest: %v", err) // damaged inputs are reported, the rest ingested
			}
			a, err := Open(arch, pack.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			n := checkRoundTrip(t, a)
			if int64(n) != st.Records-st.Repeats {
				t.Errorf("restored %d records, ingest read %d", n, st.Records)
			}
			if st.EncodedBlocks != want {
				t.Errorf("%d captures kept as blocks through re-encoding, Find reproduces %d", st.EncodedBlocks, want)
			}
			if st.EncodedWhole == 0 {
				t.Error("no content-coded page kept whole: zlib-made gzip must be")
			}
			t.Logf("%d records; encoded as blocks %d, encoded whole %d, raw %d", n, st.EncodedBlocks, st.EncodedWhole, st.RawRecords)
		})
	}
}

// BenchmarkRestoreContentCoded restores one 98 KiB page (reencode's
// golden page) kept as blocks through re-encoding, gzip by Go's
// standard library at level 6 and brotli at quality 5; the baseline,
// measured in the same run, restores the same page sent without
// Content-Encoding (x-plain: how many times slower).
func BenchmarkRestoreContentCoded(b *testing.B) {
	doc, err := os.ReadFile(filepath.Join("reencode", "testdata", "golden", "input.html"))
	if err != nil {
		b.Fatal(err)
	}
	enc := map[string][]byte{}
	for _, c := range []struct {
		name string
		p    reencode.Params
	}{
		{"gzip", reencode.Params{Codec: reencode.CodecGzip, Impl: reencode.ImplStdlib, Level: 6, Header: []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}}},
		{"br", reencode.Params{Codec: reencode.CodecBrotli, Impl: reencode.ImplBrotli, Level: 5, Window: 22}},
	} {
		if enc[c.name], err = reencode.Encode(nil, c.p, doc); err != nil {
			b.Fatal(err)
		}
	}
	dir := b.TempDir()
	t0 := time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
	f := filepath.Join(dir, "in.warc")
	writeFile(b, f,
		warcRecord("response", "http://a.example/plain", t0, 1, httpResponse("text/html", doc, false)),
		warcRecord("response", "http://a.example/gzip", t0, 2, codedResponse("gzip", enc["gzip"], false)),
		warcRecord("response", "http://a.example/br", t0, 3, codedResponse("br", enc["br"], false)),
	)
	arch := filepath.Join(dir, "a.bwa")
	st, err := Ingest(context.Background(), arch, []string{f}, testOpts())
	if err != nil || st.EncodedBlocks != 2 {
		b.Fatalf("ingest: %+v, %v", st, err)
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	version := func(u string) *Version {
		vs, err := a.Versions(warcio.SURT(u))
		if err != nil || len(vs) != 1 {
			b.Fatalf("%s: %v", u, err)
		}
		return &vs[0]
	}
	plain := version("http://a.example/plain")
	for _, name := range []string{"gzip", "br"} {
		v := version("http://a.example/" + name)
		b.Run(name, func(b *testing.B) {
			const n = 20
			start := time.Now()
			for range n {
				if _, err := a.Restore(plain); err != nil {
					b.Fatal(err)
				}
			}
			base := time.Since(start) / n
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := a.Restore(v); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed()/time.Duration(b.N))/float64(base), "x-plain")
		})
	}
}

// gzipOf is s gzipped at level 6, as Go's encoder writes it.
func gzipOf(s string) []byte {
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, 6)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

// brotliOf is s compressed by brotli at quality q.
func brotliOf(s string, q int) []byte {
	var b bytes.Buffer
	w := brotli.NewWriterOptions(&b, brotli.WriterOptions{Quality: q, LGWin: 22})
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}
