package partition

import (
	"strings"
	"testing"
)

const longText = "This paragraph has enough words in it to pass the size threshold of the rules. "

// ruleFor partitions doc and applies IsBlock to the element id=x.
func ruleFor(t *testing.T, doc string) (decision, int) {
	t.Helper()
	res, err := Partition([]byte(doc), Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := &partitioner{doc: res.Doc, facts: res.facts, styles: &res.styles}
	for _, n := range res.nodes {
		if n.Kind == ElementNode && n.Attr("id") == "x" {
			return p.isBlock(n)
		}
	}
	t.Fatalf("no element id=x in %q", doc)
	return 0, 0
}

func TestIsBlockRules(t *testing.T) {
	cases := []struct {
		name string
		doc  string
		d    decision
		rule int
	}{
		{"1 empty div", `<div id=x> <span></span> </div>`, skip, ruleInvalid},
		{"1 display none", `<div id=x style="display:none">` + longText + `</div>`, skip, ruleInvalid},
		{"1 hidden attribute", `<section id=x hidden>` + longText + `</section>`, skip, ruleInvalid},
		{"1 script", `<script id=x>var a = "` + longText + `";</script>`, skip, ruleInvalid},
		{"1 hidden input", `<input id=x type=hidden value=token>`, skip, ruleInvalid},
		{"3 wrapper", `<div id=x><div><p>` + longText + `</p><p>` + longText + `</p></div></div>`, divide, ruleOneChild},
		{"3 single text child", `<div id=x>` + longText + `</div>`, keep, ruleOneChild},
		{"3 image wrapper", `<div><span id=x><img src=a.png></span><p>x</p></div>`, divide, ruleOneChild},
		{"3 image itself", `<div><span><img id=x src=a.png></span><p>x</p></div>`, keep, ruleOneChild},
		{"4 function form", `<form id=x><label>Name</label><input name=a><p>` + longText + `</p><button>Go</button></form>`, keep, ruleFunction},
		{"4 link card", `<a id=x href=#><div>` + longText + `</div><p>more</p></a>`, keep, ruleFunction},
		{"10 form as layout", `<form id=x><div>` + strings.Repeat(longText, 4) + `</div><div>` + strings.Repeat(longText, 4) + `</div></form>`, divide, ruleSchema},
		{"5 small", `<div id=x><span>Home</span> <span>About</span></div>`, keep, ruleSize},
		{"5 small declared box", `<div id=x style="width:120px;height:90px"><p>` + longText + `</p><p>` + longText + `</p></div>`, keep, ruleSize},
		{"6 colour", `<div id=x style="background:#fff"><span style="background-color:#000">` + longText + `</span> <span>` + longText + `</span></div>`, divide, ruleColour},
		{"6 same colour is not a split", `<div id=x style="background:#fff"><span style="background-color:#fff">` + longText + `</span> <span>` + longText + `</span></div>`, keep, ruleVirtualText},
		{"7 hr", `<div id=x>` + longText + `<hr>` + longText + `</div>`, divide, ruleLineBreak},
		{"7 br br", `<div id=x>` + longText + `<br>  <br>` + longText + `</div>`, divide, ruleLineBreak},
		{"7 heading among children", `<td id=x><h3>Title</h3>` + longText + `</td>`, divide, ruleLineBreak},
		{"8 virtual text", `<div id=x>` + longText + `<b>bold</b> and <a href=#>a link</a><br>` + longText + `</div>`, keep, ruleVirtualText},
		{"8 inline-block menu", `<ul id=x style="display:block">` + strings.Repeat(`<li style="display:inline-block"><a href=#>Menu entry</a></li>`, 6) + `</ul>`, keep, ruleVirtualText},
		{"10 flex items are blocks", `<div id=x style="display:flex">` + strings.Repeat(`<span>`+longText+`</span>`, 2) + `</div>`, divide, ruleSchema},
		{"9 format block", `<blockquote><pre id=x><div>` + longText + `</div><div>` + longText + `</div></pre></blockquote>`, keep, ruleFormat},
		{"10 schema", `<ul id=x><li>` + longText + `</li><li>` + longText + `</li></ul>`, divide, ruleSchema},
		{"10 table row", `<table><tr id=x><td>` + longText + `</td><td>` + longText + `</td></tr></table>`, divide, ruleSchema},
		{"11 custom element", `<app-shell id=x><div>` + longText + `</div><div>` + longText + `</div></app-shell>`, divide, ruleOther},
		{"11 span as container", `<span id=x><div>` + longText + `</div><div>` + longText + `</div></span>`, divide, ruleOther},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, rule := ruleFor(t, c.doc)
			if d != c.d || rule != c.rule {
				t.Fatalf("isBlock = (%d, rule %d), want (%d, rule %d)", d, rule, c.d, c.rule)
			}
		})
	}
}

// TestRuleOrder: the first rule that applies decides. A small node with
// a coloured child is kept by rule 5 before rule 6 can divide it; a
// Function node is kept by rule 4 even with line breaks inside.
func TestRuleOrder(t *testing.T) {
	if d, r := ruleFor(t, `<div id=x><span style="background:red">a</span> <span>b</span></div>`); d != keep || r != ruleSize {
		t.Errorf("small coloured: (%d, %d), want keep by rule 5", d, r)
	}
	if d, r := ruleFor(t, `<form id=x>`+longText+`<hr>`+longText+`<input></form>`); d != keep || r != ruleFunction {
		t.Errorf("form with hr: (%d, %d), want keep by rule 4", d, r)
	}
}

func TestMaxDepth(t *testing.T) {
	doc := `<body><div><div><div><p>` + longText + `</p><p>` + longText + `</p></div></div></div><p>` + longText + `</p></body>`
	deep, err := Partition([]byte(doc), Options{})
	if err != nil {
		t.Fatal(err)
	}
	shallow, err := Partition([]byte(doc), Options{MaxDepth: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(deep.Leaves) != 3 {
		t.Fatalf("unbounded depth: %d leaves, want 3", len(deep.Leaves))
	}
	// body is depth 1 (no <html> tag); the outer div (depth 2) is a
	// wrapper, and the rules stop at the depth-3 div, which stays whole.
	if len(shallow.Leaves) != 2 || shallow.Leaves[0].Tag != "div" || shallow.Leaves[0].Depth != 3 {
		t.Fatalf("MaxDepth 3: leaves %d (first <%s> at depth %d), want the depth-3 div kept whole", len(shallow.Leaves), shallow.Leaves[0].Tag, shallow.Leaves[0].Depth)
	}
}

// TestSegmentsRuns: inline content beside block-level siblings becomes
// one fragment block covering exactly the run; runs break at <br><br>.
func TestSegmentsRuns(t *testing.T) {
	doc := `<body><div>` + longText + `</div>Loose text <b>with bold</b> and more<br><br>Second run <i>here</i><div>` + longText + `</div></body>`
	res, err := Partition([]byte(doc), Options{Level: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range res.Leaves {
		got = append(got, string(res.BlockBytes(b)))
	}
	want := []string{
		`<div>` + longText + `</div>`,
		`Loose text <b>with bold</b> and more`,
		`Second run <i>here</i>`,
		`<div>` + longText + `</div>`,
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("leaves:\n%q\nwant\n%q", got, want)
	}
	if res.Leaves[1].Node.Kind != FragmentNode || len(res.Leaves[1].Node.Children) != 3 {
		t.Fatalf("loose text should be a fragment of 3 nodes, got kind %d with %d", res.Leaves[1].Node.Kind, len(res.Leaves[1].Node.Children))
	}
}
