package main

import (
	"bytes"
	"context"
	"encoding/base32"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/export"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/index")

func sampleFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(sharedtest.RepoRoot(t), "testdata", "samples", "*.warc.gz"))
	if err != nil || len(files) < 3 {
		t.Fatalf("sample crawls missing under testdata/samples")
	}
	return files
}

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "index", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/blockwarc -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("index differs from %s (run with -update after checking the change):\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

// checkSorted asserts the CDXJ is sorted by urlkey, then timestamp.
func checkSorted(t *testing.T, cdxj string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(cdxj, "\n"), "\n")
	if !sort.SliceIsSorted(lines, func(i, j int) bool { return export.CompareCDXJ([]byte(lines[i]), []byte(lines[j])) < 0 }) {
		t.Fatal("index is not sorted by urlkey, timestamp")
	}
}

func TestIndexGoldenSamples(t *testing.T) {
	files := sampleFiles(t)[:3]
	// Inputs in reverse order: the index must not depend on it.
	code, out, errOut := runCmd(t, "index", files[2], files[1], files[0])
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkSorted(t, out)
	golden(t, "samples3.cdxj", out)

	// A tiny -mem forces sorted runs on disk: same index.
	code, out2, errOut := runCmd(t, "index", "-mem", "16KiB", "-tmp", t.TempDir(), files[0], files[1], files[2])
	if code != exitOK || out2 != out {
		t.Fatalf("-mem 16KiB: exit %d, index differs: %s", code, errOut)
	}
}

// TestIndexGoldenPostRevisit covers POST requests (query built from the
// body: form, JSON, chunked binary) and revisits.
func TestIndexGoldenPostRevisit(t *testing.T) {
	dir := sharedtest.Interop(t)
	code, out, errOut := runCmd(t, "index",
		filepath.Join(dir, "warcio--post-test.warc.gz"),
		filepath.Join(dir, "warciojs--post-test-more.warc"),
		filepath.Join(dir, "warcio--example.warc"))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkSorted(t, out)
	golden(t, "post-revisit.cdxj", out)
}

func TestIndexOutputFile(t *testing.T) {
	files := sampleFiles(t)[:2]
	dir := t.TempDir()
	outPath := filepath.Join(dir, "out.cdxj")
	code, stdout, errOut := runCmd(t, "index", "-o", outPath, files[0], files[1])
	if code != exitOK || stdout != "" {
		t.Fatalf("exit %d, stdout %q: %s", code, stdout, errOut)
	}
	_, want, _ := runCmd(t, "index", files[0], files[1])
	got, err := os.ReadFile(outPath)
	if err != nil || string(got) != want {
		t.Fatalf("-o file differs from stdout output (%v)", err)
	}
	// A failing run leaves neither the target nor a temporary file.
	failPath := filepath.Join(dir, "fail.cdxj")
	if code, _, _ := runCmd(t, "index", "-o", failPath, files[0], filepath.Join(dir, "missing.warc")); code != exitFailure {
		t.Fatalf("missing input: exit %d, want %d", code, exitFailure)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("after a failed run the directory holds %d entries, want only out.cdxj", len(entries))
	}
}

func TestIndexExitStatus(t *testing.T) {
	files := sampleFiles(t)
	dir := t.TempDir()
	// A sample cut in the middle of a gzip member: malformed at the end.
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.warc.gz")
	if err := os.WriteFile(cut, data[:len(data)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string // substring expected on stderr
	}{
		{"ok", []string{"index", files[0]}, exitOK, ""},
		{"no input", []string{"index"}, exitUsage, "no INPUT"},
		{"bad flag", []string{"index", "-nope", files[0]}, exitUsage, "-nope"},
		{"bad mem", []string{"index", "-mem", "lots", files[0]}, exitUsage, "-mem"},
		{"bad policy", []string{"index", "-policy", "ignore", files[0]}, exitUsage, "-policy"},
		{"help", []string{"index", "-help"}, exitOK, "exit status"},
		{"missing file", []string{"index", filepath.Join(dir, "nope.warc.gz")}, exitFailure, "nope.warc.gz"},
		{"malformed warn", []string{"index", "-policy", "warn", files[1], cut}, exitSkipped, "cut.warc.gz: offset"},
		{"malformed skip", []string{"index", "-policy", "skip", cut}, exitSkipped, "skipped"},
		{"malformed fail", []string{"index", "-policy", "fail", cut}, exitFailure, "cut.warc.gz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.code, errOut)
			}
			if tt.name == "help" { // help is output: on stdout
				errOut = out
			}
			if !strings.Contains(errOut, tt.stderr) {
				t.Fatalf("stderr %q lacks %q", errOut, tt.stderr)
			}
			if tt.code == exitSkipped && !strings.Contains(out, "filename") {
				t.Fatal("no index written for the good records")
			}
		})
	}
}

