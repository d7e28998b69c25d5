package hdrcodec

import (
	"crypto/sha1"
	"crypto/sha256"
	"time"
)

// Context holds the facts about a record that the caller knows again when
// it restores the header, so that fields equal to them need not be stored.
// Encode and Decode must be given the same Context for the same block; a
// fact the caller cannot supply at restore time must be left unknown at
// encode time too.
type Context struct {
	// BlockLen is the length of the record block (a WARC header's
	// Content-Length); negative when unknown. Note that 0 is a known length.
	BlockLen int64
	// PayloadLen is the length of the bytes after the HTTP header in the
	// block (an HTTP header's Content-Length when not chunked); negative
	// when unknown.
	PayloadLen int64
	// Block and Payload are the digests of the block and of the HTTP
	// payload (the block minus the HTTP header); nil digests are unknown.
	// A field "label:text" whose text spells one of them (base32, base16
	// or base64, either case, padded or not) is stored as a reference,
	// whatever the field's name. For a revisit record, Payload may hold the
	// digests of the payload it refers to, which its WARC-Payload-Digest
	// names.
	Block, Payload Digests
	// Date is the capture time; dates in the header are stored as a
	// difference from it. Zero when unknown.
	Date time.Time
	// URL is the target URI as stored, without angle brackets; "" when
	// unknown.
	URL string
	// Refs are values (typically record ids: the warcinfo record's id named
	// by WARC-Warcinfo-ID, the request's id named by WARC-Concurrent-To) that
	// the caller can name again at restore time; a field value equal to
	// Refs[i] is stored as i.
	Refs []string
}

// Unknown returns a Context that knows nothing: with it every field is
// stored as an edit of prev or literally.
func Unknown() Context { return Context{BlockLen: -1, PayloadLen: -1} }

// Digests of one byte string; a nil slice is an unknown digest. Sum's
// digests are computed when the codec first asks for them: most headers
// name one algorithm (wget and Heritrix write SHA-1), and the codec asks
// only for those a field spells.
type Digests struct {
	SHA1, SHA256, SHA512, MD5 []byte
	// of is the byte string Sum was given, hashed on first use.
	of   []byte
	lazy bool
}

// Sum returns the SHA-1 and SHA-256 of b, the algorithms WARC writers
// use, computed on first use: b must not change while the Digests are in
// use.
func Sum(b []byte) Digests { return Digests{of: b, lazy: true} }

// ForBlock returns a Context with the lengths and SHA-1/SHA-256 digests of
// block, whose HTTP header (if any) is its first httpHeaderLen bytes
// (negative when the block is not HTTP, then payload facts stay unknown).
func ForBlock(block []byte, httpHeaderLen int) Context {
	c := Unknown()
	c.BlockLen = int64(len(block))
	c.Block = Sum(block)
	if httpHeaderLen >= 0 && httpHeaderLen <= len(block) {
		p := block[httpHeaderLen:]
		c.PayloadLen = int64(len(p))
		c.Payload = Sum(p)
	}
	return c
}

func (d *Digests) get(alg digestAlg) []byte {
	switch alg {
	case algSHA1:
		if d.SHA1 == nil && d.lazy {
			s := sha1.Sum(d.of)
			d.SHA1 = s[:]
		}
		return d.SHA1
	case algSHA256:
		if d.SHA256 == nil && d.lazy {
			s := sha256.Sum256(d.of)
			d.SHA256 = s[:]
		}
		return d.SHA256
	case algSHA512:
		return d.SHA512
	case algMD5:
		return d.MD5
	}
	return nil
}
