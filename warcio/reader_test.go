package warcio

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	zdictpkg "github.com/klauspost/compress/dict"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// readRec is a record read in full by the tests.
type readRec struct {
	rec      *Record
	block    []byte
	bodyErr  error
	lenAtEOF int64 // Length when Body returned io.EOF
}

// readAll reads every record of data, bodies included, with PolicyWarn.
func readAll(t testing.TB, name string, data []byte, o Options) (recs []readRec, errs []error, end error) {
	t.Helper()
	o.Policy = PolicyWarn
	o.OnError = func(err error) { errs = append(errs, err) }
	r := NewReaderOptions(bytes.NewReader(data), name, o)
	for i := 0; ; i++ {
		rec, err := r.Next()
		if err != nil {
			end = err
			break
		}
		if i > 100000 {
			t.Fatalf("%s: more than 100000 records", name)
		}
		block, berr := io.ReadAll(rec.Body)
		recs = append(recs, readRec{rec: rec, block: block, bodyErr: berr, lenAtEOF: rec.Length})
	}
	for i, rr := range recs {
		if rr.lenAtEOF != rr.rec.Length {
			t.Errorf("%s #%d: Length %d once the body was read, %d after Next", name, i, rr.lenAtEOF, rr.rec.Length)
		}
	}
	if int64(len(errs)) < r.Skipped() {
		t.Errorf("%s: Skipped()=%d but only %d errors reported", name, r.Skipped(), len(errs))
	}
	return recs, errs, end
}

// storedRecord is what a record's stored bytes must be.
func storedRecord(rr readRec) []byte {
	var b []byte
	b = append(b, rr.rec.RawHeader...)
	b = append(b, rr.block...)
	return append(b, rr.rec.Trailer...)
}

// decompressFrom decompresses the stored bytes from off to the end of data
// with an independent decoder for the compression.
func decompressFrom(t testing.TB, c Compression, data []byte, need int64) []byte {
	t.Helper()
	var rd io.Reader
	switch c {
	case CompressionGzip:
		z, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("gzip at offset: %v", err)
		}
		rd = z
	case CompressionZstd:
		z, err := zstd.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		defer z.Close()
		rd = z
	case CompressionLZ4:
		rd = lz4.NewReader(bytes.NewReader(data))
	case CompressionBzip2:
		rd = bzip2.NewReader(bytes.NewReader(data))
	default:
		return data
	}
	if need < 0 {
		out, _ := io.ReadAll(rd) // damaged tails end the stream; the prefix is what counts
		return out
	}
	out, _ := io.ReadAll(io.LimitReader(rd, need))
	return out
}

// checkReread asserts that each record's bytes are found again at its
// Offset/SkipInMember by an independent decoder, and that per-record
// compression gives exactly the record in [Offset, Offset+Length).
func checkReread(t *testing.T, name string, data []byte, recs []readRec, perRecord bool) {
	t.Helper()
	for i, rr := range recs {
		rec := rr.rec
		if errors.Is(rr.bodyErr, ErrBadLength) {
			continue // the body ran into the next record: reported, and not the stored record
		}
		want := storedRecord(rr)
		if rec.Offset < 0 || rec.Offset > int64(len(data)) || rec.Length < 0 || rec.Offset+rec.Length > int64(len(data)) {
			t.Errorf("%s #%d: offset %d length %d outside the %d-byte file", name, i, rec.Offset, rec.Length, len(data))
			continue
		}
		if rec.Compression == CompressionNone {
			got := data[rec.Offset : rec.Offset+rec.Length]
			if !bytes.Equal(got, want) {
				t.Errorf("%s #%d: stored bytes at %d+%d differ from RawHeader+block+Trailer (%d bytes)", name, i, rec.Offset, rec.Length, len(want))
			}
			continue
		}
		out := decompressFrom(t, rec.Compression, data[rec.Offset:], rec.SkipInMember+int64(len(want)))
		if int64(len(out)) < rec.SkipInMember+int64(len(want)) || !bytes.Equal(out[rec.SkipInMember:rec.SkipInMember+int64(len(want))], want) {
			t.Errorf("%s #%d: record not found again at offset %d skip %d", name, i, rec.Offset, rec.SkipInMember)
			continue
		}
		if perRecord {
			exact := decompressFrom(t, rec.Compression, data[rec.Offset:rec.Offset+rec.Length], -1)
			if rec.SkipInMember != 0 || !bytes.Equal(exact, want) {
				t.Errorf("%s #%d: member [%d,+%d) does not hold exactly the record (skip %d)", name, i, rec.Offset, rec.Length, rec.SkipInMember)
			}
		}
	}
}

// interopCase is what a reader must make of one interop sample. Counts come
// from SOURCES.md where it states them, else from counting version lines
// in the decompressed file by hand.
type interopCase struct {
	records   int
	types     map[string]int // optional
	comp      Compression
	format    Format
	perRecord bool    // one record per member: Offset/Length are exact
	errs      []error // kinds of errors expected, in order (nil: none)
	mismatch  int     // records whose declared digest does not match
}

