package pack

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blockwarc/blockwarc/warcio"
)

// flagShortIDs, COMMIT flags bit 0: the archive names objects by the
// first ShortID bytes of their SHA-256 (docs/FORMAT.md "Object ids"). It is
// set when the archive is created and kept by every commit; an archive
// without it keeps whole ids.
const flagShortIDs = 1

// flagSettings, COMMIT flags bit 1: the archive records its Settings
// (bytes 28..32 their length, their bytes after the index list). Every
// commit of a writer since settings sets it.
const flagSettings = 2

// fileRef is one pack or index named by a commit: its number and its
// committed length (packs) or exact size (indexes).
type fileRef struct {
	num  uint32
	size int64
}

// manifest is the decoded COMMIT file (FORMAT.md "Commit file").
type manifest struct {
	seq     uint64
	short   bool      // flags bit 0: objects are named by ShortID-byte ids
	packs   []fileRef // increasing numbers
	indexes []fileRef // oldest first, increasing numbers
	// settings are the archive's (flags bit 1); nil in an archive
	// created before settings were recorded.
	settings *Settings
	// setAt is the generation of the settings object that holds
	// settings again (settings field 4; 0: none written yet).
	setAt   uint64
	payload []byte
}

// idLen is the length of the archive's object ids: ShortID or 32.
func (m *manifest) idLen() int {
	if m.short {
		return ShortID
	}
	return len(ID{})
}

func (m *manifest) encode() []byte {
	b := make([]byte, 0, commitFixedSize+16*(len(m.packs)+len(m.indexes))+len(m.payload)+4)
	b = append(b, commitMagic...)
	b = le.AppendUint16(b, formatVersion)
	var flags uint16
	if m.short {
		flags |= flagShortIDs
	}
	var set []byte
	if m.settings != nil {
		flags |= flagSettings
		set = m.settings.encode(nil, settingsFields, m.setAt)
	}
	b = le.AppendUint16(b, flags)
	b = le.AppendUint64(b, m.seq)
	b = le.AppendUint32(b, uint32(len(m.packs)))
	b = le.AppendUint32(b, uint32(len(m.indexes)))
	b = le.AppendUint32(b, uint32(len(m.payload)))
	b = le.AppendUint32(b, uint32(len(set)))
	for _, lists := range [][]fileRef{m.packs, m.indexes} {
		for _, r := range lists {
			b = le.AppendUint32(b, r.num)
			b = le.AppendUint32(b, 0)
			b = le.AppendUint64(b, uint64(r.size))
		}
	}
	b = append(b, set...)
	b = append(b, m.payload...)
	return le.AppendUint32(b, crc(b))
}

func decodeManifest(b []byte, file string) (*manifest, error) {
	if len(b) < commitFixedSize+4 {
		return nil, corrupt(file, 0, "commit file truncated (%d bytes)", len(b))
	}
	if string(b[:4]) != commitMagic {
		return nil, corrupt(file, 0, "bad magic %q, want %q", b[:4], commitMagic)
	}
	if le.Uint32(b[len(b)-4:]) != crc(b[:len(b)-4]) {
		return nil, corrupt(file, int64(len(b)-4), "commit checksum mismatch")
	}
	if v := le.Uint16(b[4:]); v < oldestFormat || v > formatVersion {
		return nil, corrupt(file, 4, "unsupported format version %d (this reader knows %d to %d)", v, oldestFormat, formatVersion)
	}
	f := le.Uint16(b[6:])
	if f&^(flagShortIDs|flagSettings) != 0 {
		return nil, corrupt(file, 6, "unknown flags %#x", f)
	}
	m := &manifest{seq: le.Uint64(b[8:]), short: f&flagShortIDs != 0}
	np, ni, nl := uint64(le.Uint32(b[16:])), uint64(le.Uint32(b[20:])), uint64(le.Uint32(b[24:]))
	ns := uint64(le.Uint32(b[28:]))
	if f&flagSettings == 0 && ns != 0 || ns > maxSettings {
		return nil, corrupt(file, 28, "bad settings length %d", ns)
	}
	if nl > maxPayload || commitFixedSize+16*(np+ni)+ns+nl+4 != uint64(len(b)) {
		return nil, corrupt(file, 16, "commit counts (%d packs, %d indexes, %d payload bytes) do not match its size %d", np, ni, nl, len(b))
	}
	p := commitFixedSize
	read := func(n uint64, what string) ([]fileRef, error) {
		refs := make([]fileRef, n)
		for i := range refs {
			r := fileRef{num: le.Uint32(b[p:]), size: int64(le.Uint64(b[p+8:]))}
			if le.Uint32(b[p+4:]) != 0 || r.size < 0 {
				return nil, corrupt(file, int64(p), "bad %s entry", what)
			}
			if i > 0 && r.num <= refs[i-1].num {
				return nil, corrupt(file, int64(p), "%s numbers not increasing", what)
			}
			refs[i] = r
			p += 16
		}
		return refs, nil
	}
	var err error
	if m.packs, err = read(np, "pack"); err != nil {
		return nil, err
	}
	for _, r := range m.packs {
		if r.size < packHeaderSize {
			return nil, corrupt(file, 0, "pack %d committed length %d shorter than a header", r.num, r.size)
		}
	}
	if m.indexes, err = read(ni, "index"); err != nil {
		return nil, err
	}
	if f&flagSettings != 0 {
		set, at, err := decodeSettings(b[p : p+int(ns)])
		if err != nil {
			return nil, corrupt(file, int64(p), "%v", err)
		}
		m.settings, m.setAt = &set, at
		p += int(ns)
	}
	m.payload = append([]byte(nil), b[p:p+int(nl)]...)
	return m, nil
}

