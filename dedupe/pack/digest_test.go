package pack

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/internal/testhooks"
)

// TestDigestFinds stores objects named by place, commits many times with
// writers whose tables forget everything (no seed, a small chunk
// table), and adds the same bytes again: an object of at least DigestMin
// bytes takes its old place through the digest tables, across commits,
// merges of indexes and a reopen; a smaller one stored next to it is
// found through its frame; one smaller than DigestMin and far from any
// hit is stored again. Without digests (DigestMin -1) every one is
// stored again.
func TestDigestFinds(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprint("digests=", on), func(t *testing.T) {
			min := 2048
			if !on {
				min = -1
			}
			s, dir := mustCreate(t, Options{noSync: true, hooks: testhooks.Pack{SeedBytes: -1}, ChunkTable: 4096, DigestMin: min, Level: 1})
			r := rand.New(rand.NewPCG(7, 7))
			big := genObject(r, 64<<10)
			small := genObject(r, 900) // stored right after big: same frame
			lone := genObject(r, 1000) // stored in a commit of its own
			w, err := s.Begin()
			if err != nil {
				t.Fatal(err)
			}
			if err := w.NamePlaces(); err != nil {
				t.Fatal(err)
			}
			add := func(data []byte) (ID, bool) {
				t.Helper()
				id, isNew, err := w.Add(KindBlock, data)
				if err != nil {
					t.Fatal(err)
				}
				return id, isNew
			}
			bigID, _ := add(big)
			smallID, _ := add(small)
			if err := w.Commit(nil); err != nil {
				t.Fatal(err)
			}
			loneID, _ := add(lone)
			// Many commits of other objects: indexes merge, the table
			// forgets.
			for c := range 12 {
				for _, o := range randomObjects(uint64(100+c), 6, 20<<10) {
					add(o.data)
				}
				if err := w.Commit(nil); err != nil {
					t.Fatal(err)
				}
			}
			w.Close()
			s.Close()
			s2, err := Open(dir, Options{noSync: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s2.Close()
			if got := s2.Settings(); got.DigestMin != min || got.ChunkTable != 4096 || got.SeedBytes != -1 {
				t.Fatalf("recorded settings %+v", got)
			}
			if w, err = s2.Begin(); err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if err := w.NamePlaces(); err != nil {
				t.Fatal(err)
			}
			gotBig, bigNew := add(big)
			gotSmall, smallNew := add(small)
			gotLone, loneNew := add(lone)
			if on {
				if gotBig != bigID || bigNew || gotSmall != smallID || smallNew {
					t.Errorf("big %s (new %v, want %s), small %s (new %v, want %s)", gotBig, bigNew, bigID, gotSmall, smallNew, smallID)
				}
				if w.Stats().DigestHits != 1 {
					t.Errorf("%d digest hits, want 1", w.Stats().DigestHits)
				}
			} else if gotBig == bigID || gotSmall == smallID {
				t.Errorf("without digests the forgotten objects were found: %s %s", gotBig, gotSmall)
			}
			if gotLone == loneID || !loneNew {
				t.Errorf("an object below DigestMin, far from any hit: %s (new %v), want stored again", gotLone, loneNew)
			}
			if err := w.Commit(nil); err != nil {
				t.Fatal(err)
			}
			verifyClean(t, s2)
			for id, want := range map[ID][]byte{gotBig: big, gotSmall: small, gotLone: lone} {
				if b, _, err := s2.Get(id); err != nil || string(b) != string(want) {
					t.Errorf("get %s: %v", id, err)
				}
			}
		})
	}
}

// TestDigestRows checks the digest section's coding through a write,
// a lookup, a merge (a row in both inputs kept once) and a scan.
func TestDigestRows(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	mk := func(n int) []digestRow {
		rows := make([]digestRow, n)
		for i := range rows {
			for j := range rows[i].key {
				rows[i].key[j] = byte(r.Uint32())
			}
			rows[i].place = r.Uint64() & maxPlace
		}
		return sortDigests(rows)
	}
	a, b := mk(3000), mk(10)
	b = sortDigests(append(b, a[17], digestRow{key: a[5].key, place: a[5].place + 1}))
	o := &Options{noSync: true}
	var ixs []*indexFile
	for i, rows := range [][]digestRow{a, b, nil} {
		num := uint32(i + 1)
		path := dir + "/" + indexName(num)
		size, err := writeIndex(path, num, nil, nil, nil, rows, ShortID, o)
		if err != nil {
			t.Fatal(err)
		}
		ix, err := openIndex(path, num, size)
		if err != nil {
			t.Fatal(err)
		}
		defer ix.f.Close()
		if err := ix.scan(nil, nil); err != nil {
			t.Fatal(err)
		}
		ixs = append(ixs, ix)
	}
	find := func(ix *indexFile, k [8]byte) []uint64 {
		var got []uint64
		if err := ix.findDigest(k, func(p uint64) { got = append(got, p) }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	for _, row := range a {
		if got := find(ixs[0], row.key); len(got) == 0 || !containsPlace(got, row.place) {
			t.Fatalf("row %x: %v", row.key, got)
		}
	}
	if got := find(ixs[0], [8]byte{1, 2, 3}); len(got) != 0 {
		t.Errorf("absent key found: %v", got)
	}
	path := dir + "/" + indexName(9)
	size, err := mergeIndexes(path, 9, ixs, o)
	if err != nil {
		t.Fatal(err)
	}
	m, err := openIndex(path, 9, size)
	if err != nil {
		t.Fatal(err)
	}
	defer m.f.Close()
	if err := m.scan(nil, nil); err != nil {
		t.Fatal(err)
	}
	if m.nd != uint64(len(a)+len(b)-1) {
		t.Errorf("merged %d rows, want %d", m.nd, len(a)+len(b)-1)
	}
	if got := find(m, a[5].key); len(got) != 2 || got[0] != a[5].place || got[1] != a[5].place+1 {
		t.Errorf("two places of one key after a merge: %v", got)
	}
}

func containsPlace(ps []uint64, p uint64) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}
