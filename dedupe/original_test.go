package dedupe

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/dedupe/zlibenc"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// zlibMember is one gzip member as wget writes it: FEXTRA with an "sl"
// subfield (member length, decompressed length), OS 3, deflated by zlib
// with p. With sl false the header is gzip's plain one, with a name.
func zlibMember(t testing.TB, data []byte, p zlibenc.Params, sl bool) []byte {
	t.Helper()
	def, err := zlibenc.Deflate(nil, data, p)
	if err != nil {
		t.Fatal(err)
	}
	var h []byte
	if sl {
		h = []byte{0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 3, 12, 0, 's', 'l', 8, 0}
		h = binary.LittleEndian.AppendUint32(h, uint32(len(h)+8+len(def)+8))
		h = binary.LittleEndian.AppendUint32(h, uint32(len(data)))
	} else {
		h = append([]byte{0x1f, 0x8b, 8, 8, 1, 2, 3, 4, 2, 3}, "x.warc\x00"...)
	}
	m := append(h, def...)
	m = binary.LittleEndian.AppendUint32(m, crc32.ChecksumIEEE(data))
	return binary.LittleEndian.AppendUint32(m, uint32(len(data)))
}

// TestOriginalRoundTrip ingests gzip files of several kinds and checks
// which restore bit-exact compressed, that those do (WriteOriginal's
// bytes equal the file, after the archive is reopened), and that verify
// checks them.
func TestOriginalRoundTrip(t *testing.T) {
	if !zlibenc.Available {
		t.Skip("built without cgo: no zlib, no bit-exact gzip")
	}
	dir := t.TempDir()
	date := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	recs := make([][]byte, 6)
	for i := range recs {
		body := fmt.Sprintf(page, strings.Repeat(fmt.Sprintf("text %d ", i), 50*i+1))
		recs[i] = warcRecord("response", fmt.Sprintf("http://example.com/%d", i%3), date.Add(time.Duration(i)*time.Hour), i+1, httpResponse("text/html", []byte(body), false))
	}
	build := func(name string, member func(i int, rec []byte) []byte) string {
		var b []byte
		for i, r := range recs {
			b = append(b, member(i, r)...)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	l6, l9, l1f := zlibenc.Params{Level: 6, MemLevel: 8}, zlibenc.Params{Level: 9, MemLevel: 8}, zlibenc.Params{Level: 1, MemLevel: 9, Strategy: zlibenc.StrategyFiltered, SyncFlush: true}
	want := map[string]uint8{}
	// wget: one member per record, levels varying from member to member,
	// an empty member in the middle and at the end.
	wget := build("wget.warc.gz", func(i int, r []byte) []byte {
		p := []zlibenc.Params{l6, l6, l9, l1f, l6, l9}[i]
		m := zlibMember(t, r, p, true)
		if i == 2 || i == 5 {
			m = append(m, zlibMember(t, nil, l6, true)...)
		}
		return m
	})
	want[wget] = originalExact
	// The gzip tool: a plain header (name, mtime), the whole file one member.
	whole := filepath.Join(dir, "whole.warc.gz")
	if err := os.WriteFile(whole, zlibMember(t, bytes.Join(recs, nil), l9, false), 0o644); err != nil {
		t.Fatal(err)
	}
	want[whole] = originalExact
	// An "sl" that does not say the member's lengths is kept literally.
	odd := build("oddsl.warc.gz", func(i int, r []byte) []byte {
		m := zlibMember(t, r, l6, true)
		binary.LittleEndian.PutUint32(m[16:], uint32(i)) // a wrong member length
		return m
	})
	want[odd] = originalExact
	// Go's deflate: no zlib setting reproduces it.
	gogz := build("go.warc.gz", func(i int, r []byte) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(r)
		zw.Close()
		return b.Bytes()
	})
	want[gogz] = originalNoParams
	plain := build("plain.warc", func(i int, r []byte) []byte { return r })
	want[plain] = originalPlain
	// Bytes after the last member: the stream restores, the file not.
	trail := build("trail.warc.gz", func(i int, r []byte) []byte { return zlibMember(t, r, l6, true) })
	f, _ := os.OpenFile(trail, os.O_APPEND|os.O_WRONLY, 0)
	f.Write([]byte("\x00\x00junk"))
	f.Close()
	want[trail] = originalDamaged

	var inputs []string
	for p := range want {
		inputs = append(inputs, p)
	}
	arch := filepath.Join(dir, "a.bwa")
	if _, err := Ingest(context.Background(), arch, inputs, testOpts()); err != nil {
		t.Fatal(err)
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	exact := 0
	err = a.WalkSources(nil, func(f InputFile, vs []Version) error {
		path := filepath.Join(dir, f.Name)
		if f.OriginalWhy != want[path] {
			t.Errorf("%s: %q, want %q", f.Name, f.OriginalReason(), originalWhyText[want[path]])
		}
		var out bytes.Buffer
		st, err := a.WriteOriginal(&out, f, vs)
		if !f.OriginalExact() {
			if err == nil {
				t.Errorf("%s: WriteOriginal wrote a file that does not restore bit-exact", f.Name)
			}
			return nil
		}
		exact++
		orig, _ := os.ReadFile(path)
		if err != nil || !st.Exact || !bytes.Equal(out.Bytes(), orig) {
			t.Errorf("%s: original not rebuilt (%v, %+v; %d bytes, want %d)", f.Name, err, st, out.Len(), len(orig))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	vst, err := a.Verify(func(p Problem) { t.Errorf("verify: %v", p) })
	if err != nil {
		t.Fatal(err)
	}
	if exact != 4 || vst.FilesOriginal != 3 || vst.Files != int64(len(inputs)) {
		t.Errorf("%d files exact, verify rebuilt %d compressed and %d streams, want 4 (3 gzip, 1 plain), 3 and %d", exact, vst.FilesOriginal, vst.Files, len(inputs))
	}
	for _, f := range a.Files() {
		if f.Name == "wget.warc.gz" && (len(f.Original.Runs) > 6 || len(f.Original.Headers) != 1 || len(f.Original.Lens) != 8) {
			t.Errorf("wget member table: %d runs, %d headers, %d members; want at most 6 (levels that give the same bytes share a run), 1 (sl recomputed), 8", len(f.Original.Runs), len(f.Original.Headers), len(f.Original.Lens))
		}
	}
}

// TestOriginalDamageFound: a member table that does not rebuild the file
// (here: a member's settings changed) makes verify fail and
// WriteOriginal say so, never pass wrong bytes as the original.
func TestOriginalDamageFound(t *testing.T) {
	if !zlibenc.Available {
		t.Skip("built without cgo")
	}
	dir := t.TempDir()
	rec := warcRecord("resource", "http://example.com/", time.Now(), 1, bytes.Repeat([]byte("some text to compress, some more text "), 300))
	p := filepath.Join(dir, "f.warc.gz")
	if err := os.WriteFile(p, zlibMember(t, rec, zlibenc.Params{Level: 6, MemLevel: 8}, true), 0o644); err != nil {
		t.Fatal(err)
	}
	arch := filepath.Join(dir, "a.bwa")
	if _, err := Ingest(context.Background(), arch, []string{p}, testOpts()); err != nil {
		t.Fatal(err)
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.Files()[0].Original.Runs[0].P.Level = 1
	problems := 0
	vst, err := a.Verify(func(p Problem) { problems++ })
	if err != nil {
		t.Fatal(err)
	}
	if problems != 1 || vst.FilesOriginal != 0 || vst.Files != 1 {
		t.Errorf("verify: %d problems, %d compressed files, %d streams; want 1, 0, 1", problems, vst.FilesOriginal, vst.Files)
	}
	err = a.WalkSources(nil, func(f InputFile, vs []Version) error {
		st, err := a.WriteOriginal(&bytes.Buffer{}, f, vs)
		if err != nil || st.Exact {
			t.Errorf("WriteOriginal with wrong settings: %v, exact %v; want no error, not exact", err, st.Exact)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkOriginalShare ingests the interop files and the corpus with
// and without learning gzip members and prints the share of input files
// that restore bit-exact compressed, the ingest time and the archive size
// of both; every file counted as exact is rebuilt and checked against the
// file's SHA-256. It needs ../shared. A benchmark, not a test, because it
// ingests the corpus twice (about 45 s); TestExportSources and the CLI's
// corpus test assert the shares.
//
//	go test ./dedupe -run '^$' -bench OriginalShare -benchtime 1x
func BenchmarkOriginalShare(b *testing.B) {
	if !zlibenc.Available {
		b.Skip("built without cgo: no zlib")
	}
	for range b.N {
		originalShare(b)
	}
}

func originalShare(t testing.TB) {
	shared := sharedtest.Dir(t)
	sets := []struct{ name, dir string }{
		{"interop", filepath.Join(shared, "testdata", "interop")},
		{"corpus", filepath.Join(shared, "corpus")},
	}
	for _, set := range sets {
		inputs := mustExpand(t, set.dir)
		var took [2]time.Duration
		var size [2]int64
		var a *Archive
		for i, skip := range []bool{true, false} {
			arch := filepath.Join(t.TempDir(), "a.bwa")
			opts := Options{SkipOriginal: skip, Workers: 2}
			start := time.Now()
			if _, err := Ingest(context.Background(), arch, inputs, opts); err != nil {
				t.Fatal(err)
			}
			took[i], size[i] = time.Since(start), archiveBytes(t, arch)
			if !skip {
				var err error
				if a, err = Open(arch, pack.Options{}); err != nil {
					t.Fatal(err)
				}
				defer a.Close()
			}
		}
		exact, gz, plain := 0, 0, 0
		why := map[string]int{}
		err := a.WalkSources(nil, func(f InputFile, vs []Version) error {
			if f.OriginalWhy != originalNotGzip && f.OriginalWhy != originalPlain {
				gz++
			}
			why[f.OriginalReason()]++
			if !f.OriginalExact() {
				return nil
			}
			if f.OriginalCompressed() {
				exact++
			} else {
				plain++
			}
			var out bytes.Buffer
			st, err := a.WriteOriginal(&out, f, vs)
			if err != nil || !st.Exact {
				t.Errorf("%s: counted exact, not rebuilt: %v %+v", f.Name, err, st)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if exact == 0 {
			t.Errorf("%s: no input file restores bit-exact compressed", set.name)
		}
		t.Logf("%s: %d of %d input files bit-exact compressed (%.1f %%; %d of %d gzip files, %.1f %%); %d more not compressed (restore as given); reasons %v",
			set.name, exact, len(inputs), 100*float64(exact)/float64(len(inputs)), exact, gz, 100*float64(exact)/float64(max(gz, 1)), plain, why)
		t.Logf("%s: ingest %.2fs without, %.2fs with member tables (×%.2f); archive %d bytes without, %d with (+%d, +%.2f %%)",
			set.name, took[0].Seconds(), took[1].Seconds(), took[1].Seconds()/took[0].Seconds(), size[0], size[1], size[1]-size[0], 100*float64(size[1]-size[0])/float64(size[0]))
	}
}
