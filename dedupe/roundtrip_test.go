package dedupe

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/warcio"
)

// original reads, independently of warcio, the stored bytes of the record
// at off (plus skip decompressed bytes) in file: n bytes of it.
func original(file string, off, skip int64, n int) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(file, ".open")
	br := bufio.NewReader(f)
	var r io.Reader = br
	// Files are named after their content, mostly: sniff gzip too.
	magic, _ := br.Peek(2)
	switch {
	case strings.HasSuffix(name, ".gz") || bytes.Equal(magic, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, err
		}
		// A record may span members (some writers split big records).
		r = zr
	case strings.HasSuffix(name, ".bz2"):
		r = bzip2.NewReader(r)
	case strings.HasSuffix(name, ".lz4"):
		r = lz4.NewReader(r)
	case strings.HasSuffix(name, ".zst"):
		zr, err := zstd.NewReader(r)
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		r = zr
	}
	if _, err := io.CopyN(io.Discard, r, skip); err != nil {
		return nil, fmt.Errorf("skip %d: %w", skip, err)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("read %d bytes: %w", n, err)
	}
	return buf, nil
}

// checkRoundTrip restores every record of the archive and compares it
// with the input bytes; it returns the number of records checked.
func checkRoundTrip(t *testing.T, a *Archive) int {
	t.Helper()
	n := 0
	err := a.Walk(func(u URLVersions) error {
		for i := range u.Versions {
			v := &u.Versions[i]
			p, err := a.Restore(v)
			if err != nil {
				t.Errorf("%s at %d: %v", v.File, v.Offset, err)
				continue
			}
			rec := p.Record()
			orig, err := original(v.File, v.Offset, v.Skip, len(rec))
			if err != nil {
				t.Errorf("%s at %d: read original: %v", v.File, v.Offset, err)
				continue
			}
			if !bytes.Equal(orig, rec) {
				t.Errorf("%s at %d (%s %s): restored record differs from the input", v.File, v.Offset, v.Type, v.TargetURI)
			}
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// checkRestoreKnown restores every record of the archive again with
// RestoreKnown, given the WARC header Restore decoded, then both its
// headers: the record, and the block that BlockLen, WriteBlock and
// BlockReader give, must be Restore's; given a header with a byte
// changed, ErrMismatch (raw records, which are stored with their
// header, apart). It returns the number of records whose layout and
// blocks RestoreKnown gave as they are.
func checkRestoreKnown(t *testing.T, a *Archive) (asIs int) {
	t.Helper()
	err := a.Walk(func(u URLVersions) error {
		for i := range u.Versions {
			v := &u.Versions[i]
			p, err := a.Restore(v)
			if err != nil {
				t.Errorf("%s at %d: %v", v.File, v.Offset, err)
				continue
			}
			rec, block := p.Record(), p.Block
			if p.HTTPHeader != nil && !bytes.Equal(block, append(bytes.Clone(p.HTTPHeader), p.Payload...)) {
				t.Errorf("%s at %d: Restore's block is not its HTTP header and payload", v.File, v.Offset)
			}
			if p.BlockLen() != len(block) {
				t.Errorf("%s at %d: Restore's BlockLen %d, its block %d bytes", v.File, v.Offset, p.BlockLen(), len(block))
			}
			for _, h := range []Headers{{WARC: p.WARCHeader}, {WARC: p.WARCHeader, HTTP: p.HTTPHeader}} {
				k, err := a.RestoreKnown(v, h)
				if err != nil {
					t.Errorf("%s at %d: RestoreKnown: %v", v.File, v.Offset, err)
					continue
				}
				var w bytes.Buffer
				n, err := k.WriteBlock(&w)
				r, _ := io.ReadAll(k.BlockReader())
				switch {
				case !bytes.Equal(k.Record(), rec):
					t.Errorf("%s at %d: RestoreKnown's record differs from Restore's", v.File, v.Offset)
				case err != nil || n != int64(len(block)) || !bytes.Equal(w.Bytes(), block):
					t.Errorf("%s at %d: WriteBlock wrote %d bytes (%v), want Restore's %d", v.File, v.Offset, n, err, len(block))
				case !bytes.Equal(r, block) || k.BlockLen() != len(block):
					t.Errorf("%s at %d: BlockReader or BlockLen differs from Restore's block", v.File, v.Offset)
				case !bytes.Equal(k.HTTPHeader, p.HTTPHeader):
					t.Errorf("%s at %d: RestoreKnown's HTTP header differs from Restore's", v.File, v.Offset)
				}
				// With both headers, a layout's gaps and blocks go out as
				// they are, not reassembled.
				if h.HTTP != nil && v.Mode == modeHTTP && v.Form != formWhole && v.Coding == nil && v.Framing == nil && len(v.Blocks) > 0 {
					asIs++
					if len(k.pieces) != 2*len(v.Blocks)+2 {
						t.Errorf("%s at %d: %d pieces of a block of %d blocks, want HTTP header, gaps and blocks", v.File, v.Offset, len(k.pieces), len(v.Blocks))
					}
				}
			}
			if v.Mode == modeRaw {
				continue
			}
			bad := func(b []byte) []byte {
				b = bytes.Clone(b)
				b[len(b)/2] ^= 1
				return b
			}
			wrong := []Headers{{WARC: bad(p.WARCHeader)}}
			if len(p.HTTPHeader) > 0 {
				wrong = append(wrong, Headers{WARC: p.WARCHeader, HTTP: bad(p.HTTPHeader)})
			}
			for _, h := range wrong {
				if _, err := a.RestoreKnown(v, h); !errors.Is(err, ErrMismatch) {
					t.Errorf("%s at %d: RestoreKnown with a wrong header: %v, want ErrMismatch", v.File, v.Offset, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return asIs
}

func testOpts() Options {
	return Options{CommitBytes: 1 << 20, MemLimit: 64 << 20}
}

func TestRoundTripInterop(t *testing.T) {
	dir := sharedtest.Interop(t)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !warcio.IsInputName(e.Name()) {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			arch := filepath.Join(t.TempDir(), "a.bwa")
			in := filepath.Join(dir, e.Name())
			st, err := Ingest(context.Background(), arch, []string{in}, testOpts())
			if err != nil {
				t.Logf("ingest: %v (stats %+v)", err, st)
			}
			a, err := Open(arch, pack.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			n := checkRoundTrip(t, a)
			checkRestoreKnown(t, a)
			if int64(n) != st.Records-st.Repeats {
				t.Errorf("catalog holds %d records, ingest read %d", n, st.Records)
			}
			vs, err := a.Verify(func(p Problem) { t.Errorf("verify: %v", p) })
			if err != nil {
				t.Fatal(err)
			}
			if vs.Records != int64(n) {
				t.Errorf("verify checked %d records, want %d", vs.Records, n)
			}
		})
	}
}

// archiveBytes sums the sizes of the archive's files.
func archiveBytes(t testing.TB, dir string) int64 {
	t.Helper()
	var n int64
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

func TestRoundTripCorpus(t *testing.T) {
	corpus := sharedtest.Dir(t, "corpus")
	for _, site := range []string{"ota-lovescout24", "ota-mektoube", "mkdocs-org"} {
		t.Run(site, func(t *testing.T) {
			arch := filepath.Join(t.TempDir(), "a.bwa")
			in := filepath.Join(corpus, site)
			st, err := Ingest(context.Background(), arch, []string{in}, testOpts())
			if err != nil {
				t.Fatal(err)
			}
			if st.Partitioned == 0 {
				t.Errorf("no HTML payload was partitioned: %+v", st)
			}
			a, err := Open(arch, pack.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			n := checkRoundTrip(t, a)
			if checkRestoreKnown(t, a) == 0 {
				t.Errorf("no payload kept as layout + blocks was restored by RestoreKnown as they are")
			}
			if int64(n) != st.Records {
				t.Errorf("catalog holds %d records, ingest read %d", n, st.Records)
			}
			t.Logf("%s: %d records, input %d bytes, archive %d bytes; %+v", site, n, st.InputBytes, archiveBytes(t, arch), st)

			// Re-ingesting the same files adds nothing.
			seq := a.Store().Seq()
			st2, err := Ingest(context.Background(), arch, []string{in}, testOpts())
			if err != nil {
				t.Fatal(err)
			}
			if st2.Records != 0 || st2.FilesSkipped != st.Files {
				t.Errorf("re-ingest read %d records and skipped %d of %d files", st2.Records, st2.FilesSkipped, st.Files)
			}
			if err := a.Store().Reload(); err != nil {
				t.Fatal(err)
			}
			if a.Store().Seq() != seq {
				t.Errorf("re-ingest committed: seq %d → %d", seq, a.Store().Seq())
			}
		})
	}
}
