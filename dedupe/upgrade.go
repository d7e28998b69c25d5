package dedupe

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"strings"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/warcio"
)

// Outdated names what in the archive in dir an older format wrote, or
// an ingest left open (none: the archive is current, and an upgrade
// writes nothing). The pack layer's files are checked by pack.Outdated,
// the catalog's root and segments against catalogVersion and
// segmentVersion: the constants decide, so a new version makes every
// archive before it outdated without a list kept here.
func Outdated(dir string) ([]string, error) {
	old, err := pack.Outdated(dir)
	if err != nil {
		return nil, err
	}
	a, err := Open(dir, pack.Options{})
	if err != nil {
		return nil, err
	}
	defer a.Close()
	if a.root.Open != nil {
		old = append(old, interrupted)
	}
	if v, ok := catalogHeader(a.store.Payload(), rootMagic); ok && v < catalogVersion {
		old = append(old, fmt.Sprintf("catalog root is version %d (current %d)", v, catalogVersion))
	}
	segs := map[uint64]int{}
	for _, run := range a.root.Runs {
		for _, ref := range run {
			b, _, err := a.store.Get(ref.ID)
			if err != nil {
				return nil, fmt.Errorf("read catalog segment %s: %w", ref.ID, err)
			}
			if v, ok := catalogHeader(b, segmentMagic); ok && v < segmentVersion {
				segs[v]++
			}
		}
	}
	for v := uint64(oldestCatalog); v < segmentVersion; v++ {
		if segs[v] > 0 {
			old = append(old, fmt.Sprintf("%d catalog segment(s) of version %d (current %d)", segs[v], v, segmentVersion))
		}
	}
	return old, nil
}

// interrupted is what Outdated says of an archive whose ingest was
// interrupted: the new archive could not resume it, so upgrade refuses.
const interrupted = "an ingest was interrupted (run it again to complete it)"

// catalogHeader reads the version after a root's or segment's magic.
func catalogHeader(b []byte, magic string) (uint64, bool) {
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return 0, false
	}
	v, n := binary.Uvarint(b[len(magic):])
	return v, n > 0
}

// UpgradeOptions are what Upgrade's rewrite is given.
type UpgradeOptions struct {
	// Options set the rewrite's ingest (memory, workers, commit size,
	// TempDir for its sort runs); the settings and the parity choice are
	// the archive's own, whatever Options say.
	Options
	// Originals is the directory the input files are restored into
	// (empty: the staging directory beside the archive). Upgrade needs
	// free space there of about the input files' size.
	Originals string
	// BeforeSwap, when set, is called with the new archive once it is
	// verified, before it takes the old one's place: what it writes
	// there is published with it (the CLI's tables).
	BeforeSwap func(newDir string) error
	// Layout, when set, is how the archive is laid out in directories
	// (package shard: the shards its manifest names); nil: one archive.
	Layout *Layout
}

// Layout is how Upgrade reads and writes an archive made of several
// ordinary archives (shards), which package shard knows and dedupe
// does not.
type Layout struct {
	// Dirs are the ordinary archives in dir (each checked, locked).
	Dirs func(dir string) ([]string, error)
	// Open opens the archive in dir whole.
	Open func(dir string) (*Archive, error)
	// Ingest writes a new archive of the same layout as old into dir.
	Ingest func(ctx context.Context, old, dir string, inputs []string, opts Options) (Stats, error)
}

// plainLayout is one ordinary archive.
var plainLayout = &Layout{
	Dirs: func(dir string) ([]string, error) { return []string{dir}, nil },
	Open: func(dir string) (*Archive, error) { return Open(dir, pack.Options{}) },
	Ingest: func(ctx context.Context, _, dir string, inputs []string, opts Options) (Stats, error) {
		return Ingest(ctx, dir, inputs, opts)
	},
}

// outdated is Outdated over every directory of the layout, each named
// when there are several.
func (l *Layout) outdated(dir string) ([]string, error) {
	dirs, err := l.Dirs(dir)
	if err != nil {
		return nil, err
	}
	var all []string
	for _, d := range dirs {
		old, err := Outdated(d)
		if err != nil {
			return nil, err
		}
		for _, o := range old {
			if len(dirs) > 1 {
				o = filepath.Base(d) + ": " + o
			}
			all = append(all, o)
		}
	}
	return all, nil
}

// hold takes the writer lock of every directory of the layout.
func (l *Layout) hold(dir string) (func(), error) {
	dirs, err := l.Dirs(dir)
	if err != nil {
		return nil, err
	}
	var rels []func()
	release := func() {
		for _, r := range rels {
			r()
		}
	}
	for _, d := range dirs {
		r, err := pack.Hold(d)
		if err != nil {
			release()
			return nil, err
		}
		rels = append(rels, r)
	}
	return release, nil
}

// UpgradeStats says what Upgrade did.
type UpgradeStats struct {
	// Current: the archive was at the current format; nothing written.
	Current bool
	// Outdated lists what was older (Outdated) before the rewrite.
	Outdated []string
	// Leftovers: a killed upgrade's staging directory was removed.
	Leftovers bool
	// Records and Files are what was checked to restore alike, Exact
	// the files that restored bit for bit before and still do.
	Records, Files, Exact int64
	Ingest                Stats
}

