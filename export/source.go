package export

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/internal/countio"
	"github.com/blockwarc/blockwarc/warcio"
)

// SourceOptions shape WriteSources.
type SourceOptions struct {
	// Gzip writes each record (and each run of bytes between records) as
	// a gzip member of its own, as .warc.gz writers do; otherwise the
	// plain decompressed stream, whose SHA-256 is the one verify checks.
	Gzip bool
	// Clean leaves out the bytes between records and every record that
	// is not well-formed (WARCOptions.Clean): the file then reads
	// without error everywhere, and is not the original any more.
	Clean bool
	// Original writes each file as it was given to ingest, compressed,
	// bit for bit (Archive.WriteOriginal), checked against the SHA-256 of
	// the file; a file the archive cannot so restore is not written
	// (SourceStats.NotWritten says why). Not with Gzip or Clean.
	Original bool
	// Decompressed writes every file's decompressed stream. Without it,
	// Original, Gzip or Clean, each file is written as given where it
	// restores so (InputFile.OriginalRestorable), else as its stream
	// (AsGiven).
	Decompressed bool
}

// AsGiven says whether WriteSources writes f as given (compressed, bit
// for bit): with Original, and by default where this build restores f
// so.
func (o SourceOptions) AsGiven(f *dedupe.InputFile) bool {
	if o.Original {
		return true
	}
	if o.Decompressed || o.Gzip || o.Clean {
		return false
	}
	ok, _ := f.OriginalRestorable()
	return ok
}

// ErrSkip, returned by WriteSources' open function, passes over the file
// (one already written by an earlier run, say).
var ErrSkip = errors.New("skip this input file")

// SourceStats is what WriteSources did for one input file.
type SourceStats struct {
	File dedupe.InputFile
	dedupe.SourceStats
	AsGiven bool  // written as given, compressed (SourceOptions.AsGiven)
	Left    int64 // records and gaps Clean left out
	Written int64 // bytes written (compressed with Gzip)
	// NotWritten, with Original, says why the file was not written.
	NotWritten string
}

// SourceNames maps the names of the archive's input files to the names
// export-warc -sources writes them under: a file written as given
// (opts.AsGiven) keeps its name, a decompressed one drops its compression
// suffix (SourceName); when two would get the same name (a.warc and
// a.warc.lz4 decompressed), the decompressed ones keep their whole name
// plus ".plain" instead, so no file overwrites another. A name that
// could escape the directory maps to "".
func SourceNames(files []dedupe.InputFile, opts SourceOptions) map[string]string {
	out := map[string]string{}
	count := map[string]int{}
	name := func(f *dedupe.InputFile) string {
		if opts.AsGiven(f) {
			if localName(f.Name) {
				return f.Name
			}
			return ""
		}
		return SourceName(f.Name, opts.Gzip)
	}
	for i := range files {
		count[name(&files[i])]++
	}
	for i := range files {
		f := &files[i]
		n := name(f)
		if n != "" && count[n] > 1 && !opts.AsGiven(f) {
			n = SourceName(f.Name+".plain", opts.Gzip)
			if n != "" && (strings.HasSuffix(f.Name, ".plain") || count[n] > 0) {
				n = "" // would still collide; refuse rather than guess
			}
		}
		out[f.Name] = n
	}
	return out
}

// SourceNamesOf is SourceNames per row of files (by index): rows that
// share a name — archives written before names had directories keep two
// inputs of one base name so — are written under that name, then
// NAME-2, NAME-3… before the .warc or .arc of the name
// (crawl-2.warc.gz), so that none overwrites another.
func SourceNamesOf(files []dedupe.InputFile, opts SourceOptions) []string {
	byName := SourceNames(files, opts)
	out := make([]string, len(files))
	taken := map[string]bool{}
	for _, n := range byName {
		taken[n] = true
	}
	seen := map[string]int{}
	for i, f := range files {
		n := byName[f.Name]
		seen[f.Name]++
		if k := seen[f.Name]; n != "" && k > 1 {
			n = numbered(n, k)
			if taken[n] {
				n = "" // would collide; refuse rather than guess
			}
			taken[n] = true
		}
		out[i] = n
	}
	return out
}

// numbered inserts "-k" into name before its .warc or .arc suffix (or
// at its end).
func numbered(name string, k int) string {
	dir, base := path.Split(name)
	lower := strings.ToLower(base)
	i := strings.Index(lower, ".warc")
	if i < 0 {
		i = strings.Index(lower, ".arc")
	}
	if i < 0 {
		i = len(base)
	}
	return dir + base[:i] + "-" + strconv.Itoa(k) + base[i:]
}

