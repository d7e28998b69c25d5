package partition

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// hasNoticeBefore is hasNotice as it was written first, a search per
// cue: hasNotice must give its answers.
func hasNoticeBefore(text string) bool {
	low := strings.ToLower(text)
	for _, c := range noticeCues {
		if strings.Contains(low, c) {
			return true
		}
	}
	if strings.HasPrefix(low, "follow ") {
		networks := 0
		for _, n := range socialNetworks {
			if strings.Contains(low, n) {
				networks++
			}
		}
		return networks >= 2
	}
	return false
}

func checkNotice(t *testing.T, text string) bool {
	t.Helper()
	want := hasNoticeBefore(text)
	if got := hasNotice(text); got != want {
		t.Errorf("hasNotice(%q) = %v, want %v", text, got, want)
	}
	if low := appendLower(nil, text); noticeIn(low) != want {
		t.Errorf("noticeIn(%q) = %v, want %v", low, !want, want)
	}
	return want
}

func TestNoticeSameAnswers(t *testing.T) {
	for _, c := range append(append([]string{}, noticeCues...), socialNetworks...) {
		for _, s := range []string{c, strings.ToUpper(c), "x" + c + "y", c[:len(c)-1], "follow " + c + " and twitter"} {
			checkNotice(t, s)
		}
	}
	atoms := append([]string{" ", "a", "ALL", "Rights", "©", "\xc2", "\xa9", "İ", "follow ", "FOLLOW ", "on", "reserved", "x"},
		append(noticeCues, socialNetworks...)...)
	r := rand.New(rand.NewSource(2))
	found := 0
	for range 200000 {
		var b strings.Builder
		for range 1 + r.Intn(6) {
			a := atoms[r.Intn(len(atoms))]
			if len(a) > 2 && r.Intn(3) == 0 {
				a = a[r.Intn(len(a)/2):]
			}
			b.WriteString(a)
		}
		if checkNotice(t, b.String()) {
			found++
		}
	}
	if found < 1000 {
		t.Fatalf("%d random texts hold a notice, want more to test with", found)
	}
	if testing.Short() {
		return
	}
	found = 0
	for _, c := range readCorpus(t) {
		z := html.NewTokenizer(bytes.NewReader(c.Payload))
		for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
			if tt == html.TextToken {
				if checkNotice(t, string(z.Text())) {
					found++
				}
			}
		}
	}
	t.Logf("corpus: %d texts hold a notice", found)
}
