package report

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Report is the storage report of one archive. Its JSON form (WriteJSON)
// is the machine-readable output of `blockwarc report -json`; the field
// names are stable and documented in docs/REPORT.md. Byte counts are
// int64 bytes, shares and rates are fractions in [0, 1], a nil pointer
// (JSON null) is a figure that cannot be computed.
type Report struct {
	Archive string `json:"archive"` // archive directory as given

	InputFiles   int64 `json:"input_files"`   // input files ingested
	InputBytes   int64 `json:"input_bytes"`   // their stored (compressed) sizes
	ArchiveBytes int64 `json:"archive_bytes"` // archive directory without tables/
	SavedBytes   int64 `json:"saved_bytes"`   // input − archive (negative: the archive is larger)
	// Saving is 1 − archive/input; Ratio is input/archive. Null when the
	// divisor is 0.
	Saving *float64 `json:"saving"`
	Ratio  *float64 `json:"ratio"`
	// Inputs says how each input file restores (decompressed, compressed).
	Inputs Inputs `json:"inputs"`

	// Alternatives sets the archive beside other ways of keeping the
	// collection (docs/REPORT.md); the computed ones only with
	// Options.Alternatives.
	Alternatives Alternatives `json:"alternatives"`

	Categories []Category `json:"categories"`
	Records    Records    `json:"records"`
	Captures   Captures   `json:"captures"`
	// Storage counts captures by stored_as and stored_why (the captures
	// table), most first.
	Storage []Storage `json:"storage"`
	Blocks  Blocks    `json:"blocks"`
	// Hosts are the hosts with the most captures (Options.TopHosts), most
	// first; OtherHosts sums the rest (null when there is none).
	Hosts      []Host `json:"hosts"`
	OtherHosts *Host  `json:"other_hosts"`
	// NonHTTP sums the captures of URLs that are not http or https (wget's
	// metadata:// log, dns: lookups…), kept out of the URL, host and
	// change figures.
	NonHTTP NonHTTP `json:"non_http"`

	Backtest Backtest `json:"backtest"`

	// VolatileBlocks are the block positions (URL and block path) that
	// changed most often, most first (Options.TopBlocks).
	VolatileBlocks []VolatileBlock `json:"volatile_blocks"`
	// Timeline counts captures and changes per period over the whole
	// archive, oldest first.
	Timeline       []Period `json:"timeline"`
	TimelinePeriod string   `json:"timeline_period"` // "day", "week", "month" or "year"
	// URLSeries are the capture histories of the URLs with the most
	// captures (Options.TopURLs), most captures first.
	URLSeries []URLSeries `json:"url_series"`
}

// Category names, in the order the report lists them.
const (
	CatWARCHeaders   = "warc_headers"
	CatHTTPHeaders   = "http_headers"
	CatLayouts       = "layouts"
	CatBlocks        = "blocks"
	CatBlockDeltas   = "block_deltas"
	CatOtherPayloads = "other_payloads"
	CatIndexMetadata = "index_metadata"
	CatOtherFiles    = "other_files"
)

// Category is one share of the archive bytes.
type Category struct {
	Name        string  `json:"name"`
	StoredBytes int64   `json:"stored_bytes"` // bytes on disk
	Share       float64 `json:"share"`        // StoredBytes ÷ archive bytes (0 for an empty archive)
	PlainBytes  int64   `json:"plain_bytes"`  // uncompressed bytes of the objects (0 for structures)
	Objects     int64   `json:"objects"`      // objects (0 for structures and inline encodings)
}

// Records counts the input records.
type Records struct {
	// Read is how many records ingest read from the inputs and Malformed
	// how many malformed records its readers skipped; null when the
	// archive does not know (files ingested under catalog version 2).
	Read      *int64 `json:"read"`
	Malformed *int64 `json:"malformed"`
	// Stored is how many records the catalog holds.
	Stored int64 `json:"stored"`
	// ByType counts the stored records by WARC-Type, most first.
	ByType []Count `json:"by_type"`
	// Storage counts every stored record (captures and the others:
	// requests, warcinfo, metadata) by how and why it is stored
	// (dedupe.Version.Storage), most first.
	Storage []Storage `json:"storage"`
}

// Count is a named count.
type Count struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
}

