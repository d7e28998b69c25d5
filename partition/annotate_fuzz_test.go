package partition

import (
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// FuzzAnnotate checks that annotation and MainText never panic and keep
// their promises on any input: block texts and the main text are valid
// UTF-8 without leading or trailing white space, features are consistent
// with the text, and the main text is drawn from the page's text.
func FuzzAnnotate(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "text", "*.html"))
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`<html lang=fr><body><nav><a href=/>Accueil</a></nav><article><h1>Titre</h1><p>Le texte, la suite.</p></article><footer>© 2020</footer>`))
	f.Add([]byte("<p>a&amp;b<b>c<i>d</b>e</i><table><td>x<tr><td>y</table><select><option>z"))
	f.Add([]byte("<meta charset=shift_jis><p>\x82\xa0\x82\xa2</p>"))
	f.Add([]byte("<title><b>one two three four five"))  // a title never closed
	f.Add([]byte("<p>don<b>'t stop</b> l'<i>'ami</i>")) // words across element boundaries
	f.Fuzz(func(t *testing.T, doc []byte) {
		res, err := Partition(doc, Options{})
		if err != nil {
			return
		}
		var visit func(b *Block)
		visit = func(b *Block) {
			if !utf8.ValidString(b.Text) {
				t.Fatalf("block %s text is not UTF-8: %q", b.Path, b.Text)
			}
			if b.Text != "" && (b.Text[0] == ' ' || b.Text[0] == '\n' || b.Text[len(b.Text)-1] == ' ' || b.Text[len(b.Text)-1] == '\n') {
				t.Fatalf("block %s text not trimmed: %q", b.Path, b.Text)
			}
			f := b.Features
			if f.TextLen != utf8.RuneCountInString(b.Text) || f.Words != countWords(b.Text) || f.LinkTextLen > f.TextLen || f.LinkTextRatio < 0 || f.LinkTextRatio > 1 || f.Position < 0 || f.Position > 1 {
				t.Fatalf("block %s: inconsistent features %+v for %q", b.Path, f, b.Text)
			}
			if b.Label == "" {
				t.Fatalf("block %s has no label", b.Path)
			}
			for _, c := range b.Children {
				visit(c)
			}
		}
		for _, b := range res.Blocks {
			visit(b)
		}
		m := MainText(res)
		if !utf8.ValidString(m) {
			t.Fatalf("main text is not UTF-8: %q", m)
		}
		whole := wholeTextOf(res)
		if d, ok := closeTitle(res); ok {
			// A <title> never closed holds the rest of the page as its
			// text; MainText reads the page with it closed (closeTitle).
			if r2, err := Partition(d, Options{}); err == nil {
				whole = wholeTextOf(r2)
			}
		}
		if countWords(m) > countWords(whole)+countWords(m)/2+1 {
			t.Fatalf("main text %q has more words than the page", m)
		}
	})
}

func wholeTextOf(res *Result) string {
	x := buildIndex(res, Options{})
	return x.spanText(span{0, int32(len(x.nodes))})
}
