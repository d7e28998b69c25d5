package dedupe

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"

	"github.com/blockwarc/blockwarc/warcio"
)

// sortedCompressed returns the size of `zstd -19 --long=27` over every
// record of inputs, sorted by URL and time (warcio.Walk's order): the
// strongest general-purpose figure, without random access; with xz set,
// also that of `xz -9e` of the same (0 when the xz command is missing).
func sortedCompressed(b *testing.B, inputs []string, xz bool) (zstdBytes, xzBytes, rawBytes int64) {
	b.Helper()
	zstdPath, err := exec.LookPath("zstd")
	if err != nil {
		b.Skipf("zstd command not found (Debian package zstd): %v", err)
	}
	raw := filepath.Join(b.TempDir(), "sorted.warc")
	f, err := os.Create(raw)
	if err != nil {
		b.Fatal(err)
	}
	_, err = warcio.Walk(context.Background(), inputs, warcio.WalkOptions{}, func(c *warcio.Capture) error {
		if _, err := f.Write(c.RawHeader); err != nil {
			return err
		}
		n, err := io.Copy(f, c.Body)
		if err != nil {
			return err
		}
		rawBytes += int64(len(c.RawHeader)) + n + int64(len(c.Trailer))
		_, err = f.Write(c.Trailer)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	f.Close()
	var out bytes.Buffer
	cmd := exec.Command(zstdPath, "-19", "--long=27", "-q", "-c", raw)
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		b.Fatalf("zstd: %v", err)
	}
	zstdBytes = int64(out.Len())
	if xzPath, err := exec.LookPath("xz"); xz && err == nil {
		var cw countWriter
		cmd := exec.Command(xzPath, "-9e", "-T1", "-q", "-c", raw)
		cmd.Stdout = &cw
		if err := cmd.Run(); err != nil {
			b.Fatalf("xz: %v", err)
		}
		xzBytes = cw.n
	}
	return zstdBytes, xzBytes, rawBytes
}

// corpusSites are the sites of ../shared/corpus the benchmarks measure.
var corpusSites = []string{"mkdocs-org", "ota-mektoube", "ota-tinder", "ota-lovescout24"}

// BenchmarkArchiveSize ingests a corpus site and reports the archive size
// as a ratio to four baselines built in the same run: the archive at the
// fixed partition level 1 (x-level1), sorted zstd (x-zstd-sorted: `zstd
// -19 --long=27` of the records in walk order), `xz -9e` of the same
// (x-xz-sorted, when the xz command is there), the input .warc.gz
// (x-input), and the
// input as a per-record-gzip WARC with identical payloads turned into
// revisit records (x-revisit-warc, writeRevisitWARC). It also reports the
// archive's bytes by category (pack.Stats): *-B metrics, which sum to the
// pack, catalog and index files. warc-hdr-B and http-hdr-B are the
// header anchor objects plus the catalog's share of the header encodings
// held inline in versions (catalog bytes apportioned by plaintext);
// catalog-B is the rest of the catalog and the commit payload.
func BenchmarkArchiveSize(b *testing.B) {
	for _, site := range corpusSites {
		b.Run(site, func(b *testing.B) {
			in := sharedtest.Dir(b, "corpus", site)
			inputs, err := expandInputs([]string{in})
			if err != nil {
				b.Fatal(err)
			}
			var inputBytes int64
			for _, p := range inputs {
				fi, err := os.Stat(p)
				if err != nil {
					b.Fatal(err)
				}
				inputBytes += fi.Size()
			}
			zs, xzs, raw := sortedCompressed(b, inputs, true)
			var rw countWriter
			if _, err := writeRevisitWARC(&rw, inputs); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(raw)
			b.ReportAllocs()
			b.ResetTimer()
			var size int64
			var ps pack.Stats
			var hdrs headerShare
			for range b.N {
				arch := filepath.Join(b.TempDir(), "a.bwa")
				if _, err := Ingest(context.Background(), arch, []string{in}, Options{}); err != nil {
					b.Fatal(err)
				}
				size = archiveBytes(b, arch)
				b.StopTimer()
				ps = storeStats(b, arch)
				hdrs = catalogHeaders(b, arch)
				b.StartTimer()
			}
			// The default (adaptive) partition against the coarsest fixed
			// level, which ingest used before it: what single-region
			// blocks cost.
			arch1 := filepath.Join(b.TempDir(), "level1.bwa")
			b.StopTimer()
			if _, err := Ingest(context.Background(), arch1, []string{in}, Options{Level: 1}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			b.ReportMetric(float64(size)/float64(archiveBytes(b, arch1)), "x-level1")
			b.ReportMetric(float64(size)/float64(zs), "x-zstd-sorted")
			if xzs > 0 {
				b.ReportMetric(float64(size)/float64(xzs), "x-xz-sorted")
			}
			b.ReportMetric(float64(size)/float64(inputBytes), "x-input")
			b.ReportMetric(float64(size)/float64(rw.n), "x-revisit-warc")
			b.ReportMetric(float64(size), "archive-B")
			k := &ps.Kinds
			var kinds int64
			for _, ks := range k {
				kinds += ks.Stored
			}
			// Headers are mostly encodings inline in the catalog: their
			// share of it, apportioned by plaintext like frames' objects.
			cat := k[pack.KindVersionCatalog]
			var warcInCat, httpInCat int64
			if cat.Plain > 0 {
				warcInCat = cat.Stored * hdrs.warc / cat.Plain
				httpInCat = cat.Stored * hdrs.http / cat.Plain
			}
			for _, m := range []struct {
				unit string
				n    int64
			}{
				{"warc-hdr-B", k[pack.KindWARCHeader].Stored + warcInCat},
				{"http-hdr-B", k[pack.KindHTTPHeader].Stored + httpInCat},
				{"layout-B", k[pack.KindLayout].Stored},
				{"block-B", k[pack.KindBlock].Stored - k[pack.KindBlock].DeltaStored},
				{"block-delta-B", k[pack.KindBlock].DeltaStored},
				{"payload-B", k[pack.KindPayload].Stored},
				{"record-B", k[pack.KindRecord].Stored + k[pack.KindOther].Stored},
				{"catalog-B", cat.Stored - warcInCat - httpInCat + ps.CommitBytes},
				{"index-B", ps.IndexBytes},
				{"frame-hdr-B", ps.PackBytes - kinds},
			} {
				b.ReportMetric(float64(m.n), m.unit)
			}
		})
	}
}

// headerShare is the plaintext of the header encodings held inline in
// an archive's catalog.
type headerShare struct{ warc, http int64 }

func catalogHeaders(tb testing.TB, dir string) headerShare {
	tb.Helper()
	a, err := Open(dir, pack.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer a.Close()
	var h headerShare
	err = a.Walk(func(u URLVersions) error {
		for i := range u.Versions {
			h.warc += int64(len(u.Versions[i].WARCHeader))
			h.http += int64(len(u.Versions[i].HTTPHeader))
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

// storeStats returns the storage account of the archive in dir.
func storeStats(tb testing.TB, dir string) pack.Stats {
	tb.Helper()
	a, err := Open(dir, pack.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer a.Close()
	st, err := a.StoreStats() // with the objects named by place
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// BenchmarkRestore measures Versions + Restore of random captures of each
// corpus site with a 4 MiB frame cache (about one decoded frame, far less
// than the archive), reporting p50/p99 latency, and as baseline the time to
// open and start reading the same records in the input .warc.gz.
func BenchmarkRestore(b *testing.B) {
	for _, site := range corpusSites {
		b.Run(site, func(b *testing.B) { benchRestore(b, site) })
	}
}

func benchRestore(b *testing.B, site string) {
	in := sharedtest.Dir(b, "corpus", site)
	arch := filepath.Join(b.TempDir(), "a.bwa")
	if _, err := Ingest(context.Background(), arch, []string{in}, Options{}); err != nil {
		b.Fatal(err)
	}
	a, vs := openVersions(b, arch)
	defer a.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	pick := make([]int, 512)
	for i := range pick {
		pick[i] = rng.IntN(len(vs))
	}
	var base time.Duration
	for _, i := range pick {
		v := &vs[i]
		t0 := time.Now()
		if _, err := original(v.File, v.Offset, v.Skip, 1); err != nil {
			b.Fatal(err)
		}
		base += time.Since(t0)
	}
	base /= time.Duration(len(pick))
	lat := make([]time.Duration, 0, b.N)
	dec := make([]int64, 0, b.N)
	var bytesOut int64
	b.ReportAllocs()
	b.ResetTimer()
	// A p99 needs samples whatever -benchtime says (make bench runs 1x).
	runs := max(b.N, 2000)
	for n := range runs {
		v := vs[pick[n%len(pick)]]
		t0, d0 := time.Now(), a.Store().DecodedBytes()
		got, err := a.Versions(keyOf(&v))
		if err != nil || len(got) == 0 {
			b.Fatalf("versions: %v", err)
		}
		p, err := a.Restore(&v)
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
		dec = append(dec, a.Store().DecodedBytes()-d0)
		bytesOut += int64(len(p.WARCHeader) + len(p.Block))
	}
	b.StopTimer()
	slices.Sort(lat)
	slices.Sort(dec)
	b.SetBytes(bytesOut / int64(b.N)) // all restores run, so MB/s is right
	var total time.Duration
	for _, d := range lat {
		total += d
	}
	b.ReportMetric(float64(total)/float64(runs), "ns/op") // per restore, not per b.N
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(lat[len(lat)/2])/float64(base), "x-gzip-read")
	// Decoded bytes per restore do not depend on the machine's load.
	b.ReportMetric(float64(dec[len(dec)/2])/1e6, "decoded-MB-p50")
	b.ReportMetric(float64(dec[len(dec)*99/100])/1e6, "decoded-MB-p99")
}

// openVersions opens arch with a 4 MiB cache of decoded frames (about
// one frame: far less than the archive) and lists its versions.
func openVersions(b testing.TB, arch string) (*Archive, []Version) {
	a, err := Open(arch, pack.Options{CacheBytes: 4 << 20})
	if err != nil {
		b.Fatal(err)
	}
	var vs []Version
	if err := a.Walk(func(u URLVersions) error { vs = append(vs, u.Versions...); return nil }); err != nil {
		a.Close()
		b.Fatal(err)
	}
	return a, vs
}

func keyOf(v *Version) string { return warcio.SURT(v.TargetURI) }
