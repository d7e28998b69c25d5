package dedupe

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/hdrcodec"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/dedupe/reencode"
	"github.com/blockwarc/blockwarc/partition"
	"github.com/blockwarc/blockwarc/warcio"
)

// ErrNoCapture is returned by Archive.Find when the archive holds no
// capture of the URL at or before the requested time.
var ErrNoCapture = errors.New("no capture")

// Archive is a read view of an archive at its last commit. It is safe for
// concurrent use.
type Archive struct {
	store *pack.Store
	root  *root
	u     *union // set for a union of shards (Join); store is nil then

	// The input-file table is read on first use (loadFiles): cat and
	// the other readers of captures never need it.
	filesOnce sync.Once
	filesErr  error
}

// Open opens the archive directory dir for reading.
func Open(dir string, opts pack.Options) (*Archive, error) {
	// Say what is wrong with the path itself as the system does ("no such
	// file or directory", "not a directory"), before "not an archive".
	if fi, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("open archive: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("open archive %s: %w", dir, syscall.ENOTDIR)
	}
	s, err := pack.Open(dir, opts)
	if err != nil {
		return nil, err
	}
	r, err := decodeRoot(s.Payload())
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("open catalog of %s: %w", dir, err)
	}
	return &Archive{store: s, root: r}, nil
}

// Close releases the archive's files.
func (a *Archive) Close() error {
	if a.u != nil {
		return a.u.close()
	}
	return a.store.Close()
}

// Store returns the underlying object store; nil for a union of shards
// (Join), whose readers use Stat, StoreStats and Recovered instead.
func (a *Archive) Store() *pack.Store { return a.store }

// Files returns the input-file table: the files ingested completely.
func (a *Archive) Files() []InputFile {
	a.loadFiles() // read on first use; a part that does not read: the rows before it
	return a.root.Files
}

// Records is the number of records of the archive's input files
// (InputFile.Records), −1 when a file's count is unknown (files ingested
// under catalog version 2): what the tables' rewrite policy weighs (ingest
// -tables=auto).
func (a *Archive) Records() int64 {
	var n int64
	for _, f := range a.Files() {
		if f.Records < 0 {
			return -1
		}
		n += f.Records
	}
	return n
}

// FileTableParts returns the ids of the objects holding the input-file
// table (catalog version 8; none before). For diagnostics and tests.
func (a *Archive) FileTableParts() []pack.ID {
	if a.root == nil {
		return nil
	}
	ids := make([]pack.ID, len(a.root.Parts))
	for i, p := range a.root.Parts {
		ids[i] = p.ID
	}
	return ids
}

// Versions returns every capture of key (a SURT key, "" for records
// without target URI) in capture order. It reads one catalog segment per
// run that may hold the key.
// Gaps (Version.Gap) are left out: they are bytes of input files, not
// captures.
func (a *Archive) Versions(key string) ([]Version, error) {
	if a.u != nil {
		return a.unionVersions(key)
	}
	vs, err := versionsOf(a.store, a.root, key)
	return dropGaps(vs), err
}

// dropGaps removes gap versions from vs, in place.
func dropGaps(vs []Version) []Version {
	if key := slices.IndexFunc(vs, func(v Version) bool { return v.Gap }); key < 0 {
		return vs
	}
	return slices.DeleteFunc(vs, func(v Version) bool { return v.Gap })
}

func versionsOf(s *pack.Store, r *root, key string) ([]Version, error) {
	var all []Version
	for i := range r.Runs {
		vs, err := runVersions(s, r, i, key)
		if err != nil {
			return nil, err
		}
		all = append(all, vs...)
	}
	return sortVersions(all), nil
}

// runSegment is the segment of run i whose key range holds key, if any.
func runSegment(r *root, i int, key string) (segRef, bool) {
	run := r.Runs[i]
	k := sort.Search(len(run), func(k int) bool { return run[k].Last >= key })
	if k == len(run) || run[k].First > key {
		return segRef{}, false
	}
	return run[k], true
}

// segmentReads counts the catalog segments read to find a key
// (runVersions): what tests and benchmarks of Find look at.
var segmentReads atomic.Int64

