package dedupe

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/blockwarc/blockwarc/dedupe/chunk"
	"github.com/blockwarc/blockwarc/dedupe/hdrcodec"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/dedupe/reencode"
	"github.com/blockwarc/blockwarc/partition"
	"github.com/blockwarc/blockwarc/warcio"
)

// anchor is the raw header that later headers of a URL and type are
// encoded against.
type anchor struct {
	id  pack.ID
	enc []byte // the anchor object
	raw []byte
	// dec and decErr are enc decoded as an anchor object (decodeHeader),
	// once decoded is set: the check of every record encoded against
	// the anchor decodes it (plan.decodeHeader).
	dec     []byte
	decErr  error
	decoded bool
}

// decode returns a.enc decoded as decodeHeader decodes an anchor's
// object, decoding it on the first call only. Jobs of one URL, which
// hold its anchors, run one after the other.
func (a *anchor) decode() ([]byte, error) {
	if !a.decoded {
		a.dec, a.decErr = hdrcodec.Decode(nil, a.enc, nil, hdrcodec.Unknown())
		a.decoded = true
	}
	return a.dec, a.decErr
}

// urlState is what ingest keeps about the URL whose captures it is
// modelling: its history's predecessors. Jobs of one URL use it one after
// the other.
type urlState struct {
	key      string
	seen     map[[3]any]bool // (file, offset, skip) of versions already stored
	added    []Version
	level    int
	warcAnch map[string]*anchor // by WARC-Type
	httpAnch map[string]*anchor
	prevObj  map[string]pack.ID     // last block/record object by WARC-Type
	prevPay  pack.ID                // last whole payload
	prevLay  pack.ID                // last layout
	prevRes  *partition.Result      // last partition (this ingest only)
	prevBlk  []pack.ID              // its block ids
	prevDoc  *docSig                // what prevRes was made of
	part     *partition.Partitioner // of the job being modelled
	// learn are the objects of the history's last captures, which the
	// writer reads back so that an unchanged object keeps its place
	// (pack.Writer.Learn); named maps the ids the model gave the URL's
	// new objects (hashes of their bytes) to the names the writer gave
	// them (places). Both are the applier's.
	learn []pack.ID
	named map[pack.ID]pack.ID
	// histSeg is the catalog segment of the newest run that holds
	// versions of the URL (zero: none): the base the applier prefers
	// for the segment its new versions go into (segmentBase).
	histSeg pack.ID
}

// rename gives v's objects the names the writer gave them.
func (u *urlState) rename(v *Version) {
	if len(u.named) == 0 {
		return
	}
	f := func(id *pack.ID) {
		if n, ok := u.named[*id]; ok {
			*id = n
		}
	}
	f(&v.Record)
	f(&v.WARCAnchor)
	f(&v.Block)
	f(&v.HTTPAnchor)
	f(&v.Payload)
	f(&v.Layout)
	for i := range v.Blocks {
		f(&v.Blocks[i])
	}
}

// gapType is the prevObj key of gaps: no WARC-Type has a NUL.
const gapType = "\x00gap"

func identity(file string, off, skip int64) [3]any { return [3]any{file, off, skip} }

