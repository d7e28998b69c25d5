package partition

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// kinds renders an alignment as one letter per pair: = identical,
// ~ modified, + added, - removed.
func pairKinds(ps []Pair) string {
	var sb strings.Builder
	for _, p := range ps {
		sb.WriteByte("=~+-"[p.Kind])
	}
	return sb.String()
}

// checkAlignment asserts what every alignment must be: each leaf of both
// versions exactly once, in document order, with kinds matching the bytes.
func checkAlignment(t testing.TB, old, new *Result, ps []Pair) {
	t.Helper()
	var ol, nl []*Block
	for _, p := range ps {
		if p.Old != nil {
			ol = append(ol, p.Old)
		}
		if p.New != nil {
			nl = append(nl, p.New)
		}
		switch p.Kind {
		case Identical:
			if p.Old == nil || p.New == nil || string(blockBytes(old, p.Old)) != string(blockBytes(new, p.New)) {
				t.Fatalf("identical pair with different bytes: %+v", p)
			}
		case Modified:
			if p.Old == nil || p.New == nil || (p.Sim < DefaultSimThreshold && p.TextSim < DefaultTextThreshold) {
				t.Fatalf("bad modified pair: %+v", p)
			}
		case Added:
			if p.Old != nil || p.New == nil {
				t.Fatalf("bad added pair: %+v", p)
			}
		case Removed:
			if p.Old == nil || p.New != nil {
				t.Fatalf("bad removed pair: %+v", p)
			}
		}
	}
	var wantOld, wantNew []*Block
	if old != nil {
		wantOld = old.Leaves
	}
	if new != nil {
		wantNew = new.Leaves
	}
	if !slices.Equal(ol, wantOld) || !slices.Equal(nl, wantNew) {
		t.Fatalf("alignment does not list every leaf once in order: %d/%d old, %d/%d new", len(ol), len(wantOld), len(nl), len(wantNew))
	}
}

func matchPage(blocks ...string) string {
	return "<html><body>" + strings.Join(blocks, "\n") + "</body></html>"
}

