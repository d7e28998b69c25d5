package partition

import (
	"math/rand"
	"testing"
)

// countCommasBefore is the byte-by-byte count prefixes made first.
func countCommasBefore(text []byte, from, to int) int32 {
	var commas int32
	for pos := from; pos < to; pos++ {
		switch text[pos] {
		case ',':
			commas++
		case 0xEF:
			if pos+2 < len(text) && text[pos+1] == 0xBC && text[pos+2] == 0x8C {
				commas++
			}
		case 0xE3:
			if pos+2 < len(text) && text[pos+1] == 0x80 && text[pos+2] == 0x81 {
				commas++
			}
		}
	}
	return commas
}

// TestCountCommas: countCommas counts as the byte loop did, wide commas
// cut by the end of the range included.
func TestCountCommas(t *testing.T) {
	atoms := []string{",", "a", " ", "，", "、", "\xef", "\xe3", "\xbc", "\x8c", "\x80", "\x81", "日本", "\xef\xbc", "\xe3\x80"}
	r := rand.New(rand.NewSource(5))
	for range 100000 {
		var b []byte
		for range r.Intn(16) {
			b = append(b, atoms[r.Intn(len(atoms))]...)
		}
		from := r.Intn(len(b) + 1)
		to := from + r.Intn(len(b)-from+1)
		if got, want := countCommas(b, from, to), countCommasBefore(b, from, to); got != want {
			t.Fatalf("countCommas(%q, %d, %d) = %d, want %d", b, from, to, got, want)
		}
	}
}
