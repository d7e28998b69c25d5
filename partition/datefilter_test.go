package partition

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// The regexp threadMarks used before mayHoldDate: dateText must stay it.
const dateTextBefore = `\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b|` +
	`\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mär|mai|okt|dez|janv|févr|avr|juil|déc)[a-zéû]*\.?\s+\d{1,2}\b|` +
	`\b\d{1,2}\.?\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mär|mai|okt|dez|janv|févr|avr|juil|déc)|` +
	`\b\d+\s+(seconds?|minutes?|hours?|days?|weeks?|months?|years?)\s+ago\b`

func TestDateTextUnchanged(t *testing.T) {
	if dateText.String() != dateTextBefore {
		t.Fatalf("dateText changed:\n%s\nwant\n%s", dateText.String(), dateTextBefore)
	}
}

// checkMayHoldDate fails when mayHoldDate rules out a text dateText
// matches: the filter must be a necessary condition.
func checkMayHoldDate(t *testing.T, low string) bool {
	t.Helper()
	m := dateText.MatchString(low)
	if m && !mayHoldDate([]byte(low)) {
		t.Errorf("mayHoldDate(%q) = false, dateText matches", low)
	}
	return m
}

func TestMayHoldDate(t *testing.T) {
	for _, s := range []string{
		"may 3, 2026", "3. mai 2026", "2026-05-03", "03.05.2026", "3/5/26", "2 days ago",
		"posted 12\tmonths\nago", "déc. 4", "4 déc", "4.\fjanv", "févr\r12", "12 comments",
		"© 2024", "$19.99", "a1-2", "1 2", "x 1 year ago.", "1 juil", "okt 9", "9\u00a0may",
	} {
		checkMayHoldDate(t, s)
	}
	// Random texts over the characters the branches of dateText turn on.
	atoms := []string{"0", "1", "12", "05", "123", "2026", "20261", " ", "\t", "\n", "\f", "\r", "\v", "-", ".", "/", ",",
		"jan", "janv", "may", "mär", "déc", "févr", "juil", "ago", "days", "year", "a", "é", "û", "x", "_", "\u00a0"}
	r := rand.New(rand.NewSource(1))
	matched := 0
	for range 400000 {
		var b strings.Builder
		for range 1 + r.Intn(10) {
			b.WriteString(atoms[r.Intn(len(atoms))])
		}
		if checkMayHoldDate(t, b.String()) {
			matched++
		}
	}
	if matched < 1000 {
		t.Fatalf("%d random texts matched dateText, want more to test with", matched)
	}
}

// TestMayHoldDateCorpus checks the filter on the short texts of the
// corpus pages (skipped without ../shared).
func TestMayHoldDateCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus")
	}
	texts, matched := 0, 0
	for _, c := range readCorpus(t) {
		z := html.NewTokenizer(bytes.NewReader(c.Payload))
		for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
			if tt != html.TextToken {
				continue
			}
			for _, line := range bytes.Split(z.Text(), []byte("\n")) {
				line = bytes.TrimSpace(line)
				if len(line) == 0 || len(line) > 200 {
					continue
				}
				texts++
				if checkMayHoldDate(t, strings.ToLower(string(line))) {
					matched++
				}
			}
		}
	}
	t.Logf("%d texts, %d dates", texts, matched)
}

// TestAppendLower: appendLower is strings.ToLower, invalid UTF-8 and
// runes whose lower case has another length included.
func TestAppendLower(t *testing.T) {
	atoms := []string{"a", "Z", "Q", " ", "é", "É", "İ", "K", "Σ", "ẞ", "Ⅻ", "\xff", "\xc2", "\xa9", "\xe2\x82", "\xef\xbf\xbd", "Ǆ", "日本", "\x00"}
	r := rand.New(rand.NewSource(3))
	for range 100000 {
		var b strings.Builder
		for range r.Intn(12) {
			b.WriteString(atoms[r.Intn(len(atoms))])
		}
		s := b.String()
		want := strings.ToLower(s)
		if got := string(appendLower(nil, s)); got != want {
			t.Fatalf("appendLower(%q) = %q, want %q", s, got, want)
		}
		if got := string(appendLower([]byte("x"), []byte(s))); got != "x"+want {
			t.Fatalf("appendLower(x, []byte(%q)) = %q, want %q", s, got, "x"+want)
		}
	}
}
