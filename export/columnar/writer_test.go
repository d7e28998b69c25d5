package columnar

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/blockwarc/blockwarc/export/tables"
)

// synthRows are rows of every table with every nullable column both null
// and set, empty and non-empty lists, non-ASCII text and times before and
// after 1970.
type synthRows struct {
	captures      []tables.Capture
	blocks        []tables.Block
	captureBlocks []tables.CaptureBlock
	changes       []tables.Change
	urls          []tables.URL
	links         []tables.Link
}

func synth(n int, seed uint64) *synthRows {
	rng := rand.New(rand.NewPCG(seed, 7))
	s := &synthRows{}
	optS := func(i int, v string) *string {
		if i%3 == 0 {
			return nil
		}
		return &v
	}
	optI64 := func(i int, v int64) *int64 {
		if i%3 == 0 {
			return nil
		}
		return &v
	}
	optF := func(i int, v float64) *float64 {
		if i%4 == 1 {
			return nil
		}
		return &v
	}
	optB := func(i int, v bool) *bool {
		if i%5 == 2 {
			return nil
		}
		return &v
	}
	list := func(i int) []string {
		l := make([]string, i%4) // 0..3 items; 0 is a nil (empty) list
		for k := range l {
			l[k] = fmt.Sprintf("w%d·%d", i, k)
		}
		if len(l) == 0 {
			return nil
		}
		return l
	}
	at := func(i int) time.Time {
		// Microsecond precision, some before the epoch.
		return time.UnixMicro(rng.Int64N(4e15) - 1e15).UTC()
	}
	for i := range n {
		url := fmt.Sprintf("http://example.%d.org/päge/%d", i%7, i)
		surt := fmt.Sprintf("org,example,%d)/päge/%d", i%7, i)
		st := int16(200 + i%3)
		var status *int16
		if i%6 != 0 {
			status = &st
		}
		text := strings.Repeat("text of "+url+" ", rng.IntN(20))
		s.captures = append(s.captures, tables.Capture{
			URL: url, URLSURTKey: surt, URLHostName: fmt.Sprintf("example.%d.org", i%7),
			URLHostRegisteredDomain: optS(i, "example.org"),
			FetchTime:               at(i), Version: int32(i%9 + 1), WARCType: "response",
			WARCRecordID: fmt.Sprintf("<urn:uuid:%08x-0000-4000-8000-000000000000>", i),
			FetchStatus:  status, ContentMIMEType: optS(i+1, "text/html"), ContentCharset: optS(i+2, "utf-8"),
			ContentDigest: fmt.Sprintf("%032d", i), PayloadLength: rng.Int64N(1 << 40),
			WARCFilename: "crawl-1.warc.gz", WARCRecordOffset: int64(i) * 1000, WARCRecordLength: int64(i%100 + 1),
			Changed: optB(i, i%2 == 0), LayoutID: optS(i, fmt.Sprintf("%064x", i)), LayoutChanged: optB(i+1, i%3 == 0),
			BlocksTotal: int32(i % 11), BlocksAdded: int32(i % 2), BlocksRemoved: int32(i % 3), BlocksModified: int32(i % 4),
			BlocksUnchanged: int32(i % 5), StoredAs: "blocks", StoredWhy: optS(i+2, "not-html"),
			AddedBytes: int64(i * 17), Title: optS(i, "Titre — 標題"), MainText: optS(i+1, text),
		})
		s.blocks = append(s.blocks, tables.Block{
			BlockID: fmt.Sprintf("%064x", i*31), BlockNo: int64(i + 1), FirstURL: url, FirstURLSURTKey: surt, FirstFetchTime: at(i),
			Tag: "div", Path: fmt.Sprintf("1.%d.%d", i%5, i%3), Level: int32(i%3 + 1),
			HTMLID: optS(i, "main"), HTMLClass: optS(i+1, "content wide"), Label: "content",
			Topic: list(i), Text: text, Bytes: int32(i * 3), TextLength: int32(len(text)), Words: int32(i % 50),
			Links: int32(i % 7), LinkTextRatio: asF32(rng.Float64()), Images: int32(i % 2), Forms: int32(i % 3),
			Inputs: int32(i % 4), Headings: int32(i % 5), Position: asF32(rng.Float64()), Captures: int64(i + 1), URLs: int64(i%4 + 1),
		})
		var sim *float64
		if i%2 == 0 {
			v := asF32(rng.Float64())
			sim = &v
		}
		s.captureBlocks = append(s.captureBlocks, tables.CaptureBlock{
			URLSURTKey: surt, FetchTime: at(i), Version: int32(i%9 + 1), Ordinal: int32(i%13 + 1),
			Path: fmt.Sprintf("1.%d", i%5), BlockNo: int64(i*31 + 1), Status: "modified",
			PredecessorBlockNo: optI64(i+1, int64(i*37+1)), Similarity: sim,
		})
		s.changes = append(s.changes, tables.Change{
			URL: url, URLSURTKey: surt, FromVersion: int32(i + 1), ToVersion: int32(i + 2),
			FromTime: at(i), ToTime: at(i), IntervalDays: rng.Float64() * 100, Changed: i%2 == 1,
			LayoutChanged: optB(i, i%4 == 0), BlocksAdded: int32(i % 2), BlocksRemoved: int32(i % 3),
			BlocksModified: int32(i % 4), BlocksUnchanged: int32(i % 5), ChangedBytes: int64(i * 5),
			ChangedPaths: list(i + 1),
		})
		s.urls = append(s.urls, tables.URL{
			URL: url, URLSURTKey: surt, URLHostName: "example.org", URLHostRegisteredDomain: optS(i+2, "example.org"),
			Captures: int64(i + 1), Versions: int64(i%3 + 1), FirstCapture: at(i), LastCapture: at(i),
			ObservedChanges: int64(i % 4), MeanIntervalDays: optF(i, 1.5), ChangeRatePerDay: optF(i+1, 0.25),
			ChangeRateMethod: optS(i, "regular"), ChangeRateRegularPerDay: optF(i+2, 0.2),
			ChangeRateMLEPerDay: optF(i+3, 0.3), PChange1D: optF(i, 0.22), PChange7D: optF(i, 0.83),
			VolatilePaths: list(i + 2),
		})
		s.links = append(s.links, tables.Link{
			URLSURTKey: surt, BlockNo: int64(i + 1), Ordinal: int32(i + 1), Tag: "a",
			Href: "../pfad/ä?q=" + fmt.Sprint(i), TargetURL: optS(i, "http://example.org/pfad/%C3%A4"),
			AnchorText: optText(i), Rel: optS(i+1, "nofollow"),
		})
	}
	return s
}

