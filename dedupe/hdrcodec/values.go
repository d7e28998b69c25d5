package hdrcodec

import (
	"bytes"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"time"
)

// ---- digests ----

type digestAlg uint8

const (
	algUnknown digestAlg = iota
	algSHA1
	algSHA256
	algSHA512
	algMD5
)

// digestLabels are the algorithm labels stored as a table index; any other
// label is stored literally. Part of format v1: append only.
var digestLabels = []string{
	"sha1", "sha256", "sha-1", "sha-256", "SHA-1", "SHA-256", "SHA1", "SHA256",
	"md5", "MD5", "sha512", "sha-512", "SHA-512",
}

// algOf maps a label to its algorithm, ignoring case and '-'.
func algOf(label []byte) digestAlg {
	var b [8]byte
	n := 0
	for _, c := range label {
		if c == '-' || c == '_' {
			continue
		}
		if n == len(b) {
			return algUnknown
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[n] = c
		n++
	}
	switch string(b[:n]) {
	case "sha1":
		return algSHA1
	case "sha256":
		return algSHA256
	case "sha512":
		return algSHA512
	case "md5":
		return algMD5
	}
	return algUnknown
}

// Digest text encodings, numbered as stored.
const (
	encB32 = iota
	encB32Raw
	encB32Lower
	encB32LowerRaw
	encHexLower
	encHexUpper
	encB64
	encB64Raw
	encB64URL
	encB64URLRaw
	numDigestEncodings
)

func appendDigestText(dst []byte, enc int, d []byte) []byte {
	switch enc {
	case encB32, encB32Lower:
		dst = base32.StdEncoding.AppendEncode(dst, d)
	case encB32Raw, encB32LowerRaw:
		dst = base32.StdEncoding.WithPadding(base32.NoPadding).AppendEncode(dst, d)
	case encHexLower, encHexUpper:
		dst = hex.AppendEncode(dst, d)
	case encB64:
		return base64.StdEncoding.AppendEncode(dst, d)
	case encB64Raw:
		return base64.RawStdEncoding.AppendEncode(dst, d)
	case encB64URL:
		return base64.URLEncoding.AppendEncode(dst, d)
	case encB64URLRaw:
		return base64.RawURLEncoding.AppendEncode(dst, d)
	}
	return dst
}

// digestTextLen is the length appendDigestText produces for n bytes.
func digestTextLen(enc, n int) int {
	switch enc {
	case encB32, encB32Lower:
		return base32.StdEncoding.EncodedLen(n)
	case encB32Raw, encB32LowerRaw:
		return base32.StdEncoding.WithPadding(base32.NoPadding).EncodedLen(n)
	case encHexLower, encHexUpper:
		return 2 * n
	case encB64, encB64URL:
		return base64.StdEncoding.EncodedLen(n)
	case encB64Raw, encB64URLRaw:
		return base64.RawStdEncoding.EncodedLen(n)
	}
	return -1
}

// formatDigest appends the text of d in encoding enc, fixing letter case.
func formatDigest(dst []byte, enc int, d []byte) []byte {
	start := len(dst)
	dst = appendDigestText(dst, enc, d)
	switch enc {
	case encB32Lower, encB32LowerRaw:
		lower(dst[start:])
	case encHexUpper:
		upper(dst[start:])
	}
	return dst
}

func lower(b []byte) {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
}

func upper(b []byte) {
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - ('a' - 'A')
		}
	}
}

// ---- record ids ----

// UUID spellings: bit 0 set = wrapped in "<urn:uuid:...>", else "urn:uuid:...";
// bit 1 set = upper-case hex digits.
const (
	uuidBracket = 1 << 0
	uuidUpper   = 1 << 1
)

// parseUUID recognises "<urn:uuid:8-4-4-4-12>" and "urn:uuid:8-4-4-4-12" in
// one letter case. The caller checks the regenerated text.
func parseUUID(v []byte) (form byte, id [16]byte, ok bool) {
	s := v
	if len(s) == 47 && s[0] == '<' && s[46] == '>' {
		form |= uuidBracket
		s = s[1:46]
	}
	if len(s) != 45 || string(s[:9]) != "urn:uuid:" {
		return 0, id, false
	}
	s = s[9:]
	var hx [32]byte
	n := 0
	for i, c := range s {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return 0, id, false
			}
			continue
		}
		if 'A' <= c && c <= 'F' {
			form |= uuidUpper
		}
		hx[n] = c
		n++
	}
	if _, err := hex.Decode(id[:], hx[:]); err != nil {
		return 0, id, false
	}
	return form, id, true
}

