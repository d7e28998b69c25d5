package dedupe

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/pack"
)

// TestCommitSeed: a commit finds the chunks the commit before it stored
// (docs/FORMAT.md "How an ingest finds chunks to reuse"), though its
// chunk writer is new and the URL is another: a second URL whose page
// repeats the first's but for one paragraph, ingested in the next
// commit, stores far fewer bytes of chunks than the same page in an archive of its own.
func TestCommitSeed(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	var paras []string
	for range 60 {
		var p strings.Builder
		for range 200 {
			for range 3 + r.IntN(8) {
				p.WriteByte(byte('a' + r.IntN(26)))
			}
			p.WriteByte(' ')
		}
		paras = append(paras, "<p>"+p.String()+"</p>\n")
	}
	html := func(ps []string) []byte {
		return []byte("<html><head><title>T</title></head><body><div id=\"main\">\n" + strings.Join(ps, "") + "</div></body></html>")
	}
	edited := append([]string{}, paras...)
	edited[30] = "<p>a paragraph that only the second page has</p>\n"
	dir := t.TempDir()
	t0 := time.Date(2021, 3, 1, 0, 0, 0, 0, time.UTC)
	fa, fb := filepath.Join(dir, "a.warc"), filepath.Join(dir, "b.warc")
	writeFile(t, fa, warcRecord("response", "http://example.com/a", t0, 1, httpResponse("text/html", html(paras), false)))
	writeFile(t, fb, warcRecord("response", "http://example.com/b", t0, 2, httpResponse("text/html", html(edited), false)))

	// No chains: a frame after a full one has none, and a chain would
	// hide, by compressing the page against the first, whether its
	// chunks were found.
	opts := testOpts()
	opts.Pack.ChainBytes = -1
	// arch takes a then b, one ingest (one commit) each; first holds a
	// alone, for the growth b made; alone holds b alone.
	arch, first, alone := filepath.Join(dir, "ab.bwa"), filepath.Join(dir, "a.bwa"), filepath.Join(dir, "b.bwa")
	for _, in := range []struct {
		arch string
		file string
	}{{arch, fa}, {arch, fb}, {first, fa}, {alone, fb}} {
		if _, err := Ingest(context.Background(), in.arch, []string{in.file}, opts); err != nil {
			t.Fatal(err)
		}
	}
	size := func(arch string) int64 { return storeStats(t, arch).ChunkBytes }
	growth, whole := size(arch)-size(first), size(alone)
	if growth*4 > whole {
		t.Errorf("the second commit stored %d bytes of frames of chunks for a page that costs %d on its own: it did not find the first commit's chunks", growth, whole)
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if n := checkRoundTrip(t, a); n != 2 {
		t.Errorf("restored %d records, want 2", n)
	}
	t.Logf("growth %d bytes, the page alone %d", growth, whole)
}
