package dedupe

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/warcio"
)

// compactPrefix names Compact's directory of restored originals: not
// the "blockwarc-compact-" of the unlocked ones of blockwarc before it,
// which a live compaction of that version may still be using.
const compactPrefix = "blockwarc-compact-run-"

// Compact writes to dst a dense copy of the archive src: one ingest of
// every input file src holds, restored, under the names src
// gives them, with src's settings (Options set the rest, as for
// Ingest). An archive ingested a crawl at a time pays, per ingest, a
// catalog run, small frames that compress on their own, index entries
// and a longer COMMIT; on the 351 crawls of the corpus ingested one at
// a time that was 1.63× the bytes of one ingest of the same files
// (docs/BENCHMARKS.md "At scale"). dst is then byte for byte the archive
// one ingest of the same files in src's input-table order writes.
//
// src is only read (a shared lock is not needed: the copy is of its
// last commit); dst must not exist or be an archive a Compact was
// interrupted writing, which it then completes (an ingest resumes). The
// originals are restored into a directory under Options.TempDir (the
// system's by default) and removed at the end (a killed Compact's, by
// the next one): Compact needs free space
// there of about the inputs' size. An uncompressed file is copied; a
// compressed one (proven, not proven yet, or one zlib does not
// reproduce) as its stream, its records placed where they were in it
// and its row, member table included, carried over (restoredStream):
// the copy describes the file itself, and no byte is deflated again.
// Compact refuses
// an archive with a file whose records and gaps do not tile its stream,
// and names it.
func Compact(ctx context.Context, src, dst string, opts Options) (Stats, error) {
	var st Stats
	if same, err := sameDir(src, dst); err != nil || same {
		if err == nil {
			err = errors.New("the copy would overwrite the archive: name another directory")
		}
		return st, fmt.Errorf("compact %s into %s: %w", src, dst, err)
	}
	a, err := Open(src, pack.Options{})
	if err != nil {
		return st, err
	}
	defer a.Close()
	if err := a.loadFiles(); err != nil {
		return st, err
	}
	files := a.root.Files
	if len(files) == 0 {
		return st, fmt.Errorf("compact %s: the archive holds no input file", src)
	}
	done, err := resumableCopy(dst, files)
	if err != nil {
		return st, fmt.Errorf("compact %s into %s: %w", src, dst, err)
	}
	for _, f := range files {
		if !f.OriginalExact() && !streamRestorable(&f) {
			return st, fmt.Errorf("compact %s: input file %s restores neither as given (%s) nor as its decompressed stream: a compacted archive would describe another file; nothing was written", src, f.Name, f.OriginalReason())
		}
	}
	opts.Pack.KeepSettings(a.Store().Settings())

	// The originals (the collection's size) go in a locked directory:
	// one a killed compaction left (kill -9 removes nothing) is told
	// from a live one's and removed by MakeLockedTemp, else every killed
	// run, re-run as documented, left another copy of the whole
	// collection in -tmp.
	tmp, release, err := warcio.MakeLockedTemp(opts.TempDir, compactPrefix)
	if err != nil {
		return st, fmt.Errorf("compact: %w", err)
	}
	defer release()
	if done {
		// A compaction that ended, or was killed after its last commit
		// (its originals in -tmp now removed): the re-run the docs
		// advise finds nothing to do.
		st.FilesSkipped = len(files)
		return st, nil
	}
	paths, err := a.restoreInputs(ctx, tmp, &opts, false)
	if err != nil {
		return st, fmt.Errorf("compact %s: %w", src, err)
	}
	return Ingest(ctx, dst, paths, opts)
}

