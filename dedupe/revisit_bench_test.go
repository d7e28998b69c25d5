package dedupe

import (
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/warcio"
)

// identicalPayloadProfile is the WARC 1.1 revisit profile URI.
const identicalPayloadProfile = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"

// writeRevisitWARC writes the inputs as the usual deduplicated crawl, the
// baseline the archive is compared with: a per-record-gzip WARC (each
// record its own gzip member, default level) in which every response whose
// payload was seen before, at any URL, in an earlier record (files in the
// order given, records in file order) becomes an identical-payload-digest
// revisit record: its HTTP header kept, no payload,
// WARC-Refers-To-Target-URI/-Date naming the first capture with that
// payload, Content-Length and WARC-Block-Digest of the shorter block.
// Every other record is kept as it is.
func writeRevisitWARC(w io.Writer, inputs []string) (revisits int, err error) {
	type first struct{ uri, date string }
	seen := map[[20]byte]first{}
	zw, err := gzip.NewWriterLevel(w, gzip.DefaultCompression)
	if err != nil {
		return 0, err
	}
	member := func(parts ...[]byte) error {
		zw.Reset(w)
		for _, p := range parts {
			if _, err := zw.Write(p); err != nil {
				return err
			}
		}
		return zw.Close()
	}
	for _, path := range inputs {
		if err := func() error {
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			rd := warcio.NewReader(f, path)
			for {
				rec, err := rd.Next()
				if err == io.EOF {
					return nil
				}
				if err != nil {
					return err
				}
				block, err := io.ReadAll(rec.Body)
				if err != nil {
					return fmt.Errorf("read %s at %d: %w", path, rec.Offset, err)
				}
				if rec.Format == warcio.FormatWARC && rec.Type == "response" {
					if m, err := warcio.ReadHTTP(bytes.NewReader(block), 0); err == nil && !m.Truncated {
						d := sha1.Sum(block[len(m.Raw):])
						if o, ok := seen[d]; ok {
							revisits++
							if err := member(revisitHeader(rec, m.Raw, d, o.uri, o.date), m.Raw, []byte("\r\n\r\n")); err != nil {
								return err
							}
							continue
						}
						seen[d] = first{rec.TargetURI, rec.DateRaw}
					}
				}
				if err := member(rec.RawHeader, block, rec.Trailer); err != nil {
					return err
				}
			}
		}(); err != nil {
			return revisits, err
		}
	}
	return revisits, nil
}

// revisitHeader is rec's WARC header turned into an identical-payload-
// digest revisit of the capture of uri at date, for the block httpHeader.
func revisitHeader(rec *warcio.Record, httpHeader []byte, payload [20]byte, uri, date string) []byte {
	var b strings.Builder
	b.WriteString(rec.Version + "\r\n")
	digest := "sha1:" + base32.StdEncoding.EncodeToString(payload[:])
	bd := sha1.Sum(httpHeader)
	for _, f := range rec.Header {
		switch strings.ToLower(f.Name) {
		case "warc-type":
			b.WriteString("WARC-Type: revisit\r\n")
		case "content-length":
			fmt.Fprintf(&b, "Content-Length: %d\r\n", len(httpHeader))
		case "warc-block-digest":
			b.WriteString("WARC-Block-Digest: sha1:" + base32.StdEncoding.EncodeToString(bd[:]) + "\r\n")
		case "warc-payload-digest":
			digest = "" // the record's own is kept
			b.Write(f.Raw)
		default:
			b.Write(f.Raw)
		}
	}
	if digest != "" {
		b.WriteString("WARC-Payload-Digest: " + digest + "\r\n")
	}
	b.WriteString("WARC-Profile: " + identicalPayloadProfile + "\r\n")
	b.WriteString("WARC-Refers-To-Target-URI: " + uri + "\r\n")
	b.WriteString("WARC-Refers-To-Date: " + date + "\r\n\r\n")
	return []byte(b.String())
}

