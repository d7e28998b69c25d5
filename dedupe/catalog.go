package dedupe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"time"

	"blockwarc/dedupe/pack"
)

// Record modes of a Version (docs/FORMAT.md "Catalog segment").
const (
	modeRaw   = 0 // the record object is the whole record
	modeBlock = 1 // WARC header + block object
	modeHTTP  = 2 // WARC header + HTTP header + payload
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
	Block      pack.ID // modeBlock
	HTTPHeader []byte  // modeHTTP
	HTTPAnchor pack.ID
	Form       uint8
	Payload    pack.ID // formWhole

	// prevRecordID is the RecordID of the version before this one in its
	// catalog entry ("" for the first): a header may name it (a response's
	// WARC-Concurrent-To), so it is a Ref of the header's context.
	prevRecordID string
	Layout       pack.ID   // formBlocks
	Blocks       []pack.ID // formBlocks, in layout order
	Framing      []byte    // formBlocks: warcio.Framing encoding, inline; nil when not chunked
}

// URLVersions is the catalog entry of one key.
type URLVersions struct {
	Key      string
	Versions []Version
}

// segment and payload magics.
const (
	rootMagic      = "BWCT"
	segmentMagic   = "BWSG"
	catalogVersion = 2
)

// InputFile is a row of the input-file table: a file ingested completely.
type InputFile struct {
	Name   string
	Size   int64
	SHA256 [32]byte
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
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func (r *root) encode() []byte {
	b := []byte(rootMagic)
	b = binary.AppendUvarint(b, catalogVersion)
	b = binary.AppendUvarint(b, uint64(len(r.Files)))
	prev := ""
	for _, f := range r.Files {
		// Names are front-coded: dumps of one crawl share long prefixes
		// ("site-2022…"), and the table has a row per input file.
		n := commonPrefix(prev, f.Name)
		b = binary.AppendUvarint(b, uint64(n))
		b = appendString(b, f.Name[n:])
		prev = f.Name
		b = binary.AppendUvarint(b, uint64(f.Size))
		b = append(b, f.SHA256[:]...)
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

// dec reads the catalog encodings; the first error is sticky. In a
// segment, the fixed-size random fields (object ids, binary record ids,
// CRCs) are read from r, a part of their own after the rest (split).
type dec struct {
	b     []byte
	r     []byte
	split bool
	err   error
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
	if v := d.uvarint("version"); d.err == nil && v != catalogVersion {
		return nil, fmt.Errorf("%w: catalog version %d, want %d", errCatalog, v, catalogVersion)
	}
	nf := d.count("file count", 35)
	prev := ""
	for range nf {
		n := d.uvarint("file name prefix")
		if n > uint64(len(prev)) {
			d.fail("file name prefix")
		}
		if d.err != nil {
			break
		}
		name := prev[:n] + d.str("file name")
		prev = name
		f := InputFile{Name: name, Size: int64(d.uvarint("file size"))}
		copy(f.SHA256[:], d.bytes(32, "file digest"))
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

// appendVersion appends v to the segment's main part b and its random
// fields to *r.
func appendVersion(b []byte, r *[]byte, v *Version, files map[string]int, t *idTable) []byte {
	b = binary.AppendUvarint(b, uint64(files[v.File]))
	b = binary.AppendUvarint(b, uint64(v.Offset))
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
	b = binary.AppendVarint(b, sec-t.sec)
	b = binary.AppendUvarint(b, uint64(nsec))
	t.sec = sec
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
		b = appendString(b, string(v.WARCHeader))
		b = t.append(b, r, v.WARCAnchor)
		b = t.append(b, r, v.Block)
	case modeHTTP:
		b = appendString(b, string(v.WARCHeader))
		b = t.append(b, r, v.WARCAnchor)
		b = appendString(b, string(v.HTTPHeader))
		b = t.append(b, r, v.HTTPAnchor)
		b = append(b, v.Form)
		if v.Form == formWhole {
			b = t.append(b, r, v.Payload)
		} else {
			b = t.append(b, r, v.Layout)
			b = binary.AppendUvarint(b, uint64(len(v.Blocks)))
			for _, id := range v.Blocks {
				b = t.append(b, r, id)
			}
			b = appendString(b, string(v.Framing))
		}
	}
	return b
}

func (d *dec) version(files []string, t *idTable) Version {
	var v Version
	if i := d.uvarint("file"); i < uint64(len(files)) {
		v.File = files[i]
	} else {
		d.fail("file index")
	}
	v.Offset = int64(d.uvarint("offset"))
	v.Length = int64(d.uvarint("length"))
	v.Skip = int64(d.uvarint("skip"))
	sec := t.sec + d.varint("date")
	nsec := d.uvarint("date nanoseconds")
	t.sec = sec
	flags := d.uvarint("flags")
	if flags&1 != 0 {
		if nsec >= 1e9 {
			d.fail("date nanoseconds")
		}
		v.Date = time.Unix(sec, int64(nsec)).UTC()
	}
	v.BlockDigestOK, v.PayloadDigestOK = flags&2 != 0, flags&4 != 0
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
		v.WARCHeader, v.WARCAnchor, v.Block = d.blob("warc header"), d.ref(t, "warc anchor"), d.ref(t, "block")
	case modeHTTP:
		v.WARCHeader, v.WARCAnchor = d.blob("warc header"), d.ref(t, "warc anchor")
		v.HTTPHeader, v.HTTPAnchor = d.blob("http header"), d.ref(t, "http anchor")
		f := d.bytes(1, "form")
		if f == nil {
			return v
		}
		v.Form = f[0]
		switch v.Form {
		case formWhole:
			v.Payload = d.ref(t, "payload")
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
		default:
			d.fail("payload form")
		}
	default:
		d.fail("mode")
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

func encodeSegment(urls []URLVersions) []byte {
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
	for i := range urls {
		b = appendString(b, urls[i].Key)
		b = binary.AppendUvarint(b, uint64(len(urls[i].Versions)))
		t := newIDTable()
		for j := range urls[i].Versions {
			b = appendVersion(b, &r, &urls[i].Versions[j], files, t)
		}
	}
	// The random fields go last, after the length of what precedes them:
	// mixed into the text, they would make zstd's literal coding worse.
	out := make([]byte, 0, len(segmentMagic)+2*binary.MaxVarintLen64+len(b)+len(r))
	out = append(out, segmentMagic...)
	out = binary.AppendUvarint(out, catalogVersion)
	out = binary.AppendUvarint(out, uint64(len(b)))
	out = append(out, b...)
	return append(out, r...)
}

// openSegment checks a segment's magic and version and returns a decoder
// of its two parts (docs/FORMAT.md "Catalog segment").
func openSegment(b []byte) (*dec, error) {
	d := &dec{b: b[4:], split: true}
	if v := d.uvarint("version"); d.err == nil && v != catalogVersion {
		return nil, fmt.Errorf("%w: segment version %d", errCatalog, v)
	}
	n := d.uvarint("segment main part length")
	if d.err == nil && n > uint64(len(d.b)) {
		d.fail("segment main part length")
	}
	if d.err != nil {
		return nil, d.err
	}
	d.b, d.r = d.b[:n], d.b[n:]
	return d, nil
}

// findInSegment decodes the segment and returns the versions of key
// (nil when absent). It decodes entries only up to key.
func findInSegment(b []byte, key string) ([]Version, error) {
	if len(b) < 4 || string(b[:4]) != segmentMagic {
		return nil, fmt.Errorf("%w: segment has no %s magic", errCatalog, segmentMagic)
	}
	d, err := openSegment(b)
	if err != nil {
		return nil, err
	}
	files := d.files()
	n := d.count("url count", 2)
	for range n {
		k := d.str("key")
		nv := d.count("version count", 16)
		if d.err != nil || k > key {
			break
		}
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
func decodeSegment(b []byte) ([]URLVersions, error) {
	if len(b) < 4 || string(b[:4]) != segmentMagic {
		return nil, fmt.Errorf("%w: segment has no %s magic", errCatalog, segmentMagic)
	}
	d, err := openSegment(b)
	if err != nil {
		return nil, err
	}
	files := d.files()
	n := d.count("url count", 2)
	out := make([]URLVersions, 0, n)
	for range n {
		u := URLVersions{Key: d.str("key")}
		nv := d.count("version count", 16)
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
	if d.err == nil && (len(d.b) != 0 || len(d.r) != 0) {
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
// written for the URL is written as its 1-based position in the table,
// a new one as 0 and its 32 bytes. Successive captures share most of
// their ids (anchors, layout, unchanged blocks), so they cost a byte or
// two each instead of 32.
type idTable struct {
	ids []pack.ID
	pos map[pack.ID]int
	sec int64  // date of the previous version, Unix seconds (dates are written as differences)
	uri string // target URI of the previous version
	n   int    // versions written or read so far
}

func newIDTable() *idTable { return &idTable{pos: map[pack.ID]int{}} }

func (t *idTable) append(b []byte, r *[]byte, id pack.ID) []byte {
	if i, ok := t.pos[id]; ok {
		return binary.AppendUvarint(b, uint64(i+1))
	}
	t.pos[id] = len(t.ids)
	t.ids = append(t.ids, id)
	*r = append(*r, id[:]...)
	return binary.AppendUvarint(b, 0)
}

func (d *dec) ref(t *idTable, what string) pack.ID {
	i := d.uvarint(what)
	if d.err != nil {
		return pack.ID{}
	}
	if i == 0 {
		id := d.id(what)
		t.ids = append(t.ids, id)
		return id
	}
	if i > uint64(len(t.ids)) {
		d.fail(what)
		return pack.ID{}
	}
	return t.ids[i-1]
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
