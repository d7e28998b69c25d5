package export_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/export"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/warcio"
)

// warcioJSBin returns the warcio.js command installed by `make npm`; it
// fails under CI=true when missing, else skips.
func warcioJSBin(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(sharedtest.RepoRoot(t), "testdata", "npm", "node_modules", ".bin", "warcio")
	_, err := os.Stat(bin)
	if err == nil {
		_, err = exec.LookPath("node")
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("warcio.js unusable at %s (CI=true): %v; run `make npm` (needs node)", bin, err)
		}
		t.Skipf("warcio.js unusable at %s: %v; run `make npm`", bin, err)
	}
	return bin
}

// origRecord is one input record as warcio.Walk yields it, in capture
// order, located in its input file.
type origRecord struct {
	file      string
	off, skip int64
	n         int // header + block + trailer bytes
	uri, typ  string
	date      time.Time
	isARC     bool
}

// exportInputs are the inputs of the test archive: a wget crawl of one
// site (24 dumps of the same pages) and interop samples exercising
// uncompressed input, Common Crawl, revisits and ARC (which an export
// leaves out).
func exportInputs(t testing.TB) (later, earlier []string) {
	site := sharedtest.CorpusFiles(t, "ota-lovescout24")
	if len(site) < 4 {
		t.Fatalf("corpus site ota-lovescout24: %d dumps, want at least 4", len(site))
	}
	interop := sharedtest.Interop(t)
	earlier = append(earlier, site[:len(site)/2]...)
	for _, n := range []string{"jwarc--cc.warc.gz", "nodewarc--books.toscrape.warc", "iagowarc--test.warc.gz", "pywb--example-url-agnostic-revisit.warc.gz", "aut--example.arc.gz"} {
		earlier = append(earlier, filepath.Join(interop, n))
	}
	return site[len(site)/2:], earlier
}

// buildExportArchive ingests the later dumps first and the earlier ones in
// a second ingest, so the catalog has two runs holding the same keys and
// the export must merge them into capture order.
func buildExportArchive(t *testing.T) (arch string, all []string) {
	later, earlier := exportInputs(t)
	arch = filepath.Join(t.TempDir(), "a.bwa")
	opts := dedupe.Options{CommitBytes: 1 << 20, MemLimit: 64 << 20}
	for _, in := range [][]string{later, earlier} {
		if _, err := dedupe.Ingest(context.Background(), arch, in, opts); err != nil {
			t.Fatalf("ingest: %v", err)
		}
	}
	return arch, append(slices.Clone(later), earlier...)
}

// walkOriginals lists the records of inputs in capture order.
func walkOriginals(t *testing.T, inputs []string) []origRecord {
	t.Helper()
	var out []origRecord
	_, err := warcio.Walk(context.Background(), inputs, warcio.WalkOptions{MemLimit: 64 << 20}, func(c *warcio.Capture) error {
		n, err := io.Copy(io.Discard, c.Body)
		if err != nil {
			return err
		}
		out = append(out, origRecord{
			file: c.File, off: c.Offset, skip: c.SkipInMember,
			n:   len(c.RawHeader) + int(n) + len(c.Trailer),
			uri: c.TargetURI, typ: c.Type, date: c.Date, isARC: c.Format == warcio.FormatARC,
		})
		return nil
	})
	if err != nil {
		t.Fatalf("walk inputs: %v", err)
	}
	return out
}

// originalBytes reads the record's bytes from its input file without
// warcio: seek to the stored offset, gunzip when the file is gzip, skip,
// read n bytes.
func originalBytes(r origRecord) ([]byte, error) {
	f, err := os.Open(r.file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(r.off, io.SeekStart); err != nil {
		return nil, err
	}
	br := bufio.NewReader(f)
	var src io.Reader = br
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gunzip %s at %d: %w", r.file, r.off, err)
		}
		src = zr
	}
	if _, err := io.CopyN(io.Discard, src, r.skip); err != nil {
		return nil, err
	}
	buf := make([]byte, r.n)
	if _, err := io.ReadFull(src, buf); err != nil {
		return nil, fmt.Errorf("read %s at %d: %w", r.file, r.off, err)
	}
	return buf, nil
}