// SourceName is the name of a rebuilt input file: its recorded name
// (a base name, or a path below the directory ingest was given, with "/"
// between components) with the compression suffix
// (warcio.TrimCompressionSuffix) dropped, since the file is written
// decompressed, plus ".gz" with Gzip. It is "" when the recorded name
// could escape a directory (absolute, "..", a backslash).
func SourceName(name string, gz bool) string {
	if !localName(name) {
		return ""
	}
	dir, base := path.Split(name)
	n := warcio.TrimCompressionSuffix(base)
	if n == "" {
		return ""
	}
	if gz {
		n += ".gz"
	}
	return dir + n
}

// localName says whether a recorded input name names a file inside a
// directory: relative, "/" between components, none empty, "." or "..".
func localName(name string) bool {
	if name == "" || strings.Contains(name, `\`) {
		return false
	}
	for _, c := range strings.Split(name, "/") {
		if c == "" || c == "." || c == ".." {
			return false
		}
	}
	return filepath.IsLocal(filepath.FromSlash(name))
}

// ResolveNames turns the names given to export-warc -source into the
// names of the archive's input files: a name recorded, or the end of
// exactly one (after a "/"): the base name of an input still finds it
// when no other input has that base name. An end that several inputs
// share is an error naming them.
func ResolveNames(files []dedupe.InputFile, names []string) ([]string, error) {
	out := make([]string, 0, len(names))
	for _, n := range names {
		var ends []string
		exact := 0
		for _, f := range files {
			if f.Name == n {
				exact++
			}
			if strings.HasSuffix(f.Name, "/"+n) {
				ends = append(ends, f.Name)
			}
		}
		switch {
		case exact > 1:
			return nil, fmt.Errorf("%d input files are named %s (ingested before blockwarc kept the folders of their paths): export-warc -sources DIR writes each (the second as %s)", exact, n, numbered(n, 2))
		case exact == 1 || len(ends) == 0:
			out = append(out, n)
		case len(ends) == 1:
			out = append(out, ends[0])
		default:
			return nil, fmt.Errorf("%d input files end with %s: %s; name one of them", len(ends), n, strings.Join(ends, ", "))
		}
	}
	return out, nil
}

// WriteSources rebuilds the input files named (every one when names is
// nil) in the order they had, each to the writer open returns for it
// (closed with the file's stats, which say whether it restored exactly).
// A file the archive does not hold is an error.
func WriteSources(ctx context.Context, a *dedupe.Archive, names []string, opts SourceOptions,
	open func(f dedupe.InputFile) (io.Writer, error), done func(SourceStats) error) error {
	found := 0
	err := a.WalkSources(names, func(f dedupe.InputFile, vs []dedupe.Version) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		found++
		if ok, why := f.OriginalRestorable(); opts.Original && !ok {
			return done(SourceStats{File: f, NotWritten: why})
		}
		asGiven := opts.AsGiven(&f)
		w, err := open(f)
		if errors.Is(err, ErrSkip) {
			return nil
		}
		if err != nil {
			return err
		}
		cw := &countio.Writer{W: w}
		var out io.Writer = cw
		if opts.Gzip {
			out = &memberWriter{w: cw}
		}
		var clean func([]byte) bool
		if opts.Clean {
			clean = warcio.WellFormed
		}
		var st dedupe.SourceStats
		if asGiven {
			st, err = a.WriteOriginal(out, f, vs)
		} else {
			st, err = a.WriteSource(out, f, vs, clean)
		}
		if err != nil {
			return err
		}
		return done(SourceStats{File: f, SourceStats: st, AsGiven: asGiven, Left: int64(len(vs)) - st.Records - st.Gaps, Written: cw.N})
	})
	if err == nil && names != nil && found < len(names) {
		return fmt.Errorf("the archive holds %d of the %d input files named (blockwarc ls -files lists them)", found, len(names))
	}
	return err
}

// memberWriter writes every Write as one gzip member.
type memberWriter struct {
	w  io.Writer
	zw *gzip.Writer
}

func (m *memberWriter) Write(p []byte) (int, error) {
	if m.zw == nil {
		m.zw = gzip.NewWriter(m.w)
	} else {
		m.zw.Reset(m.w)
	}
	if _, err := m.zw.Write(p); err != nil {
		return 0, err
	}
	if err := m.zw.Close(); err != nil {
		return 0, err
	}
	return len(p), nil
}
