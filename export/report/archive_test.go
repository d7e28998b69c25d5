package report

import (
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/pack"
)

// TestCategories works one store account by hand.
func TestCategories(t *testing.T) {
	var st pack.Stats
	st.Kinds[pack.KindWARCHeader] = pack.KindStats{Objects: 2, Plain: 300, Stored: 50}
	st.Kinds[pack.KindHTTPHeader] = pack.KindStats{Objects: 1, Plain: 100, Stored: 20}
	st.Kinds[pack.KindLayout] = pack.KindStats{Objects: 3, Plain: 900, Stored: 90}
	st.Kinds[pack.KindBlock] = pack.KindStats{Objects: 10, Plain: 10_000, Stored: 2000, DeltaObjects: 4, DeltaPlain: 6000, DeltaStored: 500}
	st.Kinds[pack.KindPayload] = pack.KindStats{Objects: 5, Plain: 5000, Stored: 700}
	st.Kinds[pack.KindRecord] = pack.KindStats{Objects: 1, Plain: 200, Stored: 30}
	// The catalog: 4,000 plaintext bytes stored in 1,000, of which 1,000
	// are inline WARC header encodings, 400 HTTP ones, 1,600 inline blocks.
	st.Kinds[pack.KindVersionCatalog] = pack.KindStats{Objects: 1, Plain: 4000, Stored: 1000}
	st.PackBytes = 50 + 20 + 90 + 2000 + 700 + 30 + 1000 + 110 // 110 bytes of frame headers
	st.IndexBytes, st.CommitBytes = 400, 100
	archive := st.PackBytes + st.IndexBytes + st.CommitBytes + 7 // a 7-byte stray file

	cs := categories(st, inlineBytes{warc: 1000, http: 400, blocks: 1600}, archive)
	want := []Category{
		{Name: CatWARCHeaders, StoredBytes: 50 + 250, PlainBytes: 1300, Objects: 2},
		{Name: CatHTTPHeaders, StoredBytes: 20 + 100, PlainBytes: 500, Objects: 1},
		{Name: CatLayouts, StoredBytes: 90, PlainBytes: 900, Objects: 3},
		{Name: CatBlocks, StoredBytes: 1500, PlainBytes: 4000, Objects: 6},
		{Name: CatBlockDeltas, StoredBytes: 500, PlainBytes: 6000, Objects: 4},
		{Name: CatOtherPayloads, StoredBytes: 700 + 30 + 400, PlainBytes: 5000 + 200 + 1600, Objects: 6},
		{Name: CatIndexMetadata, StoredBytes: 250 + 110 + 400 + 100, PlainBytes: 1000, Objects: 1},
		{Name: CatOtherFiles, StoredBytes: 7},
	}
	if len(cs) != len(want) {
		t.Fatalf("%d categories, want %d", len(cs), len(want))
	}
	var sum int64
	for i, c := range cs {
		sum += c.StoredBytes
		w := want[i]
		w.Share = float64(w.StoredBytes) / float64(archive)
		if c != w {
			t.Errorf("category %d:\n got %+v\nwant %+v", i, c, w)
		}
	}
	if sum != archive {
		t.Errorf("categories sum to %d, archive %d", sum, archive)
	}

	// More inline bytes than the catalog's plaintext (inconsistent
	// input) never makes a category negative.
	for _, c := range categories(st, inlineBytes{warc: 3000, http: 3000, blocks: 3000}, archive) {
		if c.StoredBytes < 0 || c.PlainBytes < 0 {
			t.Errorf("negative category %+v", c)
		}
	}
}