// loadHistory fills u from the versions earlier ingests stored.
func (g *ingester) loadHistory(u *urlState) (unread int, err error) {
	key := u.key
	u.seen, u.level = map[[3]any]bool{}, g.opts.Level
	u.warcAnch, u.httpAnch, u.prevObj = map[string]*anchor{}, map[string]*anchor{}, map[string]pack.ID{}
	vs, seg, err := g.hist.versions(key)
	u.histSeg = seg
	if err != nil {
		return 0, fmt.Errorf("read history of %q: %w", key, err)
	}
	for i := range vs {
		v := &vs[i]
		u.seen[identity(v.File, v.Offset, v.Skip)] = true
		if v.Level != 0 { // LevelAdaptive is negative
			u.level = v.Level
		}
		switch {
		case v.Gap:
			u.prevObj[gapType] = v.Record
		case v.Mode == modeRaw:
			u.prevObj[v.Type] = v.Record
		case v.Mode == modeBlock:
			u.prevObj[v.Type] = v.Block
		case v.Mode == modeHTTP:
			if v.Form == formWhole {
				u.prevPay = v.Payload
			} else {
				u.prevLay, u.prevRes, u.prevBlk = v.Layout, nil, nil
			}
		}
		if v.Mode != modeRaw && v.WARCAnchor != (pack.ID{}) {
			u.warcAnch[v.Type] = &anchor{id: v.WARCAnchor}
		}
		if v.Mode == modeHTTP && v.HTTPAnchor != (pack.ID{}) {
			u.httpAnch[v.Type] = &anchor{id: v.HTTPAnchor}
		}
	}
	// The objects the next captures most likely repeat: the last of
	// each kind, and the last page's blocks.
	for _, typ := range slices.Sorted(maps.Keys(u.prevObj)) {
		u.learn = append(u.learn, u.prevObj[typ])
	}
	u.learn = append(u.learn, u.prevPay, u.prevLay)
	for _, m := range []map[string]*anchor{u.warcAnch, u.httpAnch} {
		for _, typ := range slices.Sorted(maps.Keys(m)) {
			u.learn = append(u.learn, m[typ].id)
		}
	}
	for i := len(vs) - 1; i >= 0; i-- {
		if v := &vs[i]; v.Mode == modeHTTP && v.Form == formBlocks {
			u.learn = append(u.learn, v.Blocks...)
			break
		}
	}
	// Anchors are decoded once per URL. One that was lost (verify names
	// its captures) is dropped: the URL's next captures choose another,
	// and the ingest goes on.
	for _, m := range []map[string]*anchor{u.warcAnch, u.httpAnch} {
		for typ, a := range m {
			enc, raw, err := g.historyAnchor(a.id)
			if errors.Is(err, errLost) {
				delete(m, typ)
				unread++
				continue
			}
			if err != nil {
				return 0, fmt.Errorf("read anchor of %q: %w", key, err)
			}
			a.enc, a.raw = enc, raw
		}
	}
	return unread, nil
}

// errLost says an object of a URL's history was lost.
var errLost = errors.New("lost")

// historyAnchor reads and decodes the header anchor id of a URL's
// history, or returns errLost when it was lost: damaged, or named by a
// place at or past the chunks the archive held when this ingest began.
// Such a place was lost with a damaged frame and dropped by a repair
// without the original files, and this ingest's own chunks may take its
// number: whether a worker read it before or after the commit that
// writes them must not decide what the archive holds. Bytes that are not
// a header encoding of the anchor's kind (another object at a place
// taken by an ingest before) were lost too. A failure to read is an
// error.
func (g *ingester) historyAnchor(id pack.ID) (enc, raw []byte, err error) {
	if n, ok := id.Place(); ok && n >= g.chunkEnd {
		return nil, nil, errLost
	}
	enc, k, err := g.s.Get(id)
	switch {
	case errors.Is(err, pack.ErrNotFound), errors.Is(err, pack.ErrCorrupt), errors.Is(err, chunk.ErrNoChunk):
		return nil, nil, errLost
	case err != nil:
		return nil, nil, err
	case k != pack.KindWARCHeader && k != pack.KindHTTPHeader:
		return nil, nil, errLost
	}
	if raw, err = hdrcodec.Decode(nil, enc, nil, hdrcodec.Unknown()); err != nil {
		return nil, nil, errLost
	}
	return enc, raw, nil
}

// crossBases gives the blocks (and layout) of a URL's first page, which
// have no predecessor of their own, delta bases among the first page of
// the previous URL in walk order: neighbouring URLs are mostly pages of
// one site, and their first captures in an ingest mostly come from the
// same crawl, so they share the site's templates, style sheets and
// scripts as they were then. A base is used only when it costs readers
// nothing (pack.Writer.AddNear: it is in the object's frame, or in a
// frame that frame depends on already): a base in a frame of its own
// would make every restore of an object of this frame decode that frame
// too (on ota-tinder, +15 % decoded bytes per restore for −3.5 % archive).
// The choice runs in the applier, in walk order, so it does not depend on
// the workers.
func (g *ingester) crossBases(r *result) {
	p, res := r.plan, r.plan.res
	prev := g.prevFirst
	g.prevFirst = &firstPage{res: res, layout: r.v.Layout}
	if prev == nil {
		return
	}
	for _, pr := range partition.Match(prev.res, res, partition.SimOptions{}) {
		if pr.Kind != partition.Modified || pr.Old == nil || pr.New == nil {
			continue
		}
		id := g.s.Sum(res.BlockBytes(pr.New))
		o, ok := p.objs[id]
		if !ok || o.base != (pack.ID{}) || o.kind != pack.KindBlock {
			continue
		}
		o.base, o.near = g.s.Sum(prev.res.BlockBytes(pr.Old)), true
		p.objs[id] = o
	}
	if o, ok := p.objs[r.v.Layout]; ok && o.base == (pack.ID{}) && prev.layout != r.v.Layout {
		o.base, o.near = prev.layout, true
		p.objs[r.v.Layout] = o
	}
	r.plan.res = nil
}

