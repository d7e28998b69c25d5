package warcio

import (
	"bytes"
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// samples are the repository's own sample crawls (24 snapshots of one site).
func samples(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("../testdata/samples/*.warc.gz")
	if err != nil || len(files) < 10 {
		t.Fatalf("sample crawls missing under ../testdata/samples: %v", err)
	}
	return files
}

// walked is what a test keeps of a capture.
type walked struct {
	key, file, id string
	date          time.Time
	offset, skip  int64
	length        int64
	typ           string
	bodySHA1      string
	revisitOf     *Origin
}

func walkAll(t testing.TB, inputs []string, opts WalkOptions) ([]walked, WalkStats) {
	t.Helper()
	if opts.TempDir == "" {
		opts.TempDir = t.TempDir()
	}
	var out []walked
	st, err := Walk(context.Background(), inputs, opts, func(c *Capture) error {
		h := sha1.New()
		if _, err := io.Copy(h, c.Body); err != nil {
			return err
		}
		out = append(out, walked{key: c.Key, file: c.File, id: c.RecordID, date: c.Date,
			offset: c.Offset, skip: c.SkipInMember, length: c.Length, typ: c.Type,
			bodySHA1: fmt.Sprintf("%x", h.Sum(nil)), revisitOf: c.RevisitOf})
		return nil
	})
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	if int64(len(out)) != st.Records {
		t.Fatalf("Walk yielded %d captures, stats say %d", len(out), st.Records)
	}
	return out, st
}

// checkOrder asserts the capture order: key, date, file, offset.
func checkOrder(t *testing.T, ws []walked) {
	t.Helper()
	for i := 1; i < len(ws); i++ {
		a, b := ws[i-1], ws[i]
		ok := a.key < b.key || a.key == b.key && (a.date.Before(b.date) || a.date.Equal(b.date) &&
			(a.file < b.file || a.file == b.file && (a.offset < b.offset || a.offset == b.offset && a.skip < b.skip)))
		if !ok {
			t.Fatalf("capture %d out of order: %+v after %+v", i, b, a)
		}
	}
}

// readDirect lists every record of files with a plain Reader.
func readDirect(t *testing.T, files []string) map[string]int {
	t.Helper()
	seen := map[string]int{}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		rd := NewReaderOptions(f, name, Options{})
		for {
			rec, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			seen[fmt.Sprintf("%s@%d+%d", name, rec.Offset, rec.SkipInMember)]++
		}
		f.Close()
	}
	return seen
}

