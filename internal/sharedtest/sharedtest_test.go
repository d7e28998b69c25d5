package sharedtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records how a helper ended the test
// instead of ending it.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                           {}
func (r *recorder) Skip(args ...any)                  { r.skipped = fmt.Sprint(args...) }
func (r *recorder) Fatalf(format string, args ...any) { r.failed = fmt.Sprintf(format, args...) }

func TestUnavailable(t *testing.T) {
	t.Setenv("CI", "")
	r := &recorder{TB: t}
	Unavailable(r, "../shared/%s not found", "corpus")
	if r.skipped != "../shared/corpus not found" || r.failed != "" {
		t.Errorf("outside CI: skipped %q, failed %q; want a skip with the reason", r.skipped, r.failed)
	}

	t.Setenv("CI", "true")
	r = &recorder{TB: t}
	Unavailable(r, "../shared/%s not found", "corpus")
	if r.skipped != "" || !strings.HasPrefix(r.failed, "../shared/corpus not found") || !strings.Contains(r.failed, "CI=true") {
		t.Errorf("under CI=true: skipped %q, failed %q; want a failure naming CI", r.skipped, r.failed)
	}
}

func TestRepoRoot(t *testing.T) {
	root := RepoRoot(t)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// This package sits at internal/sharedtest of the module.
	if want := filepath.Dir(filepath.Dir(wd)); root != want {
		t.Errorf("RepoRoot = %s, want %s", root, want)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Error(err)
	}
}

func TestDirMissing(t *testing.T) {
	t.Setenv("CI", "")
	r := &recorder{TB: t}
	Dir(r, "no-such-dir")
	if !strings.HasPrefix(r.skipped, "../shared/no-such-dir not found") || !strings.Contains(r.skipped, "skipped") {
		t.Errorf("skip reason %q, want it to name ../shared/no-such-dir", r.skipped)
	}
}

func TestCorpusFiles(t *testing.T) {
	all := CorpusFiles(t)
	site := CorpusFiles(t, "mkdocs-org")
	if len(site) == 0 || len(all) <= len(site) {
		t.Fatalf("%d files of mkdocs-org, %d in all: want some, and more in all", len(site), len(all))
	}
	for i, f := range site {
		if filepath.Base(filepath.Dir(f)) != "mkdocs-org" || !strings.HasSuffix(f, ".warc.gz") {
			t.Errorf("file %s is not a .warc.gz of mkdocs-org", f)
		}
		if i > 0 && site[i-1] >= f {
			t.Errorf("files not sorted: %s before %s", site[i-1], f)
		}
	}
}

// TestCopyDir: the files of a directory are copied byte for byte, a
// subdirectory is left out.
func TestCopyDir(t *testing.T) {
	from, to := t.TempDir(), filepath.Join(t.TempDir(), "new")
	if err := os.WriteFile(filepath.Join(from, "a"), []byte("alpha"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(from, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	CopyDir(t, from, to)
	if b, err := os.ReadFile(filepath.Join(to, "a")); err != nil || string(b) != "alpha" {
		t.Fatalf("copied a: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(to, "sub")); !os.IsNotExist(err) {
		t.Fatalf("subdirectory copied: %v", err)
	}
}

// TestOptionalMissing: a missing path is reported as such, the test going
// on outside CI and failing under CI=true.
func TestOptionalMissing(t *testing.T) {
	t.Setenv("CI", "")
	r := &recorder{TB: t}
	if d, ok := Optional(r, "no-such-dir"); ok || d != "" || r.skipped != "" || r.failed != "" {
		t.Errorf("outside CI: %q, %v, skipped %q, failed %q; want not found, the test going on", d, ok, r.skipped, r.failed)
	}

	t.Setenv("CI", "true")
	r = &recorder{TB: t}
	if _, ok := Optional(r, "no-such-dir"); ok || !strings.HasPrefix(r.failed, "../shared/no-such-dir not found") || !strings.Contains(r.failed, "CI=true") {
		t.Errorf("under CI=true: %v, failed %q; want a failure naming the path and CI", ok, r.failed)
	}
}
