package tables

import "time"

// The row types below are the tables of docs/TABLES.md, one field per
// column in the same order; a nil pointer is a null. The Builder produces
// them in table order and hands them to a Sink: the Parquet/Arrow writer
// and the storage report are both Sinks, so the report is computed from
// exactly the rows a notebook sees.

// Capture is a row of the captures table.
type Capture struct {
	URL                     string
	URLSURTKey              string
	URLHostName             string
	URLHostTLD              *string
	URLHostRegisteredDomain *string
	URLPath                 *string
	URLQuery                *string
	URLScheme               string
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
}

// Block is a row of the blocks table.
type Block struct {
	BlockID         string
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
	BlockID            string
	Status             string
	TextChanged        bool
	PredecessorBlockID *string
	Similarity         *float64
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
	URLScheme               string
	Captures                int64
	Versions                int64
	FirstCapture            time.Time
	LastCapture             time.Time
	ObservedChanges         int64
	MeanIntervalDays        *float64
	ChangeRatePerDay        *float64
	ChangeRateMethod        *string
	ChangeRateRegularPerDay *float64
	ChangeRateMLEPerDay     *float64
	PChange1D               *float64
	PChange7D               *float64
	VolatilePaths           []string
}

// Link is a row of the links table: one link of a block, on a URL.
type Link struct {
	URLSURTKey string
	BlockID    string
	Ordinal    int32
	Tag        string
	Href       string
	TargetURL  *string
	AnchorText string
	Rel        *string
}

// LinkSink is a Sink that also takes the links table. Links arrive with
// the capture whose block first shows them on the URL, after its
// capture_blocks rows. A Sink that is not a LinkSink gets no links, and
// Build does not extract them.
type LinkSink interface {
	Sink
	Link(*Link) error
}

// Sink receives the rows of every table. Captures, CaptureBlocks, Changes
// and URLs arrive in table order (url_surtkey, then fetch_time), one URL
// after another: a URL's captures, capture_blocks and changes come before
// its urls row. Blocks rows arrive after every URL, in their own table
// order. Close is called once at the end (not after an error). The rows
// passed are not retained by the caller: a Sink may keep them.
type Sink interface {
	Capture(*Capture) error
	CaptureBlock(*CaptureBlock) error
	Change(*Change) error
	URL(*URL) error
	Block(*Block) error
	Close() error
}
