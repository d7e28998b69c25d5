package warcio

import (
	"testing"
	"time"
)

// FuzzDecodeMeta feeds arbitrary bytes to the run-file header decoder: it
// must fail cleanly, never panic or allocate without bound, and whatever it
// accepts must encode back to the same bytes.
func FuzzDecodeMeta(f *testing.F) {
	rec := &Record{File: "a.warc", Format: FormatWARC, Offset: 10, Type: "response",
		TargetURI: "http://x/", Date: time.Unix(1600000000, 5).UTC(),
		Header: Header{{Name: "A", Value: "b", Raw: []byte("A: b\r\n")}}, RawHeader: []byte("WARC/1.0\r\n\r\n")}
	f.Add(appendMeta(nil, &item{rec: rec, key: "x)/", bodyLen: 3}))
	f.Add([]byte{metaVersion})
	f.Fuzz(func(t *testing.T, b []byte) {
		it, err := decodeMeta(b)
		if err != nil {
			return
		}
		again := appendMeta(nil, it)
		it2, err := decodeMeta(again)
		if err != nil {
			t.Fatalf("re-encoded header does not decode: %v", err)
		}
		if string(appendMeta(nil, it2)) != string(again) {
			t.Fatal("header encoding is not stable")
		}
	})
}
