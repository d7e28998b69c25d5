package main

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestLs: one line per URL with its captures and first/last time, a
// prefix filter, every capture with -captures, JSON lines that parse.
func TestLs(t *testing.T) {
	bwa := tinderArchive(t)
	code, out, stderr := runCmd(t, "ls", bwa)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var privacy []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("line %q: want URL, captures, first, last", line)
		}
		if f[0] == tinderPrivacy {
			privacy = f
		}
	}
	// The fixture holds eight crawls of the policy.
	if privacy == nil || privacy[1] != "8" || privacy[2] != "2022-01-08T06:30:13Z" || !strings.HasPrefix(privacy[3], "2024-01-19") {
		t.Errorf("privacy policy line %q", privacy)
	}
	code, out, _ = runCmd(t, "ls", "-json", bwa, "http://127.0.0.1:8102/Tinder/P")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	lines := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var row struct {
			URL      string `json:"url"`
			Captures int    `json:"captures"`
			First    string `json:"first"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(row.URL, "http://127.0.0.1:8102/Tinder/P") || row.Captures == 0 || row.First == "" {
			t.Errorf("row %+v", row)
		}
		lines++
	}
	if lines != 1 {
		t.Errorf("prefix .../Tinder/P: %d URLs, want the privacy policy only", lines)
	}
	code, out, _ = runCmd(t, "ls", "-captures", bwa, tinderPrivacy)
	if code != exitOK || strings.Count(out, "\tresponse\tblocks\t") != 8 || !strings.Contains(out, "\trequest\t") {
		t.Errorf("-captures (exit %d):\n%s", code, out)
	}
}

// TestCatNear: -near picks the nearest capture, before or after; an ISO
// date works wherever a time is taken.
func TestCatNear(t *testing.T) {
	bwa := tinderArchive(t)
	_, before, _ := runCmd(t, "cat", "-at", "20240112", bwa, tinderPrivacy)
	_, after, _ := runCmd(t, "cat", "-at", "20240119", bwa, tinderPrivacy)
	if before == after || before == "" {
		t.Fatal("fixture: the two captures should differ")
	}
	for _, tc := range []struct{ t, want string }{
		{"2024-01-13", before}, // one day after the 12th, six before the 19th
		{"2024-01-18", after},  // one day before the 19th
		{"2024-01-12", before}, // inside the day
	} {
		// -at takes the same forms: the latest capture at or before the day's end.
		if code, got, stderr := runCmd(t, "cat", "-at", tc.t, bwa, tinderPrivacy); code != exitOK || got != before {
			t.Errorf("-at %s: exit %d %s, not the capture of the 12th", tc.t, code, stderr)
		}
		code, got, stderr := runCmd(t, "cat", "-near", tc.t, bwa, tinderPrivacy)
		if code != exitOK || got != tc.want {
			t.Errorf("-near %s: exit %d %s, wrong capture", tc.t, code, stderr)
		}
	}
	if code, _, _ := runCmd(t, "cat", "-near", "2024", "-at", "2024", bwa, tinderPrivacy); code != exitUsage {
		t.Errorf("-near with -at: exit %d, want usage", code)
	}
}

// TestVersionAndHelp: version prints on stdout; -help of any command is
// the output (stdout, exit 0), a bad flag an error (stderr, exit 2).
func TestVersionAndHelp(t *testing.T) {
	code, out, _ := runCmd(t, "version")
	if code != exitOK || !strings.HasPrefix(out, "blockwarc ") || !strings.Contains(out, "go1.") {
		t.Errorf("version: exit %d %q", code, out)
	}
	if code, out2, _ := runCmd(t, "-version"); code != exitOK || out2 != out {
		t.Errorf("-version: exit %d %q", code, out2)
	}
	for cmd := range commands() {
		for _, args := range [][]string{{cmd, "-help"}, {cmd, "-h"}, {"help", cmd}} {
			code, out, stderr := runCmd(t, args...)
			if code != exitOK || !strings.HasPrefix(out, "usage: blockwarc "+cmd) || !strings.Contains(out, "exit status:") || stderr != "" {
				t.Errorf("%v: exit %d, stdout %.40q, stderr %.40q", args, code, out, stderr)
			}
		}
	}
	// The command list: asked for, on stdout; given nothing, on stderr.
	for _, arg := range []string{"-help", "--help", "help"} {
		code, out, stderr := runCmd(t, arg)
		if code != exitOK || !strings.Contains(out, "\n  ingest ") || stderr != "" {
			t.Errorf("blockwarc %s: exit %d, stdout %.40q, stderr %.40q", arg, code, out, stderr)
		}
	}
	if code, out, stderr := runCmd(t); code != exitUsage || out != "" || !strings.Contains(stderr, "\n  ingest ") {
		t.Errorf("blockwarc: exit %d, stdout %.40q", code, out)
	}
	if code, out, stderr := runCmd(t, "help", "nope"); code != exitUsage || out != "" || !strings.Contains(stderr, `unknown command "nope"`) {
		t.Errorf("help nope: exit %d, stdout %.40q, stderr %.40q", code, out, stderr)
	}
	if code, _, stderr := runCmd(t, "version", "extra"); code != exitUsage || !strings.Contains(stderr, "takes no arguments") {
		t.Errorf("version extra: exit %d, %q", code, stderr)
	}
	if code, out, stderr := runCmd(t, "ls", "-nope"); code != exitUsage || out != "" || !strings.Contains(stderr, "-nope") {
		t.Errorf("bad flag: exit %d, stdout %q", code, out)
	}
}

// TestArchivePathErrors: a path that is missing, a regular file or an
// empty directory each get the error that names what is wrong.
func TestArchivePathErrors(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/file.txt"
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{dir + "/missing.bwa", "no such file or directory"},
		{file, "not a directory"},
		{dir, "not a blockwarc archive"},
	} {
		for _, cmd := range [][]string{
			{"cat", tc.path, "http://example.org/"}, {"ls", tc.path}, {"verify", tc.path},
			{"tables", tc.path}, {"report", tc.path}, {"export-warc", tc.path},
			{"diff", tc.path, "http://example.org/"}, {"blocks", tc.path, "http://example.org/"},
			{"repair", tc.path},
		} {
			code, _, stderr := runCmd(t, cmd...)
			// One line that names the path once (not "open archive X: open archive X: ...").
			if code != exitFailure || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 ||
				strings.Count(stderr, tc.path) != 1 {
				t.Errorf("%v: exit %d, %q, want %q", cmd, code, stderr, tc.want)
			}
		}
	}
	// ingest creates a missing archive, but not in place of a file.
	if code, _, stderr := runCmd(t, "ingest", file, sampleFiles(t)[0]); code != exitFailure || stderr != "blockwarc ingest: archive "+file+": not a directory\n" {
		t.Errorf("ingest into a file: exit %d, %q", code, stderr)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "x" {
		t.Errorf("ingest into a file changed it: %q, %v", b, err)
	}
}

// TestIngestFailureLeavesNoArchive: an ingest that commits nothing (a
// missing input, an empty directory) leaves no empty archive behind, and
// says why; an existing archive is never removed.
func TestIngestFailureLeavesNoArchive(t *testing.T) {
	dir := t.TempDir()
	empty := dir + "/empty"
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for in, msg := range map[string]string{empty: "no WARC or ARC files", dir + "/none.warc.gz": "no such file"} {
		arch := dir + "/a.bwa"
		code, _, stderr := runCmd(t, "ingest", arch, in)
		if code != exitFailure || !strings.Contains(stderr, msg) {
			t.Errorf("%s: exit %d %q, want %q", in, code, stderr, msg)
		}
		if _, err := os.Stat(arch); !os.IsNotExist(err) {
			t.Errorf("%s: the failed ingest left %s behind (%v)", in, arch, err)
		}
		// index reads inputs by the same rule.
		if code, _, stderr := runCmd(t, "index", in); code != exitFailure || !strings.Contains(stderr, msg) {
			t.Errorf("index %s: exit %d %q, want %q", in, code, stderr, msg)
		}
	}
	// An empty directory made for the archive stays, still empty.
	made := dir + "/made.bwa"
	if err := os.Mkdir(made, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := runCmd(t, "ingest", made, empty); code != exitFailure {
		t.Errorf("ingest of an empty directory: exit %d", code)
	}
	if ents, err := os.ReadDir(made); err != nil || len(ents) != 0 {
		t.Errorf("the failed ingest left %v in the empty directory it was given (%v)", ents, err)
	}
	arch := dir + "/kept.bwa"
	if code, _, stderr := runCmd(t, "ingest", "-tables=false", arch, sampleFiles(t)[0]); code != exitOK {
		t.Fatalf("ingest: %s", stderr)
	}
	if code, _, _ := runCmd(t, "ingest", arch, empty); code != exitFailure {
		t.Errorf("second ingest of an empty directory: exit %d", code)
	}
	if code, _, stderr := runCmd(t, "verify", arch); code != exitOK {
		t.Errorf("the existing archive did not survive a failed ingest: %s", stderr)
	}
}