// members splits a per-record-gzip file into its members' plaintexts,
// with the offset of each member, reading member by member through a
// reader that never reads ahead, so offsets are exact.
func members(t *testing.T, b []byte) (plain [][]byte, offs []int64) {
	t.Helper()
	for off := 0; off < len(b); {
		br := &byteReader{b: b[off:]}
		zr, err := gzip.NewReader(br)
		if err != nil {
			t.Fatalf("member at %d: %v", off, err)
		}
		zr.Multistream(false)
		m, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("member at %d: %v", off, err)
		}
		plain, offs = append(plain, m), append(offs, int64(off))
		off += br.i
	}
	return plain, offs
}

// byteReader is an io.ByteReader, so flate does not buffer past the
// member's end.
type byteReader struct {
	b []byte
	i int
}

func (r *byteReader) Read(p []byte) (int, error) {
	if r.i >= len(r.b) {
		return 0, io.EOF
	}
	n := copy(p[:1], r.b[r.i:])
	r.i += n
	return n, nil
}

func (r *byteReader) ReadByte() (byte, error) {
	if r.i >= len(r.b) {
		return 0, io.EOF
	}
	r.i++
	return r.b[r.i-1], nil
}

func exportToBytes(t *testing.T, arch string, opts export.WARCOptions) ([]byte, export.WARCStats) {
	t.Helper()
	a, err := dedupe.Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var buf bytes.Buffer
	st, err := export.WriteWARC(context.Background(), &buf, a, opts)
	if err != nil {
		t.Fatalf("WriteWARC: %v", err)
	}
	if st.Written != int64(buf.Len()) {
		t.Errorf("stats say %d bytes written, got %d", st.Written, buf.Len())
	}
	return buf.Bytes(), st
}

// checkSelection checks that the export holds exactly want's records, in
// order, byte for byte, one gzip member each.
func checkSelection(t *testing.T, out []byte, st export.WARCStats, want []origRecord) [][]byte {
	t.Helper()
	plain, _ := members(t, out)
	if len(plain) != len(want) || st.Records != int64(len(want)) {
		t.Fatalf("export holds %d members (stats: %d records), want %d", len(plain), st.Records, len(want))
	}
	var total int64
	for i, r := range want {
		orig, err := originalBytes(r)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(plain[i], orig) {
			t.Errorf("member %d (%s %s %s at %d) differs from the input record", i, r.typ, r.uri, filepath.Base(r.file), r.off)
		}
		total += int64(len(orig))
	}
	if st.Bytes != total {
		t.Errorf("stats say %d record bytes, inputs hold %d", st.Bytes, total)
	}
	return plain
}

func TestWriteWARC(t *testing.T) {
	arch, inputs := buildExportArchive(t)
	orig := walkOriginals(t, inputs)
	var warcs []origRecord
	arcs := 0
	for _, r := range orig {
		if r.isARC {
			arcs++
		} else {
			warcs = append(warcs, r)
		}
	}
	if arcs == 0 || len(warcs) < 200 {
		t.Fatalf("inputs hold %d WARC and %d ARC records; the test wants both", len(warcs), arcs)
	}
	out, st := exportToBytes(t, arch, export.WARCOptions{})
	if st.NotWARC != int64(arcs) {
		t.Errorf("%d records left out as not WARC, inputs hold %d ARC records", st.NotWARC, arcs)
	}

	t.Run("members", func(t *testing.T) {
		checkSelection(t, out, st, warcs)
	})

	t.Run("warcio", func(t *testing.T) {
		_, offs := members(t, out)
		r := warcio.NewReaderOptions(bytes.NewReader(out), "export.warc.gz", warcio.Options{Policy: warcio.PolicyFail, Digests: true})
		i := 0
		for ; ; i++ {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("record %d: %v", i, err)
			}
			body, err := io.ReadAll(rec.Body)
			if err != nil {
				t.Fatalf("record %d: %v", i, err)
			}
			if i >= len(warcs) {
				continue
			}
			got := slices.Concat(rec.RawHeader, body, rec.Trailer)
			want, err := originalBytes(warcs[i])
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("record %d (%s %s) read back differs from the input", i, warcs[i].typ, warcs[i].uri)
			}
			if rec.Offset != offs[i] || rec.SkipInMember != 0 {
				t.Errorf("record %d at %d+%d, its member starts at %d", i, rec.Offset, rec.SkipInMember, offs[i])
			}
			if d := rec.Digests(); d.BlockMatch == warcio.MatchMismatch || d.PayloadMatch == warcio.MatchMismatch {
				t.Errorf("record %d (%s): digest mismatch %+v", i, warcs[i].uri, d)
			}
		}
		if i != len(warcs) {
			t.Errorf("warcio reads %d records, inputs hold %d WARC records", i, len(warcs))
		}
	})

	t.Run("warcio.js", func(t *testing.T) {
		bin := warcioJSBin(t)
		file := filepath.Join(t.TempDir(), "export.warc.gz")
		if err := os.WriteFile(file, out, 0o644); err != nil {
			t.Fatal(err)
		}
		var origFiles []string
		for _, in := range inputs {
			if !strings.Contains(in, ".arc") {
				origFiles = append(origFiles, in)
			}
		}
		fields := "offset,warc-type,warc-target-uri,warc-date,warc-record-id,warc-payload-digest,warc-block-digest,content-length"
		got := jsIndex(t, bin, []string{file}, fields)
		want := jsIndex(t, bin, origFiles, fields)
		_, offs := members(t, out)
		if len(got) != len(offs) {
			t.Fatalf("warcio.js reads %d records in the export, it has %d members", len(got), len(offs))
		}
		for i, e := range got {
			if o, _ := e["offset"].(float64); int64(o) != offs[i] {
				t.Errorf("warcio.js record %d at %v, member at %d", i, e["offset"], offs[i])
			}
		}
		compareMultisets(t, "warcio index", dropFields(got, "offset"), dropFields(want, "offset"))

		gotCDX := jsCDX(t, bin, []string{file})
		wantCDX := jsCDX(t, bin, origFiles)
		if len(wantCDX) < 100 {
			t.Fatalf("warcio.js cdx-index gives %d lines for the inputs", len(wantCDX))
		}
		compareMultisets(t, "warcio cdx-index", gotCDX, wantCDX)
	})
}

