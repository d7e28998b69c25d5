package blockview

import (
	"testing"

	"github.com/blockwarc/blockwarc/partition"
)

func TestBlockTag(t *testing.T) {
	for _, tc := range []struct {
		b    partition.Block
		want string
	}{
		{partition.Block{Tag: "div", ID: "main", Class: " a  b "}, "div#main.a.b"},
		{partition.Block{}, "#run"},
	} {
		if got := BlockTag(&tc.b); got != tc.want {
			t.Errorf("BlockTag(%+v) = %q, want %q", tc.b, got, tc.want)
		}
	}
}

func TestOneLine(t *testing.T) {
	if got := OneLine("a\n  b\tc", 10); got != "a b c" {
		t.Errorf("OneLine folds space: %q", got)
	}
	if got := OneLine("ééééé", 3); got != "éé…" {
		t.Errorf("OneLine cuts at runes: %q", got)
	}
}

func TestAttrEscape(t *testing.T) {
	if got, want := AttrEscape(`"<é>`), "&#34;&lt;&#233;&gt;"; got != want {
		t.Errorf("AttrEscape = %q, want %q", got, want)
	}
}

func TestTagNameEnd(t *testing.T) {
	doc := []byte(`<p class=x>hi</p><br/>`)
	for _, tc := range []struct {
		start, end, want int
		ok               bool
	}{
		{0, len(doc), 2, true},
		{17, len(doc), 20, true},
		{2, len(doc), 0, false}, // not at a '<'
	} {
		got, ok := TagNameEnd(doc, tc.start, tc.end)
		if got != tc.want || ok != tc.ok {
			t.Errorf("TagNameEnd(%d) = %d, %v; want %d, %v", tc.start, got, ok, tc.want, tc.ok)
		}
	}
}
