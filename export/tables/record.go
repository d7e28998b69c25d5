package tables

import (
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"mime"
	"path/filepath"
	"slices"
	"strings"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/partition"
	"github.com/blockwarc/blockwarc/warcio"
)

// record is what Build reads of one capture's restored record.
type record struct {
	doc     []byte   // for a payload kept as blocks: the document partitioned (dedupe.Parts.Document)
	leaves  [][2]int // and its stored blocks' spans
	status  *int16
	mime    string // media type of the payload, "" when unknown
	digest  string // base32 SHA-1, no "sha1:" (as CDXJ and Common Crawl write it); "" until known
	payload []byte // HTTP payload as stored, or the block of a non-HTTP record
	// redirect is fetch_redirect: a 3xx response's Location, absolute.
	redirect *string
	// revisitIdentical: an identical-payload revisit, standing for the
	// page it revisits; refersTo* name that page.
	revisitIdentical         bool
	refersTo, refersToTarget string
	page                     *page // from this record's own bytes; nil when not HTML
	// obj is the content object of a record not kept as blocks (its
	// record, block or payload object) when the archive names it by
	// place: the hash of its bytes, and their length.
	obj *objRef
}

// objRef is an object as added_bytes counts it.
type objRef struct {
	id   pack.ID
	size int64
}

// pageKey says which captures of a URL show the same page: the same
// payload, read with the same options.
type pageKey struct {
	digest, contentType, uri, codings string
	level                             int
	blocks, chunked                   bool
}

// maxPages bounds the pages a worker keeps for reuse within one URL.
const maxPages = 16

// page is what a capture shows.
type page struct {
	res    *partition.Result // nil for a text-only page
	ids    []pack.ID         // ids of res.Leaves, equal to the stored Version.Blocks
	layout pack.ID           // zero when not stored as layout + blocks
	// cids and layoutID are ids and layout as the rows name them: hashes
	// of the bytes (dedupe.Archive.ContentID), also where the archive
	// names objects by place.
	cids      []pack.ID
	layoutID  pack.ID
	layoutLen int64 // the layout's length when layoutID is computed here
	charset   string
	title     *string
	mainText  string   // text-only pages: a blocks page's text is a join
	visible   string   // partition.VisibleText: blocks and the text outside them
	langs     []string // pageLanguages of its blocks
	text      bool     // an HTML payload kept whole: title and main text only
	mismatch  bool     // the stored blocks could not be read (no rows)
	// respanned: today's partition cuts the document elsewhere than the
	// archive did; the rows describe the stored blocks, at their spans.
	respanned bool
	// words is diff.PageWords(res), computed on first use (words): a
	// page is the later of one pair of captures and the earlier of the
	// next.
	words     []string
	wordsDone bool
}

// hasBlocks says whether the page has capture_blocks rows.
func (p *page) hasBlocks() bool { return p != nil && !p.text && !p.mismatch && p.res != nil }

func isCapture(v *dedupe.Version) bool {
	if v.TargetURI == "" {
		return false
	}
	switch v.Type {
	case "response", "revisit", "resource":
		return true
	}
	return false
}

func isHTTPType(t string) bool {
	switch t {
	case "response", "request", "revisit":
		return true
	}
	return false
}

