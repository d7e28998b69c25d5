package dedupe

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe/pack"
)

// TestIngestOverHealedIndex: bytes flipped in an index that its parity
// corrects do not stop the next ingest. Opening the archive reads the
// index through parity; the commit's index merge reads it again and
// used to find the file already scanned and so "not healed", and failed
// with the index's checksum error until a repair.
func TestIngestOverHealedIndex(t *testing.T) {
	samples := filepath.Join("..", "testdata", "samples")
	arch := filepath.Join(t.TempDir(), "a.bwa")
	opts := Options{}
	if _, err := Ingest(context.Background(), arch, []string{filepath.Join(samples, "ota-lovescout24-20220120143355.warc.gz")}, opts); err != nil {
		t.Fatal(err)
	}
	idx, _ := filepath.Glob(filepath.Join(arch, "*.idx"))
	if len(idx) != 1 {
		t.Fatalf("indexes: %v", idx)
	}
	b, err := os.ReadFile(idx[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := len(b) / 2; i < len(b)/2+3; i++ {
		b[i] ^= 0x5a
	}
	if err := os.WriteFile(idx[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Ingest(context.Background(), arch, []string{filepath.Join(samples, "ota-lovescout24-20220125183141.warc.gz")}, opts); err != nil {
		t.Fatalf("ingest over an index parity corrects: %v", err)
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if n := checkRoundTrip(t, a); n < 16 {
		t.Errorf("restored %d records, want those of both files", n)
	}
}
