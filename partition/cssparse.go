package partition

import (
	"strings"
)

// add parses one sheet and indexes its rules. The parser is tolerant:
// whatever it cannot read (unknown at-rules, unsupported selectors,
// unbalanced text) it skips to the next rule.
func (ss *styleSheets) add(text string) {
	if len(text) > maxSheetBytes {
		text = text[:maxSheetBytes]
	}
	text = stripCSSComments(text)
	i := 0
	for i < len(text) && ss.n < maxRules {
		// Skip white space and stray braces or semicolons (the closing
		// brace of an @media block we stepped into lands here).
		c := text[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '}' || c == ';' {
			i++
			continue
		}
		if c == '@' {
			j := i + 1
			for j < len(text) && isIdentByte(text[j]) {
				j++
			}
			kw := strings.ToLower(text[i+1 : j])
			k := j
			for k < len(text) && text[k] != '{' && text[k] != ';' {
				k++
			}
			if k >= len(text) {
				return
			}
			if text[k] == ';' {
				i = k + 1
				continue
			}
			switch kw {
			case "media", "supports", "layer", "document", "container", "scope":
				// Media queries are evaluated for a desktop screen
				// (mediaMatches); the other conditional groups are read
				// as if they applied.
				if kw == "media" && !mediaMatches(text[j:k]) {
					i = skipBlock(text, k)
					continue
				}
				i = k + 1
			default:
				i = skipBlock(text, k)
			}
			continue
		}
		k := strings.IndexByte(text[i:], '{')
		if k < 0 {
			return
		}
		prelude := text[i : i+k]
		end := skipBlock(text, i+k)
		body := text[i+k+1 : max(i+k+1, end-1)]
		i = end
		decls := parseDecls(body)
		if len(decls) == 0 {
			continue
		}
		for _, sel := range strings.Split(prelude, ",") {
			r, ok := parseSelector(sel)
			if !ok {
				continue
			}
			r.order = ss.n
			r.decls = decls
			ss.index(r)
			if ss.n >= maxRules {
				return
			}
		}
	}
}

func (ss *styleSheets) index(r *cssRule) {
	ss.n++
	ss.all = append(ss.all, r)
	s := r.parts[len(r.parts)-1]
	switch {
	case s.id != "":
		ss.byID[s.id] = append(ss.byID[s.id], r)
	case len(s.classes) > 0:
		ss.byClass[s.classes[0]] = append(ss.byClass[s.classes[0]], r)
	case s.tag != "" && s.tag != "*":
		ss.byTag[s.tag] = append(ss.byTag[s.tag], r)
	default:
		ss.any = append(ss.any, r)
	}
}

// skipBlock returns the index just past the '}' that closes the block
// opened at text[open] == '{', or len(text).
func skipBlock(text string, open int) int {
	// Fast path: most blocks hold no nested brace, so the first '}' closes
	// them; IndexByte finds it far faster than the loop below.
	if c := strings.IndexByte(text[open+1:], '}'); c >= 0 && strings.IndexByte(text[open+1:open+1+c], '{') < 0 {
		return open + 1 + c + 1
	}
	depth := 0
	for i := open; i < len(text); i++ {
		switch text[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(text)
}

func stripCSSComments(s string) string {
	if !strings.Contains(s, "/*") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "/*")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteByte(' ')
		j := strings.Index(s[i+2:], "*/")
		if j < 0 {
			return b.String()
		}
		s = s[i+2+j+2:]
	}
}

func isIdentByte(c byte) bool {
	return c == '-' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// parseDecls keeps the declarations of the properties the partition
// reads, in source order.
func parseDecls(body string) []cssDecl {
	var out []cssDecl
	for body != "" {
		d := body
		if i := strings.IndexByte(body, ';'); i >= 0 {
			d, body = body[:i], body[i+1:]
		} else {
			body = ""
		}
		colon := strings.IndexByte(d, ':')
		if colon < 0 {
			continue
		}
		p := propIndex(asciiLowerTrim(d[:colon]))
		if p < 0 {
			continue
		}
		v := strings.TrimSpace(d[colon+1:])
		imp := false
		if k := strings.LastIndexByte(v, '!'); k >= 0 && strings.EqualFold(strings.TrimSpace(v[k+1:]), "important") {
			imp = true
			v = strings.TrimSpace(v[:k])
		}
		if v == "" {
			continue
		}
		out = append(out, cssDecl{prop: p, val: strings.ToLower(v), important: imp})
	}
	return out
}

// asciiLowerTrim trims white space and lower-cases s, allocating only
// when s has upper-case letters.
func asciiLowerTrim(s string) string {
	s = strings.TrimSpace(s)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// parseSelector reads one complex selector made of type, universal, id
// and class selectors joined by descendant or child combinators. Any
// other construct (attributes, pseudo-classes, sibling combinators) makes
// the selector unmatchable here, and it is dropped: a rule that might
// apply only on hover or to some attribute value must not be taken as
// applying always.
func parseSelector(sel string) (*cssRule, bool) {
	sel = strings.TrimSpace(sel)
	if sel == "" || len(sel) > 512 {
		return nil, false
	}
	r := &cssRule{}
	var cur compound
	have := false
	pending := byte(0) // combinator seen since the last compound
	flush := func() {
		if !have {
			return
		}
		if len(r.parts) > 0 {
			c := pending
			if c == 0 {
				c = ' '
			}
			r.combs = append(r.combs, c)
		}
		r.parts = append(r.parts, cur)
		cur = compound{}
		have = false
		pending = 0
	}
	i := 0
	for i < len(sel) {
		c := sel[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			flush()
			i++
		case c == '>':
			flush()
			if len(r.parts) == 0 {
				return nil, false
			}
			pending = '>'
			i++
		case c == '*':
			if have {
				return nil, false
			}
			cur.tag = "*"
			have = true
			i++
		case c == '#' || c == '.':
			j := i + 1
			for j < len(sel) && isIdentByte(sel[j]) {
				j++
			}
			if j == i+1 {
				return nil, false
			}
			if c == '#' {
				cur.id = sel[i+1 : j]
			} else {
				cur.classes = append(cur.classes, sel[i+1:j])
			}
			have = true
			i = j
		case isIdentByte(c):
			if have {
				return nil, false
			}
			j := i
			for j < len(sel) && isIdentByte(sel[j]) {
				j++
			}
			cur.tag = strings.ToLower(sel[i:j])
			have = true
			i = j
		default:
			return nil, false
		}
	}
	flush()
	if pending != 0 || len(r.parts) == 0 || len(r.parts) > 32 {
		return nil, false
	}
	for i := range r.parts {
		p := &r.parts[i]
		p.sig = featuresOf(p.tag, p.id, p.classes)
	}
	ids, classes, tags := 0, 0, 0
	for _, p := range r.parts {
		if p.id != "" {
			ids++
		}
		classes += len(p.classes)
		if p.tag != "" && p.tag != "*" {
			tags++
		}
	}
	r.spec = min(ids, 255)<<16 | min(classes, 255)<<8 | min(tags, 255)
	return r, true
}

// joinSheets indexes the rules of parsed sheets, in order, as one
// page's rules: source order runs across sheets and at most maxRules are
// kept, as if the sheets' texts were parsed one after another.
func joinSheets(parsed []*parsedSheet) *styleSheets {
	n := 0
	for _, ps := range parsed {
		n += len(ps.rules)
	}
	n = min(n, maxRules)
	rules := make([]cssRule, 0, n)
	ss := newStyleSheets()
	for _, ps := range parsed {
		for i := range ps.rules {
			if len(rules) >= n {
				return ss
			}
			rules = append(rules, ps.rules[i])
			r := &rules[len(rules)-1]
			r.order = ss.n
			ss.index(r)
		}
	}
	return ss
}
