package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/blockwarc/blockwarc/export/diff"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

const tinderPrivacy = "http://127.0.0.1:8102/Tinder/Privacy%20Policy.html"

var (
	tinderOnce sync.Once
	tinderBWA  string
	tinderErr  string
)

// tinderArchive ingests eight real crawls of a site from ../shared/corpus
// (once per test binary) into an archive: the privacy policy changes
// only in its markup between the first two, in its language picker's text
// by the third, only in markup again by the fourth, and gains a sentence
// by the fifth; in the last three (December 2023 to January 2024) it
// reverts to an older version (a block removed, the heading moved, the
// footer replaced by navigation) and back.
func tinderArchive(t *testing.T) string {
	t.Helper()
	dir := sharedtest.Dir(t, "corpus", "ota-tinder")
	tinderOnce.Do(func() {
		var files []string
		for _, d := range []string{"20220108063013", "20220111003013", "20220120003014", "20220331003237", "20220411183236",
			"20231217183331", "20240112003332", "20240119003326"} {
			files = append(files, filepath.Join(dir, "ota-tinder-"+d+".warc.gz"))
		}
		tmp, err := os.MkdirTemp("", "blockwarc-diff-test-")
		if err != nil {
			tinderErr = err.Error()
			return
		}
		tinderBWA = filepath.Join(tmp, "tinder.bwa")
		code, _, stderr := runCmd(t, append([]string{"ingest", "-level", "2", "-tables=false", tinderBWA}, files...)...)
		if code != exitOK {
			tinderErr = fmt.Sprintf("ingest exit %d: %s", code, stderr)
		}
	})
	if tinderErr != "" {
		t.Fatal(tinderErr)
	}
	return tinderBWA
}

func TestMain(m *testing.M) {
	// The test binary stands in for the real one in tests that signal a
	// process (TestIngestInterrupt): main's signal handling included.
	// Only TestNice's process renices itself: a test's ingest at nice 10
	// would wait behind the other packages' tests.
	if os.Getenv(niceChildEnv) == "1" {
		niceChild()
	}
	applyNice = func(int) error { return nil }
	if os.Getenv(runMainEnv) == "1" {
		main()
	}
	code := m.Run()
	if tinderBWA != "" {
		os.RemoveAll(filepath.Dir(tinderBWA))
	}
	os.Exit(code)
}

func diffJSON(t *testing.T, args ...string) diff.Report {
	t.Helper()
	code, out, stderr := runCmd(t, append([]string{"diff", "-json"}, args...)...)
	if code != exitOK {
		t.Fatalf("diff exit %d: %s", code, stderr)
	}
	var rep diff.Report
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("diff -json output does not parse: %v\n%s", err, out)
	}
	return rep
}

func byStatus(rep diff.Report, s string) []diff.BlockChange {
	var out []diff.BlockChange
	for _, b := range rep.Blocks {
		if string(b.Status) == s {
			out = append(out, b)
		}
	}
	return out
}

// TestDiffTextEdit: a real wording change (a language renamed in the
// language picker) shows as that block text-changed with the right words,
// and the head, whose bytes changed too, as markup-only.
func TestDiffTextEdit(t *testing.T) {
	bwa := tinderArchive(t)
	rep := diffJSON(t, "-from", "20220111", "-to", "20220120", bwa, tinderPrivacy)
	if !strings.HasPrefix(rep.From.Date, "2022-01-11") || !strings.HasPrefix(rep.To.Date, "2022-01-20") {
		t.Fatalf("compared %s with %s", rep.From.Date, rep.To.Date)
	}
	tc := byStatus(rep, "text-changed")
	if len(tc) != 1 || tc[0].Label != "navigation" {
		t.Fatalf("text-changed blocks %+v, want the language picker", tc)
	}
	var del, ins []string
	for _, w := range tc[0].Words {
		switch w.Op {
		case "-":
			del = append(del, w.Text)
		case "+":
			ins = append(ins, w.Text)
		}
	}
	if !slices.Equal(del, []string{"Vlaams"}) || !slices.Equal(ins, []string{"Nederlands"}) {
		t.Errorf("words: deleted %q, inserted %q", del, ins)
	}
	if mo := byStatus(rep, "markup-only"); len(mo) != 1 || mo[0].Tag != "head" {
		t.Errorf("markup-only blocks %+v, want the head", mo)
	}
	// Where inside the picker: the one list item whose language was
	// renamed, in both captures' pages (the bytes cat gives).
	for _, side := range []struct {
		at    string
		parts []diff.PartChange
		want  string
	}{{"20220111", tc[0].OldParts, ">Vlaams</a></li>"}, {"20220120", tc[0].NewParts, ">Nederlands</a></li>"}} {
		code, page, stderr := runCmd(t, "cat", "-at", side.at, bwa, tinderPrivacy)
		if code != exitOK {
			t.Fatalf("cat exit %d: %s", code, stderr)
		}
		if len(side.parts) != 1 || side.parts[0].End > len(page) || side.parts[0].MarkupOnly {
			t.Fatalf("%s: parts %+v of a %d-byte page, want one with changed text", side.at, side.parts, len(page))
		}
		if p := page[side.parts[0].Start:side.parts[0].End]; !strings.HasPrefix(p, "<li") || !strings.HasSuffix(p, side.want) {
			t.Errorf("%s: changed part %q, want the <li> ending %q", side.at, p, side.want)
		}
	}
	if tc[0].PartBytes*10 > tc[0].OldBytes+tc[0].NewBytes {
		t.Errorf("part bytes %d of the block's %d+%d", tc[0].PartBytes, tc[0].OldBytes, tc[0].NewBytes)
	}
	s := rep.Summary
	if !s.VisibleChange || s.TextChanged != 1 || s.WordsDeleted != 1 || s.WordsInserted != 1 || s.Unchanged+2 != len(rep.Blocks) {
		t.Errorf("summary %+v over %d blocks", s, len(rep.Blocks))
	}
	// The text output says the same, with a word diff.
	code, out, stderr := runCmd(t, "diff", "-from", "20220111", "-to", "20220120", bwa, tinderPrivacy)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"visible change", "[-Vlaams-] {+Nederlands+}", "markup-only   1 ", "(changed 150 in 1+1 parts)"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
}