// runVersions reads key's versions in run i of r (unsorted; gaps kept).
func runVersions(s *pack.Store, r *root, i int, key string) ([]Version, error) {
	ref, ok := runSegment(r, i, key)
	if !ok {
		return nil, nil
	}
	segmentReads.Add(1)
	seg, _, err := s.Get(ref.ID)
	if err != nil {
		return nil, fmt.Errorf("read catalog segment %s: %w", ref.ID, err)
	}
	vs, err := findInSegment(seg, key, readResolver(s))
	if err != nil {
		return nil, fmt.Errorf("read catalog segment %s: %w", ref.ID, err)
	}
	return vs, nil
}

// Find returns the latest capture of url (canonicalised with warcio.SURT)
// of a record type holding the page — response, revisit or resource,
// else any type — dated at or before at (zero: the latest): of the
// captures of the highest pagePriority dated at or before at, the last
// in capture order (Versions). It reads the runs whose dates
// (runDates) may hold that capture, not every run as Versions does.
func (a *Archive) Find(url string, at time.Time) (Version, error) {
	vs, err := a.someVersions(warcio.SURT(url), func(s *pack.Store, r *root, key string) ([]Version, error) {
		return findVersions(s, r, key, at)
	})
	if err != nil {
		return Version{}, err
	}
	best := pickFind(vs, at)
	if best < 0 {
		return Version{}, fmt.Errorf("find %s: %w", url, ErrNoCapture)
	}
	return vs[best], nil
}

// someVersions is read(key) of the archive, or of the part of a union
// of shards that holds key (its versions tagged, as Versions does).
func (a *Archive) someVersions(key string, read func(s *pack.Store, r *root, key string) ([]Version, error)) ([]Version, error) {
	if a.u == nil {
		return read(a.store, a.root, key)
	}
	i := a.u.route(key)
	p, err := a.Part(i)
	if err != nil {
		return nil, err
	}
	vs, err := read(p.store, p.root, key)
	tag(vs, i)
	return vs, err
}

// pickFind is the index of Find's answer among vs (in capture order),
// -1 when none is dated at or before at.
func pickFind(vs []Version, at time.Time) int {
	best := -1
	for i := range vs {
		if !at.IsZero() && vs[i].Date.After(at) {
			continue
		}
		if best < 0 || pagePriority(vs[i].Type) >= pagePriority(vs[best].Type) {
			best = i
		}
	}
	return best
}

// keyRun is a run whose segment ranges hold a key, and its dates.
type keyRun struct {
	run int
	d   runDates
	// last is the latest date the run may hold that counts (Find: at or
	// before at).
	last time.Time
	// gap is the least distance to FindNear's period a capture of the
	// run may have.
	gap time.Duration
}

// keyRuns are the runs of r with a segment whose range holds key and
// that may hold a capture (known dates and none: never read).
func keyRuns(r *root, key string) []keyRun {
	var rs []keyRun
	for i := range r.Runs {
		if _, ok := runSegment(r, i, key); !ok {
			continue
		}
		if d := r.dates(i); !d.Known || d.Any {
			rs = append(rs, keyRun{run: i, d: d, last: d.Max})
		}
	}
	return rs
}

// mergeRuns merges the versions read in each run (got[i]: run i's), in
// run order as versionsOf merges them, into capture order without gaps.
func mergeRuns(got [][]Version) []Version {
	var all []Version
	for _, vs := range got {
		all = append(all, vs...)
	}
	return dropGaps(sortVersions(all))
}

