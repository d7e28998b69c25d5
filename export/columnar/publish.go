package columnar

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/blockwarc/blockwarc/warcio"
)

// Names of the sibling directories next to the target dir: ".tmp-" while
// being written (or, after an exchange, the old tables on their way out),
// ".old-" for the old tables moved aside where the two directories cannot
// be exchanged in one step.
const (
	tmpInfix = ".tmp-"
	oldInfix = ".old-"
)

// ErrLocked is returned by NewWriter when another writer is writing tables
// next to the same target.
var ErrLocked = errors.New("another tables writer is running")

// lockParent takes an exclusive, non-waiting lock on dir's parent
// directory (flock on the directory itself: no file is created). It keeps
// a second writer from removing the first one's temporary directory as a
// leftover. The kernel drops the lock when the process dies.
func lockParent(dir string) (*os.File, error) {
	parent := filepath.Dir(dir)
	f, err := os.Open(parent)
	if err != nil {
		return nil, fmt.Errorf("open tables parent: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("write tables in %s: %w", parent, ErrLocked)
		}
		return nil, fmt.Errorf("lock %s: %w", parent, err)
	}
	return f, nil
}

func unlockParent(f *os.File) {
	if f != nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}

// siblings returns the leftover sibling directories of dir with the given
// infix.
func siblings(dir, infix string) ([]string, error) {
	parent, base := filepath.Dir(dir), filepath.Base(dir)
	ents, err := os.ReadDir(parent)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", parent, err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), base+infix) {
			out = append(out, filepath.Join(parent, e.Name()))
		}
	}
	return out, nil
}

// recoverTarget repairs what an interrupted writer left (the caller holds
// the lock): unfinished ".tmp-" directories are removed; old tables moved
// aside are put back if the new ones never arrived, else removed.
func recoverTarget(dir string) error {
	tmps, err := siblings(dir, tmpInfix)
	if err != nil {
		return err
	}
	for _, d := range tmps {
		// Only what a writer writes: a user's directory that happens to
		// bear the name (-o out beside out.tmp-notes) is not a leftover.
		if checkReplaceable(d) != nil {
			continue
		}
		if err := os.RemoveAll(d); err != nil {
			return fmt.Errorf("remove unfinished tables: %w", err)
		}
	}
	olds, err := siblings(dir, oldInfix)
	if err != nil {
		return err
	}
	for _, d := range olds {
		if checkReplaceable(d) != nil {
			continue // not old tables (out.old-2023 of the user's)
		}
		if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
			if err := os.Rename(d, dir); err != nil {
				return fmt.Errorf("restore old tables: %w", err)
			}
			continue
		}
		if err := os.RemoveAll(d); err != nil {
			return fmt.Errorf("remove old tables: %w", err)
		}
	}
	return nil
}

// checkReplaceable returns nil when dir does not exist or holds only what
// a Writer writes: table directories of part files. Anything else (a
// mistyped -o pointing at someone's files) is refused, never removed.
func checkReplaceable(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check tables directory: %w", err)
	}
	refuse := func(what string) error {
		return fmt.Errorf("refuse to replace %s: %s is not a table or part file of blockwarc", dir, what)
	}
	if !fi.IsDir() {
		return refuse(dir)
	}
	known := make(map[string]bool)
	for _, name := range Tables() {
		known[name] = true
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("check tables directory: %w", err)
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		// GENERATION.tmp is AdvanceGeneration's, left whole, empty or
		// half written by one killed before its rename: the tables are
		// still a writer's, and rewriting them is what repairs them.
		if (e.Name() == GenerationFile || e.Name() == generationTemp) && e.Type().IsRegular() {
			continue
		}
		if !e.IsDir() || !known[e.Name()] {
			return refuse(p)
		}
		parts, err := os.ReadDir(p)
		if err != nil {
			return fmt.Errorf("check tables directory: %w", err)
		}
		for _, pe := range parts {
			n := pe.Name()
			if !pe.Type().IsRegular() || !strings.HasPrefix(n, "part-") ||
				!(strings.HasSuffix(n, Parquet.Ext()) || strings.HasSuffix(n, Arrow.Ext())) {
				return refuse(filepath.Join(p, n))
			}
		}
	}
	return nil
}

// syncDirs syncs the table directories under root and root itself, so the
// part files' names are durable before root is published.
func syncDirs(root string, names []string) error {
	for _, n := range names {
		if err := warcio.SyncDir(filepath.Join(root, n)); err != nil {
			return err
		}
	}
	return warcio.SyncDir(root)
}

// publish makes tmp the target dir. Where the system can exchange two
// directories in one rename (Linux renameat2 RENAME_EXCHANGE) the old
// tables leave and the new arrive at once; elsewhere the old tables are
// renamed aside first, and a crash between the two renames is repaired by
// the next writer (recoverTarget puts the old tables back).
func publish(tmp, dir string) error { return publishWith(tmp, dir, exchange) }