// TestDiffMarkupOnly: between two crawls whose page differs only in
// tokens of its <head>, nothing visible changed.
func TestDiffMarkupOnly(t *testing.T) {
	bwa := tinderArchive(t)
	rep := diffJSON(t, "-from", "20220108", "-to", "20220111", bwa, tinderPrivacy)
	s := rep.Summary
	if s.VisibleChange || s.MarkupOnly == 0 || s.TextChanged+s.Added+s.Removed+s.Moved != 0 || s.WordsDeleted+s.WordsInserted != 0 {
		t.Errorf("summary %+v, want markup-only", s)
	}
	// Each markup-only block says which bytes changed: two different
	// snippets, short, each a piece of its capture's page.
	pages := map[string]string{}
	for _, at := range []string{"20220108", "20220111"} {
		code, page, stderr := runCmd(t, "cat", "-at", at, bwa, tinderPrivacy)
		if code != exitOK {
			t.Fatalf("cat exit %d: %s", code, stderr)
		}
		pages[at] = strings.Join(strings.Fields(page), " ")
	}
	for _, b := range byStatus(rep, "markup-only") {
		m := b.Markup
		if m == nil || m.Old == m.New || len(m.Old) > 200 || len(m.New) > 200 {
			t.Fatalf("block %s: markup %+v", b.Path, m)
		}
		for at, snip := range map[string]string{"20220108": m.Old, "20220111": m.New} {
			if !strings.Contains(pages[at], strings.Trim(snip, "…")) {
				t.Errorf("block %s: %q is not in the %s page", b.Path, snip, at)
			}
		}
	}
}

