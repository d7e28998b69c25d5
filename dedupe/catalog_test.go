package dedupe

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/dedupe/zlibenc"
)

func TestRecordIDRoundTrip(t *testing.T) {
	for _, id := range []string{
		"<urn:uuid:5105b4a8-1e2c-4f0e-9d6b-0a1b2c3d4e5f>",
		"<urn:uuid:5105B4A8-1E2C-4F0E-9D6B-0A1B2C3D4E5F>", // upper case: kept as text
		"<urn:uuid:5105b4a8-1e2c-4f0e-9d6b-0a1b2c3d4e5>",  // short
		"urn:uuid:5105b4a8-1e2c-4f0e-9d6b-0a1b2c3d4e5f",   // no brackets
		"", "<urn:x>",
	} {
		b := appendRecordID(nil, nil, id)
		d := &dec{b: b}
		if got := d.recordID(); got != id || d.err != nil || len(d.b) != 0 {
			t.Errorf("%q came back as %q (%v)", id, got, d.err)
		}
	}
	if n := len(appendRecordID(nil, nil, "<urn:uuid:5105b4a8-1e2c-4f0e-9d6b-0a1b2c3d4e5f>")); n != 17 {
		t.Errorf("uuid record id takes %d bytes, want 17", n)
	}
}

// fakeRefs is a store's view of short references: the ids stored, by
// their first pack.RefLen bytes, oldest first.
type fakeRefs map[[pack.RefLen]byte][]pack.ID

func (f fakeRefs) add(ids ...pack.ID) {
	for _, id := range ids {
		k := [pack.RefLen]byte(id[:pack.RefLen])
		f[k] = append(f[k], id)
	}
}

func (f fakeRefs) unique(id pack.ID) (bool, error) {
	return len(f[[pack.RefLen]byte(id[:pack.RefLen])]) == 1, nil
}

func (f fakeRefs) resolve(p []byte) (pack.ID, error) {
	if ids := f[[pack.RefLen]byte(p)]; len(ids) > 0 {
		return ids[0], nil // the oldest, as pack.Store.Resolve
	}
	return pack.ID{}, pack.ErrNotFound
}