// firstPage is the first partitioned page of a URL, for crossBases.
type firstPage struct {
	res    *partition.Result
	layout pack.ID
}

// obj is an object a version needs, with its delta base (zero: none).
type obj struct {
	kind pack.Kind
	data []byte
	base pack.ID
	near bool // base only if free to readers (pack.Writer.AddNear; crossBases)
}

// plan collects the objects of one record before anything is stored, so
// that the record can be checked first.
type plan struct {
	objs map[pack.ID]obj
	ids  []pack.ID            // in the order to store
	sum  func([]byte) pack.ID // the archive's ids (pack.Store.Sum)
	// A partitioned payload whose blocks had no predecessor to be
	// matched with (the URL's first page in this ingest): its partition,
	// for the applier to match with the previous URL's (crossBases).
	res *partition.Result
	// doc is what a payload stored as blocks was partitioned from, for
	// the URL's next capture to recognise (docSig).
	doc *docSig
	// anchors are the header anchors the record is encoded against, by
	// id (decodeHeader).
	anchors map[pack.ID]*anchor
}

// useAnchor notes that the record is encoded against a.
func (p *plan) useAnchor(a *anchor) {
	if p.anchors == nil {
		p.anchors = map[pack.ID]*anchor{}
	}
	p.anchors[a.id] = a
}

// decodeHeader is decodeHeader(p.get, e, id, ctx), with the anchor's
// object decoded once per anchor rather than once per record when it
// is one of p.anchors: the same bytes decode the same.
func (p *plan) decodeHeader(e []byte, id pack.ID, ctx hdrcodec.Context) ([]byte, error) {
	a, ok := p.anchors[id]
	if !ok || id == (pack.ID{}) {
		return decodeHeader(p.get, e, id, ctx)
	}
	ab, err := p.get(id)
	if err != nil {
		return nil, fmt.Errorf("get anchor: %w", err)
	}
	if !bytes.Equal(ab, a.enc) {
		return decodeHeader(p.get, e, id, ctx)
	}
	prev, err := a.decode()
	if err != nil {
		return nil, fmt.Errorf("decode anchor: %w", err)
	}
	return hdrcodec.Decode(nil, e, prev, ctx)
}

// docSig identifies the input of a payload's partition: the payload (its
// SHA-1, which the reader computed, and length) and everything else
// modelPayload reads (the HTTP facts that decide the coding and charset,
// the level, the URL). A capture whose payload has the previous one's
// signature takes the previous capture's partition, coding and object
// ids instead of decoding and partitioning the same bytes again, and
// stores the same objects, since partitioning the previous page again
// with itself as Prior gives itself back. A signature matched by other
// bytes (a SHA-1 collision) restores the previous page, which the record's
// check then refuses: the record is kept whole, as any other it refuses.
type docSig struct {
	sha1  string
	n     int64
	http  string
	level int
	url   string
	// The previous payload's framing and coding.
	framing, coding []byte
}

// sigOf is the signature of v's payload (nil when the reader's digest of
// it is not known).
func sigOf(v *Version, m *warcio.HTTPMessage, payload []byte, level int) *docSig {
	d := v.read
	if d == nil || d.PayloadSHA1 == nil || d.PayloadLen != int64(len(payload)) {
		return nil
	}
	http := fmt.Sprintf("%q %q %q %t", m.ContentType(), m.ContentEncodings(), m.Codings(), m.Chunked())
	return &docSig{sha1: string(d.PayloadSHA1), n: d.PayloadLen, http: http, level: level, url: v.TargetURI}
}

// testSameDoc is docSig.same; tests replace it (a collision, the reuse
// off).
var testSameDoc = (*docSig).same

func (s *docSig) same(o *docSig) bool {
	return s != nil && o != nil && s.sha1 == o.sha1 && s.n == o.n && s.http == o.http && s.level == o.level && s.url == o.url
}

