package hdrcodec

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current encoder")

// goldenCases pin format v1: archives written today must decode the same
// way forever, so a change to the op layout or to the name and label
// tables shows up here as a diff of stored encodings.
var goldenCases = []struct{ name, raw, prev string }{
	{"warc-response-first",
		"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:51b2b512-2059-48c7-88a1-a9da09d793d9>\r\n" +
			"WARC-Warcinfo-ID: <urn:uuid:f2bed61a-f38d-4ed0-a5c2-942459d4a780>\r\nWARC-Target-URI: <http://example.com/>\r\n" +
			"WARC-Date: 2014-10-29T09:05:13Z\r\nWARC-Block-Digest: sha1:{BLOCKSHA1}\r\nWARC-Payload-Digest: sha256:{PAYLOADSHA256}\r\n" +
			"Content-Type: application/http;msgtype=response\r\nContent-Length: {BLOCKLEN}\r\n\r\n", ""},
	{"warc-response-next",
		"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:0cf52e31-5bdc-4fd9-8051-46128461cbd8>\r\n" +
			"WARC-Target-URI: <http://example.com/>\r\nWARC-Date: 2014-10-29T09:05:13.5Z\r\nX-New: v\r\nContent-Length: {BLOCKLEN}\r\n\r\n",
		"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:51b2b512-2059-48c7-88a1-a9da09d793d9>\r\n" +
			"WARC-Target-URI: <http://example.com/>\r\nWARC-Date: 2014-10-21T09:05:13Z\r\nContent-Length: 99\r\n\r\n"},
	{"http-response",
		"HTTP/1.0 404 Not Found\r\nServer: SimpleHTTP/0.6 Python/3.11.7\r\nDate: Wed, 29 Oct 2014 09:05:14 GMT\r\n" +
			"Content-Length: {PAYLOADLEN}\r\nLast-Modified: Tue, 21 Oct 2014 10:00:00 GMT\r\nDigest: SHA-256={PAYLOADB64}\r\n\r\n",
		"HTTP/1.0 200 OK\r\nServer: SimpleHTTP/0.6 Python/3.11.7\r\nDate: Tue, 21 Oct 2014 09:05:14 GMT\r\n" +
			"Content-Length: 12\r\nLast-Modified: Tue, 21 Oct 2014 10:00:00 GMT\r\n\r\n"},
	{"odd-lines",
		"GET /a HTTP/1.1\nHost: example.com\r\nFold: a\n b\nX:y\nRFC850: Wednesday, 29-Oct-14 09:05:14 GMT\nANSI: Wed Oct 29 09:05:14 2014\nARC: 20141029090514\nURN: urn:uuid:F2BED61A-F38D-4ED0-A5C2-942459D4A780\n\n",
		"GET /b HTTP/1.1\nHost: example.com\n\n"},
	{"no-final-newline", "WARC/1.0\r\nWARC-Type: resource", "WARC/1.0\r\nWARC-Type: resource\r\n\r\n"},
}

func goldenContext() (Context, map[string]string) {
	block := []byte("HTTP/1.0 200 OK\r\n\r\nhello")
	ctx := ForBlock(block, 19)
	ctx.Date = time.Date(2014, 10, 29, 9, 5, 13, 0, time.UTC)
	ctx.URL = "http://example.com/"
	vars := map[string]string{
		"{BLOCKSHA1}":     string(formatDigest(nil, encB32, ctx.Block.get(algSHA1))),
		"{PAYLOADSHA256}": string(formatDigest(nil, encHexLower, ctx.Payload.get(algSHA256))),
		"{PAYLOADB64}":    string(formatDigest(nil, encB64, ctx.Payload.get(algSHA256))),
		"{BLOCKLEN}":      "24",
		"{PAYLOADLEN}":    "5",
	}
	return ctx, vars
}

func TestGolden(t *testing.T) {
	ctx, vars := goldenContext()
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			raw := tc.raw
			for k, v := range vars {
				raw = string(bytes.ReplaceAll([]byte(raw), []byte(k), []byte(v)))
			}
			prev := []byte(tc.prev)
			path := filepath.Join("testdata", "golden", tc.name+".enc")
			enc := Encode(nil, []byte(raw), prev, ctx)
			if enc[0] != kindStructured {
				t.Fatalf("golden case stored literally")
			}
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, enc, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			// Old encodings must keep decoding to the same bytes...
			got, err := Decode(nil, want, prev, ctx)
			if err != nil || string(got) != raw {
				t.Errorf("stored encoding decodes to %q, %v; want %q", got, err, raw)
			}
			// ...and the encoder should not drift without a new version.
			if !bytes.Equal(enc, want) {
				t.Errorf("encoding changed:\n got %q\nwant %q", enc, want)
			}
		})
	}
}