func formatUUID(dst []byte, form byte, id []byte) []byte {
	if form&uuidBracket != 0 {
		dst = append(dst, '<')
	}
	dst = append(dst, "urn:uuid:"...)
	start := len(dst)
	var hx [32]byte
	hex.Encode(hx[:], id)
	dst = append(dst, hx[0:8]...)
	dst = append(dst, '-')
	dst = append(dst, hx[8:12]...)
	dst = append(dst, '-')
	dst = append(dst, hx[12:16]...)
	dst = append(dst, '-')
	dst = append(dst, hx[16:20]...)
	dst = append(dst, '-')
	dst = append(dst, hx[20:32]...)
	if form&uuidUpper != 0 {
		upper(dst[start:])
	}
	if form&uuidBracket != 0 {
		dst = append(dst, '>')
	}
	return dst
}

// ---- dates ----

// Date formats, numbered as stored.
const (
	dateISO     = iota // 2006-01-02T15:04:05Z (WARC-Date)
	dateISOFrac        // 2006-01-02T15:04:05.123Z (WARC/1.1), 1-9 digits
	dateRFC1123        // Mon, 02 Jan 2006 15:04:05 GMT (HTTP Date)
	dateRFC850         // Monday, 02-Jan-06 15:04:05 GMT
	dateANSIC          // Mon Jan  2 15:04:05 2006
	date14             // 20060102150405 (ARC, CDX)
	numDateFormats
)

var dateLayouts = [numDateFormats]string{
	dateISO:     "2006-01-02T15:04:05Z",
	dateISOFrac: "2006-01-02T15:04:05",
	dateRFC1123: "Mon, 02 Jan 2006 15:04:05 GMT",
	dateRFC850:  "Monday, 02-Jan-06 15:04:05 GMT",
	dateANSIC:   "Mon Jan _2 15:04:05 2006",
	date14:      "20060102150405",
}

// date is a parsed date value: whole seconds since the Unix epoch and, for
// dateISOFrac, the fraction as digits.
type date struct {
	format  int
	secs    int64
	ndigits int
	frac    uint64
}

// dateFormatFor guesses the one format v could be in, from its shape.
func dateFormatFor(v []byte) int {
	n := len(v)
	switch {
	case n == 20 && v[4] == '-' && v[10] == 'T' && v[19] == 'Z':
		return dateISO
	case n >= 22 && n <= 30 && v[4] == '-' && v[10] == 'T' && v[19] == '.' && v[n-1] == 'Z':
		return dateISOFrac
	case n == 29 && v[3] == ',':
		return dateRFC1123
	case n >= 30 && n <= 33 && bytes.IndexByte(v, ',') > 5:
		return dateRFC850
	case n == 24 && v[3] == ' ' && v[7] == ' ':
		return dateANSIC
	case n == 14 && allDigits(v):
		return date14
	}
	return -1
}

func allDigits(v []byte) bool {
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(v) > 0
}

// parseDate recognises v in one of the date formats, exactly: formatting the
// result gives v back byte for byte.
func parseDate(v []byte) (date, bool) {
	f := dateFormatFor(v)
	if f < 0 {
		return date{}, false
	}
	d := date{format: f}
	s := string(v)
	if f == dateISOFrac {
		d.ndigits = len(v) - 21
		fr, err := strconv.ParseUint(s[20:len(s)-1], 10, 64)
		if err != nil || !allDigits(v[20:len(v)-1]) {
			return date{}, false
		}
		d.frac = fr
		s = s[:19]
	}
	t, err := time.Parse(dateLayouts[f], s)
	if err != nil {
		return date{}, false
	}
	d.secs = t.Unix()
	var buf [40]byte
	if !bytes.Equal(formatDate(buf[:0], d), v) {
		return date{}, false
	}
	return d, true
}

func formatDate(dst []byte, d date) []byte {
	t := time.Unix(d.secs, 0).UTC()
	dst = t.AppendFormat(dst, dateLayouts[d.format])
	if d.format == dateISOFrac {
		dst = append(dst, '.')
		var digits [20]byte
		s := strconv.AppendUint(digits[:0], d.frac, 10)
		for i := len(s); i < d.ndigits; i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, s...)
		dst = append(dst, 'Z')
	}
	return dst
}

// ---- lengths ----

// isDecimal reports whether v spells n in canonical decimal.
func isDecimal(v []byte, n int64) bool {
	if n < 0 || len(v) == 0 || len(v) > 19 {
		return false
	}
	var buf [20]byte
	return bytes.Equal(strconv.AppendInt(buf[:0], n, 10), v)
}
