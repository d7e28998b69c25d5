package shard

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"blockwarc/dedupe"
	"blockwarc/dedupe/pack"
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
	// One flipped byte is caught by the CRC.
	p := filepath.Join(dir, ManifestName)
	b, _ := os.ReadFile(p)
	b[len("blockwarc-shards 1\ngeneration 1\nshard shard-0001 \"c")] ^= 1
	os.WriteFile(p, b, 0o644)
	if _, err := ReadManifest(dir); err == nil {
		t.Fatal("a damaged manifest was read")
	}
	if _, err := ReadManifest(t.TempDir()); !errors.Is(err, ErrNoManifest) {
		t.Fatalf("no manifest: %v, want ErrNoManifest", err)
	}
	if _, err := NewManifest([]string{"b", "a"}); err == nil {
		t.Fatal("descending boundaries accepted")
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
	big := map[string]int64{"com,a)/1": 1, "com,big)/1": 100, "com,big)/2": 100, "com,big)/3": 100, "com,z)/": 1}
	// The ideal cut (151) falls inside host big (300 ≥ half a shard): cut there.
	if got := cut(big, 2); !slices.Equal(got, []string{"com,big)/2"}) {
		t.Errorf("cut a large host: %q", got)
	}
	if got := cut(map[string]int64{"com,a)/": 5}, 4); len(got) != 0 {
		t.Errorf("one key cut into %q", got)
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
