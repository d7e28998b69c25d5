package dedupe

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"blockwarc/dedupe/pack"
)

// TestFilePartDamaged: the input-file table lives in objects (catalog
// version 8). When its part does not read, the captures still restore,
// verify names the table, and ingest refuses to extend the archive
// rather than ingest its files a second time.
func TestFilePartDamaged(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	in := []string{
		filepath.Join(root, "testdata", "samples", "ota-lovescout24-20220120143355.warc.gz"),
		filepath.Join(root, "testdata", "samples", "ota-lovescout24-20220125183141.warc.gz"),
	}
	arch := filepath.Join(t.TempDir(), "a.bwa")
	opts := testOpts()
	opts.Pack = pack.Options{NoParity: true}
	if _, err := Ingest(context.Background(), arch, in, opts); err != nil {
		t.Fatal(err)
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.root.Parts) != 1 || a.root.Parts[0].Rows != 2 || a.root.Files != nil {
		t.Fatalf("root parts %+v, files loaded %v: want one part of 2 rows, not read yet", a.root.Parts, a.root.Files != nil)
	}
	want := checkRoundTrip(t, a)
	if len(a.Files()) != 2 {
		t.Fatalf("files %+v", a.Files())
	}
	a.Close()

	// A root naming a part the archive does not hold stands for a part
	// whose frame does not read (the pack layer's checks and parity are
	// tested in package pack).
	st0, err := pack.Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := decodeRoot(st0.Payload())
	if err != nil {
		t.Fatal(err)
	}
	r.Parts[0].ID = st0.Sum([]byte("no such part"))
	w, err := st0.Begin()
	if err != nil {
		t.Fatal(err)
	}
	payload, err := r.encode()
	if err == nil {
		err = w.Commit(payload)
	}
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	st0.Close()
	a, err = Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := checkRoundTrip(t, a); got != want {
		t.Errorf("%d records restore with the input-file table damaged, want %d", got, want)
	}
	if fs := a.Files(); len(fs) != 0 {
		t.Errorf("files %+v from a damaged part", fs)
	}
	var named bool
	st, err := a.Verify(func(p Problem) { named = named || p.What == "input-file table" })
	a.Close()
	if err != nil || !named || st.Records != int64(want) {
		t.Errorf("verify: %+v, %v; input-file table named: %v", st, err, named)
	}
	_, err = Ingest(context.Background(), arch, in, opts)
	if err == nil || !strings.Contains(err.Error(), "input-file table part") {
		t.Errorf("ingest into an archive whose input-file table does not read: %v", err)
	}
}
