package dedupe

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/blockwarc/blockwarc/dedupe/zlibenc"
)

// An input file's original bytes (docs/FORMAT.md "Restoring an input
// file"). The archive keeps a file's decompressed stream; a gzip file
// whose every member zlib reproduces from its decompressed bytes also
// gets a member table (Original, catalog version 6), and then
// export-warc -source -original writes the file as given, bit for bit:
// the stream cut at the members' decompressed lengths, each piece
// deflated with its member's zlib settings between its header and a
// recomputed trailer (CRC-32, length).

// Why a file does or does not restore bit-exact compressed
// (InputFile.OriginalWhy).
const (
	originalUnknown  = 0 // ingested before catalog version 6
	originalExact    = 1 // restores bit-exact: Original holds the member table
	originalNotGzip  = 2 // not a gzip file (uncompressed, zstd, bzip2...)
	originalNoParams = 3 // a member zlib does not reproduce with any setting tried
	originalDamaged  = 4 // not a clean sequence of gzip members (bad header or trailer, trailing bytes)
	originalStream   = 5 // the decompressed stream does not restore (not Rebuildable)
	originalLarge    = 6 // a member or the member table is too large
	originalNoZlib   = 7 // ingested by a build without zlib (cgo)
	originalSkipped  = 8 // ingest was told not to look (Options.SkipOriginal)
	originalChanged  = 9 // the file changed between the reads of ingest
	// originalPlain: the file is not compressed; its stream is the file
	// (same length and SHA-256), so it restores as given without a table.
	originalPlain   = 10
	originalReasons = 11
)

var originalWhyText = [originalReasons]string{
	originalUnknown:  "unknown (ingested before catalog version 6)",
	originalExact:    "restores bit-exact",
	originalNotGzip:  "not gzip",
	originalNoParams: "a gzip member zlib does not reproduce",
	originalDamaged:  "not a clean sequence of gzip members",
	originalStream:   "decompressed stream not rebuildable",
	originalLarge:    "gzip member or member table too large",
	originalNoZlib:   "ingested without zlib (cgo)",
	originalSkipped:  "not examined; 'blockwarc prove' examines it from the original",
	originalChanged:  "file changed while ingested",
	originalPlain:    "not compressed: the stream is the file",
}

// OriginalReason says why f does or does not restore bit-exact
// compressed.
func (f *InputFile) OriginalReason() string {
	if int(f.OriginalWhy) < len(originalWhyText) {
		return originalWhyText[f.OriginalWhy]
	}
	return "unknown"
}

// OriginalExact says that export-warc -source -original rebuilds f as
// given (compressed), checked against its SHA256: a gzip file through its
// member table, or an uncompressed file, which is its stream.
func (f *InputFile) OriginalExact() bool {
	return f.Rebuildable && (f.OriginalWhy == originalExact && f.Original != nil || f.OriginalWhy == originalPlain)
}

// OriginalRestorable says whether this build can write f as given
// (WriteOriginal), and if not why: f does not restore bit-exact, or it
// needs zlib and the build has none.
func (f *InputFile) OriginalRestorable() (bool, string) {
	switch {
	case !f.OriginalExact():
		return false, f.OriginalReason()
	case f.Original != nil && !zlibenc.Available:
		return false, "this build has no zlib (built without cgo)"
	}
	return true, ""
}

// NotProven says that f was ingested without the proof (ingest's default,
// -prove=false) and 'blockwarc prove' has not examined it yet.
func (f *InputFile) NotProven() bool { return f.OriginalWhy == originalSkipped }

// OriginalCompressed says that f is a gzip file that restores bit-exact
// compressed (OriginalExact, not merely uncompressed).
func (f *InputFile) OriginalCompressed() bool { return f.OriginalExact() && f.Original != nil }

// Limits of the member search: a member is held whole (compressed and
// decompressed) while tried, and the table lives in the catalog root,
// which every commit rewrites.
const (
	// maxMembers bounds a table's member count (a damaged one must not
	// overflow the sum).
	maxMembers     = 1 << 40
	maxMemberPlain = 64 << 20
	maxMemberTable = 4 << 20 // encoded bytes of one file's table
)

// Original is the member table of a gzip input file: per member its
// decompressed length, in runs of members sharing zlib settings and a
// header.
type Original struct {
	Headers []memberHeader
	Runs    []memberRun
	// Lens is the decompressed length of each member, in file order; nil
	// when PerPiece.
	Lens []int64
	// PerPiece (catalog version 8): member i holds exactly piece i of the
	// file's stream (its records and gaps in file order), as wget and
	// Heritrix write one member per record; the lengths are then the
	// pieces' and are not stored.
	PerPiece bool
	// extents sums the members' (offset, length) at ingest, to compare
	// with the pieces'.
	extents pieceSum
}

// pieceSum is an order-independent digest of a set of (compressed
// offset, skip, decompressed length) extents: the walk meets a file's
// records in URL order, the member search in file order.
type pieceSum struct {
	n   int64
	sum uint64
}

func (p *pieceSum) add(off, skip, n int64) {
	var b [24]byte
	binary.LittleEndian.PutUint64(b[:], uint64(off))
	binary.LittleEndian.PutUint64(b[8:], uint64(skip))
	binary.LittleEndian.PutUint64(b[16:], uint64(n))
	h := sha256.Sum256(b[:])
	p.n++
	p.sum += binary.LittleEndian.Uint64(h[:])
}

// markPerPiece drops the member lengths when the members are the file's
// records and gaps, one each (the members' extents are ps, the pieces'):
// a restore then takes each member's length from its piece. Ingest and
// prove both decide it here, so that their rows are the same bytes.
func (o *Original) markPerPiece(ps pieceSum) {
	if o != nil && o.extents.n > 0 && o.extents == ps {
		o.PerPiece, o.Lens = true, nil
	}
}

// members is the number of members of the file.
func (o *Original) members() int {
	n := 0
	for _, r := range o.Runs {
		n += r.Count
	}
	return n
}

// memberHeader is a gzip member header as written. With sl set, the
// header's FEXTRA "sl" subfield (wget, warcio: the member's length and
// its decompressed length, 32-bit little-endian each) is rewritten for
// each member at offset slAt; the bytes there are zero in Bytes.
type memberHeader struct {
	Bytes []byte
	SL    bool
	slAt  int
}

// memberRun is Count consecutive members deflated with P under header
// Header (an index of Original.Headers).
type memberRun struct {
	Count  int
	P      zlibenc.Params
	Header int
}
