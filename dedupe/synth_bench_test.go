package dedupe

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/internal/realcrawl"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/warcio"
)

// BenchmarkScaleSynth (make bench-scale-synth) is BenchmarkScale at the
// default bounds on a collection large enough for them to bite, instead
// of bounds scaled down: realcrawl.Write's crawls of real pages (the
// corpus's and the article pages, each site in a cipher of its own)
// with a domain crawl's churn — edits, moved pages, mirrored hosts,
// tokens, dates and counters per capture, the same images under many
// URLs — 16 sites and 3 mirrors, BLOCKWARC_SYNTH_CRAWLS crawls a week
// apart (24: 1.6 GB of records, each crawl's file 40–90 MB, over -mem
// 64MiB). Each crawl is ingested as it arrives, at -mem 64MiB and at
// 4GiB; after every tenth of the input it logs what BenchmarkScale does
// (archive bytes against each file recompressed alone by `zstd -19
// --long=27`, bytes per new capture, ingest CPU per GB, restores warm
// and cold, the peak RSS of `blockwarc ingest` of the tenth's last
// crawl, index and catalog bytes). At the end: the two archives compared
// file by file, the archive against `zstd -19 --long=27` of the whole
// collection sorted by URL and time (xz -9e of 1.6 GB would take longer
// than the rest together: not run), and growth to the last tenth from
// the first, and from the second (the first is the first crawl: every
// page new). About seven minutes.
func BenchmarkScaleSynth(b *testing.B) {
	crawls := 24
	if v := os.Getenv("BLOCKWARC_SYNTH_CRAWLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 2 {
			b.Fatalf("BLOCKWARC_SYNTH_CRAWLS=%q: want a number of crawls ≥ 2", v)
		}
		crawls = n
	}
	zstdPath, err := exec.LookPath("zstd")
	if err != nil {
		b.Skipf("zstd command not found (Debian package zstd): %v", err)
	}
	pool := realPool(b)
	files, err := realcrawl.Write(b.TempDir(), pool, realcrawl.Options{Seed: 1, Crawls: crawls})
	if err != nil {
		b.Fatal(err)
	}
	// Each file on its own at zstd -19 --long=27, two at a time.
	recBytes, perFile := make([]int64, len(files)), make([]int64, len(files))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, f := range files {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			recBytes[i], perFile[i] = zstdAloneErr(zstdPath, f)
		}()
	}
	wg.Wait()
	total := sum(recBytes)
	if slices.Contains(perFile, -1) {
		b.Fatal("zstd failed on an input")
	}
	b.Logf("%d crawls of realcrawl.Write (a pool of %d real pages), %.1f MB of records in %.1f MB of .warc.gz; each file alone at zstd -19 --long=27: %d bytes",
		len(files), len(pool), float64(total)/1e6, float64(filesBytes(b, files))/1e6, sum(perFile))

	bin := filepath.Join(b.TempDir(), "blockwarc")
	if out, err := exec.Command("go", "build", "-o", bin, filepath.Join(sharedtest.RepoRoot(b), "cmd", "blockwarc")).CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	type tenth struct{ bytesPerCapture, cpuPerGB, p99, coldP99, coldDec99 float64 }
	archives := map[string]string{}
	// growth: the first tenth and the last; recrawl: the second tenth
	// (the first recrawls: the first tenth is the first crawl, every page
	// new, a bulk load) and the last.
	var growth, recrawl [2]tenth
	var maxRSS int64
	for _, mem := range []int64{64 << 20, 4 << 30} {
		name := formatSize(mem)
		arch := filepath.Join(b.TempDir(), "synth.bwa")
		archives[name] = arch
		opts := Options{MemLimit: mem}
		cliFlags := []string{"-tables=false", "-mem", name}
		old := debug.SetMemoryLimit(SplitMemory(mem, 1, 0).GoHeap)
		var in, zs, cpuTenth, inTenth, capsBefore, sizeBefore, rss int64
		var first string
		next := total / 10
		for i, f := range files {
			if in+recBytes[i] >= next || i == len(files)-1 {
				r, cpu := cliIngest(b, bin, append(cliFlags, arch, f)...)
				rss, cpuTenth = max(rss, r), cpuTenth+cpu
			} else {
				c0 := cpuTime()
				if _, err := Ingest(context.Background(), arch, []string{f}, opts); err != nil {
					b.Fatal(err)
				}
				cpuTenth += cpuTime() - c0
			}
			in += recBytes[i]
			inTenth += recBytes[i]
			zs += perFile[i]
			if in < next && i < len(files)-1 {
				continue
			}
			for next <= in {
				next += total / 10
			}
			size := dirSize(b, arch)
			st := storeStats(b, arch)
			caps, p50, p99, dec99 := restoreSample(b, arch, 200)
			t := tenth{
				bytesPerCapture: float64(size-sizeBefore) / float64(max(caps-capsBefore, 1)),
				cpuPerGB:        float64(cpuTenth) / 1e9 / (float64(inTenth) / 1e9),
				p99:             p99,
			}
			if mem == 64<<20 {
				maxRSS = max(maxRSS, rss)
			}
			b.Logf("-mem %-6s %3.0f%%: input %6.1f MB, archive %9d B (x-zstd-per-file %.4f), %5.0f B/new capture, ingest %5.1f CPU-s/GB, restore p50 %.2f p99 %.2f ms (decodes p99 %.1f MB), peak RSS %4d MB (x-limit+256MiB %.2f), index %d B, catalog %d B",
				name, 100*float64(in)/float64(total), float64(in)/1e6, size, float64(size)/float64(zs), t.bytesPerCapture, t.cpuPerGB,
				p50, p99, dec99, rss>>20, float64(rss)/float64(min(mem, 4<<30)+256<<20), st.IndexBytes, st.Kinds[pack.KindVersionCatalog].Stored)
			if mem == 4<<30 && (capsBefore == 0 || i == len(files)-1) {
				_, _, t.coldP99, t.coldDec99 = restoreSampleCold(b, arch, 200)
				b.Logf("  cold: restore p99 %.2f ms (decodes p99 %.2f MB)", t.coldP99, t.coldDec99)
				if capsBefore == 0 {
					first = filepath.Join(b.TempDir(), "first.bwa")
					if err := os.CopyFS(first, os.DirFS(arch)); err != nil {
						b.Fatal(err)
					}
				}
			}
			if mem == 4<<30 {
				if capsBefore == 0 {
					growth[0] = t
				} else if recrawl[0].cpuPerGB == 0 {
					recrawl[0] = t
				}
				growth[1], recrawl[1] = t, t
			}
			sizeBefore, capsBefore, cpuTenth, inTenth, rss = size, caps, 0, 0, 0
			if i == len(files)-1 {
				b.ReportMetric(float64(size)/float64(zs), "x-zstd-per-file-"+name)
			}
		}
		debug.SetMemoryLimit(old)
		if first != "" {
			growth[0].coldP99, growth[1].coldP99 = alternateCold(b, first, arch, 3)
			b.Logf("-mem %s cold p99, first and last tenth alternated: %.2f and %.2f ms", name, growth[0].coldP99, growth[1].coldP99)
		}
	}
	large := reportSameArchives(b, archives["64MiB"], archives["4GiB"])
	b.ReportMetric(recrawl[1].bytesPerCapture/recrawl[0].bytesPerCapture, "x-growth-bytes-per-capture-recrawls")
	b.ReportMetric(recrawl[1].cpuPerGB/recrawl[0].cpuPerGB, "x-growth-cpu-per-GB-recrawls")
	b.ReportMetric(recrawl[1].p99/recrawl[0].p99, "x-growth-restore-p99-recrawls")
	b.ReportMetric(growth[1].p99/growth[0].p99, "x-growth-restore-p99")
	b.ReportMetric(growth[1].coldP99/growth[0].coldP99, "x-growth-restore-p99-cold")
	b.ReportMetric(growth[1].coldDec99/max(growth[0].coldDec99, 0.001), "x-growth-restore-decoded-p99-cold")
	b.ReportMetric(float64(maxRSS)/float64(64<<20+256<<20), "x-limit+256MiB-64MiB")
	zsorted, _, _ := sortedCompressed(b, files, false)
	b.ReportMetric(float64(dirBytes(large))/float64(zsorted), "x-zstd-sorted")
	b.Logf("whole collection sorted: zstd -19 --long=27 %d B; archive %d B; each file alone %d B", zsorted, dirBytes(large), sum(perFile))
}