// look restores v and reads what the rows need from it.
func (w *worker) look(v *dedupe.Version) (*record, error) {
	parts, err := w.a.Restore(v)
	if err != nil {
		return nil, err
	}
	how := v.Storage().How
	hdr, block := parts.WARCHeader, parts.Block
	if how == dedupe.StoredRecord { // the object holds header and block together
		hdr, block = splitRecord(parts.WARCHeader)
	}
	r := &record{}
	if ids := refsOf(v); how != dedupe.StoredBlocks && len(ids) == 1 {
		if _, ok := ids[0].Place(); ok {
			var obj []byte
			switch how {
			case dedupe.StoredRecord:
				obj = parts.WARCHeader // the record object, header and block
			case dedupe.StoredBlock:
				obj = parts.Block
			case dedupe.StoredPayload:
				obj = parts.Payload
			}
			r.obj = &objRef{w.a.Sum(obj), int64(len(obj))}
		}
	}
	var m *warcio.HTTPMessage
	switch {
	case parts.HTTPHeader != nil:
		if msg, err := warcio.ReadHTTP(bytes.NewReader(parts.HTTPHeader), 0); err == nil {
			m = msg
		}
		r.payload = parts.Payload
		r.doc, r.leaves = parts.Document, parts.Leaves
	case how == dedupe.StoredRecord && isHTTPType(v.Type):
		// Parsed as ingest does (modelRecord), so a raw record reads
		// the same as it would have modelled.
		if msg, err := warcio.ReadHTTP(bytes.NewReader(block), 0); err == nil && !msg.Truncated && len(msg.Raw) <= len(block) && bytes.Equal(msg.Raw, block[:len(msg.Raw)]) {
			m = msg
			r.payload = block[len(msg.Raw):]
		} else {
			r.payload = block
		}
	default:
		r.payload = block
	}
	isWARC := bytes.HasPrefix(hdr, []byte("WARC/"))
	var contentType string
	switch {
	case m != nil:
		contentType = m.ContentType()
		r.mime = m.MediaType()
		if !m.Request {
			s := int16(min(max(m.StatusCode, -1<<15), 1<<15-1))
			r.status = &s
			if m.StatusCode >= 300 && m.StatusCode <= 399 {
				r.redirect = redirectTarget(v.TargetURI, m.Header.Get("Location"))
			}
		}
	case isWARC:
		ct := headerField(hdr, "Content-Type")
		if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "application/http") {
			contentType = ct
			r.mime = mediaType(ct)
		}
	default:
		contentType = arcMIME(hdr)
		r.mime = mediaType(contentType)
	}
	decl := ""
	if isWARC {
		decl = headerField(hdr, "WARC-Payload-Digest")
	}
	if v.Type == "revisit" {
		r.payload = nil // a revisit has no payload of its own
		if isWARC && strings.Contains(headerField(hdr, "WARC-Profile"), "identical-payload-digest") {
			r.revisitIdentical = true
			r.refersTo = headerField(hdr, "WARC-Refers-To")
			r.refersToTarget = strings.Trim(headerField(hdr, "WARC-Refers-To-Target-URI"), "<>")
		}
		r.digest = normSHA1(decl)
		return r, nil
	}
	// content_digest is the SHA-1 of the payload as stored, which is what
	// WARC writers put in WARC-Payload-Digest: wget, warcprox and
	// webrecorder hash a chunked body with its chunking (interop files
	// warcat--at, wac--IAH-urls-wget, warcio--example-iana.org-chunked),
	// although WARC 1.1 describes the entity-body; on the corpus (no
	// chunking) both are the manifest's payload_sha1. A declared digest
	// is used only when ingest checked it against the bytes.
	if d := normSHA1(decl); d != "" && v.PayloadDigestOK {
		r.digest = d
	} else {
		r.digest = sha1Digest(r.payload)
	}
	if how != dedupe.StoredBlocks && !(isHTML(r.mime) && len(r.payload) > 0) {
		return r, nil
	}
	// The same payload read the same way is the same page: captures that
	// repeat an earlier one of the URL reuse its partition.
	k := pageKey{digest: r.digest, contentType: contentType, uri: v.TargetURI, level: v.Level, blocks: how == dedupe.StoredBlocks}
	if m != nil {
		k.codings = strings.Join(m.Codings(), ",")
		k.chunked = m.Chunked()
	}
	if pg, ok := w.pages[k]; ok && (!k.blocks || pg.layout == v.Layout && (pg.mismatch || slices.Equal(pg.ids, v.Blocks))) {
		r.page = pg
		return r, nil
	}
	if k.blocks {
		r.page = w.blocksPage(v, m, r.doc, r.leaves)
	} else {
		r.page = w.textPage(v, m, contentType, r.payload)
	}
	if len(w.pages) >= maxPages {
		clear(w.pages)
	}
	w.pages[k] = r.page
	return r, nil
}

