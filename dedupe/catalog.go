package dedupe

import (
	"bytes"
	"slices"
	"sort"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/warcio"
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
	// shard is the part of a union archive (Join) the version was read
	// from; 0 otherwise.
	shard int
	// read holds, while ingest models the record, the SHA-1 digests the
	// reader computed as the block streamed past: the header contexts take
	// them instead of hashing the block and payload twice more (encode and
	// check). Nil for versions read from a catalog.
	read    *warcio.Digests
	Layout  pack.ID   // formBlocks
	Blocks  []pack.ID // formBlocks, in layout order
	Framing []byte    // formBlocks: warcio.Framing encoding, inline; nil when not chunked
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

// Part is the part of a union archive (Join) v was read from; 0
// otherwise. An object named by place is an object of that part.
func (v *Version) Part() int { return v.shard }

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
	// Original is the member table that rebuilds the file as given (a
	// gzip file whose members zlib reproduces; catalog version 6), nil
	// otherwise; OriginalWhy says which (original* constants): see
	// OriginalExact and OriginalReason.
	Original    *Original
	OriginalWhy uint8
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
