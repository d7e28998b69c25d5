package parity

import (
	"bytes"
	"errors"
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

// TestCorrects damages every kind of place (one byte, one sector, two
// adjacent sectors, truncation) of ranges of many sizes and checks that
// reads through the sidecar return the original bytes or fail, never
// wrong bytes, and that the single faults the design covers are corrected.
func TestCorrects(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	for trial := 0; trial < 60; trial++ {
		size := []int{1, 100, 4095, 4096, 4097, 9000, 50000, 300000}[trial%8] + rng.IntN(100)
		off := int64(0)
		if trial%3 == 1 {
			off = int64(rng.IntN(5000))
		}
		orig := make([]byte, off+int64(size))
		for i := range orig {
			orig[i] = byte(rng.Uint32())
		}
		name := "f"
		writeFile(t, dir, name, orig)
		scName, scSize, err := Protect(dir, name, off, int64(len(orig)), true)
		if err != nil {
			t.Fatal(err)
		}
		_ = scSize
		bad := bytes.Clone(orig)
		mode := trial % 4
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
		}
		writeFile(t, dir, name, bad)
		sc, err := Open(filepath.Join(dir, scName))
		if err != nil {
			t.Fatal(err)
		}
		f, _ := os.Open(filepath.Join(dir, name))
		got, _, err := sc.ReadAt(f, off, int64(len(orig)))
		f.Close()
		// A truncation cuts the sector it falls in and all after it: one
		// fault only within the last sector. An unaligned 4 KiB run can
		// touch two adjacent sectors, which interleaving puts in different
		// stripes once the range has more than one stripe.
		corrects := mode == 0 || mode == 3 ||
			mode == 2 && sc.g.sectorOf(at) == sc.g.n-1 ||
			mode == 1 && (sc.Sectors() > DataShards || sc.g.sectorOf(at) == sc.g.sectorOf(min(at+SectorSize, int64(len(bad)))-1))
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