// jsIndex runs `warcio index -f fields` and returns its entries.
func jsIndex(t *testing.T, bin string, files []string, fields string) []map[string]any {
	t.Helper()
	var out []map[string]any
	// One node process for all files: its start-up is most of the time.
	b, err := exec.Command(bin, append(append([]string{"index"}, files...), "-f", fields)...).Output()
	if err != nil {
		t.Fatalf("warcio.js index %s: %v", files, err)
	}
	for line := range bytes.Lines(b) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("warcio.js index: %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// jsCDX runs `warcio cdx-index` and returns its lines without the fields
// that locate a record in its file (offset, length, filename).
func jsCDX(t *testing.T, bin string, files []string) []map[string]any {
	t.Helper()
	var out []map[string]any
	b, err := exec.Command(bin, append([]string{"cdx-index"}, files...)...).Output()
	if err != nil {
		t.Fatalf("warcio.js cdx-index %s: %v", files, err)
	}
	for line := range bytes.Lines(b) {
		key, rest, ok := bytes.Cut(line, []byte(" "))
		ts, js, ok2 := bytes.Cut(rest, []byte(" "))
		if !ok || !ok2 {
			t.Fatalf("warcio.js cdx-index: bad line %q", line)
		}
		var m map[string]any
		if err := json.Unmarshal(js, &m); err != nil {
			t.Fatalf("warcio.js cdx-index: %q: %v", line, err)
		}
		m["urlkey"], m["timestamp"] = string(key), string(ts)
		out = append(out, m)
	}
	return dropFields(out, "offset", "length", "filename")
}

func dropFields(es []map[string]any, names ...string) []map[string]any {
	for _, e := range es {
		for _, n := range names {
			delete(e, n)
		}
	}
	return es
}

// compareMultisets compares entries regardless of order (the inputs are
// indexed file by file, the export in capture order).
func compareMultisets(t *testing.T, what string, got, want []map[string]any) {
	t.Helper()
	enc := func(es []map[string]any) []string {
		out := make([]string, len(es))
		for i, e := range es {
			b, _ := json.Marshal(e) // map keys are sorted
			out[i] = string(b)
		}
		slices.Sort(out)
		return out
	}
	g, w := enc(got), enc(want)
	if len(g) != len(w) {
		t.Errorf("%s: %d entries for the export, %d for the inputs", what, len(g), len(w))
	}
	shown := 0
	for i := 0; i < len(g) && i < len(w) && shown < 5; i++ {
		if g[i] != w[i] {
			t.Errorf("%s: export has\n\t%s\ninputs have\n\t%s", what, g[i], w[i])
			shown++
		}
	}
}

func TestWriteWARCFilters(t *testing.T) {
	arch, inputs := buildExportArchive(t)
	var warcs []origRecord
	for _, r := range walkOriginals(t, inputs) {
		if !r.isARC {
			warcs = append(warcs, r)
		}
	}
	from2022Mar := time.Date(2022, 3, 1, 0, 0, 0, 0, time.UTC)
	end2022 := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	privacy := func(r origRecord) bool {
		// The crawl's URLs are http://127.0.0.1:8103/LoveScout24/…; the
		// filter is given in another case, so only the SURT match holds.
		return strings.HasPrefix(r.uri, "http://127.0.0.1:8103/LoveScout24/Privacy%20Policy")
	}
	tests := []struct {
		name string
		url  string
		from string
		to   string
		want func(origRecord) bool
	}{
		{"surt-prefix", "HTTP://127.0.0.1:8103/lovescout24/privacy", "", "", privacy},
		{"surt-no-scheme", "127.0.0.1:8103/lovescout24/privacy", "", "", privacy},
		{"plain-partial-host", "http://127.0.0", "", "", func(r origRecord) bool { return strings.HasPrefix(r.uri, "http://127.0.0.1:") }},
		{"plain-non-http", "metadata://gnu.org/software/wget/warc/wget", "", "", func(r origRecord) bool {
			return r.uri == "metadata://gnu.org/software/wget/warc/wget.log" || r.uri == "metadata://gnu.org/software/wget/warc/wget_arguments.txt"
		}},
		{"date-prefixes", "", "202203", "2022", func(r origRecord) bool {
			return !r.date.Before(from2022Mar) && r.date.Before(end2022)
		}},
		{"date-rfc3339", "", "2022-03-01T00:00:00Z", "2022-12-31T23:59:59Z", func(r origRecord) bool {
			return !r.date.Before(from2022Mar) && r.date.Before(end2022)
		}},
		{"url-and-date", "http://127.0.0.1:8103/LoveScout24/", "20220325", "", func(r origRecord) bool {
			return strings.HasPrefix(r.uri, "http://127.0.0.1:8103/LoveScout24/") && !r.date.Before(time.Date(2022, 3, 25, 0, 0, 0, 0, time.UTC))
		}},
		{"nothing", "http://example.invalid/", "", "", func(origRecord) bool { return false }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts export.WARCOptions
			opts.URLPrefix = tt.url
			if tt.from != "" {
				start, _, err := export.ParsePeriod(tt.from)
				if err != nil {
					t.Fatal(err)
				}
				opts.From = start
			}
			if tt.to != "" {
				_, end, err := export.ParsePeriod(tt.to)
				if err != nil {
					t.Fatal(err)
				}
				opts.To = end
			}
			var want []origRecord
			for _, r := range warcs {
				if tt.want(r) {
					want = append(want, r)
				}
			}
			if tt.name != "nothing" && (len(want) == 0 || len(want) == len(warcs)) {
				t.Fatalf("filter selects %d of %d records: not a test of selection", len(want), len(warcs))
			}
			out, st := exportToBytes(t, arch, opts)
			checkSelection(t, out, st, want)
		})
	}
}

func TestParsePeriod(t *testing.T) {
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	tests := []struct {
		in         string
		start, end time.Time
	}{
		{"2022", utc(2022, 1, 1, 0, 0, 0, 0), utc(2023, 1, 1, 0, 0, 0, 0)},
		{"202212", utc(2022, 12, 1, 0, 0, 0, 0), utc(2023, 1, 1, 0, 0, 0, 0)},
		{"20240228", utc(2024, 2, 28, 0, 0, 0, 0), utc(2024, 2, 29, 0, 0, 0, 0)},
		{"2024022823", utc(2024, 2, 28, 23, 0, 0, 0), utc(2024, 2, 29, 0, 0, 0, 0)},
		{"202402282359", utc(2024, 2, 28, 23, 59, 0, 0), utc(2024, 2, 29, 0, 0, 0, 0)},
		{"20240228235959", utc(2024, 2, 28, 23, 59, 59, 0), utc(2024, 2, 29, 0, 0, 0, 0)},
		{"2024-02-28T23:59:59Z", utc(2024, 2, 28, 23, 59, 59, 0), utc(2024, 2, 29, 0, 0, 0, 0)},
		{"2024-02-29T01:00:00.25+02:00", utc(2024, 2, 28, 23, 0, 0, 250e6), utc(2024, 2, 28, 23, 0, 0, 260e6)},
		// ISO dates as people write them, without zone: UTC periods.
		{"2022-01-25", utc(2022, 1, 25, 0, 0, 0, 0), utc(2022, 1, 26, 0, 0, 0, 0)},
		{"2022-12", utc(2022, 12, 1, 0, 0, 0, 0), utc(2023, 1, 1, 0, 0, 0, 0)},
		{"2022-01-25T10:30", utc(2022, 1, 25, 10, 30, 0, 0), utc(2022, 1, 25, 10, 31, 0, 0)},
		{"2022-01-25 10", utc(2022, 1, 25, 10, 0, 0, 0), utc(2022, 1, 25, 11, 0, 0, 0)},
		{"2022-01-25T10:30:05", utc(2022, 1, 25, 10, 30, 5, 0), utc(2022, 1, 25, 10, 30, 6, 0)},
	}
	for _, tt := range tests {
		s, e, err := export.ParsePeriod(tt.in)
		if err != nil || !s.Equal(tt.start) || !e.Equal(tt.end) {
			t.Errorf("ParsePeriod(%q) = %v, %v, %v; want %v, %v", tt.in, s, e, err, tt.start, tt.end)
		}
	}
	for _, bad := range []string{"", "20", "202", "20221", "2022133", "20221301", "yesterday", "2022-13-01T00:00:00Z", "202201011200000", "2022-1-25", "2022-01-25T", "2022/01/25", "2022-02-30"} {
		if _, _, err := export.ParsePeriod(bad); !errors.Is(err, export.ErrPeriod) {
			t.Errorf("ParsePeriod(%q): error %v, want ErrPeriod", bad, err)
		}
	}
}

// FuzzParsePeriod: any text either fails with ErrPeriod or names a
// non-empty period; a 14-digit timestamp names the second it spells.
func FuzzParsePeriod(f *testing.F) {
	for _, s := range []string{"2022", "202203", "20220301", "20220301120000", "2022-03-01T12:00:00Z", "2022-03-01T12:00:00.123456789+01:00", "19991231235959", "0000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		start, end, err := export.ParsePeriod(s)
		if err != nil {
			if !errors.Is(err, export.ErrPeriod) {
				t.Fatalf("ParsePeriod(%q): error %v is not ErrPeriod", s, err)
			}
			return
		}
		if !start.Before(end) {
			t.Fatalf("ParsePeriod(%q) = [%v, %v): empty", s, start, end)
		}
		if len(s) == 14 && !strings.ContainsAny(s, "-T:") {
			if got := start.Format("20060102150405"); got != s || end.Sub(start) != time.Second {
				t.Fatalf("ParsePeriod(%q) = [%v, %v)", s, start, end)
			}
		}
	})
}

