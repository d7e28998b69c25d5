package parity

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func writeFile(t *testing.T, dir, name string, b []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSidecarName(t *testing.T) {
	for _, c := range []struct {
		name string
		off  int64
	}{{"00000001.idx", 0}, {"00000001.pack", 0}, {"00000001.pack", 123456}} {
		n, o, ok := ParseSidecarName(SidecarName(c.name, c.off))
		if !ok || n != c.name || o != c.off {
			t.Errorf("%s %d: got %s %d %v", c.name, c.off, n, o, ok)
		}
	}
	if _, _, ok := ParseSidecarName("COMMIT"); ok {
		t.Error("COMMIT parsed as a sidecar")
	}
}

// TestCorrects damages ranges of many sizes in every kind of way (one
// byte, one 4 KiB run anywhere, a truncation, one aligned sector) and
// checks that reads through the sidecar return the original bytes or
// fail, never wrong bytes, and that the single faults the design covers
// are corrected.
func TestCorrects(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	for trial := 0; trial < 80; trial++ {
		// trial%5 picks the fault and trial%8 the size: every fault meets
		// every size.
		size := []int{1, 100, 4095, 4096, 4097, 9000, 50000, 300000}[trial%8] + rng.IntN(100)
		off := int64(0)
		if trial%3 == 1 {
			off = int64(rng.IntN(5000))
		}
		orig := randBytes(rng, int(off)+size)
		name := "f"
		writeFile(t, dir, name, orig)
		scName, _, err := Protect(dir, name, off, int64(len(orig)), true)
		if err != nil {
			t.Fatal(err)
		}
		bad := bytes.Clone(orig)
		mode := trial % 5
		at := off + int64(rng.IntN(size))
		switch mode {
		case 0: // one flipped byte
			bad[at] ^= byte(1 + rng.IntN(255))
		case 1: // one 4 KiB run of garbage, anywhere
			for i := at; i < at+SectorSize && i < int64(len(bad)); i++ {
				bad[i] = byte(rng.Uint32())
			}
		case 2: // truncation inside the range
			bad = bad[:at]
		case 3: // one aligned 4 KiB sector zeroed
			s := at / SectorSize * SectorSize
			for i := s; i < s+SectorSize && i < int64(len(bad)); i++ {
				bad[i] = 0
			}
		case 4: // everything from at on garbage: more than parity holds
			for i := at; i < int64(len(bad)); i++ {
				bad[i] = byte(rng.Uint32())
			}
		}
		writeFile(t, dir, name, bad)
		sc, err := Open(filepath.Join(dir, scName))
		if err != nil {
			t.Fatal(err)
		}
		f, _ := os.Open(filepath.Join(dir, name))
		got, _, err := sc.ReadAt(f, off, int64(len(orig)))
		f.Close()
		// A 4 KiB run touches at most two sectors and every stripe has two
		// parity shards; a truncation or a garbage tail is corrected when
		// it cuts no more sectors than the burst the range is built for.
		cut := sc.g.n - sc.g.sectorOf(at)
		corrects := mode <= 1 || mode == 3 || cut <= correctableRun(sc)
		if err != nil {
			if corrects {
				t.Fatalf("trial %d (mode %d, size %d, off %d, at %d): %v", trial, mode, size, off, at, err)
			}
			if !errors.Is(err, ErrUncorrectable) {
				t.Fatalf("trial %d: %v", trial, err)
			}
			continue
		}
		if !bytes.Equal(got, orig[off:]) {
			t.Fatalf("trial %d (mode %d): wrong bytes returned", trial, mode)
		}
		if _, err := sc.Fix(dir, true); err != nil {
			t.Fatal(err)
		}
		fixed, _ := os.ReadFile(filepath.Join(dir, name))
		if !bytes.Equal(fixed[off:], orig[off:]) {
			t.Fatalf("trial %d: Fix did not restore the file", trial)
		}
	}
}

// correctableRun is the longest run of adjacent damaged sectors sc
// corrects: s·m, m sectors in each of its s interleaved stripes.
func correctableRun(sc *Sidecar) int { return sc.s * sc.m }

func randBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// damageCase is a protected range [off, off+l) of a file of off+l bytes.
type damageCase struct {
	off, l int64
}

var damageCases = []damageCase{
	{0, 2 * SectorSize}, {0, 10000}, {0, 50000}, {0, 192 << 10}, {0, 300000},
	{0, 1 << 20}, {0, 1<<20 + 777}, {3000, 3 << 20}, {0, 40 << 20},
	// Ranges after others in a growing file: built for the burst of the
	// whole file, even when that is longer than the range.
	{5 << 20, 300 << 10}, {40 << 20, 3000}, {33 << 20, 2 << 20},
}

// protectCase writes a file of c.off+c.l bytes (sparse before the range)
// and protects the range.
func protectCase(t *testing.T, dir string, rng *rand.Rand, c damageCase) ([]byte, *Sidecar) {
	t.Helper()
	data := randBytes(rng, int(c.l))
	f, err := os.Create(filepath.Join(dir, "f"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(data, c.off); err != nil {
		t.Fatal(err)
	}
	f.Close()
	scName, _, err := Protect(dir, "f", c.off, c.off+c.l, true)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := Open(filepath.Join(dir, scName))
	if err != nil {
		t.Fatal(err)
	}
	return data, sc
}

// readBack damages the range with hurt, reads it through sc and requires
// the original bytes.
func readBack(t *testing.T, dir string, sc *Sidecar, data []byte, what string, hurt func(f *os.File)) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, "f"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hurt(f)
	got, rep, err := sc.ReadAt(f, sc.Off, sc.Off+sc.Len)
	if err != nil {
		t.Fatalf("range [%d,+%d) (%d stripes of %d+%d): %s: %v", sc.Off, sc.Len, sc.s, sc.k, sc.m, what, err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("range [%d,+%d): %s: wrong bytes returned", sc.Off, sc.Len, what)
	}
	if rep.Corrected == 0 {
		t.Fatalf("range [%d,+%d): %s: no damage seen", sc.Off, sc.Len, what)
	}
	if _, err := f.WriteAt(data, sc.Off); err != nil {
		t.Fatal(err)
	}
}

func garbage(f *os.File, rng *rand.Rand, at, n int64) {
	f.WriteAt(randBytes(rng, int(n)), at)
}

// TestBurst: a run of Burst(file size) damaged bytes (1/32 of the file,
// up to 1 MiB), at any alignment anywhere in a range, is corrected; so is
// a range wiped whole when the file's burst is longer than the range.
// Stripes laid out contiguously instead of interleaved fail here.
func TestBurst(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	dir := t.TempDir()
	for _, c := range damageCases {
		data, sc := protectCase(t, dir, rng, c)
		burst := min(Burst(c.off+c.l), c.l)
		if burst < min(c.l, (c.off+c.l)*3/100, 1<<20) {
			t.Fatalf("range [%d,+%d): built for a burst of %d B, less than 3 %% of the file", c.off, c.l, burst)
		}
		for trial := 0; trial < 12; trial++ {
			at := c.off + rng.Int64N(c.l-burst+1)
			switch trial {
			case 0:
				at = c.off // the first sectors
			case 1:
				at = c.off + c.l - burst // the last
			}
			readBack(t, dir, sc, data, fmt.Sprintf("burst of %d B at %d", burst, at), func(f *os.File) {
				garbage(f, rng, at, burst)
			})
		}
	}
}

// TestTwoSectors: any two damaged 4 KiB disk sectors of a range are
// corrected, two of one stripe included. One parity shard a stripe
// fails here, and so do too few stripes for a smaller unit (a disk
// sector then puts more than one of its sectors in a stripe).
func TestTwoSectors(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	units := map[int64]int{}
	defer func() {
		if len(units) < 2 {
			t.Errorf("sector units met: %v; want 4 KiB and a smaller one", units)
		}
	}()
	for _, c := range damageCases {
		data, sc := protectCase(t, dir, rng, c)
		if sc.n < 2 {
			continue
		}
		units[sc.g.unit]++
		for trial := 0; trial < 12; trial++ {
			i := rng.IntN(sc.n)
			j := rng.IntN(sc.n)
			if trial%2 == 0 && sc.s < sc.n {
				// Two sectors of one stripe.
				i = rng.IntN(sc.n - sc.s)
				j = i + sc.s*(1+rng.IntN((sc.n-1-i)/sc.s))
			}
			if i == j {
				j = (i + 1) % sc.n
			}
			// The 4 KiB disk sectors holding them: several sectors of a
			// sidecar with a smaller unit (version 3).
			readBack(t, dir, sc, data, fmt.Sprintf("the disk sectors of sectors %d and %d (unit %d)", i, j, sc.g.unit), func(f *os.File) {
				for _, x := range []int{i, j} {
					s, _ := sc.g.span(x)
					d := s - s%SectorSize
					from, to := max(d, sc.Off), min(d+SectorSize, sc.Off+sc.Len)
					garbage(f, rng, from, to-from)
				}
			})
		}
	}
}

// TestPlan: every shape the writer picks corrects two sectors and the
// burst of its file, fits GF(2^8), and costs about 1/32 of a large range.
func TestPlan(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 8, 47, 48, 49, 100, 255, 256, 257, 1000, 8192, 8193, 100000, 1 << 18} {
		for _, end := range []int64{int64(n) * SectorSize, 64 << 20, 1 << 30} {
			if end < int64(n)*SectorSize {
				continue
			}
			for unit := int64(SectorSize); unit >= minUnit; unit /= 2 {
				s, k, m := plan(n, end, unit)
				b := min(max(int((Burst(end)+unit-1)/unit)+1, 2), n)
				q := int(SectorSize / unit)
				if s == n && k == 1 && m == 1 {
					continue // a copy: corrects anything
				}
				// Two damaged disk sectors: q adjacent sectors each.
				if k != (n+s-1)/s || k+m > maxShards || s*m < b || n > 1 && m < 2 || s > n || 2*((q+s-1)/s) > m {
					t.Errorf("unit %d n %d end %d: %d stripes of %d+%d, burst %d sectors", unit, n, end, s, k, m, b)
				}
				if unit == SectorSize && n >= 1024 && end == int64(n)*SectorSize && float64(s*m) > float64(n)/BurstDivisor+3 {
					t.Errorf("n %d: %d parity sectors, more than 1/%d", n, s*m, BurstDivisor)
				}
			}
		}
	}
}

// TestDamagedSidecar: one damaged copy of the sidecar's checksums leaves
// the other.
func TestDamagedSidecar(t *testing.T) {
	dir := t.TempDir()
	orig := bytes.Repeat([]byte("blockwarc parity "), 2000)
	writeFile(t, dir, "x", orig)
	scName, _, err := Protect(dir, "x", 0, int64(len(orig)), true)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, scName)
	whole, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := OpenMeta(p)
	if err != nil || !slices.Equal(meta.crcs, whole.crcs) || meta.g != whole.g || meta.parOff != whole.parOff {
		t.Fatalf("OpenMeta %+v %v differs from Open %+v", meta, err, whole)
	}
	sb, _ := os.ReadFile(p)
	for _, at := range []int{0, 10, 60, len(sb) - 1, len(sb) - 60} {
		b := bytes.Clone(sb)
		b[at] ^= 0x40
		os.WriteFile(p, b, 0o644)
		for _, open := range []func(string) (*Sidecar, error){Open, OpenMeta} {
			sc, err := open(p)
			if err != nil || !slices.Equal(sc.crcs, whole.crcs) {
				t.Errorf("byte %d of %d flipped: %v", at, len(sb), err)
			}
		}
	}
}

// TestReadVersion1: a sidecar written by blockwarc before version 2 (one
// parity shard per stripe of up to 48 sectors; testdata/v1-*, over bytes
// this test regenerates) still checks and corrects what it can: one
// damaged sector per stripe.
func TestReadVersion1(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	orig := randBytes(rng, 1000+250000)
	dir := t.TempDir()
	writeFile(t, dir, "f", orig)
	sb, err := os.ReadFile("testdata/v1-f.00000000000003e8.par")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "f.00000000000003e8.par", sb)
	sc, err := Open(filepath.Join(dir, "f.00000000000003e8.par"))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Off != 1000 || sc.Len != 250000 || sc.s != 2 || sc.m != 1 {
		t.Fatalf("version 1 sidecar read as [%d,+%d), %d stripes of %d+%d", sc.Off, sc.Len, sc.s, sc.k, sc.m)
	}
	if meta, err := OpenMeta(sc.Path); err != nil || meta.s != sc.s || meta.k != sc.k {
		t.Fatalf("OpenMeta: %v", err)
	}
	data := orig[1000:]
	// Two adjacent sectors: one in each stripe.
	readBack(t, dir, sc, data, "two adjacent sectors", func(f *os.File) {
		garbage(f, rng, 5000, 6000)
	})
	// Two sectors of one stripe: beyond version 1, refused, never wrong.
	f, _ := os.OpenFile(filepath.Join(dir, "f"), os.O_RDWR, 0)
	defer f.Close()
	garbage(f, rng, 8192, 10)
	garbage(f, rng, 8192+2*SectorSize, 10)
	if _, _, err := sc.ReadAt(f, sc.Off, sc.Off+sc.Len); !errors.Is(err, ErrUncorrectable) {
		t.Fatalf("two sectors of one version 1 stripe: %v", err)
	}
}
