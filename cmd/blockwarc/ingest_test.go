package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/zlibenc"
	"github.com/blockwarc/blockwarc/export/report"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/warcio"
)

// TestIngestCatVerify runs the archive commands on a corpus site and
// checks cat's payloads against the site's manifest (SHA-1 of every HTML
// capture, written when the corpus was made).
func TestIngestCatVerify(t *testing.T) {
	site := sharedtest.Dir(t, "corpus", "ota-lovescout24")
	arch := filepath.Join(t.TempDir(), "site.bwa")
	code, out, errOut := runCmd(t, "ingest", "-json", "-workers", "2", arch, site)
	if code != exitOK {
		t.Fatalf("ingest exit %d: %s", code, errOut)
	}
	var st struct{ Records, Files, Partitioned int64 }
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Records == 0 || st.Partitioned == 0 {
		t.Fatalf("ingest summary %q (%v): want records and partitioned pages", out, err)
	}

	f, err := os.Open(filepath.Join(site, "manifest.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	n := 0
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 3 {
			t.Fatalf("manifest line %q", sc.Text())
		}
		ts := strings.NewReplacer("-", "", "T", "", ":", "", "Z", "").Replace(cols[1])
		code, payload, errOut := runCmd(t, "cat", "-at", ts, arch, cols[0])
		if code != exitOK {
			t.Fatalf("cat -at %s %s: exit %d: %s", ts, cols[0], code, errOut)
		}
		sum := sha1.Sum([]byte(payload))
		if hex.EncodeToString(sum[:]) != cols[2] {
			t.Errorf("cat -at %s %s: payload SHA-1 %x, manifest says %s", ts, cols[0], sum, cols[2])
		}
		n++
	}
	if n == 0 {
		t.Fatal("manifest lists no capture")
	}
	if code, _, errOut := runCmd(t, "cat", "-at", "1990", arch, "http://127.0.0.1:1/none"); code != exitFailure || !strings.Contains(errOut, "no capture") {
		t.Errorf("cat of a missing URL: exit %d, %q", code, errOut)
	}

	// Ingest leaves the proof that each file restores as given to prove.
	if code, out, errOut := runCmd(t, "prove", arch, site); code != exitOK {
		t.Fatalf("prove exit %d: %s %s", code, out, errOut)
	}
	if code, out, errOut := runCmd(t, "verify", arch); code != exitOK {
		t.Fatalf("verify exit %d: %s %s", code, out, errOut)
	} else if files, _ := warcio.ExpandInputs([]string{site}); !strings.Contains(string(out), fmt.Sprintf(" %d input files rebuilt exactly, %d input files rebuilt bit-exact (compressed); 0 problem(s)", len(files), bitExact(len(files)))) {
		// Every dump of a real site (wget's .warc.gz) comes back byte for
		// byte, decompressed and compressed as given.
		t.Errorf("verify: %s (want all %d input files rebuilt exactly, and bit-exact compressed)", out, len(files))
	}
	// Re-ingesting adds nothing.
	code, out, errOut = runCmd(t, "ingest", "-json", arch, site)
	if code != exitOK || !strings.Contains(out, `"records":0`) {
		t.Errorf("re-ingest: exit %d, %s %s", code, out, errOut)
	}

	// Damage one byte of the pack: verify names the failure and exits 1.
	packs, _ := filepath.Glob(filepath.Join(arch, "*.pack"))
	if len(packs) == 0 {
		t.Fatal("no pack file")
	}
	b, err := os.ReadFile(packs[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x40
	if err := os.WriteFile(packs[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCmd(t, "verify", arch)
	if code != exitFailure || !strings.Contains(errOut, "blockwarc verify:") {
		t.Errorf("verify of a damaged archive: exit %d, %q", code, errOut)
	}
}

// TestIngestSummary: ingest ends with one line saying what it did and
// what the archive costs; a second run says nothing was new.
func TestIngestSummary(t *testing.T) {
	arch := filepath.Join(t.TempDir(), "s.bwa")
	samples := filepath.Join(sharedtest.RepoRoot(t), "testdata", "samples")
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"ingest", "-tables=false", arch, samples}, &out, &errb); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errb.String())
	}
	size, err := report.ArchiveBytes(arch)
	if err != nil || size == 0 {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(samples, "*.warc.gz"))
	want := fmt.Sprintf("%s: %d file(s), ", arch, len(files))
	if line := out.String(); !strings.HasPrefix(line, want) || strings.Count(line, "\n") != 1 || !strings.Contains(line, humanBytes(size)+" on disk") {
		t.Errorf("summary %q, want a line starting %q and ending with the archive's size %s", line, want, humanBytes(size))
	}
	out.Reset()
	run(context.Background(), []string{"ingest", "-tables=false", arch, samples}, &out, &errb)
	if !strings.Contains(out.String(), fmt.Sprintf("nothing new (%d input file(s) already in the archive)", len(files))) {
		t.Errorf("second run: %q", out.String())
	}
	// Interrupted before its first commit, a new archive is not kept, and
	// ingest does not promise a resume (after a commit: TestIngestInterrupt).
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	errb.Reset()
	fresh := filepath.Join(t.TempDir(), "c.bwa")
	if code := run(ctx, []string{"ingest", "-tables=false", fresh, samples}, &out, &errb); code != exitFailure ||
		errb.String() != "blockwarc ingest: interrupted before the first commit, so "+fresh+" was not kept: run the same command again to start over\n" {
		t.Errorf("ingest interrupted at once: exit %d, %q", code, errb.String())
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("ingest interrupted at once left %s (%v)", fresh, err)
	}
	if humanBytes(1536) != "1.5 KiB" || humanBytes(1000) != "1000 B" || humanBytes(3<<30) != "3.0 GiB" {
		t.Errorf("humanBytes: %s %s %s", humanBytes(1536), humanBytes(1000), humanBytes(3<<30))
	}
}

// bitExact is how many of n wget files restore bit-exact compressed: all
// of them, except in a build without zlib (cgo), which restores none.
func bitExact(n int) int {
	if !zlibenc.Available {
		return 0
	}
	return n
}

// TestIngestSummaryAgreesWithReport: the archive size ingest prints is
// the report's, to the byte, and the summary says its input figure
// counts the records decompressed (the report's counts the files as
// given); make run prints no third figure of its own.
func TestIngestSummaryAgreesWithReport(t *testing.T) {
	arch := filepath.Join(t.TempDir(), "s.bwa")
	code, out, errOut := runCmd(t, "ingest", "-report", "-", arch, sampleFiles(t)[0], sampleFiles(t)[1])
	if code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	summary, rest, _ := strings.Cut(out, "\n")
	m := regexp.MustCompile(`records \([0-9.]+ [KMG]?i?B decompressed\) ingested in .*; the archive is ([0-9.]+ [KMG]?i?B) on disk \(([0-9,]+) bytes, tables apart\)$`).FindStringSubmatch(summary)
	if m == nil {
		t.Fatalf("summary %q", summary)
	}
	if want := regexp.MustCompile(`(?m)^  archive +` + regexp.QuoteMeta(m[1]) + `  \(` + regexp.QuoteMeta(m[2]) + ` bytes\)`); !want.MatchString(rest) {
		t.Errorf("the summary's archive (%s, %s bytes) is not the report's:\n%s", m[1], m[2], rest)
	}
	mk, err := os.ReadFile(filepath.Join(sharedtest.RepoRoot(t), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	_, runTarget, _ := strings.Cut(string(mk), "\nrun:")
	runTarget, _, _ = strings.Cut(runTarget, "\n\n")
	if strings.Contains(runTarget, "du -") || strings.Contains(runTarget, "ingest -json") {
		t.Errorf("make run prints sizes of its own, or hides ingest's summary:%s", runTarget)
	}
}
