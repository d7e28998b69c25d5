package tables

import "time"

// The row types below are the tables of docs/TABLES.md, one field per
// column in the same order; a nil pointer is a null. The exceptions are
// the hex ids CaptureBlock.BlockID, CaptureBlock.PredecessorBlockID and
// Link.BlockID, which sinks in Go get for free but which are not columns:
// the tables refer to a block by its block_no and keep its 64-digit id
// once, in blocks (a hex id per capture_blocks and links row was a fifth
// of the tables' bytes). The Builder produces
// them in table order and hands them to a Sink: the Parquet/Arrow writer
// and the storage report are both Sinks, so the report is computed from
// exactly the rows a notebook sees.
//
// A table is one entry of Specs plus its row type (which names its spec
// with a Table method) and its columns in export/columnar.

// Spec describes one table.
type Spec struct {
	Name string // the table's name: its directory of part files, and its heading in docs/TABLES.md
	Doc  string // what one row is, as docs/TABLES.md's heading says it
}

// Table names.
const (
	CapturesTable      = "captures"
	BlocksTable        = "blocks"
	CaptureBlocksTable = "capture_blocks"
	ChangesTable       = "changes"
	URLsTable          = "urls"
	LinksTable         = "links"
)

// Specs lists the tables in the order of docs/TABLES.md, the order in
// which every writer lays them out.
var Specs = []Spec{
	{CapturesTable, "one row per capture"},
	{BlocksTable, "one row per distinct block"},
	{CaptureBlocksTable, "capture × block, in page order"},
	{ChangesTable, "one row per pair of successive captures of a URL"},
	{URLsTable, "one row per URL"},
	{LinksTable, "one row per link, per capture whose links changed"},
}

// Names returns the table names of Specs, in order.
func Names() []string {
	out := make([]string, len(Specs))
	for i, s := range Specs {
		out[i] = s.Name
	}
	return out
}

// Row is a row of one of the tables: a *Capture, *Block, *CaptureBlock,
// *Change, *URL or *Link.
type Row interface {
	// Table is the name of the row's table (a Spec's Name).
	Table() string
}

func (*Capture) Table() string      { return CapturesTable }
func (*Block) Table() string        { return BlocksTable }
func (*CaptureBlock) Table() string { return CaptureBlocksTable }
func (*Change) Table() string       { return ChangesTable }
func (*URL) Table() string          { return URLsTable }
func (*Link) Table() string         { return LinksTable }

// Capture is a row of the captures table.
type Capture struct {
	URL                     string
	URLSURTKey              string
	URLHostName             string
	URLHostTLD              *string
	URLHostRegisteredDomain *string
	URLPath                 *string
	URLQuery                *string
	URLProtocol             string
	URLPort                 *int32
	FetchTime               time.Time
	Version                 int32
	WARCType                string
	WARCRecordID            string
	FetchStatus             *int16
	FetchRedirect           *string
	ContentMIMEType         *string
	ContentCharset          *string
	ContentDigest           string
	PayloadLength           int64
	WARCFilename            string
	WARCRecordOffset        int64
	WARCRecordLength        int64
	Changed                 *bool
	TextChanged             *bool
	LayoutID                *string
	LayoutChanged           *bool
	BlocksTotal             int32
	BlocksAdded             int32
	BlocksRemoved           int32
	BlocksModified          int32
	BlocksUnchanged         int32
	BlocksTextChanged       int32
	StoredAs                string
	StoredWhy               *string
	AddedBytes              int64
	Title                   *string
	MainText                *string
	ContentLanguages        *string
	VisibleText             *string
	LinksVersion            *int32
}

// Block is a row of the blocks table.
type Block struct {
	BlockID         string
	BlockNo         int64
	FirstURL        string
	FirstURLSURTKey string
	FirstFetchTime  time.Time
	Tag             string
	Path            string
	Level           int32
	HTMLID          *string
	HTMLClass       *string
	Label           string
	Topic           []string
	Text            string
	Bytes           int32
	TextLength      int32
	Words           int32
	Links           int32
	LinkTextRatio   float64
	Images          int32
	Forms           int32
	Inputs          int32
	Headings        int32
	Position        float64
	Captures        int64
	URLs            int64
}

