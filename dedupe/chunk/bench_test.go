package chunk

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/partition"
	"github.com/blockwarc/blockwarc/warcio"

	"github.com/klauspost/compress/zstd"
)

// corpusDir returns ../shared/corpus (sharedtest: skipped when missing,
// failing under CI=true).
func corpusDir(tb testing.TB) string { return sharedtest.Dir(tb, "corpus") }

// corpusSites lists every site directory of the corpus.
func corpusSites(tb testing.TB) []string {
	ents, err := os.ReadDir(corpusDir(tb))
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// record is one WARC record in URL/time order (warcio.Walk's).
type record struct {
	key                   string // URL (SURT) and WARC-Type
	warcHdr, block, trail []byte
	html                  bool
}

func (r *record) bytes() []byte { return slices.Concat(r.warcHdr, r.block, r.trail) }

var siteCache sync.Map // site → []record: several benchmarks walk the same site

func loadSite(tb testing.TB, site string) []record {
	if v, ok := siteCache.Load(site); ok {
		return v.([]record)
	}
	var recs []record
	_, err := warcio.Walk(context.Background(), []string{filepath.Join(corpusDir(tb), site)}, warcio.WalkOptions{},
		func(c *warcio.Capture) error {
			b, err := io.ReadAll(c.Body)
			if err != nil {
				return err
			}
			// A version is coded against the previous record of the same
			// URL and type: the request, response and metadata records of
			// one capture share the URL but little else.
			r := record{key: c.Key + "\x00" + c.Type, warcHdr: bytes.Clone(c.RawHeader), block: b, trail: bytes.Clone(c.Trailer)}
			if c.Type == "response" {
				if i := bytes.Index(b, []byte("\r\n\r\n")); i > 0 {
					r.html = bytes.Contains(bytes.ToLower(b[:i]), []byte("text/html"))
				}
			}
			recs = append(recs, r)
			return nil
		})
	if err != nil {
		tb.Fatal(err)
	}
	siteCache.Store(site, recs)
	return recs
}

// Modes of cutting a record into parts before chunking (chunks never
// straddle parts).
const (
	modeStream = "stream" // the whole record, one part
	modeRecord = "record" // WARC header, HTTP header, payload + trailer
	modeBlocks = "blocks" // as record, HTML payloads further cut at partition leaves
)

// parts cuts r for a mode; p partitions HTML in modeBlocks. Parts are
// classed (WARC header 0, HTTP header 1, HTML 2, other payload 3) unless
// noMeta (all class 0).
func parts(r *record, mode string, p *partition.Partitioner, noMeta bool) []Part {
	if mode == modeStream {
		return []Part{{Data: r.bytes()}}
	}
	cl := func(c uint8) uint8 {
		if noMeta {
			return 0
		}
		return c
	}
	pay := cl(3)
	if r.html {
		pay = cl(2)
	}
	out := []Part{{Data: r.warcHdr, Class: cl(0)}}
	body := r.block
	if i := bytes.Index(body, []byte("\r\n\r\n")); i > 0 && bytes.HasPrefix(body, []byte("HTTP/")) {
		out = append(out, Part{Data: body[:i+4], Class: cl(1)})
		body = body[i+4:]
	}
	if mode == modeBlocks && r.html && len(body) > 0 {
		if res, err := p.Partition(body, partition.Options{}); err == nil {
			at := 0
			for _, l := range res.Leaves {
				if l.Start > at {
					out = append(out, Part{Data: body[at:l.Start], Class: pay})
				}
				out = append(out, Part{Data: body[l.Start:l.End], Class: pay})
				at = l.End
			}
			body = body[at:]
		}
	}
	return append(out, Part{Data: slices.Concat(body, r.trail), Class: pay})
}

// refChain bounds how many ref lists a restore decodes: every refChain-th
// capture of a URL (and type) codes its refs on their own. Ref lists are
// tens of bytes, so decoding 64 costs microseconds; 16 made them 10–18 %
// larger on the corpus, coding every one on its own about 50 %.
const refChain = 64

type result struct {
	archive, frames, dirB, refsB, refsZ int64
	st                                  Stats
	elapsed                             time.Duration
	versions                            [][]uint64
	codes                               []byte // every ref list, concatenated
	dir                                 Directory
	file                                *os.File
}

// storeSite stores recs in order through one Writer.
func storeSite(tb testing.TB, recs []record, mode string, opts Options) result {
	noMeta := os.Getenv("CHUNK_META") == "0"
	chain := refChain
	if v := os.Getenv("CHUNK_REFCHAIN"); v != "" {
		if _, err := fmt.Sscan(v, &chain); err != nil {
			tb.Fatalf("CHUNK_REFCHAIN=%q: %v", v, err)
		}
	}
	f, err := os.Create(filepath.Join(tb.TempDir(), "chunks"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	t0 := time.Now()
	w, err := NewWriter(f, nil, opts)
	if err != nil {
		tb.Fatal(err)
	}
	p := partition.NewPartitioner()
	last := map[string][]uint64{}
	depth := map[string]int{}
	res := result{file: f}
	for i := range recs {
		r := &recs[i]
		prev := last[r.key]
		refs, err := w.Put(parts(r, mode, p, noMeta), prev)
		if err != nil {
			tb.Fatal(err)
		}
		if depth[r.key] >= chain {
			prev, depth[r.key] = nil, 0
		}
		depth[r.key]++
		code := EncodeRefs(nil, refs, prev)
		res.refsB += int64(len(code))
		res.codes = append(res.codes, code...)
		last[r.key] = refs
		res.versions = append(res.versions, refs)
	}
	dir, err := w.Close()
	if err != nil {
		tb.Fatal(err)
	}
	res.elapsed = time.Since(t0)
	res.st, res.dir = w.Stats(), dir
	res.frames = dir.End()
	res.dirB = int64(40 * len(dir)) // a pack index's chunk-frame row per frame
	// Ref lists live in the catalog, which is stored zstd-compressed:
	// count them compressed (level 19, as the frames).
	z, err := libzstdCompress(nil, res.codes, DefaultLevel, nil)
	if err != nil || !haveLibzstd {
		enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
		z = enc.EncodeAll(res.codes, nil)
	}
	res.refsZ = int64(len(z))
	res.archive = res.frames + res.dirB + res.refsZ
	return res
}

// baselines returns the sizes of `xz -9e` and `zstd -19 --long=27` of the
// records in URL/time order (the real commands, single-threaded).
func baselines(tb testing.TB, recs []record) (xz, zst, raw int64) {
	name := filepath.Join(tb.TempDir(), "sorted.warc")
	var all []byte
	for i := range recs {
		all = append(all, recs[i].bytes()...)
	}
	if err := os.WriteFile(name, all, 0o644); err != nil {
		tb.Fatal(err)
	}
	size := func(cmd string, args ...string) int64 {
		path, err := exec.LookPath(cmd)
		if err != nil {
			tb.Skipf("%s command not found (Debian package %s): the baselines need it", cmd, cmd)
		}
		var out bytes.Buffer
		c := exec.Command(path, append(args, name)...)
		c.Stdout = &out
		if err := c.Run(); err != nil {
			tb.Fatalf("%s: %v", cmd, err)
		}
		return int64(out.Len())
	}
	// CHUNK_BASELINES=DIR keeps the two sizes there per site and length
	// of the sorted records, for sweeps of the chunk store's options
	// (xz -9e takes minutes on the largest site); unset, both commands
	// run in every run.
	cache := ""
	if d := os.Getenv("CHUNK_BASELINES"); d != "" {
		cache = filepath.Join(d, fmt.Sprintf("%s-%d.txt", filepath.Base(tb.Name()), len(all)))
		if b, err := os.ReadFile(cache); err == nil {
			if _, err := fmt.Sscan(string(b), &xz, &zst); err == nil {
				return xz, zst, int64(len(all))
			}
		}
	}
	xz, zst = size("xz", "-9e", "-T1", "-q", "-c"), size("zstd", "-19", "--long=27", "-q", "-c")
	if cache != "" {
		if err := os.WriteFile(cache, fmt.Appendf(nil, "%d %d\n", xz, zst), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return xz, zst, int64(len(all))
}

// restoreStats restores random versions with a 4 MiB cache: cold bytes
// decoded per restore (mean, p99), frames touched (max), latency p99.
func restoreStats(tb testing.TB, res result, recs []record) (meanDec, p99Dec float64, maxFrames int, p99Lat, p50Lat time.Duration) {
	r, err := NewReader(res.file, res.dir, 4<<20)
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(13, 13))
	const samples = 2000
	dec := make([]float64, 0, samples)
	lat := make([]time.Duration, 0, samples)
	var sum float64
	var buf []byte
	for range samples {
		k := rng.IntN(len(res.versions))
		refs := res.versions[k]
		n, plain := res.dir.Cost(refs)
		maxFrames = max(maxFrames, n)
		dec = append(dec, float64(plain))
		sum += float64(plain)
		t := time.Now()
		buf, err = r.Restore(buf[:0], refs)
		lat = append(lat, time.Since(t))
		if err != nil {
			tb.Fatal(err)
		}
		if !bytes.Equal(buf, recs[k].bytes()) {
			tb.Fatalf("version %d restores to different bytes", k)
		}
	}
	slices.Sort(dec)
	slices.Sort(lat)
	return sum / samples, dec[samples*99/100], maxFrames, lat[samples*99/100], lat[samples/2]
}

// coldRestore is the p99 latency of restoring a random version with an
// empty cache (emptied before each restore; the Reader's decoder stays
// warm, as in a long-lived reader): every frame it names decoded.
func coldRestore(tb testing.TB, res result) time.Duration {
	rng := rand.New(rand.NewPCG(14, 14))
	const samples = 300
	lat := make([]time.Duration, 0, samples)
	var buf []byte
	r, err := NewReader(res.file, res.dir, 4<<20)
	if err != nil {
		tb.Fatal(err)
	}
	for range samples {
		r.dropCache()
		refs := res.versions[rng.IntN(len(res.versions))]
		t := time.Now()
		if buf, err = r.Restore(buf[:0], refs); err != nil {
			tb.Fatal(err)
		}
		lat = append(lat, time.Since(t))
	}
	slices.Sort(lat)
	return lat[samples*99/100]
}

// BenchmarkChunkStore stores every record of every corpus site, in
// URL/time order, through the chunk store and reports, from one run:
// archive size (frames + directory + ref lists) as a ratio of `xz -9e`
// (x-xz9e, target ≤ 0.90) and of `zstd -19 --long=27` (x-zstd19long,
// target ≤ 0.95) of the same sorted records; cold bytes decoded
// per random capture restore (dec-mean-B, dec-p99-B), frames touched
// (max-frames) and restore latency with a 4 MiB cache shared by the
// random restores (p50-µs, p99-µs) and with a cold cache (cold-p99-µs);
// ingest speed of the chunk store (MB/s of records, wall clock and per
// CPU-second of the process, cgo threads included). The archive, which
// stores its objects in this chunk store (pack format 3), is measured by
// dedupe's BenchmarkArchiveSize.
// CHUNK_MODE (stream, record, blocks), CHUNK_META=0 (no chunk classes) and CHUNK_MAXFRAMES, CHUNK_AVG, CHUNK_FRAME override
// the defaults for comparisons.
func BenchmarkChunkStore(b *testing.B) {
	mode, opts := benchConfig(b)
	for _, site := range corpusSites(b) {
		b.Run(site, func(b *testing.B) {
			recs := loadSite(b, site)
			xz, zst, raw := baselines(b, recs)
			var res result
			var chunkCPU time.Duration
			b.SetBytes(raw)
			b.ResetTimer()
			for range b.N {
				c0 := cpuTime(b)
				res = storeSite(b, recs, mode, opts)
				chunkCPU = cpuTime(b) - c0
			}
			b.StopTimer()
			mean, p99, maxF, p99Lat, p50Lat := restoreStats(b, res, recs)
			b.ReportMetric(float64(res.archive)/float64(xz), "x-xz9e")
			b.ReportMetric(float64(res.archive)/float64(zst), "x-zstd19long")
			b.ReportMetric(float64(res.archive), "archive-B")
			b.ReportMetric(float64(res.refsB), "reflist-B")
			b.ReportMetric(float64(res.refsZ), "reflist-zstd-B")
			b.ReportMetric(float64(res.st.NewChunks), "new-chunks")
			b.ReportMetric(float64(res.st.Chunks), "chunks")
			b.ReportMetric(float64(res.st.Versions), "records")
			b.ReportMetric(float64(res.st.RestoredBytes), "restored-B")
			b.ReportMetric(mean, "dec-mean-B")
			b.ReportMetric(p99, "dec-p99-B")
			b.ReportMetric(float64(maxF), "max-frames")
			b.ReportMetric(float64(p50Lat.Microseconds()), "p50-µs")
			b.ReportMetric(float64(p99Lat.Microseconds()), "p99-µs")
			b.ReportMetric(float64(coldRestore(b, res).Microseconds()), "cold-p99-µs")
			b.ReportMetric(float64(raw)/res.elapsed.Seconds()/1e6, "ingest-MB/s")
			b.ReportMetric(float64(raw)/chunkCPU.Seconds()/1e6, "ingest-MB/cpu-s")
		})
	}
}

func benchConfig(tb testing.TB) (string, Options) {
	mode := os.Getenv("CHUNK_MODE")
	if mode == "" {
		mode = modeBlocks
	}
	if mode != modeStream && mode != modeRecord && mode != modeBlocks {
		tb.Fatalf("CHUNK_MODE %q: want stream, record or blocks", mode)
	}
	var o Options
	for _, v := range []struct {
		env string
		dst *int
	}{{"CHUNK_MAXFRAMES", &o.MaxFrames}, {"CHUNK_AVG", &o.AvgChunk}, {"CHUNK_FRAME", &o.FrameSize}, {"CHUNK_LEVEL", &o.Level}} {
		if s := os.Getenv(v.env); s != "" {
			if _, err := fmt.Sscan(s, v.dst); err != nil {
				tb.Fatalf("%s=%q: %v", v.env, s, err)
			}
		}
	}
	tb.Logf("mode %s, options %+v", mode, o.withDefaults())
	return mode, o
}

// TestCorpusRoundTrip stores two corpus sites (two Writers each, the
// second continuing the first's file and reusing through prior) and
// restores every record byte for byte.
func TestCorpusRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus round trip: not in -short")
	}
	for _, site := range []string{"ota-lovescout24", "ota-mektoube"} {
		t.Run(site, func(t *testing.T) {
			recs := loadSite(t, site)
			vs := map[string][][]byte{}
			var keys []string
			for i := range recs {
				k := recs[i].key
				if _, ok := vs[k]; !ok {
					keys = append(keys, k)
				}
				vs[k] = append(vs[k], recs[i].bytes())
			}
			grid := make([][][]byte, 0, len(keys))
			for _, k := range keys {
				grid = append(grid, vs[k])
			}
			f, dir, all := storeAll(t, grid, Options{FrameSize: 1 << 20, MaxFrames: 4}, 2)
			r, err := NewReader(f, dir, 4<<20)
			if err != nil {
				t.Fatal(err)
			}
			if len(all) != len(recs) {
				t.Fatalf("stored %d records of %d", len(all), len(recs))
			}
			raw := restoreAll(t, r, all)
			// Crawls of the same pages: deduplication and shared frames
			// must store under a third of the records.
			if dir.End()*3 > raw {
				t.Errorf("%d bytes of chunk file for %d bytes of records", dir.End(), raw)
			}
		})
	}
}

// cpuTime is the CPU time (user + system) of the process so far.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
