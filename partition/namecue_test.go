package partition

import (
	"math/rand"
	"strings"
	"testing"
)

// TestHasNameCue: hasNameCue answers as hasCue over nameTokens.
func TestHasNameCue(t *testing.T) {
	sets := []cueSet{pageFooterCues, entryCues, commentCues, footerCues, navCues, adCues}
	atoms := []string{"footer", "Footer", "FOOTER", "site", "Site", "comment", "Comments", "post", "entry", "nav", "Nav",
		"main", "mainNav", "-", "_", " ", "1", "2x", "é", "É", "Ünter", "İtem", "\xff", "ad", "Ad", "card", "disqus", "respond",
		strings.Repeat("x", 70), strings.Repeat("Footer", 12)}
	r := rand.New(rand.NewSource(4))
	hits := 0
	for range 100000 {
		var id, class strings.Builder
		for range r.Intn(5) {
			id.WriteString(atoms[r.Intn(len(atoms))])
		}
		for range r.Intn(6) {
			class.WriteString(atoms[r.Intn(len(atoms))])
		}
		for _, set := range sets {
			want := hasCue(nameTokens(id.String(), class.String()), set)
			if got := hasNameCue(set, id.String(), class.String()); got != want {
				t.Fatalf("hasNameCue(%q, %q) = %v, want %v", id.String(), class.String(), got, want)
			}
			if want {
				hits++
			}
		}
	}
	if hits < 1000 {
		t.Fatalf("%d hits, want more to test with", hits)
	}
}
