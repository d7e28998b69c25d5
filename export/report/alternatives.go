package report

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/internal/countio"
	"github.com/blockwarc/blockwarc/internal/zstdlib"
)

// Names of the alternatives, in the order the report lists them.
const (
	AltInput        = "input"         // the input files as given
	AltGzipRevisits = "gzip_revisits" // per-record gzip, identical payloads as revisits
	AltZstdLong     = "zstd_long"     // all records, one zstd stream with a long window
	AltArchive      = "archive"       // this archive
	AltTables       = "tables"        // the derived tables (tables/)
)

// Restore classes of the alternatives.
const (
	RestoreRecord = "record" // one record is read alone (with an index)
	RestoreStream = "stream" // reading a record decompresses the stream up to it
	RestoreNone   = "none"   // the records cannot be restored from it
)

// ZstdLongCompressor names how zstd_long is measured: `zstd -19
// --long=27` — level 19, a 2^27-byte window, long-distance matching —
// run through the reference zstd library the archive's frames are
// compressed with (internal/zstdlib, cgo). A build without cgo has no
// such library: it measures with the pure-Go zstd at its best level and
// the same window, which compresses less (an upper bound), and says so.
var ZstdLongCompressor = zstdLongName()

// zstdLongTitle is zstd_long's row title: the settings it was measured
// at.
func zstdLongTitle() string {
	if zstdlib.Available {
		return "zstd -19 --long=27 of all records"
	}
	return "zstd of all records, long window (pure Go)"
}

func zstdLongName() string {
	if zstdlib.Available {
		return "zstd -19 --long=27 (reference zstd library " + zstdlib.Version() + ", cgo)"
	}
	return "klauspost/compress/zstd SpeedBestCompression, 128 MiB window (a build without cgo: not zstd -19 --long=27, which compresses more)"
}

// The settings of zstd_long: level 19, a window of 2^27 bytes (--long=27).
const (
	zstdLongLevel     = 19
	zstdLongWindowLog = 27
	zstdLongWindow    = 1 << zstdLongWindowLog
)

// newZstdLong starts the zstd_long stream (ZstdLongCompressor).
func newZstdLong(w io.Writer) (io.WriteCloser, error) {
	if zstdlib.Available {
		return zstdlib.NewWriter(w, zstdLongLevel, zstdLongWindowLog, true)
	}
	return zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedBestCompression),
		zstd.WithWindowSize(zstdLongWindow), zstd.WithEncoderConcurrency(1))
}

// Alternatives sets the archive beside the other ways of keeping the
// same collection. The two that must be computed (gzip_revisits,
// zstd_long) are measured only on request (`report -alternatives`):
// Measured says whether they were; their bytes are null otherwise.
type Alternatives struct {
	Measured bool `json:"measured"`
	// Records and RecordBytes are the records compressed and their
	// uncompressed bytes; Revisits the responses gzip_revisits writes as
	// revisit records. Null when not measured.
	Records     *int64 `json:"records"`
	RecordBytes *int64 `json:"record_bytes"`
	Revisits    *int64 `json:"revisits"`
	// Zstd names the compressor of zstd_long (ZstdLongCompressor).
	Zstd string        `json:"zstd"`
	List []Alternative `json:"list"`
}

// Alternative is one way of keeping the collection.
type Alternative struct {
	Name  string   `json:"name"`
	Bytes *int64   `json:"bytes"` // null: not measured (or no tables built)
	Ratio *float64 `json:"ratio"` // Bytes ÷ input_bytes
	// RandomAccess says whether one record can be read without reading
	// the records before it; Restore is the restore time class:
	// RestoreRecord, RestoreStream or RestoreNone.
	RandomAccess bool   `json:"random_access"`
	Restore      string `json:"restore"`
}

// altTitles are the alternatives as people read them.
var altTitles = map[string]string{
	AltInput:        "input files as given",
	AltGzipRevisits: "per-record gzip, repeats as revisits",
	AltZstdLong:     zstdLongTitle(),
	AltArchive:      "this archive",
	AltTables:       "tables (derived)",
}

