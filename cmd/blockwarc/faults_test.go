package main

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// faultTrials is how many faults TestFaults applies; make faults asks
// for 100.
var faultTrials = flag.Int("fault-trials", 4, "trials of TestFaults (make faults: 100)")

// TestFaults is the fault suite of issue 34 (make faults): one fault per
// trial on one file of an archive with parity (a corpus site ingested
// in several commits): random flipped bytes (one or two, or up to 8), a
// burst of garbage of 4 KiB up to 3 % of the file, a truncation, or the
// file deleted. Each trial
// checks that no capture ever restores wrong bytes; that verify, before
// any repair, fails and names the damaged file or every capture lost;
// and, for every fault parity or a copy covers (all but a deleted pack,
// a truncation longer than the file's burst, flips in more than two
// sectors of a pack or index), that repair without
// the originals leaves every capture restoring and an archive that
// verifies; for every other fault, that repair given the original
// inputs does.
func TestFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("the fault suite: make faults")
	}
	site := sharedtest.Dir(t, "corpus", "ota-tinder")
	inputs, _ := filepath.Glob(filepath.Join(site, "*.warc.gz"))
	// 60 dumps: a pack of about 140 KB (bursts up to 4 KiB..4.2 KB), in
	// several commits; each trial's verify and repair take a second or two.
	inputs = inputs[:min(len(inputs), 60)]
	root := t.TempDir()
	src := filepath.Join(root, "src.bwa")
	if code, _, errOut := runCmd(t, append([]string{"ingest", "-tables=false", "-commit", "1MiB", src}, inputs...)...); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	truth, bad, err := restoreAll(t, src)
	if err != nil || len(bad) > 0 || len(truth) < 100 {
		t.Fatalf("pristine archive: %d captures, %d bad, %v", len(truth), len(bad), err)
	}
	var names []string
	ents, _ := os.ReadDir(src)
	for _, e := range ents {
		if e.Name() != "LOCK" {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	t.Logf("archive files: %v", names)
	rng := rand.New(rand.NewPCG(34, uint64(*faultTrials)))
	var repaired, named, segments, restored int
	kinds := map[string]int{}
	for trial := range *faultTrials {
		dir := filepath.Join(root, fmt.Sprintf("t%d.bwa", trial))
		sharedtest.CopyDir(t, src, dir)
		name := names[rng.IntN(len(names))]
		what, covered := fault(t, rng, filepath.Join(dir, name), trial%4)
		kinds[strings.Fields(what)[0]]++
		check := func(when string) (map[captureKey][]byte, error) {
			got, _, err := restoreAll(t, dir)
			for k, b := range got {
				if !bytes.Equal(b, truth[k]) {
					t.Fatalf("trial %d (%s)%s: capture %v restored wrong bytes", trial, what, when, k)
				}
			}
			return got, err
		}
		got, werr := check("")
		code, out, errOut := runCmd(t, "verify", dir)
		if code != exitFailure {
			t.Fatalf("trial %d (%s): verify exit %d: %s %s", trial, what, code, out, errOut)
		}
		// The damaged file by name (a sidecar's loss as its file's
		// parity), and every capture that does not restore.
		if !strings.Contains(errOut, name) && !(strings.Contains(errOut, "parity of ") && strings.Contains(errOut, strings.TrimSuffix(name, ".par")+" bytes")) {
			t.Fatalf("trial %d (%s): verify does not name %s:\n%s", trial, what, name, errOut)
		}
		// A lost catalog segment stops the walk that names captures:
		// verify names the segment, repair its key range and files.
		// (An archive that does not open, an index deleted, is named
		// above, with the repair that rebuilds it.)
		segment := strings.Contains(errOut, "read catalog segment")
		for k := range truth {
			if _, ok := got[k]; !ok && !segment && werr == nil && !strings.Contains(errOut, fmt.Sprintf("from %s at offset %d", k.file, k.off)) {
				t.Fatalf("trial %d (%s): verify does not name the lost capture %v:\n%s", trial, what, k, errOut)
			}
		}
		code, out, errOut = runCmd(t, "repair", dir)
		after, _ := check(", after repair")
		if covered {
			// repair exits 0 only when the repaired archive verifies.
			if code != exitOK || len(after) != len(truth) {
				t.Fatalf("trial %d (%s): repair exit %d, %d of %d captures restore:\n%s%s", trial, what, code, len(after), len(truth), out, errOut)
			}
			repaired++
		} else {
			if code == exitOK && len(after) != len(truth) {
				t.Fatalf("trial %d (%s): repair exit 0 with %d of %d captures restoring", trial, what, len(after), len(truth))
			}
			if code != exitOK && !strings.Contains(errOut, "lost: catalog segment") {
				for k := range truth {
					if _, ok := after[k]; !ok && !strings.Contains(errOut, fmt.Sprintf("from %s at offset %d", k.file, k.off)) {
						t.Fatalf("trial %d (%s): repair does not name the lost capture %v:\n%s", trial, what, k, errOut)
					}
				}
			}
			if segment {
				segments++
			}
			named++
			// With the original inputs, repair restores everything: the
			// originals determine every capture parity could not.
			code, out, errOut = runCmd(t, append([]string{"repair", dir}, inputs...)...)
			if after, _ := check(", after repair with the originals"); code != exitOK || len(after) != len(truth) {
				t.Fatalf("trial %d (%s): repair with the originals: exit %d, %d of %d captures restore:\n%s%s", trial, what, code, len(after), len(truth), out, errOut)
			}
			if code, out, errOut := runCmd(t, "verify", dir); code != exitOK {
				t.Fatalf("trial %d (%s): verify after repair with the originals: exit %d:\n%s%s", trial, what, code, out, errOut)
			}
			restored++
		}
		os.RemoveAll(dir)
	}
	t.Logf("%d trials %v: %d repaired without the originals, %d beyond parity (losses named; %d a catalog segment; %d restored whole with the originals)", *faultTrials, kinds, repaired, named, segments, restored)
}

// fault applies fault kind (0 flips, 1 a burst, 2 a truncation, 3 a
// deletion) to the archive file at path. covered says whether the
// archive's redundancy covers it: parity corrects any two damaged
// sectors and a burst of 1/32 of a pack or index, a COMMIT has its
// copy, a sidecar is written again from the intact file; a deleted
// pack, a pack or index truncated by more than its burst, or flips in
// more than two of its sectors may be beyond them.
func fault(t *testing.T, rng *rand.Rand, path string, kind int) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(path)
	data := strings.HasSuffix(name, ".pack") || strings.HasSuffix(name, ".idx")
	// The burst the suite tests: 4 KiB up to 3 % of the file.
	burst := min(len(b), max(4096, len(b)*3/100))
	var what string
	covered := true
	switch kind {
	case 0:
		// Bit rot: one or two bytes, or up to 8 anywhere; parity
		// promises any two damaged 4 KiB sectors.
		n := 1 + rng.IntN(2)
		if rng.IntN(2) == 0 {
			n = 1 + rng.IntN(8)
		}
		sectors := map[int]bool{}
		for range n {
			at := rng.IntN(len(b))
			b[at] ^= byte(1 + rng.IntN(255))
			sectors[at/4096] = true
		}
		what = fmt.Sprintf("flip %d byte(s) in %d sector(s) of %s", n, len(sectors), name)
		covered = !data || len(sectors) <= 2
	case 1:
		l := 4096
		if burst > 4096 {
			l += rng.IntN(burst - 4096 + 1)
		}
		l = min(l, len(b))
		at := rng.IntN(len(b) - l + 1)
		for i := at; i < at+l; i++ {
			b[i] = byte(rng.Uint32())
		}
		b[at] ^= 0xff // garbage could by chance be the data
		what = fmt.Sprintf("burst of %d B at %d of %s (%d B)", l, at, name, len(b))
	case 2:
		cut := 1 + rng.IntN(len(b))
		if rng.IntN(2) == 0 {
			cut = 1 + rng.IntN(burst)
		}
		what = fmt.Sprintf("truncate %s (%d B) by %d B", name, len(b), cut)
		b = b[:len(b)-cut]
		covered = !data || cut <= burst
	case 3:
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		return "delete " + name, !strings.HasSuffix(name, ".pack")
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return what, covered
}
