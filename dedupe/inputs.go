package dedupe

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/blockwarc/blockwarc/warcio"
)

// expandInputs is warcio.ExpandInputs (the rule index uses too), sorted:
// an ingest reads its files in name order whatever order they are given
// in, so the same files give the same archive. Ingest hashes each file
// before reading it, so standard input ("-") is not an input here.
func expandInputs(inputs []string) ([]string, error) {
	if slices.Contains(inputs, "-") {
		return nil, errors.New("find input: ingest reads files (it hashes each one first); standard input is not supported")
	}
	out, err := warcio.ExpandInputs(inputs)
	if err != nil {
		return nil, err
	}
	sort.Strings(out)
	return slices.Compact(out), nil
}

// expandNamed is expandInputs with each file's name relative to the
// argument it was found under (warcio.Input), in path order.
func expandNamed(inputs []string) ([]warcio.Input, error) {
	if slices.Contains(inputs, "-") {
		return nil, errors.New("find input: ingest reads files (it hashes each one first); standard input is not supported")
	}
	out, err := warcio.ExpandInputNames(inputs)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b warcio.Input) int { return strings.Compare(a.Path, b.Path) })
	return slices.CompactFunc(out, func(a, b warcio.Input) bool { return a.Path == b.Path }), nil
}

// inputNames gives each file of an ingest the name its row of the
// input-file table records, the name export-warc -source takes: its name
// relative to the argument it was found under (warcio.Input: the base
// name of a file named, the path below a directory given), made longer
// by the components before it in its path as given while it equals or
// ends (after a "/") the name of a row already in the archive or of
// another file of this ingest. So 2024-01/crawl.warc.gz and
// 2024-02/crawl.warc.gz are two rows whether their directories were
// given together or a month apart, and a flat directory's files keep
// their base names. A name is never made longer by a ".." or an
// absolute root: it then stays as it is (the same path ingested again
// after it changed), and rowName tells such rows apart as it did before
// names had directories.
func inputNames(files []warcio.Input, have []InputFile) map[string]string {
	taken := map[string]bool{} // the rows' names and their ends
	for _, f := range have {
		for _, e := range nameEnds(f.Name) {
			taken[e] = true
		}
	}
	names := make(map[string]string, len(files))
	for _, f := range files {
		names[f.Path] = f.Name
	}
	for changed := true; changed; {
		changed = false
		ends := map[string]int{}
		for _, f := range files {
			for _, e := range nameEnds(names[f.Path]) {
				ends[e]++
			}
		}
		for _, f := range files {
			n := names[f.Path]
			if ends[n] < 2 && !taken[n] {
				continue
			}
			if longer := longerName(f.Path, n); longer != n {
				names[f.Path] = longer
				changed = true
			}
		}
	}
	return names
}

// nameEnds is name and each end of it after a "/".
func nameEnds(name string) []string {
	out := []string{name}
	for i := 0; i < len(name); i++ {
		if name[i] == '/' {
			out = append(out, name[i+1:])
		}
	}
	return out
}

// longerName is name with the path component before it in path, or
// name when there is none to add.
func longerName(path, name string) string {
	cs := strings.Split(filepath.ToSlash(filepath.Clean(path)), "/")
	k := strings.Count(name, "/") + 1
	if len(cs) <= k || strings.Join(cs[len(cs)-k:], "/") != name {
		return name
	}
	c := cs[len(cs)-k-1]
	if c == "" || c == "." || c == ".." {
		return name
	}
	return c + "/" + name
}

// rowName is the name of the input-file row a path the catalog records
// (the path ingest was given) belongs to: the longest of names that is
// the path or ends it after a "/" — the base name in archives written
// before names had directories. "" when none does.
func rowName(path string, names map[string]bool) string {
	p := filepath.ToSlash(filepath.Clean(path))
	for {
		if names[p] {
			return p
		}
		i := strings.IndexByte(p, '/')
		if i < 0 {
			return ""
		}
		p = p[i+1:]
	}
}

// NotRecordsError is an ingest refused before anything was written: the
// inputs it names are not WARC or ARC (warcio.CheckRecords).
type NotRecordsError struct {
	Files []string
}

func (e *NotRecordsError) Error() string {
	if len(e.Files) == 1 {
		return "input " + e.Files[0] + " is not WARC or ARC (no record found, and it does not begin with one); nothing was ingested: leave it out and run ingest again"
	}
	return fmt.Sprintf("%d input files are not WARC or ARC (no record found, and none begins with one): %s; nothing was ingested: leave them out and run ingest again",
		len(e.Files), strings.Join(e.Files, ", "))
}

