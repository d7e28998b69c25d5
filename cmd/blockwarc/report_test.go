package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	stdhtml "html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/blockwarc/blockwarc/export/report"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// reportArchive ingests the bundled samples into a fresh archive.
func reportArchive(t *testing.T) string {
	t.Helper()
	arch := filepath.Join(t.TempDir(), "samples.bwa")
	if code, _, errOut := runCmd(t, append([]string{"ingest", "-workers", "2", arch}, sampleFiles(t)...)...); code != exitOK {
		t.Fatalf("ingest exit %d: %s", code, errOut)
	}
	return arch
}

func TestReportCommand(t *testing.T) {
	arch := reportArchive(t)
	files := sampleFiles(t)
	var inBytes int64
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		inBytes += fi.Size()
	}

	code, out, errOut := runCmd(t, "report", "-json", "-workers", "1", arch)
	if code != exitOK {
		t.Fatalf("report -json exit %d: %s", code, errOut)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("report -json: %v\n%s", err, out)
	}
	if r.InputFiles != int64(len(files)) || r.InputBytes != inBytes {
		t.Errorf("input %d files %d bytes, want %d files %d bytes", r.InputFiles, r.InputBytes, len(files), inBytes)
	}
	if r.ArchiveBytes <= 0 || r.ArchiveBytes >= r.InputBytes || r.Captures.Total == 0 || r.Captures.AsBlocks == 0 {
		t.Errorf("archive %d bytes, %d captures (%d as blocks)", r.ArchiveBytes, r.Captures.Total, r.Captures.AsBlocks)
	}
	// Same report whatever the number of workers.
	if code, out4, _ := runCmd(t, "report", "-json", "-workers", "4", arch); code != exitOK || out4 != out {
		t.Errorf("report -json differs with -workers 4 (exit %d)", code)
	}

	// Text: the figures, readable.
	code, text, errOut := runCmd(t, "report", arch)
	if code != exitOK {
		t.Fatalf("report exit %d: %s", code, errOut)
	}
	for _, s := range []string{"Where the archive's bytes go", "block deltas", "index and metadata", "pages tested", "precision", "recall", "coverage",
		report.HumanBytes(r.InputBytes), report.HumanBytes(r.ArchiveBytes), "malformed, skipped"} {
		if !strings.Contains(text, s) {
			t.Errorf("text report lacks %q", s)
		}
	}

	// -html writes the page (over an older file), and still prints the text.
	page := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(page, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, text2, errOut := runCmd(t, "report", "-html", page, arch)
	if code != exitOK || text2 != text {
		t.Fatalf("report -html exit %d (text same: %v): %s", code, text2 == text, errOut)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	checkReportPage(t, b)
	if es, _ := os.ReadDir(filepath.Dir(page)); len(es) != 1 {
		t.Errorf("temporary files left next to the page: %v", es)
	}
}

// checkReportPage: the page parses, has its charts, and loads nothing
// (the package tests check this in depth).
func checkReportPage(t *testing.T, b []byte) {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	charts := map[string]bool{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if n.Data == "script" || n.Data == "link" || n.Data == "img" || n.Data == "iframe" {
				t.Errorf("page has a <%s>", n.Data)
			}
			for _, a := range n.Attr {
				if (a.Key == "src" || a.Key == "href") && !strings.HasPrefix(a.Val, "#") {
					t.Errorf("page references %s=%q", a.Key, a.Val)
				}
				if n.Data == "figure" && a.Key == "id" {
					charts[a.Val] = true
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	for _, id := range []string{"chart-alternatives", "chart-bytes", "chart-hosts", "chart-timeline", "chart-growth", "chart-heatmap", "chart-urls", "chart-volatile"} {
		if !charts[id] {
			t.Errorf("page lacks %s", id)
		}
	}
}

func TestReportExitStatus(t *testing.T) {
	arch := reportArchive(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no archive", []string{"report"}, exitUsage, "want exactly one ARCHIVE"},
		{"two archives", []string{"report", arch, arch}, exitUsage, "want exactly one ARCHIVE"},
		{"bad flag", []string{"report", "-nope", arch}, exitUsage, ""},
		{"help", []string{"report", "-h"}, exitOK, "exit status"},
		{"html is a directory", []string{"report", "-html", dir, arch}, exitUsage, "is a directory"},
		{"missing archive", []string{"report", filepath.Join(dir, "none.bwa")}, exitFailure, "none.bwa"},
		{"not an archive", []string{"report", dir}, exitFailure, "blockwarc report:"},
		{"html in a missing directory", []string{"report", "-html", filepath.Join(dir, "no", "r.html"), arch}, exitFailure, "r.html"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, c.args...)
			if c.name == "help" { // help is output: on stdout
				errOut = out
			}
			if code != c.code || !strings.Contains(errOut, c.msg) {
				t.Errorf("exit %d, want %d; stderr %q, want %q", code, c.code, errOut, c.msg)
			}
		})
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("the -html directory was changed: %v", es)
	}
}

// TestReportMalformed: the records a reader skipped at ingest are in the
// report, as many as ingest counted.
func TestReportMalformed(t *testing.T) {
	files := sampleFiles(t)
	in := t.TempDir()
	a, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(files[1])
	if err != nil {
		t.Fatal(err)
	}
	bad := append(append(append([]byte{}, a...), "this is not a WARC record\r\n\r\n"...), b...)
	if err := os.WriteFile(filepath.Join(in, "bad.warc.gz"), bad, 0o644); err != nil {
		t.Fatal(err)
	}
	arch := filepath.Join(t.TempDir(), "bad.bwa")
	code, out, errOut := runCmd(t, "ingest", "-json", "-policy", "skip", arch, in)
	var st struct{ Records, Malformed int64 }
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != exitSkipped || st.Malformed == 0 {
		t.Fatalf("ingest of a damaged file: exit %d, %q (%v), stderr %s", code, out, err, errOut)
	}
	code, out, errOut = runCmd(t, "report", "-json", arch)
	if code != exitOK {
		t.Fatalf("report exit %d: %s", code, errOut)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Records.Malformed == nil || *r.Records.Malformed != st.Malformed || r.Records.Read == nil || *r.Records.Read != st.Records {
		t.Errorf("report: read %v malformed %v; ingest read %d, skipped %d", r.Records.Read, r.Records.Malformed, st.Records, st.Malformed)
	}
	if _, text, _ := runCmd(t, "report", arch); !regexp.MustCompile(fmt.Sprintf(`malformed, skipped +%d\n`, st.Malformed)).MatchString(text) {
		t.Errorf("text report lacks the malformed count:\n%s", text)
	}
}

// TestReadmeReportFigures: the report excerpt in the README is what
// `make run` prints for the bundled samples, figure for figure.
func TestReadmeReportFigures(t *testing.T) {
	root := sharedtest.RepoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	i := strings.Index(s, "Storage report of out/samples.bwa\n")
	j := strings.Index(s[max(i, 0):], "  ...\n")
	if i < 0 || j < 0 {
		t.Fatal("README has no report excerpt")
	}
	want := strings.SplitN(s[i:i+j], "\n", 2)[1] // after the title, whose path differs here
	arch := filepath.Join(t.TempDir(), "samples.bwa")
	// The catalog keeps input paths as given: give them as make run does.
	t.Chdir(root)
	if code, _, errOut := runCmd(t, "ingest", "-json", arch, "testdata/samples"); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	code, out, errOut := runCmd(t, "report", arch)
	if code != exitOK {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, want) {
		t.Errorf("the README's report excerpt is not what make run prints; README:\n%s\nreport:\n%s", want, out)
	}
}

// TestReportAlternatives: -alternatives measures the two computed
// alternatives (the package tests read their bytes back); without it they
// are null, and the rest of the report is the same.
func TestReportAlternatives(t *testing.T) {
	arch := reportArchive(t)
	decode := func(out string) report.Report {
		t.Helper()
		var r report.Report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return r
	}
	code, plainOut, errOut := runCmd(t, "report", "-json", arch)
	if code != exitOK {
		t.Fatalf("report -json exit %d: %s", code, errOut)
	}
	code, altOut, errOut := runCmd(t, "report", "-json", "-alternatives", arch)
	if code != exitOK {
		t.Fatalf("report -json -alternatives exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "alternatives measured in") {
		t.Errorf("stderr does not give the time taken: %q", errOut)
	}
	plain, alt := decode(plainOut), decode(altOut)
	if plain.Alternatives.Measured || !alt.Alternatives.Measured {
		t.Fatalf("measured: %v without the flag, %v with it", plain.Alternatives.Measured, alt.Alternatives.Measured)
	}
	for i, a := range alt.Alternatives.List {
		p := plain.Alternatives.List[i]
		computed := a.Name == report.AltGzipRevisits || a.Name == report.AltZstdLong
		if computed && (p.Bytes != nil || a.Bytes == nil || *a.Bytes <= 0) {
			t.Errorf("%s: %v bytes without the flag, %v with it", a.Name, p.Bytes, a.Bytes)
		}
		if a.Name == report.AltInput && (a.Bytes == nil || *a.Bytes != alt.InputBytes) {
			t.Errorf("input alternative %v, input_bytes %d", a.Bytes, alt.InputBytes)
		}
		if a.Name == report.AltArchive && (a.Bytes == nil || *a.Bytes != alt.ArchiveBytes) {
			t.Errorf("archive alternative %v, archive_bytes %d", a.Bytes, alt.ArchiveBytes)
		}
	}
	alt.Alternatives, plain.Alternatives = report.Alternatives{}, report.Alternatives{}
	a1, _ := json.Marshal(alt)
	p1, _ := json.Marshal(plain)
	if !bytes.Equal(a1, p1) {
		t.Errorf("-alternatives changed the rest of the report")
	}
	// Deterministic: the same archive gives the same figures.
	if _, again, _ := runCmd(t, "report", "-json", "-alternatives", arch); again != altOut {
		t.Errorf("a second -alternatives run differs")
	}
	code, text, _ := runCmd(t, "report", "-alternatives", arch)
	if code != exitOK || !regexp.MustCompile(`per-record gzip, repeats as revisits +[0-9.]+ [KM]iB`).MatchString(text) {
		t.Errorf("text report lacks the measured alternatives:\n%s", text)
	}
}

// chartCheckScript, put into a copy of the report page, measures in the
// browser what a reader sees: every chart drawn at a usable size, and no
// two labels of a chart overlapping or running out of it (tick labels
// crowded on an axis, a legend past the edge). It writes the labels
// measured and the problems found on <body>.
const chartCheckScript = `<script>
const problems = []; let texts = 0;
for (const fig of document.querySelectorAll("figure.chart")) {
  const svg = fig.querySelector("svg"), box = svg.getBoundingClientRect();
  if (box.width < 300 || box.height < 40) problems.push(fig.id + ": drawn " + box.width + "x" + box.height);
  const ts = [...svg.querySelectorAll("text")].map(t => [t.textContent, t.getBoundingClientRect()]).filter(([, b]) => b.width > 0);
  texts += ts.length;
  for (let i = 0; i < ts.length; i++) {
    const [ta, a] = ts[i];
    if (a.left < box.left - 1 || a.right > box.right + 1) problems.push(fig.id + ": " + ta + " runs out of the chart");
    for (let j = i + 1; j < ts.length; j++) {
      const [tb, b] = ts[j];
      if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1)
        problems.push(fig.id + ": " + ta + " overlaps " + tb);
    }
  }
}
document.body.setAttribute("data-texts", texts);
document.body.setAttribute("data-problems", problems.join(" | "));
</script>`

// TestReportHTMLChromium renders the report of a real site (the whole
// ota-tinder corpus site: four years of crawls) in headless Chromium: the
// charts are drawn, their labels neither overlap nor leave the chart, and
// a screenshot is written for people to look at ($BLOCKWARC_SCREENSHOTS,
// else the test's temp dir).
func TestReportHTMLChromium(t *testing.T) {
	bin := chromium(t)
	site := sharedtest.Dir(t, "corpus", "ota-tinder")
	arch := filepath.Join(t.TempDir(), "tinder.bwa")
	if code, _, errOut := runCmd(t, "ingest", "-tables=false", arch, site); code != exitOK {
		t.Fatalf("ingest exit %d: %s", code, errOut)
	}
	page := filepath.Join(t.TempDir(), "report.html")
	if code, _, errOut := runCmd(t, "report", "-alternatives", "-html", page, arch); code != exitOK {
		t.Fatalf("report exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	checkReportPage(t, b)
	probe := filepath.Join(t.TempDir(), "probe.html")
	if err := os.WriteFile(probe, bytes.Replace(b, []byte("</body>"), []byte(chartCheckScript+"</body>"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, err := exec.Command(bin, chromiumArgs(t, "--window-size=1280,2000", "--virtual-time-budget=5000", "--dump-dom", "file://"+probe)...).Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	m := regexp.MustCompile(`<body data-texts="(\d+)" data-problems="([^"]*)"`).FindSubmatch(dom)
	if m == nil {
		t.Fatalf("the probe did not run:\n%.600s", dom)
	}
	if n, _ := strconv.Atoi(string(m[1])); n < 100 {
		t.Errorf("only %d labels measured", n)
	}
	if len(m[2]) > 0 {
		for _, p := range strings.Split(stdhtml.UnescapeString(string(m[2])), " | ") {
			t.Errorf("unreadable: %s", p)
		}
	}
	shots := os.Getenv("BLOCKWARC_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	png := filepath.Join(shots, "report-tinder.png")
	if out, err := exec.Command(bin, chromiumArgs(t, "--window-size=1280,6000", "--screenshot="+png, "file://"+page)...).CombinedOutput(); err != nil {
		t.Fatalf("screenshot: %v\n%s", err, out)
	}
	if fi, err := os.Stat(png); err != nil || fi.Size() < 10000 {
		t.Fatalf("screenshot %s missing or blank: %v", png, err)
	}
	t.Logf("screenshot: %s", png)
}

// TestIngestReport: ingest -report/-report-html writes, from its tables
// walk, the very report 'blockwarc report' writes afterwards; with no new
// file (no tables walk) it walks on its own, to the same report.
func TestIngestReport(t *testing.T) {
	dir := t.TempDir()
	arch := filepath.Join(dir, "samples.bwa")
	txt, page := filepath.Join(dir, "ingest.txt"), filepath.Join(dir, "ingest.html")
	args := append([]string{"ingest", "-workers", "2", "-report", txt, "-report-html", page, arch}, sampleFiles(t)...)
	if code, _, errOut := runCmd(t, args...); code != exitOK {
		t.Fatalf("ingest -report exit %d: %s", code, errOut)
	}
	wantPage := filepath.Join(dir, "report.html")
	code, wantText, errOut := runCmd(t, "report", "-html", wantPage, arch)
	if code != exitOK {
		t.Fatalf("report exit %d: %s", code, errOut)
	}
	same := func(what, got, want string) {
		t.Helper()
		g, err := os.ReadFile(got)
		if err != nil {
			t.Fatal(err)
		}
		w, err := os.ReadFile(want)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(g, w) {
			t.Errorf("%s: ingest's report (%d bytes) differs from report's (%d bytes)", what, len(g), len(w))
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "want.txt"), []byte(wantText), 0o644); err != nil {
		t.Fatal(err)
	}
	same("text", txt, filepath.Join(dir, "want.txt"))
	same("html", page, wantPage)

	// Nothing new: no tables walk, the report walks alone; - is stdout,
	// after the summary line.
	args = append([]string{"ingest", "-report", "-", arch}, sampleFiles(t)...)
	code, out, errOut := runCmd(t, args...)
	if code != exitOK {
		t.Fatalf("second ingest exit %d: %s", code, errOut)
	}
	summary, text, _ := strings.Cut(out, "\n")
	if !strings.Contains(summary, "nothing new") || text != wantText {
		t.Errorf("second ingest: summary %q, report same as report's: %v", summary, text == wantText)
	}
}
