package dedupe

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/internal/testhooks"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// BenchmarkScale (make bench-scale) scales the bounds down instead of
// the data up: every corpus site mixed into one collection and ingested
// one crawl at a time in date order, as a domain crawl arrives, once at
// -mem 64MiB and once at -mem 4GiB. After every tenth of the input it
// logs the archive's bytes (per input GB, and against each input file
// compressed on its own with `zstd -19 --long=27`: what recompressing
// WARC files gives once a collection outgrows a codec's window), the
// ingest CPU-seconds per input GB of that tenth, restore p50/p99 of 200
// random captures, the peak RSS of the tenth's last crawl ingested by
// `blockwarc ingest` in a process of its own (as a user runs it), and the
// bytes of indexes and catalog. At the end: the two archives compared
// file by file (x-mem64-vs-4g, identical), against `xz -9e` and
// `zstd -19 --long=27` of the whole collection sorted by URL and time
// (no random access), and how cost grew from the first tenth to the
// last (x-growth-*). At -mem 4GiB, after every tenth, the archive is
// also compacted (Compact, `blockwarc compact`: one dense ingest of the
// same files) and the copy's bytes and restore cost logged; the last
// copy is measured against the same baselines (x-*-compacted). Then
// the crawl-at-a-time ingest once more at -mem 4GiB with the bounds
// that decide what a restore decodes scaled down 256 times (frames of
// chunks and their chains 16 KiB instead of 4 MiB; metrics *-scaled),
// in process, not compacted: this collection's first tenth (1.8 MB of
// new chunk bytes) never fills a 4 MiB chain, a terabyte collection's
// first tenth fills thousands, so only with the bounds scaled is the
// growth from the first tenth to the last the one a user sees. The
// restores are sampled warm (one archive opened for the 200, its caches
// kept) and, at the first and last tenth at -mem 4GiB, cold (each in the
// archive opened anew: what a random restore costs in a collection far
// larger than any cache; x-growth-restore-*-cold). Cold latency is
// measured again at the end, the first tenth's archive (a copy) and the
// last one's alternated three times, the median p99 of each taken: one
// sample minutes apart measured the machine's load as much as the
// archive. The collection's first tenth is one site's early crawls and
// its last every site's, so the first-against-last figures weigh the mix
// of sites too; two compare like with like: restores of the first
// tenth's responses against the latest responses of the same URLs
// (samePagesCold, x-growth-*-same-pages*), and each site's ingest CPU
// per GB in the first tenth of its own crawls against the last
// (siteCPUGrowth, x-growth-cpu-per-GB-SITE); and the first tenth's
// records restored in the first tenth's archive and in the last
// (sameRecordsCold, x-growth-*-same-records*): what the archive's
// growth alone adds to a restore.
func BenchmarkScale(b *testing.B) {
	files := sharedtest.CorpusFiles(b)
	// Crawl date order: the files are SITE-YYYYMMDDhhmmss.warc.gz.
	date := func(f string) string {
		base := strings.TrimSuffix(filepath.Base(f), ".warc.gz")
		return base[strings.LastIndexByte(base, '-')+1:] + base
	}
	slices.SortFunc(files, func(x, y string) int { return strings.Compare(date(x), date(y)) })
	zstdPath, err := exec.LookPath("zstd")
	if err != nil {
		b.Skipf("zstd command not found (Debian package zstd): %v", err)
	}
	// Each input file on its own: records and `zstd -19 --long=27`.
	recBytes, perFile := make([]int64, len(files)), make([]int64, len(files))
	for i, f := range files {
		recBytes[i], perFile[i] = zstdAlone(b, zstdPath, f)
	}
	var total int64
	for _, n := range recBytes {
		total += n
	}
	b.Logf("%d crawls of %d sites, %.1f MB of records; each file alone at zstd -19 --long=27: %d bytes", len(files), len(corpusSites), float64(total)/1e6, sum(perFile))

	bin := filepath.Join(b.TempDir(), "blockwarc")
	if out, err := exec.Command("go", "build", "-o", bin, filepath.Join(sharedtest.RepoRoot(b), "cmd", "blockwarc")).CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	type tenth struct {
		bytesPerCapture, cpuPerGB, p50, p99, dec99 float64
		findP50, findP99, findSegs                 float64 // restores through Find(url, date)
		coldP50, coldP99, coldDec99                float64 // restores in an archive opened anew
		sameP99, sameDec99, sameAmp                float64 // cold, the pages of the first tenth (samePagesCold)
		recP99, recDec99                           float64 // cold, the records of the first tenth (sameRecordsCold)
	}
	// The runs: -mem 64MiB and 4GiB (compacted after every tenth), the
	// default settings; then 4GiB with the bounds scaled down.
	type run struct {
		name   string
		mem    int64
		scaled bool
	}
	runs := []run{{"64MiB", 64 << 20, false}, {"4GiB", 4 << 30, false}, {"4GiB-scaled", 4 << 30, true}}
	archives := map[string]string{}
	// growths: the first and last tenth of each run; sizes: its archive
	// at the end, and the per-file baseline.
	growths := map[string][2]tenth{}
	sizes := map[string]int64{}
	var compacted int64    // the last compacted size (-mem 4GiB)
	var compactedPar int64 // its parity sidecars' bytes
	var compDec [2]float64 // its restore decoded p99, first and last tenth
	for _, r := range runs {
		mem := r.mem
		arch := filepath.Join(b.TempDir(), "scale.bwa")
		archives[r.name] = arch
		var growth [2]tenth
		opts := Options{MemLimit: mem}
		cliFlags := []string{"-tables=false", "-mem", formatSize(mem)}
		if r.scaled {
			// The frames of chunks and their chains, 4 MiB each by
			// default, 256 times smaller (the command takes no frame
			// size: this run ingests in process). MaxFrames, a count,
			// stays 8, and so does the seed of a commit's chunk table
			// (32 MiB): scaled with them to 128 KiB (1 Dec 2026), the
			// archive was 1.05 times larger and no site's ingest CPU
			// grew less.
			opts.Pack.ChainBytes = scaledFrame
			opts.Pack.SetTestHooks(testhooks.Pack{ChunkFrameSize: scaledFrame})
		}
		var first string // a copy of the archive after the first tenth
		old := debug.SetMemoryLimit(SplitMemory(mem, 1, 0).GoHeap)
		var in, zs, cpuTenth, inTenth int64
		var capsBefore int64
		var sizeBefore int64
		next := total / 10
		var rss int64
		// Each crawl's ingest CPU in this process (-1: ingested by the
		// command, whose CPU counts a process's start), for the growth
		// of each site alone (siteCPUGrowth).
		fileCPU := make([]int64, len(files))
		for i, f := range files {
			if (in+recBytes[i] >= next || i == len(files)-1) && !r.scaled {
				// The last crawl of a tenth arrives as a user ingests
				// it: `blockwarc ingest` in a process of its own, whose
				// peak RSS is the figure (this process's holds every
				// ingest before it, and the restores and compactions).
				r, cpu := cliIngest(b, bin, append(cliFlags, arch, f)...)
				rss, cpuTenth = max(rss, r), cpuTenth+cpu
				fileCPU[i] = -1
			} else {
				c0 := cpuTime()
				if _, err := Ingest(context.Background(), arch, []string{f}, opts); err != nil {
					b.Fatal(err)
				}
				fileCPU[i] = cpuTime() - c0
				cpuTenth += fileCPU[i]
			}
			in += recBytes[i]
			inTenth += recBytes[i]
			zs += perFile[i]
			if in < next && i < len(files)-1 {
				continue
			}
			next += total / 10
			size := dirSize(b, arch)
			st := storeStats(b, arch)
			caps, p50, p99, dec99 := restoreSample(b, arch, 200)
			bpc := float64(size-sizeBefore) / float64(max(caps-capsBefore, 1))
			cpuGB := float64(cpuTenth) / 1e9 / (float64(inTenth) / 1e9)
			b.Logf("-mem %-5s %3.0f%%: input %6.1f MB, archive %8d B (%5.0f KB/GB, x-zstd-per-file %.4f), %5.0f B/new capture, ingest %5.1f CPU-s/GB, restore p50 %.2f p99 %.2f ms (decodes p99 %.1f MB), peak RSS %4d MB, index %d B, catalog %d B",
				r.name, 100*float64(in)/float64(total), float64(in)/1e6, size, float64(size)/1e3/(float64(in)/1e9),
				float64(size)/float64(zs), bpc, cpuGB, p50, p99, dec99, rss>>20, st.IndexBytes, st.Kinds[pack.KindVersionCatalog].Stored)
			if r.name == "4GiB" {
				// What `blockwarc compact` makes of the archive so far.
				comp := filepath.Join(b.TempDir(), "compact.bwa")
				if _, err := Compact(context.Background(), arch, comp, Options{MemLimit: mem, TempDir: b.TempDir()}); err != nil {
					b.Fatal(err)
				}
				csize := dirSize(b, comp)
				_, _, cp99, cdec99 := restoreSample(b, comp, 200)
				b.Logf("  compacted: archive %8d B (x-zstd-per-file %.4f, %.3f of the archive), restore p99 %.2f ms (decodes p99 %.1f MB)",
					csize, float64(csize)/float64(zs), float64(csize)/float64(size), cp99, cdec99)
				compacted, compactedPar = csize, parityBytes(b, comp)
				if capsBefore == 0 {
					compDec[0] = cdec99
				}
				compDec[1] = cdec99
				os.RemoveAll(comp)
			}
			t := tenth{bytesPerCapture: bpc, cpuPerGB: cpuGB, p50: p50, p99: p99, dec99: dec99}
			// What `blockwarc cat -at DATE ARCHIVE URL` does: Find the URL at the capture's date,
			// then restore what it found.
			t.findP50, t.findP99, t.findSegs = findRestoreSample(b, arch, 200)
			b.Logf("  restore via Find(url, date): p50 %.2f p99 %.2f ms, %.2f catalog segments read per Find", t.findP50, t.findP99, t.findSegs)
			if r.name != "64MiB" && (capsBefore == 0 || i == len(files)-1) {
				// Cold: each restore in an archive opened anew, as a
				// restore from a collection far larger than any cache
				// is. The warm sample's first tenth is served from the
				// cache that then holds the whole archive.
				_, t.coldP50, t.coldP99, t.coldDec99 = restoreSampleCold(b, arch, 200)
				b.Logf("  cold: restore p50 %.2f p99 %.2f ms (decodes p99 %.2f MB)", t.coldP50, t.coldP99, t.coldDec99)
				if capsBefore == 0 {
					first = filepath.Join(b.TempDir(), "first.bwa")
					if err := os.CopyFS(first, os.DirFS(arch)); err != nil {
						b.Fatal(err)
					}
				}
			}
			if capsBefore == 0 {
				growth[0] = t
			}
			growth[1] = t
			sizeBefore, capsBefore, cpuTenth, inTenth, rss = size, caps, 0, 0, 0
			if i == len(files)-1 {
				b.ReportMetric(float64(size)/float64(zs), "x-zstd-per-file-"+r.name)
				sizes[r.name], sizes["per-file"] = size, zs
			}
		}
		debug.SetMemoryLimit(old)
		if first != "" {
			growth[0].coldP99, growth[1].coldP99 = alternateCold(b, first, arch, 3)
			b.Logf("-mem %s cold p99, first and last tenth alternated: %.2f and %.2f ms", r.name, growth[0].coldP99, growth[1].coldP99)
			sp := samePagesCold(b, first, arch, 3)
			growth[0].sameP99, growth[1].sameP99 = sp.p99[0], sp.p99[1]
			growth[0].sameDec99, growth[1].sameDec99 = sp.dec99[0], sp.dec99[1]
			growth[0].sameAmp, growth[1].sameAmp = sp.amp[0], sp.amp[1]
			b.Logf("-mem %s cold, the same pages (%d URLs): the first tenth's %d responses p50 %.2f p99 %.2f ms (decode p99 %.2f MB, %.0f bytes decoded per byte restored; records p50 %.1f KB), their latest %d p50 %.2f p99 %.2f ms (decode p99 %.2f MB, %.0f per byte; records p50 %.1f KB)",
				r.name, sp.urls, sp.n[0], sp.p50[0], sp.p99[0], sp.dec99[0], sp.amp[0], sp.rec50[0], sp.n[1], sp.p50[1], sp.p99[1], sp.dec99[1], sp.amp[1], sp.rec50[1])
			sr := sameRecordsCold(b, first, arch, 3)
			growth[0].recP99, growth[1].recP99 = sr.p99[0], sr.p99[1]
			growth[0].recDec99, growth[1].recDec99 = sr.dec99[0], sr.dec99[1]
			b.Logf("-mem %s cold, the same records (the first tenth's %d responses): in the first tenth's archive p50 %.2f p99 %.2f ms (decode p99 %.2f MB), in the last p50 %.2f p99 %.2f ms (decode p99 %.2f MB)",
				r.name, sr.n[0], sr.p50[0], sr.p99[0], sr.dec99[0], sr.p50[1], sr.p99[1], sr.dec99[1])
		}
		growths[r.name] = growth
		if r.name == "4GiB" {
			worst := 0.0
			for _, g := range siteCPUGrowth(files, recBytes, fileCPU) {
				b.Logf("-mem %s %s: ingest CPU per GB, its first tenth of crawls %.0f CPU-s/GB, its last %.0f: x-growth %.2f",
					r.name, g.site, g.first, g.last, g.last/g.first)
				b.ReportMetric(g.last/g.first, "x-growth-cpu-per-GB-"+g.site)
				worst = max(worst, g.last/g.first)
			}
			b.ReportMetric(worst, "x-growth-cpu-per-GB-site-max")
		}
	}
	growth := growths["4GiB"]
	b.ReportMetric(growth[1].bytesPerCapture/growth[0].bytesPerCapture, "x-growth-bytes-per-capture")
	b.ReportMetric(growth[1].cpuPerGB/growth[0].cpuPerGB, "x-growth-cpu-per-GB")
	b.ReportMetric(growth[1].p99/growth[0].p99, "x-growth-restore-p99")
	b.ReportMetric(growth[1].dec99/max(growth[0].dec99, 0.001), "x-growth-restore-decoded-p99")
	b.ReportMetric(growth[1].coldP99/growth[0].coldP99, "x-growth-restore-p99-cold")
	b.ReportMetric(growth[1].coldDec99/max(growth[0].coldDec99, 0.001), "x-growth-restore-decoded-p99-cold")
	b.ReportMetric(growth[1].sameP99/growth[0].sameP99, "x-growth-restore-p99-cold-same-pages")
	b.ReportMetric(growth[1].sameDec99/max(growth[0].sameDec99, 0.001), "x-growth-restore-decoded-p99-cold-same-pages")
	b.ReportMetric(growth[1].sameAmp/growth[0].sameAmp, "x-growth-restore-amplification-same-pages")
	b.ReportMetric(growth[1].recP99/growth[0].recP99, "x-growth-restore-p99-cold-same-records")
	b.ReportMetric(growth[1].recDec99/max(growth[0].recDec99, 0.001), "x-growth-restore-decoded-p99-cold-same-records")
	b.ReportMetric(growth[1].findP50/growth[0].findP50, "x-growth-find-restore-p50")
	b.ReportMetric(growth[1].findP99/growth[0].findP99, "x-growth-find-restore-p99")
	b.ReportMetric(growth[1].findSegs, "find-segments-last-tenth")
	// The bounds scaled: the growth a collection shows once they are
	// reached.
	sc := growths["4GiB-scaled"]
	b.ReportMetric(sc[1].coldP99/sc[0].coldP99, "x-growth-restore-p99-cold-scaled")
	b.ReportMetric(sc[1].coldDec99/max(sc[0].coldDec99, 0.001), "x-growth-restore-decoded-p99-cold-scaled")
	b.ReportMetric(sc[1].dec99/max(sc[0].dec99, 0.001), "x-growth-restore-decoded-p99-scaled")
	b.ReportMetric(sc[1].sameP99/sc[0].sameP99, "x-growth-restore-p99-cold-same-pages-scaled")
	b.ReportMetric(sc[1].sameDec99/max(sc[0].sameDec99, 0.001), "x-growth-restore-decoded-p99-cold-same-pages-scaled")
	b.ReportMetric(sc[1].sameAmp/sc[0].sameAmp, "x-growth-restore-amplification-same-pages-scaled")
	b.ReportMetric(sc[1].recP99/sc[0].recP99, "x-growth-restore-p99-cold-same-records-scaled")
	b.ReportMetric(sc[1].recDec99/max(sc[0].recDec99, 0.001), "x-growth-restore-decoded-p99-cold-same-records-scaled")
	b.ReportMetric(sc[1].bytesPerCapture/sc[0].bytesPerCapture, "x-growth-bytes-per-capture-scaled")
	for _, c := range []struct{ name, label string }{{"4GiB", "default (4 MiB)"}, {"4GiB-scaled", "scaled (16 KiB)"}} {
		g := growths[c.name]
		b.Logf("bounds %s: archive %8d B (x-zstd-per-file %.4f); cold restore p99, first tenth %.2f ms (decodes %.2f MB), last %.2f ms (decodes %.2f MB): x-growth %.2f (decoded %.2f)",
			c.label, sizes[c.name], float64(sizes[c.name])/float64(sizes["per-file"]), g[0].coldP99, g[0].coldDec99, g[1].coldP99, g[1].coldDec99,
			g[1].coldP99/g[0].coldP99, g[1].coldDec99/max(g[0].coldDec99, 0.001))
	}

	large := reportSameArchives(b, archives["64MiB"], archives["4GiB"])
	scaleSites(b, files, perFile)
	zsorted, xzsorted, _ := sortedCompressed(b, files, true)
	size := float64(dirBytes(large))
	b.ReportMetric(size/float64(zsorted), "x-zstd-sorted")
	if xzsorted > 0 {
		b.ReportMetric(size/float64(xzsorted), "x-xz-sorted")
	}
	b.ReportMetric(float64(compacted)/float64(zsorted), "x-zstd-sorted-compacted")
	b.ReportMetric(float64(compacted)/float64(sum(perFile)), "x-zstd-per-file-compacted")
	if xzsorted > 0 {
		b.ReportMetric(float64(compacted)/float64(xzsorted), "x-xz-sorted-compacted")
		// -parity=false: the same archive without its sidecars
		// (parity is the trade-off of docs/FORMAT.md "Parity").
		b.ReportMetric(float64(compacted-compactedPar)/float64(xzsorted), "x-xz-sorted-compacted-noparity")
	}
	b.ReportMetric(compDec[1]/max(compDec[0], 0.001), "x-growth-restore-decoded-p99-compacted")
	b.Logf("whole collection sorted: zstd -19 --long=27 %d B, xz -9e %d B; archive %d B, compacted %d B (parity %d B)", zsorted, xzsorted, int64(size), compacted, compactedPar)
}

