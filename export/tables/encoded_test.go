package tables

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// TestBuildContentCoded: a gzip page the archive keeps as the blocks of
// its decoded document (re-encoded on restore) gets the same rows as a
// plain page: re-partitioned decoded, its blocks are the archive's
// objects (no mismatch), with title and text; stored_why says
// content-encoding.
func TestBuildContentCoded(t *testing.T) {
	dir := t.TempDir()
	var recs []byte
	for i, word := range []string{"first", "second"} {
		doc := fmt.Sprintf(`<html><head><title>Coded page</title></head><body><div id="nav"><a href="/">home</a></div>
<div id="main"><h1>Heading</h1><p>A paragraph long enough to be a block of its own, %s version.</p></div>
<div id="foot">copyright</div></body></html>`, word)
		var gz bytes.Buffer
		w, _ := gzip.NewWriterLevel(&gz, 6)
		w.Write([]byte(doc))
		w.Close()
		http := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n", gz.Len())
		block := append([]byte(http), gz.Bytes()...)
		recs = fmt.Appendf(recs, "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://coded.example/\r\nWARC-Date: 2022-01-0%dT00:00:00Z\r\n"+
			"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-00000000000%d>\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n",
			i+1, i+1, len(block), block)
	}
	in := filepath.Join(dir, "coded.warc")
	if err := os.WriteFile(in, recs, 0o644); err != nil {
		t.Fatal(err)
	}
	a := ingest(t, filepath.Join(dir, "a.bwa"), []string{in})
	r, st := build(t, a, Options{})
	checkTables(t, a, r, st)
	if len(r.caps) != 2 {
		t.Fatalf("%d captures", len(r.caps))
	}
	for _, c := range r.caps {
		if c.StoredAs != "blocks" || c.StoredWhy == nil || *c.StoredWhy != "content-encoding" {
			t.Errorf("v%d stored as %s (%v), want blocks re-encoded", c.Version, c.StoredAs, deref(c.StoredWhy))
		}
		if c.BlocksTotal == 0 || c.Title == nil || *c.Title != "Coded page" || c.LayoutID == nil {
			t.Errorf("v%d: %d blocks, title %v", c.Version, c.BlocksTotal, deref(c.Title))
		}
	}
	if r.caps[1].BlocksUnchanged == 0 {
		t.Error("the second capture shares no block with the first")
	}
}