// optText is anchor text, empty for every fourth link.
func optText(i int) string {
	if i%4 == 0 {
		return ""
	}
	return "Lien — リンク " + fmt.Sprint(i)
}

// writeAll hands every row to w and closes it. (The writer keeps each
// table apart: the interleaving of tables does not matter to it.)
func (s *synthRows) writeAll(t testing.TB, w *Writer) {
	t.Helper()
	for i := range s.captures {
		must(t, w.Add(&s.captures[i]))
	}
	for i := range s.captureBlocks {
		must(t, w.Add(&s.captureBlocks[i]))
	}
	for i := range s.changes {
		must(t, w.Add(&s.changes[i]))
	}
	for i := range s.urls {
		must(t, w.Add(&s.urls[i]))
	}
	for i := range s.links {
		must(t, w.Add(&s.links[i]))
	}
	for i := range s.blocks {
		must(t, w.Add(&s.blocks[i]))
	}
	must(t, w.Close())
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// readBack reads every table of dir in format f with mem, checking the
// files' row groups against opts, and returns the rows.
func readBack(t *testing.T, dir string, f Format, opts WriterOptions, mem memory.Allocator) *synthRows {
	t.Helper()
	got := &synthRows{}
	read := func(table string) []arrow.RecordBatch {
		parts := partFiles(t, dir, table, f)
		if len(parts) == 0 {
			t.Fatalf("%s: no part files", table)
		}
		var all []arrow.RecordBatch
		for i, p := range parts {
			if want := fmt.Sprintf("part-%05d%s", i, f.Ext()); filepath.Base(p) != want {
				t.Errorf("part %d named %s, want %s", i, filepath.Base(p), want)
			}
			var recs []arrow.RecordBatch
			var rows int64
			if f == Parquet {
				var groups []int64
				recs, groups = readParquet(t, p, mem)
				for _, g := range groups {
					if g > int64(opts.RowGroupRows) || g == 0 {
						t.Errorf("%s: row group of %d rows, want 1..%d", p, g, opts.RowGroupRows)
					}
					rows += g
				}
			} else {
				recs = readIPC(t, p, mem)
				for _, r := range recs {
					if r.NumRows() > int64(opts.RowGroupRows) {
						t.Errorf("%s: batch of %d rows, want ≤ %d", p, r.NumRows(), opts.RowGroupRows)
					}
					rows += r.NumRows()
				}
			}
			// Every part but the last is full (rounded up to row groups).
			if i < len(parts)-1 && rows < opts.PartRows {
				t.Errorf("%s: %d rows in a part that is not the last, want ≥ %d", p, rows, opts.PartRows)
			}
			if rows >= opts.PartRows+int64(opts.RowGroupRows) {
				t.Errorf("%s: %d rows, want < %d", p, rows, opts.PartRows+int64(opts.RowGroupRows))
			}
			for _, r := range recs {
				if err := sameSchema(r.Schema(), Schema(table)); err != nil {
					t.Errorf("%s: %v", p, err)
				}
			}
			all = append(all, recs...)
		}
		return all
	}
	for _, table := range Tables() {
		recs := read(table)
		switch table {
		case Captures:
			got.captures = rowsOf[tables.Capture](t, recs)
		case Blocks:
			got.blocks = rowsOf[tables.Block](t, recs)
		case CaptureBlocks:
			got.captureBlocks = rowsOf[tables.CaptureBlock](t, recs)
		case Changes:
			got.changes = rowsOf[tables.Change](t, recs)
		case URLs:
			got.urls = rowsOf[tables.URL](t, recs)
		case Links:
			got.links = rowsOf[tables.Link](t, recs)
		}
		release(recs)
	}
	return got
}

// sameSchema compares field names, types and nullability; a list's item
// field is compared by type only (readers name it "item", "element" or
// "list").
func sameSchema(got, want *arrow.Schema) error {
	if got.NumFields() != want.NumFields() {
		return fmt.Errorf("%d fields, want %d", got.NumFields(), want.NumFields())
	}
	for i, w := range want.Fields() {
		g := got.Field(i)
		gt, wt := g.Type, w.Type
		if gl, ok := gt.(*arrow.ListType); ok {
			if wl, ok := wt.(*arrow.ListType); ok {
				gt, wt = gl.Elem(), wl.Elem()
			}
		}
		if g.Name != w.Name || g.Nullable != w.Nullable || !arrow.TypeEqual(gt, wt) {
			return fmt.Errorf("field %d: %s, want %s", i, g, w)
		}
	}
	return nil
}

func compareRows[R any](t *testing.T, table string, got, want []R) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, want %d", table, len(got), len(want))
		return
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("%s row %d:\n got %+v\nwant %+v", table, i, got[i], want[i])
			return
		}
	}
}