var interop = map[string]interopCase{
	"aut--badexample.arc.gz":                                {records: 6, comp: CompressionGzip, format: FormatARC, errs: []error{ErrBadLength, ErrBadLength, ErrTruncated}},
	"aut--example.arc.gz":                                   {records: 300, comp: CompressionGzip, format: FormatARC, perRecord: true},
	"aut--example.warc.gz":                                  {records: 822, types: map[string]int{"warcinfo": 1, "response": 299, "request": 261, "metadata": 261}, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"aut--issue-493.warc":                                   {records: 32, types: map[string]int{"revisit": 5, "warcinfo": 2, "request": 15, "response": 10}, format: FormatWARC},
	"aut--issue-514.warc":                                   {records: 8, format: FormatWARC},
	"iagowarc--corrupted-mid-record.warc.gz.open":           {records: 12, comp: CompressionGzip, format: FormatWARC, errs: []error{ErrGarbage}},
	"iagowarc--corrupted-trailing-bytes.warc.gz.open":       {records: 30, comp: CompressionGzip, format: FormatWARC, errs: []error{ErrGarbage}},
	"iagowarc--empty.warc.gz.open":                          {records: 0, comp: CompressionGzip},
	"iagowarc--good.warc.gz.open":                           {records: 50, types: map[string]int{"response": 50}, comp: CompressionGzip, format: FormatWARC},
	"iagowarc--test.warc.gz":                                {records: 3, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"jwarc--cc.warc.gz":                                     {records: 1, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"jwarc--fold.warc":                                      {records: 1, format: FormatWARC, errs: []error{ErrTruncated}},
	"jwarc--gzip_extra_sl.warc.gz":                          {records: 1, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"nodewarc--books.toscrape.warc":                         {records: 60, types: map[string]int{"request": 30, "response": 30}, format: FormatWARC},
	"nodewarc--parseMe.warc.gz":                             {records: 30, comp: CompressionGzip, format: FormatWARC, perRecord: true, mismatch: 2},
	"pywacz--example-collection-with-lists.warc":            {records: 38, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"pywacz--example-iana.warc":                             {records: 118, types: map[string]int{"revisit": 34, "warcinfo": 2, "request": 58, "response": 24}, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"pywacz--example-warcinfo-metadata.warc":                {records: 4, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"pywb--dupes.warc.gz":                                   {records: 25, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"pywb--example-extra.warc":                              {records: 6, format: FormatWARC, errs: []error{ErrBadTrailer, ErrBadTrailer}, mismatch: 1},
	"pywb--example-url-agnostic-orig.warc.gz":               {records: 2, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"pywb--example-url-agnostic-revisit.warc.gz":            {records: 2, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"pywb--example-wget-1-14.warc.gz":                       {records: 6, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"pywb--example-wpull.warc.gz":                           {records: 4, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"pywb--example2.warc.gz":                                {records: 3, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"pywb--httpbin-resource.warc.gz":                        {records: 1, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"pywb--iana.warc.gz":                                    {records: 343, types: map[string]int{"warcinfo": 1, "response": 48, "revisit": 123, "request": 171}, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"pywb--missing-status-text.warc":                        {records: 1, format: FormatWARC},
	"resiliparse--block-sized-records.warc":                 {records: 3, format: FormatWARC},
	"resiliparse--block-sized-records.warc.lz4":             {records: 3, comp: CompressionLZ4, format: FormatWARC},
	"resiliparse--clipped.warc.gz":                          {records: 1, comp: CompressionGzip, format: FormatWARC, errs: []error{ErrTruncated}},
	"resiliparse--clueweb-quirk.warc.gz":                    {records: 30, comp: CompressionGzip, format: FormatWARC, perRecord: true, mismatch: 29},
	"resiliparse--warcfile.warc.gz":                         {records: 50, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"slyrz--test.warc.bz2":                                  {records: 10, types: map[string]int{"resource": 10}, comp: CompressionBzip2, format: FormatWARC},
	"slyrz--test.warc.gz":                                   {records: 10, types: map[string]int{"resource": 10}, comp: CompressionGzip, format: FormatWARC},
	"wac--IAH-20080430204825-00000-blackbook-truncated.arc": {records: 9, format: FormatARC},
	"wac--IAH-urls-wget.warc.gz":                            {records: 36, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"wac--mutliple-headers.warc":                            {records: 1, format: FormatWARC},
	"warcat--at.warc.gz":                                    {records: 8, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"warcat--bad_http_chunked_content.warc":                 {records: 1, format: FormatWARC},
	"warcat--c1_warcinfo.warc":                              {records: 1, format: FormatWARC},
	"warcat--long_url.warc":                                 {records: 1, format: FormatWARC},
	"warcat--not_utf8_http_header.warc":                     {records: 1, format: FormatWARC},
	"warcio--bad.arc":                                       {records: 1, format: FormatARC, errs: []error{ErrBadLength, ErrBadLength, ErrGarbage}},
	"warcio--example-bad-non-chunked.warc.gz":               {records: 6, comp: CompressionGzip, format: FormatWARC, mismatch: 1},
	"warcio--example-digest.warc":                           {records: 4, format: FormatWARC, mismatch: 1},
	"warcio--example-iana.org-chunked.warc":                 {records: 3, format: FormatWARC},
	"warcio--example-resource.warc.gz":                      {records: 3, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"warcio--example-space-in-target-uri.warc.gz":           {records: 2, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"warcio--example-space-in-url.arc":                      {records: 2, format: FormatARC, errs: []error{ErrTruncated}},
	"warcio--example-trunc.warc":                            {records: 4, format: FormatWARC, errs: []error{ErrBadLength}, mismatch: 1},
	"warcio--example-wget-bad-target-uri.warc.gz":           {records: 6, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"warcio--example-wrong-chunks.warc.gz":                  {records: 2, comp: CompressionGzip, format: FormatWARC, errs: []error{ErrBadTrailer}, mismatch: 1},
	"warcio--example.arc":                                   {records: 2, format: FormatARC},
	"warcio--example.arc.gz":                                {records: 2, comp: CompressionGzip, format: FormatARC, perRecord: true},
	"warcio--example.warc":                                  {records: 6, types: map[string]int{"warcinfo": 2, "request": 2, "response": 1, "revisit": 1}, format: FormatWARC},
	"warcio--example.warc.gz":                               {records: 6, types: map[string]int{"warcinfo": 2, "request": 2, "response": 1, "revisit": 1}, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"warcio--post-test.warc.gz":                             {records: 6, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"warciojs--example-bad-length.warc":                     {records: 6, format: FormatWARC, errs: []error{ErrBadLength}, mismatch: 2},
	"warciojs--example.warc":                                {records: 7, format: FormatWARC},
	"warciojs--post-test-more.warc":                         {records: 6, comp: CompressionGzip, format: FormatWARC, perRecord: true},
	"warciojs--redirect.warc":                               {records: 2, format: FormatWARC},
}

func TestInterop(t *testing.T) {
	dir := sharedtest.Interop(t)
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, path := range files {
		name := filepath.Base(path)
		if name == "SOURCES.md" {
			continue
		}
		seen++
		tc, ok := interop[name]
		if !ok {
			t.Errorf("%s: no expectation in the interop table; add one", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			recs, errs, end := readAll(t, name, data, Options{Digests: true})
			if end != io.EOF {
				t.Fatalf("Next ended with %v, want io.EOF", end)
			}
			if len(recs) != tc.records {
				t.Errorf("got %d records, want %d", len(recs), tc.records)
			}
			if len(errs) != len(tc.errs) {
				t.Errorf("got %d errors %v, want kinds %v", len(errs), errs, tc.errs)
			} else {
				for i, e := range errs {
					var fe *FormatError
					if !errors.As(e, &fe) || !errors.Is(e, tc.errs[i]) {
						t.Errorf("error %d = %v, want a *FormatError of kind %v", i, e, tc.errs[i])
					}
					if fe != nil && (fe.File != name || fe.Offset < 0 || fe.Offset > int64(len(data))) {
						t.Errorf("error %d names %q offset %d", i, fe.File, fe.Offset)
					}
				}
			}
			types := map[string]int{}
			mismatch := 0
			for i, rr := range recs {
				rec := rr.rec
				types[rec.Type]++
				if rec.Compression != tc.comp || rec.Format != tc.format {
					t.Errorf("#%d: %s/%s, want %s/%s", i, rec.Format, rec.Compression, tc.format, tc.comp)
				}
				if rec.Format == FormatWARC && !strings.HasPrefix(rec.Version, "WARC/") {
					t.Errorf("#%d: version %q", i, rec.Version)
				}
				d := rec.Digests()
				if d.BlockMatch == MatchMismatch || d.PayloadMatch == MatchMismatch {
					mismatch++
				}
				if rr.bodyErr == nil && d.BlockSHA1 != nil {
					if sum := sha1.Sum(rr.block); !bytes.Equal(sum[:], d.BlockSHA1) {
						t.Errorf("#%d: BlockSHA1 is not the SHA-1 of the block", i)
					}
				}
				if strings.HasPrefix(rec.TargetURI, "<") {
					t.Errorf("#%d: target URI %q keeps its <>", i, rec.TargetURI)
				}
				if rec.Date.IsZero() && name != "resiliparse--clueweb-quirk.warc.gz" && rec.DateRaw != "null" && rec.DateRaw != "" {
					t.Errorf("#%d: date %q not parsed", i, rec.DateRaw)
				}
				if rr.bodyErr == nil && int64(len(rr.block)) > rec.ContentLen {
					t.Errorf("#%d: block of %d bytes, Content-Length %d", i, len(rr.block), rec.ContentLen)
				}
			}
			for typ, n := range tc.types {
				if types[typ] != n {
					t.Errorf("%d %s records, want %d (all: %v)", types[typ], typ, n, types)
				}
			}
			if mismatch != tc.mismatch {
				t.Errorf("%d records with a digest mismatch, want %d", mismatch, tc.mismatch)
			}
			checkReread(t, name, data, recs, tc.perRecord)
		})
	}
	if seen == 0 {
		t.Fatal("no interop files found")
	}
}

// TestCorpusOffsets checks record offsets against the CDX files wget wrote
// while crawling, and payload digests against the corpus manifest.
func TestCorpusOffsets(t *testing.T) {
	site := sharedtest.Dir(t, "corpus", "mkdocs-org")
	cdxs, _ := filepath.Glob(filepath.Join(site, "*.cdx"))
	if len(cdxs) == 0 {
		t.Fatal("no CDX files in the mkdocs-org corpus")
	}
	manifest := map[string]string{} // url+" "+time -> payload sha1 hex
	mf, err := os.ReadFile(filepath.Join(site, "manifest.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(mf), "\n")[1:] {
		if f := strings.Split(line, "\t"); len(f) == 3 {
			manifest[f[0]+" "+f[1]] = f[2]
		}
	}
	checked, payloads := 0, 0
	for _, cdx := range cdxs {
		want := map[string]int64{} // record id -> offset
		lines, err := os.ReadFile(cdx)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(lines), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) != 11 {
				continue
			}
			var off int64
			fmt.Sscan(f[8], &off)
			want[f[10]] = off
		}
		warc := strings.TrimSuffix(cdx, ".cdx") + ".warc.gz"
		data, err := os.ReadFile(warc)
		if err != nil {
			t.Fatal(err)
		}
		recs, errs, end := readAll(t, filepath.Base(warc), data, Options{Digests: true})
		if end != io.EOF || len(errs) > 0 {
			t.Fatalf("%s: end %v, errors %v", warc, end, errs)
		}
		var next int64
		for i, rr := range recs {
			rec := rr.rec
			if rec.Offset != next {
				t.Errorf("%s #%d: offset %d, previous record ended at %d", warc, i, rec.Offset, next)
			}
			next = rec.Offset + rec.Length
			if off, ok := want[rec.RecordID]; ok {
				checked++
				if off != rec.Offset {
					t.Errorf("%s #%d: offset %d, wget's CDX says %d", warc, i, rec.Offset, off)
				}
			}
			if sum, ok := manifest[rec.TargetURI+" "+rec.DateRaw]; ok && rec.Type == "response" {
				payloads++
				if got := hex.EncodeToString(rec.Digests().PayloadSHA1); got != sum {
					t.Errorf("%s #%d: payload sha1 %s, manifest says %s", warc, i, got, sum)
				}
			}
		}
		if next != int64(len(data)) {
			t.Errorf("%s: records end at %d, file has %d bytes", warc, next, len(data))
		}
		checked -= 0
	}
	if checked == 0 || payloads == 0 {
		t.Fatalf("checked %d CDX offsets and %d manifest payloads", checked, payloads)
	}
}

// record builds a WARC record with a correct Content-Length.
func record(id, typ, block string) string {
	return fmt.Sprintf("WARC/1.0\r\nWARC-Type: %s\r\nWARC-Record-ID: <urn:%s>\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n", typ, id, len(block), block)
}

func gz(t testing.TB, parts ...string) []byte {
	var b bytes.Buffer
	for _, p := range parts {
		w := gzip.NewWriter(&b)
		w.Write([]byte(p))
		w.Close()
	}
	return b.Bytes()
}

func TestMalformed(t *testing.T) {
	a, b, c := record("a", "resource", "alpha"), record("b", "resource", "bravo"), record("c", "resource", "charlie")
	gzAll := gz(t, a, b, c)
	corrupt := append([]byte(nil), gz(t, b)...)
	corrupt[len(corrupt)/2] ^= 0xff
	corrupt[len(corrupt)/2+1] ^= 0xff
	trunc := gz(t, b)
	const bigN = 100000
	big := record("big", "resource", strings.Repeat("x", bigN))
	tests := []struct {
		name string
		in   []byte
		ids  []string
		errs []error
	}{
		{"clean", []byte(a + b + c), []string{"a", "b", "c"}, nil},
		{"empty", nil, nil, nil},
		{"empty-gzip", gz(t, ""), nil, nil},
		{"garbage-between", []byte(a + "junk\r\nmore junk\r\n" + b), []string{"a", "b"}, []error{ErrGarbage}},
		{"garbage-first", []byte("junk" + a), []string{"a"}, []error{ErrGarbage}},
		{"stray-crlf", []byte(a + "\r\n\r\n\r\n" + b), []string{"a", "b"}, []error{ErrBadTrailer}},
		{"non-numeric-length", []byte(strings.Replace(a, "Content-Length: 5", "Content-Length: five", 1) + b), []string{"b"}, []error{ErrBadLength}},
		{"missing-length", []byte(strings.Replace(a, "Content-Length: 5\r\n", "", 1) + b), []string{"b"}, []error{ErrBadLength}},
		{"length-too-long", []byte(strings.Replace(a, "Content-Length: 5", "Content-Length: 50", 1) + b + c), []string{"a", "b", "c"}, []error{ErrBadLength}},
		{"length-too-long-big", []byte(strings.Replace(big, fmt.Sprintf("Content-Length: %d", bigN), fmt.Sprintf("Content-Length: %d", bigN+len(b)+20), 1) + b + c), []string{"big", "b", "c"}, []error{ErrBadLength}},
		{"length-too-long-big-at-end", []byte(strings.Replace(big, fmt.Sprintf("Content-Length: %d", bigN), fmt.Sprintf("Content-Length: %d", bigN+len(b)+20000), 1) + b + c), []string{"big", "b", "c"}, []error{ErrBadLength}},
		{"length-too-short", []byte(strings.Replace(a, "Content-Length: 5", "Content-Length: 3", 1) + b), []string{"a", "b"}, []error{ErrBadLength}},
		{"absurd-length", []byte(b + strings.Replace(a, "Content-Length: 5", "Content-Length: 99999999999", 1) + c), []string{"b", "a", "c"}, []error{ErrBadLength}},
		{"clipped-tail", []byte(a + b)[:len(a)+len(b)-9], []string{"a", "b"}, []error{ErrTruncated}},
		{"clipped-header", []byte(a + b[:20]), []string{"a"}, []error{ErrTruncated}},
		{"gzip-members", gzAll, []string{"a", "b", "c"}, nil},
		{"gzip-garbage-between", append(append(gz(t, a), "JUNK"...), gz(t, b)...), []string{"a", "b"}, []error{ErrGarbage}},
		// The damaged member's output is garbled before its CRC fails.
		{"gzip-corrupt-member", append(append(gz(t, a), corrupt...), gz(t, c)...), []string{"a", "*", "c"}, []error{ErrCorrupt}},
		{"gzip-truncated", append(gz(t, a), trunc[:len(trunc)-12]...), []string{"a", "b"}, []error{ErrTruncated}},
		{"huge-header", []byte("WARC/1.0\r\nX: " + strings.Repeat("x", 3<<20) + "\r\n\r\n" + b), []string{"b"}, []error{ErrBadHeader}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, errs, end := readAll(t, tt.name, tt.in, Options{Digests: true})
			if end != io.EOF {
				t.Fatalf("end %v", end)
			}
			var ids []string
			for i, rr := range recs {
				id := strings.Trim(rr.rec.RecordID, "<>urn:")
				if i < len(tt.ids) && tt.ids[i] == "*" {
					id = "*"
				}
				ids = append(ids, id)
			}
			if fmt.Sprint(ids) != fmt.Sprint(tt.ids) {
				t.Errorf("records %v, want %v", ids, tt.ids)
			}
			if len(errs) != len(tt.errs) {
				t.Fatalf("errors %v, want kinds %v", errs, tt.errs)
			}
			for i, e := range errs {
				var fe *FormatError
				if !errors.As(e, &fe) || !errors.Is(e, tt.errs[i]) || fe.File != tt.name {
					t.Errorf("error %d: %v, want kind %v", i, e, tt.errs[i])
				}
			}
			for _, rr := range recs {
				if rr.bodyErr == nil && !strings.Contains(tt.name, "corrupt") && string(rr.block) != map[string]string{"<urn:a>": "alpha", "<urn:b>": "bravo", "<urn:c>": "charlie", "<urn:big>": strings.Repeat("x", bigN)}[rr.rec.RecordID] && !strings.Contains(tt.name, "short") {
					t.Errorf("record %s block %q", rr.rec.RecordID, rr.block)
				}
			}
			comp := CompressionNone
			if bytes.HasPrefix(tt.in, gzipMagic) {
				comp = CompressionGzip
			}
			_ = comp
			checkReread(t, tt.name, tt.in, recs, false)
			// PolicyFail returns the first error, sticky.
			if len(tt.errs) > 0 {
				r := NewReaderOptions(bytes.NewReader(tt.in), tt.name, Options{Policy: PolicyFail})
				var err error
				for i := 0; i < 100 && err == nil; i++ {
					_, err = r.Next()
				}
				if !errors.Is(err, tt.errs[0]) {
					t.Errorf("PolicyFail: Next returned %v, want %v", err, tt.errs[0])
				}
				if _, again := r.Next(); again != err {
					t.Errorf("PolicyFail: error not sticky: %v then %v", err, again)
				}
			}
		})
	}
}

// TestHeaderFields checks field order, repeats, folding, raw bytes and the
// derived fields on samples that exercise them.
func TestHeaderFields(t *testing.T) {
	in := "WARC/1.1\r\nWARC-Type: revisit\r\nWARC-Target-URI: <http://a.example/x y>\r\n" +
		"WARC-Date: 2024-09-27T10:47:02.123456Z\r\nWARC-Protocol: h2\r\nWARC-Protocol: tls/1.3\r\n" +
		"Fold: a\r\n  b\r\nWARC-Profile: http://netpreserve.org/warc/1.1/revisit/identical-payload-digest\r\n" +
		"WARC-Refers-To: <urn:x>\r\nWARC-Refers-To-Target-URI: http://b.example/\r\nWARC-Refers-To-Date: 2020-01-01T00:00:00Z\r\n" +
		"Content-Length: 0\r\n\r\n\r\n\r\n"
	r := NewReader(strings.NewReader(in), "t")
	rec, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if rec.Version != "WARC/1.1" || rec.Type != "revisit" || rec.TargetURI != "http://a.example/x y" {
		t.Errorf("version %q type %q uri %q", rec.Version, rec.Type, rec.TargetURI)
	}
	if got := rec.Date.Format("2006-01-02T15:04:05.000000Z"); got != "2024-09-27T10:47:02.123456Z" {
		t.Errorf("date %s", got)
	}
	if got := rec.Header.Values("warc-protocol"); fmt.Sprint(got) != "[h2 tls/1.3]" {
		t.Errorf("repeated field: %v", got)
	}
	if rec.Header.Get("Fold") != "a b" {
		t.Errorf("folded value %q", rec.Header.Get("Fold"))
	}
	var rebuilt []byte
	rebuilt = append(rebuilt, "WARC/1.1\r\n"...)
	for _, f := range rec.Header {
		rebuilt = append(rebuilt, f.Raw...)
	}
	rebuilt = append(rebuilt, "\r\n"...)
	if !bytes.Equal(rebuilt, rec.RawHeader) {
		t.Errorf("fields' Raw do not rebuild the header:\n%q\n%q", rebuilt, rec.RawHeader)
	}
	if rec.Profile == "" || rec.RefersTo != "<urn:x>" || rec.RefersToTargetURI != "http://b.example/" || rec.RefersToDate != "2020-01-01T00:00:00Z" {
		t.Errorf("revisit fields %+v", rec)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("second Next: %v", err)
	}
	if string(rec.Trailer) != "\r\n\r\n" || rec.Length != int64(len(in)) {
		t.Errorf("trailer %q length %d", rec.Trailer, rec.Length)
	}
	if _, err := rec.Body.Read(make([]byte, 1)); err == nil {
		t.Error("stale body read succeeded")
	}
}

func TestParseDate(t *testing.T) {
	for in, want := range map[string]string{
		"2006-01-02T15:04:05Z":      "2006-01-02T15:04:05Z",
		"2006-01-02T15:04:05.5Z":    "2006-01-02T15:04:05.5Z",
		"2006-01-02T15:04:05-0700":  "2006-01-02T22:04:05Z",
		"2006-01-02T15:04:05+02:00": "2006-01-02T13:04:05Z",
		"20060102150405":            "2006-01-02T15:04:05Z",
		"201404010000000000":        "2014-04-01T00:00:00Z",
		"2008-10-294T05:21:46-0700": "0001-01-01T00:00:00Z",
		"null":                      "0001-01-01T00:00:00Z",
		"2006-01-02":                "2006-01-02T00:00:00Z",
	} {
		if got := parseDate(in).Format("2006-01-02T15:04:05.999999999Z07:00"); got != want {
			t.Errorf("parseDate(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestDigestEncodings(t *testing.T) {
	block := "hello"
	sum := sha1.Sum([]byte(block))
	for _, decl := range []string{
		"sha1:" + strings.ToUpper(b32(sum[:])), "SHA1:" + strings.ToLower(b32(sum[:])),
		"sha1:" + hex.EncodeToString(sum[:]), "sha1:qvTGHdzF6KLavt4PO0gs2a6pQ00=",
	} {
		in := fmt.Sprintf("WARC/1.0\r\nWARC-Block-Digest: %s\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n", decl)
		r := NewReader(strings.NewReader(in), "t")
		rec, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, rec.Body)
		if m := rec.Digests().BlockMatch; m != MatchOK {
			t.Errorf("%s: match %d", decl, m)
		}
	}
}

func b32(b []byte) string {
	const alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	var s strings.Builder
	var acc, bits uint
	for _, c := range b {
		acc = acc<<8 | uint(c)
		bits += 8
		for bits >= 5 {
			s.WriteByte(alpha[(acc>>(bits-5))&31])
			bits -= 5
		}
	}
	if bits > 0 {
		s.WriteByte(alpha[(acc<<(5-bits))&31])
	}
	return s.String()
}

// synth yields a huge record without holding it: a header, n generated
// block bytes, a trailer, then a small record.
type synth struct {
	head, tail []byte
	n, pos     int64
}

func (s *synth) Read(p []byte) (int, error) {
	total := int64(len(s.head)) + s.n + int64(len(s.tail))
	if s.pos >= total {
		return 0, io.EOF
	}
	i := 0
	for i < len(p) && s.pos < total {
		switch {
		case s.pos < int64(len(s.head)):
			c := copy(p[i:], s.head[s.pos:])
			i += c
			s.pos += int64(c)
		case s.pos < int64(len(s.head))+s.n:
			c := int64(len(p) - i)
			if rest := int64(len(s.head)) + s.n - s.pos; c > rest {
				c = rest
			}
			fillX(p[i : i+int(c)])
			i += int(c)
			s.pos += c
		default:
			c := copy(p[i:], s.tail[s.pos-int64(len(s.head))-s.n:])
			i += c
			s.pos += int64(c)
		}
	}
	return i, nil
}

func TestHugeRecordStreams(t *testing.T) {
	const n = 2<<30 + 7 // past 2 GiB
	s := &synth{
		head: []byte(fmt.Sprintf("WARC/1.0\r\nWARC-Type: resource\r\nContent-Length: %d\r\n\r\n", int64(n))),
		n:    n,
		tail: []byte("\r\n\r\n" + record("z", "resource", "zulu")),
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := NewReaderOptions(bufio.NewReaderSize(s, 1<<20), "huge", Options{})
	rec, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.Copy(io.Discard, rec.Body)
	if err != nil || got != n {
		t.Fatalf("body %d bytes, err %v", got, err)
	}
	rec2, err := r.Next()
	if err != nil || rec2.RecordID != "<urn:z>" {
		t.Fatalf("record after the huge one: %v %v", rec2, err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("allocated %d bytes to stream a %d-byte record", alloc, int64(n))
	}
	if rec.Length != int64(len(s.head))+n+4 {
		t.Errorf("length %d", rec.Length)
	}
}

// TestCompressions re-compresses a sample per record with zstd (with and
// without a dictionary frame), LZ4, and as a multi-stream bzip2 file, and
// expects the same records back with exact per-record offsets.
func TestCompressions(t *testing.T) {
	data, err := os.ReadFile("testdata/warcio--example.warc")
	if err != nil {
		t.Fatal(err)
	}
	plain, _, _ := readAll(t, "plain", data, Options{})
	var parts [][]byte
	for _, rr := range plain {
		parts = append(parts, storedRecord(rr))
	}
	zenc, _ := zstd.NewWriter(nil)
	var zst bytes.Buffer
	for _, p := range parts {
		zst.Write(zenc.EncodeAll(p, nil))
	}
	// A dictionary frame as the .warc.zst proposal writes it, with a raw
	// (magic-less) content dictionary compressed by zstd itself.
	dict := bytes.Repeat([]byte("WARC/1.0\r\nWARC-Type: response\r\nContent-Length: "), 20)
	denc, err := zstd.NewWriter(nil, zstd.WithEncoderDictRaw(0, dict))
	if err != nil {
		t.Fatal(err)
	}
	var zstDict bytes.Buffer
	cdict := zenc.EncodeAll(dict, nil)
	zstDict.Write([]byte{0x5D, 0x2A, 0x4D, 0x18, byte(len(cdict)), byte(len(cdict) >> 8), byte(len(cdict) >> 16), 0})
	zstDict.Write(cdict)
	for _, p := range parts {
		zstDict.Write(denc.EncodeAll(p, nil))
	}
	// A real zstd dictionary (magic 0xEC30A437), stored uncompressed.
	zdict, err := zdictpkg.BuildZstdDict(parts, zdictpkg.Options{MaxDictSize: 4 << 10, HashBytes: 6, ZstdDictID: 7})
	if err != nil {
		t.Fatal(err)
	}
	zdenc, err := zstd.NewWriter(nil, zstd.WithEncoderDict(zdict))
	if err != nil {
		t.Fatal(err)
	}
	var zstRealDict bytes.Buffer
	zstRealDict.Write([]byte{0x5D, 0x2A, 0x4D, 0x18, byte(len(zdict)), byte(len(zdict) >> 8), byte(len(zdict) >> 16), 0})
	zstRealDict.Write(zdict)
	for _, p := range parts {
		zstRealDict.Write(zdenc.EncodeAll(p, nil))
	}
	var lz bytes.Buffer
	for _, p := range parts {
		w := lz4.NewWriter(&lz)
		w.Apply(lz4.ChecksumOption(true), lz4.BlockChecksumOption(true))
		w.Write(p)
		w.Close()
	}
	bz, err := os.ReadFile("testdata/slyrz--test.warc.bz2")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		in        []byte
		comp      Compression
		records   int
		perRecord bool
	}{
		{"zstd", zst.Bytes(), CompressionZstd, len(parts), true},
		{"zstd-dict", zstDict.Bytes(), CompressionZstd, len(parts), true},
		{"zstd-real-dict", zstRealDict.Bytes(), CompressionZstd, len(parts), true},
		{"lz4", lz.Bytes(), CompressionLZ4, len(parts), true},
		{"bzip2-two-streams", append(append([]byte(nil), bz...), bz...), CompressionBzip2, 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, errs, end := readAll(t, tc.name, tc.in, Options{Digests: true})
			if end != io.EOF || len(errs) > 0 || len(recs) != tc.records {
				t.Fatalf("%d records, errors %v, end %v", len(recs), errs, end)
			}
			for i, rr := range recs {
				if rr.rec.Compression != tc.comp {
					t.Errorf("#%d compression %s", i, rr.rec.Compression)
				}
				if tc.perRecord && !bytes.Equal(storedRecord(rr), parts[i]) {
					t.Errorf("#%d differs from the plain record", i)
				}
			}
			if !strings.Contains(tc.name, "dict") { // the independent decoder has no dictionary
				checkReread(t, tc.name, tc.in, recs, tc.perRecord)
			}
		})
	}
}

// TestNextSkipsUnreadBodies reads only headers and expects the same
// records, offsets and digests as reading every body.
func TestNextSkipsUnreadBodies(t *testing.T) {
	for _, f := range []string{"testdata/warcio--example.warc.gz", "testdata/warcio--example.warc"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		full, _, _ := readAll(t, f, data, Options{Digests: true})
		r := NewReader(bytes.NewReader(data), f)
		var got []*Record
		for {
			rec, err := r.Next()
			if err != nil {
				break
			}
			got = append(got, rec)
		}
		if len(got) != len(full) {
			t.Fatalf("%s: %d records without bodies, %d with", f, len(got), len(full))
		}
		for i := range got {
			a, b := got[i], full[i].rec
			if a.Offset != b.Offset || a.Length != b.Length || !bytes.Equal(a.Digests().BlockSHA1, b.Digests().BlockSHA1) || a.Digests().BlockSHA1 == nil {
				t.Errorf("%s #%d: %d+%d %x vs %d+%d %x", f, i, a.Offset, a.Length, a.Digests().BlockSHA1, b.Offset, b.Length, b.Digests().BlockSHA1)
			}
		}
	}
}

func fillX(p []byte) {
	if len(p) == 0 {
		return
	}
	p[0] = 'x'
	for n := 1; n < len(p); n *= 2 {
		copy(p[n:], p[:n])
	}
}

func corpusFiles(b *testing.B) [][]byte {
	files := sharedtest.CorpusFiles(b, "mkdocs-org")
	var out [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

func gzipDecodeAll(b *testing.B, files [][]byte) {
	z := new(gzip.Reader)
	for _, data := range files {
		if err := z.Reset(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, z); err != nil {
			b.Fatal(err)
		}
	}
}

func readerAll(b *testing.B, files [][]byte, digests bool) {
	r := NewReaderOptions(nil, "", Options{Digests: digests})
	for _, data := range files {
		r.Reset(bytes.NewReader(data), "bench")
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, rec.Body); err != nil {
				b.Fatal(err)
			}
		}
		if r.Skipped() != 0 {
			b.Fatal("skipped input in the corpus")
		}
	}
}

func totalSize(files [][]byte) int64 {
	var n int64
	for _, f := range files {
		n += int64(len(f))
	}
	return n
}

// BenchmarkReader reads every record and body of the mkdocs-org corpus
// with digests off; x-gzip is its throughput relative to plain multistream
// gzip decoding of the same files, measured in the same run.
func BenchmarkReader(b *testing.B) {
	files := corpusFiles(b)
	b.SetBytes(totalSize(files))
	b.ReportAllocs()
	var base, ours time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		b.StopTimer()
		gzipDecodeAll(b, files)
		base += time.Since(t0)
		b.StartTimer()
		t1 := time.Now()
		readerAll(b, files, false)
		ours += time.Since(t1)
	}
	b.ReportMetric(float64(base)/float64(ours), "x-gzip")
}

// BenchmarkReaderDigests is BenchmarkReader with SHA-1 digests on.
func BenchmarkReaderDigests(b *testing.B) {
	files := corpusFiles(b)
	b.SetBytes(totalSize(files))
	b.ReportAllocs()
	var base, ours time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		b.StopTimer()
		gzipDecodeAll(b, files)
		base += time.Since(t0)
		b.StartTimer()
		t1 := time.Now()
		readerAll(b, files, true)
		ours += time.Since(t1)
	}
	b.ReportMetric(float64(base)/float64(ours), "x-gzip")
}

// BenchmarkGzipBaseline is the baseline alone: klauspost gzip multistream
// decoding of the corpus into io.Discard.
func BenchmarkGzipBaseline(b *testing.B) {
	files := corpusFiles(b)
	b.SetBytes(totalSize(files))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		gzipDecodeAll(b, files)
	}
}

// TestDeclaredDigests checks that digests in the less common encodings are
// really compared, not just left unknown.
func TestDeclaredDigests(t *testing.T) {
	dir := sharedtest.Interop(t)
	for _, tc := range []struct {
		file      string
		algPrefix string // of WARC-Block-Digest or WARC-Payload-Digest
		ok        int    // at least this many MatchOK among them
	}{
		{"pywacz--example-iana.warc", "sha256:", 50},
		{"pywacz--example-warcinfo-metadata.warc", "sha-256:", 2},
		{"warcio--example-digest.warc", "sha1:", 3},
		{"wac--mutliple-headers.warc", "sha1:", 1},
	} {
		data, err := os.ReadFile(filepath.Join(dir, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		recs, _, _ := readAll(t, tc.file, data, Options{Digests: true})
		ok := 0
		for _, rr := range recs {
			d := rr.rec.Digests()
			if strings.HasPrefix(strings.ToLower(rr.rec.Header.Get("WARC-Block-Digest")), tc.algPrefix) && d.BlockMatch == MatchOK {
				ok++
			}
			if strings.HasPrefix(strings.ToLower(rr.rec.Header.Get("WARC-Payload-Digest")), tc.algPrefix) && d.PayloadMatch == MatchOK {
				ok++
			}
		}
		if ok < tc.ok {
			t.Errorf("%s: %d %s digests matched, want at least %d", tc.file, ok, tc.algPrefix, tc.ok)
		}
	}
}

// TestARCFields reads ARC v1 with a space in the URL and a synthetic ARC v2
// file whose filedesc names ten fields.
func TestARCFields(t *testing.T) {
	data, err := os.ReadFile("testdata/warcio--example.arc")
	if err != nil {
		t.Fatal(err)
	}
	recs, errs, _ := readAll(t, "arc", data, Options{})
	if len(recs) != 2 || len(errs) != 0 {
		t.Fatalf("%d records, errors %v", len(recs), errs)
	}
	if r := recs[1].rec; r.TargetURI != "http://example.com/" || r.Header.Get("IP-address") != "93.184.216.119" ||
		r.Date.Format("20060102150405") != "20140216050221" || r.ContentLen != 1591 || r.Version != "ARC/1" || r.Type != "response" {
		t.Errorf("ARC record %+v", r)
	}
	if recs[0].rec.Type != "warcinfo" {
		t.Errorf("filedesc record type %q", recs[0].rec.Type)
	}
	body := "HTTP/1.0 200 OK\r\n\r\nhi"
	desc := "2 0 Test\nURL IP-address Archive-date Content-type Result-code Checksum Location Offset Filename Archive-length\n"
	v2 := fmt.Sprintf("filedesc://t.arc 0.0.0.0 20200101000000 text/plain %d\n%s\n", len(desc), desc) +
		fmt.Sprintf("http://a.example/x y 1.2.3.4 20200102030405 text/html 200 ABC - 0 t.arc %d\n%s\n", len(body), body)
	recs, errs, _ = readAll(t, "v2", []byte(v2), Options{Digests: true})
	if len(recs) != 2 || len(errs) != 0 {
		t.Fatalf("v2: %d records, errors %v", len(recs), errs)
	}
	r := recs[1].rec
	if r.TargetURI != "http://a.example/x y" || r.Header.Get("Result-code") != "200" || r.Header.Get("Filename") != "t.arc" || r.Version != "ARC/2" || string(recs[1].block) != body {
		t.Errorf("v2 record %+v block %q", r.Header, recs[1].block)
	}
	if sum := sha1.Sum([]byte("hi")); !bytes.Equal(r.Digests().PayloadSHA1, sum[:]) {
		t.Errorf("ARC payload digest %x", r.Digests().PayloadSHA1)
	}
	checkReread(t, "v2", []byte(v2), recs, false)
}

// TestReset reads different files through one Reader and expects what
// fresh Readers give.
func TestReset(t *testing.T) {
	r := NewReader(nil, "")
	for _, f := range []string{"testdata/warcio--example.warc.gz", "testdata/slyrz--test.warc.bz2", "testdata/warcio--example.arc", "testdata/warcio--example.warc", "testdata/warcio--example.warc.gz"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, _, _ := readAll(t, f, data, Options{Digests: true})
		r.Reset(bytes.NewReader(data), f)
		for i := 0; ; i++ {
			rec, err := r.Next()
			if err == io.EOF {
				if i != len(want) {
					t.Errorf("%s: %d records after Reset, want %d", f, i, len(want))
				}
				break
			}
			if err != nil || i >= len(want) {
				t.Fatalf("%s #%d: %v", f, i, err)
			}
			block, _ := io.ReadAll(rec.Body)
			w := want[i]
			if rec.File != f || rec.Offset != w.rec.Offset || rec.Length != w.rec.Length || !bytes.Equal(block, w.block) ||
				!bytes.Equal(rec.Digests().BlockSHA1, w.rec.Digests().BlockSHA1) || rec.Format != w.rec.Format {
				t.Errorf("%s #%d differs after Reset", f, i)
			}
		}
	}
}

// TestBoundedBuffers feeds long stretches without a record start, or
// without a line end, and checks that the buffer stays within its bounds.
func TestBoundedBuffers(t *testing.T) {
	const n = 40 << 20
	arcHead := "filedesc://x.arc 0.0.0.0 20200101000000 text/plain 0\n\n"
	for name, head := range map[string]string{
		"warc-garbage":     "",
		"warc-header-line": "WARC/1.0\r\nX: ",
		"arc-garbage":      arcHead,
		"arc-line":         arcHead + "http://a.example/ ",
	} {
		s := &synth{head: []byte(head), n: n, tail: []byte("\n" + record("z", "resource", "zulu"))}
		var errs []error
		r := NewReaderOptions(s, name, Options{Policy: PolicyWarn, OnError: func(err error) { errs = append(errs, err) }})
		var last *Record
		for {
			rec, err := r.Next()
			if err != nil {
				break
			}
			last = rec
		}
		if limit := 2*defaultMaxHeader + 1<<20; cap(r.buf) > limit {
			t.Errorf("%s: buffer grew to %d bytes", name, cap(r.buf))
		}
		if len(errs) == 0 {
			t.Errorf("%s: no error reported", name)
		}
		if !strings.HasPrefix(name, "arc") && (last == nil || last.RecordID != "<urn:z>") {
			t.Errorf("%s: the record after the damage was lost", name)
		}
	}
}

// TestLowerFieldName checks lowerName against strings.ToLower, which
// parseWARCHeader's field names are matched by: the names it knows in any
// case, other names, non-ASCII look-alikes (the Kelvin sign lower-cases
// to k, the long s does not fold to s) and a name longer than the
// caller's buffer; and that a lookup of an ASCII name allocates nothing.
func TestLowerFieldName(t *testing.T) {
	names := []string{"", "WARC-Type", "warc-type", "WARC-TYPE", "WaRc-TaRgEt-UrI", "WARC-Date", "WARC-Record-ID",
		"WARC-Profile", "WARC-Refers-To", "WARC-Refers-To-Target-URI", "WARC-Refers-To-Date", "Content-Type",
		"WARC-Payload-Digest", "WARC-Type ", "WARC-Typ", "WAR\u212aC-Type", "WARC-Refer\u017f-To", "WARC-\u212aype",
		"WARC-Refers-To-Target-URI-And-Then-Some", strings.Repeat("x", 40)}
	for _, n := range names {
		var b [32]byte
		if got, want := string(lowerName(b[:0], n)), strings.ToLower(n); got != want {
			t.Errorf("lowerName(%q) = %q, strings.ToLower %q", n, got, want)
		}
	}
	for _, n := range []string{"WARC-Refer\u017f-To", "WARC-\u212aype"} {
		var b [32]byte
		if recordFields[string(lowerName(b[:0], n))] != nil {
			t.Errorf("%q taken for a WARC field", n)
		}
	}
	if n := testing.AllocsPerRun(100, func() {
		var b [32]byte
		_ = recordFields[string(lowerName(b[:0], "WARC-Target-URI"))]
		_ = recordFields[string(lowerName(b[:0], "Content-Length"))]
	}); n != 0 {
		t.Errorf("%v allocations for ASCII names", n)
	}
}
