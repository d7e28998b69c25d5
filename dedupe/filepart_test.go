package dedupe

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
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

// TestRecoverFileRows: repair computes the rows of a lost part of the
// input-file table again from the originals, equal to what ingest wrote,
// and refuses an original that is not the file ingested under its name.
func TestRecoverFileRows(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	sample := func(name string) string { return filepath.Join(root, "testdata", "samples", name) }
	first := []string{sample("ota-lovescout24-20220120143355.warc.gz"), sample("ota-lovescout24-20220125183141.warc.gz")}
	second := []string{sample("ota-lovescout24-20220325123217.warc.gz")}
	pristine := filepath.Join(t.TempDir(), "a.bwa")
	for _, in := range [][]string{first, second} {
		if _, err := Ingest(context.Background(), pristine, in, testOpts()); err != nil {
			t.Fatal(err)
		}
	}
	a, err := Open(pristine, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(a.Files())
	records := checkRoundTrip(t, a)
	a.Close()
	if len(want) != 3 || want[0].Original == nil || !want[0].Original.PerPiece {
		t.Fatalf("rows %+v: want 3, wget's with member tables per piece", want)
	}

	// The first ingest's part is lost (a root naming a part the archive
	// does not hold stands for one whose frame does not read).
	lose := func(t *testing.T) string {
		arch := filepath.Join(t.TempDir(), "a.bwa")
		sharedtest.CopyDir(t, pristine, arch)
		s, err := pack.Open(arch, pack.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		r, err := decodeRoot(s.Payload())
		if err != nil {
			t.Fatal(err)
		}
		r.Parts[0].ID = s.Sum([]byte("no such part"))
		w, err := s.Begin()
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		payload, err := r.encode()
		if err == nil {
			err = w.Commit(payload)
		}
		if err != nil {
			t.Fatal(err)
		}
		return arch
	}
	rows := func(t *testing.T, arch string) []InputFile {
		a, err := Open(arch, pack.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		return slices.Clone(a.Files())
	}

	t.Run("no originals", func(t *testing.T) {
		arch := lose(t)
		res, err := Reingest(context.Background(), arch, nil, pack.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Unlisted) != 1 || !strings.Contains(res.Unlisted[0], "ota-lovescout24-20220120143355.warc.gz, ota-lovescout24-20220125183141.warc.gz") {
			t.Errorf("lost part named as %q; want it and its two files named", res.Unlisted)
		}
	})
	t.Run("wrong original", func(t *testing.T) {
		arch := lose(t)
		dir := t.TempDir()
		impostor := filepath.Join(dir, filepath.Base(first[1]))
		b, err := os.ReadFile(second[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(impostor, b, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := Reingest(context.Background(), arch, []string{first[0], impostor}, pack.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Refused) == 0 || !strings.Contains(res.Refused[0], impostor) || len(res.Unlisted) == 0 {
			t.Errorf("an impostor original: refused %q, unlisted %q", res.Refused, res.Unlisted)
		}
		if got := rows(t, arch); len(got) != 1 {
			t.Errorf("rows after a refused original: %d, want the 1 that read", len(got))
		}
	})
	t.Run("originals", func(t *testing.T) {
		arch := lose(t)
		res, err := Reingest(context.Background(), arch, first, pack.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Unlisted)+len(res.Refused) > 0 || len(res.Recovered) == 0 {
			t.Fatalf("%+v", res)
		}
		got := rows(t, arch)
		// The rebuilt rows follow those that read.
		if len(got) != 3 || !reflect.DeepEqual(got[0], want[2]) || !reflect.DeepEqual(got[1:], want[:2]) {
			t.Errorf("rows after repair:\n%+v\nwant (reordered)\n%+v", got, want)
		}
		a, err := Open(arch, pack.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		if n := checkRoundTrip(t, a); n != records {
			t.Errorf("%d records restore, want %d", n, records)
		}
		if st, err := a.Verify(func(p Problem) { t.Errorf("verify: %v", p) }); err != nil || st.Files != 3 || st.FilesOriginal != 3 {
			t.Errorf("verify: %+v, %v", st, err)
		}
	})
}