// blocksPage reads a payload kept as layout + blocks: the document the
// archive partitioned (doc) and its stored blocks' spans (leaves), both
// from the restore. The rows show the partition the archive stores
// (partition.PartitionStored at the Version's level): its block tree and
// paths when today's partition cuts the stored blocks (following the
// URL's history as ingest did, Options.Prior), else the stored blocks
// read at their spans, each named by the path of today's block holding
// it (unique: "~k" appended where several share one). Every capture
// keeps its blocks rows, whichever partition wrote the archive.
func (w *worker) blocksPage(v *dedupe.Version, m *warcio.HTTPMessage, doc []byte, leaves [][2]int) *page {
	pg := &page{layout: v.Layout, layoutID: v.Layout}
	// A page whose blocks cannot be read still names its layout by the
	// hash of its bytes.
	mismatch := func() *page {
		pg.mismatch = true
		if id, err := w.a.ContentID(v, v.Layout); err == nil {
			pg.layoutID = id
		}
		return pg
	}
	if doc == nil || len(leaves) != len(v.Blocks) {
		return mismatch()
	}
	ct := ""
	if m != nil {
		ct = m.ContentType()
	}
	opts := dedupe.PageOptions(ct, v.Level, v.TargetURI)
	res, how, err := w.p.PartitionStored(doc, leaves, opts)
	if err != nil {
		return mismatch()
	}
	pg.respanned = how == partition.StoredSpans
	pg.charset = res.Charset
	pg.title = pageTitle(doc, res.Charset)
	pg.langs = w.lang.pageLanguages(res.Leaves)
	pg.visible = partition.VisibleText(res)
	// No main text: the page's text is its blocks' (blocks.text), joined
	// through capture_blocks (docs/TABLES.md), so each text is kept once.
	// Same spans of the archive's own document: the stored blocks.
	pg.res, pg.ids = res, slices.Clone(v.Blocks)
	pg.cids, pg.layoutID = pg.ids, v.Layout
	if _, ok := v.Layout.Place(); ok {
		// res's leaves lie at the stored spans: its layout is the stored one.
		enc := res.Layout.Encode()
		pg.layoutID, pg.layoutLen = w.a.Sum(enc), int64(len(enc))
	}
	cloned := false
	for i, id := range pg.ids {
		if _, ok := id.Place(); ok {
			if !cloned {
				pg.cids, cloned = slices.Clone(pg.ids), true
			}
			pg.cids[i] = w.a.Sum(doc[leaves[i][0]:leaves[i][1]])
		}
	}
	return pg
}

// textPage reads title and main text of an HTML payload kept whole
// (compressed, not 200, chunking that did not rebuild, a resource record):
// de-chunked and decoded, partitioned at the default level. Its blocks
// are not archive objects, so they make no rows.
func (w *worker) textPage(v *dedupe.Version, m *warcio.HTTPMessage, contentType string, payload []byte) *page {
	doc := payload
	if m != nil {
		var err error
		if doc, err = dedupe.DecodedDoc(m, payload); err != nil {
			return nil
		}
	}
	res, err := w.p.Partition(doc, dedupe.PageOptions(contentType, dedupe.DefaultLevel, v.TargetURI))
	if err != nil {
		return nil
	}
	return &page{charset: res.Charset, title: pageTitle(doc, res.Charset), mainText: partition.MainText(res), visible: partition.VisibleText(res), langs: w.lang.pageLanguages(res.Leaves), text: true}
}

func isHTML(mediaType string) bool {
	return mediaType == "text/html" || mediaType == "application/xhtml+xml"
}