// TestDiffDefaultsAndErrors: without -from/-to the last two captures are
// compared; a URL never captured and a bad time are clear errors.
func TestDiffDefaultsAndErrors(t *testing.T) {
	bwa := tinderArchive(t)
	rep := diffJSON(t, bwa, tinderPrivacy)
	if !strings.HasPrefix(rep.From.Date, "2024-01-12") || !strings.HasPrefix(rep.To.Date, "2024-01-19") {
		t.Errorf("default compares %s with %s, want the last two", rep.From.Date, rep.To.Date)
	}
	rep = diffJSON(t, "-to", "202204", bwa, tinderPrivacy)
	if !strings.HasPrefix(rep.From.Date, "2022-03-31") || !strings.HasPrefix(rep.To.Date, "2022-04-11") {
		t.Errorf("-to alone compares %s with %s, want the April capture and the one before", rep.From.Date, rep.To.Date)
	}
	found := false
	for _, b := range byStatus(rep, "text-changed") {
		for _, w := range b.Words {
			if w.Op == "+" && strings.Contains(w.Text, "how to contact the data protection officer") {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("the added sentence is not in the diff: %+v", byStatus(rep, "text-changed"))
	}
	// Nearest capture: a time between crawls picks the closer one.
	rep = diffJSON(t, "-from", "2022-01-09T00:00:00Z", "-to", "2022-04-10T00:00:00Z", bwa, tinderPrivacy)
	if !strings.HasPrefix(rep.From.Date, "2022-01-08") || !strings.HasPrefix(rep.To.Date, "2022-04-11") {
		t.Errorf("nearest: %s → %s", rep.From.Date, rep.To.Date)
	}
	if code, _, stderr := runCmd(t, "diff", bwa, "http://127.0.0.1:8102/never"); code != exitFailure || !strings.Contains(stderr, "no capture") {
		t.Errorf("unknown URL: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCmd(t, "diff", "-from", "yesterday", bwa, tinderPrivacy); code != exitUsage || !strings.Contains(stderr, "bad time") {
		t.Errorf("bad time: exit %d, %q", code, stderr)
	}
}

// TestDiffHistory: every capture listed with what changed since the one
// before, as the pairwise diffs say.
func TestDiffHistory(t *testing.T) {
	bwa := tinderArchive(t)
	code, out, stderr := runCmd(t, "diff", "-history", "-json", bwa, tinderPrivacy)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var h diff.History
	if err := json.Unmarshal([]byte(out), &h); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range h.Captures {
		got = append(got, c.Status)
	}
	want := []string{"first", "markup-only", "text-changed", "markup-only", "text-changed", "text-changed", "text-changed", "text-changed"}
	if !slices.Equal(got, want) {
		t.Fatalf("history %q, want %q", got, want)
	}
	if s := h.Captures[2].Summary; s == nil || s.WordsInserted != 1 || s.WordsDeleted != 1 {
		t.Errorf("third capture summary %+v", s)
	}
	code, out, _ = runCmd(t, "diff", "-history", bwa, tinderPrivacy)
	if code != exitOK || strings.Count(out, "\n") != 9 || !strings.Contains(out, "2022-01-20T00:30:14Z") {
		t.Errorf("history text:\n%s", out)
	}
}

// TestDiffAddedRemoved: a real policy that reverted to an older version
// and back. Going back, its title heading is removed and two states lose
// their mention; coming back, the heading is added again, the states
// return and the "For California Consumers" section reappears.
func TestDiffAddedRemoved(t *testing.T) {
	bwa := tinderArchive(t)
	has := func(rep diff.Report, status, op, words string) bool {
		for _, b := range rep.Blocks {
			if string(b.Status) != status {
				continue
			}
			for _, w := range b.Words {
				if w.Op == op && strings.Contains(w.Text, words) {
					return true
				}
			}
		}
		return false
	}
	back := diffJSON(t, "-from", "20231217", "-to", "20240112", bwa, tinderPrivacy)
	if !has(back, "removed", "-", "Privacy Policy") {
		t.Errorf("going back: the title heading is not removed: %+v", back.Summary)
	}
	if !has(back, "text-changed", "-", "Colorado, or Connecticut,") {
		t.Errorf("going back: the states are not deleted")
	}
	fwd := diffJSON(t, "-from", "20240112", "-to", "20240119", bwa, tinderPrivacy)
	if !has(fwd, "added", "+", "Privacy Policy") {
		t.Errorf("coming back: the title heading is not added: %+v", fwd.Summary)
	}
	if !has(fwd, "text-changed", "+", "Colorado, or Connecticut,") || !has(fwd, "text-changed", "+", "Consumers") {
		t.Errorf("coming back: the states or the California section are not inserted")
	}
	if s := fwd.Summary; s.Added < 1 || !s.VisibleChange || s.MarkupOnly == 0 || s.Removed != 0 {
		t.Errorf("coming back: summary %+v", s)
	}
}

// chromium returns the headless browser; under CI=true it must be there
// (.ci/run installs it), elsewhere its absence skips.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium missing (CI=true): .ci/run installs Debian's chromium")
	}
	t.Skip("chromium not installed: apt-get install chromium to run this test")
	return ""
}

func chromiumArgs(t *testing.T, extra ...string) []string {
	return append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}, extra...)
}

