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

// TestProveThenCommitLost: after prove has written parts of the
// input-file table anew, an archive whose COMMIT and COMMIT.copy are both
// lost is rebuilt with one row per file, in the table's order, proven
// where prove proved it (the parts prove replaced are still in the
// packs). The first file is proven first: its new part, written last,
// takes the place of the part it replaced.
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
	var want []string // the table's order
	if a, err := Open(arch, pack.Options{}); err != nil {
		t.Fatal(err)
	} else {
		for _, f := range a.Files() {
			want = append(want, f.Name)
		}
		a.Close()
	}
	for k, proven := range [][]string{files[:1], files[1:]} {
		if res, err := Prove(context.Background(), arch, proven, pack.Options{}); err != nil || len(res.Proven) != len(proven) {
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
		rows := a.Files()
		if len(rows) != len(want) {
			t.Fatalf("%d input-file rows after the rebuild, want %d", len(rows), len(want))
		}
		for i, f := range rows {
			if f.Name != want[i] {
				t.Errorf("prove %d: row %d after the rebuild is %s, want %s", k, i, f.Name, want[i])
			}
			// After the first prove only the first file is proven.
			if wantProven := k == 1 || i == 0; f.OriginalCompressed() != wantProven {
				t.Errorf("prove %d: %s after the rebuild: %q", k, f.Name, f.OriginalReason())
			}
		}
		if _, err := a.Verify(func(p Problem) { t.Errorf("verify: %v", p) }); err != nil {
			t.Fatal(err)
		}
		a.Close()
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

// TestProveRewritesOnlyItsParts: proving after each ingest is the
// documented procedure, so a prove writes again only the parts of the
// input-file table holding a row it examined. Writing the whole table
// each time, as before, made an archive of n crawls, each proven after
// its ingest, hold n²/2 rows of dead tables.
func TestProveRewritesOnlyItsParts(t *testing.T) {
	if !zlibenc.Available {
		t.Skip("built without cgo: no zlib, no bit-exact gzip")
	}
	t.Chdir("..")
	files, err := filepath.Glob("testdata/samples/*.warc.gz")
	if err != nil || len(files) < 8 {
		t.Fatalf("samples: %v (%d files)", err, len(files))
	}
	arch := filepath.Join(t.TempDir(), "a.bwa")
	opts := testOpts()
	opts.SkipOriginal = true
	parts := func() []filePart {
		t.Helper()
		s, err := pack.Open(arch, pack.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		r, err := decodeRoot(s.Payload())
		if err != nil {
			t.Fatal(err)
		}
		return r.Parts
	}
	for _, batch := range [][]string{files[:4], files[4:8]} {
		if _, err := Ingest(context.Background(), arch, batch, opts); err != nil {
			t.Fatal(err)
		}
	}
	ingested := parts()
	if len(ingested) != 2 || ingested[0].Rows != 4 || ingested[1].Rows != 4 {
		t.Fatalf("two ingests of four files: parts %+v", ingested)
	}
	// Proving the second ingest's files writes its part alone; proving
	// the first's then writes the first part alone.
	for k, batch := range [][]string{files[4:8], files[:4]} {
		res, err := Prove(context.Background(), arch, batch, pack.Options{})
		if err != nil || len(res.Proven) != 4 {
			t.Fatalf("prove %d: %+v, %v", k, res, err)
		}
		after := parts()
		if len(after) != 2 || after[0].Rows != 4 || after[1].Rows != 4 {
			t.Fatalf("prove %d: parts %+v, want two of four rows", k, after)
		}
		changed, kept := 1-k, k // the part proven, the other
		if after[changed].ID == ingested[changed].ID || after[kept].ID != ingested[kept].ID {
			t.Errorf("prove %d: parts %+v from %+v: want part %d alone written again", k, after, ingested, changed)
		}
		ingested = after
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for _, f := range a.Files() {
		if !f.OriginalExact() {
			t.Errorf("%s not proven: %s", f.Name, f.OriginalReason())
		}
	}
}

// TestProveKeepsNoParity: prove of an archive ingested without parity
// writes none, so that verify still finds nothing to report (a few
// sidecars beside files without any made it name the rest as missing).
func TestProveKeepsNoParity(t *testing.T) {
	if !zlibenc.Available {
		t.Skip("built without cgo: no zlib, no bit-exact gzip")
	}
	t.Chdir("..")
	files := []string{"testdata/samples/ota-lovescout24-20220120143355.warc.gz"}
	for _, parity := range []bool{false, true} {
		arch := filepath.Join(t.TempDir(), "a.bwa")
		opts := testOpts()
		opts.SkipOriginal = true
		opts.Pack.NoParity = !parity
		if _, err := Ingest(context.Background(), arch, files, opts); err != nil {
			t.Fatal(err)
		}
		if res, err := Prove(context.Background(), arch, files, pack.Options{}); err != nil || len(res.Proven) != 1 {
			t.Fatalf("prove: %+v, %v", res, err)
		}
		if got := !pack.WithoutParity(arch); got != parity {
			t.Errorf("ingested with parity %v: after prove the archive has parity %v", parity, got)
		}
		a, err := Open(arch, pack.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Verify(func(p Problem) { t.Errorf("parity %v: verify after prove: %v", parity, p) }); err != nil {
			t.Error(err)
		}
		a.Close()
	}
}