type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

// TestRevisitWARC checks the benchmark's revisit baseline on a corpus
// site: read back, it has one record per input record, one gzip member
// per record; every record that is not a revisit is the input record byte
// for byte; every revisit is a response of the input with its HTTP header
// kept, valid digests and the revisit fields pointing at an earlier
// capture with the same payload.
func TestRevisitWARC(t *testing.T) {
	inputs, err := expandInputs([]string{sharedtest.Dir(t, "corpus", "mkdocs-org")})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	revisits, err := writeRevisitWARC(&out, inputs)
	if err != nil {
		t.Fatal(err)
	}
	type rec struct {
		uri, date, typ, refURI, refDate, profile string
		raw, http                                []byte
		payload                                  [20]byte
		blockOK                                  bool
		stored                                   int64
		compression                              warcio.Compression
	}
	read := func(r io.Reader, name string) []rec {
		rd := warcio.NewReaderOptions(r, name, warcio.Options{Digests: true})
		var rs []rec
		for {
			x, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("read %s: %v", name, err)
			}
			block, err := io.ReadAll(x.Body)
			if err != nil {
				t.Fatalf("read %s at %d: %v", name, x.Offset, err)
			}
			r := rec{uri: x.TargetURI, date: x.DateRaw, typ: x.Type, refURI: x.RefersToTargetURI,
				refDate: x.RefersToDate, profile: x.Profile, stored: x.Length, compression: x.Compression,
				raw:     append(append(bytes.Clone(x.RawHeader), block...), x.Trailer...),
				blockOK: x.Digests().BlockMatch == warcio.MatchOK}
			if m, err := warcio.ReadHTTP(bytes.NewReader(block), 0); err == nil {
				r.http = m.Raw
				r.payload = sha1.Sum(block[len(m.Raw):])
			}
			rs = append(rs, r)
		}
		if rd.Skipped() != 0 {
			t.Fatalf("%s: %d malformed records", name, rd.Skipped())
		}
		return rs
	}
	var in []rec
	for _, p := range inputs {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, read(f, p)...)
		f.Close()
	}
	got := read(bytes.NewReader(out.Bytes()), "revisit.warc.gz")
	if len(got) != len(in) {
		t.Fatalf("baseline has %d records, input %d", len(got), len(in))
	}
	var stored int64
	n := 0
	for i, g := range got {
		stored += g.stored
		if g.compression != warcio.CompressionGzip {
			t.Fatalf("record %d: compression %v, want one gzip member per record", i, g.compression)
		}
		if g.typ != "revisit" {
			if !bytes.Equal(g.raw, in[i].raw) {
				t.Fatalf("record %d (%s %s) differs from the input", i, g.typ, g.uri)
			}
			continue
		}
		n++
		o := in[i]
		if o.typ != "response" || g.uri != o.uri || g.date != o.date || !bytes.Equal(g.http, o.http) || !g.blockOK {
			t.Fatalf("revisit %d of %s: not the input's response with its HTTP header and a valid block digest", i, g.uri)
		}
		if g.profile != identicalPayloadProfile {
			t.Fatalf("revisit %d: profile %q", i, g.profile)
		}
		found := false
		for _, e := range in[:i] {
			if e.typ == "response" && e.uri == g.refURI && e.date == g.refDate && e.payload == o.payload {
				found = true
				break
			}
		}
		if !found {
			t.Fatalf("revisit %d of %s refers to %s at %s: no earlier capture there with its payload", i, g.uri, g.refURI, g.refDate)
		}
	}
	if n != revisits || n == 0 {
		t.Fatalf("read %d revisits, wrote %d", n, revisits)
	}
	if stored != int64(out.Len()) {
		t.Fatalf("records span %d bytes of %d", stored, out.Len())
	}
	t.Logf("%d records, %d revisits, %d bytes", len(got), n, out.Len())
}