func compareAll(t *testing.T, got, want *synthRows) {
	t.Helper()
	compareRows(t, Captures, got.captures, want.captures)
	compareRows(t, Blocks, got.blocks, want.blocks)
	compareRows(t, CaptureBlocks, got.captureBlocks, want.captureBlocks)
	compareRows(t, Changes, got.changes, want.changes)
	compareRows(t, URLs, got.urls, want.urls)
	compareRows(t, Links, got.links, want.links)
}

func TestRoundTrip(t *testing.T) {
	for _, f := range []Format{Parquet, Arrow} {
		t.Run(string(f), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			dir := filepath.Join(t.TempDir(), "tables")
			// Small row groups and parts: several of each per table.
			opts := WriterOptions{Format: f, RowGroupRows: 7, PartRows: 20, Allocator: mem}
			w, err := NewWriter(dir, opts)
			must(t, err)
			want := synth(53, 1)
			want.writeAll(t, w)
			got := readBack(t, dir, f, opts, memory.NewGoAllocator())
			compareAll(t, got, want)
			for _, st := range w.Stats() {
				if st.Rows != 53 || st.Parts != 3 || st.Bytes <= 0 {
					t.Errorf("stats %+v: want 53 rows in 3 parts", st)
				}
				var sum int64
				for _, p := range partFiles(t, dir, st.Name, f) {
					fi, err := os.Stat(p)
					must(t, err)
					sum += fi.Size()
				}
				if sum != st.Bytes {
					t.Errorf("%s: stats say %d bytes, files hold %d", st.Name, st.Bytes, sum)
				}
			}
			assertNoSiblings(t, dir)
		})
	}
}

