package dedupe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/klauspost/compress/zstd"

	"blockwarc/dedupe/pack"
)

// Record modes of a Version (docs/FORMAT.md "Catalog segment").
const (
	modeRaw    = 0 // the record object is the whole record
	modeBlock  = 1 // WARC header + block object
	modeInline = 3 // WARC header + block held in the catalog (catalog version 3)
	modeHTTP   = 2 // WARC header + HTTP header + payload
)

// Payload forms of an HTTP Version.
const (
	formWhole  = 0
	formBlocks = 1
)

// Version is one capture (one input record) in the catalog: where it came
// from and which objects rebuild it (the paper's ⟨Layout, {Block},
// MetaData⟩, extended to every record type).
type Version struct {
	File      string    // input file name as given to ingest
	Offset    int64     // stored offset of the record in File
	Length    int64     // stored length
	Skip      int64     // bytes to decompress from Offset before the record
	Date      time.Time // WARC-Date; zero when unparseable
	Type      string    // WARC-Type
	RecordID  string    // WARC-Record-ID as stored
	TargetURI string
	Trailer   []byte // bytes stored after the block
	Level     int    // partition level used; 0 when not partitioned
	CRC       uint32 // CRC-32C of the whole record
	// BlockDigestOK and PayloadDigestOK record that the input record's
	// WARC-Block-Digest / WARC-Payload-Digest held at ingest, so verify
	// checks them again on the restored record.
	BlockDigestOK, PayloadDigestOK bool

	Mode   uint8
	Record pack.ID // modeRaw
	// WARCHeader and HTTPHeader are the hdrcodec encodings of the headers
	// against their anchors, held inline: they are small and nearly
	// repeat from capture to capture, so the catalog segment compresses
	// them better than separate objects (each costing an id and an index
	// entry) would.
	WARCHeader []byte  // modeBlock, modeHTTP
	WARCAnchor pack.ID // zero: encoded with prev = nil
	Block      pack.ID // modeBlock; zero when the block is inline (Storage says "inline")
	HTTPHeader []byte  // modeHTTP
	HTTPAnchor pack.ID
	Form       uint8
	Payload    pack.ID // formWhole
	// reason says why a payload is stored whole (formWhole); see Storage.
	reason uint8
	// inline is the block of a modeInline version.
	inline []byte

	// prevRecordID is the RecordID of the version before this one in its
	// catalog entry ("" for the first): a header may name it (a response's
	// WARC-Concurrent-To), so it is a Ref of the header's context.
	prevRecordID string
	Layout       pack.ID   // formBlocks
	Blocks       []pack.ID // formBlocks, in layout order
	Framing      []byte    // formBlocks: warcio.Framing encoding, inline; nil when not chunked
	// Coding is, for formBlocks, the reencode.Params encoding
	// (MarshalBinary) of a content-coded payload kept as the blocks of
	// its decoded document; nil when the payload was not content-coded.
	// The restore re-encodes the reassembled document with it (catalog
	// version 4, flags bit 3).
	Coding []byte
	// Gap marks bytes of the input file between records (stray line ends,
	// damage the reader skipped: warcio.Capture.Gap), kept so that the
	// file's decompressed stream can be rebuilt (catalog version 5, flags
	// bit 4). A gap is mode raw: its record object is the bytes; its Type,
	// RecordID, TargetURI and Date are empty. Walk, WalkOrdered and
	// Versions leave gaps out; WalkSource yields them.
	Gap bool
}

// InlineLen is the length of the block the catalog entry holds inline
// (Storage says "inline"), 0 otherwise: what the storage report charges
// to the catalog without restoring the record.
func (v *Version) InlineLen() int { return len(v.inline) }

// maxInline is the largest block inlineBlock keeps in the catalog.
const maxInline = 2 << 10

