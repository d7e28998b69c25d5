package hdrcodec

import "errors"

// Encoding kinds: the first byte of every encoding.
const (
	kindLiteral    = 0x00 // the raw bytes follow
	kindStructured = 0x01 // format v1: a flags byte, then line ops to the end
)

// Flags of a structured encoding.
const (
	flagDefaultLF = 1 << 0 // lines end in "\n" unless marked; else "\r\n"
)

// Line ops: the op byte is kind<<2 | ending. The ending bits say how the
// line produced by the op ends: endDefault (the block's default), endOther
// (the other one of CRLF/LF) or endNone. opCopy lines keep prev's endings
// and must carry endDefault.
const (
	opCopy      = 0 // uvarint n, varint delta: copy prev lines [cursor+delta, +n)
	opFieldRef  = 1 // varint delta: name and separator of prev line cursor+delta, then a value
	opFieldNew  = 2 // name, separator, then a value
	opRaw       = 3 // a value edited from prev line cursor (its whole content)
	opRawNoRef  = 4 // a value with no reference
	numLineOps  = 5
	endDefault  = 0
	endOther    = 1
	endNone     = 2
	opEndMask   = 3
	opKindShift = 2
)

// Value ops: the first byte of a value.
const (
	valLit        = 0 // uvarint len, bytes
	valSame       = 1 // the reference value
	valEdit       = 2 // uvarint prefix, uvarint suffix (kept from the reference), uvarint len, bytes between
	valBlockLen   = 3 // decimal Context.BlockLen
	valPayloadLen = 4 // decimal Context.PayloadLen
	valDigest     = 5 // byte src<<7|eq<<6|encoding, uvarint label (0: uvarint len, bytes; k: digestLabels[k-1])
	valUUID       = 6 // byte form, 16 bytes
	valRef        = 7 // uvarint i: Context.Refs[i]
	valDate       = 8 // byte format, byte base, varint delta seconds [, byte ndigits, uvarint fraction]
	valURL        = 9 // byte form: 0 bare, 1 in <>
)

// Date bases: what a stored date is a difference from.
const (
	baseEpoch   = 0 // the Unix epoch
	baseContext = 1 // Context.Date
	baseRef     = 2 // the date in the reference value (prev's field of that name)
	baseLast    = 3 // the previous date decoded in this block
	numBases    = 4
)

// Separators of a new field: sep byte 0 ": ", 1 ":", 2 uvarint len + bytes.
const (
	sepColonSpace = 0
	sepColon      = 1
	sepLiteral    = 2
)

// MaxDecoded caps the size of a block a structured encoding may produce.
// Encode stores larger blocks literally, so a structured encoding that
// expands beyond it is corrupt.
const MaxDecoded = 16 << 20

// fieldNames are names stored as a table index (uvarint k: fieldNames[k-1];
// 0: uvarint len + bytes). Part of format v1: append only.
var fieldNames = []string{
	// WARC
	"WARC-Type", "WARC-Record-ID", "WARC-Date", "Content-Length", "Content-Type",
	"WARC-Concurrent-To", "WARC-Block-Digest", "WARC-Payload-Digest",
	"WARC-IP-Address", "WARC-Refers-To", "WARC-Refers-To-Target-URI",
	"WARC-Refers-To-Date", "WARC-Target-URI", "WARC-Truncated",
	"WARC-Warcinfo-ID", "WARC-Filename", "WARC-Profile",
	"WARC-Identified-Payload-Type", "WARC-Segment-Number",
	"WARC-Segment-Origin-ID", "WARC-Segment-Total-Length", "WARC-Page-ID",
	"WARC-Resource-Type", "WARC-JSON-Metadata",
	// HTTP
	"Host", "User-Agent", "Accept", "Accept-Encoding", "Accept-Language",
	"Connection", "Server", "Date", "Content-type", "Last-Modified", "Expires",
	"Cache-Control", "ETag", "Location", "Set-Cookie", "Vary",
	"Transfer-Encoding", "Content-Encoding", "Age", "Pragma", "Referer",
	"Cookie", "Keep-Alive", "Accept-Ranges", "X-Powered-By",
	"Access-Control-Allow-Origin", "Content-Security-Policy",
	"Strict-Transport-Security", "X-Frame-Options", "X-Content-Type-Options",
	"X-XSS-Protection", "Link", "Via", "Upgrade-Insecure-Requests", "Origin",
	"If-Modified-Since", "If-None-Match", "Content-Language", "Content-Disposition",
	"Alt-Svc", "Report-To", "NEL", "Referrer-Policy", "Permissions-Policy",
	"X-Cache", "CF-RAY", "Content-Range",
	// HTTP/2 and HTTP/3 as recorded by browser-based crawlers
	"host", "user-agent", "accept", "accept-encoding", "accept-language",
	"connection", "server", "date", "content-type", "content-length",
	"last-modified", "expires", "cache-control", "etag", "location",
	"set-cookie", "vary", "content-encoding", "age", "pragma", "referer",
	"cookie", "accept-ranges", "x-powered-by", "access-control-allow-origin",
	"content-security-policy", "strict-transport-security", "x-frame-options",
	"x-content-type-options", "x-xss-protection", "link", "via", "origin",
	"alt-svc", "referrer-policy", "permissions-policy", "x-cache", "cf-ray",
	"sec-ch-ua", "sec-ch-ua-mobile", "sec-ch-ua-platform", "sec-fetch-site",
	"sec-fetch-mode", "sec-fetch-dest", "sec-fetch-user",
	"upgrade-insecure-requests", "priority",
}

// Sentinel errors of Decode.
var (
	// ErrCorrupt means the encoding is not one Encode produces: truncated,
	// damaged, or decoded against a different prev.
	ErrCorrupt = errors.New("hdrcodec: corrupt encoding")
	// ErrMissingContext means the encoding refers to a fact the Context
	// given to Decode does not hold: Decode was not given the Context that
	// Encode had.
	ErrMissingContext = errors.New("hdrcodec: encoding needs a fact the context lacks")
)
