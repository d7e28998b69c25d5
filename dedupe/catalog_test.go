package dedupe

import (
	"bytes"
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
		b := appendRecordID(nil, id)
		d := &dec{b: b}
		if got := d.recordID(); got != id || d.err != nil || len(d.b) != 0 {
			t.Errorf("%q came back as %q (%v)", id, got, d.err)
		}
	}
	if n := len(appendRecordID(nil, "<urn:uuid:5105b4a8-1e2c-4f0e-9d6b-0a1b2c3d4e5f>")); n != 17 {
		t.Errorf("uuid record id takes %d bytes, want 17", n)
	}
}

func TestSegmentRoundTrip(t *testing.T) {
	id := func(b byte) pack.ID { return pack.Sum([]byte{b}) }
	urls := []URLVersions{
		{Key: "", Versions: []Version{{File: "a.warc", Type: "warcinfo", Mode: modeBlock, WARCHeader: []byte("h"), Block: id(1), CRC: 7}}},
		{Key: "com,example)/", Versions: []Version{
			{File: "a.warc", Offset: 10, Date: time.Unix(5, 6).UTC(), Type: "response", RecordID: "<urn:uuid:5105b4a8-1e2c-4f0e-9d6b-0a1b2c3d4e5f>",
				Mode: modeHTTP, Form: formBlocks, Layout: id(2), Blocks: []pack.ID{id(3), id(4), id(3)}, Framing: []byte{1, 2}, Level: 3, BlockDigestOK: true},
			{File: "b.warc", Offset: 20, Type: "response", Mode: modeHTTP, Form: formWhole, Payload: id(3), Trailer: []byte("\r\n\r\n"), PayloadDigestOK: true},
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
	if err != nil || len(vs) != 3 || vs[0].Blocks[2] != id(3) || vs[1].Payload != id(3) || vs[2].Record != id(9) {
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
