package dedupe

import (
	"context"
	"fmt"
)

// Retirement is what verify -originals says of one original file: whether
// it may be deleted because the archive gives it back bit for bit.
type Retirement struct {
	Path   string   // the original, as found under the paths given
	Size   int64    // its size, now
	SHA256 [32]byte // its SHA-256, now
	// Input is the archive's input file of the same size and SHA-256,
	// nil when there is none.
	Input *InputFile
	// Proven: the archive rebuilt the file as given in this verify
	// (InputCheck.Original) and the SHA-256 of the bytes rebuilt equals
	// the original's, read now.
	Proven bool
	// Why says, when not Proven, why not, in the archivist's terms.
	Why string
}

// Retire compares the original files found under originals (files,
// directories or globs, as to ingest) with what Verify proved of the
// archive's input files (st.Inputs): an original is Proven when an
// input of its size and SHA-256 was rebuilt as given and hashed to the
// same SHA-256 in that pass. An original of no input's content is named
// with the input of its name, if any (a file that changed since it was
// ingested). The results are in path order.
func Retire(ctx context.Context, originals []string, st VerifyStats) ([]Retirement, error) {
	paths, err := expandInputs(originals)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, ic := range st.Inputs {
		names[ic.File.Name] = true
	}
	buf := make([]byte, 256<<10)
	out := make([]Retirement, 0, len(paths))
	for _, p := range paths {
		in, err := hashFile(ctx, p, buf)
		if err != nil {
			return nil, err
		}
		r := Retirement{Path: p, Size: in.Size, SHA256: in.SHA256}
		var named *InputCheck
		for i := range st.Inputs {
			ic := &st.Inputs[i]
			if ic.File.Size != in.Size || ic.File.SHA256 != in.SHA256 {
				if ic.File.Name == rowName(p, names) {
					named = ic
				}
				continue
			}
			r.Input = &ic.File
			r.Proven, r.Why = ic.Original && ic.SHA256 == in.SHA256, ic.Why
			if r.Proven {
				r.Why = ""
				break
			}
			if r.Why == "" {
				r.Why = "the archive did not rebuild it as given"
			}
		}
		switch {
		case r.Input != nil:
		case named != nil:
			r.Why = fmt.Sprintf("not in the archive: it differs from the input file %s ingested (%d bytes, SHA-256 %x): ingest it, or find the file that was", named.File.Name, named.File.Size, named.File.SHA256)
		default:
			r.Why = "not in the archive (no input file of its size and SHA-256): ingest it first"
		}
		out = append(out, r)
	}
	return out, nil
}