// findVersions returns, in capture order and without gaps, key's
// versions in the runs of r that may hold Find's answer at at: all of
// them when that is needed, so that pickFind chooses from them exactly
// what it chooses from Versions.
//
// Find's answer has the highest priority P among the captures dated at
// or before at, and the latest date D among those of priority P; among
// the captures of (P, D) — which the capture order puts last of their
// priority — the last by (file, offset) and then by run. So a run that
// holds no capture dated in [D, at] cannot change the answer when P is
// 1 (it has no capture of priority 1 at or after D, and priority 0 loses),
// and every run that holds one is read: the runs are read by their
// latest date at or before at, newest first, and reading stops at the
// first whose latest such date is before the best (P, D) found when P is
// 1. While P is 0 (or nothing was found) every run with a capture at or
// before at is read, as one of priority 1 anywhere wins. Runs of unknown
// dates are read first, always; runs whose captures all come after at,
// or that hold none, are never read. The versions read are merged in run
// order, as Versions merges them, so that captures equal in date, file
// and offset come out in the same order.
func findVersions(s *pack.Store, r *root, key string, at time.Time) ([]Version, error) {
	var cands []keyRun
	for _, c := range keyRuns(r, key) {
		if c.d.Known && !at.IsZero() {
			if c.d.Min.After(at) {
				continue
			}
			if c.last.After(at) {
				c.last = at
			}
		}
		cands = append(cands, c)
	}
	// Unknown first, then newest latest date first; ties by run, later
	// first (any order would do: all are read until the rule stops).
	slices.SortStableFunc(cands, func(x, y keyRun) int {
		if x.d.Known != y.d.Known {
			if !x.d.Known {
				return -1
			}
			return 1
		}
		if c := y.last.Compare(x.last); c != 0 {
			return c
		}
		return y.run - x.run
	})
	got := make([][]Version, len(r.Runs))
	bestP := -1
	var bestD time.Time
	for _, c := range cands {
		if c.d.Known && bestP == 1 && c.last.Before(bestD) {
			break // and every run after: their latest dates are earlier still
		}
		vs, err := runVersions(s, r, c.run, key)
		if err != nil {
			return nil, err
		}
		got[c.run] = vs
		for k := range vs {
			v := &vs[k]
			if v.Gap || !at.IsZero() && v.Date.After(at) {
				continue
			}
			if p := pagePriority(v.Type); p > bestP || p == bestP && v.Date.After(bestD) {
				bestP, bestD = p, v.Date
			}
		}
	}
	return mergeRuns(got), nil
}

func pagePriority(t string) int {
	switch t {
	case "response", "revisit", "resource":
		return 1
	}
	return 0
}

// Parts of a restored record.
type Parts struct {
	WARCHeader []byte
	// Block is the HTTP header + payload for HTTP records, except after
	// RestoreKnown, which does not build it for HTTP records (a copy of
	// the payload): it is nil then, and BlockLen, WriteBlock and
	// BlockReader give it in either case.
	Block      []byte
	HTTPHeader []byte // nil for non-HTTP records
	// Payload is the HTTP payload as stored; nil for non-HTTP records,
	// and after RestoreKnown (see Block).
	Payload []byte
	Trailer []byte
	// Document and Leaves are set for a payload kept as layout + blocks
	// (not after RestoreKnown):
	// the document the archive partitioned (de-chunked and, when the
	// archive re-encodes it, decoded) and the byte span [start, end) of
	// each stored block in it, in order. They say which blocks the archive
	// holds whatever partition produced them, so readers need not
	// re-partition to find the archive's blocks.
	Document []byte
	Leaves   [][2]int

	// pieces, when not nil, are the block (HTTP header, then payload)
	// in order, not built in Block.
	pieces [][]byte
}

// Record returns the whole record bytes.
func (p *Parts) Record() []byte {
	out := make([]byte, 0, len(p.WARCHeader)+p.BlockLen()+len(p.Trailer))
	out = append(out, p.WARCHeader...)
	for _, b := range p.block() {
		out = append(out, b...)
	}
	return append(out, p.Trailer...)
}

// block returns the pieces of the record's block, in order.
func (p *Parts) block() [][]byte {
	if p.pieces != nil {
		return p.pieces
	}
	return [][]byte{p.Block}
}

// BlockLen returns the length of the record's block.
func (p *Parts) BlockLen() int {
	n := 0
	for _, b := range p.block() {
		n += len(b)
	}
	return n
}

