package partition

import (
	"bytes"
	"encoding/binary"
	"mime"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
)

// This file is the one place that decides how a document's bytes are read
// as text. Ingest, the tables and the blocks command all reach it through
// Options.ContentType (or Options.Charset), so they read a page alike.

// DetectCharset names the character encoding of an HTML document from its
// HTTP Content-Type value and its bytes, the way the HTML standard's
// encoding sniffing and browsers do:
//
//  1. a byte-order mark (certain);
//  2. the charset parameter of Content-Type, when it names a known
//     encoding (certain);
//  3. the first <meta charset> or <meta http-equiv=content-type> of the
//     document, wherever it is: a declaration past the first 1,024 bytes
//     that the standard's prescan misses is found while parsing, and
//     browsers then re-decode the page with it ("change the encoding");
//     a declared UTF-16 means UTF-8 and x-user-defined windows-1252, as
//     the standard says;
//  4. with no declaration, UTF-8 if the whole document is valid UTF-8 with
//     non-ASCII bytes, else windows-1252.
//
// One deviation, for archives: a declared single-byte or legacy encoding
// loses to UTF-8 when the document is valid UTF-8 with non-ASCII bytes.
// Pages re-saved as UTF-8 with their old <meta> left in place are common,
// while legacy text with non-ASCII characters is almost never valid UTF-8.
//
// certain is true only for a BOM or a charset the Content-Type names.
// Names are the WHATWG canonical ones ("iso-8859-1" gives
// "windows-1252"). The bytes are never rewritten: this only says how to
// read them. Time is linear in len(doc); memory is constant.
func DetectCharset(contentType string, doc []byte) (name string, certain bool) {
	if _, name, certain = charset.DetermineEncoding(doc, contentType); certain {
		return name, true
	}
	// Content-Type with a charset the BOM check above did not confirm and
	// Lookup did not know falls through, as browsers ignore unknown labels.
	utf8Text := validUTF8WithHighBit(doc)
	if label := metaCharset(doc); label != "" {
		if _, name := charset.Lookup(label); name != "" {
			switch name {
			case "utf-16le", "utf-16be":
				name = "utf-8"
			case "x-user-defined":
				name = "windows-1252"
			}
			if name != "utf-8" && utf8Text {
				name = "utf-8"
			}
			return name, false
		}
	}
	if utf8Text {
		return "utf-8", false
	}
	return "windows-1252", false
}

// validUTF8WithHighBit tells whether doc is valid UTF-8 (a rune cut at the
// end, as by a truncated capture, excepted) and has a non-ASCII byte.
func validUTF8WithHighBit(doc []byte) bool {
	for i := len(doc) - 1; i >= 0 && i > len(doc)-utf8.UTFMax; i-- {
		if doc[i] < utf8.RuneSelf {
			break
		}
		if utf8.RuneStart(doc[i]) {
			if !utf8.FullRune(doc[i:]) {
				doc = doc[:i]
			}
			break
		}
	}
	// The first non-ASCII byte, found eight bytes at a time: the ASCII
	// before it is valid and ends at a rune start, so only the rest
	// needs checking (scanning the whole page twice byte by byte was 2 %
	// of ingesting a site in one charset).
	i := 0
	for ; i+8 <= len(doc); i += 8 {
		if binary.LittleEndian.Uint64(doc[i:])&0x8080808080808080 != 0 {
			break
		}
	}
	for i < len(doc) && doc[i] < utf8.RuneSelf {
		i++
	}
	return i < len(doc) && utf8.Valid(doc[i:])
}

