package partition

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// lateMetaPage is a page whose <meta charset> comes after 1,024 bytes of
// ASCII (a long head of scripts and links, as many sites have), with
// UTF-8 text: the standard's prescan misses the declaration, the parser
// finds it and the browser re-decodes.
func lateMetaPage() []byte {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html><html lang=de><head>\n")
	for b.Len() < 1963 {
		b.WriteString(`<link rel="preload" href="/assets/app.js" as="script">` + "\n")
	}
	b.WriteString(`<meta charset="utf-8"><title>Impressum — Beispiel GmbH</title></head>`)
	b.WriteString("<body><main><h1>Datenschutzerklärung</h1><p>Wir verarbeiten Ihre Daten gemäß Art. 6 DSGVO.</p></main></body></html>")
	return []byte(b.String())
}

func TestDetectCharset(t *testing.T) {
	late := lateMetaPage()
	if i := strings.Index(string(late), "<meta charset"); i < 1024 {
		t.Fatalf("test page: meta at %d, want past the prescan window", i)
	}
	pad := strings.Repeat("<!-- padding -->", 80) // 1,280 bytes of ASCII
	for _, tc := range []struct {
		name, ct, doc, want string
		certain             bool
	}{
		{"header", "text/html; charset=Shift_JIS", "<html>", "shift_jis", true},
		{"bom", "text/html", "\xef\xbb\xbf<html>", "utf-8", true},
		{"bom wins over header", "text/html; charset=utf-8", "\xff\xfe<\x00h\x00", "utf-16le", true},
		{"meta", "text/html", `<meta charset="koi8-r">`, "koi8-r", false},
		{"unknown header label falls to meta", "text/html; charset=bogus", `<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-2">`, "iso-8859-2", false},
		{"plain ascii", "", "plain ascii", "windows-1252", false},
		{"late meta utf-8", "text/html", string(late), "utf-8", false},
		{"late meta legacy", "", pad + "<meta charset=iso-8859-2><p>\xb1\xe6</p>", "iso-8859-2", false},
		{"late http-equiv", "", pad + `<meta http-equiv=content-type content="text/html;charset=windows-1251;"><p>` + "\xcf\xf0\xe8" + "</p>", "windows-1251", false},
		{"meta in a comment does not count", "", `<!-- <meta charset="koi8-r"> -->` + pad + "<p>caf\xe9</p>", "windows-1252", false},
		{"meta in a script does not count", "", `<script>document.write('<meta charset="koi8-r">')</script><meta charset=gbk>`, "gbk", false},
		{"first declaration wins", "", `<meta charset=windows-1251><meta charset=koi8-r>`, "windows-1251", false},
		{"utf-16 declared means utf-8", "", `<meta charset=utf-16>`, "utf-8", false},
		{"x-user-defined means windows-1252", "", `<meta charset=x-user-defined>`, "windows-1252", false},
		{"re-saved as utf-8 keeps old meta", "", `<meta charset=iso-8859-1><p>café</p>`, "utf-8", false},
		{"undeclared utf-8 past the window", "", pad + "<p>café</p>", "utf-8", false},
		{"undeclared utf-8 cut mid-rune", "", "<p>café " + string([]byte("€")[:2]), "utf-8", false},
		{"undeclared legacy", "", "<p>caf\xe9</p>", "windows-1252", false},
		{"unknown meta label ignored", "", "<meta charset=nonsense><p>café</p>", "utf-8", false},
		{"mixed-case attribute", "", pad + `<META CharSet="ISO-8859-7"><p>` + "\xe1" + "</p>", "iso-8859-7", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name, certain := DetectCharset(tc.ct, []byte(tc.doc))
			if name != tc.want || certain != tc.certain {
				t.Errorf("DetectCharset(%q, ...) = %q %v, want %q %v", tc.ct, name, certain, tc.want, tc.certain)
			}
		})
	}
}

// TestPartitionLateMeta is the bug of issue 12: a page declaring UTF-8
// after its first 1,024 bytes must be read as UTF-8 by every caller,
// whether the caller passes its Content-Type or nothing.
func TestPartitionLateMeta(t *testing.T) {
	doc := lateMetaPage()
	for _, opts := range []Options{{}, {ContentType: "text/html"}, {ContentType: "text/html; charset=bogus"}} {
		res, err := Partition(doc, opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Charset != "utf-8" {
			t.Errorf("%+v: Charset = %q, want utf-8", opts, res.Charset)
		}
		text := MainText(res)
		if !strings.Contains(text, "Datenschutzerklärung") || strings.Contains(text, "Ã") {
			t.Errorf("%+v: main text %q, want the UTF-8 heading undamaged", opts, text)
		}
	}
	// A caller's explicit charset still overrides detection (and shows it
	// is used: the same bytes read as windows-1252 are mojibake).
	res, err := Partition(doc, Options{Charset: "iso-8859-1"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Charset != "windows-1252" || !strings.Contains(MainText(res), "Ã¤") {
		t.Errorf("Charset override: %q, %q", res.Charset, MainText(res))
	}
}

func FuzzDetectCharset(f *testing.F) {
	f.Add("text/html", lateMetaPage())
	f.Add("", []byte(`<meta http-equiv=content-type content="text/html;charset=windows-1251;">`))
	f.Add("text/html; charset=utf-8", []byte("\xff\xfe<\x00"))
	f.Add("", []byte("<!-- <meta charset=x> --><script><meta charset=y></script>"))
	f.Fuzz(func(t *testing.T, ct string, doc []byte) {
		name, certain := DetectCharset(ct, doc)
		if name == "" {
			t.Fatal("no charset named")
		}
		if again, c2 := DetectCharset(ct, doc); again != name || c2 != certain {
			t.Fatalf("not deterministic: %q %v then %q %v", name, certain, again, c2)
		}
		if NewDecoder(name).UTF8() && name != "utf-8" {
			t.Fatalf("named %q, which no decoder reads", name)
		}
		// Valid UTF-8 with non-ASCII bytes is read as UTF-8 unless a BOM or
		// the header says otherwise.
		if !certain && name != "utf-8" && validUTF8WithHighBit(doc) {
			t.Fatalf("valid UTF-8 read as %q", name)
		}
	})
}

// TestValidUTF8WithHighBit: the word-at-a-time search for the first
// non-ASCII byte answers as a byte-wise scan and a full utf8.Valid do,
// wherever the non-ASCII bytes (valid or not) and the cut rune fall.
func TestValidUTF8WithHighBit(t *testing.T) {
	naive := func(doc []byte) bool {
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
		high := false
		for _, c := range doc {
			if c >= utf8.RuneSelf {
				high = true
			}
		}
		return high && utf8.Valid(doc)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", "<p>", "é", "€", "😀", "\xff", "\xe2\x82", "\x80", "        "}
	for range 20000 {
		var b []byte
		for range rng.IntN(40) {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		if got, want := validUTF8WithHighBit(b), naive(b); got != want {
			t.Fatalf("%q: %t, byte-wise %t", b, got, want)
		}
	}
}
