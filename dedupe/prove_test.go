package dedupe

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/dedupe/zlibenc"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestProveLater: files ingested without the proof (SkipOriginal) do not
// restore as given; Prove with their originals learns their member
// tables, after which every one restores bit for bit, the input-file table
// keeps its order and every other field, an original of no input is named
// unmatched, and a second Prove has nothing left to do and writes nothing.
func TestProveLater(t *testing.T) {
	if !zlibenc.Available {
		t.Skip("built without cgo: no zlib, no bit-exact gzip")
	}
	files := sharedtest.CorpusFiles(t, "ota-lovescout24")[:4]
	arch := filepath.Join(t.TempDir(), "a.bwa")
	opts := testOpts()
	opts.SkipOriginal = true
	if _, err := Ingest(context.Background(), arch, files[:3], opts); err != nil {
		t.Fatal(err)
	}
	before := archiveFiles(t, arch)
	rows := func() []InputFile {
		a, err := Open(arch, pack.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		return a.Files()
	}
	skipped := rows()
	for _, f := range skipped {
		if f.OriginalExact() || f.OriginalWhy != originalSkipped {
			t.Fatalf("%s ingested without the proof: %q, exact %v", f.Name, f.OriginalReason(), f.OriginalExact())
		}
	}
	// The fourth file is no input of the archive.
	res, err := Prove(context.Background(), arch, files, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Proven) != 3 || len(res.NotExact) != 0 || len(res.Unmatched) != 1 || res.Unmatched[0] != files[3] || res.Left != 0 {
		t.Fatalf("prove: %+v; want 3 proven, %s unmatched", res, files[3])
	}
	proven := rows()
	if len(proven) != len(skipped) {
		t.Fatalf("%d rows after prove, %d before", len(proven), len(skipped))
	}
	// The rows are those of an ingest that proved at once, byte for byte
	// (member tables per piece where wget wrote a member per record).
	direct := filepath.Join(t.TempDir(), "direct.bwa")
	dopts := opts
	dopts.SkipOriginal = false
	if _, err := Ingest(context.Background(), direct, files[:3], dopts); err != nil {
		t.Fatal(err)
	}
	d, err := Open(direct, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := d.Files()
	d.Close()
	if !bytes.Equal(encodeFilePart(proven), encodeFilePart(want)) {
		t.Errorf("rows proven later differ from an ingest's that proved at once")
	}
	for _, f := range proven {
		if f.Original == nil || !f.Original.PerPiece {
			t.Errorf("%s: its member table lists every member's length (not per piece)", f.Name)
		}
	}
	for i := range proven {
		p, s := proven[i], skipped[i]
		if p.Name != s.Name || p.SHA256 != s.SHA256 || p.StreamSHA256 != s.StreamSHA256 || p.Records != s.Records || p.Size != s.Size {
			t.Errorf("row %d: %s after prove, %s before: the table changed beyond its member tables", i, p.Name, s.Name)
		}
		if !p.OriginalCompressed() {
			t.Errorf("%s: %q after prove", p.Name, p.OriginalReason())
		}
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	n := 0
	err = a.WalkSources(nil, func(f InputFile, vs []Version) error {
		var out bytes.Buffer
		if _, err := a.WriteOriginal(&out, f, vs); err != nil {
			return err
		}
		i := slices.IndexFunc(files, func(p string) bool { return filepath.Base(p) == f.Name })
		orig, err := os.ReadFile(files[i])
		if err != nil {
			return err
		}
		if !bytes.Equal(out.Bytes(), orig) {
			t.Errorf("%s: %d bytes written as given, the original has %d", f.Name, out.Len(), len(orig))
		}
		n++
		return nil
	})
	if err != nil || n != 3 {
		t.Fatalf("%d originals written: %v", n, err)
	}
	// Nothing left: no commit.
	mid := archiveFiles(t, arch)
	if res, err := Prove(context.Background(), arch, files, pack.Options{}); err != nil || len(res.Proven) != 0 || len(res.Unmatched) != 4 {
		t.Fatalf("second prove: %+v, %v", res, err)
	}
	if after := archiveFiles(t, arch); !maps.EqualFunc(mid, after, bytes.Equal) {
		t.Error("a prove with nothing to prove wrote to the archive")
	}
	if maps.EqualFunc(before, mid, bytes.Equal) {
		t.Error("prove committed nothing")
	}
}

// TestProveThenCommitLost: after prove has written the input-file table
// anew, an archive whose COMMIT and COMMIT.copy are both lost is rebuilt
// with one row per file, the proven ones (the parts prove replaced are
// still in the packs).
func TestProveThenCommitLost(t *testing.T) {
	if !zlibenc.Available {
		t.Skip("built without cgo: no zlib, no bit-exact gzip")
	}
	files := sharedtest.CorpusFiles(t, "ota-lovescout24")[:3]
	arch := filepath.Join(t.TempDir(), "a.bwa")
	opts := testOpts()
	opts.SkipOriginal = true
	for _, f := range files { // three ingests: three parts
		if _, err := Ingest(context.Background(), arch, []string{f}, opts); err != nil {
			t.Fatal(err)
		}
	}
	if res, err := Prove(context.Background(), arch, files, pack.Options{}); err != nil || len(res.Proven) != 3 {
		t.Fatalf("prove: %+v, %v", res, err)
	}
	for _, name := range []string{"COMMIT", "COMMIT.copy"} {
		if err := os.Remove(filepath.Join(arch, name)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := RebuildCommit(arch, pack.Options{}); err != nil {
		t.Fatal(err)
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	rows := a.Files()
	if len(rows) != 3 {
		t.Fatalf("%d input-file rows after the rebuild, want 3", len(rows))
	}
	for _, f := range rows {
		if !f.OriginalCompressed() {
			t.Errorf("%s: %q after the rebuild", f.Name, f.OriginalReason())
		}
	}
	if _, err := a.Verify(func(p Problem) { t.Errorf("verify: %v", p) }); err != nil {
		t.Fatal(err)
	}
}

// TestProveInterrupted: a prove stopped before its commit (its context
// cancelled) writes nothing; run again, it proves every file.
func TestProveInterrupted(t *testing.T) {
	if !zlibenc.Available {
		t.Skip("built without cgo: no zlib, no bit-exact gzip")
	}
	files := sharedtest.CorpusFiles(t, "ota-lovescout24")[:3]
	arch := filepath.Join(t.TempDir(), "a.bwa")
	opts := testOpts()
	opts.SkipOriginal = true
	if _, err := Ingest(context.Background(), arch, files, opts); err != nil {
		t.Fatal(err)
	}
	before := archiveFiles(t, arch)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Prove(ctx, arch, files, pack.Options{}); err == nil {
		t.Fatal("a cancelled prove reported success")
	}
	if !maps.EqualFunc(before, archiveFiles(t, arch), bytes.Equal) {
		t.Fatal("a cancelled prove wrote to the archive")
	}
	if res, err := Prove(context.Background(), arch, files, pack.Options{}); err != nil || len(res.Proven) != 3 {
		t.Fatalf("prove again: %+v, %v", res, err)
	}
}
