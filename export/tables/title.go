package tables

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
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
				s := normSpace(html.UnescapeString(decodeText(raw, cs)))
				return &s
			}
		}
	}
}

// decodeText converts raw bytes of a page in charset cs to UTF-8 as
// package partition reads the page's text: with the named charset, or,
// when cs names none, as UTF-8 if valid, else windows-1252. Invalid UTF-8
// becomes U+FFFD.
func decodeText(raw []byte, cs string) string {
	enc, name := charset.Lookup(cs)
	if enc == nil {
		if utf8.Valid(raw) {
			return string(raw)
		}
		enc, name = charset.Lookup("windows-1252")
	}
	if name == "utf-8" {
		return strings.ToValidUTF8(string(raw), "\uFFFD")
	}
	b, err := enc.NewDecoder().Bytes(raw)
	if err != nil {
		return strings.ToValidUTF8(string(raw), "\uFFFD")
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func normSpace(s string) string { return strings.Join(strings.Fields(s), " ") }
