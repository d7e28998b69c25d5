package dedupe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/internal/testhooks"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestRepairReingestModel: after damage beyond parity, re-ingest puts back
// objects of every kind the model cuts: pages partitioned with the URL's
// previous page as Prior, gzip and brotli pages kept as their decoded
// document's blocks (chunked or not), payloads whole, header anchors of
// earlier captures, non-HTTP blocks. For each damaged place (frames of
// objects, whole or chunked, with delta bases, and catalog segments,
// re-ingested from the files that held them), every capture restores
// byte for byte again, none twice, and the archive verifies.
func TestRepairReingestModel(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2022, 5, 6, 7, 8, 9, 0, time.UTC)
	gz := gzipOf
	br := func(s string) []byte { return brotliOf(s, 5) }
	var files []string
	n := 0
	for f := 0; f < 3; f++ {
		var recs [][]byte
		for u := 0; u < 4; u++ {
			at := t0.Add(time.Duration(f*24+u) * time.Hour)
			body := fmt.Sprintf(page, fmt.Sprintf("of page %d in crawl %d, %s", u, f, bytes.Repeat([]byte("word "), 40*f+u)))
			n++
			recs = append(recs, warcRecord("request", fmt.Sprintf("http://a.example/p%d", u), at, n, []byte("GET / HTTP/1.1\r\nHost: a.example\r\n\r\n")))
			n++
			recs = append(recs, warcRecord("response", fmt.Sprintf("http://a.example/p%d", u), at, n, httpResponse("text/html", []byte(body), u%2 == 1)))
			if u < 2 {
				// A second capture in the same crawl: partitioned with
				// the first as Prior.
				n++
				later := fmt.Sprintf(page, fmt.Sprintf("of page %d in crawl %d, later, %s", u, f, bytes.Repeat([]byte("more "), 30*f+u)))
				recs = append(recs, warcRecord("response", fmt.Sprintf("http://a.example/p%d", u), at.Add(30*time.Minute), n, httpResponse("text/html", []byte(later), false)))
			}
			n++
			recs = append(recs, warcRecord("response", fmt.Sprintf("http://a.example/gz%d", u), at, n, codedResponse("gzip", gz(body), u%2 == 0)))
			n++
			recs = append(recs, warcRecord("response", fmt.Sprintf("http://a.example/br%d", u), at, n, codedResponse("br", br(body), false)))
			n++
			recs = append(recs, warcRecord("response", fmt.Sprintf("http://a.example/img%d", u), at, n, httpResponse("image/png", bytes.Repeat([]byte{byte(u), byte(f)}, 300), false)))
		}
		n++
		recs = append(recs, warcRecord("metadata", "metadata://a.example/log", t0, n, []byte(fmt.Sprintf("crawl %d log\n%s", f, bytes.Repeat([]byte("line\n"), 500+f)))))
		p := filepath.Join(dir, fmt.Sprintf("crawl%d.warc", f))
		writeFile(t, p, recs...)
		files = append(files, p)
	}
	exercised, segments := 0, 0
	for _, plain := range []bool{false, true} {
		pristine := filepath.Join(dir, fmt.Sprintf("pristine-%v.bwa", plain))
		opts := testOpts()
		opts.Pack = pack.Options{NoParity: true, Plain: plain, FrameSize: 4 << 10}
		// One ingest per crawl: a run each, as an archive grows.
		for _, f := range files {
			if _, err := Ingest(context.Background(), pristine, []string{f}, opts); err != nil {
				t.Fatal(err)
			}
		}
		packs, _ := filepath.Glob(filepath.Join(pristine, "*.pack"))
		if len(packs) != 1 {
			t.Fatalf("packs %v", packs)
		}
		fi, _ := os.Stat(packs[0])
		for _, at := range []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8} {
			name := fmt.Sprintf("plain=%v at %.0f%%", plain, at*100)
			arch := filepath.Join(dir, fmt.Sprintf("a-%v-%v.bwa", plain, at))
			sharedtest.CopyDir(t, pristine, arch)
			b, _ := os.ReadFile(filepath.Join(arch, filepath.Base(packs[0])))
			off := int(float64(fi.Size()) * at)
			for i := off; i < off+64; i++ {
				b[i] ^= 0x5a
			}
			os.WriteFile(filepath.Join(arch, filepath.Base(packs[0])), b, 0o644)

			rr, err := pack.RebuildIndexes(arch, pack.Options{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if segments == 0 && !plain {
				// The first place (it loses catalog segments): a
				// crash-safety pass over re-ingest's writes.
				failEachOp(t, name, arch, files, n)
			}
			res, err := Reingest(context.Background(), arch, files, pack.Options{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if len(res.Unlisted) > 0 {
				t.Fatalf("%s: a catalog segment is lost, not re-ingested: %v", name, res.Unlisted)
			}
			if len(res.Recovered) > 0 {
				segments++
			}
			if len(res.Refused)+len(res.Unread)+len(res.Missing) > 0 {
				t.Fatalf("%s: %+v", name, res)
			}
			if res.Restored != res.Lost {
				t.Errorf("%s: %d of %d lost captures restored", name, res.Restored, res.Lost)
			}
			if res.Lost > 0 {
				exercised++
			}
			a, err := Open(arch, pack.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := checkRoundTrip(t, a); got != n {
				t.Errorf("%s: %d of %d records restore", name, got, n)
			}
			st, err := a.Verify(func(p Problem) { t.Errorf("%s: verify: %v", name, p) })
			a.Close()
			if err != nil || st.Problems > 0 {
				t.Fatalf("%s: verify: %d problems, %v", name, st.Problems, err)
			}
			t.Logf("%s: %d lost, %d objects put back, %d salvaged, segments re-ingested: %v", name, res.Lost, res.Objects, len(rr.Salvaged), res.Recovered)
		}
	}
	if exercised < 5 || segments == 0 {
		t.Fatalf("only %d damaged places lost captures that could be re-ingested, %d a catalog segment", exercised, segments)
	}
}

// failEachOp fails, in turn, each file operation Reingest makes on the
// archive in dir (a copy of it each time): Reingest returns the error, the
// archive stays readable at a commit, and Reingest run again restores
// each of the want records once.
func failEachOp(t *testing.T, name, dir string, files []string, want int) {
	t.Helper()
	count := filepath.Join(t.TempDir(), "count.bwa")
	sharedtest.CopyDir(t, dir, count)
	ops := 0
	if _, err := Reingest(context.Background(), count, files, packHooks(testhooks.Pack{Faults: func(string, string) error { ops++; return nil }})); err != nil {
		t.Fatal(err)
	}
	if ops == 0 {
		t.Fatalf("%s: re-ingest wrote nothing", name)
	}
	for i := 1; i <= ops; i++ {
		a := filepath.Join(t.TempDir(), "a.bwa")
		sharedtest.CopyDir(t, dir, a)
		n := 0
		fail := packHooks(testhooks.Pack{Faults: func(string, string) error {
			if n++; n == i {
				return syscall.EIO
			}
			return nil
		}})
		if _, err := Reingest(context.Background(), a, files, fail); !errors.Is(err, syscall.EIO) {
			t.Fatalf("%s, operation %d of %d failing: re-ingest returned %v", name, i, ops, err)
		}
		if _, err := pack.Open(a, pack.Options{}); err != nil {
			t.Fatalf("%s, operation %d failing: the archive does not open: %v", name, i, err)
		}
		res, err := Reingest(context.Background(), a, files, pack.Options{})
		if err != nil || len(res.Unlisted) > 0 {
			t.Fatalf("%s, operation %d failing: re-run: %v %v", name, i, err, res.Unlisted)
		}
		ar, err := Open(a, pack.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := checkRoundTrip(t, ar); got != want {
			t.Fatalf("%s, operation %d failing: after the re-run %d of %d records restore", name, i, got, want)
		}
		ar.Close()
	}
	t.Logf("%s: each of %d operations of re-ingest failed in turn", name, ops)
}

// TestRepairPlacesReused: repair without the originals drops a lost frame
// of chunks, and the next ingest gives its chunk numbers to new chunks, so
// the lost captures' places now hold other objects. Those captures must
// fail their CRC-32C, never restore as other bytes, and a repair with the
// originals must re-ingest them (it checks whole records, not places).
func TestRepairPlacesReused(t *testing.T) {
	dir := t.TempDir()
	arch, ins := lostFrameArchive(t, dir, 2)
	opts := testOpts()
	opts.Pack = pack.Options{NoParity: true}
	// A dump of other URLs: its chunks take the numbers the lost frames
	// had.
	rng := rand.New(rand.NewPCG(3, 4))
	var recs [][]byte
	for i := range 6 {
		words := make([]byte, 0, 24<<10)
		for len(words) < 24<<10 {
			words = strconv.AppendUint(append(words, " word "...), rng.Uint64N(1<<30), 36)
		}
		body := fmt.Sprintf(page, words)
		recs = append(recs, warcRecord("response", fmt.Sprintf("http://new.example/p%d", i), time.Date(2023, 1, 1, i, 0, 0, 0, time.UTC), i+1, httpResponse("text/html", []byte(body), false)))
	}
	other := filepath.Join(dir, "other.warc")
	writeFile(t, other, recs...)
	ins = append(ins[:2], other)
	if _, err := Ingest(context.Background(), arch, []string{other}, opts); err != nil {
		t.Fatal(err)
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	failed, reused := 0, 0
	err = a.Walk(func(u URLVersions) error {
		for i := range u.Versions {
			v := &u.Versions[i]
			p, err := a.Restore(v)
			if err != nil {
				failed++
				if !slices.ContainsFunc(objectsOf(v), func(id pack.ID) bool { _, _, err := a.Store().Get(id); return err != nil }) {
					reused++ // every object reads, yet not as its record
				}
				continue
			}
			rec := p.Record()
			if orig, err := original(v.File, v.Offset, v.Skip, len(rec)); err != nil || !bytes.Equal(orig, rec) {
				t.Errorf("%s at %d restored as other bytes", v.File, v.Offset)
			}
		}
		return nil
	})
	a.Close()
	if err != nil || failed == 0 || reused == 0 {
		t.Fatalf("walk: %v; %d captures fail to restore, %d of them with places that read (other objects now): want some of each", err, failed, reused)
	}
	res, err := Reingest(context.Background(), arch, ins, pack.Options{})
	if err != nil || len(res.Unlisted) > 0 {
		t.Fatalf("repair with the originals: %v, not re-ingested %v", err, res.Unlisted)
	}
	// Every capture that did not restore counts as lost, those whose
	// places read as other objects included, and each came back.
	if res.Lost != failed || res.Restored != failed {
		t.Errorf("repair: %d lost, %d restored; %d captures did not restore", res.Lost, res.Restored, failed)
	}
	a, err = Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if n := checkRoundTrip(t, a); n != 16+6 {
		t.Errorf("%d of %d records restore after repair", n, 16+6)
	}
	if st, err := a.Verify(func(p Problem) { t.Errorf("verify: %v", p) }); err != nil || st.Problems > 0 {
		t.Fatalf("verify: %d problems, %v", st.Problems, err)
	}
}

// lostFrameArchive copies the first n sample dumps of ota-lovescout24
// into dir, ingests the first two without parity into dir/a.bwa, damages
// the frame of chunks that holds the first page's layout (the catalog's
// frames, written before it, stay readable), and repairs the archive
// without the originals: their captures are lost. It returns the archive
// and the copies.
func lostFrameArchive(t *testing.T, dir string, n int) (string, []string) {
	t.Helper()
	samples := filepath.Join(sharedtest.RepoRoot(t), "testdata", "samples")
	files, _ := filepath.Glob(filepath.Join(samples, "ota-lovescout24-2022*.warc.gz"))
	if len(files) < n {
		t.Fatalf("want %d sample dumps in %s, found %d", n, samples, len(files))
	}
	var ins []string
	for _, f := range files[:n] {
		p := filepath.Join(dir, filepath.Base(f))
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, b)
		ins = append(ins, p)
	}
	arch := filepath.Join(dir, "a.bwa")
	opts := testOpts()
	opts.Pack = pack.Options{NoParity: true}
	if _, err := Ingest(context.Background(), arch, ins[:2], opts); err != nil {
		t.Fatal(err)
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var layout pack.ID
	a.Walk(func(u URLVersions) error {
		for _, v := range u.Versions {
			if _, ok := v.Layout.Place(); ok && layout == (pack.ID{}) {
				layout = v.Layout
			}
		}
		return nil
	})
	file, off, size, err := a.Store().Locate(layout)
	a.Close()
	if err != nil {
		t.Fatalf("locate %s: %v", layout, err)
	}
	path := filepath.Join(arch, file)
	b, _ := os.ReadFile(path)
	for i := off + int64(size)/2; i < off+int64(size)/2+32; i++ {
		b[i] ^= 0x5a
	}
	os.WriteFile(path, b, 0o644)
	if _, err := pack.RebuildIndexes(arch, pack.Options{}); err != nil {
		t.Fatal(err)
	}
	if res, err := Reingest(context.Background(), arch, nil, pack.Options{}); err != nil || len(res.Unlisted) == 0 {
		t.Fatalf("repair without originals: %v, named %v", err, res.Unlisted)
	}
	return arch, ins
}

// TestExtendLostHistory: after a frame is lost and repaired without the
// originals, the next crawl of the same URLs is ingested (it failed,
// "read anchor of …", while a URL's history did not read), its captures
// restore byte for byte, ingest counts the URLs whose history did not
// read, and a repair with the originals restores the old captures too.
func TestExtendLostHistory(t *testing.T) {
	dir := t.TempDir()
	arch, ins := lostFrameArchive(t, dir, 3)
	opts := testOpts()
	opts.Pack = pack.Options{NoParity: true}
	st, err := Ingest(context.Background(), arch, ins[2:], opts)
	if err != nil {
		t.Fatalf("ingest the next crawl: %v", err)
	}
	if st.HistoryUnread == 0 {
		t.Errorf("ingest counted no URL whose history does not read")
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	third, lost := 0, 0
	err = a.Walk(func(u URLVersions) error {
		for i := range u.Versions {
			v := &u.Versions[i]
			p, err := a.Restore(v)
			if filepath.Base(v.File) != filepath.Base(ins[2]) {
				if err != nil {
					lost++
				}
				continue
			}
			if err != nil {
				t.Errorf("%s %s of the new crawl: %v", v.Type, v.TargetURI, err)
				continue
			}
			rec := p.Record()
			if orig, err := original(ins[2], v.Offset, v.Skip, len(rec)); err != nil || !bytes.Equal(orig, rec) {
				t.Errorf("%s %s of the new crawl restores as other bytes (%v)", v.Type, v.TargetURI, err)
			}
			third++
		}
		return nil
	})
	a.Close()
	if err != nil || third == 0 || lost == 0 {
		t.Fatalf("walk: %v; %d captures of the new crawl, %d old ones lost: want some of each", err, third, lost)
	}
	res, err := Reingest(context.Background(), arch, ins, pack.Options{})
	if err != nil || len(res.Unlisted) > 0 || res.Restored != lost {
		t.Fatalf("repair with the originals: %v, not re-ingested %v, %d of %d lost captures restored", err, res.Unlisted, res.Restored, lost)
	}
	a, err = Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	checkRoundTrip(t, a)
	if st, err := a.Verify(func(p Problem) { t.Errorf("verify: %v", p) }); err != nil || st.Problems > 0 {
		t.Fatalf("verify: %d problems, %v", st.Problems, err)
	}
}

// TestExtendLostHistoryWorkers: extending an archive whose lost places
// this ingest's own chunks take (a commit after every URL) writes the
// same bytes with one worker and with three: a worker that models a URL
// after such a commit must not read its lost anchor as the new object.
func TestExtendLostHistoryWorkers(t *testing.T) {
	base, ins := lostFrameArchive(t, t.TempDir(), 4)
	var archs []string
	for _, workers := range []int{1, 3} {
		arch := filepath.Join(t.TempDir(), "a.bwa")
		sharedtest.CopyDir(t, base, arch)
		opts := Options{CommitBytes: 1, Workers: workers, Pack: pack.Options{NoParity: true, Workers: workers}}
		st, err := Ingest(context.Background(), arch, ins[2:], opts)
		t.Logf("%d workers: %d URLs with lost history", workers, st.HistoryUnread)
		if err != nil || st.HistoryUnread == 0 {
			t.Fatalf("%d workers: ingest: %v, %d URLs with lost history", workers, err, st.HistoryUnread)
		}
		archs = append(archs, arch)
	}
	sameArchive(t, archs[1], archs[0])
}

// packHooks returns pack options with the test hooks h and nothing else.
func packHooks(h testhooks.Pack) pack.Options {
	var o pack.Options
	o.SetTestHooks(h)
	return o
}
