package report

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/export/tables"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/internal/zstdlib"
	"github.com/blockwarc/blockwarc/warcio"
)

// testRecord is a record as the tests read it back.
type testRecord struct {
	typ, uri, id, refersTo, digest, profile string
	block                                   []byte
}

// readRecords reads every record of a WARC stream (any compression warcio
// detects) and returns them with their headers and blocks.

func readRecords(t *testing.T, r io.Reader, name string) []testRecord {
	t.Helper()
	wr := warcio.NewReader(r, name)
	var out []testRecord
	for {
		rec, err := wr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("read %s: %v", name, err)
		}
		b, err := io.ReadAll(rec.Body)
		if err != nil {
			t.Fatalf("read %s: %v", name, err)
		}
		h := rec.Header
		out = append(out, testRecord{typ: rec.Type, uri: rec.TargetURI, id: h.Get("WARC-Record-ID"),
			refersTo: h.Get("WARC-Refers-To"), digest: h.Get("WARC-Payload-Digest"),
			profile: h.Get("WARC-Profile"), block: b})
	}
	if wr.Skipped() != 0 {
		t.Errorf("%s: %d malformed bytes skipped", name, wr.Skipped())
	}
	return out
}

// TestAlternatives measures the alternatives of the sample crawls and
// reads what was measured back: the zstd stream holds every input record,
// and the gzip members are a valid WARC whose revisits each refer to an
// earlier response of the same URL with the same payload, as many as the
// inputs' own payload digests say repeat.
func TestAlternatives(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(sharedtest.RepoRoot(t), "testdata", "samples", "*.warc.gz"))
	if err != nil || len(files) < 3 {
		t.Fatalf("sample crawls missing: %v", err)
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "s.bwa")
	if _, err := dedupe.Ingest(ctx, dir, files, dedupe.Options{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	a, err := dedupe.Open(dir, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()

	// What the inputs say: their records, and the responses whose payload
	// digest repeats an earlier response of the same URL.
	var in []testRecord
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, readRecords(t, fh, f)...)
		fh.Close()
	}
	wantRevisits := 0
	seen := map[[2]string]bool{}
	inIDs := map[string]int{}
	inByID := map[string]testRecord{}
	for _, r := range in {
		inIDs[r.id]++
		inByID[r.id] = r
		if r.typ != "response" || r.digest == "" || !strings.HasPrefix(string(r.block), "HTTP/") {
			continue
		}
		if _, body, ok := bytes.Cut(r.block, []byte("\r\n\r\n")); !ok || len(body) == 0 {
			continue
		}
		k := [2]string{r.uri, r.digest}
		if seen[k] {
			wantRevisits++
		}
		seen[k] = true
	}

	var zbuf, gbuf bytes.Buffer
	m, err := measureAlternatives(ctx, a, &zbuf, &gbuf)
	if err != nil {
		t.Fatal(err)
	}
	if m.ZstdLongBytes != int64(zbuf.Len()) || m.GzipRevisitBytes != int64(gbuf.Len()) {
		t.Errorf("counted %d/%d bytes, wrote %d/%d", m.ZstdLongBytes, m.GzipRevisitBytes, zbuf.Len(), gbuf.Len())
	}
	if m.Records != int64(len(in)) {
		t.Errorf("%d records measured, inputs hold %d", m.Records, len(in))
	}

	// zstd_long is `zstd -19 --long=27` of the records: the frame's
	// window is 2^27, and the zstd command, where there is one, makes the
	// records as small (within 1 %: it may be another library version).
	var zh zstd.Header
	if err := zh.Decode(zbuf.Bytes()); err != nil || zh.WindowSize != 1<<27 {
		t.Errorf("zstd_long frame: window %d (%v), want 2^27", zh.WindowSize, err)
	}
	if zstdlib.Available {
		if !strings.HasPrefix(ZstdLongCompressor, "zstd -19 --long=27 (reference zstd library 1.") {
			t.Errorf("zstd_long named %q", ZstdLongCompressor)
		}
		if _, err := exec.LookPath("zstd"); err == nil {
			plain, err := zstd.NewReader(bytes.NewReader(zbuf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("zstd", "-19", "--long=27", "-q", "-c")
			cmd.Stdin = plain
			ref, err := cmd.Output()
			plain.Close()
			if err != nil {
				t.Fatal(err)
			}
			if d := float64(m.ZstdLongBytes)/float64(len(ref)) - 1; d > 0.01 || d < -0.01 {
				t.Errorf("zstd_long %d bytes, zstd -19 --long=27 of the same records %d", m.ZstdLongBytes, len(ref))
			}
		}
	}

	// zstd_long: one stream holding every input record, once.
	zr, err := zstd.NewReader(&zbuf)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	zr.Close()
	if err != nil {
		t.Fatalf("zstd stream: %v", err)
	}
	if int64(len(plain)) != m.RecordBytes {
		t.Errorf("zstd stream holds %d bytes, record_bytes %d", len(plain), m.RecordBytes)
	}
	zrecs := readRecords(t, bytes.NewReader(plain), "zstd_long")
	zIDs := map[string]int{}
	for _, r := range zrecs {
		zIDs[r.id]++
	}
	if len(zIDs) != len(inIDs) {
		t.Errorf("zstd stream: %d distinct record ids, inputs %d", len(zIDs), len(inIDs))
	}
	for id, n := range inIDs {
		if zIDs[id] != n {
			t.Errorf("record %s: %d in the zstd stream, %d in the inputs", id, zIDs[id], n)
		}
	}

	// gzip_revisits: a WARC of gzip members; revisits refer back.
	grecs := readRecords(t, bytes.NewReader(gbuf.Bytes()), "gzip_revisits")
	if len(grecs) != len(in) {
		t.Fatalf("gzip stream: %d records, inputs %d", len(grecs), len(in))
	}
	members := bytes.Count(gbuf.Bytes(), []byte{0x1f, 0x8b, 0x08})
	if members < len(grecs) {
		t.Errorf("gzip stream: %d member headers for %d records", members, len(grecs))
	}
	responses := map[string]testRecord{}
	revisits := 0
	for _, r := range grecs {
		switch r.typ {
		case "response":
			responses[r.id] = r
		case "revisit":
			if r.profile != identicalPayloadProfile {
				continue // a revisit of the input, kept as it was
			}
			revisits++
			e, ok := responses[r.refersTo]
			if !ok {
				t.Errorf("revisit %s of %s refers to %s, not an earlier response", r.id, r.uri, r.refersTo)
				continue
			}
			if e.uri != r.uri {
				t.Errorf("revisit of %s refers to a response of %s", r.uri, e.uri)
			}
			if d := inByID[e.id].digest; d != "" && !strings.EqualFold(d, r.digest) {
				t.Errorf("revisit of %s: payload digest %s, the response it refers to %s", r.uri, r.digest, d)
			}
			// The block is the HTTP header of the response it replaces.
			hdr, _, _ := bytes.Cut(inByID[r.id].block, []byte("\r\n\r\n"))
			if got := string(r.block); got != string(hdr)+"\r\n\r\n" {
				t.Errorf("revisit of %s: block is not the response's HTTP header: %.60q", r.uri, got)
			}
			if _, body, _ := bytes.Cut(e.block, []byte("\r\n\r\n")); len(body) == 0 {
				t.Errorf("revisit of %s refers to a response without payload", r.uri)
			}
		}
	}
	if revisits != wantRevisits || int64(revisits) != m.Revisits {
		t.Errorf("%d revisits written (%d counted), the inputs' digests repeat %d times", revisits, m.Revisits, wantRevisits)
	}
	if wantRevisits == 0 {
		t.Errorf("the samples repeat no payload: the revisit path is untested")
	}
	if !(m.ZstdLongBytes < m.GzipRevisitBytes) {
		t.Errorf("zstd_long %d bytes not below gzip_revisits %d", m.ZstdLongBytes, m.GzipRevisitBytes)
	}

	// In the report: the list in its documented order, ratios to the input.
	r, err := Build(ctx, dir, a, Options{Alternatives: true}, tables.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	al := r.Alternatives
	names := []string{AltInput, AltGzipRevisits, AltZstdLong, AltArchive, AltTables}
	if !al.Measured || len(al.List) != len(names) {
		t.Fatalf("alternatives %+v", al)
	}
	for i, x := range al.List {
		if x.Name != names[i] {
			t.Errorf("alternative %d is %s, want %s", i, x.Name, names[i])
		}
	}
	want := map[string]int64{AltInput: r.InputBytes, AltGzipRevisits: m.GzipRevisitBytes, AltZstdLong: m.ZstdLongBytes, AltArchive: r.ArchiveBytes}
	for _, x := range al.List {
		w, ok := want[x.Name]
		if !ok {
			continue
		}
		if x.Bytes == nil || *x.Bytes != w || x.Ratio == nil || *x.Ratio != float64(w)/float64(r.InputBytes) {
			t.Errorf("%s: bytes %v ratio %v, want %d", x.Name, x.Bytes, x.Ratio, w)
		}
	}
	if tb := al.List[4]; tb.Bytes != nil {
		t.Errorf("tables: %d bytes, but no tables were built", *tb.Bytes)
	}
	// Tables are sized when present.
	if err := os.MkdirAll(filepath.Join(dir, TablesDir, "urls"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, TablesDir, "urls", "p.parquet"), make([]byte, 4321), 0o644); err != nil {
		t.Fatal(err)
	}
	r2, err := Build(ctx, dir, a, Options{}, tables.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r2.Alternatives.Measured || r2.Alternatives.List[1].Bytes != nil || r2.Alternatives.List[2].Bytes != nil {
		t.Errorf("not asked, but measured: %+v", r2.Alternatives)
	}
	if tb := r2.Alternatives.List[4].Bytes; tb == nil || *tb != 4321 {
		t.Errorf("tables bytes %v, want 4321", tb)
	}
}
