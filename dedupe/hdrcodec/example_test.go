package hdrcodec_test

import (
	"fmt"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/hdrcodec"
)

func Example() {
	block := []byte("HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello")
	prev := []byte("WARC/1.0\r\nWARC-Type: response\r\nWARC-Date: 2014-10-21T09:05:13Z\r\nContent-Length: 40\r\n\r\n")
	raw := []byte("WARC/1.0\r\nWARC-Type: response\r\nWARC-Date: 2014-10-29T09:05:13Z\r\nContent-Length: 43\r\n\r\n")

	// What the caller knows again at restore time: the block (restored
	// first) and the capture time from its index.
	ctx := hdrcodec.ForBlock(block, 38)
	ctx.Date = time.Date(2014, 10, 29, 9, 5, 13, 0, time.UTC)

	enc := hdrcodec.Encode(nil, raw, prev, ctx)
	got, err := hdrcodec.Decode(nil, enc, prev, ctx)
	fmt.Println("exact:", err == nil && string(got) == string(raw), "- under a quarter of the size:", 4*len(enc) < len(raw))
	// Output: exact: true - under a quarter of the size: true
}
