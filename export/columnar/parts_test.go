package columnar

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/blockwarc/blockwarc/export/tables"
)

// TestParts writes the tables of two shards, one by a Writer of the
// Parts and one adopted from a NewPartWriter, and checks that nothing is
// published before Close, that Close publishes both shards' parts
// together in place of the old tables, and that Abort leaves them.
func TestParts(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "tables")
	old, err := NewWriter(dir, WriterOptions{})
	must(t, err)
	must(t, old.Add(&tables.URL{URLSURTKey: "old"}))
	must(t, old.Close())

	write := func(w *Writer, key string) {
		t.Helper()
		must(t, w.Add(&tables.URL{URLSURTKey: key}))
		must(t, w.Close())
	}
	p, err := NewParts(dir, WriterOptions{})
	must(t, err)
	w0, err := p.Writer("0000")
	must(t, err)
	write(w0, "a")
	staged := filepath.Join(root, "shard-1")
	w1, err := NewPartWriter(staged, WriterOptions{Prefix: "0001"})
	must(t, err)
	write(w1, "b")
	must(t, p.Adopt(staged))
	if _, err := os.Stat(staged); !os.IsNotExist(err) {
		t.Errorf("adopted directory left: %v", err)
	}
	if got := slices.Sorted(maps.Keys(readTree(t, dir))); len(got) != len(Tables()) || got[0] != filepath.Join(tables.BlocksTable, "part-00000.parquet") {
		t.Fatalf("published before Close: %v", got)
	}
	must(t, p.Close())
	got := readTree(t, dir)
	for _, name := range Tables() {
		for _, part := range []string{"part-0000-00000.parquet", "part-0001-00000.parquet"} {
			if _, ok := got[filepath.Join(name, part)]; !ok {
				t.Errorf("%s/%s: missing after Close (have %v)", name, part, slices.Sorted(maps.Keys(got)))
			}
		}
	}
	if len(got) != 2*len(Tables()) {
		t.Errorf("%d files, want two parts per table", len(got))
	}
	for _, s := range SumStats(w0.Stats(), w1.Stats()) {
		if rows := map[bool]int64{true: 2}[s.Name == tables.URLsTable]; s.Rows != rows || s.Parts != 2 || s.Bytes == 0 {
			t.Errorf("summed stats of %s: %+v, want %d rows in 2 parts", s.Name, s, rows)
		}
	}

	// Abort: the published tables stay.
	p, err = NewParts(dir, WriterOptions{})
	must(t, err)
	w0, err = p.Writer("0000")
	must(t, err)
	write(w0, "c")
	must(t, p.Abort())
	if after := readTree(t, dir); len(after) != len(got) {
		t.Fatalf("Abort changed the tables: %d files, were %d", len(after), len(got))
	}
	if ents, _ := os.ReadDir(root); len(ents) != 1 {
		t.Errorf("left in %s: %v", root, ents)
	}
}