// TestRowGroupBytes: a byte bound ends row groups before the row limit.
func TestRowGroupBytes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := filepath.Join(t.TempDir(), "tables")
	opts := WriterOptions{RowGroupRows: 1000, RowGroupBytes: 4 << 10, PartRows: 1 << 20, Allocator: mem}
	w, err := NewWriter(dir, opts)
	must(t, err)
	want := synth(200, 2)
	want.writeAll(t, w)
	recs, groups := readParquet(t, partFiles(t, dir, Captures, Parquet)[0], memory.NewGoAllocator())
	release(recs)
	if len(groups) < 3 {
		t.Errorf("captures: %d row groups for 200 rows, want several under a 4 KiB bound", len(groups))
	}
	compareAll(t, readBack(t, dir, Parquet, opts, memory.NewGoAllocator()), want)
}

// TestEmpty: a table without rows still has one readable part file.
func TestEmpty(t *testing.T) {
	for _, f := range []Format{Parquet, Arrow} {
		t.Run(string(f), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			dir := filepath.Join(t.TempDir(), "tables")
			opts := WriterOptions{Format: f, Allocator: mem, RowGroupRows: MaxRowGroupRows, PartRows: DefaultPartRows}
			w, err := NewWriter(dir, opts)
			must(t, err)
			must(t, w.Close())
			got := readBack(t, dir, f, opts, memory.NewGoAllocator())
			compareAll(t, got, &synthRows{})
			for _, table := range Tables() {
				if n := len(partFiles(t, dir, table, f)); n != 1 {
					t.Errorf("%s: %d part files, want 1", table, n)
				}
			}
		})
	}
}

// TestDeterministic: the same rows give the same bytes.
func TestDeterministic(t *testing.T) {
	rows := synth(40, 3)
	var files [2]map[string][]byte
	for k := range files {
		dir := filepath.Join(t.TempDir(), "tables")
		w, err := NewWriter(dir, WriterOptions{RowGroupRows: 16})
		must(t, err)
		rows.writeAll(t, w)
		files[k] = readTree(t, dir)
	}
	if !reflect.DeepEqual(files[0], files[1]) {
		t.Error("two writes of the same rows differ")
	}
}

// readTree returns every file under dir by relative path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return err
	})
	must(t, err)
	return out
}

// assertNoSiblings fails when a temporary or old sibling of dir is left.
func assertNoSiblings(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(filepath.Dir(dir))
	must(t, err)
	for _, e := range ents {
		if e.Name() != filepath.Base(dir) && strings.HasPrefix(e.Name(), filepath.Base(dir)+".") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestReplace: a rewrite replaces every file, stale parts included, in
// both publish paths (exchange, and the two-rename fallback).
func TestReplace(t *testing.T) {
	for _, name := range []string{"exchange", "fallback"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "tables")
			w, err := NewWriter(dir, WriterOptions{RowGroupRows: 5, PartRows: 10})
			must(t, err)
			synth(45, 4).writeAll(t, w) // 5 parts per table
			old := readTree(t, dir)

			w, err = NewWriter(dir, WriterOptions{Format: Arrow})
			must(t, err)
			want := synth(12, 5)
			for i := range want.captures {
				must(t, w.Add(&want.captures[i]))
			}
			if name == "fallback" {
				// Close by hand with the fallback publish.
				for _, tw := range w.all {
					must(t, tw.finish())
				}
				w.release()
				must(t, syncDirs(w.tmp, Tables()))
				must(t, publishWith(w.tmp, w.dir, func(a, b string) error { return errNoExchange }))
				w.done = true
				unlockParent(w.lock)
			} else {
				must(t, w.Close())
			}
			now := readTree(t, dir)
			for p := range now {
				if _, ok := old[p]; ok {
					t.Errorf("%s of the first write is still there", p)
				}
				if !strings.HasSuffix(p, ".arrow") {
					t.Errorf("%s: want only .arrow parts", p)
				}
			}
			if len(now) != len(Tables()) {
				t.Errorf("%d files after the rewrite, want one per table: %v", len(now), slices.Sorted(mapsKeys(now)))
			}
			assertNoSiblings(t, dir)
		})
	}
}

