package partition

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fuzzSeeds adds the test pages (and pieces of them) plus hand-made
// hostile snippets to the corpus.
func fuzzSeeds(f *testing.F) {
	for _, s := range []string{
		"", "<", "<a", "</", "<p>a<p>b", "<table><tr><td>a<td>b</table>", "<ul><li>a<li>b</ul>",
		"<script>a</script>", "<style>p{color:red}</style><p>x", "<!--x", "<![CDATA[x]]>", "\x00<p\x00>\x00",
		"<div><span>a</div>b</span>", "<body>x</body>y</html>z", "<svg><path/></svg><math><mi>x</mi></math>",
		"<h2>a</h2>x<br><br>y<hr>z<h2>b</h2>w", "<form><div>x</div></form>", "<plaintext><p>",
		"<div style='background:red'><p style='background:blue'>a</p><p>b</p></div>",
		"<style>#a .b > p { font-size: 2em } @media screen { div { display:none } }</style><div id=a><i class=b><p>x",
	} {
		f.Add([]byte(s))
	}
	for _, name := range []string{"lovescout24-guidelines-2026.html", "mkdocs-index-2014.html"} {
		b, err := os.ReadFile(filepath.Join("testdata", "pages", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/3])
	}
}

// FuzzReassemble: for any bytes, the layout and the leaves reassemble to
// exactly the input, also through the encoded layout.
func FuzzReassemble(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, doc []byte) {
		res, err := Partition(doc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		blocks := ptLeafBytes(res)
		got, err := Reassemble(res.Layout, blocks)
		if err != nil || !bytes.Equal(got, doc) {
			t.Fatalf("reassembly differs (%v)", err)
		}
		l, err := Decode(res.Layout.Encode())
		if err != nil {
			t.Fatal(err)
		}
		got, err = Reassemble(l, blocks)
		if err != nil || !bytes.Equal(got, doc) {
			t.Fatalf("reassembly through Encode/Decode differs (%v)", err)
		}
	})
}

// FuzzPartition: no panic, spans nested inside the input, leaves
// disjoint and ordered, and two runs equal, at a random level (0: the
// adaptive partition) and depth; the second run goes through a
// Partitioner that has seen the earlier inputs, and must give exactly the
// same result. An adaptive run with the partition of the input's first
// half as its prior keeps the invariants too.
func FuzzPartition(f *testing.F) {
	fuzzSeeds(f)
	var mu sync.Mutex
	shared := NewPartitioner()
	f.Fuzz(func(t *testing.T, doc []byte) {
		opts := Options{}
		if len(doc) > 0 {
			opts.Level = int(doc[0] % 7) // 0: adaptive
			opts.MaxDepth = int(doc[len(doc)-1] % 12)
			opts.StyleSheets = []string{strings.ToValidUTF8(string(doc[:len(doc)/4]), "")}
		}
		a, err := Partition(doc, opts)
		if err != nil {
			t.Fatal(err)
		}
		ptCheckInvariants(t, doc, a)
		mu.Lock()
		b, err := shared.Partition(doc, opts)
		mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		if treeSig(a) != treeSig(b) || resultDigest(a) != resultDigest(b) {
			t.Fatal("Partition and a used Partitioner differ")
		}
		for _, l := range a.Leaves {
			if l.Level > opts.Level && opts.Level > 0 {
				t.Fatalf("leaf at level %d > %d", l.Level, opts.Level)
			}
			// Units: in order, disjoint, non-empty, inside the block.
			prev := l.Start
			for _, u := range a.Units(l) {
				if u.Start < prev || u.End <= u.Start || u.End > l.End {
					t.Fatalf("block %s [%d,%d): unit [%d,%d) after %d", l.Path, l.Start, l.End, u.Start, u.End, prev)
				}
				prev = u.End
			}
		}
		if opts.Level == 0 {
			prior, err := Partition(doc[:len(doc)/2], opts)
			if err != nil {
				t.Fatal(err)
			}
			popts := opts
			popts.Prior = prior
			c, err := Partition(doc, popts)
			if err != nil {
				t.Fatal(err)
			}
			ptCheckInvariants(t, doc, c)
		}
	})
}
