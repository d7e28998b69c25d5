package zlibenc

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestNoSystemZlib checks that the encoder is the vendored zlib, not the
// host's (which may be another version, or zlib-ng, and write other
// bytes): the test binary needs no libz, neither imports nor defines any
// of zlib's names (bare or with zlib's own z_ prefix), and defines them
// under zlib_prefix.h's bwz_; and the version compiled in is the one
// testdata/golden.txt was pinned with.
func TestNoSystemZlib(t *testing.T) {
	if !Available {
		t.Skip("built without cgo: no zlib at all")
	}
	golden, err := os.ReadFile(filepath.Join("testdata", "golden.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if head, _, _ := strings.Cut(string(golden), "\n"); head != "zlib "+Version() {
		t.Errorf("compiled in zlib %s, golden output pinned with %q", Version(), head)
	}

	// zlib's linked names: those its Z_PREFIX renames, and z_errmsg.
	zconf, err := os.ReadFile(filepath.Join("zlib", "zconf.h"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{"z_errmsg": true}
	for _, m := range regexp.MustCompile(`(?m)^#\s*define\s+(\w+)\s+z_(\w+)`).FindAllStringSubmatch(string(zconf), -1) {
		if m[1] == m[2] {
			names[m[1]], names["z_"+m[1]] = true, true
		}
	}
	if !names["deflateInit2_"] || !names["z_deflate"] {
		t.Fatalf("no zlib names found in zlib/zconf.h (%d)", len(names))
	}

	sharedtest.CheckVendoredLink(t, []string{"libz.", "libz-ng."}, func(name string) bool { return names[name] }, "bwz_deflate")
}