func altTitle(name string) string {
	if t, ok := altTitles[name]; ok {
		return t
	}
	return name
}

// restoreTitle says what restoring one record from a takes.
func restoreTitle(a Alternative) string {
	switch a.Restore {
	case RestoreRecord:
		return "one record"
	case RestoreStream:
		return "whole stream"
	case RestoreNone:
		return "cannot restore"
	}
	return a.Restore
}

// AltMeasure is what measuring the computed alternatives found.
type AltMeasure struct {
	Records, RecordBytes, Revisits  int64
	GzipRevisitBytes, ZstdLongBytes int64
}

// alternatives fills r.Alternatives from the sizes it knows (input,
// archive, tables of dir) and m (nil: not measured).
func (r *Report) alternatives(dir string, m *AltMeasure) error {
	tb, err := tablesBytes(dir)
	if err != nil {
		return err
	}
	ptr := func(v int64) *int64 { return &v }
	al := Alternatives{Zstd: ZstdLongCompressor}
	var gz, zs *int64
	if m != nil {
		al.Measured = true
		al.Records, al.RecordBytes, al.Revisits = ptr(m.Records), ptr(m.RecordBytes), ptr(m.Revisits)
		gz, zs = ptr(m.GzipRevisitBytes), ptr(m.ZstdLongBytes)
	}
	add := func(name string, b *int64, random bool, restore string) {
		a := Alternative{Name: name, Bytes: b, RandomAccess: random, Restore: restore}
		if b != nil {
			a.Ratio = ratio(*b, r.InputBytes)
		}
		al.List = append(al.List, a)
	}
	add(AltInput, ptr(r.InputBytes), true, RestoreRecord)
	add(AltGzipRevisits, gz, true, RestoreRecord)
	add(AltZstdLong, zs, false, RestoreStream)
	add(AltArchive, ptr(r.ArchiveBytes), true, RestoreRecord)
	add(AltTables, tb, false, RestoreNone)
	r.Alternatives = al
	return nil
}

// tablesBytes sums the regular files under dir/tables; nil when there is
// no tables directory.
func tablesBytes(dir string) (*int64, error) {
	root := filepath.Join(dir, TablesDir)
	total, err := sumFiles(root, false)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("size tables %s: %w", root, err)
	}
	return &total, nil
}

// MeasureAlternatives restores every record of a in URL and time order
// (WalkOrdered) and measures the two computed alternatives:
//
//   - gzip_revisits: each record gzip-compressed alone at the default
//     level (compress/gzip, level 6 as zlib's default), as a
//     deduplicating crawler writes them, except that a response whose
//     payload (SHA-1) repeats an earlier response of the same URL is
//     written as the revisit record such a crawler writes instead
//     (profile identical-payload-digest, the HTTP header as block);
//   - zstd_long: all records concatenated in that order, one zstd stream
//     (ZstdLongCompressor).
//
// It reads and compresses the whole collection: opt-in.
func MeasureAlternatives(ctx context.Context, a *dedupe.Archive) (*AltMeasure, error) {
	return measureAlternatives(ctx, a, io.Discard, io.Discard)
}

