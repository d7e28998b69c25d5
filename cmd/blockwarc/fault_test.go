package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// captureKey names a capture the way a user finds it again.
type captureKey struct {
	file      string
	off, skip int64
}

// restoreAll restores every capture of the archive in dir; it returns
// the records that restored and the error of the walk (a damaged catalog
// stops it).
func restoreAll(t *testing.T, dir string) (map[captureKey][]byte, map[captureKey]error, error) {
	t.Helper()
	a, err := dedupe.Open(dir, pack.Options{})
	if err != nil {
		return nil, nil, err
	}
	defer a.Close()
	got := make(map[captureKey][]byte)
	bad := make(map[captureKey]error)
	err = a.Walk(func(u dedupe.URLVersions) error {
		for i := range u.Versions {
			v := &u.Versions[i]
			k := captureKey{v.File, v.Offset, v.Skip}
			p, err := a.Restore(v)
			if err != nil {
				bad[k] = err
				continue
			}
			got[k] = bytes.Clone(p.Record())
		}
		return nil
	})
	return got, bad, err
}

// damage applies one fault to file path: 0 flips a byte, 1 overwrites
// the aligned 4 KiB sector holding a random offset with garbage, 2
// truncates at a random offset. It returns a description.
func damage(t *testing.T, rng *rand.Rand, path string, kind int) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 {
		return "empty"
	}
	at := rng.IntN(len(b))
	switch kind {
	case 0:
		b[at] ^= byte(1 + rng.IntN(255))
	case 1:
		s := at / 4096 * 4096
		for i := s; i < min(s+4096, len(b)); i++ {
			b[i] = byte(rng.Uint32())
		}
		if s+4096 <= len(b) {
			// garbage could by chance equal the data; make sure it does not
			b[s] ^= 0xff
		}
	case 2:
		b = b[:at]
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s %s at %d of %d", []string{"flip", "sector", "truncation"}[kind], filepath.Base(path), at, len(b))
}

// TestFaultInjection damages the files of small archives, one fault per
// trial (a flipped byte, a damaged 4 KiB sector, a truncation, at seeded
// random places of every file kind), and checks the promises:
// no restore ever returns wrong bytes; with parity, every capture
// restores after a flip or a damaged sector in any file and repair
// leaves an archive that verifies; without parity, after repair every
// capture either restores or is named lost by URL, file and offset.
func TestFaultInjection(t *testing.T) {
	samples := filepath.Join("..", "..", "testdata", "samples")
	root := t.TempDir()
	inputs, err := filepath.Glob(filepath.Join(samples, "*.warc.gz"))
	if err != nil || len(inputs) < 10 {
		t.Fatalf("samples: %v %v", inputs, err)
	}
	inputs = inputs[:5] // keeps the test within seconds
	build := func(name string, extra ...string) string {
		dir := filepath.Join(root, name)
		args := append([]string{"ingest", "-tables=false", "-commit", "200KiB"}, extra...)
		args = append(append(args, dir), inputs...)
		if code, _, stderr := runCmd(t, args...); code != exitOK {
			t.Fatalf("ingest exit %d: %s", code, stderr)
		}
		return dir
	}
	withPar, noPar := build("par.bwa"), build("nopar.bwa", "-parity=false")
	truth, bad, err := restoreAll(t, withPar)
	if err != nil || len(bad) > 0 || len(truth) < 30 {
		t.Fatalf("pristine archive: %d captures, %d bad, %v", len(truth), len(bad), err)
	}
	files := func(dir string) []string {
		ents, _ := os.ReadDir(dir)
		var out []string
		for _, e := range ents {
			if e.Name() != "LOCK" {
				out = append(out, e.Name())
			}
		}
		sort.Strings(out)
		return out
	}
	kinds := map[string]bool{}
	for _, f := range files(withPar) {
		kinds[fileKind(f)] = true
	}
	for _, k := range []string{"pack", "idx", "par", "COMMIT"} {
		if !kinds[k] {
			t.Fatalf("archive has no %s file: %v", k, files(withPar))
		}
	}
	rng := rand.New(rand.NewPCG(15, 2026))
	check := func(trial int, what string, got map[captureKey][]byte) {
		for k, b := range got {
			if want, ok := truth[k]; !ok || !bytes.Equal(b, want) {
				t.Fatalf("trial %d (%s): capture %v restored wrong bytes", trial, what, k)
			}
		}
	}
	const trials = 120
	reingested, catalogLost := 0, 0 // outcomes of repair with the originals
	for trial := 0; trial < trials; trial++ {
		parity := trial%3 != 2
		src := withPar
		if !parity {
			src = noPar
		}
		names := files(src)
		kind := trial % 3
		if parity {
			kind = []int{0, 1, 2, 0, 1, 0, 1, 2}[trial%8]
		}
		dir := filepath.Join(root, fmt.Sprintf("t%d.bwa", trial))
		sharedtest.CopyDir(t, src, dir)
		what := damage(t, rng, filepath.Join(dir, names[rng.IntN(len(names))]), kind)
		got, bad, werr := restoreAll(t, dir)
		check(trial, what, got)
		if parity && kind != 2 && (werr != nil || len(bad) > 0 || len(got) != len(truth)) {
			t.Fatalf("trial %d (%s): with parity, %d of %d captures restore (%d failed, walk: %v): %v", trial, what, len(got), len(truth), len(bad), werr, bad)
		}
		code, out, stderr := runCmd(t, "repair", dir)
		after, bad, werr := restoreAll(t, dir)
		check(trial, what+", after repair", after)
		if parity && kind != 2 {
			if code != exitOK || werr != nil || len(after) != len(truth) {
				t.Fatalf("trial %d (%s): repair exit %d, %d of %d captures restore after it (%v): %s %s", trial, what, code, len(after), len(truth), werr, out, stderr)
			}
			// repair verified it already; verify on its own, now and then.
			if trial%5 != 0 {
				// skip
			} else if code, out, stderr := runCmd(t, "verify", dir); code != exitOK {
				t.Fatalf("trial %d (%s): verify after repair exit %d: %s %s", trial, what, code, out, stderr)
			}
		}
		// Whatever the fault: every capture either restores or is named
		// lost, by input file and offset.
		if werr == nil && code != exitOK {
			for k := range bad {
				if !strings.Contains(stderr, fmt.Sprintf("from %s at offset %d", k.file, k.off)) {
					t.Fatalf("trial %d (%s): capture %v does not restore and repair does not name it:\n%s", trial, what, k, stderr)
				}
			}
		}
		// Repair never loses what read before it.
		if werr == nil {
			for k := range got {
				if _, ok := after[k]; !ok {
					t.Fatalf("trial %d (%s): capture %v restored before repair, not after", trial, what, k)
				}
			}
		}
		if code == exitOK && len(after) != len(truth) {
			t.Fatalf("trial %d (%s): repair exit 0 with %d of %d captures restoring", trial, what, len(after), len(truth))
		}
		// With the original inputs, repair re-ingests what was lost: the
		// archive verifies with every capture, unless a catalog segment
		// was lost (named: nothing names its captures any more).
		if code != exitOK {
			code, out, stderr := runCmd(t, append([]string{"repair", dir}, inputs...)...)
			after, _, _ := restoreAll(t, dir)
			check(trial, what+", after repair with the originals", after)
			switch {
			case code == exitOK && len(after) == len(truth):
				reingested++
			case strings.Contains(stderr, "lost: catalog segment"):
				catalogLost++
			default:
				t.Fatalf("trial %d (%s): repair with the originals: exit %d, %d of %d captures restore:\n%s\n%s", trial, what, code, len(after), len(truth), out, stderr)
			}
		}
		os.RemoveAll(dir)
	}
	// The trials without parity truncate: a pack loses its end, where
	// the last catalog segments are.
	t.Logf("repair with the originals: every capture restored in %d trials, a catalog segment lost in %d", reingested, catalogLost)
}

