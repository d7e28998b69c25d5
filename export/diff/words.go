package diff

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Op is one kind of word edit.
type Op byte

const (
	Equal  Op = '='
	Delete Op = '-'
	Insert Op = '+'
)

// Edit is a run of words that the two texts share (Equal), that only the
// older has (Delete) or that only the newer has (Insert).
type Edit struct {
	Op    Op
	Words []string
}

// maxEdits bounds the word diff's exact search: Myers' algorithm costs
// O((N+M)·D) time and, keeping its trace, O(D²) memory for D edits. Past
// the bound the differing middle is reported as one deletion and one
// insertion: still a true edit script, just not the shortest, at bounded
// cost on hostile or wholly rewritten blocks.
const maxEdits = 1000

// VisibleWords splits text as a reader sees it into words: runs of
// non-space characters, where no-break and other Unicode spaces separate
// words like a plain space, and characters that draw nothing — control
// characters such as the NUL a browser drops from text, and format
// characters (zero-width spaces and joiners, soft hyphens, direction
// marks) — do not count. So "a&nbsp;b", "a <br> b" and "a  b" all give
// the same words, and so do "you’d" and "you\x00’d".
func VisibleWords(text string) []string {
	return strings.FieldsFunc(stripInvisible(text), unicode.IsSpace)
}

// appendWords appends VisibleWords(text) to w, in one pass over text
// when it holds nothing invisible (PageWords of a whole page: one slice
// rather than one a block).
func appendWords(w []string, text string) []string {
	text = stripInvisible(text)
	start := -1
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		if unicode.IsSpace(r) {
			if start >= 0 {
				w = append(w, text[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
		i += size
	}
	if start >= 0 {
		w = append(w, text[start:])
	}
	return w
}

// invisible tells whether r draws nothing and separates nothing.
func invisible(r rune) bool {
	return (unicode.IsControl(r) && !unicode.IsSpace(r)) || unicode.Is(unicode.Cf, r)
}

// stripInvisible removes the characters a reader cannot see.
func stripInvisible(s string) string {
	if strings.IndexFunc(s, invisible) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if invisible(r) {
			return -1
		}
		return r
	}, s)
}

// CommonEnds returns the lengths of the longest common prefix of a and b
// and of their longest common suffix in what the prefix leaves.
func CommonEnds[T comparable](a, b []T) (prefix, suffix int) {
	for prefix < len(a) && prefix < len(b) && a[prefix] == b[prefix] {
		prefix++
	}
	for suffix < len(a)-prefix && suffix < len(b)-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	return prefix, suffix
}

// Words returns an edit script turning a into b, word by word: a
// shortest one (Myers 1986) when it needs at most maxEdits edits beyond
// the common prefix and suffix, else one that replaces the differing
// middle. Adjacent edits of one kind are merged; Equal runs are whole.
func Words(a, b []string) []Edit {
	p, s := CommonEnds(a, b)
	var out []Edit
	add := func(op Op, w ...string) {
		if len(w) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Op == op {
			out[n-1].Words = append(out[n-1].Words, w...)
			return
		}
		out = append(out, Edit{Op: op, Words: append([]string(nil), w...)})
	}
	add(Equal, a[:p]...)
	ma, mb := a[p:len(a)-s], b[p:len(b)-s]
	if ops, ok := myers(ma, mb, maxEdits); ok {
		i, j := 0, 0
		for _, op := range ops {
			switch op {
			case Equal:
				add(Equal, ma[i])
				i, j = i+1, j+1
			case Delete:
				add(Delete, ma[i])
				i++
			case Insert:
				add(Insert, mb[j])
				j++
			}
		}
	} else {
		add(Delete, ma...)
		add(Insert, mb...)
	}
	add(Equal, a[len(a)-s:]...)
	return out
}

// myers returns a shortest edit script of a into b, one Op per word of
// either (Equal consumes one of each), or false when it needs more than
// maxD edits.
func myers(a, b []string, maxD int) ([]Op, bool) {
	n, m := len(a), len(b)
	if n == 0 && m == 0 {
		return nil, true
	}
	off := n + m + 1
	v := make([]int, 2*off+1)
	// trace[d] is v over k in [-d-1, d+1] before round d: what the
	// backtrack needs to know where each path came from.
	var trace [][]int
	for d := 0; d <= n+m; d++ {
		if d > maxD {
			return nil, false
		}
		snap := make([]int, 2*d+3)
		copy(snap, v[off-d-1:off+d+2])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: insert b[y]
			} else {
				x = v[off+k-1] + 1 // right: delete a[x]
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, n, m, d), true
			}
		}
	}
	return nil, false // not reached: d = n+m always ends
}

func backtrack(trace [][]int, x, y, d int) []Op {
	var rev []Op
	for ; d > 0; d-- {
		vd := func(k int) int { return trace[d][k+d+1] }
		k := x - y
		prevK := k - 1
		if k == -d || (k != d && vd(k-1) < vd(k+1)) {
			prevK = k + 1
		}
		prevX := vd(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			rev = append(rev, Equal)
			x, y = x-1, y-1
		}
		if x == prevX {
			rev = append(rev, Insert)
			y--
		} else {
			rev = append(rev, Delete)
			x--
		}
	}
	for ; x > 0 && y > 0; x, y = x-1, y-1 {
		rev = append(rev, Equal)
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}
