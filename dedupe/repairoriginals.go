package dedupe

import (
	"context"
	"fmt"
	"path/filepath"
)

// matchOriginals maps the names of the input files the archive recorded
// to the originals given for them: an original is the file of every row
// of its size and SHA-256, whatever its path (two inputs of one base
// name, from two directories, are told apart so); refused says why the
// others are not used.
func matchOriginals(ctx context.Context, originals []string, files []InputFile) (byName map[string]string, refused []string, err error) {
	paths, err := expandInputs(originals)
	if err != nil {
		return nil, nil, err
	}
	nameOf := fileNames(files)
	byName = map[string]string{}
	for _, p := range paths {
		in, err := hashFile(ctx, p, nil)
		if err != nil {
			return nil, nil, err
		}
		var named *InputFile
		matched := false
		for i := range files {
			f := &files[i]
			if f.Size == in.Size && f.SHA256 == in.SHA256 {
				byName[f.Name] = p
				matched = true
			}
			if f.Name == nameOf(p) {
				named = f
			}
		}
		switch {
		case matched:
		case named == nil:
			refused = append(refused, fmt.Sprintf("%s: the archive has no input file of that name or content (%d bytes, SHA-256 %x)", p, in.Size, in.SHA256))
		default:
			refused = append(refused, fmt.Sprintf("%s: differs from the file ingested under that name (%d bytes, SHA-256 %x; the archive recorded %d bytes, %x)", p, in.Size, in.SHA256, named.Size, named.SHA256))
		}
	}
	return byName, refused, nil
}

// fileNames returns the function that names the input-file row a path
// belongs to (rowName), or the path's base name when no row's name ends
// it (a row lost with its part of the table).
func fileNames(files []InputFile) func(path string) string {
	names := map[string]bool{}
	for _, f := range files {
		names[f.Name] = true
	}
	return func(p string) string {
		if n := rowName(p, names); n != "" {
			return n
		}
		return filepath.Base(p)
	}
}
