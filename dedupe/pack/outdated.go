package pack

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/blockwarc/blockwarc/dedupe/parity"
)

// Outdated names what in the archive in dir this writer would write
// otherwise (none: the pack layer is current): a COMMIT, pack or index
// of an older version than formatVersion and currentIndex, a COMMIT
// without short ids or settings (a writer keeps both as the archive was
// created), a parity sidecar of a version no longer written. It is
// driven by the version constants alone, so that a new version makes
// every older archive outdated without a second list of numbers
// (blockwarc upgrade, docs/FORMAT.md "Stability").
func Outdated(dir string) ([]string, error) {
	m, _, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	var old []string
	cb, err := os.ReadFile(filepath.Join(dir, commitName))
	if err == nil && len(cb) >= 8 && fileVersion(cb) < formatVersion {
		old = append(old, fmt.Sprintf("%s is format %d (current %d)", commitName, fileVersion(cb), formatVersion))
	}
	if !m.short {
		old = append(old, "object ids are whole SHA-256 (current: short ids)")
	}
	if m.settings == nil {
		old = append(old, "COMMIT records no settings")
	}
	check := func(name, magic string, want uint16) error {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		defer f.Close()
		var h [packHeaderSize]byte
		if _, err := io.ReadFull(f, h[:]); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if string(h[:4]) == magic && fileVersion(h[:]) < want {
			old = append(old, fmt.Sprintf("%s is format %d (current %d)", name, fileVersion(h[:]), want))
		}
		return nil
	}
	for _, p := range m.packs {
		if err := check(packName(p.num), packMagic, formatVersion); err != nil {
			return nil, err
		}
	}
	for _, r := range m.indexes {
		if err := check(indexName(r.num), indexMagic, currentIndex); err != nil {
			return nil, err
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if !isParityName(e.Name()) || strings.HasSuffix(e.Name(), ".tmp") {
			continue
		}
		sc, err := parity.OpenMeta(filepath.Join(dir, e.Name()))
		if err == nil && sc.Outdated() {
			old = append(old, e.Name()+" is a parity sidecar of an older version")
		}
	}
	return old, nil
}

// Hold takes the archive's writer lock without waiting, as a writer's
// Begin does, so that no writer runs until release (blockwarc upgrade
// holds it while it rewrites and swaps the archive). A held lock is a
// *LockedError.
func Hold(dir string) (release func(), err error) {
	l, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	return func() { unlock(l) }, nil
}
