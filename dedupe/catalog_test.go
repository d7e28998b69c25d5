package dedupe

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"blockwarc/dedupe/pack"
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

func TestSegmentRoundTrip(t *testing.T) {
	id := func(b byte) pack.ID { return pack.Sum([]byte{b}) }
	urls := []URLVersions{
		{Key: "", Versions: []Version{{File: "a.warc", Type: "warcinfo", Mode: modeBlock, WARCHeader: []byte("h"), Block: id(1), CRC: 7}}},
		{Key: "com,example)/", Versions: []Version{
			{File: "a.warc", Offset: 10, Date: time.Unix(5, 6).UTC(), Type: "response", TargetURI: "http://example.com/", RecordID: "<urn:uuid:5105b4a8-1e2c-4f0e-9d6b-0a1b2c3d4e5f>",
				Mode: modeHTTP, Form: formBlocks, Layout: id(2), Blocks: []pack.ID{id(3), id(4), id(3)}, Framing: []byte{1, 2}, Level: 3, BlockDigestOK: true},
			{File: "b.warc", Offset: 20, Type: "response", TargetURI: "http://example.com/", Mode: modeHTTP, Form: formWhole, Payload: id(3), Trailer: []byte("\r\n\r\n"), PayloadDigestOK: true},
			{File: "b.warc", Offset: 30, Type: "request", Mode: modeRaw, Record: id(9)},
		}},
	}
	b := encodeSegment(urls)
	got, err := decodeSegment(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(encodeSegment(got), b) {
		t.Fatalf("segment does not round-trip:\n%+v\n%+v", urls, got)
	}
	vs, err := findInSegment(b, "com,example)/")
	if err != nil || len(vs) != 3 || vs[0].Blocks[2] != id(3) || vs[1].Payload != id(3) || vs[2].Record != id(9) ||
		vs[1].TargetURI != "http://example.com/" || vs[2].TargetURI != "" {
		t.Errorf("findInSegment: %+v, %v", vs, err)
	}
	if vs, err := findInSegment(b, "com,example)/zz"); err != nil || vs != nil {
		t.Errorf("absent key: %v, %v", vs, err)
	}
	// Truncations never panic and are reported.
	for i := range b {
		if _, err := decodeSegment(b[:i]); err == nil {
			t.Errorf("segment cut at %d decoded without error", i)
		}
	}
}

// TestRootRoundTrip checks the commit payload, whose input-file names are
// front-coded, including names that share nothing, share all of the
// previous one, or are empty, and that truncations are reported.
func TestRootRoundTrip(t *testing.T) {
	r := &root{
		Files: []InputFile{
			{Name: "ota-tinder-20211231135713.warc.gz", Size: 123456, SHA256: [32]byte{1}},
			{Name: "ota-tinder-20220108063013.warc.gz", Size: 7, SHA256: [32]byte{2}},
			{Name: "ota-tinder-20220108063013.warc.gz.1", Size: 0},
			{Name: "ota-tinder", Size: 1},
			{Name: "", Size: 2},
			{Name: "zzz", Size: 3},
		},
		Runs: [][]segRef{{{First: "", Last: "com,a)/", ID: pack.Sum([]byte("s"))}}},
	}
	b := r.encode()
	got, err := decodeRoot(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Files) != len(r.Files) || len(got.Runs) != 1 || got.Runs[0][0] != r.Runs[0][0] {
		t.Fatalf("root does not round-trip: %+v", got)
	}
	for i := range r.Files {
		if got.Files[i] != r.Files[i] {
			t.Errorf("file %d: got %+v, want %+v", i, got.Files[i], r.Files[i])
		}
	}
	// A row repeating the previous name costs prefix, empty suffix, size
	// and digest: 1 + 1 + 1 + 32 bytes, whatever the name's length.
	r2 := &root{Files: append(slices.Clone(r.Files[:2]), InputFile{Name: r.Files[1].Name, Size: 1}), Runs: r.Runs}
	r1 := &root{Files: r.Files[:2], Runs: r.Runs}
	if d := len(r2.encode()) - len(r1.encode()); d != 35 {
		t.Errorf("a row repeating the previous name costs %d bytes, want 35 (names not front-coded?)", d)
	}
	for i := len(rootMagic); i < len(b); i++ {
		if _, err := decodeRoot(b[:i]); err == nil {
			t.Errorf("payload cut at %d decoded without error", i)
		}
	}
	// A prefix longer than the previous name is refused.
	bad := append([]byte(rootMagic), catalogVersion, 1, 5, 1, 'x', 0)
	bad = append(bad, make([]byte, 32)...)
	bad = append(bad, 0)
	if _, err := decodeRoot(bad); err == nil {
		t.Error("a file name prefix longer than the previous name was accepted")
	}
}

// FuzzSegment feeds arbitrary bytes to the segment decoders: they never
// panic, and what decodes re-encodes to a segment that decodes the same.
func FuzzSegment(f *testing.F) {
	id := pack.Sum([]byte{1})
	f.Add(encodeSegment([]URLVersions{{Key: "com,example)/", Versions: []Version{
		{File: "a.warc", Type: "response", RecordID: "<urn:uuid:5105b4a8-1e2c-4f0e-9d6b-0a1b2c3d4e5f>", Mode: modeHTTP, Form: formBlocks, Layout: id, Blocks: []pack.ID{id, id}, CRC: 9},
		{File: "b.warc", Type: "request", Mode: modeRaw, Record: id, RecordID: "x"},
	}}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		findInSegment(b, "com,example)/")
		urls, err := decodeSegment(b)
		if err != nil {
			return
		}
		again, err := decodeSegment(encodeSegment(urls))
		if err != nil {
			t.Fatalf("re-encoded segment does not decode: %v", err)
		}
		if !bytes.Equal(encodeSegment(again), encodeSegment(urls)) {
			t.Fatal("re-encoding is not stable")
		}
	})
}
