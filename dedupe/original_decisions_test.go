package dedupe

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/blockwarc/blockwarc/dedupe/zlibenc"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

var updateDecisions = flag.Bool("update-decisions", false, "rewrite testdata/original-decisions.txt")

// streamSum is the SHA-256 of every gzip member of path decompressed:
// the stream the walk hands the member search (zero when the file does
// not decompress cleanly; the search then decides before comparing).
func streamSum(t *testing.T, path string) (sum [32]byte) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return sum
	}
	h := sha256.New()
	if _, err := io.Copy(h, zr); err != nil {
		return sum
	}
	h.Sum(sum[:0])
	return sum
}

// TestOriginalDecisions pins, for every interop file and corpus file of
// ../shared, whether its gzip members restore bit-exact and with which
// member table (reason, SHA-256 of the table's encoding): a faster
// member search must decide exactly as before. The pinned answers were
// written by the search before it kept deflate states across members.
func TestOriginalDecisions(t *testing.T) {
	if !zlibenc.Available {
		t.Skip("built without cgo: no zlib")
	}
	shared := sharedtest.Dir(t)
	var files []string
	for _, d := range []string{filepath.Join(shared, "testdata", "interop"), sharedtest.Dir(t, "corpus")} {
		files = append(files, mustExpand(t, d)...)
	}
	var sb strings.Builder
	for _, p := range files {
		o, why, _, _, err := learnOriginal(context.Background(), p, streamSum(t, p))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		table := "-"
		if o != nil {
			// The table as catalog version 6 encoded it (version 8 adds
			// a byte between runs and lengths): the pins predate it.
			table = fmt.Sprintf("%x", sha256.Sum256(o.appendLens(o.appendRuns(nil))))
		}
		rel, _ := filepath.Rel(shared, p)
		fmt.Fprintf(&sb, "%s %d %s\n", filepath.ToSlash(rel), why, table)
	}
	path := filepath.Join("testdata", "original-decisions.txt")
	if *updateDecisions {
		if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	wl, gl := strings.Split(string(want), "\n"), strings.Split(sb.String(), "\n")
	if len(wl) != len(gl) {
		t.Fatalf("%d files pinned, %d found", len(wl)-1, len(gl)-1)
	}
	exact := 0
	for i := range wl {
		if wl[i] != gl[i] {
			t.Errorf("decision changed:\n got  %s\n want %s", gl[i], wl[i])
		}
		if strings.Contains(gl[i], fmt.Sprintf(" %d ", originalExact)) {
			exact++
		}
	}
	if exact == 0 {
		t.Error("no file restores bit-exact: the check would not see a changed table")
	}
}