// BenchmarkScaleSites (make bench-scale-sites) is BenchmarkScale's
// per-site part alone: each corpus site in one ingest, against its files
// each recompressed on its own, against the floor (its sorted records in
// one stream) and against zstd of the sorted records, with and without
// parity. About two minutes.
func BenchmarkScaleSites(b *testing.B) {
	files := sharedtest.CorpusFiles(b)
	zstdPath, err := exec.LookPath("zstd")
	if err != nil {
		b.Skipf("zstd command not found (Debian package zstd): %v", err)
	}
	perFile := make([]int64, len(files))
	for i, f := range files {
		_, perFile[i] = zstdAlone(b, zstdPath, f)
	}
	scaleSites(b, files, perFile)
}

// scaleSites ingests each corpus site alone, all its crawls at once,
// and reports its bytes against its files each recompressed alone
// (perFile, in files' order) and against its sorted records.
func scaleSites(b *testing.B, files []string, perFile []int64) {
	for _, site := range corpusSites {
		var sf []string
		var zsite int64
		for i, f := range files {
			if filepath.Base(filepath.Dir(f)) == site {
				sf = append(sf, f)
				zsite += perFile[i]
			}
		}
		arch := filepath.Join(b.TempDir(), site+".bwa")
		if _, err := Ingest(context.Background(), arch, sf, Options{MemLimit: 4 << 30}); err != nil {
			b.Fatal(err)
		}
		n, par := dirSize(b, arch), parityBytes(b, arch)
		zs, xzs, _ := sortedCompressed(b, sf, true)
		// The floor: the site's records sorted by URL and time in one
		// stream, by the better of zstd and xz, against its files each
		// recompressed alone. No archive with random access is expected
		// below it; where it is above 0.08, so is every archive.
		floor := float64(min(zs, xzs)) / float64(zsite)
		if xzs == 0 {
			floor = float64(zs) / float64(zsite)
		}
		b.Logf("%s alone, one ingest of %d crawls: %d B (parity %d B), x-zstd-per-file %.4f (without parity %.4f; floor %.4f), x-zstd-sorted %.3f (without parity %.3f)",
			site, len(sf), n, par, float64(n)/float64(zsite), float64(n-par)/float64(zsite), floor, float64(n)/float64(zs), float64(n-par)/float64(zs))
		b.ReportMetric(float64(n)/float64(zsite), "x-zstd-per-file-"+site)
		b.ReportMetric(floor, "floor-per-file-"+site)
		b.ReportMetric(float64(n)/float64(zs), "x-zstd-sorted-"+site)
		b.ReportMetric(float64(n-par)/float64(zs), "x-zstd-sorted-noparity-"+site)
		os.RemoveAll(arch)
	}
}