// inlineBlock moves the block of a header + block version (warcinfo,
// metadata, resource records: wget's logs and arguments, say) from an
// object of p into the catalog entry when it is small. As an object it
// would cost an index entry (about 40 bytes) and a reference in the
// catalog, more than such a block compresses to next to the same URL's
// previous ones in a catalog segment.
func inlineBlock(v *Version, p *plan) {
	if v.Mode != modeBlock || v.Block == v.WARCAnchor {
		return
	}
	o, ok := p.objs[v.Block]
	if !ok || len(o.data) > maxInline {
		return
	}
	v.inline = bytes.Clone(o.data)
	delete(p.objs, v.Block)
	p.ids = slices.DeleteFunc(p.ids, func(id pack.ID) bool { return id == v.Block })
	v.Mode, v.Block = modeInline, pack.ID{}
}

// URLVersions is the catalog entry of one key.
type URLVersions struct {
	Key      string
	Versions []Version
}

// flagCoded is bit 3 of a version's flags (catalog version 4): the
// payload is content-coded and stored as its decoded document's blocks;
// Version.Coding follows the framing.
const flagCoded = 8

// flagGap is bit 4 of a version's flags (catalog version 5): the version
// is a gap (Version.Gap), mode raw.
const flagGap = 16

// segment and payload magics.
const (
	rootMagic      = "BWCT"
	segmentMagic   = "BWSG"
	catalogVersion = 5
	// oldestCatalog is the oldest catalog version this reader knows.
	oldestCatalog = 2
)

// InputFile is a row of the input-file table: a file ingested completely.
type InputFile struct {
	Name   string
	Size   int64
	SHA256 [32]byte
	// Records is how many records ingest read from the file and Malformed
	// how many malformed records its reader skipped there; both are -1
	// when unknown (files ingested under catalog version 2).
	Records, Malformed int64
	// StreamLen and StreamSHA256 are the length and SHA-256 of the file's
	// decompressed stream (StreamLen −1: unknown, files ingested before
	// catalog version 5). Gaps counts the runs of bytes between records
	// the archive keeps as gap versions. Rebuildable says that the file's
	// records and gaps tile its stream, so export-warc -source restores it
	// byte for byte and verify checks it against StreamSHA256; false when
	// unknown or when the gaps could not be kept (standard input).
	StreamLen    int64
	StreamSHA256 [32]byte
	Gaps         int64
	Rebuildable  bool
}

// segRef locates one catalog segment.
type segRef struct {
	First, Last string
	ID          pack.ID
}

// root is the decoded commit payload.
type root struct {
	Files []InputFile
	Runs  [][]segRef
}

var errCatalog = errors.New("catalog corrupt")

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// commonPrefix returns the length of the longest common prefix of a and b.
// commonSuffix returns the length of the longest common suffix of a and b.
func commonSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// maxRootPlain bounds a version 4 root's decompressed body, so that a
// damaged or hostile COMMIT cannot make a reader allocate without bound
// (the pack layer bounds the payload itself to 16 MiB).
const maxRootPlain = 256 << 20

// encode writes the root. Since version 4 the body after the version is
// one zstd frame: file names, sizes and counts compress (the SHA-256s do
// not), about 15 % of the root on the corpus.
func (r *root) encode() ([]byte, error) { return wrapRoot(r.body()) }

// wrapRoot prefixes magic and version to a root body and compresses it.
func wrapRoot(body []byte) ([]byte, error) {
	b := []byte(rootMagic)
	b = binary.AppendUvarint(b, catalogVersion)
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

// dec reads the catalog encodings; the first error is sticky. In a
// segment, the fixed-size random fields (object ids, binary record ids,
// CRCs) are read from r, a part of their own after the rest (split).
type dec struct {
	b     []byte
	r     []byte
	split bool
	ver   uint64 // catalog version being read
	err   error
	// resolve turns a short object reference (version 3) into an id;
	// with skip set, references are read but not resolved (entries
	// findInSegment passes over).
	resolve func(prefix []byte) (pack.ID, error)
	skip    bool
	// cols are a version 3 segment's column parts (colWARC...).
	cols [numCols][]byte
	// segFiles holds, by file index, what version 3 offsets and dates
	// are differences from; fileIdx is the file of the version being read.
	segFiles []segFile
	fileIdx  int
}

// Column parts of a version 3 segment: the header encodings and inline
// blocks of its versions, each kind apart, so that zstd sees the WARC
// header encodings of a segment one after the other, and so on (1–3 %
// smaller catalogs on the corpus than with the fields interleaved).
const (
	colWARC   = iota // WARC header encodings
	colHTTP          // HTTP header encodings
	colInline        // inline blocks
	numCols
)

// cblob reads a blob of column c (of the main part before version 3).
func (d *dec) cblob(c int, what string) []byte {
	if d.ver < 3 {
		return d.blob(what)
	}
	main := d.b
	d.b = d.cols[c]
	v := d.blob(what)
	d.cols[c], d.b = d.b, main
	return v
}

// rand reads n bytes of a random field.
func (d *dec) rand(n int, what string) []byte {
	if !d.split {
		return d.bytes(uint64(n), what)
	}
	if d.err != nil {
		return nil
	}
	if n > len(d.r) {
		d.fail(what)
		return nil
	}
	v := d.r[:n:n]
	d.r = d.r[n:]
	return v
}

func (d *dec) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: bad %s", errCatalog, what)
	}
}