// CaptureBlock is a row of the capture_blocks table.
type CaptureBlock struct {
	URLSURTKey         string
	FetchTime          time.Time
	Version            int32
	Ordinal            int32
	Path               string
	BlockNo            int64
	Status             string
	TextChanged        bool
	PredecessorBlockNo *int64
	Similarity         *float64

	BlockID            string  // not a column: blocks.block_id of BlockNo
	PredecessorBlockID *string // not a column: blocks.block_id of PredecessorBlockNo
}

// Change is a row of the changes table.
type Change struct {
	URL               string
	URLSURTKey        string
	FromVersion       int32
	ToVersion         int32
	FromTime          time.Time
	ToTime            time.Time
	IntervalDays      float64
	Changed           bool
	TextChanged       *bool
	LayoutChanged     *bool
	BlocksAdded       int32
	BlocksRemoved     int32
	BlocksModified    int32
	BlocksUnchanged   int32
	BlocksTextChanged int32
	ChangedBytes      int64
	ChangedPartBytes  int64
	ChangedPaths      []string
}

// URL is a row of the urls table.
type URL struct {
	URL                     string
	URLSURTKey              string
	URLHostName             string
	URLHostTLD              *string
	URLHostRegisteredDomain *string
	URLPath                 *string
	URLQuery                *string
	URLProtocol             string
	URLPort                 *int32
	Captures                int64
	Versions                int64
	FirstCapture            time.Time
	LastCapture             time.Time
	ObservedChanges         int64
	MeanIntervalDays        *float64
	ChangeRatePerDay        *float64
	ChangeRateLowPerDay     *float64
	ChangeRateHighPerDay    *float64
	ChangeRateMethod        *string
	ChangeRateRegularPerDay *float64
	ChangeRateMLEPerDay     *float64
	PChange1D               *float64
	PChange7D               *float64
	VolatilePaths           []string
}

// Link is a row of the links table: one link of a capture whose links
// differ from its URL's previous capture with blocks.
type Link struct {
	URLSURTKey string
	Version    int32
	BlockNo    int64
	Ordinal    int32
	Tag        string
	Href       string
	TargetURL  *string
	AnchorText string
	Rel        *string

	BlockID string // not a column: blocks.block_id of BlockNo
}

// Sink receives the rows of every table it takes (Takes), one Add call
// per row. Captures, CaptureBlocks, Changes and URLs arrive in table order
// (url_surtkey, then fetch_time), one URL after another: a URL's captures,
// capture_blocks, links and changes come before its urls row; links arrive
// with the capture whose links changed, after its capture_blocks rows. Blocks rows arrive after every URL, in their own
// table order. Close is called once at the end (not after an error). The
// rows passed are not retained by the caller: a Sink may keep them.
//
// A Sink type-switches on the rows it uses and ignores the others, so a
// new table costs a sink nothing unless it reads it.
type Sink interface {
	// Takes says whether the sink wants the named table's rows. Build
	// asks it for the links only, which cost their own extraction: the
	// other tables' rows are by-products of one another and are all sent.
	Takes(table string) bool
	Add(Row) error
	Close() error
}

// TakesAll is a Takes for sinks that take every table.
func TakesAll(string) bool { return true }

// Tee returns a Sink that hands every row to each of sinks that takes its
// table, so that one walk of the archive feeds them all (the tables and
// the storage report): it takes what any of them takes. Close closes
// each, returning the first error.
func Tee(sinks ...Sink) Sink { return tee(sinks) }

type tee []Sink

func (t tee) Takes(table string) bool {
	for _, s := range t {
		if s.Takes(table) {
			return true
		}
	}
	return false
}

func (t tee) Add(r Row) error {
	name := r.Table()
	for _, s := range t {
		if !s.Takes(name) {
			continue
		}
		if err := s.Add(r); err != nil {
			return err
		}
	}
	return nil
}

func (t tee) Close() error {
	var first error
	for _, s := range t {
		if err := s.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