// captureRow fills the captures row of v from what look found; blocks_*,
// changed, layout_changed and added_bytes are filled later.
func (w *worker) captureRow(key string, v *dedupe.Version, n int32, r *record, pg *page) *Capture {
	proto := urlScheme(v.TargetURI)
	host := webHost(v.TargetURI, proto)
	path, query := urlParts(v.TargetURI)
	row := &Capture{
		URL: v.TargetURI, URLSURTKey: key, URLHostName: host, URLHostTLD: hostTLD(host),
		URLHostRegisteredDomain: registeredDomain(host), URLPath: path, URLQuery: query,
		URLProtocol: proto, URLPort: urlPort(v.TargetURI),
		FetchTime: microUTC(v.Date), Version: n, WARCType: v.Type, WARCRecordID: v.RecordID,
		FetchStatus: r.status, FetchRedirect: r.redirect, ContentDigest: r.digest, PayloadLength: int64(len(r.payload)),
		// The base name, as CDXJ and Common Crawl write filename: the path
		// given to ingest is the ingesting machine's, and breaks joins.
		WARCFilename: filepath.Base(v.File), WARCRecordOffset: v.Offset, WARCRecordLength: v.Length,
	}
	if r.mime != "" {
		s := r.mime
		row.ContentMIMEType = &s
	}
	st := v.Storage()
	row.StoredAs = st.How.String()
	if why := st.Why.String(); why != "" {
		row.StoredWhy = &why
	}
	if pg != nil {
		cs := pg.charset
		row.ContentCharset, row.Title = &cs, pg.title
		row.ContentLanguages = contentLanguages(pg.langs)
		if pg.text {
			// Kept whole: no blocks to join, so the main text is here.
			mt := pg.mainText
			row.MainText = &mt
		}
		if pg.layoutID != (pack.ID{}) {
			s := pg.layoutID.String()
			row.LayoutID = &s
		}
	}
	return row
}

// refsOf lists the objects the archive keeps v as, the ones added_bytes
// charges. Header encodings (inline in the catalog) and the anchor
// objects they are encoded against are left out: which anchor a header
// is encoded against, and so the encoding's size, depends on how many
// ingests built the archive (a new ingest starts a URL's records from its
// last anchor, without the previous record id), and the tables must not.
// The report takes header costs from the archive's totals instead.
func refsOf(v *dedupe.Version) []pack.ID {
	var ids []pack.ID
	switch v.Storage().How {
	case dedupe.StoredRecord:
		ids = append(ids, v.Record)
	case dedupe.StoredBlock:
		ids = append(ids, v.Block)
	case dedupe.StoredPayload:
		ids = append(ids, v.Payload)
	case dedupe.StoredBlocks:
		ids = append(append(ids, v.Layout), v.Blocks...)
	}
	return ids
}

// contentRefs is refsOf(v) as added_bytes counts objects: each named by
// place replaced by the hash of its bytes (so that the count does not
// depend on how the archive was ingested), with its length; -1 where the
// archive is to be asked (objects named by hash, and pages whose blocks
// could not be read).
func contentRefs(v *dedupe.Version, r *record) ([]pack.ID, []int64) {
	ids := refsOf(v)
	sizes := make([]int64, len(ids))
	for i := range sizes {
		sizes[i] = -1
	}
	placed := func(id pack.ID) bool { _, ok := id.Place(); return ok }
	switch {
	case r.obj != nil && len(ids) == 1:
		ids[0], sizes[0] = r.obj.id, r.obj.size
	case v.Storage().How == dedupe.StoredBlocks && r.page.hasBlocks() && len(r.page.cids) == len(ids)-1:
		pg := r.page
		if placed(ids[0]) && pg.layoutLen > 0 {
			ids[0], sizes[0] = pg.layoutID, pg.layoutLen
		}
		for k, b := range pg.res.Leaves {
			if placed(ids[k+1]) {
				ids[k+1], sizes[k+1] = pg.cids[k], int64(b.End-b.Start)
			}
		}
	}
	return ids, sizes
}

