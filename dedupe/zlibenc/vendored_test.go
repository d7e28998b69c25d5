package zlibenc

import (
	"debug/elf"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Skipf("test binary is not ELF: %v", err)
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range libs {
		if strings.HasPrefix(l, "libz.") || strings.HasPrefix(l, "libz-ng.") {
			t.Errorf("test binary needs %s", l)
		}
	}
	imported, err := f.ImportedSymbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range imported {
		if names[s.Name] {
			t.Errorf("test binary imports %s (from %s)", s.Name, s.Library)
		}
	}
	syms, err := f.Symbols()
	if errors.Is(err, elf.ErrNoSymbols) {
		// go test strips its binaries; go test -c, or -ldflags=-s=false, keeps the table.
		t.Log("test binary has no symbol table: the names it defines are not checked")
		return
	} else if err != nil {
		t.Fatal(err)
	}
	var prefixed bool
	for _, s := range syms {
		if s.Section == elf.SHN_UNDEF {
			if names[s.Name] {
				t.Errorf("test binary leaves %s undefined", s.Name)
			}
			continue
		}
		if names[s.Name] {
			t.Errorf("test binary defines %s: a name a system libz also has", s.Name)
		}
		prefixed = prefixed || s.Name == "bwz_deflate"
	}
	if !prefixed {
		t.Error("test binary does not define bwz_deflate: the vendored zlib is not linked in")
	}
}