func fileKind(name string) string {
	switch {
	case strings.HasSuffix(name, ".par"):
		return "par"
	case strings.HasPrefix(name, "COMMIT"):
		return "COMMIT"
	case strings.HasSuffix(name, ".pack"):
		return "pack"
	case strings.HasSuffix(name, ".idx"):
		return "idx"
	}
	return name
}

// TestParityCLI: a flipped pack byte is corrected on read and said so
// (cat warns, verify names it "corrected by parity" and fails), repair
// rewrites it, and verify is clean again.
func TestParityCLI(t *testing.T) {
	samples := filepath.Join("..", "..", "testdata", "samples")
	bwa := filepath.Join(t.TempDir(), "a.bwa")
	in := filepath.Join(samples, "ota-lovescout24-20220120143355.warc.gz")
	if code, _, stderr := runCmd(t, "ingest", "-tables=false", bwa, in); code != exitOK {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	code, want, _ := runCmd(t, "cat", bwa, sampleURL)
	if code != exitOK || want == "" {
		t.Fatalf("cat exit %d", code)
	}
	packs, _ := filepath.Glob(filepath.Join(bwa, "*.pack"))
	for _, p := range packs {
		b, _ := os.ReadFile(p)
		b[len(b)/2] ^= 0x08
		os.WriteFile(p, b, 0o644)
	}
	code, got, stderr := runCmd(t, "cat", bwa, sampleURL)
	if code != exitOK || got != want || !strings.Contains(stderr, "corrected by parity") {
		t.Fatalf("cat of a damaged pack: exit %d, same bytes %v, stderr %q", code, got == want, stderr)
	}
	if code, _, stderr := runCmd(t, "verify", bwa); code != exitFailure || !strings.Contains(stderr, "corrected by parity") {
		t.Fatalf("verify of a damaged pack: exit %d: %s", code, stderr)
	}
	if code, out, stderr := runCmd(t, "repair", bwa); code != exitOK || !strings.Contains(out, "rewritten from parity") {
		t.Fatalf("repair: exit %d: %s %s", code, out, stderr)
	}
	if code, out, stderr := runCmd(t, "verify", bwa); code != exitOK {
		t.Fatalf("verify after repair: exit %d: %s %s", code, out, stderr)
	}
	if code, got, stderr := runCmd(t, "cat", bwa, sampleURL); code != exitOK || got != want || stderr != "" {
		t.Fatalf("cat after repair: exit %d, same bytes %v, stderr %q", code, got == want, stderr)
	}
}