// WriteBlock writes the record's block to w.
func (p *Parts) WriteBlock(w io.Writer) (int64, error) {
	var n int64
	for _, b := range p.block() {
		m, err := w.Write(b)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// BlockReader returns a reader of the record's block.
func (p *Parts) BlockReader() io.Reader {
	if p.pieces == nil {
		return bytes.NewReader(p.Block)
	}
	rs := make([]io.Reader, len(p.pieces))
	for i, b := range p.pieces {
		rs[i] = bytes.NewReader(b)
	}
	return io.MultiReader(rs...)
}

// getter fetches an object by id.
type getter func(pack.ID) ([]byte, error)

func (a *Archive) get(id pack.ID) ([]byte, error) {
	b, _, err := a.store.Get(id)
	return b, err
}

// Restore rebuilds the record of v and checks it against the CRC the
// catalog recorded.
func (a *Archive) Restore(v *Version) (*Parts, error) { return a.RestoreKnown(v, Headers{}) }

// Headers are the WARC and HTTP headers of a record as an earlier
// Restore of it gave them (Parts.WARCHeader, Parts.HTTPHeader), for
// RestoreKnown; nil when not known.
type Headers struct {
	WARC, HTTP []byte
}

// RestoreKnown is Restore for a version whose headers are known, from an
// earlier Restore of the same version (the caller must not change
// them): they are taken as given instead of decoded, which for most
// records means not computing the SHA-1 digests of the block and the
// payload the WARC header names, the larger part of a restore's CPU,
// and the block of an HTTP record is not built (see Parts.Block): with
// both headers known, nor is its payload when it is kept as layout +
// blocks with no content coding nor chunking. The check is Restore's:
// the CRC-32C recorded at ingest over the WARC header, the block and
// the trailer, so a block that differs from the record's, or a header
// that is not its header, is ErrMismatch. With no WARC header it is
// Restore.
func (a *Archive) RestoreKnown(v *Version, h Headers) (*Parts, error) {
	if a.u != nil {
		p, err := a.Part(v.shard)
		if err != nil {
			return nil, err
		}
		return p.RestoreKnown(v, h)
	}
	if h.WARC == nil || v.Mode != modeHTTP {
		h.HTTP = nil
	}
	// The objects are read grouped by frame (a page's blocks and layout
	// are mostly in one or two frames), each frame decompressed once.
	ids := objectsOf(v)
	if h.WARC != nil && v.Mode != modeRaw {
		ids = slices.DeleteFunc(ids, func(id pack.ID) bool {
			return id == v.WARCAnchor || h.HTTP != nil && id == v.HTTPAnchor
		})
	}
	objs, err := a.store.GetMany(ids)
	if err != nil {
		return nil, fmt.Errorf("restore %s at %d: %w", v.File, v.Offset, err)
	}
	got := make(map[pack.ID][]byte, len(ids))
	for i, id := range ids {
		got[id] = objs[i]
	}
	p, err := restoreKnown(v, func(id pack.ID) ([]byte, error) {
		if b, ok := got[id]; ok {
			return b, nil
		}
		return a.get(id)
	}, h)
	if err != nil {
		return nil, fmt.Errorf("restore %s at %d: %w", v.File, v.Offset, err)
	}
	return p, nil
}

// objectsOf lists the distinct objects restoring v reads.
func objectsOf(v *Version) []pack.ID {
	var ids []pack.ID
	switch v.Mode {
	case modeRaw:
		ids = append(ids, v.Record)
	case modeBlock:
		ids = append(ids, v.WARCAnchor, v.Block)
	case modeInline:
		ids = append(ids, v.WARCAnchor)
	case modeHTTP:
		ids = append(ids, v.WARCAnchor, v.HTTPAnchor)
		if v.Form == formWhole {
			ids = append(ids, v.Payload)
		} else {
			ids = append(append(ids, v.Layout), v.Blocks...)
		}
	}
	out := ids[:0]
	seen := make(map[pack.ID]bool, len(ids))
	for _, id := range ids {
		if id != (pack.ID{}) && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// ErrMismatch says a restored record does not match what was recorded.
var ErrMismatch = errors.New("restored record does not match")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func restore(v *Version, get getter) (*Parts, error) { return restoreKnown(v, get, Headers{}) }

// restoreKnown is restore taking the headers known (see RestoreKnown);
// h.HTTP only with h.WARC, for an HTTP record.
func restoreKnown(v *Version, get getter, h Headers) (*Parts, error) {
	warcHeader := h.WARC
	p := &Parts{Trailer: v.Trailer}
	// header decodes the WARC header of block (HTTP header of httpLen
	// bytes, or -1) unless it is known.
	header := func(block []byte, httpLen int) ([]byte, error) {
		if warcHeader != nil {
			return warcHeader, nil
		}
		return decodeHeader(get, v.WARCHeader, v.WARCAnchor, warcContext(v, block, httpLen))
	}
	switch v.Mode {
	case modeRaw:
		rec, err := get(v.Record)
		if err != nil {
			return nil, fmt.Errorf("get record: %w", err)
		}
		if len(rec) < len(v.Trailer) {
			return nil, fmt.Errorf("%w: record shorter than its trailer", ErrMismatch)
		}
		// A raw record object holds header ‖ block; the trailer is apart.
		p.WARCHeader, p.Block = rec, nil
	case modeBlock, modeInline:
		blk := bytes.Clone(v.inline)
		var err error
		if v.Mode == modeBlock {
			if blk, err = get(v.Block); err != nil {
				return nil, fmt.Errorf("get block: %w", err)
			}
		}
		p.Block = blk
		if p.WARCHeader, err = header(blk, -1); err != nil {
			return nil, fmt.Errorf("decode WARC header: %w", err)
		}
	case modeHTTP:
		if h.HTTP != nil {
			ps, err := payloadPieces(v, get)
			if err != nil {
				return nil, err
			}
			p.WARCHeader, p.HTTPHeader = h.WARC, h.HTTP
			p.pieces = append([][]byte{h.HTTP}, ps...)
			break
		}
		payload, err := restorePayload(v, get, p)
		if err != nil {
			return nil, err
		}
		hh, err := decodeHeader(get, v.HTTPHeader, v.HTTPAnchor, httpContext(v, payload))
		if err != nil {
			return nil, fmt.Errorf("decode HTTP header: %w", err)
		}
		p.HTTPHeader, p.Payload = hh, payload
		if warcHeader != nil {
			// The header is known: no need of the block in one piece.
			p.WARCHeader, p.pieces, p.Payload = warcHeader, [][]byte{hh, payload}, nil
			break
		}
		p.Block = append(append(make([]byte, 0, len(hh)+len(payload)), hh...), payload...)
		if p.WARCHeader, err = header(p.Block, len(hh)); err != nil {
			return nil, fmt.Errorf("decode WARC header: %w", err)
		}
	default:
		return nil, fmt.Errorf("%w: mode %d", errCatalog, v.Mode)
	}
	c := crc32.Checksum(p.WARCHeader, castagnoli)
	for _, b := range p.block() {
		c = crc32.Update(c, castagnoli, b)
	}
	c = crc32.Update(c, castagnoli, p.Trailer)
	if c != v.CRC {
		return nil, fmt.Errorf("%w: CRC-32C %08x, catalog says %08x", ErrMismatch, c, v.CRC)
	}
	return p, nil
}

// payloadPieces returns the HTTP payload of v as pieces to be sent in
// order: a layout's gaps and the blocks between them, when the payload
// was stored as layout + blocks with neither content coding nor
// chunking; otherwise restorePayload's payload.
func payloadPieces(v *Version, get getter) ([][]byte, error) {
	if v.Form == formWhole || v.Coding != nil || v.Framing != nil {
		b, err := restorePayload(v, get, &Parts{})
		if err != nil {
			return nil, err
		}
		return [][]byte{b}, nil
	}
	l, blocks, err := layoutBlocks(v, get)
	if err != nil {
		return nil, err
	}
	if len(l.Gaps) == 0 && len(blocks) == 0 {
		return nil, nil // an empty payload
	}
	if len(l.Gaps) != len(blocks)+1 {
		// Reassemble's error.
		_, err := partition.Reassemble(l, blocks)
		return nil, fmt.Errorf("reassemble payload: %w", err)
	}
	ps := make([][]byte, 0, 2*len(blocks)+1)
	for i, b := range blocks {
		ps = append(ps, l.Gaps[i], b)
	}
	return append(ps, l.Gaps[len(l.Gaps)-1]), nil
}

// layoutBlocks fetches and decodes v's layout and fetches its blocks.
func layoutBlocks(v *Version, get getter) (partition.Layout, [][]byte, error) {
	lb, err := get(v.Layout)
	if err != nil {
		return partition.Layout{}, nil, fmt.Errorf("get layout: %w", err)
	}
	l, err := partition.Decode(lb)
	if err != nil {
		return partition.Layout{}, nil, fmt.Errorf("decode layout: %w", err)
	}
	blocks := make([][]byte, len(v.Blocks))
	for i, id := range v.Blocks {
		if blocks[i], err = get(id); err != nil {
			return partition.Layout{}, nil, fmt.Errorf("get block %d: %w", i, err)
		}
	}
	return l, blocks, nil
}

// restorePayload rebuilds the HTTP payload of v; for a payload kept as
// layout + blocks it also sets p.Document and p.Leaves.
func restorePayload(v *Version, get getter, p *Parts) ([]byte, error) {
	if v.Form == formWhole {
		b, err := get(v.Payload)
		if err != nil {
			return nil, fmt.Errorf("get payload: %w", err)
		}
		return b, nil
	}
	l, blocks, err := layoutBlocks(v, get)
	if err != nil {
		return nil, err
	}
	doc, err := partition.Reassemble(l, blocks)
	if err != nil {
		return nil, fmt.Errorf("reassemble payload: %w", err)
	}
	p.Document = doc
	p.Leaves = make([][2]int, len(blocks))
	at := 0
	for i, b := range blocks {
		at += len(l.Gaps[i])
		p.Leaves[i] = [2]int{at, at + len(b)}
		at += len(b)
	}
	// A content-coded payload was partitioned decoded: encode it again
	// with the settings ingest found to reproduce it, then re-chunk.
	if v.Coding != nil {
		var rp reencode.Params
		if err := rp.UnmarshalBinary(v.Coding); err != nil {
			return nil, fmt.Errorf("decode content coding: %w", err)
		}
		if doc, err = reencode.Encode(nil, rp, doc); err != nil {
			return nil, fmt.Errorf("re-encode payload: %w", err)
		}
	}
	if v.Framing == nil {
		return doc, nil
	}
	var f warcio.Framing
	if err := f.UnmarshalBinary(v.Framing); err != nil {
		return nil, fmt.Errorf("decode framing: %w", err)
	}
	out, err := warcio.Rebuild(doc, &f)
	if err != nil {
		return nil, fmt.Errorf("rechunk payload: %w", err)
	}
	return out, nil
}

func decodeHeader(get getter, e []byte, anchor pack.ID, ctx hdrcodec.Context) ([]byte, error) {
	var prev []byte
	if anchor != (pack.ID{}) {
		ab, err := get(anchor)
		if err != nil {
			return nil, fmt.Errorf("get anchor: %w", err)
		}
		if prev, err = hdrcodec.Decode(nil, ab, nil, hdrcodec.Unknown()); err != nil {
			return nil, fmt.Errorf("decode anchor: %w", err)
		}
	}
	return hdrcodec.Decode(nil, e, prev, ctx)
}

// warcContext is the Context of a WARC header: facts of its block (HTTP
// header of httpLen bytes, or -1), the catalog's date and URI, and as
// Refs the record's id and the id of the version before it in its catalog
// entry.
func warcContext(v *Version, block []byte, httpLen int) hdrcodec.Context {
	c := hdrcodec.ForBlock(block, httpLen)
	if d := v.read; d != nil {
		// Digests of bytes of the same lengths as block and its payload:
		// those very bytes at ingest; at its check, a restored block that
		// differs is refused by the byte comparison after the decode.
		if d.BlockSHA1 != nil && d.BlockLen == int64(len(block)) {
			c.Block.SHA1 = d.BlockSHA1
			testReadDigest(block, d.BlockSHA1)
		}
		if httpLen >= 0 && d.PayloadSHA1 != nil && d.PayloadLen == int64(len(block)-httpLen) {
			c.Payload.SHA1 = d.PayloadSHA1
			testReadDigest(block[httpLen:], d.PayloadSHA1)
		}
	}
	c.Date, c.URL = v.Date, v.TargetURI
	// The previous record of the URL is most often the request this
	// response is WARC-Concurrent-To.
	c.Refs = []string{v.RecordID, v.prevRecordID}
	return c
}

// testReadDigest, replaced by tests only, sees each digest of the reader
// a header context takes, with the bytes it stands for.
var testReadDigest = func(data, sha1 []byte) {}

// httpContext is the Context of an HTTP header: facts of its payload.
func httpContext(v *Version, payload []byte) hdrcodec.Context {
	c := hdrcodec.Unknown()
	c.PayloadLen = int64(len(payload))
	c.Payload = hdrcodec.Sum(payload)
	if d := v.read; d != nil && d.PayloadSHA1 != nil && d.PayloadLen == int64(len(payload)) {
		c.Payload.SHA1 = d.PayloadSHA1 // as in warcContext
		testReadDigest(payload, d.PayloadSHA1)
	}
	c.Date, c.URL = v.Date, v.TargetURI
	return c
}
