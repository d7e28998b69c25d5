package partition

import (
	"math/rand"
	"testing"
)

// TestConsentWord: consentWord is membership of consentWords.
func TestConsentWord(t *testing.T) {
	for w := range consentWords {
		if !consentWord([]byte(w)) {
			t.Errorf("consentWord(%q) = false", w)
		}
	}
	r := rand.New(rand.NewSource(6))
	letters := "abcdefghijklmnopqrstuvwxyz0_\xc3\xa9"
	for range 200000 {
		b := make([]byte, 1+r.Intn(32))
		for i := range b {
			b[i] = letters[r.Intn(len(letters))]
		}
		if r.Intn(4) == 0 {
			for w := range consentWords {
				b = append(b[:0], w...)
				b[r.Intn(len(b))] = letters[r.Intn(len(letters))]
				break
			}
		}
		if got, want := consentWord(b), consentWords[string(b)]; got != want {
			t.Fatalf("consentWord(%q) = %v, want %v", b, got, want)
		}
	}
}