func (d *dec) uvarint(what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail(what)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) varint(what string) int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail(what)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) bytes(n uint64, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.fail(what)
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *dec) str(what string) string { return string(d.bytes(d.uvarint(what), what)) }

// blob is a length-prefixed byte string (a copy).
func (d *dec) blob(what string) []byte { return bytes.Clone(d.bytes(d.uvarint(what), what)) }

func (d *dec) id(what string) (id pack.ID) {
	copy(id[:], d.rand(32, what))
	return id
}

func (d *dec) count(what string, minSize int) int {
	n := d.uvarint(what)
	if d.err == nil && n > uint64(len(d.b)/max(minSize, 1)) {
		d.fail(what)
		return 0
	}
	return int(n)
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
	if d.ver = d.uvarint("version"); d.err == nil && (d.ver < oldestCatalog || d.ver > catalogVersion) {
		return nil, fmt.Errorf("%w: catalog version %d, this reader knows %d to %d", errCatalog, d.ver, oldestCatalog, catalogVersion)
	}
	if d.err == nil && d.ver >= 4 {
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
	prev := ""
	var prevSize int64
	for range nf {
		n := d.uvarint("file name prefix")
		var q uint64
		if d.ver >= 3 {
			q = d.uvarint("file name suffix")
		}
		if n > uint64(len(prev)) || q > uint64(len(prev))-min(n, uint64(len(prev))) {
			d.fail("file name prefix")
		}
		if d.err != nil {
			break
		}
		name := prev[:n] + d.str("file name") + prev[uint64(len(prev))-q:]
		prev = name
		f := InputFile{Name: name, Records: -1, Malformed: -1, StreamLen: -1}
		if d.ver >= 3 {
			f.Size = prevSize + d.varint("file size")
			if f.Size < 0 {
				d.fail("file size")
			}
		} else {
			f.Size = int64(d.uvarint("file size"))
		}
		prevSize = f.Size
		copy(f.SHA256[:], d.bytes(32, "file digest"))
		if d.ver >= 3 {
			f.Records, f.Malformed = d.count64("file records"), d.count64("file malformed records")
		}
		if d.ver >= 5 {
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
		}
		r.Files = append(r.Files, f)
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
	if d.err == nil && len(d.b) != 0 {
		d.fail("payload length")
	}
	return r, d.err
}

// appendVersion appends v to the segment's main part b, its random
// fields to *r and its column fields to cols.
func appendVersion(b []byte, r *[]byte, cols *[numCols][]byte, v *Version, files map[string]int, t *idTable) []byte {
	if t.err != nil {
		return b
	}
	fi := files[v.File]
	b = binary.AppendUvarint(b, uint64(fi))
	// Version 3: the offset is written as a difference from the end of the
	// record of the same file written before in the segment (0 for the
	// first): a response follows its request in the file, and a URL's
	// record of a file mostly follows the previous URL's, so the
	// difference is mostly 0 or small where the offset itself is not.
	b = binary.AppendVarint(b, v.Offset-t.files[fi].end)
	t.files[fi].end = v.Offset + v.Length
	b = binary.AppendUvarint(b, uint64(v.Length))
	b = binary.AppendUvarint(b, uint64(v.Skip))
	var flags uint64
	var sec, nsec int64
	if !v.Date.IsZero() {
		flags |= 1
		sec, nsec = v.Date.Unix(), int64(v.Date.Nanosecond())
	}
	if v.BlockDigestOK {
		flags |= 2
	}
	if v.PayloadDigestOK {
		flags |= 4
	}
	// Version 4: bit 3 says a form-blocks payload was content-coded and
	// its re-encoding params follow the framing. Unflagged versions are
	// written as in version 3, byte for byte.
	coded := v.Mode == modeHTTP && v.Form == formBlocks && len(v.Coding) > 0
	if coded {
		flags |= flagCoded
	}
	if v.Gap {
		flags |= flagGap
	}
	// Version 3: the date is a difference from the date of the record of
	// the same file written before in the segment, when there is one (one
	// crawl wrote the file within seconds), else from the URL's previous
	// version.
	ref := t.sec
	if f := &t.files[fi]; f.dated {
		ref = f.sec
	}
	b = binary.AppendVarint(b, sec-ref)
	b = binary.AppendUvarint(b, uint64(nsec))
	t.sec = sec
	t.files[fi].sec, t.files[fi].dated = sec, true
	b = binary.AppendUvarint(b, flags)
	b = appendString(b, v.Type)
	b = appendRecordID(b, r, v.RecordID)
	// Versions of a URL nearly always repeat its target URI: 0 says so.
	if t.n > 0 && v.TargetURI == t.uri {
		b = binary.AppendUvarint(b, 0)
	} else {
		b = binary.AppendUvarint(b, uint64(len(v.TargetURI))+1)
		b = append(b, v.TargetURI...)
	}
	t.uri, t.n = v.TargetURI, t.n+1
	b = appendString(b, string(v.Trailer))
	b = binary.AppendUvarint(b, uint64(v.Level))
	*r = binary.LittleEndian.AppendUint32(*r, v.CRC)
	b = append(b, v.Mode)
	switch v.Mode {
	case modeRaw:
		b = t.append(b, r, v.Record)
	case modeBlock:
		cols[colWARC] = appendString(cols[colWARC], string(v.WARCHeader))
		b = t.append(b, r, v.WARCAnchor)
		b = t.append(b, r, v.Block)
	case modeInline:
		cols[colWARC] = appendString(cols[colWARC], string(v.WARCHeader))
		b = t.append(b, r, v.WARCAnchor)
		cols[colInline] = appendString(cols[colInline], string(v.inline))
	case modeHTTP:
		cols[colWARC] = appendString(cols[colWARC], string(v.WARCHeader))
		b = t.append(b, r, v.WARCAnchor)
		cols[colHTTP] = appendString(cols[colHTTP], string(v.HTTPHeader))
		b = t.append(b, r, v.HTTPAnchor)
		b = append(b, v.Form)
		if v.Form == formWhole {
			b = t.append(b, r, v.Payload)
			b = append(b, v.reason)
		} else {
			b = t.append(b, r, v.Layout)
			b = binary.AppendUvarint(b, uint64(len(v.Blocks)))
			for _, id := range v.Blocks {
				b = t.append(b, r, id)
			}
			b = appendString(b, string(v.Framing))
			if coded {
				b = appendString(b, string(v.Coding))
			}
		}
	}
	return b
}

func (d *dec) version(files []string, t *idTable) Version {
	var v Version
	d.fileIdx = -1
	if i := d.uvarint("file"); i < uint64(len(files)) {
		v.File, d.fileIdx = files[i], int(i)
	} else {
		d.fail("file index")
	}
	fi := d.fileIdx
	if d.ver >= 3 {
		if fi < 0 || fi >= len(d.segFiles) {
			fi = -1
		}
		var end int64
		if fi >= 0 {
			end = d.segFiles[fi].end
		}
		v.Offset = end + d.varint("offset")
		v.Length = int64(d.uvarint("length"))
		if v.Offset < 0 || v.Length < 0 {
			d.fail("offset")
		} else if fi >= 0 {
			d.segFiles[fi].end = v.Offset + v.Length
		}
	} else {
		v.Offset = int64(d.uvarint("offset"))
		v.Length = int64(d.uvarint("length"))
	}
	v.Skip = int64(d.uvarint("skip"))
	ref := t.sec
	if fi := d.fileIdx; d.ver >= 3 && fi >= 0 && fi < len(d.segFiles) && d.segFiles[fi].dated {
		ref = d.segFiles[fi].sec
	}
	sec := ref + d.varint("date")
	nsec := d.uvarint("date nanoseconds")
	t.sec = sec
	if fi := d.fileIdx; d.ver >= 3 && fi >= 0 && fi < len(d.segFiles) {
		d.segFiles[fi].sec, d.segFiles[fi].dated = sec, true
	}
	flags := d.uvarint("flags")
	if flags&1 != 0 {
		if nsec >= 1e9 {
			d.fail("date nanoseconds")
		}
		v.Date = time.Unix(sec, int64(nsec)).UTC()
	}
	v.BlockDigestOK, v.PayloadDigestOK = flags&2 != 0, flags&4 != 0
	coded := flags&flagCoded != 0
	if coded && d.ver < 4 {
		d.fail("flags")
	}
	v.Gap = flags&flagGap != 0
	if v.Gap && d.ver < 5 {
		d.fail("flags")
	}
	v.Type = d.str("type")
	v.RecordID = d.recordID()
	switch n := d.uvarint("target URI"); {
	case d.err != nil:
	case n == 0 && t.n == 0:
		d.fail("target URI")
	case n == 0:
		v.TargetURI = t.uri
	default:
		v.TargetURI = string(d.bytes(n-1, "target URI"))
	}
	t.uri, t.n = v.TargetURI, t.n+1
	v.Trailer = []byte(d.str("trailer"))
	v.Level = int(d.uvarint("level"))
	if c := d.rand(4, "crc"); c != nil {
		v.CRC = binary.LittleEndian.Uint32(c)
	}
	m := d.bytes(1, "mode")
	if m == nil {
		return v
	}
	v.Mode = m[0]
	switch v.Mode {
	case modeRaw:
		v.Record = d.ref(t, "record id")
	case modeBlock:
		v.WARCHeader, v.WARCAnchor, v.Block = d.cblob(colWARC, "warc header"), d.ref(t, "warc anchor"), d.ref(t, "block")
	case modeInline:
		if d.ver < 3 {
			d.fail("mode")
		}
		v.WARCHeader, v.WARCAnchor, v.inline = d.cblob(colWARC, "warc header"), d.ref(t, "warc anchor"), d.cblob(colInline, "inline block")
	case modeHTTP:
		v.WARCHeader, v.WARCAnchor = d.cblob(colWARC, "warc header"), d.ref(t, "warc anchor")
		v.HTTPHeader, v.HTTPAnchor = d.cblob(colHTTP, "http header"), d.ref(t, "http anchor")
		f := d.bytes(1, "form")
		if f == nil {
			return v
		}
		v.Form = f[0]
		switch v.Form {
		case formWhole:
			v.Payload = d.ref(t, "payload")
			if d.ver >= 3 {
				if r := d.bytes(1, "payload reason"); r != nil {
					v.reason = r[0]
				}
			}
		case formBlocks:
			v.Layout = d.ref(t, "layout")
			n := d.count("block count", 1)
			v.Blocks = make([]pack.ID, n)
			for i := range v.Blocks {
				v.Blocks[i] = d.ref(t, "block")
			}
			if v.Framing = d.blob("framing"); len(v.Framing) == 0 {
				v.Framing = nil
			}
			if coded {
				if v.Coding = d.blob("content coding"); len(v.Coding) == 0 {
					d.fail("content coding")
				}
				coded = false
			}
		default:
			d.fail("payload form")
		}
	default:
		d.fail("mode")
	}
	if coded { // flagged, but not a form-blocks payload
		d.fail("flags")
	}
	if v.Gap && v.Mode != modeRaw {
		d.fail("flags")
	}
	return v
}

func (d *dec) files() []string {
	n := d.count("file count", 1)
	out := make([]string, 0, n)
	for range n {
		out = append(out, d.str("file name"))
	}
	return out
}

// encodeSegment encodes the catalog entries urls as a segment. unique
// says whether an object may be written as a short reference (its id's
// first pack.RefLen bytes; pack.Writer.Unique); nil writes every id
// whole.
func encodeSegment(urls []URLVersions, unique func(pack.ID) (bool, error)) ([]byte, error) {
	var b []byte
	// The input files the segment names, each once.
	files := map[string]int{}
	var names []string
	for i := range urls {
		for j := range urls[i].Versions {
			f := urls[i].Versions[j].File
			if _, ok := files[f]; !ok {
				files[f] = len(names)
				names = append(names, f)
			}
		}
	}
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, n := range names {
		b = appendString(b, n)
	}
	b = binary.AppendUvarint(b, uint64(len(urls)))
	var r []byte
	var cols [numCols][]byte
	segFiles := make([]segFile, len(names))
	for i := range urls {
		b = appendString(b, urls[i].Key)
		b = binary.AppendUvarint(b, uint64(len(urls[i].Versions)))
		t := newIDTable()
		t.unique, t.files = unique, segFiles
		for j := range urls[i].Versions {
			b = appendVersion(b, &r, &cols, &urls[i].Versions[j], files, t)
		}
		if t.err != nil {
			return nil, t.err
		}
	}
	// The columns follow the main part, and the random fields go last:
	// mixed into the text, they would make zstd's literal coding worse.
	n := len(b) + len(r)
	for _, c := range cols {
		n += len(c)
	}
	out := make([]byte, 0, len(segmentMagic)+(2+numCols)*binary.MaxVarintLen64+n)
	out = append(out, segmentMagic...)
	out = binary.AppendUvarint(out, catalogVersion)
	out = binary.AppendUvarint(out, uint64(len(b)))
	for _, c := range cols {
		out = binary.AppendUvarint(out, uint64(len(c)))
	}
	out = append(out, b...)
	for _, c := range cols {
		out = append(out, c...)
	}
	return append(out, r...), nil
}

// resolver turns short object references into ids: pack.Store.Resolve.
type resolver = func(prefix []byte) (pack.ID, error)

// openSegment checks a segment's magic and version and returns a decoder
// of its two parts (docs/FORMAT.md "Catalog segment").
func openSegment(b []byte, resolve resolver) (*dec, error) {
	d := &dec{b: b[4:], split: true, resolve: resolve}
	if d.ver = d.uvarint("version"); d.err == nil && (d.ver < oldestCatalog || d.ver > catalogVersion) {
		return nil, fmt.Errorf("%w: segment version %d, this reader knows %d to %d", errCatalog, d.ver, oldestCatalog, catalogVersion)
	}
	n := d.uvarint("segment main part length")
	var cn [numCols]uint64
	if d.ver >= 3 {
		for c := range cn {
			cn[c] = d.uvarint("segment column length")
		}
	}
	rest := uint64(len(d.b))
	for _, l := range append(cn[:], n) {
		if d.err == nil && l > rest {
			d.fail("segment part length")
		}
		rest -= min(l, rest)
	}
	if d.err != nil {
		return nil, d.err
	}
	d.b, d.r = d.b[:n], d.b[n:]
	for c := range cn {
		d.cols[c], d.r = d.r[:cn[c]:cn[c]], d.r[cn[c]:]
	}
	return d, nil
}

// findInSegment decodes the segment and returns the versions of key
// (nil when absent). It decodes entries only up to key.
func findInSegment(b []byte, key string, resolve resolver) ([]Version, error) {
	if len(b) < 4 || string(b[:4]) != segmentMagic {
		return nil, fmt.Errorf("%w: segment has no %s magic", errCatalog, segmentMagic)
	}
	d, err := openSegment(b, resolve)
	if err != nil {
		return nil, err
	}
	files := d.files()
	d.segFiles = make([]segFile, len(files))
	n := d.count("url count", 2)
	for range n {
		k := d.str("key")
		nv := d.count("version count", minVersionBytes)
		if d.err != nil || k > key {
			break
		}
		d.skip = k != key
		vs := make([]Version, 0, nv)
		t := newIDTable()
		for range nv {
			v := d.version(files, t)
			if len(vs) > 0 {
				v.prevRecordID = vs[len(vs)-1].RecordID
			}
			vs = append(vs, v)
		}
		if d.err != nil {
			return nil, d.err
		}
		if k == key {
			return vs, nil
		}
	}
	return nil, d.err
}

// decodeSegment decodes every entry of a segment.
func decodeSegment(b []byte, resolve resolver) ([]URLVersions, error) {
	if len(b) < 4 || string(b[:4]) != segmentMagic {
		return nil, fmt.Errorf("%w: segment has no %s magic", errCatalog, segmentMagic)
	}
	d, err := openSegment(b, resolve)
	if err != nil {
		return nil, err
	}
	files := d.files()
	d.segFiles = make([]segFile, len(files))
	n := d.count("url count", 2)
	out := make([]URLVersions, 0, n)
	for range n {
		u := URLVersions{Key: d.str("key")}
		nv := d.count("version count", minVersionBytes)
		t := newIDTable()
		for range nv {
			v := d.version(files, t)
			if len(u.Versions) > 0 {
				v.prevRecordID = u.Versions[len(u.Versions)-1].RecordID
			}
			u.Versions = append(u.Versions, v)
		}
		if d.err != nil {
			return nil, d.err
		}
		out = append(out, u)
	}
	if d.err == nil && (len(d.b) != 0 || len(d.r) != 0 || len(d.cols[colWARC])+len(d.cols[colHTTP])+len(d.cols[colInline]) != 0) {
		d.fail("segment length")
	}
	return out, d.err
}

// sortVersions puts versions in capture order and drops repeats of the
// same input record (left by a resumed ingest).
func sortVersions(vs []Version) []Version {
	sort.SliceStable(vs, func(i, j int) bool {
		a, b := &vs[i], &vs[j]
		if !a.Date.Equal(b.Date) {
			return a.Date.Before(b.Date)
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Offset < b.Offset
	})
	out := vs[:0]
	for i := range vs {
		if len(out) > 0 && out[len(out)-1].File == vs[i].File && out[len(out)-1].Offset == vs[i].Offset && out[len(out)-1].Skip == vs[i].Skip {
			continue
		}
		out = append(out, vs[i])
	}
	return out
}

// idTable writes the object ids of one URL's versions: an id already
// written for the URL is written as its position in the table, a new one
// as a short reference (its first pack.RefLen bytes) when that names it
// alone, else whole. Successive captures share most of their ids
// (anchors, layout, unchanged blocks), so they cost a byte or two each;
// a new id costs 1 + pack.RefLen bytes instead of 33.
type idTable struct {
	ids    []pack.ID
	pos    map[pack.ID]int
	files  []segFile // the segment's, shared by its URLs' tables
	sec    int64     // date of the previous version, Unix seconds (dates are written as differences)
	uri    string    // target URI of the previous version
	n      int       // versions written or read so far
	unique func(pack.ID) (bool, error)
	err    error
}

// Tags of an object reference in catalog version 3; a tag t ≥ refTable
// is the id at position t − refTable + 1 (1-based) of the URL's table.
const (
	refShort = 0 // a new id: its first pack.RefLen bytes (random part)
	refFull  = 1 // a new id: its 32 bytes (random part)
	refTable = 2
)

// segFile is what a segment's encoder and decoder remember of an input
// file: the end (offset + length) and date of its record written last in
// the segment (version 3 offsets and dates are differences from them).
type segFile struct {
	end   int64
	sec   int64
	dated bool
}

func newIDTable() *idTable { return &idTable{pos: map[pack.ID]int{}} }

func (t *idTable) append(b []byte, r *[]byte, id pack.ID) []byte {
	if i, ok := t.pos[id]; ok {
		return binary.AppendUvarint(b, uint64(i+refTable))
	}
	t.pos[id] = len(t.ids)
	t.ids = append(t.ids, id)
	// The zero id (a header encoded without anchor) names no object.
	short := false
	if t.unique != nil && id != (pack.ID{}) {
		var err error
		if short, err = t.unique(id); err != nil && t.err == nil {
			t.err = fmt.Errorf("encode catalog: %w", err)
		}
	}
	if short {
		*r = append(*r, id[:pack.RefLen]...)
		return binary.AppendUvarint(b, refShort)
	}
	*r = append(*r, id[:]...)
	return binary.AppendUvarint(b, refFull)
}

func (d *dec) ref(t *idTable, what string) pack.ID {
	i := d.uvarint(what)
	if d.err != nil {
		return pack.ID{}
	}
	if d.ver < 3 { // 0: 32 bytes; i ≥ 1: position i
		i++
	}
	switch {
	case i == refShort:
		p := d.rand(pack.RefLen, what)
		if d.err != nil || d.skip {
			t.ids = append(t.ids, pack.ID{})
			return pack.ID{}
		}
		if d.resolve == nil {
			d.err = fmt.Errorf("%w: short reference to %x and no store to resolve it", errCatalog, p)
			return pack.ID{}
		}
		id, err := d.resolve(p)
		if err != nil {
			d.err = fmt.Errorf("resolve %s reference %x: %w", what, p, err)
			return pack.ID{}
		}
		t.ids = append(t.ids, id)
		return id
	case i == refFull:
		id := d.id(what)
		t.ids = append(t.ids, id)
		return id
	case i-refTable >= uint64(len(t.ids)):
		d.fail(what)
		return pack.ID{}
	}
	return t.ids[i-refTable]
}

// Record ids are mostly "<urn:uuid:…>" with 16 random bytes spelt in 36
// lower-case characters: stored binary (tag 1, 16 bytes) they cost half.
// Anything else is stored as text (tag 0).
const uuidPrefix, uuidSuffix = "<urn:uuid:", ">"

func parseUUID(s string) ([16]byte, bool) {
	var u [16]byte
	if len(s) != len(uuidPrefix)+36+len(uuidSuffix) || s[:len(uuidPrefix)] != uuidPrefix || s[len(s)-1:] != uuidSuffix {
		return u, false
	}
	h := s[len(uuidPrefix) : len(s)-1]
	if h[8] != '-' || h[13] != '-' || h[18] != '-' || h[23] != '-' {
		return u, false
	}
	hex := h[:8] + h[9:13] + h[14:18] + h[19:23] + h[24:]
	for i := range 16 {
		hi, ok1 := unhex(hex[2*i])
		lo, ok2 := unhex(hex[2*i+1])
		if !ok1 || !ok2 {
			return u, false
		}
		u[i] = hi<<4 | lo
	}
	return u, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false // upper case is kept as text: it must come back as stored
}

func formatUUID(u [16]byte) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 0, 47)
	b = append(b, uuidPrefix...)
	for i, x := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, digits[x>>4], digits[x&15])
	}
	return string(append(b, uuidSuffix...))
}

// appendRecordID appends the record id to b, its 16 binary bytes (tag 1)
// to *r, or to b when r is nil.
func appendRecordID(b []byte, r *[]byte, id string) []byte {
	if u, ok := parseUUID(id); ok {
		b = append(b, 1)
		if r == nil {
			return append(b, u[:]...)
		}
		*r = append(*r, u[:]...)
		return b
	}
	b = append(b, 0)
	return appendString(b, id)
}

func (d *dec) recordID() string {
	tag := d.bytes(1, "record id")
	if tag == nil {
		return ""
	}
	switch tag[0] {
	case 0:
		return d.str("record id")
	case 1:
		var u [16]byte
		copy(u[:], d.rand(16, "record id"))
		return formatUUID(u)
	}
	d.fail("record id tag")
	return ""
}

// minVersionBytes is the fewest main-part bytes a version takes (a gap:
// 14 one-byte fields, record id tag and empty string), so that a count
// claiming more versions than the bytes can hold is refused early.
const minVersionBytes = 15