func (p *plan) add(kind pack.Kind, data []byte, base pack.ID) pack.ID {
	return p.addSummed(kind, data, base, p.sum(data))
}

// addSummed is add of data whose id, p.sum(data), is known.
func (p *plan) addSummed(kind pack.Kind, data []byte, base, id pack.ID) pack.ID {
	if _, ok := p.objs[id]; !ok {
		p.objs[id] = obj{kind: kind, data: data, base: base}
		p.ids = append(p.ids, id)
	}
	return id
}

// have makes an object already stored available to the check.
func (p *plan) have(id pack.ID, data []byte) {
	if _, ok := p.objs[id]; !ok {
		p.objs[id] = obj{data: data}
	}
}

func (p *plan) get(id pack.ID) ([]byte, error) {
	if o, ok := p.objs[id]; ok {
		return o.data, nil
	}
	return nil, fmt.Errorf("%w: %s not in the record's plan", pack.ErrNotFound, id)
}

// store is the paper's Store() for one record: it cuts the record into
// objects and checks that they restore it byte for byte; when they do
// not, the record is kept whole. It returns the objects to add.
func (g *ingester) store(u *urlState, v *Version, rawHeader, block []byte, st *Stats) *plan {
	p := &plan{objs: map[pack.ID]obj{}, sum: g.s.Sum}
	if v.Gap {
		// Bytes between records: kept as they are, each a delta of the
		// URL key's previous gap (mostly the same stray line ends).
		v.Mode, v.Record = modeRaw, p.add(pack.KindRecord, block, u.prevObj[gapType])
		u.prevObj[gapType] = v.Record
		return p
	}
	var res *partition.Result
	var blockIDs []pack.ID
	typ := v.Type
	warcAnch, httpAnch := u.warcAnch[typ], u.httpAnch[typ]
	g.modelRecord(u, v, p, rawHeader, block, &res, &blockIDs, st)
	if testModelHook != nil {
		testModelHook(v)
	}
	if !checkRecord(v, p, rawHeader, block) {
		// The anchors the model chose for this record are not stored
		// with the record kept whole: the URL's next records keep the
		// ones before, which are.
		keepAnchor(u.warcAnch, typ, warcAnch)
		keepAnchor(u.httpAnch, typ, httpAnch)
		p = &plan{objs: map[pack.ID]obj{}, sum: g.s.Sum}
		rec := append(bytes.Clone(rawHeader), block...)
		*v = Version{File: v.File, Offset: v.Offset, Length: v.Length, Skip: v.Skip, Date: v.Date, prevRecordID: v.prevRecordID,
			Type: v.Type, RecordID: v.RecordID, TargetURI: v.TargetURI, Trailer: v.Trailer, CRC: v.CRC,
			BlockDigestOK: v.BlockDigestOK, PayloadDigestOK: v.PayloadDigestOK,
			Mode: modeRaw, Record: p.add(pack.KindRecord, rec, u.prevObj[v.Type])}
		res, blockIDs = nil, nil
		st.RawRecords++
	}
	v.read = nil // checked: the catalog keeps no digests
	// Update the URL's predecessors.
	switch v.Mode {
	case modeRaw:
		u.prevObj[v.Type] = v.Record
	case modeBlock:
		u.prevObj[v.Type] = v.Block
		st.NonHTTP++
	case modeHTTP:
		if v.Form == formWhole {
			u.prevPay = v.Payload
		} else {
			u.prevLay, u.prevRes, u.prevBlk, u.prevDoc = v.Layout, res, blockIDs, p.doc
			if v.Coding != nil {
				st.EncodedBlocks++
			} else {
				st.Partitioned++
			}
		}
	}
	inlineBlock(v, p) // a small block goes into the catalog entry
	return p
}

// testBlockIDs, set by tests only, sees how many block ids a page
// took from the URL's previous capture (modelPayload).
var testBlockIDs func(n int)

// testModelHook, set by tests only, may spoil a modelled version before
// the fidelity check, to exercise the record kept whole.
var testModelHook func(v *Version)

// keepAnchor sets the anchor of typ back to a (none when nil).
func keepAnchor(m map[string]*anchor, typ string, a *anchor) {
	if a == nil {
		delete(m, typ)
	} else {
		m[typ] = a
	}
}

