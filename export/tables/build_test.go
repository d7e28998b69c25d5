package tables

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/partition"
	"github.com/blockwarc/blockwarc/warcio"
)

// ingest builds an archive in dir from batches of inputs, one Ingest
// each, and opens it.
func ingest(t testing.TB, dir string, batches ...[]string) *dedupe.Archive {
	t.Helper()
	for _, b := range batches {
		if _, err := dedupe.Ingest(context.Background(), dir, b, dedupe.Options{}); err != nil {
			t.Fatalf("ingest: %v", err)
		}
	}
	a, err := dedupe.Open(dir, pack.Options{})
	if err != nil {
		t.Fatalf("open archive: %v", err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// recorder is a Sink that keeps every row and checks the call protocol.
type recorder struct {
	caps    []*Capture
	cbs     []*CaptureBlock
	changes []*Change
	urls    []*URL
	blocks  []*Block
	links   []*Link
	closed  int
	err     error // first protocol violation
}

func (r *recorder) fail(format string, args ...any) error {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
	return nil
}

func (r *recorder) Takes(string) bool { return true }

func (r *recorder) Add(row Row) error {
	switch row := row.(type) {
	case *Capture:
		return r.Capture(row)
	case *CaptureBlock:
		return r.CaptureBlock(row)
	case *Change:
		return r.Change(row)
	case *URL:
		return r.URL(row)
	case *Block:
		return r.Block(row)
	case *Link:
		return r.Link(row)
	}
	return r.fail("row of unknown table %q", row.Table())
}

// Per-URL rows must precede the URL's urls row, and no URL row may come
// after the blocks started.
func (r *recorder) Capture(c *Capture) error {
	if len(r.blocks) > 0 {
		return r.fail("capture after blocks")
	}
	if n := len(r.urls); n > 0 && r.urls[n-1].URLSURTKey >= c.URLSURTKey {
		return r.fail("capture of %q after urls row of %q", c.URLSURTKey, r.urls[n-1].URLSURTKey)
	}
	r.caps = append(r.caps, c)
	return nil
}

func (r *recorder) CaptureBlock(c *CaptureBlock) error {
	if n := len(r.caps); n == 0 || r.caps[n-1].URLSURTKey != c.URLSURTKey || r.caps[n-1].Version != c.Version {
		return r.fail("capture_blocks row of %q v%d not right after its capture", c.URLSURTKey, c.Version)
	}
	r.cbs = append(r.cbs, c)
	return nil
}

func (r *recorder) Change(c *Change) error {
	if n := len(r.caps); n == 0 || r.caps[n-1].URLSURTKey != c.URLSURTKey {
		return r.fail("changes row of %q not after its captures", c.URLSURTKey)
	}
	r.changes = append(r.changes, c)
	return nil
}

func (r *recorder) Link(l *Link) error {
	if n := len(r.caps); n == 0 || r.caps[n-1].URLSURTKey != l.URLSURTKey {
		return r.fail("links row of %q not after its capture", l.URLSURTKey)
	}
	found := false
	for i := len(r.cbs) - 1; i >= 0 && r.cbs[i].URLSURTKey == l.URLSURTKey; i-- {
		found = found || r.cbs[i].BlockID == l.BlockID
	}
	if !found {
		return r.fail("links row of %q block %s without a capture_blocks row", l.URLSURTKey, l.BlockID)
	}
	r.links = append(r.links, l)
	return nil
}

func (r *recorder) URL(u *URL) error {
	if n := len(r.caps); n == 0 || r.caps[n-1].URLSURTKey != u.URLSURTKey {
		return r.fail("urls row of %q not after its captures", u.URLSURTKey)
	}
	r.urls = append(r.urls, u)
	return nil
}

// pageText is the text a notebook joins for capture c: its blocks' text
// in page order, one per line, empty texts left out (docs/TABLES.md); with
// labels, only blocks with one of them.
func pageText(r *recorder, c *Capture, labels ...string) string {
	byID := map[string]*Block{}
	for _, b := range r.blocks {
		byID[b.BlockID] = b
	}
	var parts []string
	for _, cb := range r.cbs {
		if cb.URLSURTKey != c.URLSURTKey || cb.Version != c.Version {
			continue
		}
		b := byID[cb.BlockID]
		if b != nil && b.Text != "" && (len(labels) == 0 || slices.Contains(labels, b.Label)) {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (r *recorder) Block(b *Block) error { r.blocks = append(r.blocks, b); return nil }
func (r *recorder) Close() error         { r.closed++; return nil }

func build(t testing.TB, a *dedupe.Archive, opts Options) (*recorder, Stats) {
	t.Helper()
	if opts.TempDir == "" {
		opts.TempDir = t.TempDir()
	}
	r := &recorder{}
	st, err := Build(context.Background(), a, opts, r)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if r.err != nil {
		t.Fatalf("sink protocol: %v", r.err)
	}
	if r.closed != 1 {
		t.Fatalf("sink closed %d times, want 1", r.closed)
	}
	if ents, _ := os.ReadDir(opts.TempDir); len(ents) != 0 {
		t.Errorf("Build left %d files in TempDir", len(ents))
	}
	return r, st
}

type manifestLine struct {
	url  string
	time time.Time
	sha1 string // hex
}

func readManifest(t testing.TB, site string) []manifestLine {
	t.Helper()
	f, err := os.Open(filepath.Join(sharedtest.Dir(t, "corpus", site), "manifest.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []manifestLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) != 3 || fs[0] == "url" {
			continue
		}
		tm, err := time.Parse(time.RFC3339, fs[1])
		if err != nil {
			t.Fatalf("manifest %s: %v", site, err)
		}
		out = append(out, manifestLine{fs[0], tm, fs[2]})
	}
	if len(out) == 0 {
		t.Fatalf("manifest of %s is empty", site)
	}
	return out
}

// TestBuildCorpus builds the tables of every corpus site and checks them
// against the site's manifest and against the archive's objects; on each,
// re-partitioning gives exactly the stored blocks (Stats.BlockMismatches).
func TestBuildCorpus(t *testing.T) {
	for _, site := range []string{"ota-lovescout24", "ota-mektoube", "ota-tinder", "mkdocs-org"} {
		t.Run(site, func(t *testing.T) {
			files := sharedtest.CorpusFiles(t, site)
			a := ingest(t, t.TempDir(), files)
			r, st := build(t, a, Options{Workers: 2})
			checkManifest(t, r, readManifest(t, site))
			checkTables(t, a, r, st)
			t.Logf("%s: %+v", site, st)
			// Every site has changes that lie in some parts of their
			// blocks (the diff's parts): narrower than the blocks.
			finer := 0
			for _, ch := range r.changes {
				if ch.Changed && len(ch.ChangedPaths) > 0 && ch.ChangedPartBytes < ch.ChangedBytes {
					finer++
				}
			}
			if finer == 0 {
				t.Error("no change is narrower in changed_part_bytes than in changed_bytes")
			}
		})
	}
}

// checkManifest: every HTML 200 capture of the manifest is a captures row,
// once, with the manifest's payload digest. wget sometimes fetched a page
// twice in one crawl (same URL and second): the manifest lists both, so
// captures and lines are compared as multisets per URL and time.
func checkManifest(t *testing.T, r *recorder, man []manifestLine) {
	type key struct {
		url string
		at  time.Time
	}
	html := map[key][]string{}
	n := 0
	for _, c := range r.caps {
		if c.WARCType == "response" && c.FetchStatus != nil && *c.FetchStatus == 200 && c.ContentMIMEType != nil && *c.ContentMIMEType == "text/html" {
			k := key{c.URL, c.FetchTime}
			html[k] = append(html[k], c.ContentDigest)
			n++
			if c.StoredAs != "blocks" || c.BlocksTotal == 0 || c.LayoutID == nil || c.MainText != nil || c.ContentCharset == nil {
				// A blocks page's text is its blocks' (a join), not main_text.
				t.Errorf("%s at %s: stored_as %s, %d blocks, layout %v, main text %v (want none), charset %v", c.URL, c.FetchTime, c.StoredAs, c.BlocksTotal, c.LayoutID != nil, c.MainText != nil, c.ContentCharset != nil)
			}
		}
	}
	if n != len(man) {
		t.Errorf("%d HTML 200 captures, manifest has %d", n, len(man))
	}
	want := map[key][]string{}
	for _, m := range man {
		sum, _ := hex.DecodeString(m.sha1)
		k := key{m.url, m.time}
		want[k] = append(want[k], b32.EncodeToString(sum))
	}
	for k, w := range want {
		got := html[k]
		slices.Sort(got)
		slices.Sort(w)
		if !slices.Equal(got, w) {
			t.Errorf("%s at %s: content digests %v, manifest %v", k.url, k.at, got, w)
		}
	}
}

// checkTables checks the tables' order and their consistency with each
// other and with the archive.
func checkTables(t *testing.T, a *dedupe.Archive, r *recorder, st Stats) {
	objs := contentObjects(t, a)
	if st.BlockMismatches != 0 {
		t.Errorf("%d captures re-partitioned to other blocks than the archive stores", st.BlockMismatches)
	}
	if st.Captures != int64(len(r.caps)) || st.CaptureBlocks != int64(len(r.cbs)) || st.Changes != int64(len(r.changes)) ||
		st.URLs != int64(len(r.urls)) || st.Blocks != int64(len(r.blocks)) {
		t.Errorf("stats %+v do not count the rows (%d %d %d %d %d)", st, len(r.caps), len(r.cbs), len(r.changes), len(r.urls), len(r.blocks))
	}
	// Table order.
	capOrder := func(k1 string, t1 time.Time, v1 int32, k2 string, t2 time.Time, v2 int32) int {
		return cmp.Or(strings.Compare(k1, k2), t1.Compare(t2), cmp.Compare(v1, v2))
	}
	if !slices.IsSortedFunc(r.caps, func(x, y *Capture) int {
		return capOrder(x.URLSURTKey, x.FetchTime, x.Version, y.URLSURTKey, y.FetchTime, y.Version)
	}) {
		t.Error("captures not in table order")
	}
	if !slices.IsSortedFunc(r.cbs, func(x, y *CaptureBlock) int {
		return cmp.Or(capOrder(x.URLSURTKey, x.FetchTime, x.Version, y.URLSURTKey, y.FetchTime, y.Version), cmp.Compare(x.Ordinal, y.Ordinal))
	}) {
		t.Error("capture_blocks not in table order")
	}
	if !slices.IsSortedFunc(r.blocks, func(x, y *Block) int {
		return cmp.Or(strings.Compare(x.FirstURLSURTKey, y.FirstURLSURTKey), x.FirstFetchTime.Compare(y.FirstFetchTime))
	}) {
		t.Error("blocks not in table order")
	}
	for i, b := range r.blocks {
		if b.BlockNo != int64(i+1) {
			t.Errorf("blocks row %d: block_no %d", i+1, b.BlockNo)
			break
		}
	}
	if !slices.IsSortedFunc(r.urls, func(x, y *URL) int { return strings.Compare(x.URLSURTKey, y.URLSURTKey) }) {
		t.Error("urls not in table order")
	}

	// Per URL: versions 1..n, changes n-1 with changed as in captures.
	byKey := map[string][]*Capture{}
	for _, c := range r.caps {
		byKey[c.URLSURTKey] = append(byKey[c.URLSURTKey], c)
	}
	chByKey := map[string][]*Change{}
	for _, ch := range r.changes {
		chByKey[ch.URLSURTKey] = append(chByKey[ch.URLSURTKey], ch)
	}
	// Records about the crawl (dns:, wget's metadata://) have captures
	// rows but no urls row, no changes and no host.
	web := 0
	for key, caps := range byKey {
		if isWeb(caps[0].URLProtocol) {
			web++
			continue
		}
		if len(chByKey[key]) != 0 {
			t.Errorf("%s: %d changes rows for a %s record", key, len(chByKey[key]), caps[0].URLProtocol)
		}
		for _, c := range caps {
			if c.URLHostName != "" || c.URLHostRegisteredDomain != nil {
				t.Errorf("%s: %s record with host %q", key, c.URLProtocol, c.URLHostName)
			}
		}
	}
	if len(r.urls) != web {
		t.Errorf("%d urls rows for %d keys of web captures", len(r.urls), web)
	}
	for _, u := range r.urls {
		caps, chs := byKey[u.URLSURTKey], chByKey[u.URLSURTKey]
		digests := map[string]bool{}
		for i, c := range caps {
			digests[c.ContentDigest] = true
			if c.Version != int32(i+1) {
				t.Errorf("%s: capture %d has version %d", u.URLSURTKey, i+1, c.Version)
			}
			if (i == 0) != (c.Changed == nil) {
				t.Errorf("%s v%d: changed %v", u.URLSURTKey, c.Version, c.Changed)
			}
			if c.BlocksAdded+c.BlocksModified+c.BlocksUnchanged != c.BlocksTotal {
				t.Errorf("%s v%d: added+modified+unchanged != total", u.URLSURTKey, c.Version)
			}
		}
		if len(chs) != len(caps)-1 {
			t.Errorf("%s: %d changes for %d captures", u.URLSURTKey, len(chs), len(caps))
			continue
		}
		observed := int64(0)
		for i, ch := range chs {
			later := caps[i+1]
			if ch.FromVersion != int32(i+1) || ch.ToVersion != int32(i+2) || !ch.ToTime.Equal(later.FetchTime) {
				t.Errorf("%s: change %d is %d->%d", u.URLSURTKey, i, ch.FromVersion, ch.ToVersion)
			}
			if ch.Changed != *later.Changed || ch.Changed != (later.ContentDigest != caps[i].ContentDigest) {
				t.Errorf("%s v%d: changes.changed %v, captures.changed %v", u.URLSURTKey, later.Version, ch.Changed, *later.Changed)
			}
			if ch.Changed {
				observed++
			}
			if !ch.Changed && (ch.ChangedBytes != 0 || ch.ChangedPartBytes != 0 || len(ch.ChangedPaths) != 0) {
				t.Errorf("%s v%d: unchanged payload but %d changed bytes (%d in parts), paths %v", u.URLSURTKey, later.Version, ch.ChangedBytes, ch.ChangedPartBytes, ch.ChangedPaths)
			}
			if ch.Changed && len(ch.ChangedPaths) > 0 {
				if ch.ChangedPartBytes <= 0 || ch.ChangedPartBytes > caps[i].PayloadLength+later.PayloadLength {
					t.Errorf("%s v%d: %d changed part bytes of %d+%d payload bytes", u.URLSURTKey, later.Version, ch.ChangedPartBytes, caps[i].PayloadLength, later.PayloadLength)
				}
			}
		}
		if u.Captures != int64(len(caps)) || u.Versions != int64(len(digests)) || u.ObservedChanges != observed {
			t.Errorf("%s: urls row captures %d versions %d changes %d, want %d %d %d", u.URLSURTKey, u.Captures, u.Versions, u.ObservedChanges, len(caps), len(digests), observed)
		}
		if (len(caps) > 1) != (u.MeanIntervalDays != nil) {
			t.Errorf("%s: mean interval %v with %d captures", u.URLSURTKey, u.MeanIntervalDays, len(caps))
		}
	}

	// capture_blocks: one per block of the capture, ids = the stored
	// blocks, which reassemble the payload with the layout.
	cbByCap := map[string][]*CaptureBlock{}
	capKey := func(k string, v int32) string { return fmt.Sprintf("%s\x00%d", k, v) }
	for _, cb := range r.cbs {
		k := capKey(cb.URLSURTKey, cb.Version)
		cbByCap[k] = append(cbByCap[k], cb)
	}
	for _, c := range r.caps {
		cbs := cbByCap[capKey(c.URLSURTKey, c.Version)]
		if len(cbs) != int(c.BlocksTotal) {
			t.Errorf("%s v%d: %d capture_blocks rows, blocks_total %d", c.URLSURTKey, c.Version, len(cbs), c.BlocksTotal)
			continue
		}
		st := map[string]int32{}
		for i, cb := range cbs {
			st[cb.Status]++
			if cb.Ordinal != int32(i+1) {
				t.Errorf("%s v%d: ordinal %d at %d", c.URLSURTKey, c.Version, cb.Ordinal, i+1)
			}
			if (cb.Status == "modified") != (cb.PredecessorBlockID != nil && cb.Similarity != nil) {
				t.Errorf("%s v%d #%d: status %s, predecessor %v", c.URLSURTKey, c.Version, cb.Ordinal, cb.Status, cb.PredecessorBlockID)
			}
		}
		if st["added"] != c.BlocksAdded || st["modified"] != c.BlocksModified || st["unchanged"] != c.BlocksUnchanged {
			t.Errorf("%s v%d: statuses %v, row says +%d ~%d =%d", c.URLSURTKey, c.Version, st, c.BlocksAdded, c.BlocksModified, c.BlocksUnchanged)
		}
		if c.Version == 1 && c.BlocksAdded != c.BlocksTotal {
			t.Errorf("%s v1: %d of %d blocks added", c.URLSURTKey, c.BlocksAdded, c.BlocksTotal)
		}
		if c.BlocksTotal > 0 && c.StoredAs == "blocks" {
			checkReassembly(t, a, objs, c, cbs)
		}
	}

	// blocks: distinct, every capture_blocks id present, counts agree.
	blocks := map[string]*Block{}
	for _, b := range r.blocks {
		if blocks[b.BlockID] != nil {
			t.Errorf("block %s twice", b.BlockID)
		}
		blocks[b.BlockID] = b
	}
	// block_no names the same block as the hex id, wherever it is used.
	noOf := func(id string) int64 {
		if b := blocks[id]; b != nil {
			return b.BlockNo
		}
		return -1
	}
	for _, cb := range r.cbs {
		if cb.BlockNo != noOf(cb.BlockID) {
			t.Errorf("%s v%d #%d: block_no %d, block %s has %d", cb.URLSURTKey, cb.Version, cb.Ordinal, cb.BlockNo, cb.BlockID, noOf(cb.BlockID))
		}
		if (cb.PredecessorBlockID == nil) != (cb.PredecessorBlockNo == nil) ||
			cb.PredecessorBlockID != nil && *cb.PredecessorBlockNo != noOf(*cb.PredecessorBlockID) {
			t.Errorf("%s v%d #%d: predecessor_block_no %v for block %v", cb.URLSURTKey, cb.Version, cb.Ordinal, cb.PredecessorBlockNo, cb.PredecessorBlockID)
		}
	}
	for _, l := range r.links {
		if l.BlockNo != noOf(l.BlockID) {
			t.Errorf("links row of %s: block_no %d, block %s has %d", l.URLSURTKey, l.BlockNo, l.BlockID, noOf(l.BlockID))
		}
	}
	caps, urls := map[string]map[string]bool{}, map[string]map[string]bool{}
	for _, cb := range r.cbs {
		if caps[cb.BlockID] == nil {
			caps[cb.BlockID], urls[cb.BlockID] = map[string]bool{}, map[string]bool{}
		}
		caps[cb.BlockID][capKey(cb.URLSURTKey, cb.Version)] = true
		urls[cb.BlockID][cb.URLSURTKey] = true
	}
	if len(blocks) != len(caps) {
		t.Errorf("%d blocks rows, %d distinct block ids in capture_blocks", len(blocks), len(caps))
	}
	for id, cs := range caps {
		b := blocks[id]
		if b == nil {
			t.Errorf("block %s of capture_blocks has no blocks row", id)
			continue
		}
		if b.Captures != int64(len(cs)) || b.URLs != int64(len(urls[id])) {
			t.Errorf("block %s: captures %d urls %d, capture_blocks say %d %d", id, b.Captures, b.URLs, len(cs), len(urls[id]))
		}
		obj, ok := objs[mustID(t, id)]
		if !ok || len(obj) != int(b.Bytes) {
			t.Errorf("block %s: %d bytes, archive object %d (found %v)", id, b.Bytes, len(obj), ok)
		}
	}
	// The first sight is the first capture_blocks row of the block.
	for _, cb := range r.cbs {
		if b := blocks[cb.BlockID]; b != nil && b.FirstURLSURTKey == cb.URLSURTKey && b.FirstFetchTime.Equal(cb.FetchTime) {
			continue
		} else if b != nil && (b.FirstURLSURTKey > cb.URLSURTKey || b.FirstURLSURTKey == cb.URLSURTKey && b.FirstFetchTime.After(cb.FetchTime)) {
			t.Errorf("block %s first seen at %s %s, but in %s at %s", cb.BlockID, b.FirstURLSURTKey, b.FirstFetchTime, cb.URLSURTKey, cb.FetchTime)
		}
	}

	// added_bytes: a capture repeating an earlier capture of its URL that
	// is stored as blocks adds nothing (content addressing); the first
	// capture stored with a layout adds at least the layout's bytes.
	seenDigest, seenLayout := map[string]bool{}, map[string]bool{}
	for _, c := range r.caps {
		k := c.URLSURTKey + "\x00" + c.ContentDigest
		if c.StoredAs == "blocks" && seenDigest[k] && c.AddedBytes != 0 {
			t.Errorf("%s v%d repeats an earlier capture but adds %d bytes", c.URLSURTKey, c.Version, c.AddedBytes)
		}
		if c.StoredAs == "blocks" && !seenLayout[*c.LayoutID] {
			seenLayout[*c.LayoutID] = true
			if obj, ok := objs[mustID(t, *c.LayoutID)]; !ok || c.AddedBytes < int64(len(obj)) {
				t.Errorf("%s v%d: first with layout %s (%d bytes, found %v), adds %d", c.URLSURTKey, c.Version, *c.LayoutID, len(obj), ok, c.AddedBytes)
			}
		}
		if c.StoredAs == "blocks" {
			seenDigest[k] = true
		}
	}
}

func mustID(t *testing.T, s string) pack.ID {
	id, err := parseID(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// contentObjects reads the layouts and blocks of every page of a, by
// the ids the tables name them with: hashes of their bytes, whether the
// archive names them so or by place.
func contentObjects(t *testing.T, a *dedupe.Archive) map[pack.ID][]byte {
	t.Helper()
	objs := map[pack.ID][]byte{}
	err := a.Walk(func(uv dedupe.URLVersions) error {
		for _, v := range uv.Versions {
			for _, id := range append([]pack.ID{v.Layout}, v.Blocks...) {
				if id == (pack.ID{}) {
					continue
				}
				b, _, err := a.Store().Get(id)
				if err != nil {
					return err
				}
				objs[a.Sum(b)] = b
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// checkReassembly takes the capture's layout and the capture_blocks'
// objects by their table ids and checks they rebuild the payload the
// archive restores.
func checkReassembly(t *testing.T, a *dedupe.Archive, objs map[pack.ID][]byte, c *Capture, cbs []*CaptureBlock) {
	t.Helper()
	lb, ok := objs[mustID(t, *c.LayoutID)]
	if !ok {
		t.Fatalf("get layout of %s v%d: no object %s", c.URLSURTKey, c.Version, *c.LayoutID)
	}
	l, err := partition.Decode(lb)
	if err != nil {
		t.Fatal(err)
	}
	blocks := make([][]byte, len(cbs))
	for i, cb := range cbs {
		if blocks[i], ok = objs[mustID(t, cb.BlockID)]; !ok {
			t.Fatalf("get block %s: not an object of the archive", cb.BlockID)
		}
	}
	doc, err := partition.Reassemble(l, blocks)
	if err != nil {
		t.Fatalf("%s v%d: reassemble: %v", c.URLSURTKey, c.Version, err)
	}
	v := findVersion(t, a, c)
	p, err := a.Restore(&v)
	if err != nil {
		t.Fatal(err)
	}
	payload := p.Payload
	if v.Framing != nil {
		payload, _ = io.ReadAll(warcio.NewDechunker(bytes.NewReader(payload)))
	}
	if v.Coding != nil { // kept decoded, re-encoded on restore
		m, err := warcio.ReadHTTP(bytes.NewReader(p.HTTPHeader), 0)
		if err != nil {
			t.Fatal(err)
		}
		cr, err := warcio.DecodeContent(bytes.NewReader(payload), m.ContentEncodings(), 0)
		if err != nil {
			t.Fatal(err)
		}
		payload, _ = io.ReadAll(cr)
	}
	if !bytes.Equal(doc, payload) {
		t.Errorf("%s v%d: capture_blocks do not reassemble the payload", c.URLSURTKey, c.Version)
	}
	if got := sha1Digest(p.Payload); got != c.ContentDigest {
		t.Errorf("%s v%d: content_digest %s, payload hashes to %s", c.URLSURTKey, c.Version, c.ContentDigest, got)
	}
}

func findVersion(t *testing.T, a *dedupe.Archive, c *Capture) dedupe.Version {
	t.Helper()
	vs, err := a.Versions(c.URLSURTKey)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if filepath.Base(v.File) == c.WARCFilename && v.Offset == c.WARCRecordOffset {
			return v
		}
	}
	t.Fatalf("no version of %s at %s:%d", c.URLSURTKey, c.WARCFilename, c.WARCRecordOffset)
	return dedupe.Version{}
}

// TestBuildDeterministic: an archive built by two ingests (the later
// files first, so the second ingest adds earlier captures to every URL)
// gives the same rows as one ingest of all files, with any worker count.
func TestBuildDeterministic(t *testing.T) {
	files := sharedtest.CorpusFiles(t, "ota-lovescout24")
	half := len(files) / 2
	one := ingest(t, t.TempDir(), files)
	two := ingest(t, t.TempDir(), files[half:], files[:half])
	r1, st1 := build(t, one, Options{Workers: 1})
	r2, st2 := build(t, two, Options{Workers: 3})
	// The later dumps ingested first, the second run stores again some
	// objects the first had (objects named by place, docs/FORMAT.md),
	// yet added_bytes, counted by the hash of the bytes, is the same.
	if st1 != st2 {
		t.Errorf("stats differ:\n one ingest %+v\n two ingests %+v", st1, st2)
	}
	compareRows(t, "captures", r1.caps, r2.caps)
	compareRows(t, "capture_blocks", r1.cbs, r2.cbs)
	compareRows(t, "changes", r1.changes, r2.changes)
	compareRows(t, "urls", r1.urls, r2.urls)
	compareRows(t, "blocks", r1.blocks, r2.blocks)
}

func compareRows[T any](t *testing.T, table string, a, b []*T) {
	t.Helper()
	if len(a) != len(b) {
		t.Errorf("%s: %d rows vs %d", table, len(a), len(b))
		return
	}
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			t.Errorf("%s row %d differs: %s", table, i, fieldDiff(a[i], b[i]))
			return
		}
	}
}

// fieldDiff names the fields of two rows that differ, pointers followed.
func fieldDiff(a, b any) string {
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	var out []string
	for i := range va.NumField() {
		fa, fb := va.Field(i), vb.Field(i)
		if !reflect.DeepEqual(fa.Interface(), fb.Interface()) {
			show := func(v reflect.Value) any {
				if v.Kind() == reflect.Pointer && !v.IsNil() {
					return v.Elem().Interface()
				}
				return v.Interface()
			}
			out = append(out, fmt.Sprintf("%s: %v vs %v", va.Type().Field(i).Name, show(fa), show(fb)))
		}
	}
	return strings.Join(out, "; ")
}

// interop returns paths of files of ../shared/testdata/interop.
func interop(t testing.TB, names ...string) []string {
	t.Helper()
	var out []string
	for _, n := range names {
		out = append(out, filepath.Join(sharedtest.Interop(t), n))
	}
	return out
}

// TestBuildRevisits: an identical-payload revisit stands for the page it
// revisits — its digest, title and blocks, all unchanged — whether the
// page is the URL's previous capture kept as blocks (pywb dupes), a page
// kept whole because it is gzip-encoded (warcio example), or a capture of
// another URL (pywb URL-agnostic revisit).
func TestBuildRevisits(t *testing.T) {
	t.Run("same-url", func(t *testing.T) {
		a := ingest(t, t.TempDir(), interop(t, "pywb--dupes.warc.gz"))
		r, st := build(t, a, Options{})
		checkTables(t, a, r, st)
		orig, rv := findCapture(t, r, "http://example.com", "response"), findCapture(t, r, "http://example.com", "revisit")
		if rv.ContentDigest != orig.ContentDigest || rv.Changed == nil || *rv.Changed || rv.PayloadLength != 0 {
			t.Errorf("revisit: digest %s changed %v length %d; original %s", rv.ContentDigest, rv.Changed, rv.PayloadLength, orig.ContentDigest)
		}
		if rv.BlocksTotal == 0 || rv.BlocksTotal != orig.BlocksTotal || rv.BlocksUnchanged != rv.BlocksTotal {
			t.Errorf("revisit blocks %d (%d unchanged), original %d", rv.BlocksTotal, rv.BlocksUnchanged, orig.BlocksTotal)
		}
		if !reflect.DeepEqual(rv.Title, orig.Title) || !reflect.DeepEqual(rv.MainText, orig.MainText) || rv.StoredAs != "payload" || rv.AddedBytes != 0 {
			t.Errorf("revisit title %v stored_as %s added %d; original title %v", deref(rv.Title), rv.StoredAs, rv.AddedBytes, deref(orig.Title))
		}
		if !slices.Equal(blockIDs(r, orig), blockIDs(r, rv)) {
			t.Error("revisit's capture_blocks are not the original's")
		}
		// Revisits of pages the file does not hold stay without a page.
		if st.Revisits != 1 || st.RevisitsUnresolved == 0 {
			t.Errorf("stats: %d revisits resolved, %d unresolved", st.Revisits, st.RevisitsUnresolved)
		}
	})
	t.Run("encoded", func(t *testing.T) {
		a := ingest(t, t.TempDir(), interop(t, "warcio--example.warc"))
		r, st := build(t, a, Options{})
		checkTables(t, a, r, st)
		orig, rv := findCapture(t, r, "http://example.com/", "response"), findCapture(t, r, "http://example.com/", "revisit")
		if orig.StoredAs != "payload" || orig.StoredWhy == nil || *orig.StoredWhy != "content-encoding" {
			t.Fatalf("original stored as %s (%v), want a gzip payload kept whole", orig.StoredAs, deref(orig.StoredWhy))
		}
		if orig.Title == nil || *orig.Title != "Example Domain" || orig.MainText == nil || !strings.Contains(*orig.MainText, "illustrative examples") {
			t.Errorf("decoded page: title %v main text %v", deref(orig.Title), deref(orig.MainText))
		}
		if rv.ContentDigest != orig.ContentDigest || !reflect.DeepEqual(rv.Title, orig.Title) || rv.BlocksTotal != 0 || *rv.Changed {
			t.Errorf("revisit: digest %s title %v blocks %d changed %v", rv.ContentDigest, deref(rv.Title), rv.BlocksTotal, *rv.Changed)
		}
	})
	t.Run("url-agnostic", func(t *testing.T) {
		a := ingest(t, t.TempDir(), interop(t, "pywb--example-url-agnostic-orig.warc.gz", "pywb--example-url-agnostic-revisit.warc.gz"))
		r, st := build(t, a, Options{})
		checkTables(t, a, r, st)
		orig, rv := findCapture(t, r, "http://example.iana.org/", "response"), findCapture(t, r, "http://test@example.com/", "revisit")
		if rv.ContentDigest != orig.ContentDigest || rv.BlocksTotal == 0 || !slices.Equal(blockIDs(r, orig), blockIDs(r, rv)) {
			t.Errorf("URL-agnostic revisit: digest %s blocks %d; original %s %d", rv.ContentDigest, rv.BlocksTotal, orig.ContentDigest, orig.BlocksTotal)
		}
		// Its blocks were first seen in the revisit's URL (table order),
		// and count two URLs.
		for _, b := range r.blocks {
			if b.URLs != 2 || b.Captures != 2 || b.FirstURL != rv.URL {
				t.Errorf("block %s: %d urls %d captures, first in %s", b.BlockID, b.URLs, b.Captures, b.FirstURL)
			}
		}
	})
}

func findCapture(t *testing.T, r *recorder, url, typ string) *Capture {
	t.Helper()
	for _, c := range r.caps {
		if c.URL == url && c.WARCType == typ {
			return c
		}
	}
	t.Fatalf("no %s capture of %s", typ, url)
	return nil
}

func blockIDs(r *recorder, c *Capture) []string {
	var ids []string
	for _, cb := range r.cbs {
		if cb.URLSURTKey == c.URLSURTKey && cb.Version == c.Version {
			ids = append(ids, cb.BlockID)
		}
	}
	return ids
}

// failSink fails on the n-th row.
type failSink struct {
	countSink
	n      int64
	closed bool
}

var errSink = fmt.Errorf("sink full")

func (s *failSink) row() error {
	if s.rows++; s.rows == s.n {
		return errSink
	}
	return nil
}
func (s *failSink) Add(Row) error { return s.row() }
func (s *failSink) Close() error  { s.closed = true; return nil }

// TestBuildErrors: a sink error or a cancelled context stops Build with
// that error, without closing the sink or leaving the spill file.
func TestBuildErrors(t *testing.T) {
	a := ingest(t, t.TempDir(), sharedtest.CorpusFiles(t, "ota-lovescout24")[:4])
	all := &countSink{}
	if _, err := Build(context.Background(), a, Options{TempDir: t.TempDir()}, all); err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 3} {
		for _, n := range []int64{1, 50, all.rows} { // a capture, a capture_block, the last blocks row
			tmp := t.TempDir()
			s := &failSink{n: n}
			_, err := Build(context.Background(), a, Options{Workers: workers, TempDir: tmp}, s)
			if !errors.Is(err, errSink) || s.closed {
				t.Errorf("workers %d, failing row %d: err %v, closed %v", workers, n, err, s.closed)
			}
			if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
				t.Errorf("spill file left after an error")
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		s := &failSink{}
		if _, err := Build(ctx, a, Options{Workers: workers, TempDir: t.TempDir()}, s); !errors.Is(err, context.Canceled) || s.closed {
			t.Errorf("workers %d, cancelled: err %v, closed %v", workers, err, s.closed)
		}
	}
	var calls []Stats
	r := &recorder{}
	if _, err := Build(context.Background(), a, Options{TempDir: t.TempDir(), Progress: func(s Stats) { calls = append(calls, s) }}, r); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, c := range r.caps {
		keys[c.URLSURTKey] = true
	}
	if len(calls) != len(keys) || calls[len(calls)-1].Captures != int64(len(r.caps)) {
		t.Errorf("%d progress calls for %d URLs", len(calls), len(keys))
	}
}

// TestBuildInterop runs the consistency checks over third-party files:
// ARC records (dns: and HTTP), chunked pages kept as blocks with their
// framing, gzip-encoded and non-UTF-8 pages, 404s and redirects.
func TestBuildInterop(t *testing.T) {
	for _, f := range []string{
		"aut--example.arc.gz", "warcio--example-iana.org-chunked.warc", "pywb--iana.warc.gz",
		"resiliparse--warcfile.warc.gz", "wac--IAH-urls-wget.warc.gz",
	} {
		t.Run(f, func(t *testing.T) {
			a := ingest(t, t.TempDir(), interop(t, f))
			r, st := build(t, a, Options{Workers: 2})
			checkTables(t, a, r, st)
			if st.Partitioned == 0 {
				t.Errorf("no capture kept as blocks: %+v", st)
			}
			for _, c := range r.caps {
				html := c.ContentMIMEType != nil && *c.ContentMIMEType == "text/html"
				// main_text only for HTML kept whole (no layout): a blocks
				// page's text is a join of its blocks.
				if (c.MainText != nil) != (c.ContentCharset != nil && c.LayoutID == nil) || c.MainText != nil && !html && c.WARCType != "revisit" {
					t.Errorf("%s v%d (%v): main text %v, charset %v", c.URL, c.Version, deref(c.ContentMIMEType), c.MainText != nil, deref(c.ContentCharset))
				}
				if c.WARCType == "response" && c.FetchStatus != nil && html && c.PayloadLength > 0 && c.MainText == nil && c.BlocksTotal == 0 {
					t.Errorf("%s v%d: HTML response without main text (stored as %s %v)", c.URL, c.Version, c.StoredAs, deref(c.StoredWhy))
				}
			}
			t.Logf("%+v", st)
		})
	}
}
