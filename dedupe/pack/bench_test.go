package pack

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// corpusRecords returns the records of the wget crawls of one site in
// ../shared/corpus (crawl order), split at WARC record starts: realistic
// objects, with the repetition across crawls that the archive exploits.
func corpusRecords(tb testing.TB, site string) [][]byte {
	tb.Helper()
	files := sharedtest.CorpusFiles(tb, site)
	var recs [][]byte
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			tb.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
		raw, err := io.ReadAll(zr)
		f.Close()
		if err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
		for len(raw) > 0 {
			i := bytes.Index(raw[1:], []byte("WARC/1.0\r\n"))
			if i < 0 {
				recs = append(recs, raw)
				break
			}
			recs = append(recs, raw[:i+1])
			raw = raw[i+1:]
		}
	}
	return recs
}

// BenchmarkAdd stores every record of a site's crawls (frames cut at
// Options.FrameSize, GOMAXPROCS compression workers) and compares with zstd EncodeAll of the same bytes cut into the
// same frame size: x-zstd is the time ratio, size-x-zstd the size ratio
// (the archive stores each distinct record once, zstd does not dedupe).
func BenchmarkAdd(b *testing.B) {
	recs := corpusRecords(b, "mkdocs-org")
	var total int64
	for _, r := range recs {
		total += int64(len(r))
	}
	opts := Options{noSync: true, Workers: runtime.GOMAXPROCS(0)}.withDefaults()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(opts.Level), zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	var storeTime, zstdTime time.Duration
	var archive, zsize int64
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		s, err := Create(filepath.Join(b.TempDir(), "b.bwa"), opts)
		if err != nil {
			b.Fatal(err)
		}
		w, err := s.Begin()
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range recs {
			if _, _, err := w.Add(KindRecord, r); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Commit(nil); err != nil {
			b.Fatal(err)
		}
		storeTime += time.Since(t0)
		st, _ := s.Stats()
		archive = st.PackBytes + st.IndexBytes + st.CommitBytes
		s.Close()

		t0 = time.Now()
		zsize = 0
		var buf, dst []byte
		for _, r := range recs {
			if len(buf)+len(r) > opts.FrameSize && len(buf) > 0 {
				dst = enc.EncodeAll(buf, dst[:0])
				zsize += int64(len(dst))
				buf = buf[:0]
			}
			buf = append(buf, r...)
		}
		dst = enc.EncodeAll(buf, dst[:0])
		zsize += int64(len(dst))
		zstdTime += time.Since(t0)
	}
	b.ReportMetric(float64(storeTime)/float64(zstdTime), "x-zstd")
	b.ReportMetric(float64(archive)/float64(zsize), "size-x-zstd")
}

// BenchmarkGet reads random objects of a realistic store with a small
// frame cache, so most reads decompress a frame: p50/p99 latency, and the
// p50 as a ratio of raw zstd DecodeAll of one frame of the same size.
func BenchmarkGet(b *testing.B) {
	recs := corpusRecords(b, "mkdocs-org")
	opts := Options{noSync: true, CacheBytes: 1 << 20}
	s, err := Create(filepath.Join(b.TempDir(), "g.bwa"), opts)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	w, err := s.Begin()
	if err != nil {
		b.Fatal(err)
	}
	var ids []ID
	for j, r := range recs {
		id, isNew, err := w.Add(KindRecord, r)
		if err != nil {
			b.Fatal(err)
		}
		if isNew {
			ids = append(ids, id)
		}
		if j%16 == 15 {
			w.Flush()
		}
		if j%500 == 499 { // several commits, several index files
			w.Commit(nil)
		}
	}
	if err := w.Commit(nil); err != nil {
		b.Fatal(err)
	}
	w.Close()

	// Baseline: decode one frame-sized zstd frame of the same data.
	var frame []byte
	for _, r := range recs {
		if len(frame) >= s.opts.FrameSize {
			break
		}
		frame = append(frame, r...)
	}
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(s.opts.Level), zstd.WithEncoderConcurrency(1))
	zf := enc.EncodeAll(frame, nil)
	dec, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	var out []byte
	t0 := time.Now()
	const baseRuns = 50
	for i := 0; i < baseRuns; i++ {
		out, _ = dec.DecodeAll(zf, out[:0])
	}
	baseline := time.Since(t0) / baseRuns

	r := rand.New(rand.NewPCG(1, 2))
	lat := make([]time.Duration, 0, b.N)
	var bytesRead int64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := ids[r.IntN(len(ids))]
		t := time.Now()
		got, _, err := s.Get(id)
		lat = append(lat, time.Since(t))
		if err != nil {
			b.Fatal(err)
		}
		bytesRead += int64(len(got))
	}
	b.StopTimer()
	b.SetBytes(bytesRead / int64(b.N))
	// Percentiles need samples even when b.N is small (make bench: 1x).
	for len(lat) < 2000 {
		id := ids[r.IntN(len(ids))]
		t := time.Now()
		if _, _, err := s.Get(id); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
	}
	slices.Sort(lat)
	p50, p99 := lat[len(lat)/2], lat[len(lat)*99/100]
	b.ReportMetric(float64(p50.Microseconds()), "p50-µs")
	b.ReportMetric(float64(p99.Microseconds()), "p99-µs")
	b.ReportMetric(float64(p50)/float64(baseline), "x-zstd-frame")
}