// TestDiffHTMLChromium opens the -html page in headless Chromium with no
// network: the page loads, its script finds the later capture's changed
// blocks drawn outlined (counted from computed styles in the sandboxed
// frame), inserted words are marked, and a screenshot is written for
// people to look at ($BLOCKWARC_SCREENSHOTS, else the test's temp dir).
func TestDiffHTMLChromium(t *testing.T) {
	bin := chromium(t)
	bwa := tinderArchive(t)
	for _, tc := range []struct {
		from, to, name, panel string
	}{
		// A sentence added inside one block.
		{"20220331", "20220411", "diff-tinder-privacy.png", "<ins>For more information on how to contact"},
		// Added, text-changed and many markup-only blocks.
		{"20240112", "20240119", "diff-tinder-privacy-revert.png", "<ins>Colorado, or Connecticut,</ins>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := filepath.Join(t.TempDir(), "diff.html")
			code, _, stderr := runCmd(t, "diff", "-from", tc.from, "-to", tc.to, "-html", page, bwa, tinderPrivacy)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			b, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			// Self-contained: no fetch is allowed, and the page names no
			// script or style sheet to load.
			if !strings.Contains(string(b), `default-src 'none'`) || regexp.MustCompile(`<(script|link)[^>]+(src|href)=`).Match(b) {
				t.Error("the page is not self-contained")
			}
			dom, err := exec.Command(bin, chromiumArgs(t, "--virtual-time-budget=5000", "--dump-dom", "file://"+page)...).Output()
			if err != nil {
				t.Fatalf("chromium: %v", err)
			}
			m := regexp.MustCompile(`<body data-changed="(\d+)" data-outlined="(\d+)"`).FindSubmatch(dom)
			if m == nil {
				t.Fatalf("the page's script did not run or found no frame:\n%.600s", dom)
			}
			if string(m[1]) == "0" || string(m[1]) != string(m[2]) {
				t.Errorf("%s changed blocks, %s drawn outlined", m[1], m[2])
			}
			// The changed parts inside the changed blocks are drawn
			// highlighted in the later capture (the marks counted in
			// the file are those of both captures).
			marked := len(regexp.MustCompile(`data-bw-part=`).FindAll(b, -1))
			pm := regexp.MustCompile(`data-parts="(\d+)"`).FindSubmatch(dom)
			if pm == nil {
				t.Fatal("the page's script did not count the changed parts")
			}
			if n, _ := strconv.Atoi(string(pm[1])); n == 0 || n > marked {
				t.Errorf("%d changed parts drawn highlighted in the later capture, %d marked in both", n, marked)
			}
			if !strings.Contains(string(dom), `<li class="text-changed"`) || !strings.Contains(string(dom), tc.panel) {
				t.Errorf("the side panel lacks the text change %q", tc.panel)
			}
			shots := os.Getenv("BLOCKWARC_SCREENSHOTS")
			if shots == "" {
				shots = t.TempDir()
			}
			if err := os.MkdirAll(shots, 0o755); err != nil {
				t.Fatal(err)
			}
			png := filepath.Join(shots, tc.name)
			if out, err := exec.Command(bin, chromiumArgs(t, "--window-size=1400,1000", "--virtual-time-budget=5000", "--screenshot="+png, "file://"+page)...).CombinedOutput(); err != nil {
				t.Fatalf("screenshot: %v\n%s", err, out)
			}
			if fi, err := os.Stat(png); err != nil || fi.Size() < 10000 {
				t.Fatalf("screenshot %s missing or blank: %v", png, err)
			}
			t.Logf("screenshot: %s", png)
		})
	}
}

// TestBlocksAt: blocks reads a capture straight from an archive — the
// same bytes cat writes, partitioned at the archived level — and -at
// without an archive is a usage error.
func TestBlocksAt(t *testing.T) {
	bwa := tinderArchive(t)
	code, payload, stderr := runCmd(t, "cat", "-at", "20220120", bwa, tinderPrivacy)
	if code != exitOK {
		t.Fatalf("cat: exit %d: %s", code, stderr)
	}
	code, out, stderr := runCmd(t, "blocks", "-json", "-at", "20220120", bwa, tinderPrivacy)
	if code != exitOK {
		t.Fatalf("blocks -at: exit %d: %s", code, stderr)
	}
	var got struct {
		Bytes  int `json:"bytes"`
		Kept   int `json:"kept"`
		Blocks []struct {
			Level int  `json:"level"`
			Kept  bool `json:"kept"`
		} `json:"blocks"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Bytes != len(payload) || got.Kept < 5 {
		t.Errorf("blocks -at read %d bytes (%d kept blocks), cat wrote %d", got.Bytes, got.Kept, len(payload))
	}
	deepest := 0
	for _, b := range got.Blocks {
		deepest = max(deepest, b.Level)
	}
	if deepest != 2 {
		t.Errorf("deepest block level %d, want the archived level 2", deepest)
	}
	// The same capture as a file gives the same partition at that level.
	f := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(f, []byte(payload), 0o644); err != nil {
		t.Fatal(err)
	}
	// The archive's capture says it shows the stored partition; a file
	// has none.
	stored := strings.Replace(out, "  \"partition\": \"stored\",\n", "", 1)
	if stored == out {
		t.Errorf("blocks -at does not say it shows the stored partition:\n%.300s", out)
	}
	if code, fromFile, _ := runCmd(t, "blocks", "-json", "-level", "2", f); code != exitOK || fromFile != stored {
		t.Errorf("blocks of the same bytes from a file differ (exit %d)", code)
	}
	if code, _, _ := runCmd(t, "blocks", "-at", "2022", f); code != exitUsage {
		t.Errorf("-at with one FILE: exit %d, want usage", code)
	}
}
