package partition

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// refWriteText is writeText rune by rune, without its fast paths: the
// reference FuzzWriteText holds them to. (Decoding every rune, invalid
// bytes included, as utf8.DecodeRune does.)
func refWriteText(w *textWriter, s []byte) int {
	runes := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRune(s[i:])
		i += size
		if unicode.IsSpace(r) {
			if w.pending == 0 {
				w.pending = ' '
			}
			w.inWord = false
			continue
		}
		w.flush()
		w.buf = append(w.buf, s[i-size:i]...)
		if r >= utf8.RuneSelf {
			w.cont += int32(size - 1)
		}
		runes++
		switch {
		case r == '\'':
		case r >= 0x1100 && isCJK(r):
			w.words++
			w.inWord = false
		case r < utf8.RuneSelf && asciiWord[r] || r >= utf8.RuneSelf && isWordRuneSlow(r):
			if !w.inWord {
				w.words++
				w.inWord = true
			}
		case r == '’' && w.inWord:
		default:
			w.inWord = false
		}
	}
	return runes
}

// checkWriteText writes the pieces of s (cut at cuts) with writeText and
// with the reference, with line breaks between pieces as the index walk
// puts them, and compares everything the writer keeps.
func checkWriteText(t *testing.T, s []byte, cut int) {
	t.Helper()
	pieces := [][]byte{s}
	if cut > 0 && cut < len(s) {
		pieces = [][]byte{s[:cut], s[cut:]}
	}
	got, want := &textWriter{}, &textWriter{}
	for k, p := range pieces {
		if k > 0 {
			got.lineBreak()
			want.lineBreak()
		}
		n := writeText(got, p)
		m := refWriteText(want, p)
		if n != m {
			t.Fatalf("%q: writeText counted %d runes, reference %d", p, n, m)
		}
	}
	if string(got.buf) != string(want.buf) || got.pending != want.pending || got.words != want.words || got.cont != want.cont || got.inWord != want.inWord {
		t.Fatalf("%q: writeText gives %q (pending %q, words %d, cont %d, inWord %v), reference %q (%q, %d, %d, %v)",
			s, got.buf, got.pending, got.words, got.cont, got.inWord, want.buf, want.pending, want.words, want.cont, want.inWord)
	}
	w := &textWriter{}
	n, ok := writeTextChecked(w, s, true)
	clean := utf8.Valid(s)
	for _, c := range s {
		if c == '&' {
			clean = false
		}
	}
	if ok != clean {
		t.Fatalf("%q: writeTextChecked ok = %v, want %v", s, ok, clean)
	}
	if ok {
		ref := &textWriter{}
		if m := refWriteText(ref, s); n != m || string(w.buf) != string(ref.buf) || w.words != ref.words {
			t.Fatalf("%q: writeTextChecked differs from the reference", s)
		}
	}
}

var writeTextSeeds = []string{
	"", " ", "a", "a b", "a  b", " a b ", "a b\nc", "a\tb", "a \nb", "don't stop", "a ' b", "x & y", "a&amp;b",
	"Grüße aus Köln", "日本語 のテキスト", "a 日本 b", "a\u00a0b", "a \u00a0 b", "a\x85b", "\xff\xfe a", "l'homme d’État",
	"end ", "a b ", "1 2 3 4", "a,b. c; d", "a'  'b", "x\vy\fz", "a &", "& a", "a\u2028b",
}

func TestWriteText(t *testing.T) {
	for _, s := range writeTextSeeds {
		for cut := 0; cut <= len(s); cut++ {
			checkWriteText(t, []byte(s), cut)
		}
	}
}

// FuzzWriteText holds writeText's fast paths (ASCII runs through single
// spaces, the checked form) to the rune-by-rune reference.
func FuzzWriteText(f *testing.F) {
	for _, s := range writeTextSeeds {
		f.Add([]byte(s), 1)
	}
	f.Fuzz(func(t *testing.T, s []byte, cut int) { checkWriteText(t, s, cut) })
}

// TestJoinFields checks joinFields' fast path against its definition.
func TestJoinFields(t *testing.T) {
	for _, v := range []string{"", " ", "a", "a b", " a", "a ", "a  b", "a\tb", "a\nb", "a\u00a0b", "Ä b", "a\x85b", "a b c", "\v", "ab\rc"} {
		if got, want := joinFields(v), strings.Join(strings.Fields(v), " "); got != want {
			t.Errorf("joinFields(%q) = %q, want %q", v, got, want)
		}
	}
}