// cliIngest runs `blockwarc ARGS` (an ingest) through a fresh helper
// process (TestRSSHelper: a child exec'd from this process would count
// its peak) and returns the command's peak RSS and CPU time (ns).
func cliIngest(b *testing.B, bin string, args ...string) (rss, cpu int64) {
	cmd := exec.Command(os.Args[0], "-test.run", "^TestRSSHelper$", "-test.v")
	cmd.Env = append(os.Environ(), "DEDUPE_RSS_COMMAND="+strings.Join(append([]string{bin, "ingest"}, args...), "\x1f"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("blockwarc ingest %v: %v\n%s", args, err, out)
	}
	for _, f := range strings.Fields(string(out)) {
		if v, ok := strings.CutPrefix(f, "maxrss="); ok {
			fmt.Sscan(v, &rss)
		}
		if v, ok := strings.CutPrefix(f, "cpu="); ok {
			fmt.Sscan(v, &cpu)
		}
	}
	if rss == 0 || cpu == 0 {
		b.Fatalf("helper printed no maxrss or cpu:\n%s", out)
	}
	return rss, cpu
}

func sum(xs []int64) (n int64) {
	for _, x := range xs {
		n += x
	}
	return n
}

// reportSameArchives compares the archives ingested at -mem 64MiB and
// 4GiB file by file (metrics x-mem64-vs-4g and identical, 1 when every
// file is the same) and returns the 4GiB one's files.
func reportSameArchives(b *testing.B, mem64, mem4g string) map[string][]byte {
	small, large := archiveFiles(b, mem64), archiveFiles(b, mem4g)
	identical := len(small) == len(large)
	for name, data := range small {
		if !bytes.Equal(large[name], data) {
			identical = false
			b.Logf("%s differs between -mem 64MiB and 4GiB", name)
		}
	}
	b.ReportMetric(float64(dirBytes(small))/float64(dirBytes(large)), "x-mem64-vs-4g")
	b.ReportMetric(map[bool]float64{true: 1}[identical], "identical")
	return large
}

// zstdAlone returns the record bytes of a .warc.gz file and the size of
// `zstd -19 --long=27` of them.
func zstdAlone(b *testing.B, zstdPath, file string) (int64, int64) {
	raw, z := zstdAloneErr(zstdPath, file)
	if raw < 0 {
		b.Fatalf("zstd -19 --long=27 of the records of %s failed", file)
	}
	return raw, z
}

// dirSize is the bytes of an archive's files.
func dirSize(b testing.TB, dir string) int64 {
	return dirBytes(archiveFiles(b, dir))
}

// restoreSample restores n captures picked at random (a fixed seed) from
// the archive opened anew, and returns its capture count, restore p50
// and p99 in milliseconds, and the p99 of the bytes a restore decodes
// (in MB: what the latency is made of, and unlike it, not a matter of
// the machine's load).
func restoreSample(b *testing.B, arch string, n int) (int64, float64, float64, float64) {
	return restoreSampleOf(b, arch, n, false)
}

// restoreSampleCold is restoreSample with each restore in the archive
// opened anew (its caches empty; the open is not timed).
func restoreSampleCold(b *testing.B, arch string, n int) (int64, float64, float64, float64) {
	return restoreSampleOf(b, arch, n, true)
}

func restoreSampleOf(b *testing.B, arch string, n int, cold bool) (int64, float64, float64, float64) {
	a, vs := openVersions(b, arch)
	defer a.Close()
	if cold {
		a = nil
	}
	lat, dec, _ := restoreDraw(b, arch, a, vs, n, rand.New(rand.NewPCG(3, 4)))
	slices.Sort(lat)
	slices.Sort(dec)
	return int64(len(vs)), ms(lat[n/2]), ms(lat[n*99/100]), float64(dec[n*99/100]) / 1e6
}

// restoreDraw restores n of vs drawn by rng in a, or with a nil each in
// arch opened anew (cold; the open not timed), and returns each one's
// latency, bytes decoded and record bytes restored (WARC header and
// block), in draw order.
func restoreDraw(b *testing.B, arch string, a *Archive, vs []Version, n int, rng *rand.Rand) (lat []time.Duration, dec, rec []int64) {
	lat, dec, rec = make([]time.Duration, n), make([]int64, n), make([]int64, n)
	for i := range lat {
		v := vs[rng.IntN(len(vs))]
		ra := a
		if ra == nil {
			var err error
			if ra, err = Open(arch, pack.Options{CacheBytes: 4 << 20}); err != nil {
				b.Fatal(err)
			}
		}
		t0, d0 := time.Now(), ra.Store().DecodedBytes()
		p, err := ra.Restore(&v)
		if err != nil {
			b.Fatal(err)
		}
		lat[i], dec[i] = time.Since(t0), ra.Store().DecodedBytes()-d0
		rec[i] = int64(len(p.WARCHeader) + p.BlockLen())
		if a == nil {
			ra.Close()
		}
	}
	return lat, dec, rec
}

// findRestoreSample restores n captures picked at random (a fixed seed,
// among those with a target URI) as `blockwarc cat -at DATE ARCHIVE URL`
// does, from the archive opened anew: Find(url, the capture's date),
// then Restore of what Find returns. It returns the p50 and p99 in
// milliseconds of the two together, and the catalog segments read per
// Find.
func findRestoreSample(b *testing.B, arch string, n int) (float64, float64, float64) {
	return findRestoreSampleOf(b, arch, n, false, (*Archive).Find)
}

// findRestoreSampleOf is findRestoreSample with find for Find, and with
// each capture found and restored in the archive opened anew (its
// caches empty; the open not timed) when cold is set.
func findRestoreSampleOf(b *testing.B, arch string, n int, cold bool, find func(a *Archive, url string, at time.Time) (Version, error)) (float64, float64, float64) {
	a, vs := openVersions(b, arch)
	defer func() { a.Close() }() // the last one opened
	vs = slices.DeleteFunc(vs, func(v Version) bool { return v.TargetURI == "" || v.Gap })
	rng := rand.New(rand.NewPCG(3, 4))
	lat := make([]time.Duration, n)
	var segs int64
	for i := range lat {
		v := vs[rng.IntN(len(vs))]
		if cold {
			a.Close()
			var err error
			if a, err = Open(arch, pack.Options{CacheBytes: 4 << 20}); err != nil {
				b.Fatal(err)
			}
		}
		t0, s0 := time.Now(), segmentReads.Load()
		f, err := find(a, v.TargetURI, v.Date)
		if err != nil {
			b.Fatal(err)
		}
		segs += segmentReads.Load() - s0
		if _, err := a.Restore(&f); err != nil {
			b.Fatal(err)
		}
		lat[i] = time.Since(t0)
	}
	slices.Sort(lat)
	return ms(lat[n/2]), ms(lat[n*99/100]), float64(segs) / float64(n)
}

// scaledFrame is BenchmarkScale's frame and chain bound of chunks with
// the bounds scaled: 4 MiB / 256.
const scaledFrame = 16 << 10

// alternateCold samples cold restores of the archives first and last
// in turn, rounds times each, and returns the median of each one's p99
// latencies: what load the machine is under then weighs on both alike.
func alternateCold(b *testing.B, first, last string, rounds int) (float64, float64) {
	var p [2][]float64
	for range rounds {
		for k, arch := range []string{first, last} {
			_, _, p99, _ := restoreSampleCold(b, arch, 200)
			p[k] = append(p[k], p99)
		}
	}
	for k := range p {
		slices.Sort(p[k])
	}
	return p[0][rounds/2], p[1][rounds/2]
}

// samePages is what samePagesCold measured: for the first tenth's
// archive [0] and the last one's [1], the captures sampled from, their
// cold restore p50 and p99 (ms; the median of the rounds), the p99 of
// the bytes a restore decodes and the median record (MB, KB).
type samePages struct {
	urls                   int
	n                      [2]int
	p50, p99, dec99, rec50 [2]float64
	amp                    [2]float64 // bytes decoded per byte restored, over the sample
}

// samePagesCold compares like with like: the responses captured in the
// first tenth (first, the archive then), restored there, against the
// latest responses of the same URLs in last, as many of each URL as the
// first tenth holds (a site's last crawls: the mixed collection's sites
// end at different dates), 200 of each drawn at random, cold (each in
// the archive opened anew), the two alternated rounds times. The plain
// first-against-last-tenth sample also compares the sites a tenth
// holds: the mixed collection's first tenth is one small site's early
// crawls, its last one every site, and a larger page decodes more
// bytes in any archive.
func samePagesCold(b *testing.B, first, last string, rounds int) samePages {
	urls, pop := samePagesOf(b, first, last)
	return coldPair(b, first, last, urls, pop, rounds)
}

// sameRecordsCold compares a record with itself: the responses captured
// in the first tenth restored in first (the archive then) and in last,
// where they are the same objects among every later crawl's, 200 of
// the same records drawn from each, cold, alternated rounds times. What
// grows here is what an archive's size adds to a restore (its opening,
// the directory and index lookups, caches shared with more), not the
// page: samePagesCold's later pages are larger.
func sameRecordsCold(b *testing.B, first, last string, rounds int) samePages {
	urls, pop := sameRecordsOf(b, first, last)
	return coldPair(b, first, last, urls, pop, rounds)
}

// sameRecordsOf returns sameRecordsCold's two populations, the same
// records in the same order, and the number of URLs they are of.
func sameRecordsOf(b testing.TB, first, last string) (int, [2][]Version) {
	var pop [2][]Version
	ids := map[string]bool{}
	urls := map[string]bool{}
	for k, arch := range []string{first, last} {
		a, vs := openVersions(b, arch)
		a.Close()
		for _, v := range vs {
			if v.Gap || v.TargetURI == "" || v.Type != "response" || v.RecordID == "" || (k == 1 && !ids[v.RecordID]) {
				continue
			}
			if k == 0 {
				ids[v.RecordID], urls[v.TargetURI] = true, true
			}
			pop[k] = append(pop[k], v)
		}
		slices.SortFunc(pop[k], func(x, y Version) int { return strings.Compare(x.RecordID, y.RecordID) })
	}
	if len(pop[0]) == 0 || len(pop[0]) != len(pop[1]) {
		b.Fatalf("the first tenth's %d responses are %d in the last archive", len(pop[0]), len(pop[1]))
	}
	return len(urls), pop
}

// coldPair restores pop[0] in first and pop[1] in last, 200 drawn at
// random from each (the same draw), cold, alternated rounds times.
func coldPair(b *testing.B, first, last string, urls int, pop [2][]Version, rounds int) samePages {
	sp := samePages{urls: urls}
	var p50s, p99s [2][]float64
	for range rounds {
		for k, arch := range []string{first, last} {
			lat, dec, rec := restoreDraw(b, arch, nil, pop[k], 200, rand.New(rand.NewPCG(5, 6)))
			var decSum, recSum int64
			for i := range dec {
				decSum, recSum = decSum+dec[i], recSum+rec[i]
			}
			slices.Sort(lat)
			slices.Sort(dec)
			slices.Sort(rec)
			p50s[k] = append(p50s[k], ms(lat[len(lat)/2]))
			p99s[k] = append(p99s[k], ms(lat[len(lat)*99/100]))
			sp.n[k], sp.dec99[k], sp.rec50[k] = len(pop[k]), float64(dec[len(dec)*99/100])/1e6, float64(rec[len(rec)/2])/1e3
			sp.amp[k] = float64(decSum) / float64(max(recSum, 1))
		}
	}
	for k := range 2 {
		slices.Sort(p50s[k])
		slices.Sort(p99s[k])
		sp.p50[k], sp.p99[k] = p50s[k][rounds/2], p99s[k][rounds/2]
	}
	return sp
}

// samePagesOf returns samePagesCold's two populations and the number of
// URLs they are of.
func samePagesOf(b testing.TB, first, last string) (int, [2][]Version) {
	pages := func(arch string) []Version {
		a, vs := openVersions(b, arch)
		a.Close()
		return slices.DeleteFunc(vs, func(v Version) bool {
			return v.Gap || v.TargetURI == "" || v.Type != "response"
		})
	}
	pop := [2][]Version{pages(first), nil}
	count := map[string]int{} // responses of each URL in the first tenth
	var end time.Time         // and the latest of them
	for _, v := range pop[0] {
		count[v.TargetURI]++
		if v.Date.After(end) {
			end = v.Date
		}
	}
	// Only what came after: a URL no longer crawled would compare its
	// first captures with themselves.
	byURL := map[string][]Version{}
	for _, v := range pages(last) {
		if count[v.TargetURI] > 0 && v.Date.After(end) {
			byURL[v.TargetURI] = append(byURL[v.TargetURI], v)
		}
	}
	for u, vs := range byURL {
		slices.SortStableFunc(vs, func(x, y Version) int { return x.Date.Compare(y.Date) })
		pop[1] = append(pop[1], vs[max(len(vs)-count[u], 0):]...)
	}
	// Map order: sorted again so that the draw is the same every run.
	slices.SortFunc(pop[1], func(x, y Version) int {
		return cmp.Or(strings.Compare(x.TargetURI, y.TargetURI), x.Date.Compare(y.Date))
	})
	if len(pop[0]) == 0 || len(pop[1]) == 0 {
		b.Fatalf("no response to compare: %d in the first tenth, %d of its URLs in the last archive", len(pop[0]), len(pop[1]))
	}
	return len(count), pop
}

// siteGrowth is a site's ingest CPU per GB of records in the first
// and the last tenth of its own crawls.
type siteGrowth struct {
	site        string
	first, last float64
}

// siteCPUGrowth compares each site with itself: the ingest CPU per GB
// of records of the first tenth of its crawls (at least one) against
// the last tenth, of the crawls ingested in this process (cpu[i] ≥ 0).
// The collection's first tenth is one site's early crawls and its last
// every site, whose pages cost more or less to partition and match per
// byte; so the collection's own x-growth-cpu-per-GB weighs the mix too.
func siteCPUGrowth(files []string, recBytes, cpu []int64) []siteGrowth {
	bySite := map[string][]int{}
	for i, f := range files {
		if cpu[i] < 0 {
			continue
		}
		site := filepath.Base(filepath.Dir(f))
		bySite[site] = append(bySite[site], i) // date order, as files
	}
	var out []siteGrowth
	for _, site := range slices.Sorted(maps.Keys(bySite)) {
		idx := bySite[site]
		k := max(len(idx)/10, 1)
		perGB := func(is []int) float64 {
			var c, n int64
			for _, i := range is {
				c, n = c+cpu[i], n+recBytes[i]
			}
			return float64(c) / 1e9 / (float64(n) / 1e9)
		}
		out = append(out, siteGrowth{site, perGB(idx[:k]), perGB(idx[len(idx)-k:])})
	}
	return out
}

func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// parityBytes is the bytes of an archive's parity sidecars (*.par): what
// `-parity=false` leaves out.
func parityBytes(b testing.TB, dir string) (n int64) {
	for name, data := range archiveFiles(b, dir) {
		if strings.HasSuffix(name, ".par") {
			n += int64(len(data))
		}
	}
	return n
}
