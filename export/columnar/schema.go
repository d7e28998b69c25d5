package columnar

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/blockwarc/blockwarc/export/tables"
)

// Table names, in the order the files are described in docs/TABLES.md.
const (
	Captures      = tables.CapturesTable
	Blocks        = tables.BlocksTable
	CaptureBlocks = tables.CaptureBlocksTable
	Changes       = tables.ChangesTable
	URLs          = tables.URLsTable
	Links         = tables.LinksTable
)

// Tables lists the table names in the order of docs/TABLES.md.
func Tables() []string { return tables.Names() }

// Schema returns the Arrow schema of the named table (nil for an unknown
// name). Changing a schema changes what notebooks read: the golden file
// export/columnar/testdata/schema.golden fails the tests when one moves.
func Schema(table string) *arrow.Schema {
	if s := specByName[table]; s != nil {
		return s.schema()
	}
	return nil
}

// layout is how one table's rows become Arrow columns: the columnar half
// of a tables.Spec. layouts holds one per spec; an init check ties the two
// lists together, so a table added to tables.Specs without its columns
// (or the reverse) fails every test at once.
type layout interface {
	table() string
	schema() *arrow.Schema
	newTable(w *Writer) tableWriter
}

// rowPtr is a pointer to a row type of package tables.
type rowPtr[R any] interface {
	*R
	tables.Row
}

// rowLayout is the layout of the table whose rows are R: its columns, in
// docs/TABLES.md order, and an estimate of the builder bytes a row adds.
type rowLayout[R any, P rowPtr[R]] struct {
	cols []column[R]
	size func(*R) int
}

func (c rowLayout[R, P]) table() string         { return P(new(R)).Table() }
func (c rowLayout[R, P]) schema() *arrow.Schema { return schemaOf(c.cols) }
func (c rowLayout[R, P]) newTable(w *Writer) tableWriter {
	return newTable[R, P](w, c.table(), c.cols, c.size)
}

var layouts = []layout{
	rowLayout[tables.Capture, *tables.Capture]{captureCols, captureBytes},
	rowLayout[tables.Block, *tables.Block]{blockCols, blockBytes},
	rowLayout[tables.CaptureBlock, *tables.CaptureBlock]{captureBlockCols, captureBlockBytes},
	rowLayout[tables.Change, *tables.Change]{changeCols, changeBytes},
	rowLayout[tables.URL, *tables.URL]{urlCols, urlBytes},
	rowLayout[tables.Link, *tables.Link]{linkCols, linkBytes},
}

// specByName finds a table's layout; its keys are exactly tables.Specs'.
var specByName = func() map[string]layout {
	m := make(map[string]layout, len(layouts))
	for _, l := range layouts {
		m[l.table()] = l
	}
	if len(m) != len(layouts) || len(m) != len(tables.Specs) {
		panic(fmt.Sprintf("columnar: %d layouts for %d tables", len(layouts), len(tables.Specs)))
	}
	for _, s := range tables.Specs {
		if m[s.Name] == nil {
			panic("columnar: no columns for table " + s.Name)
		}
	}
	return m
}()

// column is one column of a table of rows R: its Arrow field and how a
// row's value is appended to the column's builder. Defining both together
// keeps the schema and the writer from drifting apart.
type column[R any] struct {
	field arrow.Field
	put   func(b array.Builder, r *R)
}

func schemaOf[R any](cols []column[R]) *arrow.Schema {
	fs := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fs[i] = c.field
	}
	return arrow.NewSchema(fs, nil)
}

// timestampType is timestamp[us, tz=UTC], the type of every time column.
var timestampType = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}

// stringListType is list<string>. The column is never null (a nil slice is
// an empty list) and no item is, but items are declared nullable: Parquet
// as pqarrow writes it has optional list elements, and the Arrow IPC files
// carry the same schema as the Parquet ones.
var stringListType = arrow.ListOf(arrow.BinaryTypes.String)

func str[R any](name string, get func(*R) string) column[R] {
	return column[R]{
		field: arrow.Field{Name: name, Type: arrow.BinaryTypes.String},
		put:   func(b array.Builder, r *R) { b.(*array.StringBuilder).Append(get(r)) },
	}
}

func optStr[R any](name string, get func(*R) *string) column[R] {
	return column[R]{
		field: arrow.Field{Name: name, Type: arrow.BinaryTypes.String, Nullable: true},
		put: func(b array.Builder, r *R) {
			if v := get(r); v != nil {
				b.(*array.StringBuilder).Append(*v)
			} else {
				b.AppendNull()
			}
		},
	}
}

