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

	"blockwarc/dedupe/pack"

	"blockwarc/warcio"
)

// sortedZstd returns the size of `zstd -19 --long=27` over every record of
// inputs, sorted by URL and time (warcio.Walk's order): the strongest
// general-purpose figure, without random access.
func sortedZstd(b *testing.B, inputs []string) (zstdBytes, rawBytes int64) {
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
	return int64(out.Len()), rawBytes
}

// BenchmarkArchiveSize ingests a corpus site and reports the archive size
// as a ratio to sorted zstd (x-zstd-sorted, target ≤ 1.25) and to the
// input .warc.gz (x-input).
func BenchmarkArchiveSize(b *testing.B) {
	for _, site := range []string{"mkdocs-org", "ota-mektoube", "ota-tinder", "ota-lovescout24"} {
		b.Run(site, func(b *testing.B) {
			in := filepath.Join(sharedDir(b), "corpus", site)
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
			zs, raw := sortedZstd(b, inputs)
			b.SetBytes(raw)
			b.ReportAllocs()
			b.ResetTimer()
			var size int64
			for range b.N {
				arch := filepath.Join(b.TempDir(), "a.bwa")
				if _, err := Ingest(context.Background(), arch, []string{in}, Options{}); err != nil {
					b.Fatal(err)
				}
				size = archiveBytes(b, arch)
			}
			b.ReportMetric(float64(size)/float64(zs), "x-zstd-sorted")
			b.ReportMetric(float64(size)/float64(inputBytes), "x-input")
			b.ReportMetric(float64(size), "archive-bytes")
		})
	}
}

// BenchmarkRestore measures Versions + Restore of random captures of a
// corpus site with a 4 MiB frame cache (about one decoded frame, far less
// than the archive), reporting p50/p99 latency, and as baseline the time to
// open and start reading the same records in the input .warc.gz.
func BenchmarkRestore(b *testing.B) {
	in := filepath.Join(sharedDir(b), "corpus", "mkdocs-org")
	arch := filepath.Join(b.TempDir(), "a.bwa")
	if _, err := Ingest(context.Background(), arch, []string{in}, Options{}); err != nil {
		b.Fatal(err)
	}
	a, err := Open(arch, pack.Options{CacheBytes: 4 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	var vs []Version
	if err := a.Walk(func(u URLVersions) error { vs = append(vs, u.Versions...); return nil }); err != nil {
		b.Fatal(err)
	}
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
	var bytesOut int64
	b.ReportAllocs()
	b.ResetTimer()
	for n := range b.N {
		v := vs[pick[n%len(pick)]]
		t0 := time.Now()
		got, err := a.Versions(keyOf(&v))
		if err != nil || len(got) == 0 {
			b.Fatalf("versions: %v", err)
		}
		p, err := a.Restore(&v)
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
		bytesOut += int64(len(p.WARCHeader) + len(p.Block))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.SetBytes(bytesOut / int64(b.N))
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(lat[len(lat)/2])/float64(base), "x-gzip-read")
}

func keyOf(v *Version) string { return warcio.SURT(v.TargetURI) }

// BenchmarkIngestWorkers reports ingest throughput with 2 workers as a
// ratio to 1 worker (x-1worker; the bar is ≥ 1.6 on 2 cores).
func BenchmarkIngestWorkers(b *testing.B) {
	in := filepath.Join(sharedDir(b), "corpus", "mkdocs-org")
	run := func(workers int) time.Duration {
		t0 := time.Now()
		arch := filepath.Join(b.TempDir(), "a.bwa")
		if _, err := Ingest(context.Background(), arch, []string{in}, Options{Workers: workers, Pack: pack.Options{Workers: workers}}); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	st, err := os.Stat(in)
	if err != nil || !st.IsDir() {
		b.Fatalf("corpus site %s: %v", in, err)
	}
	one := run(1)
	b.ReportAllocs()
	b.ResetTimer()
	var two time.Duration
	for range b.N {
		two += run(2)
	}
	b.ReportMetric(float64(one)/float64(two/time.Duration(b.N)), "x-1worker")
}