// publishWith is publish with the exchange step given (tests pass one that
// always fails, to take the fallback path).
func publishWith(tmp, dir string, exchange func(a, b string) error) error {
	parent := filepath.Dir(dir)
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.Rename(tmp, dir); err != nil {
			return fmt.Errorf("publish tables: %w", err)
		}
		return warcio.SyncDir(parent)
	}
	switch err := exchange(tmp, dir); {
	case err == nil:
		// tmp now holds the old tables; a crash before the removal leaves a
		// ".tmp-" directory that the next writer removes.
		if err := warcio.SyncDir(parent); err != nil {
			return err
		}
		if err := os.RemoveAll(tmp); err != nil {
			return fmt.Errorf("remove old tables: %w", err)
		}
		return nil
	case !errors.Is(err, errNoExchange):
		return fmt.Errorf("publish tables: %w", err)
	}
	old := filepath.Join(parent, filepath.Base(dir)+oldInfix+strings.TrimPrefix(filepath.Base(tmp), filepath.Base(dir)+tmpInfix))
	if err := os.Rename(dir, old); err != nil {
		return fmt.Errorf("move old tables aside: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if rerr := os.Rename(old, dir); rerr != nil {
			return fmt.Errorf("publish tables: %w (and restore old tables: %v)", err, rerr)
		}
		return fmt.Errorf("publish tables: %w", err)
	}
	if err := warcio.SyncDir(parent); err != nil {
		return err
	}
	if err := os.RemoveAll(old); err != nil {
		return fmt.Errorf("remove old tables: %w", err)
	}
	return nil
}

// errNoExchange is returned by exchange where the system or file system
// cannot swap two directories in one step.
var errNoExchange = errors.New("atomic exchange not supported")

// GenerationFile, in a tables directory, holds the generation of the
// archive the tables describe (WriterOptions.Generation) on its first
// line, then optional lines "KEY VALUE" (Generation): "records N", the
// archive's records then, and "behind G", the archive's generation at
// which an ingest left the tables as they are on purpose (blockwarc
// ingest -tables=auto). Tables written without a generation (by
// blockwarc before it, or the Beam pipeline) have no such file.
const GenerationFile = "GENERATION"

// generationTemp is where a rewrite of GenerationFile is written before
// it is renamed into place.
const generationTemp = GenerationFile + ".tmp"

// Generation is what GenerationFile says.
type Generation struct {
	// Gen is the generation of the archive the tables describe.
	Gen string
	// Records is the number of the archive's records at Gen (0: not
	// recorded, tables written before the field).
	Records int64
	// Behind, when set, is the later generation of the archive at which
	// an ingest chose not to rewrite the tables (they still describe
	// Gen): they are behind by policy, not left stale by a failure.
	Behind string
}

// encode is the file's text.
func (g Generation) encode() string {
	s := g.Gen + "\n"
	if g.Records > 0 {
		s += fmt.Sprintf("records %d\n", g.Records)
	}
	if g.Behind != "" {
		s += "behind " + g.Behind + "\n"
	}
	return s
}

// writeGeneration writes GenerationFile into the tables being published
// at tmp, synced with tmp, when g.Gen is set.
func writeGeneration(tmp string, g Generation) error {
	if g.Gen == "" {
		return nil
	}
	if err := writeGenerationFile(filepath.Join(tmp, GenerationFile), g); err != nil {
		return err
	}
	return warcio.SyncDir(tmp)
}

// writeGenerationFile writes g to the file p, synced.
func writeGenerationFile(p string, g Generation) error {
	f, err := os.Create(p)
	if err != nil {
		return fmt.Errorf("write tables generation: %w", err)
	}
	if _, err := f.WriteString(g.encode()); err != nil {
		f.Close()
		return fmt.Errorf("write tables generation: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write tables generation: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write tables generation: %w", err)
	}
	return nil
}

// replaceGeneration writes g as the GenerationFile of the tables at dir
// in one step (a temporary file renamed over it).
func replaceGeneration(dir string, g Generation) error {
	tmp := filepath.Join(dir, generationTemp)
	if err := writeGenerationFile(tmp, g); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, GenerationFile)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write tables generation: %w", err)
	}
	return warcio.SyncDir(dir)
}

// AdvanceGeneration records in the tables at dir that what they say
// holds for the archive's generation to as it did for from: for a
// commit that changes nothing the tables show (blockwarc prove records
// how input files restore compressed, which no table holds). Tables
// describing from now describe to; tables behind by policy at from are
// behind at to. It says whether it changed the file; tables recording
// neither, or no generation, are left alone.
func AdvanceGeneration(dir, from, to string) (bool, error) {
	g, ok, err := ReadGenerationInfo(dir)
	if err != nil || !ok {
		return false, err
	}
	switch from {
	case g.Gen:
		g.Gen = to
	case g.Behind:
		g.Behind = to
	default:
		return false, nil
	}
	return true, replaceGeneration(dir, g)
}

// MarkBehind records in the tables at dir, which describe generation
// gen, that the archive is at now and they were left behind on purpose
// (Generation.Behind). It says whether it did: tables describing another
// generation, or none, are left alone.
func MarkBehind(dir, gen, now string) (bool, error) {
	g, ok, err := ReadGenerationInfo(dir)
	if err != nil || !ok || g.Gen != gen {
		return false, err
	}
	g.Behind = now
	return true, replaceGeneration(dir, g)
}

// ReadGeneration returns the generation recorded in the tables at dir;
// ok is false when dir has no tables or they record none.
func ReadGeneration(dir string) (gen string, ok bool, err error) {
	g, ok, err := ReadGenerationInfo(dir)
	return g.Gen, ok, err
}

// ReadGenerationInfo returns all GenerationFile says; ok is false when
// dir has no tables or they record no generation. Lines it does not
// know are skipped (a later blockwarc's).
func ReadGenerationInfo(dir string) (g Generation, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, GenerationFile))
	if errors.Is(err, os.ErrNotExist) {
		return g, false, nil
	}
	if err != nil {
		return g, false, fmt.Errorf("read tables generation: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	g.Gen = strings.TrimSpace(lines[0])
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(strings.TrimSpace(l), " ")
		switch k {
		case "records":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return g, false, fmt.Errorf("read tables generation: bad line %q", l)
			}
			g.Records = n
		case "behind":
			g.Behind = v
		}
	}
	return g, true, nil
}