// upgradeMark is the file that says a staging directory is an
// upgrade's, so that only those are ever removed as leftovers.
const upgradeMark = "BLOCKWARC-UPGRADE"

// StagingDir is where Upgrade builds the new archive of dir: a sibling,
// so that the swap is a rename within one directory.
func StagingDir(dir string) string {
	dir = filepath.Clean(dir)
	return filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".upgrade")
}

// Upgrade rewrites the archive in dir at the current format, if it is
// not (Outdated), and puts the new archive in its place (docs/COMMANDS.md
// "upgrade"). Under the archive's writer lock: every input file is
// restored (as given when it restores bit for bit, else as its
// decompressed stream) and ingested again into a staging directory
// beside dir, with dir's settings and parity choice; the new archive is
// verified (its objects, parity and files), every record of the old one
// must restore from it with the same SHA-256 and every file that
// restored bit for bit must still do; then the two directories are
// exchanged in one rename (so dir names the old archive or the new one
// at every instant) and the old one is removed. A run killed at any
// point leaves dir whole; the next run removes what it left.
func Upgrade(ctx context.Context, dir string, opts UpgradeOptions) (UpgradeStats, error) {
	var st UpgradeStats
	// Through a symbolic link, the directory itself is swapped, not the
	// link.
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return st, fmt.Errorf("open archive: %w", err)
	}
	staging := StagingDir(dir)
	l := opts.Layout
	if l == nil {
		l = plainLayout
	}
	old, err := l.outdated(dir)
	if err != nil {
		return st, err
	}
	if _, serr := os.Lstat(staging); len(old) == 0 && errors.Is(serr, os.ErrNotExist) {
		// Current and nothing left over: not even the lock is taken
		// (it would create LOCK where there is none).
		st.Current = true
		return st, nil
	}
	release, err := l.hold(dir)
	if err != nil {
		if len(old) == 0 {
			// A current archive a writer holds: nothing to do, and its
			// leftovers (if any) wait for a later run.
			st.Current = true
			return st, nil
		}
		return st, err
	}
	defer release()
	if st.Leftovers, err = removeStaging(staging); err != nil {
		return st, err
	}
	if opts.Originals != "" {
		// A killed run's originals elsewhere: named after the archive.
		if err := os.RemoveAll(originalsDir(dir, staging, opts.Originals)); err != nil {
			return st, err
		}
	}
	if opts.TempDir != "" {
		// And its ingest's sort runs there (no live walk's: they are
		// locked).
		warcio.RemoveStaleWalkDirs(opts.TempDir)
	}
	if len(old) == 0 {
		st.Current = true
		return st, nil
	}
	// Again under the lock: a writer may have finished meanwhile.
	if old, err = l.outdated(dir); err != nil || len(old) == 0 {
		st.Current = err == nil
		return st, err
	}
	st.Outdated = old
	for _, o := range old {
		if strings.HasSuffix(o, interrupted) {
			return st, fmt.Errorf("upgrade %s: an ingest was interrupted: run it again to complete it, then upgrade", dir)
		}
	}
	if err := os.Mkdir(staging, 0o755); err != nil {
		return st, fmt.Errorf("upgrade %s: %w", dir, err)
	}
	if err := os.WriteFile(filepath.Join(staging, upgradeMark), []byte(dir+"\n"), 0o644); err != nil {
		return st, fmt.Errorf("upgrade %s: %w", dir, err)
	}
	newDir := filepath.Join(staging, "new")
	err = rewrite(ctx, l, dir, newDir, staging, opts, &st)
	if err == nil && opts.BeforeSwap != nil {
		err = opts.BeforeSwap(newDir)
	}
	if err != nil {
		// The new archive is not swapped in: it goes, the old one stays.
		removeMarked(staging)
		return st, fmt.Errorf("upgrade %s: %w", dir, err)
	}
	if err := exchange(newDir, dir); err != nil {
		return st, fmt.Errorf("upgrade %s: swap in the new archive: %w", dir, err)
	}
	// newDir now holds the old archive; dir is the new one.
	if err := removeMarked(staging); err != nil {
		return st, fmt.Errorf("upgrade %s: remove the old archive (%s): %w", dir, staging, err)
	}
	return st, warcio.SyncDir(filepath.Dir(dir))
}

// removeStaging removes what a killed upgrade left beside the archive;
// a directory of that name that no upgrade made is refused, never
// removed.
func removeStaging(staging string) (bool, error) {
	if _, err := os.Lstat(staging); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if _, err := os.Stat(filepath.Join(staging, upgradeMark)); err != nil {
		// The mark is written right after the directory: an empty one
		// is an upgrade's killed in between.
		if ents, rerr := os.ReadDir(staging); rerr != nil || len(ents) > 0 {
			return false, fmt.Errorf("%s is in the way of an upgrade and is not one's: move it away", staging)
		}
	}
	if err := removeMarked(staging); err != nil {
		return false, fmt.Errorf("remove a killed upgrade's %s: %w", staging, err)
	}
	return true, nil
}