// modelRecord fills v and p with the structured form of the record.
func (g *ingester) modelRecord(u *urlState, v *Version, p *plan, rawHeader, block []byte, res **partition.Result, blockIDs *[]pack.ID, st *Stats) {
	m, httpLen := httpMessage(v.Type, block)
	if m == nil {
		v.Mode = modeBlock
		v.Block = p.add(pack.KindRecord, block, u.prevObj[v.Type])
	} else {
		v.Mode = modeHTTP
		hh, payload := block[:httpLen], block[httpLen:]
		g.modelPayload(u, v, p, m, payload, res, blockIDs, st)
		v.HTTPHeader, v.HTTPAnchor = g.header(p, u.httpAnch, v.Type, pack.KindHTTPHeader, hh, httpContext(v, payload))
	}
	v.WARCHeader, v.WARCAnchor = g.header(p, u.warcAnch, v.Type, pack.KindWARCHeader, rawHeader, warcContext(v, block, httpLen))
}

// httpMessage parses the HTTP header of the block of a record of type
// typ, and returns it with its length; nil and -1 when the record is not
// modelled as HTTP (its type, or a header that does not parse back to
// the block's bytes).
func httpMessage(typ string, block []byte) (*warcio.HTTPMessage, int) {
	if isHTTPType(typ) {
		if msg, err := warcio.ReadHTTP(bytes.NewReader(block), 0); err == nil && !msg.Truncated && len(msg.Raw) <= len(block) && bytes.Equal(msg.Raw, block[:len(msg.Raw)]) {
			return msg, len(msg.Raw)
		}
	}
	return nil, -1
}

// anchorObject is the object of a header chosen as an anchor: the raw
// header encoded on its own.
func anchorObject(raw []byte) []byte { return hdrcodec.Encode(nil, raw, nil, hdrcodec.Unknown()) }

func isHTTPType(t string) bool {
	switch t {
	case "response", "request", "revisit":
		return true
	}
	return false
}

// header encodes raw against the URL's anchor for the record type,
// choosing a new anchor when there is none or the encoding against it is
// large.
func (g *ingester) header(p *plan, anchors map[string]*anchor, typ string, kind pack.Kind, raw []byte, ctx hdrcodec.Context) (enc []byte, anch pack.ID) {
	a := anchors[typ]
	if a != nil {
		e := hdrcodec.Encode(nil, raw, a.raw, ctx)
		if len(e)*2 <= len(a.enc) {
			p.have(a.id, a.enc)
			p.useAnchor(a)
			return e, a.id
		}
	}
	a = &anchor{enc: anchorObject(raw), raw: bytes.Clone(raw)}
	a.id = p.add(kind, a.enc, pack.ID{})
	p.useAnchor(a)
	anchors[typ] = a
	return hdrcodec.Encode(nil, raw, a.raw, ctx), a.id
}

// storedPageOptions are the options a payload is partitioned with for
// the archive: at level, with the URL's previous partition as Prior
// (adaptive: keep the URL's partition while its layout holds).
func storedPageOptions(m *warcio.HTTPMessage, level int, url string, prior *partition.Result) partition.Options {
	po := PageOptions(m.ContentType(), level, url)
	po.SkipAnnotation = true
	po.Prior = prior
	return po
}