func mapsKeys(m map[string][]byte) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestAbortKeepsOld: rows written then aborted leave the old tables as
// they were and nothing beside them.
func TestAbortKeepsOld(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := filepath.Join(t.TempDir(), "tables")
	w, err := NewWriter(dir, WriterOptions{Allocator: mem})
	must(t, err)
	synth(10, 6).writeAll(t, w)
	old := readTree(t, dir)

	w, err = NewWriter(dir, WriterOptions{Allocator: mem, RowGroupRows: 3})
	must(t, err)
	rows := synth(10, 7)
	for i := range rows.captures {
		must(t, w.Add(&rows.captures[i])) // some row groups are on disk
	}
	must(t, w.Abort())
	must(t, w.Abort())
	if err := w.Close(); err == nil {
		t.Error("Close after Abort succeeded")
	}
	if !reflect.DeepEqual(readTree(t, dir), old) {
		t.Error("aborted write changed the tables")
	}
	assertNoSiblings(t, dir)
}

// TestRefuseForeignDir: a target holding anything but table parts is
// never replaced.
func TestRefuseForeignDir(t *testing.T) {
	for _, layout := range []map[string]string{
		{"notes.txt": "mine"},
		{"captures/part-00000.parquet": "x", "captures/keep.csv": "mine"},
		{"photos/part-00000.parquet": "x"},
	} {
		dir := filepath.Join(t.TempDir(), "out")
		for p, c := range layout {
			must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644))
		}
		w, err := NewWriter(dir, WriterOptions{})
		if err == nil {
			w.Abort()
			t.Errorf("%v: NewWriter accepted a directory it would delete", layout)
			continue
		}
		if !strings.Contains(err.Error(), "refuse to replace") {
			t.Errorf("%v: error %v, want a refusal", layout, err)
		}
		for p, c := range layout {
			b, err := os.ReadFile(filepath.Join(dir, p))
			if err != nil || string(b) != c {
				t.Errorf("%s changed: %q, %v", p, b, err)
			}
		}
		assertNoSiblings(t, dir)
	}
}

// TestRecover: leftovers of a writer killed mid-publish are repaired: with
// the target missing, the old tables moved aside come back; unfinished
// temporary directories go.
func TestRecover(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "tables")
	w, err := NewWriter(dir, WriterOptions{})
	must(t, err)
	synth(5, 8).writeAll(t, w)
	old := readTree(t, dir)

	// Killed between "move old aside" and "move new in".
	must(t, os.Rename(dir, dir+oldInfix+"123"))
	must(t, os.MkdirAll(filepath.Join(dir+tmpInfix+"123", Captures), 0o755))
	must(t, os.WriteFile(filepath.Join(dir+tmpInfix+"123", Captures, "part-00000.parquet"), []byte("half"), 0o644))
	// An unrelated sibling is left alone.
	must(t, os.Mkdir(filepath.Join(root, "tablesX"), 0o755))

	w, err = NewWriter(dir, WriterOptions{})
	must(t, err)
	if !reflect.DeepEqual(readTree(t, dir), old) {
		t.Error("old tables not restored")
	}
	must(t, w.Abort())
	assertNoSiblings(t, dir)
	if _, err := os.Stat(filepath.Join(root, "tablesX")); err != nil {
		t.Error("unrelated sibling removed")
	}

	// Killed after "move new in": the old copy aside is removed.
	must(t, os.Mkdir(dir+oldInfix+"456", 0o755))
	w, err = NewWriter(dir, WriterOptions{})
	must(t, err)
	must(t, w.Abort())
	assertNoSiblings(t, dir)
	if !reflect.DeepEqual(readTree(t, dir), old) {
		t.Error("tables changed")
	}
}

