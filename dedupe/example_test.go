package dedupe_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
)

// An archive round trip: ingest three crawls of a site, find the capture
// of a page current at a date, and restore its record, byte for byte the
// record of the input file (the payload digests are those of
// testdata/samples/manifest.tsv).
func Example() {
	samples := filepath.Join("..", "testdata", "samples")
	var inputs []string
	for _, d := range []string{"20220120143355", "20220325123217", "20220425123217"} {
		inputs = append(inputs, filepath.Join(samples, "ota-lovescout24-"+d+".warc.gz"))
	}
	tmp, err := os.MkdirTemp("", "example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "site.bwa")

	st, err := dedupe.Ingest(context.Background(), dir, inputs, dedupe.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("ingested %d files, %d records, %d pages as layout + blocks\n", st.Files, st.Records, st.Partitioned)

	a, err := dedupe.Open(dir, pack.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()

	const page = "http://127.0.0.1:8103/LoveScout24/Privacy%20Policy.html"
	for _, at := range []time.Time{time.Date(2022, 3, 31, 0, 0, 0, 0, time.UTC), {}} {
		v, err := a.Find(page, at) // zero time: the latest capture
		if err != nil {
			log.Fatal(err)
		}
		p, err := a.Restore(&v)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s %s in %s: payload SHA-1 %x\n", v.Date.Format("2006-01-02"), v.Type, filepath.Base(v.File), sha1.Sum(p.Payload))

		orig, err := storedRecord(v.File, v.Offset, v.Length)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("  restored record == input record:", bytes.Equal(p.Record(), orig))
	}
	// Output:
	// ingested 3 files, 24 records, 6 pages as layout + blocks
	// 2022-03-25 response in ota-lovescout24-20220325123217.warc.gz: payload SHA-1 ffd216a10377db4a6e61001486df1298fa87d9e7
	//   restored record == input record: true
	// 2022-04-25 response in ota-lovescout24-20220425123217.warc.gz: payload SHA-1 474b91286cb5e55ef462282ff8f19e94f56b8bfa
	//   restored record == input record: true
}

// storedRecord decompresses the gzip member at [off, off+n) of a file.
func storedRecord(name string, off, n int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(io.NewSectionReader(f, off, n))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}