// BenchmarkWriteWARC exports an archive of the ota-mektoube crawl (24
// dumps) and, in the same run, gzips the same record bytes one member per
// record from memory with the same writer settings (x-gzip = that time /
// ours: the share of the export that is compression rather than restoring
// records). Throughput is of uncompressed record bytes.
func BenchmarkWriteWARC(b *testing.B) {
	site := sharedtest.Dir(b, "corpus", "ota-mektoube")
	arch := filepath.Join(b.TempDir(), "a.bwa")
	if _, err := dedupe.Ingest(context.Background(), arch, []string{site}, dedupe.Options{MemLimit: 256 << 20}); err != nil {
		b.Fatal(err)
	}
	a, err := dedupe.Open(arch, pack.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	var recs bytes.Buffer
	st, err := export.WriteWARC(context.Background(), &recs, a, export.WARCOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var plain [][]byte
	for off := 0; off < recs.Len(); {
		br := &byteReader{b: recs.Bytes()[off:]}
		zr, err := gzip.NewReader(br)
		if err != nil {
			b.Fatal(err)
		}
		zr.Multistream(false)
		m, err := io.ReadAll(zr)
		if err != nil {
			b.Fatal(err)
		}
		plain = append(plain, m)
		off += br.i
	}
	b.SetBytes(st.Bytes)
	b.ReportAllocs()
	var ours, gz time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		t0 := time.Now()
		zw := gzip.NewWriter(io.Discard)
		for _, m := range plain {
			zw.Reset(io.Discard)
			zw.Write(m)
			if err := zw.Close(); err != nil {
				b.Fatal(err)
			}
		}
		gz += time.Since(t0)
		b.StartTimer()
		t0 = time.Now()
		if _, err := export.WriteWARC(context.Background(), io.Discard, a, export.WARCOptions{}); err != nil {
			b.Fatal(err)
		}
		ours += time.Since(t0)
	}
	b.ReportMetric(gz.Seconds()/ours.Seconds(), "x-gzip")
}