func ts[R any](name string, get func(*R) time.Time) column[R] {
	return column[R]{
		field: arrow.Field{Name: name, Type: timestampType},
		put: func(b array.Builder, r *R) {
			b.(*array.TimestampBuilder).Append(arrow.Timestamp(get(r).UnixMicro()))
		},
	}
}

func i16opt[R any](name string, get func(*R) *int16) column[R] {
	return column[R]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		put: func(b array.Builder, r *R) {
			if v := get(r); v != nil {
				b.(*array.Int16Builder).Append(*v)
			} else {
				b.AppendNull()
			}
		},
	}
}

func i32[R any](name string, get func(*R) int32) column[R] {
	return column[R]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int32},
		put:   func(b array.Builder, r *R) { b.(*array.Int32Builder).Append(get(r)) },
	}
}

func i32opt[R any](name string, get func(*R) *int32) column[R] {
	return column[R]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		put: func(b array.Builder, r *R) {
			if v := get(r); v != nil {
				b.(*array.Int32Builder).Append(*v)
			} else {
				b.AppendNull()
			}
		},
	}
}

func i64[R any](name string, get func(*R) int64) column[R] {
	return column[R]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64},
		put:   func(b array.Builder, r *R) { b.(*array.Int64Builder).Append(get(r)) },
	}
}

func i64opt[R any](name string, get func(*R) *int64) column[R] {
	return column[R]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		put: func(b array.Builder, r *R) {
			if v := get(r); v != nil {
				b.(*array.Int64Builder).Append(*v)
			} else {
				b.AppendNull()
			}
		},
	}
}

func f64[R any](name string, get func(*R) float64) column[R] {
	return column[R]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64},
		put:   func(b array.Builder, r *R) { b.(*array.Float64Builder).Append(get(r)) },
	}
}

func f64opt[R any](name string, get func(*R) *float64) column[R] {
	return column[R]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		put: func(b array.Builder, r *R) {
			if v := get(r); v != nil {
				b.(*array.Float64Builder).Append(*v)
			} else {
				b.AppendNull()
			}
		},
	}
}

// f32 and f32opt write a float64 of the rows as float32: for a ratio in
// [0, 1] (a position, a share, a similarity) its 24-bit mantissa is exact
// to one part in 16 million, and it costs half the bytes (a float64's
// low mantissa bits are noise no compressor shrinks).
func f32[R any](name string, get func(*R) float64) column[R] {
	return column[R]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float32},
		put:   func(b array.Builder, r *R) { b.(*array.Float32Builder).Append(float32(get(r))) },
	}
}

func f32opt[R any](name string, get func(*R) *float64) column[R] {
	return column[R]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		put: func(b array.Builder, r *R) {
			if v := get(r); v != nil {
				b.(*array.Float32Builder).Append(float32(*v))
			} else {
				b.AppendNull()
			}
		},
	}
}

func boolean[R any](name string, get func(*R) bool) column[R] {
	return column[R]{
		field: arrow.Field{Name: name, Type: arrow.FixedWidthTypes.Boolean},
		put:   func(b array.Builder, r *R) { b.(*array.BooleanBuilder).Append(get(r)) },
	}
}

