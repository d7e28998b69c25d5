package partition

import (
	"strings"
	"testing"
)

// unitTexts partitions doc and returns the units of a block of the
// element with id, as their bytes ("E:" before an element unit).
func unitTexts(t *testing.T, doc, id string) []string {
	t.Helper()
	res := partitionString(t, doc, Options{Level: 1})
	b := blockOfNode(res, func(n *Node, _ string, _ Features) bool { return n.Attr("id") == id })
	if b == nil {
		t.Fatalf("no #%s in %q", id, doc)
	}
	var out []string
	prev := b.Start
	for _, u := range res.Units(b) {
		if u.Start < prev || u.End <= u.Start || u.End > b.End {
			t.Fatalf("unit [%d,%d) out of order or outside the block [%d,%d)", u.Start, u.End, b.Start, b.End)
		}
		prev = u.End
		s := doc[u.Start:u.End]
		if u.Element {
			s = "E:" + s
		}
		out = append(out, s)
	}
	return out
}

func TestUnits(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"paragraphs", `<div id=x><h2>Title</h2>
  <p>One <b>bold</b>.</p>
  <p>Two.</p></div>`, []string{"E:<h2>Title</h2>", "E:<p>One <b>bold</b>.</p>", "E:<p>Two.</p>"}},
		{"inline run between blocks", `<div id=x>Lead text, <a href=/a>a link</a> and more.
<p>Para.</p> tail <i>words</i>
</div>`, []string{"Lead text, <a href=/a>a link</a> and more.", "E:<p>Para.</p>", "tail <i>words</i>"}},
		{"nested lists: the innermost items", `<nav id=x><ul><li><a href=/a>A</a></li><li>B<ul><li>B1</li><li>B2</li></ul></li></ul></nav>`,
			[]string{"E:<li><a href=/a>A</a></li>", "B", "E:<li>B1</li>", "E:<li>B2</li>"}},
		{"run before a nested block, trimmed", `<div id=x> Intro
 <section><p>S1.</p><p>S2.</p></section></div>`, []string{"Intro", "E:<p>S1.</p>", "E:<p>S2.</p>"}},
		{"table cells", `<table id=x><tr><td>1</td><td>2</td></tr></table>`, []string{"E:<td>1</td>", "E:<td>2</td>"}},
		{"no block inside: the block", `<p id=x>Only <em>inline</em> text.</p>`, []string{`<p id=x>Only <em>inline</em> text.</p>`}},
		{"scripts are in no unit", `<div id=x><p>A.</p><script>var n=1</script><p>B.</p></div>`, []string{"E:<p>A.</p>", "E:<p>B.</p>"}},
	} {
		doc := `<html><body>` + c.body + `<footer>Site footer</footer></body></html>`
		got := unitTexts(t, doc, "x")
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: units\n%q\nwant\n%q", c.name, got, c.want)
		}
	}
}