func (e *NotRecordsError) Unwrap() error { return warcio.ErrNotRecords }

// CheckInputs expands inputs as an ingest does and refuses them all, with
// a *NotRecordsError naming every bad file, when any is not WARC or ARC
// input (warcio.CheckRecords): a careful ingest reads what it was given
// or nothing, rather than archiving a README as a file of no records.
// Ingest calls it before it opens or creates the archive.
func CheckInputs(ctx context.Context, inputs []string) error {
	files, err := expandInputs(inputs)
	if err != nil {
		return err
	}
	var bad []string
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := warcio.CheckRecords(f)
		switch {
		case errors.Is(err, warcio.ErrNotRecords):
			bad = append(bad, f)
		case err != nil:
			return fmt.Errorf("read input: %w", err)
		}
	}
	if len(bad) > 0 {
		return &NotRecordsError{Files: bad}
	}
	return nil
}

// hashFile returns the name, size and SHA-256 of the file at path, read
// with buf (allocated when nil).
func hashFile(ctx context.Context, path string, buf []byte) (InputFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return InputFile{}, fmt.Errorf("hash input: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if buf == nil {
		buf = make([]byte, 256<<10)
	}
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return InputFile{}, err
		}
		k, err := f.Read(buf)
		h.Write(buf[:k])
		n += int64(k)
		if err == io.EOF {
			break
		}
		if err != nil {
			return InputFile{}, fmt.Errorf("hash input %s: %w", path, err)
		}
	}
	in := InputFile{Name: filepath.Base(path), Size: n}
	h.Sum(in.SHA256[:0])
	return in, nil
}

// input is an input file to ingest, and the name its row records
// (inputNames); in is complete once it is hashed.
type input struct {
	path, name string
	in         InputFile
}

// selectInputs drops the files already in the archive (same base name,
// size and SHA-256) and the later copies of a file among the inputs.
// Only a file sharing base name and size with another one must be hashed
// to decide; the indexes (into todo) of the others, not hashed yet, are
// in later. names are the rows' names (inputNames).
func selectInputs(ctx context.Context, files []string, names map[string]string, have []InputFile) (todo []input, skipped int, later []int, err error) {
	type nameSize struct {
		name string
		size int64
	}
	seen := map[nameSize]int{}
	for _, f := range have {
		seen[nameSize{path.Base(f.Name), f.Size}] += 2
	}
	sizes := make([]int64, len(files))
	for i, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			return nil, 0, nil, fmt.Errorf("hash input: %w", err)
		}
		sizes[i] = fi.Size()
		seen[nameSize{filepath.Base(f), fi.Size()}]++
	}
	var done []InputFile
	for i, f := range files {
		if seen[nameSize{filepath.Base(f), sizes[i]}] == 1 {
			later = append(later, len(todo))
			todo = append(todo, input{path: f, name: names[f]})
			continue
		}
		in, err := hashFile(ctx, f, nil)
		if err != nil {
			return nil, 0, nil, err
		}
		// The same file under two paths (or a copy) is ingested once.
		if hasFile(have, in) || hasFile(done, in) {
			skipped++
			continue
		}
		todo = append(todo, input{path: f, name: names[f], in: in})
		done = append(done, in)
	}
	return todo, skipped, later, nil
}

// hasFile reports whether files holds in's base name, size and SHA-256
// (in from hashFile: named by its base name).
func hasFile(files []InputFile, in InputFile) bool {
	for _, f := range files {
		if path.Base(f.Name) == in.Name && f.Size == in.Size && f.SHA256 == in.SHA256 {
			return true
		}
	}
	return false
}

// readerOpts turns digests on and counts each input's malformed records:
// the readers report every skipped record or region as a *FormatError,
// except stray line ends (ErrBadTrailer), which they skip without
// counting. Under PolicySkip the errors are counted and dropped.
func (g *ingester) readerOpts(o warcio.Options) warcio.Options {
	o.Digests = true
	if o.Policy == warcio.PolicyFail {
		return o
	}
	forward := o.OnError
	if o.Policy != warcio.PolicyWarn {
		forward = nil
	}
	o.Policy = warcio.PolicyWarn
	o.OnError = func(err error) {
		var fe *warcio.FormatError
		if errors.As(err, &fe) && !errors.Is(err, warcio.ErrBadTrailer) {
			g.mu.Lock()
			g.malformed[fe.File]++
			g.mu.Unlock()
		}
		if forward != nil {
			forward(err)
		}
	}
	return o
}