func TestWalkOrderShuffledInputs(t *testing.T) {
	files := samples(t)
	ref, st := walkAll(t, files, WalkOptions{})
	checkOrder(t, ref)
	if st.Files != len(files) || st.Runs != 0 {
		t.Fatalf("stats %+v: want %d files, no runs", st, len(files))
	}

	// Every record of every input exactly once.
	want := readDirect(t, files)
	got := map[string]int{}
	for _, w := range ref {
		got[fmt.Sprintf("%s@%d+%d", w.file, w.offset, w.skip)]++
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("walked records differ from the records in the files: %d vs %d distinct", len(got), len(want))
	}

	// The same sequence whatever the order of the inputs.
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3; i++ {
		shuffled := append([]string(nil), files...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		got, _ := walkAll(t, shuffled, WalkOptions{})
		if !reflect.DeepEqual(got, ref) {
			t.Fatalf("order of inputs %v changed the walk", shuffled[:3])
		}
	}

	// Within a URL, capture times never go back.
	for i := 1; i < len(ref); i++ {
		if ref[i].key == ref[i-1].key && ref[i].date.Before(ref[i-1].date) {
			t.Fatalf("%s: capture at %v after %v", ref[i].key, ref[i].date, ref[i-1].date)
		}
	}
}

// reverseWARC writes the records of src in reverse order, each record its
// own gzip member, and returns the new file.
func reverseWARC(t *testing.T, src, dst string) {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := NewReader(f, src)
	var recs [][]byte
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		b.Write(rec.RawHeader)
		if _, err := io.Copy(&b, rec.Body); err != nil {
			t.Fatal(err)
		}
		b.WriteString("\r\n\r\n")
		recs = append(recs, b.Bytes())
	}
	var out bytes.Buffer
	for i := len(recs) - 1; i >= 0; i-- {
		zw := gzip.NewWriter(&out)
		zw.Write(recs[i])
		zw.Close()
	}
	if err := os.WriteFile(dst, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWalkOrderReversedRecords writes the samples with their records in
// reverse order: captures must come out in the same order (records with
// the same key and date, such as a request and its response, may swap:
// their tie is broken by offset).
func TestWalkOrderReversedRecords(t *testing.T) {
	files := samples(t)[:8]
	dir := t.TempDir()
	var rev []string
	for _, f := range files {
		// Same base name in another directory, so ties on the file name
		// break the same way.
		d := filepath.Join(dir, "rev")
		os.MkdirAll(d, 0o755)
		dst := filepath.Join(d, filepath.Base(f))
		reverseWARC(t, f, dst)
		rev = append(rev, dst)
	}
	a, _ := walkAll(t, files, WalkOptions{})
	b, _ := walkAll(t, rev, WalkOptions{})
	checkOrder(t, b)
	if len(a) != len(b) {
		t.Fatalf("%d captures, reversed %d", len(a), len(b))
	}
	group := func(ws []walked) []string {
		var out []string
		for i := 0; i < len(ws); {
			j := i
			var ids []string
			for j < len(ws) && ws[j].key == ws[i].key && ws[j].date.Equal(ws[i].date) && filepath.Base(ws[j].file) == filepath.Base(ws[i].file) {
				ids = append(ids, ws[j].id+" "+ws[j].bodySHA1)
				j++
			}
			sort.Strings(ids)
			out = append(out, ws[i].key+" "+ws[i].date.String()+" "+strings.Join(ids, ","))
			i = j
		}
		return out
	}
	ga, gb := group(a), group(b)
	if !reflect.DeepEqual(ga, gb) {
		for i := range ga {
			if i >= len(gb) || ga[i] != gb[i] {
				t.Fatalf("group %d differs:\n%s\n%s", i, ga[i], gb[min(i, len(gb)-1)])
			}
		}
		t.Fatal("groups differ")
	}
}

// TestWalkSpillDeterministic walks with limits small enough to force many
// runs, records bigger than a quarter of the limit in runs of their own,
// and multi-level merges: the sequence, bodies included, must equal the
// one sorted in memory.
func TestWalkSpillDeterministic(t *testing.T) {
	files := samples(t)
	ref, st := walkAll(t, files, WalkOptions{})
	if st.Runs != 0 {
		t.Fatalf("default limit spilled %d runs", st.Runs)
	}
	for i, limit := range []int64{256 << 10, 32 << 10, 4 << 10} {
		tmp := t.TempDir()
		// 1, 3 and 5 inputs read at once: the order must not change.
		got, st := walkAll(t, files, WalkOptions{MemLimit: limit, TempDir: tmp, Workers: 1 + 2*i})
		if st.Runs <= 1 {
			t.Fatalf("limit %d: %d runs, want several", limit, st.Runs)
		}
		if !reflect.DeepEqual(got, ref) {
			for i := range ref {
				if i >= len(got) || !reflect.DeepEqual(got[i], ref[i]) {
					t.Fatalf("limit %d: capture %d differs:\n got %+v\nwant %+v", limit, i, got[min(i, len(got)-1)], ref[i])
				}
			}
			t.Fatalf("limit %d: %d captures, want %d", limit, len(got), len(ref))
		}
		left, _ := os.ReadDir(tmp)
		if len(left) != 0 {
			t.Fatalf("limit %d: %d files left in the temp dir", limit, len(left))
		}
		t.Logf("limit %d: %d runs", limit, st.Runs)
	}
}

func TestWalkCleansUpOnError(t *testing.T) {
	files := samples(t)
	tmp := t.TempDir()
	stop := errors.New("stop")
	n := 0
	_, err := Walk(context.Background(), files, WalkOptions{MemLimit: 16 << 10, TempDir: tmp}, func(c *Capture) error {
		n++
		if n == 10 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("Walk returned %v, want the callback's error", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("%d files left in the temp dir after an error", len(left))
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Walk(ctx, files, WalkOptions{MemLimit: 16 << 10, TempDir: tmp}, func(*Capture) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Walk with a cancelled context returned %v", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("%d files left in the temp dir after cancel", len(left))
	}
}

func TestWalkInputs(t *testing.T) {
	files := samples(t)
	byDir, _ := walkAll(t, []string{"../testdata/samples"}, WalkOptions{})
	byGlob, _ := walkAll(t, []string{"../testdata/samples/*.warc.gz", files[0]}, WalkOptions{})
	direct, _ := walkAll(t, files, WalkOptions{})
	if !reflect.DeepEqual(byDir, direct) || !reflect.DeepEqual(byGlob, direct) {
		t.Fatal("directory, glob and file list inputs differ")
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fromStdin, st := walkAll(t, []string{"-"}, WalkOptions{Stdin: f})
	if st.Records == 0 || fromStdin[0].file != "-" {
		t.Fatalf("stdin walk: %+v", st)
	}
	if _, err := Walk(context.Background(), []string{"no/such/*.warc"}, WalkOptions{}, nil); err == nil {
		t.Fatal("a pattern matching nothing gave no error")
	}
	if _, err := Walk(context.Background(), []string{"no/such/file.warc"}, WalkOptions{}, nil); err == nil {
		t.Fatal("a missing file gave no error")
	}
}

// TestWalkRevisits resolves revisits of the pywb samples: same-URL ones by
// payload digest, the URL-agnostic one by WARC-Refers-To-Target-URI and
// date, across files given in either order.
func TestWalkRevisits(t *testing.T) {
	interop := sharedtest.Interop(t)
	in := func(n string) string { return filepath.Join(interop, n) }

	orig, rev := in("pywb--example-url-agnostic-orig.warc.gz"), in("pywb--example-url-agnostic-revisit.warc.gz")
	for _, inputs := range [][]string{{orig, rev}, {rev, orig}} {
		ws, st := walkAll(t, inputs, WalkOptions{})
		if st.Revisits != 1 || st.UnresolvedRevisits != 0 {
			t.Fatalf("%v: stats %+v, want 1 resolved revisit", inputs, st)
		}
		for _, w := range ws {
			if w.typ != "revisit" {
				continue
			}
			if w.revisitOf == nil || w.revisitOf.File != orig || w.revisitOf.URI != "http://example.iana.org/" || w.revisitOf.Offset != 353 {
				t.Fatalf("URL-agnostic revisit resolved to %+v", w.revisitOf)
			}
		}
	}

	// Alone, the revisit's original is missing: counted as unresolved.
	_, st := walkAll(t, []string{rev}, WalkOptions{})
	if st.UnresolvedRevisits != 1 {
		t.Fatalf("revisit without its original: stats %+v", st)
	}

	// pywb--dupes.warc.gz revisits captures of pywb--iana.warc.gz.
	dupes, _ := walkAll(t, []string{in("pywb--dupes.warc.gz")}, WalkOptions{})
	both, _ := walkAll(t, []string{in("pywb--dupes.warc.gz"), in("pywb--iana.warc.gz")}, WalkOptions{MemLimit: 64 << 10})
	unresolved := func(ws []walked, file string) (n, revisits int) {
		for _, w := range ws {
			if w.typ == "revisit" && filepath.Base(w.file) == file {
				revisits++
				if w.revisitOf == nil {
					n++
				}
			}
		}
		return n, revisits
	}
	alone, revisits := unresolved(dupes, "pywb--dupes.warc.gz")
	together, _ := unresolved(both, "pywb--dupes.warc.gz")
	t.Logf("pywb--dupes.warc.gz: %d revisits, %d unresolved alone, %d with pywb--iana.warc.gz", revisits, alone, together)
	if alone == 0 || together != 0 {
		t.Fatalf("pywb--dupes.warc.gz: want its revisits unresolved alone and all resolved with pywb--iana.warc.gz")
	}

	for _, name := range []string{"pywb--iana.warc.gz", "warcio--example.warc", "pywb--example-extra.warc"} {
		ws, st := walkAll(t, []string{in(name)}, WalkOptions{MemLimit: 8 << 10})
		if st.Revisits == 0 {
			t.Fatalf("%s: no revisits", name)
		}
		for _, w := range ws {
			if w.typ != "revisit" || w.revisitOf == nil {
				continue
			}
			if !w.revisitOf.Date.Before(w.date) && !w.revisitOf.Date.Equal(w.date) {
				t.Fatalf("%s: revisit at %v resolved to a later capture %v", name, w.date, w.revisitOf.Date)
			}
		}
		t.Logf("%s: %d revisits, %d unresolved", name, st.Revisits, st.UnresolvedRevisits)
		// Each of these files holds the originals of its revisits.
		if st.UnresolvedRevisits != 0 {
			t.Fatalf("%s: %d of %d revisits unresolved", name, st.UnresolvedRevisits, st.Revisits)
		}
	}
}

// TestMetaRoundTrip checks that every Record field survives a run file,
// and fails when Record gains a field the run encoding does not know.
func TestMetaRoundTrip(t *testing.T) {
	const known = 24 // fields of Record appendMeta/decodeMeta handle
	if n := reflect.TypeOf(Record{}).NumField(); n != known {
		t.Fatalf("Record has %d fields, the run encoding knows %d: update appendMeta and decodeMeta", n, known)
	}
	rec := &Record{
		File: "a.warc.gz", Format: FormatWARC, Compression: CompressionGzip,
		Offset: 12345, SkipInMember: 7, Length: 999, Pos: 4096, End: 5000, Version: "WARC/1.1", Type: "revisit",
		TargetURI: "http://example.com/", Date: time.Date(2020, 1, 2, 3, 4, 5, 600, time.UTC),
		DateRaw: "2020-01-02T03:04:05.0000006Z", RecordID: "<urn:uuid:1>",
		Header:    Header{{Name: "WARC-Type", Value: "revisit", Raw: []byte("WARC-Type: revisit\r\n")}},
		RawHeader: []byte("WARC/1.1\r\nWARC-Type: revisit\r\n\r\n"), ContentLen: 42,
		Profile: "p", RefersTo: "<urn:uuid:0>", RefersToTargetURI: "http://x/", RefersToDate: "2019-01-01T00:00:00Z",
		Trailer: []byte("\r\n\r\n"),
		digests: Digests{BlockSHA1: []byte{1, 2}, PayloadSHA1: []byte{}, BlockMatch: MatchOK, PayloadMatch: MatchMismatch, BlockLen: 300, PayloadLen: 120},
	}
	it := &item{rec: rec, key: "com,example)/", bodyLen: 42, gap: true}
	got, err := decodeMeta(appendMeta(nil, it))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.rec, rec) || got.key != it.key || got.bodyLen != it.bodyLen || !got.gap || got.summary {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got.rec, rec)
	}
	for _, gap := range []bool{false, true} {
		s := &item{rec: rec, key: it.key, bodyLen: 3, gap: gap, summary: true}
		if got, err := decodeMeta(appendMeta(nil, s)); err != nil || !got.summary || got.gap != gap {
			t.Fatalf("summary flag (gap %v): round trip gave %+v, %v", gap, got, err)
		}
	}
	b := appendMeta(nil, it)
	for i := 0; i < len(b); i++ {
		if _, err := decodeMeta(b[:i]); err == nil {
			t.Fatalf("truncated header (%d of %d bytes) decoded without error", i, len(b))
		}
	}
}

// TestWalkKeep keeps only HTTP headers (or a fixed prefix) of blocks: each
// kept body is a prefix of the full block, and HTTP headers still parse.
func TestWalkKeep(t *testing.T) {
	files := samples(t)[:4]
	full := map[string][]byte{}
	_, err := Walk(context.Background(), files, WalkOptions{TempDir: t.TempDir()}, func(c *Capture) error {
		b, err := io.ReadAll(c.Body)
		full[c.RecordID] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int64{DefaultWalkMemLimit, 8 << 10} {
		n := 0
		_, err = Walk(context.Background(), files, WalkOptions{TempDir: t.TempDir(), MemLimit: limit,
			Keep: func(r *Record) int64 {
				if r.Type == "response" {
					return KeepHTTPHeader
				}
				return 100
			}}, func(c *Capture) error {
			b, err := io.ReadAll(c.Body)
			if err != nil {
				return err
			}
			f := full[c.RecordID]
			if !bytes.HasPrefix(f, b) {
				t.Fatalf("%s: kept bytes are not a prefix of the block", c.RecordID)
			}
			if c.Type == "response" {
				m, err := ReadHTTP(bytes.NewReader(b), 0)
				if err != nil || m.StatusCode == 0 || !bytes.HasSuffix(b, []byte("\r\n\r\n")) {
					t.Fatalf("%s: kept header %q does not parse: %v", c.RecordID, b, err)
				}
				n++
			} else if len(b) != min(100, len(f)) {
				t.Fatalf("%s: kept %d bytes, want %d", c.RecordID, len(b), min(100, len(f)))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatal("no response seen")
		}
	}
}

// TestWalkSummarize checks WalkOptions.Summarize: each capture's Summary
// is what Summarize returned for exactly the block (or kept prefix) a walk
// without it yields, in the same order, at 1 and 3 workers and with a
// limit so small that summaries go through sorted runs on disk; a block
// above a quarter of the limit streams unsummarized (Summary nil, Body
// reads it); an error from Summarize stops the walk.
func TestWalkSummarize(t *testing.T) {
	files := samples(t)[:6]
	summarize := func(rec *Record, block []byte) ([]byte, error) {
		return fmt.Appendf(nil, "%x|%s", sha1.Sum(block), rec.Type), nil
	}
	keepHeader := func(r *Record) int64 {
		if r.Type == "response" {
			return KeepHTTPHeader
		}
		return 100
	}
	for _, keep := range []func(*Record) int64{nil, keepHeader} {
		ref, _ := walkAll(t, files, WalkOptions{Keep: keep})
		for _, o := range []WalkOptions{{Workers: 1}, {Workers: 3}, {Workers: 2, MemLimit: 8 << 10}} {
			o.TempDir, o.Keep, o.Summarize = t.TempDir(), keep, summarize
			var i, whole int
			st, err := Walk(context.Background(), files, o, func(c *Capture) error {
				if i >= len(ref) {
					return fmt.Errorf("capture %d: more than the %d of a walk without Summarize", i, len(ref))
				}
				w := ref[i]
				i++
				if c.RecordID != w.id || c.File != w.file || c.Offset != w.offset || c.Length != w.length {
					return fmt.Errorf("capture %d is %s in %s at %d (length %d), want %s in %s at %d (length %d)",
						i-1, c.RecordID, c.File, c.Offset, c.Length, w.id, w.file, w.offset, w.length)
				}
				body, err := io.ReadAll(c.Body)
				if err != nil {
					return err
				}
				if c.Summary == nil {
					whole++
					if o.MemLimit == 0 || int64(len(body)) <= o.MemLimit/4 || fmt.Sprintf("%x", sha1.Sum(body)) != w.bodySHA1 {
						return fmt.Errorf("%s: not summarized, a block of %d bytes", c.RecordID, len(body))
					}
					return nil
				}
				if want := w.bodySHA1 + "|" + c.Type; string(c.Summary) != want || len(body) != 0 {
					return fmt.Errorf("%s: summary %q and %d bytes of body, want %q and none", c.RecordID, c.Summary, len(body), want)
				}
				return nil
			})
			if err != nil {
				t.Fatalf("keep %v, %+v: %v", keep != nil, o, err)
			}
			if i != len(ref) || st.Records != int64(len(ref)) {
				t.Fatalf("keep %v, %+v: %d captures, want %d", keep != nil, o, i, len(ref))
			}
			if o.MemLimit > 0 && (st.Runs < 2 || (keep == nil && whole == 0)) {
				t.Fatalf("keep %v, %+v: %d runs, %d blocks unsummarized: the small limit tests nothing", keep != nil, o, st.Runs, whole)
			}
		}
	}

	boom := errors.New("boom")
	_, err := Walk(context.Background(), files, WalkOptions{TempDir: t.TempDir(),
		Summarize: func(*Record, []byte) ([]byte, error) { return nil, boom }}, func(*Capture) error { return nil })
	if !errors.Is(err, boom) {
		t.Fatalf("Summarize's error: Walk returned %v", err)
	}
}

// TestSideList checks the chunked list of revisit candidates: what is
// read back is what was written, across chunk ends, and after a reset
// (the spill) the chunks are reused.
func TestSideList(t *testing.T) {
	var l sideList
	var want bytes.Buffer
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 2; round++ {
		want.Reset()
		for want.Len() < 3*sideChunk+100 {
			p := make([]byte, rng.IntN(3000))
			for i := range p {
				p[i] = byte(rng.Uint32())
			}
			l.write(p)
			want.Write(p)
		}
		l.write(make([]byte, 2*sideChunk)) // one write over several chunks
		want.Write(make([]byte, 2*sideChunk))
		got, err := io.ReadAll(l.reader())
		if err != nil || !bytes.Equal(got, want.Bytes()) || l.n != want.Len() {
			t.Fatalf("round %d: read back %d bytes (n %d), wrote %d", round, len(got), l.n, want.Len())
		}
		chunks := len(l.chunks)
		l.reset()
		if l.n != 0 || len(l.bytes()) != 0 || len(l.chunks) != chunks {
			t.Fatalf("round %d: after reset n %d, %d chunks in use, %d kept of %d", round, l.n, len(l.bytes()), len(l.chunks), chunks)
		}
	}
}
