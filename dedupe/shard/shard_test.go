package shard

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/warcio"
)

func TestManifestRoundTrip(t *testing.T) {
	m, err := NewManifest([]string{"com,b)/", "org,a)/x"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	got, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Generation != 1 || !slices.Equal(got.Boundaries(), m.Boundaries()) || got.Shards[2].Name != "shard-0002" {
		t.Fatalf("read back %+v, wrote %+v", got, m)
	}
	for key, want := range map[string]int{"": 0, "com,a)/": 0, "com,b)/": 1, "net,x)/": 1, "org,a)/x": 2, "zz": 2} {
		if r := got.Route(key); r != want {
			t.Errorf("Route(%q) = %d, want %d", key, r, want)
		}
	}
	if got.Recovered != "" {
		t.Errorf("both copies whole: %q", got.Recovered)
	}
	// One flipped byte is caught by the CRC, and the copy read instead;
	// with the copy damaged too, nothing is read.
	flip := func(name string) {
		p := filepath.Join(dir, name)
		b, _ := os.ReadFile(p)
		b[len("blockwarc-shards 1\ngeneration 1\nshard shard-0001 \"c")] ^= 1
		os.WriteFile(p, b, 0o644)
	}
	flip(ManifestName)
	if got, err := ReadManifest(dir); err != nil || !slices.Equal(got.Boundaries(), m.Boundaries()) || !strings.Contains(got.Recovered, "CRC-32C") {
		t.Fatalf("damaged manifest: %+v, %v; want its copy, recovered", got, err)
	}
	flip(CopyName)
	if _, err := ReadManifest(dir); err == nil || errors.Is(err, ErrNoManifest) {
		t.Fatalf("both copies damaged: %v, want an error", err)
	}
	if _, err := ReadManifest(t.TempDir()); !errors.Is(err, ErrNoManifest) {
		t.Fatalf("no manifest: %v, want ErrNoManifest", err)
	}
	if _, err := NewManifest([]string{"b", "a"}); err == nil {
		t.Fatal("descending boundaries accepted")
	}
}

// TestManifestCopy: a sharded archive whose SHARDS is damaged or gone
// opens through SHARDS.copy, and the next ingest rewrites both; an
// archive written before the copy (SHARDS alone) opens as it did.
func TestManifestCopy(t *testing.T) {
	samples := filepath.Join("..", "..", "testdata", "samples")
	in, err := filepath.Glob(filepath.Join(samples, "*.warc.gz"))
	if err != nil || len(in) < 3 {
		t.Fatalf("samples: %v %v", in, err)
	}
	dir := filepath.Join(t.TempDir(), "a.bwa")
	if _, err := Ingest(context.Background(), dir, in[:2], 2, dedupe.Options{}); err != nil {
		t.Fatal(err)
	}
	whole, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	if c, err := os.ReadFile(filepath.Join(dir, CopyName)); err != nil || string(c) != string(whole) {
		t.Fatalf("the copy: %v, or not the manifest's bytes", err)
	}
	os.WriteFile(filepath.Join(dir, ManifestName), whole[:len(whole)/2], 0o644)
	a, m, err := Open(dir, pack.Options{})
	if err != nil || m == nil || m.Recovered == "" {
		t.Fatalf("open with a damaged manifest: %v, %+v", err, m)
	}
	a.Close()
	res, err := Ingest(context.Background(), dir, in[2:3], 0, dedupe.Options{})
	if err != nil || !strings.Contains(res.Note, "rewritten") {
		t.Fatalf("ingest: %v, note %q", err, res.Note)
	}
	for _, name := range []string{ManifestName, CopyName} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != string(whole) {
			t.Errorf("%s after the ingest: %v, or not the manifest's bytes", name, err)
		}
	}
	// An archive of an earlier release: no copy, nothing to say; its
	// next ingest writes the copy.
	os.Remove(filepath.Join(dir, CopyName))
	if m, err := ReadManifest(dir); err != nil || m.Recovered != "" {
		t.Errorf("no copy: %v, %q", err, m.Recovered)
	}
	if _, err := Ingest(context.Background(), dir, in[2:3], 0, dedupe.Options{}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, CopyName)); err != nil || string(b) != string(whole) {
		t.Errorf("the copy after an ingest of an archive without one: %v", err)
	}
	os.Remove(filepath.Join(dir, ManifestName))
	os.Remove(filepath.Join(dir, CopyName))
	if _, err := ReadManifest(dir); !errors.Is(err, ErrNoManifest) {
		t.Errorf("neither copy: %v, want ErrNoManifest", err)
	}
}

