package partition

import "testing"

// TestSplitsWord: a span's words are countWords of its text; the prefix
// sums count a word where it began, so a span that starts inside one
// (after apostrophes too) adds it back, and one that starts a new word
// after an apostrophe that follows a space does not.
func TestSplitsWord(t *testing.T) {
	for _, c := range []struct {
		text  string
		at    int
		split bool
	}{
		{"don't stop", 3, true},  // "'t stop": inside "don't"
		{"don't stop", 4, true},  // "t stop"
		{"0'000 0", 1, true},     // the fuzz case
		{"x 'abc", 3, false},     // "abc": the apostrophe after a space starts nothing
		{"x 'abc", 2, false},     // "'abc"
		{"abc def", 4, false},    // at a word's start
		{"l''ami", 2, true},      // two apostrophes inside a word
		{"abc '", 4, false},      // nothing but an apostrophe after it
		{"日本語", len("日"), false}, // CJK: every rune a word
	} {
		x := &docIndex{text: []byte(c.text)}
		if got := x.splitsWord(c.at, len(c.text)); got != c.split {
			t.Errorf("%q at %d: splitsWord %v, want %v", c.text, c.at, got, c.split)
		}
		whole := countWords(c.text)
		before := countWords(c.text[:c.at])
		if c.split {
			before-- // the word split is counted in both halves
		}
		if after := countWords(c.text[c.at:]); before+after != whole {
			t.Errorf("%q at %d: the halves count %d + %d words, the whole %d: the case is wrong", c.text, c.at, before, after, whole)
		}
	}
}