// zstdAloneErr is zstdAlone for a goroutine: -1, -1 on an error.
func zstdAloneErr(zstdPath, file string) (int64, int64) {
	f, err := os.Open(file)
	if err != nil {
		return -1, -1
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return -1, -1
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return -1, -1
	}
	var cw countWriter
	cmd := exec.Command(zstdPath, "-19", "--long=27", "-q", "-c")
	cmd.Stdin, cmd.Stdout = bytes.NewReader(raw), &cw
	if err := cmd.Run(); err != nil {
		return -1, -1
	}
	return int64(len(raw)), cw.n
}

// filesBytes is the bytes of files on disk.
func filesBytes(b *testing.B, files []string) (n int64) {
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			b.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

// realPool reads the real HTML pages realcrawl.Write builds sites
// from: the article-extraction pages, and each corpus URL's latest HTML
// response (its payload as stored, when neither chunked nor
// content-encoded).
func realPool(b *testing.B) [][]byte {
	var pool [][]byte
	dir := sharedtest.Dir(b, "testdata", "article-extraction", "html")
	ents, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".html.gz") {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			b.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			b.Fatal(err)
		}
		page, err := io.ReadAll(zr)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		pool = append(pool, page)
	}
	latest := map[string][]byte{}
	for _, file := range sharedtest.CorpusFiles(b) {
		f, err := os.Open(file)
		if err != nil {
			b.Fatal(err)
		}
		r := warcio.NewReader(f, file)
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatalf("%s: %v", file, err)
			}
			if rec.Type != "response" {
				continue
			}
			block, err := io.ReadAll(rec.Body)
			if err != nil {
				b.Fatal(err)
			}
			i := bytes.Index(block, []byte("\r\n\r\n"))
			if i < 0 {
				continue
			}
			head := bytes.ToLower(block[:i])
			if !bytes.Contains(head, []byte("content-type: text/html")) || bytes.Contains(head, []byte("transfer-encoding: chunked")) ||
				bytes.Contains(head, []byte("content-encoding:")) || !(bytes.HasPrefix(head, []byte("http/1.")) && bytes.HasPrefix(head[min(len(head), 8):], []byte(" 200"))) {
				continue
			}
			latest[rec.TargetURI] = block[i+4:]
		}
		f.Close()
	}
	for _, u := range slices.Sorted(maps.Keys(latest)) {
		pool = append(pool, latest[u])
	}
	return pool
}