// TestLocked: a second writer of the same target is refused while the
// first is open, and accepted after.
func TestLocked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tables")
	w, err := NewWriter(dir, WriterOptions{})
	must(t, err)
	if w2, err := NewWriter(dir, WriterOptions{}); !errors.Is(err, ErrLocked) {
		if w2 != nil {
			w2.Abort()
		}
		t.Fatalf("second writer: %v, want ErrLocked", err)
	}
	must(t, w.Close())
	w, err = NewWriter(dir, WriterOptions{})
	must(t, err)
	must(t, w.Abort())
}

// TestBadFormat: an unknown format is an error, not a default.
func TestBadFormat(t *testing.T) {
	if _, err := ParseFormat("csv"); err == nil {
		t.Error("ParseFormat(csv) succeeded")
	}
	if w, err := NewWriter(filepath.Join(t.TempDir(), "t"), WriterOptions{Format: "csv"}); err == nil {
		w.Abort()
		t.Error("NewWriter with format csv succeeded")
	}
}

// TestListNotNull: an empty topic is an empty list, never a null.
func TestListNotNull(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := filepath.Join(t.TempDir(), "tables")
	w, err := NewWriter(dir, WriterOptions{Allocator: mem})
	must(t, err)
	must(t, w.Add(&tables.Block{Topic: nil}))
	must(t, w.Add(&tables.Block{Topic: []string{}}))
	must(t, w.Close())
	recs, _ := readParquet(t, partFiles(t, dir, Blocks, Parquet)[0], memory.NewGoAllocator())
	defer release(recs)
	col := recs[0].Column(slices.IndexFunc(Schema(Blocks).Fields(), func(f arrow.Field) bool { return f.Name == "topic" }))
	if col.NullN() != 0 || col.Len() != 2 {
		t.Errorf("topic: %d nulls in %d rows, want 0 in 2", col.NullN(), col.Len())
	}
}

