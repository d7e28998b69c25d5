package dedupe

import (
	"encoding/binary"
	"fmt"

	"github.com/klauspost/compress/zstd"

	"blockwarc/dedupe/pack"
)

// segRef locates one catalog segment.
type segRef struct {
	First, Last string
	ID          pack.ID
}

// root is the decoded commit payload.
type root struct {
	Files []InputFile
	Runs  [][]segRef
	// Open is set in the commits an ingest makes before its last one:
	// where it was, so that running it again resumes there (resume.go).
	Open *openIngest
}

// maxRootPlain bounds a version 4 root's decompressed body, so that a
// damaged or hostile COMMIT cannot make a reader allocate without bound
// (the pack layer bounds the payload itself to 16 MiB).
const maxRootPlain = 256 << 20

// encode writes the root. Since version 4 the body after the version is
// one zstd frame: file names, sizes and counts compress (the SHA-256s do
// not), about 15 % of the root on the corpus.
func (r *root) encode() ([]byte, error) {
	if r.Open == nil {
		return wrapRoot(r.body(), catalogVersion)
	}
	return wrapRoot(r.Open.appendTo(r.body()), openRootVersion)
}

// wrapRoot prefixes magic and version to a root body and compresses it.
func wrapRoot(body []byte, version uint64) ([]byte, error) {
	b := []byte(rootMagic)
	b = binary.AppendUvarint(b, version)
	e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, fmt.Errorf("encode catalog root: %w", err)
	}
	defer e.Close()
	return e.EncodeAll(body, b), nil
}

// body is the root after magic and version.
func (r *root) body() []byte {
	var b []byte
	b = binary.AppendUvarint(b, uint64(len(r.Files)))
	prev := ""
	var prevSize int64
	for _, f := range r.Files {
		// Names are front- and back-coded: dumps of one crawl share long
		// prefixes ("site-2022…") and suffixes (".warc.gz"), and the table
		// (not compressed) has a row per input file. Sizes are differences
		// from the previous row's: dumps of one crawl have similar sizes.
		n := commonPrefix(prev, f.Name)
		q := commonSuffix(prev[n:], f.Name[n:])
		b = binary.AppendUvarint(b, uint64(n))
		b = binary.AppendUvarint(b, uint64(q))
		b = appendString(b, f.Name[n:len(f.Name)-q])
		prev = f.Name
		b = binary.AppendVarint(b, f.Size-prevSize)
		prevSize = f.Size
		b = append(b, f.SHA256[:]...)
		b = appendCount(b, f.Records)
		b = appendCount(b, f.Malformed)
		// Version 5: the decompressed stream, when known.
		b = appendCount(b, f.StreamLen)
		if f.StreamLen >= 0 {
			b = append(b, f.StreamSHA256[:]...)
			b = binary.AppendUvarint(b, uint64(f.Gaps))
			var fl byte
			if f.Rebuildable {
				fl |= 1
			}
			b = append(b, fl)
			// Version 6: bit-exact compressed, and how.
			switch {
			case f.OriginalWhy != originalExact:
				b = append(b, f.OriginalWhy)
			case f.Original == nil:
				b = append(b, originalUnknown)
			default:
				b = f.Original.appendTo(append(b, originalExact))
			}
		}
	}
	b = binary.AppendUvarint(b, uint64(len(r.Runs)))
	for _, run := range r.Runs {
		b = binary.AppendUvarint(b, uint64(len(run)))
		for _, s := range run {
			b = appendString(b, s.First)
			b = appendString(b, s.Last)
			b = append(b, s.ID[:]...)
		}
	}
	return b
}

// appendCount writes a count that may be unknown (negative) as
// uvarint(n+1), 0 meaning unknown.
func appendCount(b []byte, n int64) []byte {
	if n < 0 {
		return append(b, 0)
	}
	return binary.AppendUvarint(b, uint64(n)+1)
}

func (d *dec) count64(what string) int64 {
	n := d.uvarint(what)
	if n == 0 || n > 1<<62 {
		return -1
	}
	return int64(n - 1)
}