// Captures sums the captures table.
type Captures struct {
	// Total counts all captures (response, revisit, resource records);
	// the figures below it down to Revisits count the web captures only
	// (url_protocol http or https): the others are in Report.NonHTTP.
	Total     int64 `json:"total"`
	URLs      int64 `json:"urls"`      // distinct url_surtkey
	Hosts     int64 `json:"hosts"`     // distinct hosts
	First     int64 `json:"first"`     // first captures of their URL (changed is null)
	Changed   int64 `json:"changed"`   // content differs from the previous capture
	Unchanged int64 `json:"unchanged"` // content equals the previous capture
	// TextChanged and MarkupOnly split the changed captures compared block
	// by block (captures.text_changed not null): the page's visible text
	// changed, or only its markup did (a nonce, a token, &nbsp;). Changed
	// captures not compared that way (not HTML, kept whole) are in neither.
	TextChanged int64 `json:"text_changed"`
	MarkupOnly  int64 `json:"markup_only"`
	Revisits    int64 `json:"revisits"`  // warc_type revisit
	AsBlocks    int64 `json:"as_blocks"` // stored_as blocks
	Whole       int64 `json:"whole"`     // stored otherwise (payload, block, record)
	// PayloadBytes sums payload_length (uncompressed), AddedBytes sums
	// added_bytes (uncompressed bytes of the objects first referenced),
	// RecordBytes sums warc_record_length (input, compressed as stored).
	PayloadBytes int64      `json:"payload_bytes"`
	AddedBytes   int64      `json:"added_bytes"`
	RecordBytes  int64      `json:"record_bytes"`
	FirstTime    *time.Time `json:"first_time"`
	LastTime     *time.Time `json:"last_time"`
}

// Storage counts captures (or records) stored one way for one reason.
type Storage struct {
	StoredAs  string `json:"stored_as"`
	StoredWhy string `json:"stored_why"` // "" when stored as blocks, or "content-encoding" when re-encoded from blocks
	Count     int64  `json:"count"`
}

// Blocks sums the blocks and capture_blocks tables.
type Blocks struct {
	Distinct         int64   `json:"distinct"`           // rows of the blocks table
	Bytes            int64   `json:"bytes"`              // their bytes, each once
	References       int64   `json:"references"`         // rows of capture_blocks
	ReferencedBytes  int64   `json:"referenced_bytes"`   // Σ bytes × captures: what storing every capture's blocks would cost
	SharedAcrossURLs int64   `json:"shared_across_urls"` // blocks appearing in more than one URL
	SharedBytes      int64   `json:"shared_bytes"`       // their bytes, each once
	Statuses         []Count `json:"statuses"`           // capture_blocks rows by status
	Labels           []Count `json:"labels"`             // distinct blocks by label, most first
}

// Host sums the captures of one host.
type Host struct {
	Host         string `json:"host"`
	URLs         int64  `json:"urls"`
	Captures     int64  `json:"captures"`
	Changed      int64  `json:"changed"`
	RecordBytes  int64  `json:"record_bytes"`  // Σ warc_record_length (input, compressed)
	PayloadBytes int64  `json:"payload_bytes"` // Σ payload_length (uncompressed)
	AddedBytes   int64  `json:"added_bytes"`   // Σ added_bytes (uncompressed)
	// InputBytes and StoredBytes are the host's shares of input_bytes and
	// archive_bytes: input_bytes apportioned by record_bytes, archive_bytes
	// by added_bytes (docs/REPORT.md). Over all hosts and non_http they
	// sum to the headline's input and archive bytes.
	InputBytes  int64 `json:"input_bytes"`
	StoredBytes int64 `json:"stored_bytes"`
	// Saving is 1 − stored_bytes ÷ input_bytes, the headline's saving for
	// the host; null when input_bytes is 0.
	Saving *float64 `json:"saving"`
	// PayloadSaving is 1 − added_bytes ÷ payload_bytes: the share of the
	// payload bytes the archive did not have to store again, before
	// compression. Null when payload_bytes is 0.
	PayloadSaving *float64 `json:"payload_saving"`
}

// NonHTTP sums the captures of URLs whose scheme is not http or https.
type NonHTTP struct {
	Captures    int64   `json:"captures"`
	URLs        int64   `json:"urls"`
	RecordBytes int64   `json:"record_bytes"`
	AddedBytes  int64   `json:"added_bytes"`
	InputBytes  int64   `json:"input_bytes"`  // share of input_bytes, as for a host
	StoredBytes int64   `json:"stored_bytes"` // share of archive_bytes, as for a host
	Schemes     []Count `json:"schemes"`      // captures by url_protocol, most first
}