// restoreInputs writes every input file of a into a directory of its
// own under tmp, numbered in input-table order (ingest takes its inputs
// in path order, so a copy lists them in a's order, and two inputs of
// one base name do not meet), and sets opts to record each under its
// row's name and its versions under their file's. A file that restores
// bit for bit is written as given; with stream set, any other is
// written as its decompressed stream (the records and gaps in order),
// which the copy then describes as an uncompressed file: what upgrade
// does for rows an older catalog knows less of.
func (a *Archive) restoreInputs(ctx context.Context, tmp string, opts *Options, stream bool) ([]string, error) {
	if err := a.loadFiles(); err != nil {
		return nil, err
	}
	files := a.Files()
	paths := make([]string, 0, len(files))
	opts.rename, opts.rowNames, opts.restored = map[string]string{}, map[string]string{}, map[string]*restoredStream{}
	err := a.WalkSources(nil, func(f InputFile, vs []Version) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		d := filepath.Join(tmp, fmt.Sprintf("%09d", len(paths)))
		if err := os.Mkdir(d, 0o700); err != nil {
			return err
		}
		p := filepath.Join(d, filepath.Base(f.Name))
		var err error
		switch {
		case f.OriginalExact() && f.Original == nil:
			err = writeOriginalFile(a, p, f, vs) // uncompressed: a copy
		case streamRestorable(&f):
			// Its stream, in which its records are placed where they
			// were in the file: the copy describes the file itself,
			// its member table (proven) carried over, so that neither
			// the restore nor the copy's ingest deflates it again.
			// Its whole name kept: x.warc and x.warc.lz4 holding one
			// stream would otherwise be one input to the ingest.
			p += ".zst"
			var rs *restoredStream
			if rs, err = writeRestoredStream(a, p, f, vs); err == nil {
				opts.restored[p] = rs
			}
		case f.OriginalExact():
			err = writeOriginalFile(a, p, f, vs)
		case stream:
			p = filepath.Join(d, warcio.TrimCompressionSuffix(filepath.Base(f.Name)))
			err = writeStreamFile(a, p, f, vs)
		default:
			err = writeOriginalFile(a, p, f, vs)
		}
		if err != nil {
			return err
		}
		paths = append(paths, p)
		opts.rowNames[p] = f.Name
		if len(vs) > 0 {
			opts.rename[p] = vs[0].File
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("restore the input files: %w", err)
	}
	if len(paths) != len(files) {
		return nil, fmt.Errorf("%d of %d input files restored (the catalog names no path for the others); nothing was written", len(paths), len(files))
	}
	return paths, nil
}

// writeStreamFile restores input file f's decompressed stream to path p.
func writeStreamFile(a *Archive, p string, f InputFile, vs []Version) error {
	out, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(out, 1<<20)
	_, err = a.WriteSource(bw, f, vs, nil)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeOriginalFile restores input file f to path p and checks it.
func writeOriginalFile(a *Archive, p string, f InputFile, vs []Version) error {
	out, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(out, 1<<20)
	st, err := a.WriteOriginal(bw, f, vs)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && !st.Exact {
		err = fmt.Errorf("%s does not restore bit for bit (%d bytes, SHA-256 %x; the archive recorded %d and %x): run blockwarc verify", f.Name, st.Bytes, st.SHA256, f.Size, f.SHA256)
	}
	return err
}

// sameDir says whether two paths name one directory (dst may not exist).
func sameDir(a, b string) (bool, error) {
	sa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	sb, err := os.Stat(b)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(sa, sb), nil
}

// resumableCopy refuses a dst that holds a complete archive: Compact
// writes a new one, or completes the one it was interrupted writing.
// done says that dst is complete and holds exactly src's input files
// (name, size, SHA-256, in order) in a table one ingest wrote: a
// compaction that finished, or was killed after its last commit, which
// a re-run leaves as it is.
func resumableCopy(dst string, src []InputFile) (done bool, err error) {
	d, err := Open(dst, pack.Options{})
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, pack.ErrNotArchive) {
		return false, nil // the ingest creates it, or refuses a folder of other files
	}
	if err != nil {
		return false, err
	}
	defer d.Close()
	if err := d.loadFiles(); err != nil {
		return false, err
	}
	have := d.Files()
	if d.root.Open != nil || len(have) == 0 {
		return false, nil
	}
	// One part: one ingest wrote the table, as Compact's does; a copy of
	// a crawl-at-a-time archive has the same files but is no compaction.
	if sameInputs(have, src) && len(d.FileTableParts()) == 1 {
		return true, nil
	}
	return false, errors.New("it is an archive already (not one a compaction was interrupted writing): name a new directory")
}

// sameInputs says whether two input tables list the same files in order.
func sameInputs(a, b []InputFile) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Size != b[i].Size || a[i].SHA256 != b[i].SHA256 {
			return false
		}
	}
	return true
}