// splitRecord cuts a raw record object (header ‖ block) after its header:
// the blank line of a WARC header, the URL-record line of an ARC record.
func splitRecord(rec []byte) (hdr, block []byte) {
	if bytes.HasPrefix(rec, []byte("WARC/")) {
		if i := bytes.Index(rec, []byte("\r\n\r\n")); i >= 0 {
			return rec[:i+4], rec[i+4:]
		}
		if i := bytes.Index(rec, []byte("\n\n")); i >= 0 {
			return rec[:i+2], rec[i+2:]
		}
		return rec, nil
	}
	if i := bytes.IndexByte(rec, '\n'); i >= 0 {
		return rec[:i+1], rec[i+1:]
	}
	return rec, nil
}

// headerField returns the value of the first field called name in a raw
// WARC header block, trimmed; "" when absent.
func headerField(hdr []byte, name string) string {
	for len(hdr) > 0 {
		line := hdr
		if i := bytes.IndexByte(hdr, '\n'); i >= 0 {
			line, hdr = hdr[:i], hdr[i+1:]
		} else {
			hdr = nil
		}
		k, val, ok := bytes.Cut(line, []byte(":"))
		if ok && strings.EqualFold(string(bytes.TrimSpace(k)), name) {
			return string(bytes.TrimSpace(val))
		}
	}
	return ""
}

// arcMIME returns the MIME field of an ARC URL-record line: the field
// after the 14-digit date ("URL IP DATE MIME LENGTH" in version 1, more
// fields after it in version 2), found by the date because recorded URLs
// may contain spaces.
func arcMIME(hdr []byte) string {
	line, _, _ := bytes.Cut(hdr, []byte("\n"))
	f := strings.Fields(string(line))
	for i := 2; i+1 < len(f); i++ {
		if len(f[i]) == 14 && strings.Trim(f[i], "0123456789") == "" {
			return f[i+1]
		}
	}
	return ""
}

func mediaType(ct string) string {
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt, _, _ = strings.Cut(ct, ";")
		mt = strings.TrimSpace(mt)
	}
	return strings.ToLower(mt)
}

var b32 = base32.StdEncoding

// sha1Digest is content_digest's form: upper-case base32 SHA-1 without
// the "sha1:" of WARC-Payload-Digest, as our CDXJ and Common Crawl's
// indexes write it, so that joins on the digest match.
func sha1Digest(b []byte) string {
	s := sha1.Sum(b)
	return b32.EncodeToString(s[:])
}

// normSHA1 returns a declared SHA-1 digest ("sha1:" + base32, hex or
// base64, as writers spell it) as upper-case base32 without "sha1:"
// (sha1Digest's form); "" for another algorithm or a malformed value.
func normSHA1(decl string) string {
	alg, val, ok := strings.Cut(strings.TrimSpace(decl), ":")
	if !ok || !strings.EqualFold(strings.ReplaceAll(alg, "-", ""), "sha1") {
		return ""
	}
	val = strings.TrimSpace(val)
	var sum []byte
	switch {
	case len(val) == 32:
		sum, _ = b32.DecodeString(strings.ToUpper(val))
	case len(val) == 40:
		sum, _ = hex.DecodeString(val)
	default:
		if s, err := base64.StdEncoding.DecodeString(val); err == nil {
			sum = s
		} else if s, err := base64.RawStdEncoding.DecodeString(val); err == nil {
			sum = s
		} else if s, err := base64.URLEncoding.DecodeString(val); err == nil {
			sum = s
		} else if s, err := base64.RawURLEncoding.DecodeString(val); err == nil {
			sum = s
		}
	}
	if len(sum) != sha1.Size {
		return ""
	}
	return b32.EncodeToString(sum)
}
