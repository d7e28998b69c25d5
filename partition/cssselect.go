package partition

import (
	"strings"
)

// compound is one compound selector: tag, id and classes, all of which
// must match. An empty tag (or "*") matches any element.
type compound struct {
	tag     string
	id      string
	classes []string
	sig     featureSig // of tag (unless "*"), id and classes: set once parsed
}

// featureSig is a 128-bit Bloom signature of element features (tag, id,
// classes), one bit each: an element set's signature is the union of
// its elements'. When a compound's bits are not all in the signature of
// an element's ancestors, no ancestor can match it.
type featureSig [2]uint64

// featureBit returns the signature bit of feature s of kind ('t' tag,
// '#' id, '.' class): FNV-1a of kind and s.
func featureBit(kind byte, s string) featureSig {
	h := (uint64(14695981039346656037) ^ uint64(kind)) * 1099511628211
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	var sig featureSig
	sig[h>>6&1] = 1 << (h & 63)
	return sig
}

func (a *featureSig) add(b featureSig) { a[0] |= b[0]; a[1] |= b[1] }

// covers reports whether every bit of b is in a.
func (a featureSig) covers(b featureSig) bool { return a[0]&b[0] == b[0] && a[1]&b[1] == b[1] }

// featuresOf returns the signature of a tag, id and classes.
func featuresOf(tag, id string, classes []string) featureSig {
	var sig featureSig
	if tag != "" && tag != "*" {
		sig.add(featureBit('t', tag))
	}
	if id != "" {
		sig.add(featureBit('#', id))
	}
	for _, c := range classes {
		sig.add(featureBit('.', c))
	}
	return sig
}

// elemKey is what a compound selector can test on an element.
type elemKey struct {
	tag     string
	id      string
	classes []string
	self    featureSig // of tag, id and classes
	above   featureSig // union of the element ancestors' self
}

func (c *compound) matches(e *elemKey) bool {
	if c.tag != "" && c.tag != "*" && c.tag != e.tag {
		return false
	}
	if c.id != "" && c.id != e.id {
		return false
	}
	for _, want := range c.classes {
		found := false
		for _, have := range e.classes {
			if have == want {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// cssMatcher applies the page's sheets to elements within a step budget.
type cssMatcher struct {
	ss    *styleSheets
	keys  []elemKey // per node id
	steps int
}

// match reports whether rule r matches node n. Combinators are matched
// right to left greedily: a descendant combinator takes the nearest
// ancestor that fits, which never matches wrongly and misses only rare
// selectors mixing '>' and ' ' in ambiguous ways.
func (m *cssMatcher) match(r *cssRule, n *Node) bool {
	last := len(r.parts) - 1
	m.steps++
	if !r.parts[last].matches(&m.keys[n.id]) {
		return false
	}
	cur := n
	for i := last - 1; i >= 0; i-- {
		comb := r.combs[i]
		if comb == ' ' && !m.keys[cur.id].above.covers(r.parts[i].sig) {
			// No ancestor can match: the walk below would visit every
			// element ancestor of cur (depth-1 of them: all but the
			// document node) and fail. Counted all the same, so that
			// the step budget runs out where it always did.
			m.steps += int(cur.depth) - 1
			return false
		}
		p := cur.Parent
		found := false
		for p != nil && p.Kind == ElementNode {
			m.steps++
			if r.parts[i].matches(&m.keys[p.id]) {
				found = true
				break
			}
			if comb == '>' {
				break
			}
			p = p.Parent
		}
		if !found {
			return false
		}
		cur = p
	}
	return true
}

// setKeys fills m.keys (len(nodes) long) for every element of nodes, in
// pre-order, appending their class lists to classes, which it returns.
func (m *cssMatcher) setKeys(nodes []*Node, classes []string) []string {
	for _, n := range nodes {
		if n.Kind != ElementNode {
			continue
		}
		k := elemKey{tag: n.Tag, id: n.Attr("id")}
		if c := n.Attr("class"); c != "" {
			at := len(classes)
			for f := range strings.FieldsSeq(c) {
				classes = append(classes, f)
			}
			if len(classes) > at {
				k.classes = classes[at:len(classes):len(classes)]
			}
		}
		k.self = featuresOf(k.tag, k.id, k.classes)
		if p := n.Parent; p != nil && p.Kind == ElementNode {
			pk := &m.keys[p.id]
			k.above = pk.above
			k.above.add(pk.self)
		}
		m.keys[n.id] = k
	}
	return classes
}
