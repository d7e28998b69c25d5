package tables

import (
	"bytes"
	"strings"

	"github.com/blockwarc/blockwarc/partition"

	"golang.org/x/net/html"
)

// maxTitleScan bounds how much of a page is tokenized looking for its
// <title>: it belongs in the head, and a page whose first MiB holds none
// has no title worth the cost.
const maxTitleScan = 1 << 20

// pageTitle returns the text of the document's first <title> element
// before <body> (an <svg> inside the body has titles of its own),
// decoded from charset cs to UTF-8, character references resolved and
// white space collapsed; nil when there is none.
func pageTitle(doc []byte, cs string) *string {
	z := html.NewTokenizer(bytes.NewReader(doc[:min(len(doc), maxTitleScan)]))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return nil
		case html.StartTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "body", "svg":
				return nil
			case "title":
				// The tokenizer reads <title> as RCDATA: the next token
				// is its whole text (or the end tag when empty).
				var raw []byte
				if z.Next() == html.TextToken {
					raw = z.Raw()
				}
				s := normSpace(html.UnescapeString(partition.DecodeText(raw, cs)))
				return &s
			}
		}
	}
}

func normSpace(s string) string { return strings.Join(strings.Fields(s), " ") }
