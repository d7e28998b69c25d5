package export

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxQuery is warcio.js's DEFAULT_MAX_QUERY_SIZE.
const maxQuery = 4096

// postQuery returns the query to append to the URL (already through
// decodeURI) and the request body as reported in requestBody.
func postQuery(req *summary) (query, requestBody string) {
	ct := req.httpCT
	mime, _, _ := strings.Cut(ct, ";")
	var q string
	switch mime {
	case "application/x-www-form-urlencoded":
		q = decodeUTF8(req.body)
	case "application/json":
		q = jsonToQuery(decodeUTF8(req.body))
	case "text/plain":
		q = jsonToQuery(decodeUTF8(req.body))
	case "multipart/form-data":
		q = multipartToQuery(decodeUTF8(req.body), ct)
	default:
		q = "__wb_post_data=" + base64.StdEncoding.EncodeToString(req.body)
	}
	q = truncateUTF16(q, maxQuery)
	requestBody = q
	dq, ok := decodeURI(q)
	if !ok {
		dq = ""
	}
	return dq, requestBody
}

// decodeUTF8 decodes bytes as TextDecoder does: invalid sequences become
// U+FFFD.
func decodeUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func truncateUTF16(s string, n int) string {
	units := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > n {
			// Where JavaScript would keep half a surrogate pair, drop it.
			return s[:i]
		}
		units += w
	}
	return s
}

// decodeURI is JavaScript's decodeURI: %XX escapes are decoded unless they
// encode one of ;/?:@&=+$,# ; a malformed escape fails.
func decodeURI(s string) (string, bool) {
	if strings.IndexByte(s, '%') < 0 {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '%' {
			b.WriteByte(s[i])
			i++
			continue
		}
		start := i
		c, ok := unescapeAt(s, i)
		if !ok {
			return "", false
		}
		i += 3
		if c < 0x80 {
			if strings.IndexByte(";/?:@&=+$,#", c) >= 0 {
				b.WriteString(s[start:i])
			} else {
				b.WriteByte(c)
			}
			continue
		}
		n := 0
		switch {
		case c&0xE0 == 0xC0:
			n = 1
		case c&0xF0 == 0xE0:
			n = 2
		case c&0xF8 == 0xF0:
			n = 3
		default:
			return "", false
		}
		seq := []byte{c}
		for k := 0; k < n; k++ {
			cc, ok := unescapeAt(s, i)
			if !ok || cc&0xC0 != 0x80 {
				return "", false
			}
			seq = append(seq, cc)
			i += 3
		}
		r, size := utf8.DecodeRune(seq)
		if r == utf8.RuneError || size != len(seq) {
			return "", false
		}
		b.Write(seq)
	}
	return b.String(), true
}

func unescapeAt(s string, i int) (byte, bool) {
	if i+2 >= len(s) || s[i] != '%' {
		return 0, false
	}
	v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
	if err != nil {
		return 0, false
	}
	return byte(v), true
}

// searchParams is an ordered URLSearchParams.
type searchParams struct {
	keys []string
	vals map[string]string
}

func (p *searchParams) has(k string) bool { _, ok := p.vals[k]; return ok }

func (p *searchParams) set(k, v string) {
	if p.vals == nil {
		p.vals = map[string]string{}
	}
	if !p.has(k) {
		p.keys = append(p.keys, k)
	}
	p.vals[k] = v
}

// String serialises as application/x-www-form-urlencoded, like
// URLSearchParams.toString.
func (p *searchParams) String() string {
	var b strings.Builder
	for i, k := range p.keys {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(formEncode(k))
		b.WriteByte('=')
		b.WriteString(formEncode(p.vals[k]))
	}
	return b.String()
}

func formEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '*', c == '-', c == '.', c == '_':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// jsonToQuery flattens a JSON document into query parameters as
// warcio.js jsonToQueryParams does: leaves keyed by their nearest object
// key, repeated keys renamed "key.2_", "key.3_"…; invalid JSON gives "".
func jsonToQuery(s string) string {
	var v any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return ""
	}
	if _, err := dec.Token(); err != io.EOF {
		return "" // trailing garbage: JSON.parse fails
	}
	p := &searchParams{}
	dupes := map[string]int{}
	getKey := func(k string) string {
		if !p.has(k) {
			return k
		}
		if _, ok := dupes[k]; !ok {
			dupes[k] = 1
		}
		dupes[k]++
		return k + "." + strconv.Itoa(dupes[k]) + "_"
	}
	var walk func(v any, key string)
	walk = func(v any, key string) {
		val := ""
		switch t := v.(type) {
		case *orderedObject:
			for i, k := range t.keys {
				walk(t.vals[i], k)
			}
		case nil:
			val = "null"
		case []any:
			for _, e := range t {
				walk(e, key)
			}
		case string:
			val = t
		case json.Number:
			val = jsNumber(t)
		case bool:
			val = strconv.FormatBool(t)
		}
		if val != "" {
			p.set(getKey(key), val)
		}
	}
	walk(v, "")
	return p.String()
}

type orderedObject struct {
	keys []string
	vals []any
}

// decodeOrdered decodes one JSON value keeping object keys in the order
// JavaScript enumerates them (integer keys first, ascending; then the others
// in insertion order; a repeated key keeps its first position, last value).
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &orderedObject{}
			idx := map[string]int{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				if i, ok := idx[k]; ok {
					o.vals[i] = v
					continue
				}
				idx[k] = len(o.keys)
				o.keys = append(o.keys, k)
				o.vals = append(o.vals, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			orderJSKeys(o)
			return o, nil
		case '[':
			var a []any
			for dec.More() {
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			if a == nil {
				a = []any{}
			}
			return a, nil
		}
	}
	return tok, nil
}

func orderJSKeys(o *orderedObject) {
	isIndex := func(k string) (uint64, bool) {
		if k == "" || (len(k) > 1 && k[0] == '0') {
			return 0, false
		}
		n, err := strconv.ParseUint(k, 10, 32)
		return n, err == nil && n < math.MaxUint32
	}
	type kv struct {
		k string
		v any
	}
	var ints, rest []kv
	for i, k := range o.keys {
		if _, ok := isIndex(k); ok {
			ints = append(ints, kv{k, o.vals[i]})
		} else {
			rest = append(rest, kv{k, o.vals[i]})
		}
	}
	if len(ints) == 0 {
		return
	}
	sort.SliceStable(ints, func(i, j int) bool {
		a, _ := isIndex(ints[i].k)
		b, _ := isIndex(ints[j].k)
		return a < b
	})
	o.keys, o.vals = o.keys[:0], o.vals[:0]
	for _, e := range append(ints, rest...) {
		o.keys = append(o.keys, e.k)
		o.vals = append(o.vals, e.v)
	}
}

// jsNumber formats a JSON number as JavaScript's Number#toString.
func jsNumber(n json.Number) string {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return string(n)
	}
	if f == 0 {
		return "0"
	}
	abs := math.Abs(f)
	if abs >= 1e21 || abs < 1e-6 {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		mant, exp, _ := strings.Cut(s, "e")
		if exp[0] == '+' {
			return mant + "e+" + strings.TrimLeft(exp[1:], "0")
		}
		return mant + "e-" + strings.TrimLeft(exp[1:], "0")
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// multipartToQuery is warcio.js mfdToQueryParams: each part's name and the
// first line of its value.
func multipartToQuery(body, contentType string) string {
	_, boundary, ok := strings.Cut(contentType, "boundary=")
	if !ok {
		return ""
	}
	if i := strings.Index(boundary, "boundary="); i >= 0 {
		boundary = boundary[:i]
	}
	re, err := regexp.Compile("(?mi)-*" + regexp.QuoteMeta(boundary) + "-*")
	if err != nil {
		return ""
	}
	p := &searchParams{}
	for _, part := range re.Split(body, -1) {
		m := partRE.FindStringSubmatch(strings.TrimSpace(part))
		if m != nil {
			p.set(m[1], m[2])
		}
	}
	return p.String()
}

var partRE = regexp.MustCompile(`(?im)name="([^"]+)"\r\n\r\n([^\r\n\x{2028}\x{2029}]*)`)
