package dedupe

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/pack"
)

// TestHistoryReader: the versions the ingest's history reader returns
// are versionsOf's for every key of an archive of many runs (one per
// crawl, several segments each), asked in key order, out of order, and
// with a bound that keeps a single segment open.
func TestHistoryReader(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "samples", "*.warc.gz"))
	if len(files) < 6 {
		t.Fatalf("want the sample dumps, found %d", len(files))
	}
	arch := filepath.Join(t.TempDir(), "h.bwa")
	for _, f := range files[:6] {
		// Small commits: several segments per run.
		if _, err := Ingest(context.Background(), arch, []string{f}, Options{CommitBytes: 40 << 10}); err != nil {
			t.Fatal(err)
		}
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	r := a.root
	segs := 0
	for _, run := range r.Runs {
		segs += len(run)
	}
	if len(r.Runs) < 6 || segs <= len(r.Runs) {
		t.Fatalf("%d runs, %d segments: want several runs of several segments", len(r.Runs), segs)
	}
	var keys []string
	seen := map[string]bool{}
	for _, run := range r.Runs {
		for _, ref := range run {
			b, _, err := a.store.Get(ref.ID)
			if err != nil {
				t.Fatal(err)
			}
			us, err := decodeSegment(b, readResolver(a.store))
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range us {
				if !seen[u.Key] {
					seen[u.Key] = true
					keys = append(keys, u.Key)
				}
			}
		}
	}
	slices.Sort(keys)
	// Keys no run holds, between and around the stored ones.
	ask := []string{"", keys[0] + "\x00"}
	for i, k := range keys {
		ask = append(ask, k)
		if i%3 == 0 {
			ask = append(ask, k+"!")
		}
	}
	ask = append(ask, "~~~")
	// Out of order: a key after the next, then the next.
	mixed := slices.Clone(ask)
	for i := 0; i+1 < len(mixed); i += 5 {
		mixed[i], mixed[i+1] = mixed[i+1], mixed[i]
	}
	for _, tc := range []struct {
		name string
		keys []string
		max  int
	}{{"in order", ask, historyHeld}, {"out of order", mixed, historyHeld}, {"one segment held", ask, 1}} {
		h := newHistoryReader(a.store, r, 0)
		h.max = tc.max
		found := 0
		for _, k := range tc.keys {
			want, err := versionsOf(a.store, r, k)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := h.versions(k)
			if err != nil {
				t.Fatalf("%s: %q: %v", tc.name, k, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: %q: %d versions, versionsOf %d", tc.name, k, len(got), len(want))
			}
			found += len(got)
		}
		if found == 0 {
			t.Fatalf("%s: no versions found", tc.name)
		}
		if tc.max == 1 && h.held > 0 && countOpen(h) > 1 {
			t.Errorf("%s: %d cursors open over a bound of one segment", tc.name, countOpen(h))
		}
	}
}

func countOpen(h *historyReader) (n int) {
	for _, c := range h.cur {
		if c != nil {
			n++
		}
	}
	return n
}
