package dedupe

// Storage says how a Version's record is stored and why: what the
// tables, the report and ls show. Its fields print as the names the
// tables' storage and storage_reason columns hold.
type Storage struct {
	How How
	Why Why
}

// How is the form a record is stored in.
type How uint8

const (
	// StoredBlocks: a 200 text/html payload as layout + blocks (Why is
	// WhyNone, or WhyContentEncoding when the payload was content-coded
	// and is kept as the blocks of its decoded document, re-encoded on
	// restore).
	StoredBlocks How = iota + 1
	// StoredPayload: an HTTP payload stored whole (Why says why not as
	// blocks).
	StoredPayload
	// StoredBlock: a record without an HTTP message, as header + block
	// (WhyNotHTTP or WhyHTTPUnparseable).
	StoredBlock
	// StoredInline: the same, with the block (at most 2 KiB) held in
	// the catalog entry, not as an object (Version.Block is zero).
	StoredInline
	// StoredRecord: the whole record stored raw (WhyMismatch: the model
	// did not reproduce it byte for byte).
	StoredRecord
	// StoredGap: bytes of an input file between records
	// (WhyBetweenRecords; Version.Gap).
	StoredGap
)

var howNames = [...]string{"unknown", "blocks", "payload", "block", "inline", "record", "gap"}

func (h How) String() string {
	if int(h) < len(howNames) {
		return howNames[h]
	}
	return howNames[0]
}

// Why is the reason for a How.
type Why uint8

// The first values are the catalog's reason byte for a whole payload
// (docs/FORMAT.md "Catalog segment"); the others are derived.
const (
	WhyUnknown         Why = iota // catalog version 2 did not record it
	WhyRequest                    // the body of an HTTP request
	WhyNot200                     // a response whose status is not 200
	WhyNotHTML                    // a 200 response not of media type text/html
	WhyEmpty                      // an empty payload
	WhyContentEncoding            // gzip/br/... encoded HTML
	WhyChunking                   // chunked framing that does not de-chunk and rebuild exactly
	WhyPartition                  // the partitioner refused the page
	WhyNone                       // StoredBlocks of an uncoded payload
	WhyNotHTTP                    // a record type without an HTTP message
	WhyHTTPUnparseable            // request/response/revisit whose block is not a complete HTTP message
	WhyMismatch                   // the model did not reproduce the record
	WhyBetweenRecords             // a gap
)

// numReasons bounds the reason byte of a catalog entry.
const numReasons = WhyNone

var whyNames = [...]string{"unknown", "request", "not-200", "not-html", "empty", "content-encoding", "chunking", "partition",
	"", "not-http", "http-unparseable", "mismatch", "between-records"}

func (w Why) String() string {
	if int(w) < len(whyNames) {
		return whyNames[w]
	}
	return whyNames[0]
}

// Storage says how the record of v is stored and why. Every form but
// StoredRecord and StoredGap holds the WARC and HTTP headers as encodings
// against anchors.
func (v *Version) Storage() Storage {
	switch v.Mode {
	case modeHTTP:
		if v.Form == formBlocks {
			if v.Coding != nil {
				return Storage{StoredBlocks, WhyContentEncoding}
			}
			return Storage{StoredBlocks, WhyNone}
		}
		r := Why(v.reason)
		if r >= numReasons {
			r = WhyUnknown
		}
		return Storage{StoredPayload, r}
	case modeBlock, modeInline:
		s := Storage{How: StoredBlock, Why: WhyNotHTTP}
		if v.Mode == modeInline {
			s.How = StoredInline
		}
		if isHTTPType(v.Type) {
			s.Why = WhyHTTPUnparseable
		}
		return s
	case modeRaw:
		if v.Gap {
			return Storage{StoredGap, WhyBetweenRecords}
		}
		return Storage{StoredRecord, WhyMismatch}
	}
	return Storage{}
}