func TestMatchSynthetic(t *testing.T) {
	h := "<h1>Release notes</h1>"
	p1 := "<p>First paragraph about <b>installing</b> the tool.</p>"
	p2 := "<p>Second paragraph on configuration files and their layout.</p>"
	p2m := "<p>Second paragraph on configuration files, their layout and defaults.</p>"
	p3 := "<p>Third paragraph: deploying the site to a server.</p>"
	px := "<p>A brand new paragraph nobody wrote before.</p>"
	nav := "<ul><li><a href=/>Home</a></li><li><a href=/about>About</a></li></ul>"
	nav2 := "<ul><li><a href=/>Home</a></li><li><a href=/about>About</a></li><li><a href=/news>News</a></li></ul>"
	tbl := "<table><tr><td>a</td><td>1</td></tr></table>"
	leaves := tagIs("h1", "p", "ul", "table")

	tests := []struct {
		name     string
		old, new string
		want     string
	}{
		{"unchanged", matchPage(h, p1, p2, p3), matchPage(h, p1, p2, p3), "===="},
		{"gained a paragraph", matchPage(h, p1, p2, p3), matchPage(h, px, p1, p2, p3), "=+==="},
		{"gained one, changed a later one", matchPage(h, p1, p2, p3), matchPage(h, px, p1, p2m, p3), "=+=~="},
		{"lost a paragraph", matchPage(h, p1, p2, p3), matchPage(h, p1, p3), "==-="},
		{"changed a paragraph", matchPage(h, p1, p2, p3), matchPage(h, p1, p2m, p3), "==~="},
		// px and p2m both look like p2; p2m shares its words.
		{"text breaks the tie", matchPage(h, p2, p3), matchPage(h, px, p2m, p3), "=+~="},
		{"list gained an item", matchPage(nav, p1), matchPage(nav2, p1), "~="},
		{"table replaced by a paragraph", matchPage(h, tbl, p3), matchPage(h, px, p3), "=-+="},
		{"all new", matchPage(tbl), matchPage(h), "-+"},
		{"from empty", matchPage(), matchPage(h, p1), "++"},
		{"to empty", matchPage(h, p1), matchPage(), "--"},
		{"moved block", matchPage(h, p1, p2, p3), matchPage(h, p3, p1, p2), "=+==-"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old, new := testTree(t, tc.old, leaves), testTree(t, tc.new, leaves)
			ps := Match(old, new, SimOptions{})
			checkAlignment(t, old, new, ps)
			if got := pairKinds(ps); got != tc.want {
				t.Errorf("Match = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestMatchNil(t *testing.T) {
	r := testTree(t, matchPage("<p>a</p>", "<p>b</p>"), tagIs("p"))
	if got := pairKinds(Match(nil, r, SimOptions{})); got != "++" {
		t.Errorf("Match(nil, r) = %q", got)
	}
	if got := pairKinds(Match(r, nil, SimOptions{})); got != "--" {
		t.Errorf("Match(r, nil) = %q", got)
	}
	if got := Match(nil, nil, SimOptions{}); len(got) != 0 {
		t.Errorf("Match(nil, nil) = %v", got)
	}
}

// Thousands of blocks, one inserted near the top and one changed near the
// bottom: still one added and one modified, and the greedy path for a
// long unmatched run keeps pairs in order.
func TestMatchLarge(t *testing.T) {
	var a, b []string
	for i := range 3000 {
		p := fmt.Sprintf("<p>paragraph %d of the long page, with words %d</p>", i, i*7)
		a = append(a, p)
		if i == 10 {
			b = append(b, "<p>inserted paragraph here</p>")
		}
		if i == 2900 {
			p = fmt.Sprintf("<p>paragraph %d of the long page, changed %d</p>", i, i*7)
		}
		b = append(b, p)
	}
	old, new := testTree(t, matchPage(a...), tagIs("p")), testTree(t, matchPage(b...), tagIs("p"))
	ps := Match(old, new, SimOptions{})
	checkAlignment(t, old, new, ps)
	if got := pairKinds(ps); strings.Count(got, "+") != 1 || strings.Count(got, "~") != 1 || strings.Count(got, "-") != 0 {
		t.Errorf("Match: %d added, %d modified, %d removed; want 1, 1, 0", strings.Count(got, "+"), strings.Count(got, "~"), strings.Count(got, "-"))
	}

	// Every block rewritten: one unmatched run of 3000 against 3000,
	// beyond the exact alignment's bound. All pair up as modified.
	for i := range b {
		b[i] = fmt.Sprintf("<p>rewritten %d</p>", i)
	}
	new = testTree(t, matchPage(b...), tagIs("p"))
	ps = Match(old, new, SimOptions{})
	checkAlignment(t, old, new, ps)
	if got := pairKinds(ps); strings.Count(got, "~") != len(a) {
		t.Errorf("rewritten page: %d modified, want %d (%d added)", strings.Count(got, "~"), len(a), strings.Count(got, "+"))
	}
}

// Repeated identical blocks between differing ends: no block occurs once
// on each side and the range is too large for the exact LCS, so the
// anchoring finds nothing; the run pairing must still call them identical.
func TestMatchRepeatedBlocks(t *testing.T) {
	same := strings.Repeat("<p>the same paragraph again</p>", 600)
	old := testTree(t, matchPage("<table><tr><td>a</td></tr></table>", same, "<form><input name=q></form>"), tagIs("p", "table", "form", "ul", "h1"))
	new := testTree(t, matchPage("<ul><li>b</li></ul>", same, "<h1>Title</h1>"), tagIs("p", "table", "form", "ul", "h1"))
	if len(old.Leaves)*len(new.Leaves) <= maxLCSCells {
		t.Fatalf("test too small: %d×%d leaves", len(old.Leaves), len(new.Leaves))
	}
	ps := Match(old, new, SimOptions{})
	checkAlignment(t, old, new, ps)
	want := "-+" + strings.Repeat("=", 600) + "-+"
	if got := pairKinds(ps); got != want {
		t.Errorf("Match = %q…, want %q…", got[:min(len(got), 12)], want[:12])
	}
}

func lcsValid(t testing.TB, a, b []uint64, m [][2]int) {
	t.Helper()
	for k, p := range m {
		if p[0] < 0 || p[0] >= len(a) || p[1] < 0 || p[1] >= len(b) || a[p[0]] != b[p[1]] {
			t.Fatalf("pair %d %v does not match equal elements", k, p)
		}
		if k > 0 && (p[0] <= m[k-1][0] || p[1] <= m[k-1][1]) {
			t.Fatalf("pairs %v %v not increasing", m[k-1], p)
		}
	}
}

// lcsLen is the textbook O(n·m) LCS length, the oracle.
func lcsLen(a, b []uint64) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(cur[j], prev[j+1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func TestLCSIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 300 {
		// b is a edited: deletions, insertions, substitutions; alphabet
		// small (repeats, no unique anchors) or large (unique lines).
		alpha := uint64(3)
		if iter%2 == 1 {
			alpha = 1 << 30
		}
		a := make([]uint64, rng.IntN(60))
		for i := range a {
			a[i] = rng.Uint64N(alpha)
		}
		var b []uint64
		for _, x := range a {
			switch rng.IntN(10) {
			case 0: // delete
			case 1:
				b = append(b, rng.Uint64N(alpha), x)
			case 2:
				b = append(b, rng.Uint64N(alpha))
			default:
				b = append(b, x)
			}
		}
		m := lcsIndex(a, b)
		lcsValid(t, a, b, m)
		want := lcsLen(a, b)
		// Exact on small ranges and whenever unique elements anchor a
		// true LCS; patience anchoring may lose a little otherwise.
		if len(m) > want || len(m) < want*9/10 {
			t.Errorf("iter %d: lcs %d, optimum %d", iter, len(m), want)
		}
	}
}

func FuzzLCSIndex(f *testing.F) {
	f.Add([]byte("abcabba"), []byte("cbabac"))
	f.Add([]byte("<p>\n</p>\n"), []byte("<p>\nx\n</p>\n"))
	f.Fuzz(func(t *testing.T, x, y []byte) {
		a, b := make([]uint64, len(x)), make([]uint64, len(y))
		for i, c := range x {
			a[i] = uint64(c % 8)
		}
		for i, c := range y {
			b[i] = uint64(c % 8)
		}
		m := lcsIndex(a, b)
		lcsValid(t, a, b, m)
		if len(x)*len(y) <= 1<<16 && len(m) > lcsLen(a, b) {
			t.Fatalf("longer than the LCS")
		}
	})
}

// TestMatchRealPairs aligns successive captures from the corpus (see
// testdata/pairs/SOURCE.md) and checks that changes stay where the bytes
// changed: the line diff of the two payloads tells which blocks may be
// reported changed, and every other block must be identical.
func TestMatchRealPairs(t *testing.T) {
	tests := []struct {
		name string
		// stable: the partition of the unchanged regions is the same in
		// both versions, so every block outside the edited lines must be
		// Identical, and each edited stretch of lines changes at most one
		// block. When false (the edit moved blocks to other levels), only
		// blocks whose bytes recur among the unchanged old blocks must be
		// Identical.
		stable bool
		// removedOK: whether removals may occur (an insertion removes
		// nothing).
		removedOK bool
	}{
		{"deploying-warning", true, false},
		{"release-notes-new-version", true, false},
		{"home-meta-and-strong", true, false},
		{"theme-languages", true, false},
		{"home-build-date", true, false},
		// Three paragraphs appended at the top level turn the page's one
		// wrapper div into a level-1 block among four, so each level
		// below moves one up and tables once split into thead/tbody are
		// kept whole: a partition-stability problem, not a matching one.
		{"lovescout24-privacy-swiss-rep", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := readPair(t, tc.name+".old.html")
			b := readPair(t, tc.name+".new.html")
			ra, err := Partition(a, Options{})
			if err != nil {
				t.Fatal(err)
			}
			rb, err := Partition(b, Options{})
			if err != nil {
				t.Fatal(err)
			}
			onlyA, onlyB := lineDiff(a, b)
			ps := Match(ra, rb, SimOptions{})
			checkAlignment(t, ra, rb, ps)
			t.Logf("%d→%d leaves: %s", len(ra.Leaves), len(rb.Leaves), pairKinds(ps))

			oldBytes := map[string]bool{}
			for _, l := range ra.Leaves {
				if !touches(onlyA, l.Start, l.End) {
					oldBytes[string(ra.BlockBytes(l))] = true
				}
			}
			changed := 0
			for _, p := range ps {
				if p.Kind == Identical {
					continue
				}
				changed++
				if p.Kind == Removed && !tc.removedOK {
					t.Errorf("removed %s [%d,%d) in a pure insertion", p.Old.Path, p.Old.Start, p.Old.End)
				}
				inEdit := p.Old != nil && touches(onlyA, p.Old.Start, p.Old.End) || p.New != nil && touches(onlyB, p.New.Start, p.New.End)
				if tc.stable && !inEdit {
					t.Errorf("%v pair outside the edited lines: old %v new %v", p.Kind, blockName(p.Old), blockName(p.New))
				}
				if p.New != nil && !touches(onlyB, p.New.Start, p.New.End) && oldBytes[string(rb.BlockBytes(p.New))] {
					t.Errorf("new block %s has the bytes of an unchanged old block but is %v", blockName(p.New), p.Kind)
				}
			}
			if edits := max(len(onlyA), len(onlyB)); tc.stable && changed > edits {
				t.Errorf("%d blocks reported changed for %d edited stretches of lines", changed, edits)
			}
			// Equal layouts hold the same number of placeholders.
			if bytes.Equal(ra.Layout.Encode(), rb.Layout.Encode()) && len(ra.Leaves) != len(rb.Leaves) {
				t.Errorf("equal layouts for %d and %d blocks", len(ra.Leaves), len(rb.Leaves))
			}
		})
	}
}

func readPair(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "pairs", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func blockName(b *Block) string {
	if b == nil {
		return "-"
	}
	return fmt.Sprintf("%s <%s> [%d,%d)", b.Path, b.Tag, b.Start, b.End)
}

// FuzzMatch: for any two documents, Match lists every leaf of both once,
// in order, with kinds that agree with the bytes, and similarities stay
// in [0,1].
func FuzzMatch(f *testing.F) {
	// Seeds are cut from the real pairs: whole pages make each run of the
	// instrumented Partition too slow for the fuzzer to explore.
	names, _ := filepath.Glob(filepath.Join("testdata", "pairs", "*.old.html"))
	for _, n := range names {
		a, errA := os.ReadFile(n)
		b, errB := os.ReadFile(strings.TrimSuffix(n, ".old.html") + ".new.html")
		if errA == nil && errB == nil {
			// The stretch around the first difference.
			i := 0
			for i < len(a) && i < len(b) && a[i] == b[i] {
				i++
			}
			lo := max(0, i-1500)
			f.Add(a[lo:min(len(a), i+1500)], b[lo:min(len(b), i+1500)])
		}
	}
	f.Add([]byte("<p>a<p>b<table><tr><td>x</table>"), []byte("<p>a<div><p>c</div><p>b"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ra, err := Partition(a, Options{})
		if err != nil {
			t.Skip()
		}
		rb, err := Partition(b, Options{})
		if err != nil {
			t.Skip()
		}
		ps := Match(ra, rb, SimOptions{})
		checkAlignment(t, ra, rb, ps)
		for _, p := range ps {
			if p.Sim < 0 || p.Sim > 1 || p.TextSim < 0 || p.TextSim > 1 {
				t.Fatalf("similarity out of range: %+v", p)
			}
		}
	})
}

// TestLeafKeysKept: a Result's leaf keys are computed once and are its
// leaves' keys, whichever goroutine matches it first (go test -race).
func TestLeafKeysKept(t *testing.T) {
	a, err := Partition([]byte(`<html><body><div><p>one</p><p>two</p></div><div><p>three</p></div></body></html>`), Options{Level: LevelAdaptive})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Partition([]byte(`<html><body><div><p>one</p><p>2</p></div><div><p>three</p></div></body></html>`), Options{Level: LevelAdaptive})
	if err != nil {
		t.Fatal(err)
	}
	want := Match(&Result{Doc: a.Doc, Leaves: a.Leaves}, &Result{Doc: b.Doc, Leaves: b.Leaves}, SimOptions{})
	var wg sync.WaitGroup
	got := make([][]Pair, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = Match(a, b, SimOptions{})
		}()
	}
	wg.Wait()
	for i, g := range got {
		if len(g) != len(want) {
			t.Fatalf("match %d: %d pairs, want %d", i, len(g), len(want))
		}
		for k := range g {
			if g[k].Kind != want[k].Kind {
				t.Errorf("match %d, pair %d: %v, want %v", i, k, g[k].Kind, want[k].Kind)
			}
		}
	}
	if k := a.leafKeys(); len(k) != len(a.Leaves) || !slices.Equal(k, leafHashes(a, a.Leaves)) || &k[0] != &a.leafKeys()[0] {
		t.Errorf("leaf keys %v: not the leaves' keys, kept", k)
	}
}