// TestCutHosts: small hosts stay whole, a large one is cut.
func TestCutHosts(t *testing.T) {
	w := map[string]int64{
		"com,a)/1": 15, "com,a)/2": 15, // host a: 30
		"com,b)/1": 7, "com,b)/2": 7, // host b: 14
		"com,c)/1": 12, "com,c)/2": 12, "com,c)/3": 12, // host c: 36
	}
	// Two shards of 40: the ideal cut (40) falls in b, small (< 20): cut
	// at b's start (30, 10 from 40) or c's (44, 4 from 40): c.
	if got := cut(w, 2); !slices.Equal(got, []string{"com,c)/1"}) {
		t.Errorf("cut small hosts: %q", got)
	}
	big := map[string]int64{"com,a)/1": 1, "com,big)/1": 100, "com,big)/2": 100, "com,big)/3": 100, "com,big)/4": 100, "com,z)/": 1}
	// Host big (400 ≥ half a shard) is cut between its keys: 201 | 201.
	if got := cut(big, 2); !slices.Equal(got, []string{"com,big)/3"}) {
		t.Errorf("cut a large host: %q", got)
	}
	if got := cut(map[string]int64{"com,a)/": 5}, 4); len(got) != 0 {
		t.Errorf("one key cut into %q", got)
	}
}

// TestCutMinMax: the heaviest range is as light as any split of the
// keys allows (brute force over every split of a few keys), and every
// shard gets a range while there are keys to give it. Cutting where an
// equal share falls fails this: weights 30, 30, 30, 10 in two give 30 |
// 70, where 60 | 40 is possible.
func TestCutMinMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		nk, n := 2+rng.IntN(7), 2+rng.IntN(3)
		w := map[string]int64{}
		ws := make([]int64, nk)
		for i := range ws {
			ws[i] = 1 + rng.Int64N(100)
			if rng.IntN(4) == 0 {
				ws[i] *= 20 // a few heavy URLs
			}
			w[fmt.Sprintf("com,h)/%02d", i)] = ws[i]
		}
		if trial == 0 {
			nk, n, ws = 4, 2, []int64{30, 30, 30, 10}
			w = map[string]int64{"com,h)/00": 30, "com,h)/01": 30, "com,h)/02": 30, "com,h)/03": 10}
		}
		got := cut(w, n)
		heaviest := func(bounds []int) int64 { // bounds: first key of ranges 1..
			var m, acc int64
			b := 0
			for i, x := range ws {
				if b < len(bounds) && i == bounds[b] {
					m, acc = max(m, acc), 0
					b++
				}
				acc += x
			}
			return max(m, acc)
		}
		var idx []int
		for _, k := range got {
			var i int
			fmt.Sscanf(k, "com,h)/%d", &i)
			idx = append(idx, i)
		}
		best := int64(math.MaxInt64)
		// Every split into at most n ranges: a bit per place between keys.
		for mask := 0; mask < 1<<(nk-1); mask++ {
			var bounds []int
			for i := 1; i < nk; i++ {
				if mask&(1<<(i-1)) != 0 {
					bounds = append(bounds, i)
				}
			}
			if len(bounds) < n {
				best = min(best, heaviest(bounds))
			}
		}
		if h := heaviest(idx); h != best || len(got) != min(n, nk)-1 {
			t.Fatalf("weights %v in %d: cut at %v, heaviest %d, %d ranges; best heaviest %d", ws, n, idx, h, len(got)+1, best)
		}
	}
}

