package partition

import (
	"bytes"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Comment threads by their shape (issue 35, third round). Readers'
// comments are found by name when the page names them (comment,
// disqus, respond: commentCues, unlikelyNames) or marks them
// schema.org Comment. Many do neither (a section of "responses", items
// of class "r"), and their entries read as paragraphs of the article.
// What every thread has, whatever its names, is its shape: a run of
// sibling entries, each a short text with a date and a way to answer it
// ("Reply"), often under a heading that counts them ("3 Responses",
// "Leave a reply"). A list of dated entries without a reply link or
// such a heading (a timeline, a live blog) is not a thread.

// threadMaxItemRunes bounds one entry of a thread: longer, it is a
// post, not a comment.
const threadMaxItemRunes = 3000

// replyWords are the whole text of a reply link or button.
var replyWords = map[string]bool{
	"reply": true, "reply ↓": true, "reply to this comment": true, "antworten": true, "répondre": true,
	"responder": true, "rispondi": true, "beantwoorden": true, "reageer": true, "svara": true, "svar": true,
	"odpowiedz": true, "odpovědět": true, "ответить": true, "返信": true, "回复": true, "답글": true,
}

// commentHeading matches a heading that counts or invites comments.
var commentHeading = regexp.MustCompile(`^(\d+|one|no)\s+(comments?|responses?|replies|thoughts?|reactions?|kommentare?|commentaires?|comentários?|comentarios?|commenti|reacties)\b|` +
	`^(comments?|responses?|reader comments|discussion|leave a (reply|comment)|leave a comment|join the (discussion|conversation)|kommentare?|commentaires?|comentários?|comentarios?|commenti|reacties)\b`)

// dateText matches a date or an age written out ("May 3, 2026",
// "3. Mai 2026", "2026-05-03", "03.05.2026", "2 days ago").
var dateText = regexp.MustCompile(`\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b|` +
	`\b(` + strings.Join(dateMonths, "|") + `)[a-zéû]*\.?\s+\d{1,2}\b|` +
	`\b\d{1,2}\.?\s+(` + strings.Join(dateMonths, "|") + `)|` +
	`\b\d+\s+(seconds?|minutes?|hours?|days?|weeks?|months?|years?)\s+ago\b`)

// dateMonths are the month names dateText knows.
var dateMonths = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec", "mär", "mai", "okt", "dez", "janv", "févr", "avr", "juil", "déc"}

// mayHoldDate is a necessary condition for dateText to match low, far
// cheaper than the regexp: most short texts holding a digit (counts,
// prices, versions, addresses) fail it. Each branch of dateText needs
// one of: at the start of a word, four digits, '-', one or two digits,
// '-' and a digit; at the start of a word, one or two digits, '.' or
// '/', one or two digits, '.' or '/' and two digits; or a digit beside
// whitespace (\s: \t \n \f \r space; perhaps a dot between) together
// with a month name at the start of a word, or "ago" after whitespace.
func mayHoldDate(low []byte) bool {
	spaced := false
	for a, c := range low {
		if !isDigit(c) {
			continue
		}
		if a > 0 && reSpace(low[a-1]) || a+1 < len(low) && reSpace(low[a+1]) || a+2 < len(low) && low[a+1] == '.' && reSpace(low[a+2]) {
			spaced = true
		}
		if a > 0 && reWord(low[a-1]) {
			continue // not the start of a word: \b fails
		}
		r := digitRun(low, a)
		k := a + r
		if k+1 >= len(low) {
			continue
		}
		switch sep := low[k]; {
		case r == 4 && sep == '-':
			r2 := digitRun(low, k+1)
			k2 := k + 1 + r2
			if 1 <= r2 && r2 <= 2 && k2+1 < len(low) && low[k2] == '-' && isDigit(low[k2+1]) {
				return true
			}
		case r <= 2 && (sep == '.' || sep == '/'):
			r2 := digitRun(low, k+1)
			k2 := k + 1 + r2
			if 1 <= r2 && r2 <= 2 && k2+1 < len(low) && (low[k2] == '.' || low[k2] == '/') && digitRun(low, k2+1) >= 2 {
				return true
			}
		}
	}
	if !spaced {
		return false
	}
	for _, mo := range dateMonths {
		if wordStartAt(low, mo) {
			return true
		}
	}
	for k := 0; ; {
		j := bytes.Index(low[k:], []byte("ago"))
		if j < 0 {
			return false
		}
		if k+j > 0 && reSpace(low[k+j-1]) {
			return true
		}
		k += j + 1
	}
}

// digitRun counts the digits of b from i.
func digitRun(b []byte, i int) int {
	n := 0
	for i+n < len(b) && isDigit(b[i+n]) {
		n++
	}
	return n
}

// wordStartAt reports whether w occurs in low at the start of a word:
// at the start of low or after a byte that is not a regexp word
// character (\w: [0-9A-Za-z_]), as \b before a letter requires.
func wordStartAt(low []byte, w string) bool {
	for k := 0; ; {
		j := bytes.Index(low[k:], []byte(w))
		if j < 0 {
			return false
		}
		if k+j == 0 || !reWord(low[k+j-1]) {
			return true
		}
		k += j + 1
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// reWord reports whether c is in the regexp class \w.
func reWord(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
}

// reSpace reports whether c is in the regexp class \s.
func reSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// threadMarks fills the prefix sums of the marks of thread entries over
// pre-order: dates (a <time> element or a short text holding a date),
// replies (a short text that is a reply word) and authors (a <cite>, an
// element marked rel/itemprop author, or a text ending "says:").
func (m *mainExtractor) threadMarks() {
	x := m.x
	n := len(x.nodes)
	m.dates = zeroed(&x.scratch.dates, n+1)
	m.replies = zeroed(&x.scratch.replies, n+1)
	m.authors = zeroed(&x.scratch.authors, n+1)
	// lowBuf holds the lower-cased text of a short text node: lowering
	// it here spares a string per text node.
	var lowBuf [80]byte
	for i := 0; i < n; i++ {
		m.dates[i+1], m.replies[i+1], m.authors[i+1] = m.dates[i], m.replies[i], m.authors[i]
		if x.hidden[i] {
			continue
		}
		nd := x.nodes[i]
		switch nd.Kind {
		case ElementNode:
			switch {
			case nd.Tag == "time":
				m.dates[i+1]++
			case nd.Tag == "cite" || strings.EqualFold(nd.Attr("rel"), "author") || strings.EqualFold(nd.Attr("itemprop"), "author"):
				m.authors[i+1]++
			}
		case TextNode:
			t := bytes.TrimSpace(x.text[x.textOff[i]:x.textOff[i+1]])
			if len(t) == 0 || len(t) > 80 {
				continue
			}
			low := appendLower(lowBuf[:0], t)
			if replyWords[string(low)] {
				m.replies[i+1]++
			}
			if bytes.HasSuffix(low, []byte(" says:")) || bytes.HasSuffix(low, []byte(" said:")) || bytes.HasSuffix(low, []byte(" wrote:")) {
				m.authors[i+1]++
			}
			if bytes.ContainsAny(t, "0123456789") && mayHoldDate(low) && dateText.Match(low) {
				m.dates[i+1]++
			}
		}
	}
}

// commentThread reports whether element i is a thread of comments: two
// or more of its child elements are entries under threadMaxItemRunes
// with a date and a reply link, and such entries (short or holding
// their replies) hold 60 % of its text; or, under
// a heading that counts or invites comments (before i or its first
// child), each with a date, an author or a reply link. Memoised.
func (m *mainExtractor) commentThread(i int32) bool {
	if m.thread == nil {
		m.thread = make([]int8, len(m.x.nodes))
	}
	if v := m.thread[i]; v != 0 {
		return v > 0
	}
	r := m.isThread(i)
	m.thread[i] = -1
	if r {
		m.thread[i] = 1
	}
	return r
}

func (m *mainExtractor) isThread(i int32) bool {
	x := m.x
	nd := x.nodes[i]
	if nd.Kind != ElementNode || x.hidden[i] || len(nd.Children) < 2 {
		return false
	}
	total := m.runes(span{i, x.end[i]})
	if total == 0 {
		return false
	}
	strong, weak, inStrong, inWeak := 0, 0, 0, 0
	first := int32(-1)
	for j := i + 1; j < x.end[i]; j = x.end[j] {
		if x.nodes[j].Kind != ElementNode || x.hidden[j] {
			continue
		}
		if first < 0 {
			first = j
		}
		s := span{j, x.end[j]}
		r := m.runes(s)
		if r == 0 {
			continue
		}
		// An entry holding the replies to it (a nested thread) may be
		// long: it counts for the share, not as one of the two short
		// entries a thread needs.
		short := r <= threadMaxItemRunes
		date, reply, author := sum(m.dates, s) > 0, sum(m.replies, s) > 0, sum(m.authors, s) > 0
		if date && reply {
			if short {
				strong++
			}
			inStrong += r
		}
		if date || reply || author {
			if short {
				weak++
			}
			inWeak += r
		}
	}
	if strong >= 2 && 10*inStrong >= 6*total {
		return true
	}
	if weak < 2 || 10*inWeak < 6*total {
		return false
	}
	if first >= 0 && m.isCommentHeading(first) {
		return true
	}
	// the heading just before i, among its siblings
	prev := m.prevSibling(i)
	for prev >= 0 && (x.nodes[prev].Kind != ElementNode || x.hidden[prev] || m.runes(span{prev, x.end[prev]}) == 0) {
		prev = m.prevSibling(prev)
	}
	return prev >= 0 && m.isCommentHeading(prev)
}

// prevSibling returns the sibling node before node i, or -1: the
// ancestor of node i-1 (the last node before i in pre-order) that is a
// child of i's parent. It costs the depth, not the number of siblings.
func (m *mainExtractor) prevSibling(i int32) int32 {
	p, ok := m.parentIndex(i)
	if !ok || i-1 == p {
		return -1
	}
	j := i - 1
	for {
		q, ok := m.parentIndex(j)
		if !ok {
			return -1
		}
		if q == p {
			return j
		}
		j = q
	}
}

// isCommentHeading reports whether element j is a heading (h1-h6, or an
// element holding one and nothing else) whose text counts or invites
// comments.
func (m *mainExtractor) isCommentHeading(j int32) bool {
	x := m.x
	s := span{j, x.end[j]}
	if sum(x.cumHeadings, s) == 0 || m.runes(s) > 80 {
		return false
	}
	t := strings.ToLower(strings.TrimSpace(x.spanText(s)))
	return commentHeading.MatchString(t)
}

// inThread reports whether element i is or lies inside a comment
// thread (commentThread).
func (m *mainExtractor) inThread(i int32) bool {
	for p, ok := i, true; ok; p, ok = m.parentIndex(p) {
		if m.commentThread(p) {
			return true
		}
	}
	return false
}

// appendLower appends strings.ToLower(s) to dst without making the
// string: A-Z byte by byte, and beyond ASCII rune by rune as
// strings.Map does it (unicode.ToLower; U+FFFD for a byte that is not
// UTF-8).
func appendLower[T string | []byte](dst []byte, s T) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, size := decodeRuneAt(s, i)
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
		i += size
	}
	return dst
}