func decodeRoot(b []byte) (*root, error) {
	r := &root{}
	if len(b) == 0 {
		return r, nil // a fresh archive
	}
	if len(b) < 4 || string(b[:4]) != rootMagic {
		return nil, fmt.Errorf("%w: commit payload has no %s magic", errCatalog, rootMagic)
	}
	d := &dec{b: b[4:]}
	ver := d.uvarint("version")
	if d.f = catalogFormats[ver]; d.err == nil && d.f == nil {
		return nil, fmt.Errorf("%w: catalog version %d, this reader knows %d to %d", errCatalog, ver, oldestCatalog, newestCatalog)
	}
	if d.err != nil {
		return nil, d.err
	}
	if d.f.rootZstd {
		zd, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxRootPlain))
		if err != nil {
			return nil, fmt.Errorf("decode catalog root: %w", err)
		}
		body, err := zd.DecodeAll(d.b, nil)
		zd.Close()
		if err != nil {
			return nil, fmt.Errorf("%w: catalog root: decompress: %v", errCatalog, err)
		}
		d.b = body
	}
	nf := d.count("file count", 35)
	var prev InputFile
	for range nf {
		f := d.f.fileRow(d, &prev)
		if d.err != nil {
			break
		}
		r.Files = append(r.Files, f)
		prev = f
	}
	nr := d.count("run count", 1)
	for range nr {
		ns := d.count("segment count", 34)
		run := make([]segRef, 0, ns)
		for range ns {
			run = append(run, segRef{First: d.str("first key"), Last: d.str("last key"), ID: d.id("segment id")})
		}
		r.Runs = append(r.Runs, run)
	}
	if d.f.openIngest {
		r.Open = decodeOpen(d, len(r.Runs))
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("payload length")
	}
	return r, d.err
}

// fileRowV2 reads an input-file row of catalog version 2: the name
// front-coded against the previous row's, the size, the SHA-256.
func fileRowV2(d *dec, prev *InputFile) InputFile {
	n := d.uvarint("file name prefix")
	if n > uint64(len(prev.Name)) {
		d.fail("file name prefix")
		return InputFile{}
	}
	f := InputFile{Name: prev.Name[:n] + d.str("file name"), Records: -1, Malformed: -1, StreamLen: -1}
	f.Size = int64(d.uvarint("file size"))
	copy(f.SHA256[:], d.bytes(32, "file digest"))
	return f
}

// fileRowV3 reads a row of catalog versions 3 and 4: the name front- and
// back-coded, the size as a difference, the record counts.
func fileRowV3(d *dec, prev *InputFile) InputFile {
	n := d.uvarint("file name prefix")
	q := d.uvarint("file name suffix")
	if p := uint64(len(prev.Name)); n > p || q > p-n {
		d.fail("file name prefix")
		return InputFile{}
	}
	f := InputFile{Name: prev.Name[:n] + d.str("file name") + prev.Name[uint64(len(prev.Name))-q:], StreamLen: -1}
	if f.Size = prev.Size + d.varint("file size"); f.Size < 0 {
		d.fail("file size")
	}
	copy(f.SHA256[:], d.bytes(32, "file digest"))
	f.Records, f.Malformed = d.count64("file records"), d.count64("file malformed records")
	return f
}

// fileRowV5 reads a row of catalog version 5: version 3's and the
// decompressed stream, when known.
func fileRowV5(d *dec, prev *InputFile) InputFile {
	f := fileRowV3(d, prev)
	if d.err != nil {
		return f
	}
	if f.StreamLen = d.count64("file stream length"); f.StreamLen >= 0 {
		copy(f.StreamSHA256[:], d.bytes(32, "file stream digest"))
		f.Gaps = int64(d.uvarint("file gaps"))
		if fl := d.bytes(1, "file flags"); fl != nil {
			if fl[0]&^1 != 0 {
				d.fail("file flags")
			}
			f.Rebuildable = fl[0]&1 != 0
		}
	}
	return f
}

// fileRowV6 reads a row of catalog version 6: version 5's and, when the
// stream is known, why the file does or does not restore bit-exact
// compressed, followed by its member table when it does.
func fileRowV6(d *dec, prev *InputFile) InputFile {
	f := fileRowV5(d, prev)
	if d.err != nil || f.StreamLen < 0 {
		return f
	}
	if w := d.bytes(1, "file original"); w != nil {
		if f.OriginalWhy = w[0]; f.OriginalWhy >= originalReasons {
			d.fail("file original")
			return f
		}
	}
	if f.OriginalWhy == originalExact {
		f.Original = decodeOriginal(d)
	}
	return f
}
