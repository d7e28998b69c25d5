package partition_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/blockwarc/blockwarc/partition"
)

// Partition splits a page into blocks, each a byte span of the page, and
// a layout: the page with every kept block replaced by a placeholder.
// Reassemble puts the blocks back, byte for byte.
func ExamplePartition() {
	page := []byte(`<!DOCTYPE html>
<html><head><title>Terms</title></head>
<body>
<nav><a href="/">Home</a> | <a href="/terms">Terms</a></nav>
<main>
<h1>Terms of use</h1>
<p>These terms apply to every visitor of the site.</p>
<p>We may change them; the date below says when they last did.</p>
</main>
<footer>Updated 2024-05-01</footer>
</body></html>
`)
	res, err := partition.Partition(page, partition.Options{ContentType: "text/html; charset=utf-8"})
	if err != nil {
		log.Fatal(err)
	}
	var blocks [][]byte
	for _, b := range res.Leaves {
		blocks = append(blocks, res.BlockBytes(b))
		fmt.Printf("%s <%s> %q\n", b.Path, b.Tag, b.Text)
	}
	back, err := partition.Reassemble(res.Layout, blocks)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("charset:", res.Charset)
	fmt.Println("reassembled == page:", bytes.Equal(back, page))
	// Output:
	// 1 <head> ""
	// 2 <nav> "Home | Terms"
	// 3.1 <h1> "Terms of use"
	// 3.2 <p> "These terms apply to every visitor of the site."
	// 3.3 <p> "We may change them; the date below says when they last did."
	// 4 <footer> "Updated 2024-05-01"
	// charset: utf-8
	// reassembled == page: true
}
