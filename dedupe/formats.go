package dedupe

// Magics of the commit payload (the catalog root) and of a catalog
// segment, and the catalog version this code writes.
const (
	rootMagic      = "BWCT"
	segmentMagic   = "BWSG"
	filePartMagic  = "BWIF"
	catalogVersion = 10
	// segmentVersion is the version catalog segments are written in.
	segmentVersion = 9
	// oldestCatalog and newestCatalog bound the versions this reader
	// knows.
	oldestCatalog = 2
	newestCatalog = catalogVersion
	// maxFileRows bounds the rows of one part of the input-file table, so
	// that a damaged root cannot announce absurd counts.
	maxFileRows = 1 << 30
)

// catalogFormat is how one catalog version is read (docs/FORMAT.md
// "Catalog root", "Catalog segment"). Each version's entry names its
// decoders; a version that only adds fields or flag bits to its
// predecessor shares the predecessor's decoders and says what it added,
// so a new version is a new entry, and the old ones stay as they were.
type catalogFormat struct {
	// rootZstd: the root body after magic and version is one zstd frame.
	rootZstd bool
	// fileRow reads one row of the input-file table, given the row
	// before it (names, sizes are coded against it).
	fileRow func(d *dec, prev *InputFile) InputFile
	// columns: segments keep header encodings and inline blocks in
	// column parts (colWARC…), and may hold modeInline versions.
	columns bool
	// shortRefs: object references are tagged short, full or table
	// position (refShort…); before, 0 was a full id and i ≥ 1 position i.
	shortRefs bool
	// reasons: a whole payload is followed by its reason byte.
	reasons bool
	// version reads one version of a segment.
	version func(d *dec, files []string, t *idTable) Version
	// flags are the version flag bits the catalog version may set.
	flags uint64
	// openIngest: the root ends with the position of an ingest in
	// progress (root.Open).
	openIngest bool
	// placeRefs: object references may name objects by place
	// (refPlace), and table positions start at refTable9.
	placeRefs bool
	// fileParts: the root lists the parts of the input-file table
	// (objects) instead of holding its rows, and ends with a flag byte
	// saying whether an open ingest's position follows.
	fileParts, openFlag bool
	// runDates: each run of the root is followed by its capture dates
	// (runDates).
	runDates bool
}

var catalogFormats = map[uint64]*catalogFormat{
	2: {fileRow: fileRowV2, version: (*dec).versionV2,
		flags: flagDated | flagBlockDigest | flagPayloadDigest},
	// Short references, inline blocks, column parts, per-file offsets
	// and dates as differences, record counts per input file.
	3: {fileRow: fileRowV3, columns: true, shortRefs: true, reasons: true, version: (*dec).versionV3,
		flags: flagDated | flagBlockDigest | flagPayloadDigest},
	// The root compressed; content-coded pages as blocks (flagCoded).
	4: {rootZstd: true, fileRow: fileRowV3, columns: true, shortRefs: true, reasons: true, version: (*dec).versionV3,
		flags: flagDated | flagBlockDigest | flagPayloadDigest | flagCoded},
	// Input streams (length, SHA-256, gaps) per file; gaps (flagGap).
	5: {rootZstd: true, fileRow: fileRowV5, columns: true, shortRefs: true, reasons: true, version: (*dec).versionV3,
		flags: flagDated | flagBlockDigest | flagPayloadDigest | flagCoded | flagGap},
	// Per input file, whether it restores bit-exact compressed and the
	// gzip member table that does it.
	6: {rootZstd: true, fileRow: fileRowV6, columns: true, shortRefs: true, reasons: true, version: (*dec).versionV3,
		flags: flagDated | flagBlockDigest | flagPayloadDigest | flagCoded | flagGap},
	// A root of version 6 followed by the position of the ingest in
	// progress; segments are never of this version.
	7: {rootZstd: true, fileRow: fileRowV6, columns: true, shortRefs: true, reasons: true, version: (*dec).versionV3,
		flags: flagDated | flagBlockDigest | flagPayloadDigest | flagCoded | flagGap, openIngest: true},
	// The input-file table moves out of COMMIT into parts stored as
	// objects; the open ingest's position behind a flag.
	8: {rootZstd: true, fileRow: fileRowV8, columns: true, shortRefs: true, reasons: true, version: (*dec).versionV3,
		flags: flagDated | flagBlockDigest | flagPayloadDigest | flagCoded | flagGap, fileParts: true, openFlag: true},
	// Objects named by place (refPlace); root as in version 8.
	9: {rootZstd: true, fileRow: fileRowV8, columns: true, shortRefs: true, reasons: true, version: (*dec).versionV3,
		flags: flagDated | flagBlockDigest | flagPayloadDigest | flagCoded | flagGap, fileParts: true, openFlag: true, placeRefs: true},
	// Each run's capture dates, so that Find reads only the runs that
	// may hold its answer; segments as in version 9.
	10: {rootZstd: true, fileRow: fileRowV8, columns: true, shortRefs: true, reasons: true, version: (*dec).versionV3,
		flags: flagDated | flagBlockDigest | flagPayloadDigest | flagCoded | flagGap, fileParts: true, openFlag: true, placeRefs: true, runDates: true},
}