// Backtest is the change-rate model tested on the archive's own history;
// docs/REPORT.md gives the procedure and the definitions.
type Backtest struct {
	MinCaptures int     `json:"min_captures"` // URLs with fewer captures are not tested
	Threshold   float64 `json:"threshold"`    // predict "changed" when PChange ≥ Threshold

	// URLs counts the web pages: URLs with an HTTP capture (fetch_status
	// not null), and Intervals their intervals (rows of changes). URLs
	// whose captures are all non-HTTP records (a crawler's own log kept as
	// a resource record, say) are not tested; NotPages counts them.
	URLs            int64 `json:"urls"`
	NotPages        int64 `json:"not_pages"`
	URLsTested      int64 `json:"urls_tested"` // URLs the model predicted for
	Intervals       int64 `json:"intervals"`
	IntervalsTested int64 `json:"intervals_tested"` // intervals predicted (last third of tested URLs)

	ActualChanges    int64 `json:"actual_changes"`    // tested intervals that changed
	PredictedChanges int64 `json:"predicted_changes"` // tested intervals predicted to change
	CorrectChanges   int64 `json:"correct_changes"`   // predicted to change and changed
	CorrectUnchanged int64 `json:"correct_unchanged"` // predicted unchanged and unchanged
	// ExpectedChanges is Σ PChange over the tested intervals: the number
	// of changed intervals the model expects (calibration: compare with
	// ActualChanges).
	ExpectedChanges float64 `json:"expected_changes"`

	Precision         *float64 `json:"precision"`          // CorrectChanges ÷ PredictedChanges
	Recall            *float64 `json:"recall"`             // CorrectChanges ÷ ActualChanges
	Accuracy          *float64 `json:"accuracy"`           // correct predictions ÷ IntervalsTested
	BaseRate          *float64 `json:"base_rate"`          // ActualChanges ÷ IntervalsTested
	CoverageURLs      *float64 `json:"coverage_urls"`      // URLsTested ÷ URLs
	CoverageIntervals *float64 `json:"coverage_intervals"` // IntervalsTested ÷ Intervals
}

// VolatileBlock is one block position of one URL and how often it changed.
type VolatileBlock struct {
	URL       string  `json:"url"`
	Path      string  `json:"path"`      // block path (capture_blocks.path)
	Changes   int64   `json:"changes"`   // intervals whose changed_paths name the path
	Intervals int64   `json:"intervals"` // intervals of the URL
	Rate      float64 `json:"rate"`      // Changes ÷ Intervals
	// The block at the path in the URL's latest capture that had one,
	// with what the blocks table says of it ("" when unknown).
	BlockID string `json:"block_id"`
	Tag     string `json:"tag"`
	Label   string `json:"label"`
	Text    string `json:"text"` // the start of its text
}

// Period counts the captures dated in one period.
type Period struct {
	Start    time.Time `json:"start"`
	Captures int64     `json:"captures"`
	Changed  int64     `json:"changed"`
	// TextChanged and MarkupOnly split the changed captures compared block
	// by block, as Captures does.
	TextChanged int64 `json:"text_changed"`
	MarkupOnly  int64 `json:"markup_only"`
	// AddedBytes and RecordBytes sum the period's added_bytes and
	// warc_record_length: what the archive and the input grew by.
	AddedBytes  int64 `json:"added_bytes"`
	RecordBytes int64 `json:"record_bytes"`
}

// URLSeries is the capture history of one URL, for the charts.
type URLSeries struct {
	URL      string `json:"url"`
	Captures int64  `json:"captures"`
	Changes  int64  `json:"changes"`
	// Points are the captures in time order; when the URL has more than
	// Options.MaxPoints captures, each point is a run of consecutive
	// captures (Captures > 1), dated at its first.
	Points []Point `json:"points"`
}

// Point is one capture, or a run of consecutive captures, of a URLSeries.
type Point struct {
	Time     time.Time `json:"time"`
	Captures int64     `json:"captures"`
	Changes  int64     `json:"changes"` // of them, captures that changed
	// TextChanges and MarkupOnly split the changes compared block by
	// block: visible text changed, or markup only.
	TextChanges int64 `json:"text_changes"`
	MarkupOnly  int64 `json:"markup_only"`
}

// WriteJSON writes r as indented JSON followed by a newline.
func (r *Report) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	b = append(b, '\n')
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