// sampleOf is the sample of records read in order, as Boundaries holds
// it, with the keys' weights as cut sees them.
func sampleOf(recs []sampleRec, capKeys int) map[string]int64 {
	s := &sample{limit: ^uint64(0), cap: capKeys, bytes: map[string]int64{}}
	for _, r := range recs {
		s.add(r.key, work(&warcio.Record{Type: r.typ, ContentLen: r.len}, r.key))
	}
	return held(s.bytes, s.total)
}

type sampleRec struct {
	key, typ string
	len      int64
}

// TestCutWork: the cut balances a shard ingest's work, not block bytes.
// Records without a target URI (warcinfo, a crawler's logs) all go to
// shard 0 and cost an ingest as any record does: many of them move the
// first boundary left. A range of many small records costs more than
// their bytes: it is cut, rather than one of a few big responses.
func TestCutWork(t *testing.T) {
	var pages []sampleRec
	for i := range 8 {
		pages = append(pages, sampleRec{fmt.Sprintf("com,a)/%d", i), "response", 100_000})
	}
	without := cut(sampleOf(pages, maxSampleKeys), 2)
	if !slices.Equal(without, []string{"com,a)/4"}) {
		t.Fatalf("8 equal pages in 2: cut at %q", without)
	}
	// A crawl of 30 small files: 30 warcinfo records of 1 KB, in shard 0
	// (their key "" sorts first), which must take fewer pages.
	recs := slices.Clone(pages)
	for range 30 {
		recs = append(recs, sampleRec{"", "warcinfo", 1_000})
	}
	if got := cut(sampleOf(recs, maxSampleKeys), 2); len(got) != 1 || got[0] >= without[0] {
		t.Errorf("8 pages and 30 warcinfo records in 2: cut at %q, want before %q", got, without)
	}

	// Host big: 4 responses of 400 KB; host small: 100 URLs of 8 revisit
	// records of 300 bytes (a crawl that deduplicates): 1.6 MB of block
	// bytes against 0.24 MB, but 800 records against 4.
	var mixed []sampleRec
	for i := range 4 {
		mixed = append(mixed, sampleRec{fmt.Sprintf("com,big)/%d", i), "response", 400_000})
	}
	for i := range 100 {
		for range 8 {
			mixed = append(mixed, sampleRec{fmt.Sprintf("com,small)/%03d", i), "revisit", 300})
		}
	}
	got := cut(sampleOf(mixed, maxSampleKeys), 2)
	if len(got) != 1 || !strings.HasPrefix(got[0], "com,small)/") {
		t.Errorf("4 big responses and 800 small revisits in 2: cut at %q, want within host small", got)
	}
}

// TestSampleKeyless: the keyless records' work is held whole however
// much the sample thins its keys, and cut weighs it as the share of
// keys held: as much, against the other keys, as without thinning.
func TestSampleKeyless(t *testing.T) {
	var recs []sampleRec
	for i := range 3000 {
		recs = append(recs, sampleRec{"com,h" + string(rune('a'+i%26)) + ")/" + string(rune(0x100+i)), "request", 100})
		if i%3 == 0 {
			recs = append(recs, sampleRec{"", "warcinfo", 100})
		}
	}
	whole, thin := sampleOf(recs, maxSampleKeys), sampleOf(recs, 300)
	if len(thin) >= len(whole)/4 || len(thin) < 50 {
		t.Fatalf("sample of %d keys not thinned: %d held", len(whole), len(thin))
	}
	share := func(w map[string]int64) float64 {
		var t int64
		for _, x := range w {
			t += x
		}
		return float64(w[""]) / float64(t)
	}
	if a, b := share(whole), share(thin); a == 0 || math.Abs(b-a) > a/4 {
		t.Errorf("keyless share of the work: %.3f unthinned, %.3f thinned", a, b)
	}
}

// TestSampleOrderFree: the sample does not depend on the order keys come
// in, also when it has to thin itself.
func TestSampleOrderFree(t *testing.T) {
	keys := make([]string, 3000)
	for i := range keys {
		keys[i] = "com,h" + string(rune('a'+i%26)) + ")/" + string(rune(0x100+i))
	}
	run := func(ks []string) map[string]int64 {
		s := &sample{limit: ^uint64(0), cap: 1000, bytes: map[string]int64{}}
		for _, k := range ks {
			s.add(k, 7)
		}
		return s.bytes
	}
	a := run(keys)
	rev := slices.Clone(keys)
	slices.Reverse(rev)
	b := run(rev)
	if len(a) == 0 || len(a) >= len(keys) || len(a) != len(b) {
		t.Fatalf("samples of %d and %d keys (of %d)", len(a), len(b), len(keys))
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			t.Fatalf("key %q sampled in one order only", k)
		}
	}
}