// TestCrash kills a writer process (SIGKILL) while it writes: the old
// tables are untouched, and the next writer removes what it left.
func TestCrash(t *testing.T) {
	if dir := os.Getenv("COLUMNAR_CRASH_DIR"); dir != "" {
		// The child: write rows until killed, never closing.
		w, err := NewWriter(dir, WriterOptions{RowGroupRows: 16})
		must(t, err)
		rows := synth(64, 9)
		for {
			for i := range rows.captures {
				must(t, w.Add(&rows.captures[i]))
				must(t, w.Add(&rows.blocks[i]))
			}
		}
	}
	dir := filepath.Join(t.TempDir(), "tables")
	w, err := NewWriter(dir, WriterOptions{})
	must(t, err)
	synth(20, 10).writeAll(t, w)
	old := readTree(t, dir)

	cmd := exec.Command(os.Args[0], "-test.run=^TestCrash$")
	cmd.Env = append(os.Environ(), "COLUMNAR_CRASH_DIR="+dir)
	must(t, cmd.Start())
	// Wait for part files in the child's temporary directory.
	deadline := time.Now().Add(30 * time.Second)
	for {
		m, _ := filepath.Glob(dir + tmpInfix + "*/" + Blocks + "/part-*.parquet")
		if len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("the child wrote no part file in 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	must(t, cmd.Process.Kill())
	cmd.Wait()

	if !reflect.DeepEqual(readTree(t, dir), old) {
		t.Error("a killed writer changed the tables")
	}
	w, err = NewWriter(dir, WriterOptions{})
	must(t, err) // the child's lock died with it
	must(t, w.Abort())
	assertNoSiblings(t, dir)
}

// TestWriteError: a failed write stops the writer (the first error comes
// back from every later call and from Close) and leaves the old tables.
func TestWriteError(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := filepath.Join(t.TempDir(), "tables")
	w, err := NewWriter(dir, WriterOptions{Allocator: mem})
	must(t, err)
	synth(3, 11).writeAll(t, w)
	old := readTree(t, dir)

	w, err = NewWriter(dir, WriterOptions{Allocator: mem, RowGroupRows: 2})
	must(t, err)
	// The captures directory vanishes: its first part cannot be created.
	must(t, os.RemoveAll(filepath.Join(w.tmp, Captures)))
	rows := synth(5, 12)
	var first error
	for i := range rows.captures {
		if err := w.Add(&rows.captures[i]); err != nil && first == nil {
			first = err
		}
	}
	if first == nil || !strings.Contains(first.Error(), "create captures/part-00000.parquet") {
		t.Fatalf("first error %v, want one naming the part file", first)
	}
	if err := w.Add(&rows.urls[0]); err != first {
		t.Errorf("a later call returned %v, want the first error", err)
	}
	if err := w.Close(); err != first {
		t.Errorf("Close returned %v, want the first error", err)
	}
	if !reflect.DeepEqual(readTree(t, dir), old) {
		t.Error("a failed write changed the tables")
	}
	assertNoSiblings(t, dir)
}

// TestBoundedMemory: the Arrow memory of a writer stays near one row
// group per table, however many rows pass through it.
func TestBoundedMemory(t *testing.T) {
	mem := &peakAllocator{CheckedAllocator: memory.NewCheckedAllocator(memory.NewGoAllocator())}
	defer mem.AssertSize(t, 0)
	dir := filepath.Join(t.TempDir(), "tables")
	const groupBytes = 1 << 20
	w, err := NewWriter(dir, WriterOptions{Allocator: mem, RowGroupBytes: groupBytes})
	must(t, err)
	rng := rand.New(rand.NewPCG(13, 7))
	text := make([]byte, 16<<10)
	for i := range text {
		text[i] = byte('a' + rng.IntN(26)) // incompressible enough to keep pages large
	}
	rows := synth(1, 14)
	c := rows.captures[0]
	const n = 4000 // 64 MiB of main_text
	for i := range n {
		s := string(text[i%1024:]) + fmt.Sprint(i)
		c.MainText = &s
		must(t, w.Add(&c))
	}
	peak := mem.peak
	must(t, w.Close())
	if st := w.Stats()[0]; st.Rows != n {
		t.Fatalf("%d rows written, want %d", st.Rows, n)
	}
	// Builders of one row group (buffers grow by doubling) plus its encoding.
	if limit := 8 * groupBytes; peak > limit {
		t.Errorf("peak Arrow memory %d bytes for row groups of %d bytes, want ≤ %d", peak, groupBytes, limit)
	}
	t.Logf("peak Arrow memory %d bytes writing %d MiB of text", peak, n*len(text)>>20)
}

// peakAllocator records the most Arrow memory held at any moment,
// encoding buffers included.
type peakAllocator struct {
	*memory.CheckedAllocator
	peak int
}

func (a *peakAllocator) Allocate(n int) []byte {
	b := a.CheckedAllocator.Allocate(n)
	a.peak = max(a.peak, a.CurrentAlloc())
	return b
}

func (a *peakAllocator) Reallocate(n int, b []byte) []byte {
	b = a.CheckedAllocator.Reallocate(n, b)
	a.peak = max(a.peak, a.CurrentAlloc())
	return b
}

// asF32 is v as a float32 column holds it (link_text_ratio, position,
// similarity): the rows of package tables are float64, the column narrows.
func asF32(v float64) float64 { return float64(float32(v)) }

// TestRecoverGenerationTemp: AdvanceGeneration killed between writing
// GENERATION.tmp and renaming it (whole, empty or half written) leaves
// tables the next writer still replaces: it wrote them.
func TestRecoverGenerationTemp(t *testing.T) {
	for _, left := range []string{"4\n", "", "4"} {
		dir := filepath.Join(t.TempDir(), "tables")
		w, err := NewWriter(dir, WriterOptions{Generation: "3"})
		must(t, err)
		synth(5, 8).writeAll(t, w)
		must(t, os.WriteFile(filepath.Join(dir, GenerationFile+".tmp"), []byte(left), 0o644))
		w, err = NewWriter(dir, WriterOptions{Generation: "4"})
		if err != nil {
			t.Fatalf("GENERATION.tmp %q left by a killed AdvanceGeneration: %v", left, err)
		}
		must(t, w.Close())
		if g, ok, err := ReadGeneration(dir); err != nil || !ok || g != "4" {
			t.Errorf("generation %q, %v, %v; want 4", g, ok, err)
		}
		assertNoSiblings(t, dir)
	}
}

// TestRecoverLeavesForeignSiblings: a directory beside the target whose
// name has the writer's infixes but that holds what no writer writes is
// the user's: neither removed nor renamed into the target's place.
func TestRecoverLeavesForeignSiblings(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "out")
	for _, d := range []string{dir + oldInfix + "2023", dir + tmpInfix + "notes"} {
		must(t, os.Mkdir(d, 0o755))
		must(t, os.WriteFile(filepath.Join(d, "notes.txt"), []byte("mine"), 0o644))
	}
	w, err := NewWriter(dir, WriterOptions{})
	must(t, err)
	synth(5, 8).writeAll(t, w)
	for _, d := range []string{dir + oldInfix + "2023", dir + tmpInfix + "notes"} {
		if b, err := os.ReadFile(filepath.Join(d, "notes.txt")); err != nil || string(b) != "mine" {
			t.Errorf("%s: %q, %v: a user's directory was taken as a writer's leftover", d, b, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err == nil {
		t.Error("a user's directory was put in place of the tables")
	}
}

// TestGenerationFields: the records count written with the tables and
// the mark of tables left behind read back; AdvanceGeneration moves
// whichever of the two names the commit it advances from; MarkBehind
// leaves tables of another generation alone; a one-line file (tables
// written before the fields) reads as a generation alone, and a bad
// count is an error.
func TestGenerationFields(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tables")
	w, err := NewWriter(dir, WriterOptions{Generation: "3", Records: 1234})
	must(t, err)
	synth(5, 8).writeAll(t, w)
	read := func() Generation {
		t.Helper()
		g, ok, err := ReadGenerationInfo(dir)
		if err != nil || !ok {
			t.Fatalf("generation: %v %v", ok, err)
		}
		return g
	}
	if g := read(); g != (Generation{Gen: "3", Records: 1234}) {
		t.Fatalf("written %+v", g)
	}
	if ok, err := MarkBehind(dir, "2", "5"); ok || err != nil {
		t.Fatalf("MarkBehind of another generation: %v %v", ok, err)
	}
	if ok, err := MarkBehind(dir, "3", "5"); !ok || err != nil {
		t.Fatalf("MarkBehind: %v %v", ok, err)
	}
	if g := read(); g != (Generation{Gen: "3", Records: 1234, Behind: "5"}) {
		t.Fatalf("behind: %+v", g)
	}
	if gen, _, _ := ReadGeneration(dir); gen != "3" {
		t.Fatalf("ReadGeneration %q, want the first line", gen)
	}
	if ok, err := AdvanceGeneration(dir, "5", "6"); !ok || err != nil {
		t.Fatalf("AdvanceGeneration of the mark: %v %v", ok, err)
	}
	if ok, err := AdvanceGeneration(dir, "3", "4"); !ok || err != nil {
		t.Fatalf("AdvanceGeneration: %v %v", ok, err)
	}
	if ok, err := AdvanceGeneration(dir, "9", "10"); ok || err != nil {
		t.Fatalf("AdvanceGeneration from another commit: %v %v", ok, err)
	}
	if g := read(); g != (Generation{Gen: "4", Records: 1234, Behind: "6"}) {
		t.Fatalf("advanced: %+v", g)
	}
	must(t, os.WriteFile(filepath.Join(dir, GenerationFile), []byte("7\n"), 0o644))
	if g := read(); g != (Generation{Gen: "7"}) {
		t.Fatalf("one line: %+v", g)
	}
	must(t, os.WriteFile(filepath.Join(dir, GenerationFile), []byte("7\nrecords x\n"), 0o644))
	if _, _, err := ReadGenerationInfo(dir); err == nil {
		t.Fatal("a bad records line read")
	}
	assertNoSiblings(t, dir)
}
