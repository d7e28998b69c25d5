package tables

import (
	"slices"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/partition"
)

const (
	deText = "Wir verarbeiten deine personenbezogenen Daten nur, wenn du eingewilligt hast oder ein Gesetz es erlaubt. Du kannst deine Einwilligung jederzeit widerrufen."
	enText = "We process your personal data only when you have agreed to it or when the law allows it. You may withdraw your consent at any time by writing to us."
	frText = "Nous traitons vos données personnelles uniquement lorsque vous y avez consenti ou lorsque la loi le permet. Vous pouvez retirer votre consentement à tout moment."
)

func leaf(label partition.Label, text string) *partition.Block {
	return &partition.Block{Label: label, Text: text}
}

func TestPageLanguages(t *testing.T) {
	for _, tc := range []struct {
		name   string
		leaves []*partition.Block
		want   []string
	}{
		{"too short", []*partition.Block{leaf(partition.LabelContent, "Redirecting...")}, nil},
		{"no text", nil, nil},
		{"german", []*partition.Block{leaf(partition.LabelTitle, "Datenschutz"), leaf(partition.LabelContent, deText)}, []string{"de"}},
		// Most text first: three German paragraphs, two English ones.
		{"two languages", []*partition.Block{
			leaf(partition.LabelContent, deText), leaf(partition.LabelContent, enText), leaf(partition.LabelContent, deText),
			leaf(partition.LabelContent, enText), leaf(partition.LabelContent, deText),
		}, []string{"de", "en"}},
		// A quotation under a tenth of the text is not the page's language.
		{"small share", []*partition.Block{leaf(partition.LabelContent, strings.Repeat(enText+" ", 10)), leaf(partition.LabelContent, frText)}, []string{"en"}},
		// Navigation is left out while the content says enough.
		{"menu left out", []*partition.Block{leaf(partition.LabelNavigation, frText+" "+frText), leaf(partition.LabelContent, enText)}, []string{"en"}},
		// Without content text, the visible text is read.
		{"no content", []*partition.Block{leaf(partition.LabelNavigation, frText), leaf(partition.LabelFooter, "Copyright")}, []string{"fr"}},
		// Short blocks are read together.
		{"short blocks pooled", []*partition.Block{
			leaf(partition.LabelContent, "Wir verarbeiten deine Daten"), leaf(partition.LabelContent, "nur mit deiner Einwilligung"),
			leaf(partition.LabelContent, "oder wenn ein Gesetz es erlaubt."),
		}, []string{"de"}},
		{"scripts left out", []*partition.Block{leaf(partition.LabelScript, enText), leaf(partition.LabelContent, "ok")}, nil},
		// A long block opening on a list of versions is read by its prose.
		{"long block", []*partition.Block{leaf(partition.LabelContent,
			strings.Repeat("Version 1.2.3 (2020-01-02)\n", 60)+strings.Repeat(deText+" ", 20))}, []string{"de"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := newLangDetector().pageLanguages(tc.leaves); !slices.Equal(got, tc.want) {
				t.Errorf("pageLanguages = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRuneSlice(t *testing.T) {
	s := "aé€b"
	for _, tc := range []struct {
		from, to int
		want     string
	}{{0, 4, s}, {1, 3, "é€"}, {3, 4, "b"}, {0, 0, ""}, {2, 2, ""}} {
		if got := runeSlice(s, tc.from, tc.to); got != tc.want {
			t.Errorf("runeSlice(%q, %d, %d) = %q, want %q", s, tc.from, tc.to, got, tc.want)
		}
	}
}
