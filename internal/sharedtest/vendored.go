package sharedtest

import (
	"debug/elf"
	"errors"
	"os"
	"strings"
	"testing"
)

// CheckVendoredLink checks that a vendored C library is what the running
// test binary links, under its prefixed names, and not the host's: the
// binary needs no shared library whose name starts with one of libs;
// imports, leaves undefined and defines no name for which bare is true
// (nor imports prefixed); and defines prefixed, a name only the vendored
// copy has. A binary that is not ELF is skipped; one without a symbol
// table (go test strips its binaries; go test -c keeps the table) is
// checked for its imports only.
func CheckVendoredLink(t testing.TB, libs []string, bare func(string) bool, prefixed string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Skipf("test binary is not ELF: %v", err)
	}
	defer f.Close()
	needed, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range needed {
		for _, p := range libs {
			if strings.HasPrefix(l, p) {
				t.Errorf("test binary needs %s", l)
			}
		}
	}
	imported, err := f.ImportedSymbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range imported {
		if bare(s.Name) || s.Name == prefixed {
			t.Errorf("test binary imports %s (from %s)", s.Name, s.Library)
		}
	}
	syms, err := f.Symbols()
	if errors.Is(err, elf.ErrNoSymbols) {
		t.Log("test binary has no symbol table: the names it defines are not checked")
		return
	} else if err != nil {
		t.Fatal(err)
	}
	var defined bool
	for _, s := range syms {
		if typ := elf.ST_TYPE(s.Info); typ != elf.STT_FUNC && typ != elf.STT_OBJECT && typ != elf.STT_NOTYPE {
			continue // file names (libdeflate_cgo.cgo2.c) and sections
		}
		if s.Section == elf.SHN_UNDEF {
			if bare(s.Name) {
				t.Errorf("test binary leaves %s undefined", s.Name)
			}
			continue
		}
		if bare(s.Name) {
			t.Errorf("test binary defines %s: a name the host's library also has", s.Name)
		}
		defined = defined || s.Name == prefixed
	}
	if !defined {
		t.Errorf("test binary does not define %s: the vendored library is not linked in", prefixed)
	}
}