// readManifest reads the archive's commit from COMMIT, or from its copy
// COMMIT.copy when COMMIT is missing or damaged (a copy that is itself
// damaged, or names files that are not there, does not count). The
// copy is written after COMMIT, so it holds the same generation or the
// one before; when it serves, recovered says so, to be said loudly:
// the next commit rewrites both.
func readManifest(dir string) (m *manifest, recovered string, err error) {
	path := filepath.Join(dir, commitName)
	m, err = readManifestFile(path)
	if err == nil {
		return m, "", nil
	}
	if errors.Is(err, ErrNotArchive) {
		if _, cerr := os.Stat(filepath.Join(dir, commitCopy)); cerr != nil {
			return nil, "", notArchive(dir)
		}
	}
	cm, cerr := readManifestFile(filepath.Join(dir, commitCopy))
	if cerr == nil {
		cerr = filesPresent(dir, cm)
	}
	if cerr != nil {
		if errors.Is(err, ErrNotArchive) {
			return nil, "", notArchive(dir)
		}
		return nil, "", err // COMMIT's error: the copy did not help
	}
	return cm, fmt.Sprintf("%s is unreadable (%v); read its copy %s (generation %d) instead", path, err, commitCopy, cm.seq), nil
}

// notArchive is the error of a directory without a commit file that
// reads: ErrNotArchive, or ErrCommitLost when pack files are there (an
// archive whose commit files were deleted: a writer must not take it
// for a new one, whose first commit would delete every pack).
func notArchive(dir string) error {
	if packs, _ := packsOnDisk(dir); len(packs) > 0 {
		return fmt.Errorf("open archive %s: %w: COMMIT and %s are missing while %d pack file(s) are there", dir, ErrCommitLost, commitCopy, len(packs))
	}
	return fmt.Errorf("open archive %s: %w", dir, ErrNotArchive)
}

// readManifestFile reads and decodes one commit file.
func readManifestFile(path string) (*manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, ErrNotArchive
		}
		return nil, fmt.Errorf("read commit: %w", err)
	}
	return decodeManifest(b, path)
}

// filesPresent checks that the files m names exist, the packs at least
// as long as committed and the indexes exactly so.
func filesPresent(dir string, m *manifest) error {
	for _, r := range m.packs {
		if fi, err := os.Stat(filepath.Join(dir, packName(r.num))); err != nil || fi.Size() < r.size {
			return fmt.Errorf("commit names %s of %d bytes, not there", packName(r.num), r.size)
		}
	}
	for _, r := range m.indexes {
		if fi, err := os.Stat(filepath.Join(dir, indexName(r.num))); err != nil || fi.Size() != r.size {
			return fmt.Errorf("commit names %s of %d bytes, not there", indexName(r.num), r.size)
		}
	}
	return nil
}

// publishManifest makes m the archive's commit: temp file, fsync, rename,
// fsync of the directory, so a crash leaves either the old or the new
// one; then the same again for the copy COMMIT.copy, so that one
// damaged commit file does not make the archive unreadable.
func publishManifest(dir string, m *manifest, o *Options) error {
	b := m.encode()
	for _, name := range []string{commitName, commitCopy} {
		if err := publishFile(dir, name, b, o); err != nil {
			return err
		}
	}
	return nil
}

func publishFile(dir, name string, b []byte, o *Options) error {
	tmp := filepath.Join(dir, commitTemp)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return fmt.Errorf("write commit: %w", err)
	}
	err = o.fault("write", tmp)
	if err == nil {
		_, err = f.Write(b)
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("write commit: %w", err)
	}
	err = o.fault("sync", tmp)
	if err == nil {
		err = fsync(f, o.noSync)
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("sync commit: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write commit: %w", err)
	}
	path := filepath.Join(dir, name)
	err = o.fault("rename", path)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("publish %s: %w", name, err)
	}
	if o.noSync {
		return nil
	}
	return warcio.SyncDir(dir)
}

// fsync is f.Sync unless the tests turned syncing off (a killed process
// loses no page cache, so crash tests do not need it).
func fsync(f *os.File, nosync bool) error {
	if nosync {
		return nil
	}
	return f.Sync()
}