// modelPayload stores a 200 text/html payload as layout + blocks, any
// other payload whole. A payload with one content coding is stored as
// the blocks of its decoded document when reencode.Find finds encoder
// settings that reproduce it byte for byte (the restore re-encodes);
// otherwise whole, with reason content-encoding.
func (g *ingester) modelPayload(u *urlState, v *Version, p *plan, m *warcio.HTTPMessage, payload []byte, res **partition.Result, blockIDs *[]pack.ID, st *Stats) {
	codings := m.ContentEncodings()
	whole := func(reason Why) {
		// Whatever stops a content-coded page from becoming blocks, the
		// report counts it as content-encoding, as before re-encoding.
		if len(codings) > 0 && reason >= WhyChunking {
			reason = WhyContentEncoding
		}
		v.Form, v.reason = formWhole, uint8(reason)
		v.Payload = p.add(pack.KindPayload, payload, u.prevPay)
		if reason == WhyContentEncoding {
			st.EncodedWhole++
		} else {
			st.WholePayload++
		}
	}
	switch {
	case m.Request:
		whole(WhyRequest)
		return
	case m.StatusCode != 200:
		whole(WhyNot200)
		return
	case m.MediaType() != "text/html":
		whole(WhyNotHTML)
		return
	case len(payload) == 0:
		whole(WhyEmpty)
		return
	case len(codings) > 1 || len(codings) == 1 && len(m.Codings()) != 1:
		// Two codings, or a transfer coding besides chunked: not
		// attempted.
		whole(WhyContentEncoding)
		return
	}
	sig := sigOf(v, m, payload, u.level)
	if u.prevRes != nil && testSameDoc(sig, u.prevDoc) {
		r, prev := u.prevRes, u.prevDoc
		v.Form, v.Level = formBlocks, u.level
		v.Blocks = slices.Clone(u.prevBlk)
		v.Layout = u.prevLay
		v.Framing, v.Coding = prev.framing, prev.coding
		for i, b := range r.Leaves {
			p.have(v.Blocks[i], r.BlockBytes(b))
		}
		p.have(v.Layout, r.Layout.Encode())
		p.doc = prev
		*res, *blockIDs = r, v.Blocks
		return
	}
	doc := payload
	var framing []byte
	if m.Chunked() {
		d := warcio.NewDechunker(bytes.NewReader(payload))
		dc, err := io.ReadAll(d)
		f := d.Framing()
		if err != nil || f.Overflow {
			whole(WhyChunking)
			return
		}
		if rb, err := warcio.Rebuild(dc, f); err != nil || !bytes.Equal(rb, payload) {
			whole(WhyChunking)
			return
		}
		fb, err := f.MarshalBinary()
		if err != nil {
			whole(WhyChunking)
			return
		}
		doc, framing = dc, fb
	}
	var coding []byte
	if len(codings) == 1 {
		dec, params, ok, _ := reencode.Find(codings[0], doc, g.opts.Reencode)
		if !ok {
			whole(WhyContentEncoding)
			return
		}
		b, err := params.MarshalBinary()
		if err != nil {
			whole(WhyContentEncoding)
			return
		}
		doc, coding = dec, b
	}
	// The archive stores bytes: the blocks' text, topics and labels are
	// the tables' business, computed when they read the page.
	r, err := u.part.Partition(doc, storedPageOptions(m, u.level, v.TargetURI, u.prevRes))
	if err != nil {
		whole(WhyPartition)
		return
	}
	v.Form, v.Level = formBlocks, u.level
	// Algorithm 4: a block the matcher pairs with a modified predecessor is
	// stored as a delta of it; identical blocks and an unchanged layout cost
	// nothing (content addressing).
	bases := map[*partition.Block]pack.ID{}
	// same holds the ids of the blocks with the bytes of one of the
	// previous partition's, which its ids name (u.prevBlk, in the order
	// of its leaves and of Match's old blocks): not hashed again.
	same := map[*partition.Block]pack.ID{}
	if u.prevRes != nil {
		known := len(u.prevBlk) == len(u.prevRes.Leaves)
		k := 0 // index of pr.Old among the old leaves
		for _, pr := range partition.Match(u.prevRes, r, partition.SimOptions{}) {
			if pr.Old == nil {
				continue
			}
			k++
			switch {
			case pr.New == nil:
			case pr.Kind == partition.Modified && known:
				bases[pr.New] = u.prevBlk[k-1]
			case pr.Kind == partition.Modified:
				bases[pr.New] = g.s.Sum(u.prevRes.BlockBytes(pr.Old))
			case pr.Kind == partition.Identical && known && bytes.Equal(u.prevRes.BlockBytes(pr.Old), r.BlockBytes(pr.New)):
				same[pr.New] = u.prevBlk[k-1]
			}
		}
	}
	if testBlockIDs != nil {
		testBlockIDs(len(same))
	}
	ids := make([]pack.ID, len(r.Leaves))
	for i, b := range r.Leaves {
		if id, ok := same[b]; ok {
			ids[i] = p.addSummed(pack.KindBlock, r.BlockBytes(b), bases[b], id)
		} else {
			ids[i] = p.add(pack.KindBlock, r.BlockBytes(b), bases[b])
		}
	}
	v.Layout = p.add(pack.KindLayout, r.Layout.Encode(), u.prevLay)
	v.Blocks = ids
	if u.prevRes == nil {
		p.res = r
	}
	v.Framing, v.Coding = framing, coding
	*res, *blockIDs = r, ids
	if sig != nil {
		sig.framing, sig.coding = framing, coding
		p.doc = sig
	}
}
