// Package sharedtest locates the test data that lives beside the
// repository rather than in it: ../shared, with the interop samples
// (testdata/interop), the article-extraction pages
// (testdata/article-extraction) and the wget corpus (corpus/<site>).
//
// It is for tests, in the manner of net/http/httptest. One policy holds
// for every large-data check: when the data is missing the check is
// skipped with the reason, except under CI=true, where a missing input is
// a broken setup and fails the test, so that no check is silently
// reported as passing.
package sharedtest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// RepoRoot returns the directory holding the repository's go.mod (module
// blockwarc), found by walking up from the working directory (the package
// directory under go test); the go.mod of a module nested in the
// repository (cmd/blockwarc-beam) is passed over.
func RepoRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.HasPrefix(string(b), "module github.com/blockwarc/blockwarc\n") {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			tb.Fatal("go.mod not found above the package directory")
		}
		dir = up
	}
}

// Dir returns the path of ../shared/<sub...> next to the repository root.
// When that path does not exist the test is skipped ("../shared/corpus
// not found: large-data check skipped"), or fails under CI=true. With
// go test -short, checks reading the corpus are skipped.
func Dir(tb testing.TB, sub ...string) string {
	tb.Helper()
	if len(sub) > 0 && sub[0] == "corpus" && testing.Short() {
		// go test -short (the race-detector run of make test) leaves the
		// corpus, hundreds of megabytes, to the full run.
		tb.Skip("../shared/corpus: large-data check skipped in -short mode")
	}
	rel := filepath.Join(append([]string{"..", "shared"}, sub...)...)
	d := filepath.Join(RepoRoot(tb), rel)
	if _, err := os.Stat(d); err != nil {
		Unavailable(tb, "%s not found (%s): large-data check skipped; set up ../shared next to the repository to run it", filepath.ToSlash(rel), d)
	}
	return d
}

// Short is testing.Short() for a check that -short cuts down rather
// than skips (why: what it leaves out). It says so in the test's log
// ("-short mode"), which is how make test-corpus knows to run the test
// again in full (internal/testlog).
func Short(tb testing.TB, why string) bool {
	tb.Helper()
	if testing.Short() {
		tb.Logf("cut down in -short mode: %s", why)
		return true
	}
	return false
}

// Optional is Dir for a test that has a fallback when the data is
// missing (smaller inputs, fewer fuzz seeds): it returns the path of
// ../shared/<sub...> and true, or, when that path does not exist, logs
// the reason and returns false; under CI=true a missing path fails the
// test all the same, as the fallback would check less than CI must. With
// go test -short, a path in the corpus is reported missing without
// failing, as by Dir.
func Optional(tb testing.TB, sub ...string) (string, bool) {
	tb.Helper()
	rel := filepath.ToSlash(filepath.Join(append([]string{"..", "shared"}, sub...)...))
	if len(sub) > 0 && sub[0] == "corpus" && testing.Short() {
		tb.Logf("%s not used in -short mode", rel)
		return "", false
	}
	d := filepath.Join(RepoRoot(tb), "..", "shared", filepath.Join(sub...))
	if _, err := os.Stat(d); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("%s not found (%s) (CI=true: a missing input fails the test)", rel, d)
			return "", false
		}
		tb.Logf("%s not found (%s): the test runs without it", rel, d)
		return "", false
	}
	return d, true
}

// Interop returns ../shared/testdata/interop, the WARC files of other
// tools' test suites; as Dir when it is missing.
func Interop(tb testing.TB) string {
	tb.Helper()
	return Dir(tb, "testdata", "interop")
}

// CorpusFiles returns the .warc.gz files of the named corpus sites (every
// site when none is named), sorted by path: site, then crawl time, as the
// names start with the crawl date. A missing site is handled as by Dir;
// a site without WARC files fails the test, as the corpus is then broken.
func CorpusFiles(tb testing.TB, sites ...string) []string {
	tb.Helper()
	glob := func(pattern string) []string {
		fs, err := filepath.Glob(pattern)
		if err != nil || len(fs) == 0 {
			tb.Fatalf("no files match %s (%v): the shared corpus is incomplete", pattern, err)
		}
		return fs
	}
	var files []string
	if len(sites) == 0 {
		files = glob(filepath.Join(Dir(tb, "corpus"), "*", "*.warc.gz"))
	}
	for _, s := range sites {
		files = append(files, glob(filepath.Join(Dir(tb, "corpus", s), "*.warc.gz"))...)
	}
	slices.Sort(files)
	return files
}

// Unavailable reports that an input a test needs is missing: it fails
// the test under CI=true, where every check must run, and skips it with
// the reason otherwise. It does not return.
func Unavailable(tb testing.TB, format string, args ...any) {
	tb.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		tb.Fatalf("%s (CI=true: a missing input fails the test)", msg)
	} else {
		tb.Skip(msg)
	}
}

// CopyDir copies the regular files directly in from (an archive
// directory, say) into to, created if missing.
func CopyDir(tb testing.TB, from, to string) {
	tb.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		tb.Fatal(err)
	}
	ents, err := os.ReadDir(from)
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// ArchiveFiles reads every file under dir (an archive, shards included)
// but the lock files, by path relative to dir: for comparing two
// archives byte for byte.
func ArchiveFiles(tb testing.TB, dir string) map[string][]byte {
	tb.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "LOCK" {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		out[rel] = b
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}
