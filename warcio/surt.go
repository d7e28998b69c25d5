package warcio

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// SURT returns the sort-friendly key of uri used to group captures of one
// URL and to sort CDXJ indexes: "com,example)/path?a=1&b=2".
//
// It follows the key that webrecorder's warcio.js (cdx-index) and pywb write,
// so that our indexes and theirs agree line for line:
//
//   - only http: and https: URIs (scheme spelled in lower case) are
//     transformed; any other URI (dns:, filedesc:, urn:, metadata://, file:,
//     a bare host, "") is returned unchanged, as pywb does;
//   - a leading "www." (or www1., www2. …) is dropped, then the whole URI is
//     lower-cased — path and query too, as pywb does;
//   - the rest is parsed as the WHATWG URL Standard (browsers, Node) does:
//     userinfo dropped, host IDNA-mapped and IPv4 forms normalised, a default
//     port (80, 443) dropped and any other kept as ":port" after the host,
//     "." and ".." path segments resolved, unsafe bytes percent-encoded,
//     the fragment dropped;
//   - host labels are reversed and joined by commas, then ")" and the path;
//     query arguments (split on "&") are sorted byte-wise.
//
// A URI that does not parse (no host, a bad port) is returned with only the
// "www." prefix removed, again like warcio.js. Unlike the Python surt
// package, session ids and trailing "?" are not touched: agreement with the
// replay tools' CDXJ matters more than collapsing more URLs.
func SURT(uri string) string {
	if !strings.HasPrefix(uri, "http:") && !strings.HasPrefix(uri, "https:") {
		return uri
	}
	uri = stripWWW(uri)
	u, ok := parseSpecialURL(toLowerJS(uri))
	if !ok {
		return uri
	}
	var b strings.Builder
	b.Grow(len(uri) + 8)
	labels := strings.Split(u.host, ".")
	for i := len(labels) - 1; i >= 0; i-- {
		b.WriteString(labels[i])
		if i > 0 {
			b.WriteByte(',')
		}
	}
	if u.port != "" {
		b.WriteByte(':')
		b.WriteString(u.port)
	}
	b.WriteByte(')')
	b.WriteString(u.path)
	if u.query != "" {
		args := strings.Split(u.query, "&")
		sort.Strings(args)
		b.WriteByte('?')
		b.WriteString(strings.Join(args, "&"))
	}
	return b.String()
}

// stripWWW removes "www\d*." right after "http://" or "https://".
func stripWWW(uri string) string {
	var rest string
	switch {
	case strings.HasPrefix(uri, "http://"):
		rest = uri[len("http://"):]
	case strings.HasPrefix(uri, "https://"):
		rest = uri[len("https://"):]
	default:
		return uri
	}
	if !strings.HasPrefix(rest, "www") {
		return uri
	}
	i := 3
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	if i < len(rest) && rest[i] == '.' {
		return uri[:len(uri)-len(rest)] + rest[i+1:]
	}
	return uri
}

// toLowerJS lower-cases s after replacing invalid UTF-8 by U+FFFD, as a
// JavaScript string decoded from the header bytes would be.
func toLowerJS(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	var b strings.Builder
	for _, r := range s { // invalid bytes come out as utf8.RuneError
		b.WriteString(strings.ToLower(string(r)))
	}
	return b.String()
}

type specialURL struct {
	host, port, path, query string
}