func TestSegmentRoundTrip(t *testing.T) {
	id := func(b byte) pack.ID { return pack.Sum([]byte{b}) }
	// id(9) and twin share their short reference; twin came second, so
	// it must be written whole.
	twin := id(9)
	twin[31] ^= 1
	refs := fakeRefs{}
	refs.add(id(1), id(2), id(3), id(4), id(9), twin)
	urls := []URLVersions{
		{Key: "", Versions: []Version{{File: "a.warc", Type: "warcinfo", Mode: modeBlock, WARCHeader: []byte("h"), Block: id(1), CRC: 7},
			{File: "a.warc", Type: "warcinfo", Mode: modeInline, WARCHeader: []byte("h2"), inline: []byte("software: wget\r\n"), CRC: 8}}},
		{Key: "com,example)/", Versions: []Version{
			{File: "a.warc", Offset: 10, Date: time.Unix(5, 6).UTC(), Type: "response", TargetURI: "http://example.com/", RecordID: "<urn:uuid:5105b4a8-1e2c-4f0e-9d6b-0a1b2c3d4e5f>",
				Mode: modeHTTP, Form: formBlocks, Layout: id(2), Blocks: []pack.ID{id(3), id(4), id(3)}, Framing: []byte{1, 2}, Level: 3, BlockDigestOK: true},
			{File: "b.warc", Offset: 20, Type: "response", TargetURI: "http://example.com/", Mode: modeHTTP, Form: formWhole, Payload: id(3), Trailer: []byte("\r\n\r\n"), PayloadDigestOK: true, reason: uint8(WhyContentEncoding)},
			{File: "b.warc", Offset: 30, Type: "request", Mode: modeRaw, Record: id(9)},
			{File: "b.warc", Offset: 40, Type: "request", Mode: modeRaw, Record: twin},
			{File: "b.warc", Offset: 41, Type: "response", Mode: modeHTTP, Form: formBlocks, Layout: id(2), Blocks: []pack.ID{id(4)}, Coding: []byte{1, 4, 3, 13, 22, 0}, reason: 0},
			// Offsets and dates are written as differences from the same
			// file's previous record: one going backwards, and lengths.
			{File: "b.warc", Offset: 45, Length: 900, Date: time.Unix(1e9, 0).UTC(), Type: "request", Mode: modeRaw, Record: twin},
			{File: "a.warc", Offset: 3, Length: 7, Date: time.Unix(4, 0).UTC(), Type: "request", Mode: modeRaw, Record: twin},
			{File: "b.warc", Offset: 945, Length: 1, Date: time.Unix(1e9-3, 0).UTC(), Type: "request", Mode: modeRaw, Record: twin},
		}},
	}
	b, got := encodeDecode(t, urls, refs)
	if again, err := encodeSegment(got, refs.unique); err != nil || !bytes.Equal(again, b) {
		t.Fatalf("segment does not round-trip:\n%+v\n%+v", urls, got)
	}
	for i, u := range urls {
		for j, v := range u.Versions {
			g := got[i].Versions[j]
			if g.File != v.File || g.Offset != v.Offset || g.Length != v.Length || !g.Date.Equal(v.Date) {
				t.Errorf("version %d/%d: got %s %d+%d %v, want %s %d+%d %v", i, j, g.File, g.Offset, g.Length, g.Date, v.File, v.Offset, v.Length, v.Date)
			}
		}
	}
	if string(got[0].Versions[1].inline) != "software: wget\r\n" {
		t.Fatalf("inline block decoded as %q", got[0].Versions[1].inline)
	}
	if got[1].Versions[3].Record != twin || got[1].Versions[2].Record != id(9) {
		t.Fatalf("ids sharing a short reference decoded as %s and %s", got[1].Versions[2].Record, got[1].Versions[3].Record)
	}
	// Short references cost pack.RefLen bytes instead of 32: four ids
	// have a reference of their own (the zero anchor, id(9) and its twin
	// are written whole).
	whole, err := encodeSegment(urls, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := len(whole) - len(b); d != 4*(32-pack.RefLen) {
		t.Errorf("short references saved %d bytes, want %d", d, 4*(32-pack.RefLen))
	}
	if _, err := decodeSegment(b, nil); err == nil {
		t.Error("a segment with short references decoded without a store")
	}
	vs, err := findInSegment(b, "com,example)/", refs.resolve)
	if st := vs[1].Storage(); st.How.String() != "payload" || st.Why.String() != "content-encoding" {
		t.Errorf("whole payload: Storage() = %v", st)
	}
	if st := vs[4].Storage(); st.How.String() != "blocks" || st.Why.String() != "content-encoding" || !bytes.Equal(vs[4].Coding, []byte{1, 4, 3, 13, 22, 0}) {
		t.Errorf("content-coded blocks: Storage() = %v; coding %x", st, vs[4].Coding)
	}
	if err != nil || len(vs) != 8 || vs[0].Blocks[2] != id(3) || vs[1].Payload != id(3) || vs[2].Record != id(9) ||
		vs[1].TargetURI != "http://example.com/" || vs[2].TargetURI != "" {
		t.Errorf("findInSegment: %+v, %v", vs, err)
	}
	if vs, err := findInSegment(b, "com,example)/zz", refs.resolve); err != nil || vs != nil {
		t.Errorf("absent key: %v, %v", vs, err)
	}
	// A content-coded version is refused by a version 3 reader (which
	// would misread it).
	cb := bytes.Clone(b)
	cb[4] = 3
	if _, err := decodeSegment(cb, refs.resolve); err == nil {
		t.Error("a content-coded version decoded as version 3")
	}
	// Truncations never panic and are reported.
	for i := range b {
		if _, err := decodeSegment(b[:i], refs.resolve); err == nil {
			t.Errorf("segment cut at %d decoded without error", i)
		}
	}
}

// encodeDecode encodes urls as a segment and decodes it back.
func encodeDecode(t *testing.T, urls []URLVersions, refs fakeRefs) ([]byte, []URLVersions) {
	t.Helper()
	b, err := encodeSegment(urls, refs.unique)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeSegment(b, refs.resolve)
	if err != nil {
		t.Fatal(err)
	}
	return b, got
}

// TestSegmentPlaces checks references to objects named by place
// (version 9): in order, repeated, going back, across URLs, mixed with
// ids; and that a new place costs a few bytes where an id costs seven.
func TestSegmentPlaces(t *testing.T) {
	p := pack.PlaceID
	hashed := pack.Sum([]byte("x")).Short()
	refs := fakeRefs{}
	refs.add(hashed)
	page := func(off int64, layout pack.ID, blocks ...pack.ID) Version {
		return Version{File: "a.warc", Offset: off, Type: "response", Mode: modeHTTP, WARCAnchor: p(1), HTTPAnchor: p(2),
			Form: formBlocks, Layout: layout, Blocks: blocks}
	}
	urls := []URLVersions{
		{Key: "a", Versions: []Version{page(0, p(10), p(4), p(6), p(8)), page(1, p(10), p(4), p(12), p(8)), page(2, p(14), hashed, p(3), p(1<<40))}},
		{Key: "b", Versions: []Version{page(3, p(20), p(4), p(16)), {File: "a.warc", Offset: 4, Type: "request", Mode: modeRaw, Record: p(0)}}},
	}
	b, got := encodeDecode(t, urls, refs)
	for i := range urls {
		for j, v := range urls[i].Versions {
			g := got[i].Versions[j]
			if g.Layout != v.Layout || !slices.Equal(g.Blocks, v.Blocks) || g.Record != v.Record || g.WARCAnchor != v.WARCAnchor || g.HTTPAnchor != v.HTTPAnchor {
				t.Errorf("version %d/%d: got %v %v %v, want %v %v %v", i, j, g.Layout, g.Blocks, g.Record, v.Layout, v.Blocks, v.Record)
			}
		}
	}
	// The same segment with each place replaced by a distinct hashed id
	// (short references, 1 + 6 bytes each) is larger by about 5 bytes a
	// new object.
	ids := map[pack.ID]pack.ID{}
	hashedURLs := make([]URLVersions, len(urls))
	for i, u := range urls {
		hashedURLs[i] = URLVersions{Key: u.Key}
		for _, v := range u.Versions {
			f := func(id pack.ID) pack.ID {
				if _, ok := id.Place(); !ok {
					return id
				}
				if _, ok := ids[id]; !ok {
					ids[id] = pack.Sum([]byte(id.String())).Short()
					refs.add(ids[id])
				}
				return ids[id]
			}
			v.Layout, v.Record, v.WARCAnchor, v.HTTPAnchor = f(v.Layout), f(v.Record), f(v.WARCAnchor), f(v.HTTPAnchor)
			v.Blocks = slices.Clone(v.Blocks)
			for k := range v.Blocks {
				v.Blocks[k] = f(v.Blocks[k])
			}
			hashedURLs[i].Versions = append(hashedURLs[i].Versions, v)
		}
	}
	hb, err := encodeSegment(hashedURLs, refs.unique)
	if err != nil {
		t.Fatal(err)
	}
	if saved := len(hb) - len(b); saved < 4*len(ids) {
		t.Errorf("places save %d bytes over %d ids, want at least %d", saved, len(ids), 4*len(ids))
	}
	for i := range b {
		if _, err := decodeSegment(b[:i], refs.resolve); err == nil {
			t.Errorf("segment cut at %d decoded without error", i)
		}
	}
}

// TestRootRoundTrip checks the commit payload (parts of the input-file
// table, runs, open ingest) and the parts, whose input-file names are
// front- and back-coded, including names that share nothing, share all
// of the previous one, or are empty, and that truncations are reported.
func TestRootRoundTrip(t *testing.T) {
	files := []InputFile{
		{Name: "ota-tinder-20211231135713.warc.gz", Size: 123456, SHA256: [32]byte{1}, Records: 1000, Malformed: 3, StreamLen: -1},
		{Name: "ota-tinder-20220108063013.warc.gz", Size: 7, SHA256: [32]byte{2}, Records: -1, Malformed: -1, StreamLen: -1}, // unknown
		{Name: "x.warc.gz", Size: 9, Records: 5, StreamLen: 4096, StreamSHA256: [32]byte{3}, Gaps: 2, Rebuildable: true},
		{Name: "y.warc", Size: 9, Records: 5, StreamLen: 0, Rebuildable: false},
		{Name: "ota-tinder-20220108063013.warc.gz.1", Size: 0},
		{Name: "ota-tinder", Size: 1},
		{Name: "", Size: 2},
		{Name: "zzz", Size: 3},
		// Version 6: a member table, and a reason.
		{Name: "w.warc.gz", Size: 50, StreamLen: 10, Rebuildable: true, OriginalWhy: originalExact, Original: &Original{
			Headers: []memberHeader{{Bytes: make([]byte, 24), SL: true, slAt: 16}, {Bytes: []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"), slAt: -1}},
			Runs: []memberRun{{Count: 2, P: zlibenc.Params{Level: 6, MemLevel: 8}},
				{Count: 1, Header: 1, P: zlibenc.Params{Level: 1, MemLevel: 9, Strategy: zlibenc.StrategyFiltered, SyncFlush: true}}},
			Lens: []int64{5, 0, 5}}},
		{Name: "v.warc", Size: 3, StreamLen: 3, Rebuildable: true, OriginalWhy: originalNotGzip},
	}
	part := encodeFilePart(files)
	got, err := decodeFilePart(part, len(files))
	if err != nil {
		t.Fatal(err)
	}
	for i := range files {
		if !reflect.DeepEqual(got[i], files[i]) {
			t.Errorf("file %d: got %+v, want %+v", i, got[i], files[i])
		}
	}
	if _, err := decodeFilePart(part, len(files)+1); err == nil {
		t.Error("a part of fewer rows than the root lists was accepted")
	}
	for i := range part {
		if _, err := decodeFilePart(part[:i], len(files)); err == nil {
			t.Errorf("part cut at %d decoded without error", i)
		}
	}
	// A row repeating the previous name costs prefix length, suffix
	// length (0), empty middle, size difference, digest and the two
	// counts and the unknown stream: 1 + 1 + 1 + 1 + 32 + 3 bytes,
	// whatever the name's length;
	// one differing from it in the middle only pays for the middle.
	r1 := len(encodeFilePart(files[:2]))
	if d := len(encodeFilePart(append(slices.Clone(files[:2]), InputFile{Name: files[1].Name, Size: 1, StreamLen: -1}))) - r1; d != 39 {
		t.Errorf("a row repeating the previous name costs %d bytes, want 39 (names not front-coded?)", d)
	}
	if d := len(encodeFilePart(append(slices.Clone(files[:2]), InputFile{Name: "ota-tinder-20220108063099.warc.gz", Size: 1, StreamLen: -1}))) - r1; d != 41 {
		t.Errorf("a row differing from the previous name in 2 middle bytes costs %d bytes, want 41 (names not back-coded?)", d)
	}
	// A prefix longer than the previous name is refused.
	row := append([]byte{0, 0, 0, 0}, make([]byte, 32+3)...) // empty name, unknown counts
	bad := append([]byte(filePartMagic+"\x02"), row...)
	bad = append(bad, 5, 0, 1, 'x', 0) // prefix 5 of an empty name
	bad = append(bad, make([]byte, 32+3)...)
	if _, err := decodeFilePart(append([]byte(filePartMagic+"\x02"), append(row, row...)...), 2); err != nil {
		t.Fatalf("two empty rows: %v", err)
	}
	if _, err := decodeFilePart(bad, 2); err == nil {
		t.Error("a file name prefix longer than the previous name was accepted")
	}

	// The root lists the parts; rows no part holds are refused.
	r := &root{
		Files:  files,
		loaded: true,
		Runs:   [][]segRef{{{First: "", Last: "com,a)/", ID: pack.Sum([]byte("s"))}}},
	}
	if _, err := r.encode(); err == nil {
		t.Fatal("a root whose rows are in no part encoded")
	}
	r.Parts = []filePart{{Rows: 4, ID: pack.Sum([]byte("p1"))}, {Rows: len(files) - 4, ID: pack.Sum([]byte("p2"))}}
	for _, open := range []*openIngest{nil, {Run: 0, Key: "com,a)/", Walk: [32]byte{7}}} {
		r.Open = open
		b, back := encodeDecodeRoot(t, r)
		if !slices.Equal(back.Parts, r.Parts) || len(back.Runs) != 1 || back.Runs[0][0] != r.Runs[0][0] || !reflect.DeepEqual(back.Open, open) || back.Files != nil {
			t.Fatalf("root does not round-trip: %+v", back)
		}
		for i := len(rootMagic); i < len(b); i++ {
			if _, err := decodeRoot(b[:i]); err == nil {
				t.Errorf("payload cut at %d decoded without error", i)
			}
		}
	}
	// A large table round-trips; the root stays small whatever its size.
	var many []InputFile
	for i := range 1000 {
		many = append(many, InputFile{Name: fmt.Sprintf("crawl-2022%06d.warc.gz", i*37), Size: int64(1e9 + i*1000), SHA256: pack.Sum([]byte{byte(i), byte(i >> 8)}), Records: 5000})
	}
	back, err := decodeFilePart(encodeFilePart(many), len(many))
	if err != nil || !slices.Equal(back, many) {
		t.Fatalf("large table does not round-trip: %v", err)
	}
	big := &root{Files: many, loaded: true, Parts: []filePart{{Rows: len(many), ID: pack.Sum([]byte("p"))}}, Runs: r.Runs}
	if bb, err := big.encode(); err != nil || len(bb) > 200 {
		t.Errorf("root of a 1,000-file table: %d bytes, %v", len(bb), err)
	}
}

// FuzzSegment feeds arbitrary bytes to the segment decoders: they never
// panic, and what decodes re-encodes to a segment that decodes the same.
func FuzzSegment(f *testing.F) {
	id := pack.Sum([]byte{1})
	seed, _ := encodeSegment([]URLVersions{{Key: "com,example)/", Versions: []Version{
		{File: "a.warc", Type: "response", RecordID: "<urn:uuid:5105b4a8-1e2c-4f0e-9d6b-0a1b2c3d4e5f>", Mode: modeHTTP, Form: formBlocks, Layout: id, Blocks: []pack.ID{id, id}, CRC: 9},
		{File: "b.warc", Type: "request", Mode: modeRaw, Record: id, RecordID: "x"},
		{File: "b.warc", Type: "metadata", Mode: modeInline, WARCHeader: []byte("h"), inline: []byte("log")},
		{File: "b.warc", Type: "response", Mode: modeHTTP, Form: formBlocks, Layout: id, Blocks: []pack.ID{id}, Framing: []byte{1}, Coding: []byte{1, 4, 3, 13, 22, 0}},
	}}}, func(pack.ID) (bool, error) { return true, nil })
	f.Add(seed)
	// Objects named by place (version 9), going back and forth.
	p := pack.PlaceID
	placed, _ := encodeSegment([]URLVersions{{Key: "com,example)/", Versions: []Version{
		{File: "a.warc", Type: "response", Mode: modeHTTP, Form: formBlocks, WARCAnchor: p(1), HTTPAnchor: p(2), Layout: p(9), Blocks: []pack.ID{p(4), p(7), p(4)}, CRC: 9},
		{File: "a.warc", Type: "request", Mode: modeRaw, Record: p(1 << 33)},
	}}, {Key: "org,example)/", Versions: []Version{{File: "a.warc", Type: "request", Mode: modeRaw, Record: p(3)}}}}, nil)
	f.Add(placed)
	// Any short reference resolves, to an id derived from it.
	resolve := func(p []byte) (pack.ID, error) { return pack.Sum(p), nil }
	f.Fuzz(func(t *testing.T, b []byte) {
		findInSegment(b, "com,example)/", resolve)
		urls, err := decodeSegment(b, resolve)
		if err != nil {
			return
		}
		enc, err := encodeSegment(urls, nil)
		if err != nil {
			t.Fatal(err)
		}
		again, err := decodeSegment(enc, resolve)
		if err != nil {
			t.Fatalf("re-encoded segment does not decode: %v", err)
		}
		if enc2, _ := encodeSegment(again, nil); !bytes.Equal(enc2, enc) {
			t.Fatal("re-encoding is not stable")
		}
	})
}

// FuzzFilePart feeds arbitrary bytes to the input-file part and root
// decoders: they never panic, and a part that decodes re-encodes to the
// same rows.
func FuzzFilePart(f *testing.F) {
	f.Add(encodeFilePart([]InputFile{
		{Name: "a.warc.gz", Size: 50, StreamLen: 10, Rebuildable: true, OriginalWhy: originalExact, Original: &Original{
			Headers: []memberHeader{{Bytes: make([]byte, 24), SL: true, slAt: 16}},
			Runs:    []memberRun{{Count: 2, P: zlibenc.Params{Level: 6, MemLevel: 8}}}, PerPiece: true}},
		{Name: "b.warc.gz", Size: 9, StreamLen: 4, Rebuildable: true, OriginalWhy: originalExact, Original: &Original{
			Headers: []memberHeader{{Bytes: make([]byte, 10), slAt: -1}},
			Runs:    []memberRun{{Count: 2, P: zlibenc.Params{Level: 9, MemLevel: 8}}}, Lens: []int64{3, 1}}},
	}))
	f.Fuzz(func(t *testing.T, b []byte) {
		decodeRoot(append([]byte(rootMagic+"\x08"), b...))
		for _, n := range []int{1, 2} {
			rows, err := decodeFilePart(b, n)
			if err != nil {
				continue
			}
			again, err := decodeFilePart(encodeFilePart(rows), n)
			if err != nil || !reflect.DeepEqual(again, rows) {
				t.Fatalf("re-encoded part: %v", err)
			}
		}
	})
}

// TestStorage ingests one record of each storage case and checks what
// Version.Storage says about it after a round trip through the catalog.
func TestStorage(t *testing.T) {
	dir := t.TempDir()
	arch := filepath.Join(dir, "a.bwa")
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(fmt.Sprintf(page, "zipped")))
	zw.Close()
	resp := func(status, ctype, extra string, body []byte) []byte {
		return append([]byte(fmt.Sprintf("HTTP/1.1 %s\r\nContent-Type: %s\r\n%sContent-Length: %d\r\n\r\n", status, ctype, extra, len(body))), body...)
	}
	want := map[string][2]string{ // target URI → how, why
		"http://a.example/html":  {"blocks", ""},
		"http://a.example/404":   {"payload", "not-200"},
		"http://a.example/png":   {"payload", "not-html"},
		"http://a.example/empty": {"payload", "empty"},
		"http://a.example/gzip":  {"blocks", "content-encoding"},  // Go-made: re-encoded on restore
		"http://a.example/zgzip": {"payload", "content-encoding"}, // no Go encoder reproduces it
		"http://a.example/req":   {"payload", "request"},
		"http://a.example/bad":   {"inline", "http-unparseable"},
		"http://a.example/info":  {"inline", "not-http"},
		"http://a.example/log":   {"block", "not-http"}, // over maxInline
	}
	f := filepath.Join(dir, "in.warc")
	writeFile(t, f,
		warcRecord("response", "http://a.example/html", t0, 1, resp("200 OK", "text/html", "", []byte(fmt.Sprintf(page, "x")))),
		warcRecord("response", "http://a.example/404", t0, 2, resp("404 Not Found", "text/html", "", []byte("<p>gone</p>"))),
		warcRecord("response", "http://a.example/png", t0, 3, resp("200 OK", "image/png", "", []byte("\x89PNG...."))),
		warcRecord("response", "http://a.example/empty", t0, 4, resp("200 OK", "text/html", "", nil)),
		warcRecord("response", "http://a.example/gzip", t0, 5, resp("200 OK", "text/html", "Content-Encoding: gzip\r\n", gz.Bytes())),
		warcRecord("response", "http://a.example/zgzip", t0, 10, resp("200 OK", "text/html", "Content-Encoding: gzip\r\n", storedGzip([]byte(fmt.Sprintf(page, "stored"))))),
		warcRecord("request", "http://a.example/req", t0, 6, []byte("GET /req HTTP/1.1\r\nHost: a.example\r\n\r\n")),
		warcRecord("response", "http://a.example/bad", t0, 7, []byte("not an HTTP message at all")),
		warcRecord("resource", "http://a.example/info", t0, 8, []byte("log line\n")),
		warcRecord("resource", "http://a.example/log", t0, 9, bytes.Repeat([]byte("a longer log line\n"), 200)),
	)
	if _, err := Ingest(context.Background(), arch, []string{f}, testOpts()); err != nil {
		t.Fatal(err)
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if n := checkRoundTrip(t, a); n != len(want) {
		t.Fatalf("restored %d records, want %d", n, len(want))
	}
	seen := 0
	err = a.WalkOrdered(func(u URLVersions) error {
		for i := range u.Versions {
			v := &u.Versions[i]
			st := v.Storage()
			how, why := st.How.String(), st.Why.String()
			if w, ok := want[v.TargetURI]; !ok || w != [2]string{how, why} {
				t.Errorf("%s: Storage() = %q, %q, want %q", v.TargetURI, how, why, w)
			}
			seen++
		}
		return nil
	})
	if err != nil || seen != len(want) {
		t.Fatalf("walked %d records (%v), want %d", seen, err, len(want))
	}
	fs := a.Files()
	if len(fs) != 1 || fs[0].Name != "in.warc" {
		t.Fatalf("input files %+v", fs)
	}
}

// TestReadOldCatalogs opens an archive written by each earlier catalog
// version (testdata/vN.bwa: two ingests of three sample dumps by the
// blockwarc of that version, see testdata/README.md) and restores and
// verifies every record of it byte for byte; what a version did not
// record reads as unknown.
func TestReadOldCatalogs(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for ver := oldestCatalog; ver <= catalogVersion; ver++ {
		if ver == 7 {
			continue // v7.bwa holds an open ingest: TestReadOpenIngest
		}
		t.Run(fmt.Sprintf("v%d", ver), func(t *testing.T) {
			a, err := Open(filepath.Join("testdata", fmt.Sprintf("v%d.bwa", ver)), pack.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if got := catalogVersionOf(t, a); got != ver {
				t.Fatalf("testdata archive has catalog version %d, want %d", got, ver)
			}
			fs := a.Files()
			if len(fs) != 3 {
				t.Fatalf("input files %+v, want 3", fs)
			}
			for _, f := range fs {
				if f.Size == 0 || (f.Records == -1) != (ver < 3) || (f.StreamLen == -1) != (ver < 5) {
					t.Errorf("version %d input file %+v: counts known from version 3, streams from 5", ver, f)
				}
				if (f.OriginalWhy == originalUnknown) != (ver < 6) || ver >= 6 && !f.OriginalExact() {
					t.Errorf("version %d input file %s: original %q; wgets' gzip files restore bit-exact from version 6", ver, f.Name, f.OriginalReason())
				}
			}
			unknown := 0
			n := restoreAll(t, a, root, func(v *Version) {
				if st := v.Storage(); st.How == StoredPayload && st.Why == WhyUnknown {
					unknown++
				}
			})
			// Version 2 did not record why a payload is whole.
			if n != 24 || (unknown > 0) != (ver == 2) {
				t.Fatalf("restored %d records (%d whole payloads of unknown reason), want 24", n, unknown)
			}
			vs, err := a.Verify(func(p Problem) { t.Errorf("verify: %v", p) })
			if err != nil || vs.Records != 24 {
				t.Fatalf("verify: %+v, %v", vs, err)
			}
			// Run dates from version 10; Find answers alike either way.
			oldRuns := 0
			if ver < 10 {
				oldRuns = len(a.root.Runs)
			}
			checkFindOld(t, a, oldRuns)
		})
	}
}

// catalogVersionOf reads the catalog version of a's last commit.
func catalogVersionOf(t *testing.T, a *Archive) int {
	t.Helper()
	b := a.store.Payload()
	if len(b) < 5 || string(b[:4]) != rootMagic {
		t.Fatalf("commit payload %x: no root magic", b[:min(len(b), 8)])
	}
	v, n := binary.Uvarint(b[4:])
	if n <= 0 {
		t.Fatal("commit payload: no version")
	}
	return int(v)
}

// TestExtendOldCatalogs ingests one more dump into a copy of each
// testdata/vN.bwa: the new run is written in the current version next to
// the old ones, and every record of both restores and verifies.
func TestExtendOldCatalogs(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for ver := oldestCatalog; ver <= catalogVersion; ver++ {
		if ver == 7 {
			continue // v7.bwa holds an open ingest: TestReadOpenIngest
		}
		t.Run(fmt.Sprintf("v%d", ver), func(t *testing.T) {
			arch := filepath.Join(t.TempDir(), "old.bwa")
			if err := os.CopyFS(arch, os.DirFS(filepath.Join("testdata", fmt.Sprintf("v%d.bwa", ver)))); err != nil {
				t.Fatal(err)
			}
			in := filepath.Join(root, "testdata", "samples", "ota-lovescout24-20220425123217.warc.gz")
			st, err := Ingest(context.Background(), arch, []string{in}, testOpts())
			if err != nil {
				t.Fatal(err)
			}
			// Every URL's anchors read, whatever names them (hashes, places).
			if st.HistoryUnread != 0 {
				t.Errorf("%d URLs' history taken for lost", st.HistoryUnread)
			}
			a, err := Open(arch, pack.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if got := catalogVersionOf(t, a); got != catalogVersion {
				t.Errorf("extended archive's catalog version %d, want %d", got, catalogVersion)
			}
			fs := a.Files()
			if len(fs) != 4 || fs[3].Records != st.Records || fs[3].Records == 0 || (fs[0].Records == -1) != (ver < 3) || fs[3].StreamLen <= 0 {
				t.Fatalf("input files %+v after extending (ingest read %d records)", fs, st.Records)
			}
			inline := 0
			n := restoreAll(t, a, root, func(v *Version) {
				if v.Storage().How == StoredInline {
					inline++
				}
			})
			if n != 32 || inline == 0 {
				t.Fatalf("restored %d records (%d inline), want 32 with inline ones from the new run", n, inline)
			}
			if vs, err := a.Verify(func(p Problem) { t.Errorf("verify: %v", p) }); err != nil || vs.Records != 32 {
				t.Fatalf("verify: %+v, %v", vs, err)
			}
			// The new run's dates are known, the older version's runs'
			// not; Find answers alike either way.
			oldRuns := 0
			if ver < 10 {
				oldRuns = len(a.root.Runs) - 1
			}
			checkFindOld(t, a, oldRuns)
		})
	}
}

// TestGapVersionCatalog: a gap round-trips (catalog version 5), is
// refused in an older segment version, and only as mode raw.
func TestGapVersionCatalog(t *testing.T) {
	gap := Version{File: "a.warc", Offset: 10, Length: 3, Gap: true, Mode: modeRaw, Record: pack.Sum([]byte("\r\n\n")), CRC: 7}
	urls := []URLVersions{{Key: "", Versions: []Version{gap}}}
	b, err := encodeSegment(urls, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeSegment(b, nil)
	if err != nil || len(got) != 1 || len(got[0].Versions) != 1 || !got[0].Versions[0].Gap || got[0].Versions[0].Record != gap.Record {
		t.Fatalf("gap does not round-trip: %+v, %v", got, err)
	}
	if st := got[0].Versions[0].Storage(); st.How.String() != "gap" || st.Why.String() != "between-records" {
		t.Errorf("Storage() = %v", st)
	}
	old := bytes.Clone(b)
	old[4] = 4
	if _, err := decodeSegment(old, nil); err == nil {
		t.Error("a gap decoded as catalog version 4")
	}
	bad := gap
	bad.Mode, bad.Block, bad.Record = modeBlock, gap.Record, pack.ID{}
	b, err = encodeSegment([]URLVersions{{Key: "", Versions: []Version{bad}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeSegment(b, nil); err == nil {
		t.Error("a gap of mode block decoded")
	}
}

// TestCatalogFormats checks that every catalog version from the oldest to
// the current one has a complete entry in catalogFormats, and no other.
func TestCatalogFormats(t *testing.T) {
	if len(catalogFormats) != newestCatalog-oldestCatalog+1 {
		t.Errorf("%d formats, want versions %d to %d", len(catalogFormats), oldestCatalog, newestCatalog)
	}
	for ver := uint64(oldestCatalog); ver <= newestCatalog; ver++ {
		f := catalogFormats[ver]
		if f == nil || f.fileRow == nil || f.version == nil || f.flags&flagDated == 0 {
			t.Errorf("catalog version %d: format %+v incomplete", ver, f)
		}
	}
}

// restoreAll restores every version of a in catalog order, compares it
// with its input record (relative input names are under root), calls
// each with it, and returns how many versions it read.
func restoreAll(t *testing.T, a *Archive, root string, each func(*Version)) int {
	t.Helper()
	n := 0
	err := a.WalkOrdered(func(u URLVersions) error {
		for i := range u.Versions {
			v := &u.Versions[i]
			n++
			each(v)
			p, err := a.Restore(v)
			if err != nil {
				t.Errorf("%s at %d: %v", v.File, v.Offset, err)
				continue
			}
			rec := p.Record()
			file := v.File
			if !filepath.IsAbs(file) {
				file = filepath.Join(root, file)
			}
			if orig, err := original(file, v.Offset, v.Skip, len(rec)); err != nil || !bytes.Equal(orig, rec) {
				t.Errorf("%s at %d: restored record differs from the input (%v)", v.File, v.Offset, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