// TestOpenOldArchives: every catalog version's test archive opens
// through Open as one unsharded archive.
func TestOpenOldArchives(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("..", "testdata", "v*.bwa"))
	if len(dirs) == 0 {
		t.Fatal("no dedupe/testdata/v*.bwa archives")
	}
	for _, d := range dirs {
		a, m, err := Open(d, pack.Options{})
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		if m != nil || a.Parts() != 1 {
			t.Errorf("%s: opened as sharded", d)
		}
		n := 0
		if err := a.WalkOrdered(func(dedupe.URLVersions) error { n++; return nil }); err != nil || n == 0 {
			t.Errorf("%s: walk %d URLs: %v", d, n, err)
		}
		a.Close()
	}
}

// TestSampleMerge: samples of parts of the keys, merged in any order,
// equal the sample of all of them, also when merging must thin them.
func TestSampleMerge(t *testing.T) {
	keys := make([]string, 3000)
	for i := range keys {
		keys[i] = "com,h" + string(rune('a'+i%26)) + ")/" + string(rune(0x100+i))
		if i%250 == 0 {
			keys[i] = "" // keyless: held whole in every part
		}
	}
	const capKeys = 1000
	of := func(ks []string) Sample {
		s := &sample{limit: ^uint64(0), cap: capKeys, bytes: map[string]int64{}}
		for _, k := range ks {
			s.add(k, 7)
		}
		return Sample{Thinned: s.thinned(), Keys: s.bytes, Total: s.total}
	}
	whole := of(keys)
	if whole.Thinned == 0 || whole.Keys[""] != 12*7 {
		t.Fatalf("the sample of every key: thinned %d times, keyless work %d: the test checks nothing", whole.Thinned, whole.Keys[""])
	}
	// Parts of 300 keys each are not thinned; their merge must be.
	var parts []Sample
	for i := 0; i < len(keys); i += 300 {
		parts = append(parts, of(keys[i:i+300]))
	}
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {9, 3, 0, 7, 1, 8, 2, 6, 4, 5}} {
		var m Sample
		for _, i := range order {
			m.merge(parts[i], capKeys)
		}
		if m.Thinned != whole.Thinned || m.Total != whole.Total || !maps.Equal(m.Keys, whole.Keys) {
			t.Fatalf("order %v: merged sample thinned %d, %d keys, total %d; the whole: %d, %d, %d",
				order, m.Thinned, len(m.Keys), m.Total, whole.Thinned, len(whole.Keys), whole.Total)
		}
		if !slices.Equal(m.Cut(3), whole.Cut(3)) {
			t.Fatalf("order %v: cut %q, the whole's %q", order, m.Cut(3), whole.Cut(3))
		}
	}
}

// TestSampleFilesBoundaries: the samples of each file, merged, cut where
// Boundaries cuts the same files.
func TestSampleFilesBoundaries(t *testing.T) {
	files, err := filepath.Glob("../../testdata/samples/*.warc.gz")
	if err != nil || len(files) < 2 {
		t.Fatalf("testdata/samples: %d files (%v)", len(files), err)
	}
	ctx := context.Background()
	for _, n := range []int{2, 3} {
		want, err := Boundaries(ctx, files, n, warcio.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 {
			t.Fatalf("%d shards: no boundaries", n)
		}
		var m Sample
		for _, f := range slices.Backward(files) {
			s, err := SampleFile(ctx, f, warcio.Options{})
			if err != nil {
				t.Fatal(err)
			}
			m.Merge(s)
		}
		if got := m.Cut(n); !slices.Equal(got, want) {
			t.Errorf("%d shards: merged samples cut at %q, Boundaries at %q", n, got, want)
		}
	}
}