// TestIndexCorpusManifest indexes the whole corpus with a small -mem (so
// the walk spills) and checks the HTML 200 captures of every URL against
// the corpus manifest, written by the tool that made the crawls: the same
// captures, in the same capture-time order, with the same payload digests.
func TestIndexCorpusManifest(t *testing.T) {
	corpus := sharedtest.Dir(t, "corpus")
	manifest, err := os.ReadFile(filepath.Join(corpus, "manifest.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{}
	for i, line := range strings.Split(strings.TrimSpace(string(manifest)), "\n") {
		f := strings.Split(line, "\t")
		if i == 0 || len(f) != 3 {
			continue
		}
		raw, err := hex.DecodeString(f[2])
		if err != nil {
			t.Fatalf("manifest line %d: %v", i+1, err)
		}
		ts := strings.NewReplacer("-", "", ":", "", "T", "", "Z", "").Replace(f[1])
		want[f[0]] = append(want[f[0]], ts+" "+base32.StdEncoding.EncodeToString(raw))
	}

	code, out, errOut := runCmd(t, "index", "-mem", "2MiB", "-tmp", t.TempDir(), corpus)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkSorted(t, out)
	got := map[string][]string{}
	n := 0
	for _, l := range parseCDXJ(t, []byte(out)) {
		if l.f["mime"] == "text/html" && l.f["status"] == "200" {
			got[l.f["url"]] = append(got[l.f["url"]], l.ts+" "+l.f["digest"])
			n++
		}
	}
	if len(want) == 0 || n < 1000 {
		t.Fatalf("manifest has %d URLs, index %d HTML captures", len(want), n)
	}
	for url, w := range want {
		if strings.Join(got[url], "\n") != strings.Join(w, "\n") {
			t.Errorf("%s: captures\n%s\nwant (manifest)\n%s", url, strings.Join(got[url], "\n"), strings.Join(w, "\n"))
		}
	}
	if len(got) != len(want) {
		t.Errorf("index has HTML captures of %d URLs, manifest %d", len(got), len(want))
	}
}

// TestIndexEqualKeysByteSorted: lines of one urlkey and timestamp (a
// capture's response, request and metadata) come in byte order, as
// `LC_ALL=C sort` puts them, so indexes merge with `sort -m`.
func TestIndexEqualKeysByteSorted(t *testing.T) {
	dir := sharedtest.Interop(t)
	code, out, errOut := runCmd(t, "index", "-policy", "skip", dir)
	if code != exitOK && code != exitSkipped {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkSorted(t, out)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	runs := 0
	for i := 1; i < len(lines); i++ {
		if keyTime(lines[i-1]) == keyTime(lines[i]) {
			runs++
			if lines[i-1] > lines[i] {
				t.Errorf("equal keys out of byte order:\n%s\n%s", lines[i-1], lines[i])
			}
		}
	}
	if runs < 10 {
		t.Errorf("only %d lines share key and time with the one before: the test proves little", runs)
	}
}

// keyTime is a CDXJ line's urlkey and timestamp.
func keyTime(line string) string {
	f := strings.SplitN(line, " ", 3)
	return f[0] + " " + f[1]
}
