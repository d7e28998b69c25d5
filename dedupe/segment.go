package dedupe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/pack"
)

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
	if !d.f.columns {
		return d.blob(what)
	}
	main := d.b
	d.b = d.cols[c]
	v := d.blob(what)
	d.cols[c], d.b = d.b, main
	return v
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
		flags |= flagDated
		sec, nsec = v.Date.Unix(), int64(v.Date.Nanosecond())
	}
	if v.BlockDigestOK {
		flags |= flagBlockDigest
	}
	if v.PayloadDigestOK {
		flags |= flagPayloadDigest
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

// versionV2 reads a version of catalog version 2: offsets and dates as
// they are (dates as differences from the URL's previous version).
func (d *dec) versionV2(files []string, t *idTable) Version {
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
	t.sec = sec
	d.entry(&v, t, sec)
	return v
}

// versionV3 reads a version of catalog versions 3 to 5: offsets and dates
// as differences from the record of the same file read before in the
// segment (segFile), a date from the URL's previous version when there is
// none. Versions 4 and 5 only add flag bits (catalogFormat.flags).
func (d *dec) versionV3(files []string, t *idTable) Version {
	var v Version
	var sf *segFile
	if i := d.uvarint("file"); i < uint64(len(files)) && i < uint64(len(d.segFiles)) {
		v.File, sf = files[i], &d.segFiles[i]
	} else {
		d.fail("file index")
		sf = &segFile{}
	}
	v.Offset = sf.end + d.varint("offset")
	v.Length = int64(d.uvarint("length"))
	if v.Offset < 0 || v.Length < 0 {
		d.fail("offset")
	} else {
		sf.end = v.Offset + v.Length
	}
	v.Skip = int64(d.uvarint("skip"))
	ref := t.sec
	if sf.dated {
		ref = sf.sec
	}
	sec := ref + d.varint("date")
	t.sec = sec
	sf.sec, sf.dated = sec, true
	d.entry(&v, t, sec)
	return v
}

// Flag bits of a version (docs/FORMAT.md "Catalog segment").
const (
	flagDated         = 1 // the date is known (else Version.Date is zero)
	flagBlockDigest   = 2 // Version.BlockDigestOK
	flagPayloadDigest = 4 // Version.PayloadDigestOK
)

// entry reads the rest of a version, the same in every catalog version
// but for what catalogFormat says: from the date's nanoseconds to the
// objects. sec is the date's Unix seconds.
func (d *dec) entry(v *Version, t *idTable, sec int64) {
	nsec := d.uvarint("date nanoseconds")
	flags := d.uvarint("flags")
	if flags&^d.f.flags != 0 {
		d.fail("flags")
	}
	if flags&flagDated != 0 {
		if nsec >= 1e9 {
			d.fail("date nanoseconds")
		}
		v.Date = time.Unix(sec, int64(nsec)).UTC()
	}
	v.BlockDigestOK, v.PayloadDigestOK = flags&flagBlockDigest != 0, flags&flagPayloadDigest != 0
	coded := flags&flagCoded != 0
	v.Gap = flags&flagGap != 0
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
		return
	}
	v.Mode = m[0]
	switch v.Mode {
	case modeRaw:
		v.Record = d.ref(t, "record id")
	case modeBlock:
		v.WARCHeader, v.WARCAnchor, v.Block = d.cblob(colWARC, "warc header"), d.ref(t, "warc anchor"), d.ref(t, "block")
	case modeInline:
		if !d.f.columns {
			d.fail("mode")
		}
		v.WARCHeader, v.WARCAnchor, v.inline = d.cblob(colWARC, "warc header"), d.ref(t, "warc anchor"), d.cblob(colInline, "inline block")
	case modeHTTP:
		v.WARCHeader, v.WARCAnchor = d.cblob(colWARC, "warc header"), d.ref(t, "warc anchor")
		v.HTTPHeader, v.HTTPAnchor = d.cblob(colHTTP, "http header"), d.ref(t, "http anchor")
		f := d.bytes(1, "form")
		if f == nil {
			return
		}
		v.Form = f[0]
		switch v.Form {
		case formWhole:
			v.Payload = d.ref(t, "payload")
			if d.f.reasons {
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
	var place uint64
	for i := range urls {
		b = appendString(b, urls[i].Key)
		b = binary.AppendUvarint(b, uint64(len(urls[i].Versions)))
		t := newIDTable()
		t.unique, t.files, t.place = unique, segFiles, &place
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
	out = binary.AppendUvarint(out, segmentVersion)
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

// readResolver resolves the id prefixes of catalog segments through s. A
// prefix no object has (the object is lost: the indexes were rebuilt
// without it) stands for the id of that prefix and zeros, which names no
// object either: the segment still reads, and what needs the object fails
// as not found, so that verify and repair can name the capture lost.
func readResolver(s *pack.Store) resolver { return lostResolver(s, nil) }

// lostResolver is readResolver that also calls lost (when set) with each
// id standing for a prefix that resolves to nothing, and the prefix's
// length.
func lostResolver(s *pack.Store, lost func(id pack.ID, n int)) resolver {
	return func(prefix []byte) (pack.ID, error) {
		id, err := s.Resolve(prefix)
		if errors.Is(err, pack.ErrNotFound) {
			var ph pack.ID
			copy(ph[:], prefix)
			if lost != nil {
				lost(ph, len(prefix))
			}
			return ph, nil
		}
		return id, err
	}
}

// openSegment checks a segment's magic and version and returns a decoder
// of its parts (docs/FORMAT.md "Catalog segment") positioned at its URL
// count, with the input file names the segment's versions name.
func openSegment(b []byte, resolve resolver) (*dec, []string, error) {
	if len(b) < 4 || string(b[:4]) != segmentMagic {
		return nil, nil, fmt.Errorf("%w: segment has no %s magic", errCatalog, segmentMagic)
	}
	d := &dec{b: b[4:], split: true, resolve: resolve}
	ver := d.uvarint("version")
	if d.f = catalogFormats[ver]; d.err == nil && d.f == nil {
		return nil, nil, fmt.Errorf("%w: segment version %d, this reader knows %d to %d", errCatalog, ver, oldestCatalog, catalogVersion)
	}
	if d.err != nil {
		return nil, nil, d.err
	}
	n := d.uvarint("segment main part length")
	var cn [numCols]uint64
	if d.f.columns {
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
		return nil, nil, d.err
	}
	d.b, d.r = d.b[:n], d.b[n:]
	for c := range cn {
		d.cols[c], d.r = d.r[:cn[c]:cn[c]], d.r[cn[c]:]
	}
	files := d.files()
	d.segFiles = make([]segFile, len(files))
	return d, files, d.err
}

// versions reads the nv versions of one URL entry, in capture order.
func (d *dec) versions(files []string, nv int) []Version {
	vs := make([]Version, 0, nv)
	t := newIDTable()
	for range nv {
		v := d.f.version(d, files, t)
		if len(vs) > 0 {
			v.prevRecordID = vs[len(vs)-1].RecordID
		}
		vs = append(vs, v)
	}
	return vs
}

// findInSegment decodes the segment and returns the versions of key
// (nil when absent). It decodes entries only up to key.
func findInSegment(b []byte, key string, resolve resolver) ([]Version, error) {
	d, files, err := openSegment(b, resolve)
	if err != nil {
		return nil, err
	}
	n := d.count("url count", 2)
	for range n {
		k := d.str("key")
		nv := d.count("version count", minVersionBytes)
		if d.err != nil || k > key {
			break
		}
		d.skip = k != key
		vs := d.versions(files, nv)
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
	d, files, err := openSegment(b, resolve)
	if err != nil {
		return nil, err
	}
	n := d.count("url count", 2)
	out := make([]URLVersions, 0, n)
	for range n {
		u := URLVersions{Key: d.str("key")}
		u.Versions = d.versions(files, d.count("version count", minVersionBytes))
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

// segFile is what a segment's encoder and decoder remember of an input
// file: the end (offset + length) and date of its record written last in
// the segment (version 3 offsets and dates are differences from them).
type segFile struct {
	end   int64
	sec   int64
	dated bool
}

// minVersionBytes is the fewest main-part bytes a version takes (a gap:
// 14 one-byte fields, record id tag and empty string), so that a count
// claiming more versions than the bytes can hold is refused early.
const minVersionBytes = 15