// measureAlternatives is MeasureAlternatives writing the zstd stream to
// zout and the gzip members to gout (for the tests to read them back).
func measureAlternatives(ctx context.Context, a *dedupe.Archive, zout, gout io.Writer) (*AltMeasure, error) {
	m := &AltMeasure{}
	zc := &countio.Writer{W: zout}
	zw, err := newZstdLong(zc)
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	defer zw.Close()
	gc := &countio.Writer{W: gout}
	gw, _ := gzip.NewWriterLevel(gc, gzip.DefaultCompression)
	gzipOne := func(rec []byte) error {
		gw.Reset(gc)
		if _, err := gw.Write(rec); err != nil {
			return err
		}
		return gw.Close()
	}
	type earlier struct{ id, date string }
	err = a.WalkOrdered(func(u dedupe.URLVersions) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		seen := map[[sha1.Size]byte]earlier{} // payload digest → first response of this URL
		for i := range u.Versions {
			v := &u.Versions[i]
			p, err := a.Restore(v)
			if err != nil {
				return err
			}
			rec := p.Record()
			m.Records++
			m.RecordBytes += int64(len(rec))
			if _, err := zw.Write(rec); err != nil {
				return fmt.Errorf("zstd: %w", err)
			}
			out := rec
			if v.Type == "response" && p.HTTPHeader != nil && len(p.Payload) > 0 {
				d := sha1.Sum(p.Payload)
				if e, ok := seen[d]; ok {
					if rv := revisitRecord(p, d, e.id, e.date); rv != nil {
						out = rv
						m.Revisits++
					}
				} else {
					seen[d] = earlier{id: v.RecordID, date: warcField(p.WARCHeader, "WARC-Date")}
				}
			}
			if err := gzipOne(out); err != nil {
				return fmt.Errorf("gzip: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("measure alternatives: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	m.GzipRevisitBytes, m.ZstdLongBytes = gc.N, zc.N
	return m, nil
}

// Revisit profile of WARC 1.0 (the version wget and Heritrix write).
const identicalPayloadProfile = "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest"

var b32 = base32.StdEncoding

// revisitRecord returns the revisit record a deduplicating crawler
// writes for the response p whose payload has digest d, already stored
// in the record refersTo (dated refersDate): the response's WARC header
// with WARC-Type revisit, the profile, WARC-Refers-To (and, when known,
// WARC-Refers-To-Date), the payload digest, and as block the HTTP header
// alone (Content-Length and WARC-Block-Digest of that block). Nil when
// the header cannot be parsed (the record is then counted as written).
func revisitRecord(p *dedupe.Parts, d [sha1.Size]byte, refersTo, refersDate string) []byte {
	hdr := p.WARCHeader
	end := bytes.Index(hdr, []byte("\r\n\r\n"))
	if end < 0 || len(p.Block) < len(p.Payload) {
		return nil
	}
	block := p.Block[:len(p.Block)-len(p.Payload)]
	lines := strings.Split(string(hdr[:end]), "\r\n")
	var b strings.Builder
	b.WriteString(lines[0])
	b.WriteString("\r\n")
	drop := map[string]bool{"warc-type": true, "content-length": true, "warc-block-digest": true,
		"warc-payload-digest": true, "warc-profile": true, "warc-refers-to": true,
		"warc-refers-to-date": true, "warc-refers-to-target-uri": true, "warc-truncated": true}
	field := func(name, value string) { b.WriteString(name + ": " + value + "\r\n") }
	field("WARC-Type", "revisit")
	for _, l := range lines[1:] {
		name, _, ok := strings.Cut(l, ":")
		if ok && drop[strings.ToLower(strings.TrimSpace(name))] {
			continue
		}
		b.WriteString(l)
		b.WriteString("\r\n")
	}
	field("WARC-Profile", identicalPayloadProfile)
	field("WARC-Refers-To", refersTo)
	if refersDate != "" {
		field("WARC-Refers-To-Date", refersDate)
	}
	field("WARC-Payload-Digest", "sha1:"+b32.EncodeToString(d[:]))
	bd := sha1.Sum(block)
	field("WARC-Block-Digest", "sha1:"+b32.EncodeToString(bd[:]))
	field("Content-Length", strconv.Itoa(len(block)))
	b.WriteString("\r\n")
	b.Write(block)
	b.WriteString("\r\n\r\n")
	return []byte(b.String())
}

// warcField returns the value of the first WARC header field name in
// hdr; "" when absent.
func warcField(hdr []byte, name string) string {
	end := bytes.Index(hdr, []byte("\r\n\r\n"))
	if end < 0 {
		end = len(hdr)
	}
	for _, l := range strings.Split(string(hdr[:end]), "\r\n")[1:] {
		n, v, ok := strings.Cut(l, ":")
		if ok && strings.EqualFold(strings.TrimSpace(n), name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
