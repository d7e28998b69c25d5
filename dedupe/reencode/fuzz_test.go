package reencode

import (
	"bytes"
	"testing"
)

// FuzzParams: UnmarshalBinary never panics, and what it accepts
// marshals back to the same bytes (one meaning per blob).
func FuzzParams(f *testing.F) {
	for _, p := range goldenSettings() {
		b, _ := p.MarshalBinary()
		f.Add(b)
	}
	gz, _ := Params{Codec: CodecGzip, Impl: ImplStdlib, Level: 6, Header: []byte{0x1f, 0x8b, 8, 0x1e, 0, 0, 0, 0, 0, 255, 2, 0, 'x', 'y', 'a', 0, 'c', 0, 0xaa, 0xbb}}.MarshalBinary()
	f.Add(gz)
	f.Fuzz(func(t *testing.T, b []byte) {
		var p Params
		if err := p.UnmarshalBinary(b); err != nil {
			return
		}
		got, err := p.MarshalBinary()
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("accepted %x, marshals to %x, %v", b, got, err)
		}
		var q Params
		if err := q.UnmarshalBinary(got); err != nil || q.String() != p.String() || !bytes.Equal(q.Header, p.Header) {
			t.Fatalf("round trip: %s vs %s, %v", p, q, err)
		}
	})
}

// FuzzFind: Find never panics on any bytes under any coding, and
// whenever it says ok, Encode reproduces the input exactly. The seeds
// are small encodings made by every family (so the fuzzer mutates
// streams that do decode) and a zlib-made gzip.
func FuzzFind(f *testing.F) {
	doc := []byte("<html><head><title>t</title></head><body><p>hello hello hello world</p></body></html>")
	for _, p := range goldenSettings() {
		if enc, err := Encode(nil, p, doc); err == nil {
			f.Add(codingOf(p), enc)
		}
	}
	for _, h := range [][]byte{{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}, {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 255}} {
		p := Params{Codec: CodecGzip, Impl: ImplStdlib, Level: 6, Header: h}
		if h[8] == 2 {
			p.Level = 9
		}
		enc, _ := Encode(nil, p, doc)
		f.Add("gzip", enc)
	}
	z, _ := Encode(nil, Params{Codec: CodecZlib, Impl: ImplKlauspost, Level: 6, Header: []byte{0x78, 0x9c}}, doc)
	f.Add("deflate", z)
	f.Add("gzip", []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, coding string, b []byte) {
		dec, p, ok, why := Find(coding, b, Limits{MaxDecoded: 64 << 10})
		if !ok {
			if why == "" {
				t.Fatal("refused without a reason")
			}
			return
		}
		got, err := Encode(nil, p, dec)
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("Find says %s reproduces %x; Encode gives %x, %v", p, b, got, err)
		}
		blob, err := p.MarshalBinary()
		if err != nil {
			t.Fatalf("Find returned params that do not marshal: %s: %v", p, err)
		}
		var q Params
		if err := q.UnmarshalBinary(blob); err != nil {
			t.Fatal(err)
		}
	})
}
