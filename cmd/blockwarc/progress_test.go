package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// drawnPercents lists the percentages a progress bar drew, in order, with
// the words before each.
func drawnPercents(t *testing.T, stderr string) (pct []int, words []string) {
	t.Helper()
	re := regexp.MustCompile(`([a-z][a-z0-9 :,]*?)\s+(\d+)%`)
	for _, frame := range strings.Split(stderr, "\r") {
		if m := re.FindStringSubmatch(frame); m != nil {
			n, _ := strconv.Atoi(m[2])
			pct, words = append(pct, n), append(words, m[1])
		}
	}
	return pct, words
}

// TestIngestProgress: with -progress, ingest draws its bar on stderr (a
// pipe otherwise gets none); the bar never runs backwards — it once
// restarted at 0 % for storing, 58 % to 26 % — reading fills its half and
// storing the other, and it reaches its end (it once stopped at 79 %,
// its total counting files ingest does not read: the corpus directory's
// .cdx files, README and manifest).
func TestIngestProgress(t *testing.T) {
	// Every move drawn: throttled, the last moves of a fast ingest on a
	// busy machine are cleared before they are drawn.
	defer func(d time.Duration) { progressThrottle = d }(progressThrottle)
	progressThrottle = 0
	site := sharedtest.Dir(t, "corpus", "ota-mektoube")
	code, _, quiet := runCmd(t, "ingest", filepath.Join(t.TempDir(), "q.bwa"), site)
	if code != exitOK || strings.Contains(quiet, "%") {
		t.Fatalf("ingest without -progress: exit %d, stderr %q: want no bar in a pipe", code, quiet)
	}
	code, _, errOut := runCmd(t, "ingest", "-progress", filepath.Join(t.TempDir(), "p.bwa"), site)
	if code != exitOK {
		t.Fatalf("ingest -progress: exit %d: %s", code, errOut)
	}
	pct, words := drawnPercents(t, errOut)
	if len(pct) < 3 {
		t.Fatalf("ingest -progress drew %v: want a bar", pct)
	}
	var readMax, storeMin = -1, 101
	for i, p := range pct {
		if i > 0 && p < pct[i-1] {
			t.Errorf("bar ran backwards: %d %% (%s) after %d %% (%s); all: %v", p, words[i], pct[i-1], words[i-1], pct)
		}
		switch {
		case strings.HasPrefix(words[i], "reading"):
			readMax = max(readMax, p)
		case strings.HasPrefix(words[i], "storing"):
			storeMin = min(storeMin, p)
		}
	}
	if readMax > 50 || storeMin < 50 || storeMin == 101 {
		t.Errorf("reading up to %d %%, storing from %d %%: want reading in the first half, storing in the second; all: %v %q", readMax, storeMin, pct, words)
	}
	if last := pct[len(pct)-1]; last < 99 {
		t.Errorf("bar stopped at %d %%: want its end; all: %v", last, pct)
	}
}

// TestExportWARCProgressSummary: export-warc -o -progress draws a bar
// over the archive's records that only moves forward and reaches its
// end, then ends on a line naming the file and its records, as many as
// the file holds; without -o (the WARC on stdout) stderr stays quiet.
func TestExportWARCProgressSummary(t *testing.T) {
	defer func(d time.Duration) { progressThrottle = d }(progressThrottle)
	progressThrottle = 0
	arch := exportArchive(t, "pywb--example-url-agnostic-revisit.warc.gz", "nodewarc--books.toscrape.warc", "pywb--iana.warc.gz")
	out := filepath.Join(t.TempDir(), "all.warc.gz")
	code, _, errOut := runExport(t, "-o", out, "-progress", arch)
	if code != exitOK {
		t.Fatalf("export-warc: exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	n := countRecords(t, b)
	pct, _ := drawnPercents(t, errOut)
	// At its end the bar clears rather than draw 100 %.
	if len(pct) < 3 || !slices.IsSorted(pct) || pct[len(pct)-1] < 99 {
		t.Errorf("bar drew %v: want it moving forward to its end", pct)
	}
	want := fmt.Sprintf("blockwarc export-warc: %s: %d record(s), ", out, n)
	if !strings.Contains(errOut, want) || n == 0 {
		t.Errorf("stderr %q: want the summary %q…", errOut, want)
	}
	code, _, quiet := runExport(t, arch)
	if code != exitOK || quiet != "" {
		t.Errorf("export-warc to stdout: exit %d, stderr %q: want nothing on stderr", code, quiet)
	}
}

// TestIndexSummary: index -o ends on a line naming the file, its lines
// (as many as it holds) and the files read; on stdout, no line.
func TestIndexSummary(t *testing.T) {
	in := filepath.Join(sharedtest.Interop(t), "pywb--iana.warc.gz")
	out := filepath.Join(t.TempDir(), "x.cdxj")
	code, stdout, errOut := runCmd(t, "index", "-o", out, in)
	if code != exitOK || stdout != "" {
		t.Fatalf("index -o: exit %d, stdout %q: %s", code, stdout, errOut)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(string(b), "\n")
	want := fmt.Sprintf("blockwarc index: %s: %d line(s) from 1 file(s), ", out, lines)
	if lines == 0 || !strings.HasPrefix(errOut, want) {
		t.Errorf("stderr %q: want %q…", errOut, want)
	}
	if code, _, quiet := runCmd(t, "index", in); code != exitOK || quiet != "" {
		t.Errorf("index to stdout: exit %d, stderr %q: want nothing", code, quiet)
	}
}

// TestVerifyProgress: verify -progress draws a bar over the archive's
// records and gaps that only moves forward and reaches its end; its
// report on stdout is unchanged, and without -progress stderr is quiet.
func TestVerifyProgress(t *testing.T) {
	defer func(d time.Duration) { progressThrottle = d }(progressThrottle)
	progressThrottle = 0
	arch := exportArchive(t, "pywb--example-url-agnostic-revisit.warc.gz", "nodewarc--books.toscrape.warc", "pywb--iana.warc.gz")
	code, quietOut, quiet := runCmd(t, "verify", arch)
	if code != exitOK || quiet != "" {
		t.Fatalf("verify: exit %d, stderr %q", code, quiet)
	}
	code, out, errOut := runCmd(t, "verify", "-progress", arch)
	if code != exitOK || out != quietOut {
		t.Fatalf("verify -progress: exit %d, stdout %q, want %q", code, out, quietOut)
	}
	pct, words := drawnPercents(t, errOut)
	if len(pct) < 3 || !slices.IsSorted(pct) || pct[len(pct)-1] < 99 || words[0] != "verifying objects" {
		t.Errorf("bar drew %v %q: want verifying objects, moving forward to its end", pct, words)
	}
	// The objects' half moves too: it once stood still at 0 % while
	// every frame was decoded.
	objects := 0
	for i, p := range pct {
		if words[i] == "verifying objects" && p > 0 && p <= 50 {
			objects++
		}
	}
	if objects < 2 || !slices.Contains(words, "verifying records") {
		t.Errorf("bar drew %v %q: want the objects' half (0-50 %%) to move, then the records'", pct, words)
	}
}
