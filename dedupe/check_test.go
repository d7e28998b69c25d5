package dedupe

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/pack"
)

// restoreCompare is the check restoresTo stands for: restore, then
// compare.
func restoreCompare(v *Version, get getter, rawHeader, block []byte) bool {
	got, err := restore(v, get)
	return err == nil && bytes.Equal(got.WARCHeader, rawHeader) && bytes.Equal(got.Block, block)
}

// TestRestoresToIsRestore: on every record an ingest checks (each
// storage case, the sample crawls), and on the same record with its
// header, block, trailer or CRC spoilt, restoresTo answers as restore
// followed by the comparison it replaces.
func TestRestoresToIsRestore(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(fmt.Sprintf(page, "zipped")))
	zw.Close()
	resp := func(status, ctype, extra string, body []byte) []byte {
		return append([]byte(fmt.Sprintf("HTTP/1.1 %s\r\nContent-Type: %s\r\n%sContent-Length: %d\r\n\r\n", status, ctype, extra, len(body))), body...)
	}
	f := filepath.Join(dir, "in.warc")
	writeFile(t, f,
		warcRecord("response", "http://a.example/html", t0, 1, resp("200 OK", "text/html", "", []byte(fmt.Sprintf(page, "x")))),
		warcRecord("response", "http://a.example/html", t0.Add(time.Hour), 11, resp("200 OK", "text/html", "", []byte(fmt.Sprintf(page, "y")))),
		warcRecord("response", "http://a.example/chunked", t0, 12, httpResponse("text/html", []byte(fmt.Sprintf(page, "c")), true)),
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
	samples, _ := filepath.Glob(filepath.Join("..", "testdata", "samples", "*.warc.gz"))
	if len(samples) > 4 {
		samples = samples[:4]
	}
	flip := func(b []byte, i int) []byte {
		c := bytes.Clone(b)
		c[i] ^= 0x20
		return c
	}
	var mu sync.Mutex
	checked, refused := 0, 0
	defer func() { checkRecord = restoresTo }()
	checkRecord = func(v *Version, p *plan, h, b []byte) bool {
		type variant struct {
			name string
			v    Version
			h, b []byte
			p    *plan
		}
		vs := []variant{{"as read", *v, h, b, p}, {"block longer", *v, h, append(bytes.Clone(b), 'x'), p},
			{"anchors not noted", *v, h, b, &plan{objs: p.objs, sum: p.sum}}}
		for id := range p.anchors {
			// The anchor's object not the one the anchor decoded.
			q := &plan{objs: maps.Clone(p.objs), sum: p.sum, anchors: p.anchors}
			o := q.objs[id]
			o.data = flip(o.data, len(o.data)-1)
			q.objs[id] = o
			vs = append(vs, variant{"anchor object", *v, h, b, q})
		}
		if len(b) > 0 {
			vs = append(vs, variant{"block's first byte", *v, h, flip(b, 0), p},
				variant{"block's middle byte", *v, h, flip(b, len(b)/2), p},
				variant{"block's last byte", *v, h, flip(b, len(b)-1), p},
				variant{"block shorter", *v, h, b[:len(b)-1], p},
				variant{"block's first byte cut", *v, h, b[1:], p})
		}
		if len(h) > 0 {
			vs = append(vs, variant{"header's first byte", *v, flip(h, 0), b, p})
		}
		crc, trailer := *v, *v
		crc.CRC ^= 1
		trailer.Trailer = append(bytes.Clone(v.Trailer), '\n')
		vs = append(vs, variant{"CRC", crc, h, b, p}, variant{"trailer", trailer, h, b, p})
		for _, x := range vs {
			want := restoreCompare(&x.v, x.p.get, x.h, x.b)
			if got := restoresTo(&x.v, x.p, x.h, x.b); got != want {
				t.Errorf("%s at %d (%s, mode %d, form %d), %s: restoresTo %t, restore and compare %t", v.TargetURI, v.Offset, v.Type, v.Mode, v.Form, x.name, got, want)
			}
			if x.name != "as read" && x.name != "anchors not noted" && want {
				t.Errorf("%s at %d, %s: the spoilt record restores", v.TargetURI, v.Offset, x.name)
			}
		}
		ok := restoresTo(v, p, h, b)
		mu.Lock()
		checked++
		if !ok {
			refused++
		}
		mu.Unlock()
		return ok
	}
	if _, err := Ingest(context.Background(), filepath.Join(dir, "a.bwa"), append([]string{f}, samples...), testOpts()); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d records checked", checked)
	if checked < 20 || refused > 0 {
		t.Fatalf("%d records checked, %d refused; want at least 20, none refused", checked, refused)
	}
}

// TestBlockIDsAreSums: the ids of the blocks a page shares with the
// URL's previous capture, taken from that capture's ids rather than
// hashed again, are the sums of their bytes, as every other object's;
// and some were taken (the sample crawls capture the same pages).
func TestBlockIDsAreSums(t *testing.T) {
	samples, _ := filepath.Glob(filepath.Join("..", "testdata", "samples", "*.warc.gz"))
	if len(samples) > 8 {
		samples = samples[:8]
	}
	var mu sync.Mutex
	blocks := 0
	defer func() { checkRecord = restoresTo }()
	checkRecord = func(v *Version, p *plan, h, b []byte) bool {
		get := p.get
		mu.Lock()
		defer mu.Unlock()
		for i, id := range v.Blocks {
			data, err := get(id)
			if err != nil {
				t.Fatalf("%s at %d: block %d: %v", v.TargetURI, v.Offset, i, err)
			}
			if sum := pack.Sum(data); id != sum && id != sum.Short() {
				t.Errorf("%s at %d: block %d has id %s, its bytes sum to %s", v.TargetURI, v.Offset, i, id, sum)
			}
			blocks++
		}
		return restoresTo(v, p, h, b)
	}
	var taken int
	testBlockIDs = func(n int) { mu.Lock(); taken += n; mu.Unlock() }
	defer func() { testBlockIDs = nil }()
	if _, err := Ingest(context.Background(), filepath.Join(t.TempDir(), "a.bwa"), samples, testOpts()); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d blocks checked, %d ids taken from the previous capture", blocks, taken)
	if blocks == 0 || taken == 0 {
		t.Fatalf("%d blocks checked, %d ids taken from the previous capture; want some of both", blocks, taken)
	}
}
