package main

import (
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestShingleBag(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       map[string]int
	}{
		{"empty", "", map[string]int{}},
		{"punctuation only", " —, ", map[string]int{}},
		{"short text is one shingle", "a, b", map[string]int{"a b": 1}},
		{"overlapping shingles", "a b c d e", map[string]int{"a b c d": 1, "b c d e": 1}},
		{"repeats counted", "a b c d a b c d", map[string]int{"a b c d": 2, "b c d a": 1, "c d a b": 1, "d a b c": 1}},
		{"underscore, digits and letters are word", "x_1 é2—y", map[string]int{"x_1 é2 y": 1}},
		// U+0301 is a combining mark (Mn): not \w in Python's re.
		{"combining mark splits", "e\u0301t", map[string]int{"e t": 1}},
		{"case kept", "A a", map[string]int{"A a": 1}},
	} {
		if got := shingleBag(tc.text); !maps.Equal(got, tc.want) {
			t.Errorf("%s: shingleBag(%q) = %v, want %v", tc.name, tc.text, got, tc.want)
		}
	}
}

func TestScore(t *testing.T) {
	for _, tc := range []struct {
		truth, extracted string
		want             counts
	}{
		{"a b c d e", "a b c d", counts{0.5, 0, 0.5}},
		{"a b c d", "a b c d e", counts{0.5, 0.5, 0}},
		{"a b c d a b c d", "a b c d", counts{0.2, 0, 0.8}},
		{"a b c d", "", counts{0, 0, 1}},
		{"", "", counts{}},
	} {
		if got := score(tc.truth, tc.extracted); !near(got.tp, tc.want.tp) || !near(got.fp, tc.want.fp) || !near(got.fn, tc.want.fn) {
			t.Errorf("score(%q, %q) = %+v, want %+v", tc.truth, tc.extracted, got, tc.want)
		}
	}
}

func TestAggregate(t *testing.T) {
	got := aggregate([]counts{
		{0.5, 0, 0.5}, // P 1, R 0.5
		{0, 0, 1},     // nothing extracted: no precision, R 0
		{0, 0, 0},     // both empty: P 1, R 1
		{0, 1, 0},     // empty truth, text extracted: P 0, no recall
	})
	want := result{pages: 4, p: 2.0 / 3, r: 0.5, f1: 2 * (2.0 / 3) * 0.5 / (2.0/3 + 0.5)}
	if got.pages != want.pages || !near(got.p, want.p) || !near(got.r, want.r) || !near(got.f1, want.f1) {
		t.Errorf("aggregate = %+v, want %+v", got, want)
	}
	if got := aggregate(nil); got != (result{}) {
		t.Errorf("aggregate(nil) = %+v, want zeros", got)
	}
}

// TestSplitSaltMatchesPartition guards against the two copies of the
// split drifting apart: a new salt in partition's benchmark must be
// carried here, or the halves compared would not be its halves.
func TestSplitSaltMatchesPartition(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "partition", "maintext_bench_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	if decl := "const splitSalt = \"" + splitSalt + "\""; !strings.Contains(string(src), decl) {
		t.Errorf("partition/maintext_bench_test.go does not declare %s: update splitSalt here to its", decl)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