// metaCharset returns the charset label of the first <meta> that declares
// one, as the tree builder sees it: markup inside comments, scripts and
// other raw text does not count. "" when there is none.
func metaCharset(doc []byte) string {
	// Most documents that never say "charset" need no tokenizing at all.
	if !containsFold(doc, "charset") {
		return ""
	}
	z := html.NewTokenizer(bytes.NewReader(doc))
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
		default:
			continue
		}
		name, hasAttr := z.TagName()
		if string(name) != "meta" || !hasAttr {
			continue
		}
		var cs, httpEquiv, content string
		for more := true; more; {
			var k, v []byte
			k, v, more = z.TagAttr()
			switch string(k) {
			case "charset":
				if cs == "" {
					cs = strings.TrimSpace(string(v))
				}
			case "http-equiv":
				httpEquiv = string(v)
			case "content":
				content = string(v)
			}
		}
		if cs != "" {
			return cs
		}
		if strings.EqualFold(strings.TrimSpace(httpEquiv), "content-type") {
			if _, params, err := mime.ParseMediaType(content); err == nil && params["charset"] != "" {
				return params["charset"]
			}
			if l := contentCharset(content); l != "" {
				return l
			}
		}
	}
}

// contentCharset extracts a charset from a <meta content> value the way
// the standard's algorithm does, for values mime rejects
// ("text/html;charset=utf-8;" and the like).
func contentCharset(content string) string {
	i := indexFold(content, "charset")
	if i < 0 {
		return ""
	}
	s := strings.TrimLeft(content[i+len("charset"):], " \t\n\f\r")
	if !strings.HasPrefix(s, "=") {
		return ""
	}
	s = strings.TrimLeft(s[1:], " \t\n\f\r")
	if s == "" {
		return ""
	}
	if q := s[0]; q == '"' || q == '\'' {
		if j := strings.IndexByte(s[1:], q); j >= 0 {
			return s[1 : 1+j]
		}
		return ""
	}
	if j := strings.IndexAny(s, " \t\n\f\r;"); j >= 0 {
		s = s[:j]
	}
	return s
}

// containsFold reports whether s holds lower-case ASCII word w in any case.
func containsFold(s []byte, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		j := bytes.IndexAny(s[i:], w[:1]+strings.ToUpper(w[:1]))
		if j < 0 {
			return false
		}
		i += j
		if i+len(w) <= len(s) && bytes.EqualFold(s[i:i+len(w)], []byte(w)) {
			return true
		}
	}
	return false
}

// indexFold is strings.Index for lower-case ASCII word w, in any case.
func indexFold(s, w string) int {
	for i := 0; i+len(w) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(w)], w) {
			return i
		}
	}
	return -1
}

// resolveCharset is the name of the charset a document is read in: the
// caller's label when a browser knows it, else what DetectCharset finds.
func resolveCharset(doc []byte, label, contentType string) string {
	if label != "" {
		if _, name := charset.Lookup(label); name != "" {
			return name
		}
	}
	name, _ := DetectCharset(contentType, doc)
	return name
}

// A Decoder reads bytes of a document in one charset as UTF-8 text. It is
// the one place a charset name becomes a decoder: the partition's text,
// the tables' titles and links, and the diff page all read through it, so
// they read a page alike. The zero Decoder reads UTF-8. A Decoder is not
// safe for concurrent use.
type Decoder struct {
	dec *encoding.Decoder // nil for UTF-8 and for a name no browser knows
}

// NewDecoder returns the Decoder for a charset name (any label a browser
// knows, such as res.Charset). UTF-8, and a name no browser knows, read
// as UTF-8.
func NewDecoder(name string) Decoder {
	enc, canon := charset.Lookup(name)
	if enc == nil || canon == "utf-8" {
		return Decoder{}
	}
	return Decoder{dec: enc.NewDecoder()}
}

// UTF8 tells whether d reads UTF-8 (no conversion but the replacement of
// invalid sequences).
func (d Decoder) UTF8() bool { return d.dec == nil }

// String converts raw to valid UTF-8: through the charset, or as it stands
// when the charset's decoder refuses it; invalid sequences become U+FFFD.
// Character references are not resolved.
func (d Decoder) String(raw []byte) string {
	s := ""
	if d.dec != nil {
		b, err := d.dec.Bytes(raw)
		if err != nil {
			b = raw
		}
		s = string(b)
	} else {
		s = string(raw)
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s
}

// DecodeText is NewDecoder(name).String(raw), for a single conversion.
func DecodeText(raw []byte, name string) string { return NewDecoder(name).String(raw) }
