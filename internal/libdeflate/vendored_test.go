package libdeflate

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestVendored checks that libdeflate/ holds exactly the files listed in
// testdata/sha256sums, with those contents: the files of tag v1.25 (git
// -C <clone> show v1.25:<file> | sha256sum), unmodified.
func TestVendored(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "sha256sums"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("bad line %q", sc.Text())
		}
		want[name] = sum
	}
	if len(want) == 0 || want["COPYING"] == "" || want["lib/deflate_decompress.c"] == "" {
		t.Fatalf("testdata/sha256sums lists %d files, not the licence and the decoder", len(want))
	}
	seen := 0
	err = filepath.WalkDir("libdeflate", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "README.blockwarc" {
			return err
		}
		name := filepath.ToSlash(strings.TrimPrefix(p, "libdeflate"+string(filepath.Separator)))
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		switch w, ok := want[name]; {
		case !ok:
			t.Errorf("libdeflate/%s is not in testdata/sha256sums", name)
		case w != hex.EncodeToString(sum[:]):
			t.Errorf("libdeflate/%s differs from libdeflate v1.25's", name)
		default:
			seen++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != len(want) {
		t.Errorf("%d of the %d files of testdata/sha256sums found intact", seen, len(want))
	}
	if Available && Version != "1.25" {
		t.Errorf("compiled in libdeflate %s, vendored 1.25", Version)
	}
}

// TestNoSystemLibdeflate checks that the decoder is the vendored one: the
// test binary needs no libdeflate, neither imports nor defines any of its
// names bare, and defines them under ld_prefix.h's bwld_.
func TestNoSystemLibdeflate(t *testing.T) {
	if !Available {
		t.Skip("built without cgo: no libdeflate at all")
	}
	sharedtest.CheckVendoredLink(t, []string{"libdeflate"},
		func(name string) bool { return strings.HasPrefix(name, "libdeflate_") }, "bwld_deflate_decompress_ex")
}