// removeMarked removes a staging directory, its mark last: os.RemoveAll
// goes in directory order, and killed after the mark and before the
// rest it left a directory the next upgrade refused as not an
// upgrade's.
func removeMarked(staging string) error {
	ents, err := os.ReadDir(staging)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, e := range ents {
		if e.Name() != upgradeMark {
			if err := os.RemoveAll(filepath.Join(staging, e.Name())); err != nil {
				return err
			}
		}
	}
	return os.RemoveAll(staging)
}

// rewrite writes the new archive of dir to newDir and checks it.
func rewrite(ctx context.Context, l *Layout, dir, newDir, staging string, opts UpgradeOptions, st *UpgradeStats) error {
	dirs, err := l.Dirs(dir)
	if err != nil {
		return err
	}
	// The settings and the parity choice are the archive's (a sharded
	// one's shards share them: one ingest's options created them).
	s, err := pack.Open(dirs[0], pack.Options{})
	if err != nil {
		return err
	}
	settings := s.Settings()
	s.Close()
	a, err := l.Open(dir)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.loadFiles(); err != nil {
		return err
	}
	if len(a.Files()) == 0 {
		return errors.New("the archive holds no input file")
	}
	ro := opts.Options
	ro.Pack.KeepSettings(settings)
	ro.Pack.NoParity = pack.WithoutParity(dirs[0])
	tmp := originalsDir(dir, staging, opts.Originals)
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	paths, err := a.restoreInputs(ctx, tmp, &ro, true)
	if err != nil {
		return err
	}
	if upgradeTamper != nil {
		upgradeTamper(paths)
	}
	if st.Ingest, err = l.Ingest(ctx, dir, newDir, paths, ro); err != nil {
		return err
	}
	os.RemoveAll(tmp) // before the checks: the space is the new archive's
	b, err := l.Open(newDir)
	if err != nil {
		return err
	}
	defer b.Close()
	return checkUpgrade(a, b, st)
}

// checkUpgrade verifies the new archive and that it holds what the old
// one a holds: every record, with the same SHA-256, and every input file
// that restored bit for bit.
func checkUpgrade(a, b *Archive, st *UpgradeStats) error {
	var first error
	vst, err := b.Verify(func(p Problem) {
		if first == nil {
			first = p
		}
	})
	if err == nil {
		err = first
	}
	if err != nil {
		return fmt.Errorf("the new archive does not verify: %w", err)
	}
	proved := map[string]bool{}
	for _, c := range vst.Inputs {
		proved[c.File.Name] = c.Original && c.SHA256 == c.File.SHA256
	}
	for _, f := range a.Files() {
		st.Files++
		if !f.OriginalExact() {
			continue
		}
		if !proved[f.Name] {
			return fmt.Errorf("input file %s restored bit for bit from the old archive and does not from the new one", f.Name)
		}
		st.Exact++
	}
	oldSum, n, err := recordSum(a)
	if err != nil {
		return fmt.Errorf("old archive: %w", err)
	}
	newSum, m, err := recordSum(b)
	if err != nil {
		return fmt.Errorf("new archive: %w", err)
	}
	if n != m || oldSum != newSum {
		return fmt.Errorf("the new archive's records are not the old one's (%d records, %d before, or other bytes)", m, n)
	}
	st.Records = n
	return nil
}

// recordSum is a digest of the multiset of an archive's records: the
// sum, mod 2^256, of SHA-256(key, SHA-256(record)) over every record.
// A sum rather than a sorted list keeps the check's memory independent
// of the archive's size, and the order of runs (an archive ingested in
// several runs lists a key's versions per run; its rewrite in one) out
// of it.
func recordSum(a *Archive) (sum [4]uint64, n int64, err error) {
	err = a.Walk(func(u URLVersions) error {
		for i := range u.Versions {
			p, err := a.Restore(&u.Versions[i])
			if err != nil {
				return fmt.Errorf("restore %s: %w", u.Key, err)
			}
			r := sha256.Sum256(p.Record())
			h := sha256.New()
			h.Write([]byte(u.Key))
			h.Write([]byte{0})
			h.Write(r[:])
			var d [32]byte
			h.Sum(d[:0])
			var c uint64
			for j := range sum {
				sum[j], c = bits.Add64(sum[j], binary.LittleEndian.Uint64(d[8*j:]), c)
			}
			n++
		}
		return nil
	})
	return sum, n, err
}

// originalsDir is where the input files of dir are restored: in the
// staging directory, or under tmp in a directory named after dir's
// absolute path, so that the next run finds what a killed one left.
func originalsDir(dir, staging, tmp string) string {
	if tmp == "" {
		return filepath.Join(staging, "originals")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(tmp, fmt.Sprintf("blockwarc-upgrade-%x", sum[:8]))
}

// upgradeTamper, set by tests only, changes the restored input files
// before they are ingested: a new archive that must fail the checks.
var upgradeTamper func(paths []string)