func boolOpt[R any](name string, get func(*R) *bool) column[R] {
	return column[R]{
		field: arrow.Field{Name: name, Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		put: func(b array.Builder, r *R) {
			if v := get(r); v != nil {
				b.(*array.BooleanBuilder).Append(*v)
			} else {
				b.AppendNull()
			}
		},
	}
}

func strList[R any](name string, get func(*R) []string) column[R] {
	return column[R]{
		field: arrow.Field{Name: name, Type: stringListType},
		put: func(b array.Builder, r *R) {
			lb := b.(*array.ListBuilder)
			lb.Append(true)
			vb := lb.ValueBuilder().(*array.StringBuilder)
			for _, s := range get(r) {
				vb.Append(s)
			}
		},
	}
}

// The columns of each table, in the order and with the types of
// docs/TABLES.md.

var captureCols = []column[tables.Capture]{
	str("url", func(r *tables.Capture) string { return r.URL }),
	str("url_surtkey", func(r *tables.Capture) string { return r.URLSURTKey }),
	str("url_host_name", func(r *tables.Capture) string { return r.URLHostName }),
	optStr("url_host_tld", func(r *tables.Capture) *string { return r.URLHostTLD }),
	optStr("url_host_registered_domain", func(r *tables.Capture) *string { return r.URLHostRegisteredDomain }),
	optStr("url_path", func(r *tables.Capture) *string { return r.URLPath }),
	optStr("url_query", func(r *tables.Capture) *string { return r.URLQuery }),
	str("url_protocol", func(r *tables.Capture) string { return r.URLProtocol }),
	i32opt("url_port", func(r *tables.Capture) *int32 { return r.URLPort }),
	ts("fetch_time", func(r *tables.Capture) time.Time { return r.FetchTime }),
	i32("version", func(r *tables.Capture) int32 { return r.Version }),
	str("warc_type", func(r *tables.Capture) string { return r.WARCType }),
	str("warc_record_id", func(r *tables.Capture) string { return r.WARCRecordID }),
	i16opt("fetch_status", func(r *tables.Capture) *int16 { return r.FetchStatus }),
	optStr("fetch_redirect", func(r *tables.Capture) *string { return r.FetchRedirect }),
	optStr("content_mime_type", func(r *tables.Capture) *string { return r.ContentMIMEType }),
	optStr("content_charset", func(r *tables.Capture) *string { return r.ContentCharset }),
	str("content_digest", func(r *tables.Capture) string { return r.ContentDigest }),
	i64("payload_length", func(r *tables.Capture) int64 { return r.PayloadLength }),
	str("warc_filename", func(r *tables.Capture) string { return r.WARCFilename }),
	i64("warc_record_offset", func(r *tables.Capture) int64 { return r.WARCRecordOffset }),
	i64("warc_record_length", func(r *tables.Capture) int64 { return r.WARCRecordLength }),
	boolOpt("changed", func(r *tables.Capture) *bool { return r.Changed }),
	boolOpt("text_changed", func(r *tables.Capture) *bool { return r.TextChanged }),
	optStr("layout_id", func(r *tables.Capture) *string { return r.LayoutID }),
	boolOpt("layout_changed", func(r *tables.Capture) *bool { return r.LayoutChanged }),
	i32("blocks_total", func(r *tables.Capture) int32 { return r.BlocksTotal }),
	i32("blocks_added", func(r *tables.Capture) int32 { return r.BlocksAdded }),
	i32("blocks_removed", func(r *tables.Capture) int32 { return r.BlocksRemoved }),
	i32("blocks_modified", func(r *tables.Capture) int32 { return r.BlocksModified }),
	i32("blocks_unchanged", func(r *tables.Capture) int32 { return r.BlocksUnchanged }),
	i32("blocks_text_changed", func(r *tables.Capture) int32 { return r.BlocksTextChanged }),
	str("stored_as", func(r *tables.Capture) string { return r.StoredAs }),
	optStr("stored_why", func(r *tables.Capture) *string { return r.StoredWhy }),
	i64("added_bytes", func(r *tables.Capture) int64 { return r.AddedBytes }),
	optStr("title", func(r *tables.Capture) *string { return r.Title }),
	optStr("main_text", func(r *tables.Capture) *string { return r.MainText }),
	optStr("content_languages", func(r *tables.Capture) *string { return r.ContentLanguages }),
	optStr("visible_text", func(r *tables.Capture) *string { return r.VisibleText }),
	i32opt("links_version", func(r *tables.Capture) *int32 { return r.LinksVersion }),
}

var blockCols = []column[tables.Block]{
	str("block_id", func(r *tables.Block) string { return r.BlockID }),
	i64("block_no", func(r *tables.Block) int64 { return r.BlockNo }),
	str("first_url", func(r *tables.Block) string { return r.FirstURL }),
	str("first_url_surtkey", func(r *tables.Block) string { return r.FirstURLSURTKey }),
	ts("first_fetch_time", func(r *tables.Block) time.Time { return r.FirstFetchTime }),
	str("tag", func(r *tables.Block) string { return r.Tag }),
	str("path", func(r *tables.Block) string { return r.Path }),
	i32("level", func(r *tables.Block) int32 { return r.Level }),
	optStr("html_id", func(r *tables.Block) *string { return r.HTMLID }),
	optStr("html_class", func(r *tables.Block) *string { return r.HTMLClass }),
	str("label", func(r *tables.Block) string { return r.Label }),
	strList("topic", func(r *tables.Block) []string { return r.Topic }),
	str("text", func(r *tables.Block) string { return r.Text }),
	i32("bytes", func(r *tables.Block) int32 { return r.Bytes }),
	i32("text_length", func(r *tables.Block) int32 { return r.TextLength }),
	i32("words", func(r *tables.Block) int32 { return r.Words }),
	i32("links", func(r *tables.Block) int32 { return r.Links }),
	f32("link_text_ratio", func(r *tables.Block) float64 { return r.LinkTextRatio }),
	i32("images", func(r *tables.Block) int32 { return r.Images }),
	i32("forms", func(r *tables.Block) int32 { return r.Forms }),
	i32("inputs", func(r *tables.Block) int32 { return r.Inputs }),
	i32("headings", func(r *tables.Block) int32 { return r.Headings }),
	f32("position", func(r *tables.Block) float64 { return r.Position }),
	i64("captures", func(r *tables.Block) int64 { return r.Captures }),
	i64("urls", func(r *tables.Block) int64 { return r.URLs }),
}

var captureBlockCols = []column[tables.CaptureBlock]{
	str("url_surtkey", func(r *tables.CaptureBlock) string { return r.URLSURTKey }),
	ts("fetch_time", func(r *tables.CaptureBlock) time.Time { return r.FetchTime }),
	i32("version", func(r *tables.CaptureBlock) int32 { return r.Version }),
	i32("ordinal", func(r *tables.CaptureBlock) int32 { return r.Ordinal }),
	str("path", func(r *tables.CaptureBlock) string { return r.Path }),
	i64("block_no", func(r *tables.CaptureBlock) int64 { return r.BlockNo }),
	str("status", func(r *tables.CaptureBlock) string { return r.Status }),
	boolean("text_changed", func(r *tables.CaptureBlock) bool { return r.TextChanged }),
	i64opt("predecessor_block_no", func(r *tables.CaptureBlock) *int64 { return r.PredecessorBlockNo }),
	f32opt("similarity", func(r *tables.CaptureBlock) *float64 { return r.Similarity }),
}

var linkCols = []column[tables.Link]{
	str("url_surtkey", func(r *tables.Link) string { return r.URLSURTKey }),
	i32("version", func(r *tables.Link) int32 { return r.Version }),
	i64("block_no", func(r *tables.Link) int64 { return r.BlockNo }),
	i32("ordinal", func(r *tables.Link) int32 { return r.Ordinal }),
	str("tag", func(r *tables.Link) string { return r.Tag }),
	str("href", func(r *tables.Link) string { return r.Href }),
	optStr("target_url", func(r *tables.Link) *string { return r.TargetURL }),
	str("anchor_text", func(r *tables.Link) string { return r.AnchorText }),
	optStr("rel", func(r *tables.Link) *string { return r.Rel }),
}

var changeCols = []column[tables.Change]{
	str("url", func(r *tables.Change) string { return r.URL }),
	str("url_surtkey", func(r *tables.Change) string { return r.URLSURTKey }),
	i32("from_version", func(r *tables.Change) int32 { return r.FromVersion }),
	i32("to_version", func(r *tables.Change) int32 { return r.ToVersion }),
	ts("from_time", func(r *tables.Change) time.Time { return r.FromTime }),
	ts("to_time", func(r *tables.Change) time.Time { return r.ToTime }),
	f64("interval_days", func(r *tables.Change) float64 { return r.IntervalDays }),
	boolean("changed", func(r *tables.Change) bool { return r.Changed }),
	boolOpt("text_changed", func(r *tables.Change) *bool { return r.TextChanged }),
	boolOpt("layout_changed", func(r *tables.Change) *bool { return r.LayoutChanged }),
	i32("blocks_added", func(r *tables.Change) int32 { return r.BlocksAdded }),
	i32("blocks_removed", func(r *tables.Change) int32 { return r.BlocksRemoved }),
	i32("blocks_modified", func(r *tables.Change) int32 { return r.BlocksModified }),
	i32("blocks_unchanged", func(r *tables.Change) int32 { return r.BlocksUnchanged }),
	i32("blocks_text_changed", func(r *tables.Change) int32 { return r.BlocksTextChanged }),
	i64("changed_bytes", func(r *tables.Change) int64 { return r.ChangedBytes }),
	i64("changed_part_bytes", func(r *tables.Change) int64 { return r.ChangedPartBytes }),
	strList("changed_paths", func(r *tables.Change) []string { return r.ChangedPaths }),
}

var urlCols = []column[tables.URL]{
	str("url", func(r *tables.URL) string { return r.URL }),
	str("url_surtkey", func(r *tables.URL) string { return r.URLSURTKey }),
	str("url_host_name", func(r *tables.URL) string { return r.URLHostName }),
	optStr("url_host_tld", func(r *tables.URL) *string { return r.URLHostTLD }),
	optStr("url_host_registered_domain", func(r *tables.URL) *string { return r.URLHostRegisteredDomain }),
	optStr("url_path", func(r *tables.URL) *string { return r.URLPath }),
	optStr("url_query", func(r *tables.URL) *string { return r.URLQuery }),
	str("url_protocol", func(r *tables.URL) string { return r.URLProtocol }),
	i32opt("url_port", func(r *tables.URL) *int32 { return r.URLPort }),
	i64("captures", func(r *tables.URL) int64 { return r.Captures }),
	i64("versions", func(r *tables.URL) int64 { return r.Versions }),
	ts("first_capture", func(r *tables.URL) time.Time { return r.FirstCapture }),
	ts("last_capture", func(r *tables.URL) time.Time { return r.LastCapture }),
	i64("observed_changes", func(r *tables.URL) int64 { return r.ObservedChanges }),
	f64opt("mean_interval_days", func(r *tables.URL) *float64 { return r.MeanIntervalDays }),
	f64opt("change_rate_per_day", func(r *tables.URL) *float64 { return r.ChangeRatePerDay }),
	f64opt("change_rate_low_per_day", func(r *tables.URL) *float64 { return r.ChangeRateLowPerDay }),
	f64opt("change_rate_high_per_day", func(r *tables.URL) *float64 { return r.ChangeRateHighPerDay }),
	optStr("change_rate_method", func(r *tables.URL) *string { return r.ChangeRateMethod }),
	f64opt("change_rate_regular_per_day", func(r *tables.URL) *float64 { return r.ChangeRateRegularPerDay }),
	f64opt("change_rate_mle_per_day", func(r *tables.URL) *float64 { return r.ChangeRateMLEPerDay }),
	f64opt("p_change_1d", func(r *tables.URL) *float64 { return r.PChange1D }),
	f64opt("p_change_7d", func(r *tables.URL) *float64 { return r.PChange7D }),
	strList("volatile_paths", func(r *tables.URL) []string { return r.VolatilePaths }),
}

// The xxxBytes functions estimate the bytes a row adds to its table's
// builders: its strings, which dominate (main_text, text), plus the fixed
// width columns. They bound a row group's memory when rows are large.

func captureBytes(r *tables.Capture) int {
	n := len(r.URL) + len(r.URLSURTKey) + len(r.URLHostName) + len(r.WARCRecordID) +
		len(r.ContentDigest) + len(r.WARCFilename) + 160
	for _, s := range []*string{r.URLHostTLD, r.URLHostRegisteredDomain, r.URLPath, r.URLQuery, r.FetchRedirect, r.ContentMIMEType, r.ContentCharset, r.LayoutID, r.StoredWhy, r.Title, r.MainText, r.ContentLanguages, r.VisibleText} {
		if s != nil {
			n += len(*s)
		}
	}
	return n
}

func blockBytes(r *tables.Block) int {
	n := len(r.BlockID) + 8 + len(r.FirstURL) + len(r.FirstURLSURTKey) + len(r.Tag) + len(r.Path) + len(r.Label) + len(r.Text) + 120
	for _, s := range r.Topic {
		n += len(s) + 4
	}
	if r.HTMLID != nil {
		n += len(*r.HTMLID)
	}
	if r.HTMLClass != nil {
		n += len(*r.HTMLClass)
	}
	return n
}

func captureBlockBytes(r *tables.CaptureBlock) int {
	return len(r.URLSURTKey) + len(r.Path) + len(r.Status) + 64
}

func changeBytes(r *tables.Change) int {
	n := len(r.URL) + len(r.URLSURTKey) + 90
	for _, s := range r.ChangedPaths {
		n += len(s) + 4
	}
	return n
}

func linkBytes(r *tables.Link) int {
	n := len(r.URLSURTKey) + 8 + len(r.Tag) + len(r.Href) + len(r.AnchorText) + 28
	for _, s := range []*string{r.TargetURL, r.Rel} {
		if s != nil {
			n += len(*s)
		}
	}
	return n
}

func urlBytes(r *tables.URL) int {
	n := len(r.URL) + len(r.URLSURTKey) + len(r.URLHostName) + 120
	for _, s := range []*string{r.URLHostTLD, r.URLHostRegisteredDomain, r.URLPath, r.URLQuery} {
		if s != nil {
			n += len(*s)
		}
	}
	if r.ChangeRateMethod != nil {
		n += len(*r.ChangeRateMethod)
	}
	for _, s := range r.VolatilePaths {
		n += len(s) + 4
	}
	return n
}
