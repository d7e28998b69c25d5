package warcio_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/blockwarc/blockwarc/warcio"
)

// Reading the records of one file in stored order. The format and the
// compression (here one gzip member per record) are detected from the
// bytes; a record's digests are known once its Body has been read.
func ExampleNewReader() {
	name := filepath.Join("..", "testdata", "samples", "ota-lovescout24-20220120143355.warc.gz")
	f, err := os.Open(name)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()

	r := warcio.NewReader(f, filepath.Base(name))
	types := map[string]int{}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		types[rec.Type]++
		if rec.Type != "response" || !strings.HasSuffix(rec.TargetURI, "/Privacy%20Policy.html") {
			continue
		}
		n, err := io.Copy(io.Discard, rec.Body)
		if err != nil {
			log.Fatal(err)
		}
		d := rec.Digests()
		fmt.Printf("%s %s at offset %d (%s)\n", rec.Type, rec.TargetURI, rec.Offset, rec.Compression)
		fmt.Printf("  %s, block of %d bytes (Content-Length %d)\n", rec.Date.Format("2006-01-02 15:04:05"), n, rec.ContentLen)
		fmt.Printf("  payload SHA-1 %x, declared digests match: %v %v\n",
			d.PayloadSHA1, d.BlockMatch == warcio.MatchOK, d.PayloadMatch == warcio.MatchOK)
	}
	fmt.Println("records by type:", types)
	// Output:
	// response http://127.0.0.1:8103/LoveScout24/Privacy%20Policy.html at offset 6493 (gzip)
	//   2022-01-20 14:33:55, block of 37592 bytes (Content-Length 37592)
	//   payload SHA-1 6e04be8fe333439a21e663d5997275bf254067ee, declared digests match: true true
	// records by type: map[metadata:1 request:2 resource:2 response:2 warcinfo:1]
}

// Walk reads every input once and yields the records grouped by URL (the
// SURT key) in capture-time order, whatever the order of the inputs: here
// the captures of one page across three crawls, given newest first.
func ExampleWalk() {
	var inputs []string
	for _, d := range []string{"20220425123217", "20220120143355", "20220325123217"} {
		inputs = append(inputs, filepath.Join("..", "testdata", "samples", "ota-lovescout24-"+d+".warc.gz"))
	}
	const page = "http://127.0.0.1:8103/LoveScout24/Privacy%20Policy.html"
	key := warcio.SURT(page)
	fmt.Println("key:", key)

	st, err := warcio.Walk(context.Background(), inputs, warcio.WalkOptions{}, func(c *warcio.Capture) error {
		if c.Key == key {
			fmt.Println(c.Date.Format("2006-01-02"), c.Type, filepath.Base(c.File))
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d files, %d records\n", st.Files, st.Records)
	// Output:
	// key: 1,0,0,127:8103)/lovescout24/privacy%20policy.html
	// 2022-01-20 request ota-lovescout24-20220120143355.warc.gz
	// 2022-01-20 response ota-lovescout24-20220120143355.warc.gz
	// 2022-03-25 request ota-lovescout24-20220325123217.warc.gz
	// 2022-03-25 response ota-lovescout24-20220325123217.warc.gz
	// 2022-04-25 request ota-lovescout24-20220425123217.warc.gz
	// 2022-04-25 response ota-lovescout24-20220425123217.warc.gz
	// 3 files, 24 records
}