// parseSpecialURL parses an http(s) URL per the WHATWG URL Standard far
// enough to serialise host, port, path and query the way Node does.
func parseSpecialURL(s string) (specialURL, bool) {
	var u specialURL
	s = strings.Trim(s, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	if strings.ContainsAny(s, "\t\n\r") {
		s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	}
	colon := strings.IndexByte(s, ':')
	if colon < 0 {
		return u, false
	}
	scheme := s[:colon]
	defaultPort := "80"
	if scheme == "https" {
		defaultPort = "443"
	} else if scheme != "http" {
		return u, false
	}
	rest := strings.TrimLeft(s[colon+1:], `/\`)

	// Authority ends at the first / \ ? or #.
	end := strings.IndexAny(rest, `/\?#`)
	if end < 0 {
		end = len(rest)
	}
	auth := rest[:end]
	rest = rest[end:]
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		auth = auth[at+1:]
	}
	hostPart, portPart := auth, ""
	inBrackets := false
	for i := 0; i < len(auth); i++ {
		switch auth[i] {
		case '[':
			inBrackets = true
		case ']':
			inBrackets = false
		case ':':
			if !inBrackets {
				hostPart, portPart = auth[:i], auth[i+1:]
				i = len(auth)
			}
		}
	}
	if hostPart == "" {
		return u, false
	}
	host, ok := parseHost(hostPart)
	if !ok {
		return u, false
	}
	u.host = host
	if portPart != "" {
		for i := 0; i < len(portPart); i++ {
			if portPart[i] < '0' || portPart[i] > '9' {
				return u, false
			}
		}
		trimmed := strings.TrimLeft(portPart, "0")
		if len(trimmed) > 5 {
			return u, false
		}
		n, _ := strconv.Atoi(trimmed)
		if n > 65535 {
			return u, false
		}
		if p := strconv.Itoa(n); p != defaultPort {
			u.port = p
		}
	}

	if h := strings.IndexByte(rest, '#'); h >= 0 {
		rest = rest[:h]
	}
	pathPart := rest
	if q := strings.IndexByte(rest, '?'); q >= 0 {
		pathPart = rest[:q]
		u.query = percentEncode(rest[q+1:], inQuerySet)
	}
	u.path = normalizePath(pathPart)
	return u, true
}

// normalizePath resolves dot segments and percent-encodes a special URL's
// path as the WHATWG path state does. p starts at the first / or \ (or is
// empty).
func normalizePath(p string) string {
	if p != "" && (p[0] == '/' || p[0] == '\\') {
		p = p[1:]
	}
	var segs []string
	for {
		i := strings.IndexAny(p, `/\`)
		seg, last := p, true
		if i >= 0 {
			seg, p, last = p[:i], p[i+1:], false
		}
		switch {
		case isDoubleDot(seg):
			if len(segs) > 0 {
				segs = segs[:len(segs)-1]
			}
			if last {
				segs = append(segs, "")
			}
		case isSingleDot(seg):
			if last {
				segs = append(segs, "")
			}
		default:
			segs = append(segs, percentEncode(seg, inPathSet))
		}
		if last {
			break
		}
	}
	return "/" + strings.Join(segs, "/")
}

func isSingleDot(s string) bool {
	return s == "." || strings.EqualFold(s, "%2e")
}

func isDoubleDot(s string) bool {
	switch strings.ToLower(s) {
	case "..", ".%2e", "%2e.", "%2e%2e":
		return true
	}
	return false
}

// inPathSet and inQuerySet are the WHATWG path and special-query
// percent-encode sets, for ASCII bytes (bytes >= 0x7F are always encoded).
func inPathSet(c byte) bool {
	return c <= 0x20 || c == '"' || c == '#' || c == '<' || c == '>' || c == '?' || c == '`' || c == '{' || c == '}' || c == 0x7f
}

func inQuerySet(c byte) bool {
	return c <= 0x20 || c == '"' || c == '#' || c == '<' || c == '>' || c == '\'' || c == 0x7f
}

func percentEncode(s string, in func(byte) bool) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || in(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || in(c) {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// parseHost applies the WHATWG host parser for special schemes.
func parseHost(h string) (string, bool) {
	if h[0] == '[' {
		if h[len(h)-1] != ']' {
			return "", false
		}
		return parseIPv6(h[1 : len(h)-1])
	}
	domain := percentDecode(h)
	if !utf8.ValidString(domain) {
		domain = strings.ToValidUTF8(domain, "\uFFFD")
	}
	ascii, ok := domainToASCII(domain)
	if !ok {
		return "", false
	}
	for i := 0; i < len(ascii); i++ {
		c := ascii[i]
		if c <= 0x20 || c == 0x7f || strings.IndexByte("#%/:<>?@[\\]^|", c) >= 0 {
			return "", false
		}
	}
	if endsInNumber(ascii) {
		return parseIPv4(ascii)
	}
	return ascii, true
}

var idnaProfile = idna.New(
	idna.MapForLookup(),
	idna.Transitional(false),
	idna.BidiRule(),
	idna.CheckJoiners(true),
	idna.StrictDomainName(false),
	idna.CheckHyphens(false),
	idna.VerifyDNSLength(false),
)

func domainToASCII(d string) (string, bool) {
	plain := true
	for i := 0; i < len(d); i++ {
		c := d[i]
		if c >= 0x80 || (c >= 'A' && c <= 'Z') {
			plain = false
			break
		}
	}
	if plain && !strings.Contains(d, "xn--") {
		return d, true
	}
	a, err := idnaProfile.ToASCII(d)
	if err != nil || a == "" {
		return "", false
	}
	return a, true
}

func percentDecode(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// endsInNumber reports whether the last label of a host is numeric, which
// makes the WHATWG parser read the host as an IPv4 address.
func endsInNumber(h string) bool {
	labels := strings.Split(h, ".")
	if labels[len(labels)-1] == "" {
		if len(labels) == 1 {
			return false
		}
		labels = labels[:len(labels)-1]
	}
	last := labels[len(labels)-1]
	if last != "" && strings.Trim(last, "0123456789") == "" {
		return true
	}
	if strings.HasPrefix(last, "0x") || strings.HasPrefix(last, "0X") {
		return strings.Trim(last[2:], "0123456789abcdefABCDEF") == ""
	}
	return false
}

func parseIPv4(h string) (string, bool) {
	parts := strings.Split(h, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return "", false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := parseIPv4Number(p)
		if !ok {
			return "", false
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return "", false
		}
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return "", false
	}
	ip := last
	for i, n := range nums[:len(nums)-1] {
		ip += n << (8 * (3 - i))
	}
	return strconv.FormatUint(ip>>24, 10) + "." + strconv.FormatUint(ip>>16&255, 10) + "." +
		strconv.FormatUint(ip>>8&255, 10) + "." + strconv.FormatUint(ip&255, 10), true
}

func parseIPv4Number(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
		p, base = p[2:], 16
	case len(p) >= 2 && p[0] == '0':
		p, base = p[1:], 8
	}
	if p == "" {
		return 0, true
	}
	n, err := strconv.ParseUint(p, base, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 1 << 40, true // too large: rejected by the caller
		}
		return 0, false
	}
	return n, true
}

// parseIPv6 parses the inside of [...] and serialises it as WHATWG does:
// lower-case hex, the first longest run of two or more zero pieces as "::",
// embedded IPv4 written as hex pieces.
func parseIPv6(s string) (string, bool) {
	var pieces [8]uint16
	idx, compress := 0, -1
	i := 0
	if strings.HasPrefix(s, ":") {
		if !strings.HasPrefix(s, "::") {
			return "", false
		}
		i = 2
		idx++
		compress = idx
	}
	for i < len(s) {
		if idx == 8 {
			return "", false
		}
		if s[i] == ':' {
			if compress >= 0 {
				return "", false
			}
			i++
			idx++
			compress = idx
			continue
		}
		val, n := 0, 0
		for n < 4 && i < len(s) && isHex(s[i]) {
			val = val<<4 | int(unhex(s[i]))
			i++
			n++
		}
		if i < len(s) && s[i] == '.' {
			if n == 0 || idx > 6 {
				return "", false
			}
			i -= n
			v4, ok := parseIPv6v4(s[i:])
			if !ok {
				return "", false
			}
			pieces[idx] = uint16(v4 >> 16)
			pieces[idx+1] = uint16(v4)
			idx += 2
			break
		}
		if i < len(s) {
			if s[i] != ':' {
				return "", false
			}
			i++
			if i == len(s) {
				return "", false
			}
		}
		pieces[idx] = uint16(val)
		idx++
	}
	if compress >= 0 {
		swaps := idx - compress
		idx = 7
		for idx != 0 && swaps > 0 {
			pieces[idx], pieces[compress+swaps-1] = pieces[compress+swaps-1], pieces[idx]
			idx--
			swaps--
		}
	} else if idx != 8 {
		return "", false
	}
	// Find the first longest run of zero pieces (length > 1).
	best, bestLen := -1, 1
	for j := 0; j < 8; {
		if pieces[j] != 0 {
			j++
			continue
		}
		k := j
		for k < 8 && pieces[k] == 0 {
			k++
		}
		if k-j > bestLen {
			best, bestLen = j, k-j
		}
		j = k
	}
	var b strings.Builder
	b.WriteByte('[')
	ignore0 := false
	for j := 0; j < 8; j++ {
		if ignore0 && pieces[j] == 0 {
			continue
		}
		ignore0 = false
		if j == best {
			if j == 0 {
				b.WriteString("::")
			} else {
				b.WriteByte(':')
			}
			ignore0 = true
			continue
		}
		b.WriteString(strconv.FormatUint(uint64(pieces[j]), 16))
		if j != 7 {
			b.WriteByte(':')
		}
	}
	b.WriteByte(']')
	return b.String(), true
}

func parseIPv6v4(s string) (uint32, bool) {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return 0, false
	}
	var v uint32
	for _, p := range parts {
		if p == "" || len(p) > 3 || (len(p) > 1 && p[0] == '0') || strings.Trim(p, "0123456789") != "" {
			return 0, false
		}
		n, _ := strconv.Atoi(p)
		if n > 255 {
			return 0, false
		}
		v = v<<8 | uint32(n)
	}
	return v, true
}
