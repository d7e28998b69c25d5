package partition

import (
	"bytes"
	"testing"

	"golang.org/x/net/html"
)

// tokenizerRawEnd returns where x/net/html's tokenizer ends the raw text
// after the first start tag of doc (the end of that tag is off).
func tokenizerRawEnd(doc []byte) (off, end int) {
	z := html.NewTokenizer(bytes.NewReader(doc))
	z.Next() // the start tag
	off = len(z.Raw())
	end = off
	if z.Next() == html.TextToken {
		end += len(z.Raw())
	}
	return off, end
}

// TestRawTextEnd checks rawTextEnd against the tokenizer on raw texts
// made to trip it: end tags in other cases, without a delimiter, cut by
// EOF, other tags' end tags, and script escapes (where rawTextEnd must
// decline).
func TestRawTextEnd(t *testing.T) {
	bodies := []string{
		"", "a", "a</style>", "a</STYLE >b", "a</StYlE/>", "a</style", "a</style\tx", "a</styles>b</style>",
		"a</", "a<", "<</style>", "a</stylex</style\n", "a</script>b</style>", "p{}</style\f",
		"x<!--y</style>", "if(a<b)</script>", "<!--</script>-->x</script>", "a<!-</script>",
		"<!</script>", "a</script", "a<script></script>", "<!-- <script>x</script> --></script>",
		"a</title>", "a</textarea>", "a</xmp>", "a</iframe >", "a</noscript>", "a</noembed>", "a</noframes>",
	}
	tags := []string{"style", "script", "title", "textarea", "xmp", "iframe", "noscript", "noembed", "noframes", "STYLE"}
	for _, tag := range tags {
		for _, body := range bodies {
			for _, open := range []string{"<" + tag + ">", "<" + tag + " media=x>", "<" + tag + "/>"} {
				doc := []byte(open + body)
				off, want := tokenizerRawEnd(doc)
				got, ok := rawTextEnd(doc, off, lowerASCII(tag))
				if !ok {
					if lowerASCII(tag) != "script" || !bytes.Contains(doc[off:], []byte("<!--")) {
						t.Errorf("%q: rawTextEnd declined", doc)
					}
					continue
				}
				if got != want {
					t.Errorf("%q: rawTextEnd = %d, tokenizer ends the text at %d", doc, got, want)
				}
			}
		}
	}
	if _, ok := rawTextEnd([]byte("<div>a</div>"), 5, "div"); ok {
		t.Error("rawTextEnd accepted a tag whose content is not raw text")
	}
	if _, ok := rawTextEnd([]byte("<plaintext>a"), 11, "plaintext"); ok {
		t.Error("rawTextEnd accepted <plaintext>")
	}
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// TestBuildTreeLongRawText checks the tree over raw texts long enough
// for buildTree to find their end itself: each text node is exactly the
// tokenizer's text token, and what follows is tokenized as before.
func TestBuildTreeLongRawText(t *testing.T) {
	long := bytes.Repeat([]byte("a{b:c}</stylex <p> </scrip "), 2*minRawSkip/27+1)
	for _, tc := range []struct{ tag, tail string }{
		{"style", "</STYLE ><p>x</p>"},
		{"script", "</script><p>x</p>"},
		{"script", "<!-- </script><p>x</p>"},
		{"textarea", "</textarea/><p>x</p>"},
		{"style", ""}, // no end tag: text to EOF
	} {
		doc := append([]byte("<body><"+tc.tag+">"), long...)
		doc = append(doc, tc.tail...)
		off, want := tokenizerRawEnd(doc[len("<body>"):])
		off += len("<body>")
		want += len("<body>")
		_, nodes := buildTree(doc)
		var text *Node
		for _, n := range nodes {
			if n.Kind == TextNode && n.Start == off {
				text = n
			}
		}
		if text == nil || text.End != want {
			t.Fatalf("<%s> + %q: no text node [%d,%d)", tc.tag, tc.tail, off, want)
		}
		if tc.tail != "" && tc.tail[0:2] == "</" {
			var p *Node
			for _, n := range nodes {
				if n.Kind == ElementNode && n.Tag == "p" {
					p = n
				}
			}
			if p == nil || string(doc[p.Start:p.End]) != "<p>x</p>" {
				t.Fatalf("<%s> + %q: <p> after the raw text not found", tc.tag, tc.tail)
			}
		}
	}
}

// FuzzRawTextEnd: wherever rawTextEnd answers, it ends the raw text
// where the tokenizer does.
func FuzzRawTextEnd(f *testing.F) {
	for _, s := range []string{"a</style>", "a</STYLE >b", "<!--</script>-->x</script>", "a</stylex</style\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, tag := range []string{"style", "script", "title", "textarea"} {
			doc := []byte("<" + tag + ">" + body)
			off, want := tokenizerRawEnd(doc)
			if got, ok := rawTextEnd(doc, off, tag); ok && got != want {
				t.Fatalf("%q: rawTextEnd = %d, tokenizer ends the text at %d", doc, got, want)
			}
		}
	})
}
