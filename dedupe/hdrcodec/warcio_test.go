package hdrcodec

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/warcio"
)

// TestRoundTripWarcio round-trips every header block warcio's reader finds
// in the interop samples, ARC, LZ4 and broken files included (the
// test-only splitter reads only WARC, gzip and bzip2): each record's stored
// header (ARC: its URL-record line) and HTTP header, against the previous
// one of the same type and URI and against none.
func TestRoundTripWarcio(t *testing.T) {
	dir := sharedtest.Interop(t)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var blocks int
	for _, e := range ents {
		if e.Name() == "SOURCES.md" {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		prevWARC := map[string][]byte{}
		prevHTTP := map[string][]byte{}
		r := warcio.NewReader(f, e.Name())
		for {
			rec, err := r.Next()
			if err != nil {
				break // io.EOF or a malformed file: what was read is tested
			}
			block, _ := io.ReadAll(rec.Body)
			key := rec.Type + "\x00" + rec.TargetURI
			ctx := ForBlock(block, -1)
			ctx.URL, ctx.Date = rec.TargetURI, rec.Date
			roundTrip(t, e.Name()+" header", rec.RawHeader, prevWARC[key], ctx)
			prevWARC[key] = bytes.Clone(rec.RawHeader)
			blocks++
			if rec.Type != "request" && rec.Type != "response" {
				continue
			}
			msg, err := warcio.ReadHTTP(bytes.NewReader(block), 0)
			if err != nil {
				continue
			}
			ctx = ForBlock(block, len(msg.Raw))
			roundTrip(t, e.Name()+" HTTP header", msg.Raw, prevHTTP[key], ctx)
			roundTrip(t, e.Name()+" HTTP header alone", msg.Raw, nil, Unknown())
			prevHTTP[key] = bytes.Clone(msg.Raw)
			blocks++
		}
		f.Close()
	}
	if blocks < 1000 {
		t.Errorf("warcio found only %d header blocks in %s", blocks, dir)
	}
}
