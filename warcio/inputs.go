package warcio

// Inputs: the files and directories a user names, expanded into the
// WARC and ARC files to read.

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// IsInputName tells whether a file name is one ExpandInputs picks from a
// directory.
func IsInputName(name string) bool { return warcName.MatchString(name) }

// ExpandInputs turns command-line inputs — files, directories (searched
// recursively for names ending .warc or .arc, optionally .gz, .zst,
// .zstd, .lz4 or .bz2, then optionally .open, in any case), glob patterns
// and "-" — into a list of files, each once, in the order given
// (directory contents sorted). It is the one rule every command uses. A
// missing path is an error naming it, and so is a directory holding no
// input file: an archive or index of nothing is a mistake, not a result.
func ExpandInputs(inputs []string) ([]string, error) {
	in, err := ExpandInputNames(inputs)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(in))
	for i, f := range in {
		out[i] = f.Path
	}
	return out, nil
}

// An Input is a file ExpandInputNames found: its path, and its name
// relative to the argument it was found under — its base name when the
// argument named the file (or a glob matched it), its path below the
// directory (with "/" between components) when it was found in one.
// Ingest records inputs under these names, so that 2024-01/crawl.warc.gz
// and 2024-02/crawl.warc.gz of one directory stay two files.
type Input struct {
	Path, Name string
}

// ExpandInputNames is ExpandInputs with each file's name relative to its
// argument (Input).
func ExpandInputNames(inputs []string) ([]Input, error) {
	var out []Input
	seen := map[string]bool{}
	addFile := func(p, name string) {
		key := filepath.Clean(p)
		if !seen[key] {
			seen[key] = true
			out = append(out, Input{Path: p, Name: name})
		}
	}
	addPath := func(p string) error {
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("open input: %w", err)
		}
		if !fi.IsDir() {
			addFile(p, filepath.Base(p))
			return nil
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && warcName.MatchString(d.Name()) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("list input directory: %w", err)
		}
		if len(found) == 0 {
			return fmt.Errorf("open input: %s: no WARC or ARC files in directory", p)
		}
		sort.Strings(found)
		for _, f := range found {
			rel, err := filepath.Rel(p, f)
			if err != nil {
				rel = filepath.Base(f)
			}
			addFile(f, filepath.ToSlash(rel))
		}
		return nil
	}
	for _, in := range inputs {
		if in == "-" {
			addFile(in, in)
			continue
		}
		if _, err := os.Lstat(in); err != nil && strings.ContainsAny(in, "*?[") {
			matches, gerr := filepath.Glob(in)
			if gerr != nil {
				return nil, fmt.Errorf("expand input pattern %q: %w", in, gerr)
			}
			if len(matches) == 0 {
				return nil, fmt.Errorf("expand input pattern %q: no files match", in)
			}
			for _, m := range matches {
				if err := addPath(m); err != nil {
					return nil, err
				}
			}
			continue
		}
		if err := addPath(in); err != nil {
			return nil, err
		}
	}
	return out, nil
}
