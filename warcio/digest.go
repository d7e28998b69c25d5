package warcio

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"strings"
)

// digester hashes a block as it streams past and finds the end of an HTTP
// header inside it with a small state machine, so the payload digest needs
// no buffering. One digester is reused for every record of a Reader.
type digester struct {
	block, payload       hash.Hash // SHA-1
	block256, payload256 hash.Hash // SHA-256, only when declared

	declBlock, declPayload string
	want256Block, want256P bool

	http      bool  // application/http block: look for the header end
	inPayload bool  // header end found
	state     uint8 // 0 in line, 1 after LF, 2 after LF CR
	seen      int   // header bytes scanned so far
	maxHeader int
	clipped   bool // block length was corrected: declared digests do not apply
	revisit   bool // a revisit's payload digest names the original's payload
	abandoned bool
	// blockN and payloadN count the bytes hashed, so that a consumer can
	// tell which bytes a digest covers (Digests.BlockLen, PayloadLen).
	blockN, payloadN int64
}

func (d *digester) reset(rec *Record) {
	if d.block == nil {
		d.block, d.payload = sha1.New(), sha1.New()
	}
	d.block.Reset()
	d.payload.Reset()
	d.declBlock = rec.Header.Get("WARC-Block-Digest")
	d.declPayload = rec.Header.Get("WARC-Payload-Digest")
	d.want256Block = is256(d.declBlock)
	d.want256P = is256(d.declPayload)
	if d.want256Block || d.want256P {
		if d.block256 == nil {
			d.block256, d.payload256 = sha256.New(), sha256.New()
		}
		d.block256.Reset()
		d.payload256.Reset()
	}
	ct := strings.ToLower(rec.Header.Get("Content-Type"))
	d.http = strings.HasPrefix(ct, "application/http")
	if rec.Format == FormatARC {
		d.http = rec.Type == "response" && strings.HasPrefix(strings.ToLower(rec.TargetURI), "http")
	}
	d.inPayload, d.state, d.seen, d.clipped, d.abandoned = false, 0, 0, false, false
	d.blockN, d.payloadN = 0, 0
	d.revisit = rec.Type == "revisit"
	d.maxHeader = 1 << 20
}

func is256(decl string) bool {
	alg, _, _ := strings.Cut(decl, ":")
	alg = strings.ToLower(strings.ReplaceAll(strings.TrimSpace(alg), "-", ""))
	return alg == "sha256"
}

func (d *digester) write(p []byte) {
	d.block.Write(p)
	d.blockN += int64(len(p))
	if d.want256Block {
		d.block256.Write(p)
	}
	if !d.http {
		return
	}
	if !d.inPayload {
		i := d.headerEnd(p)
		if i < 0 {
			return
		}
		p = p[i:]
	}
	d.payload.Write(p)
	d.payloadN += int64(len(p))
	if d.want256P {
		d.payload256.Write(p)
	}
}

// headerEnd scans for the blank line ending an HTTP header (CRLFCRLF, or
// LFLF from broken writers) and returns the index after it in p, or -1.
func (d *digester) headerEnd(p []byte) int {
	for i, c := range p {
		switch c {
		case '\n':
			if d.state != 0 {
				d.inPayload = true
				return i + 1
			}
			d.state = 1
		case '\r':
			if d.state == 1 {
				d.state = 2
			} else if d.state == 2 {
				d.state = 0
			}
		default:
			d.state = 0
		}
	}
	d.seen += len(p)
	if d.seen > d.maxHeader {
		d.http = false // no header end within bounds: no payload
	}
	return -1
}

func (d *digester) abandon() { d.abandoned = true }

func (d *digester) sum() Digests {
	var g Digests
	if d.abandoned {
		return g
	}
	g.BlockSHA1, g.BlockLen, g.PayloadLen = d.block.Sum(nil), d.blockN, -1
	if d.http && d.inPayload {
		g.PayloadSHA1, g.PayloadLen = d.payload.Sum(nil), d.payloadN
	}
	if d.clipped {
		return g
	}
	var b256, p256 []byte
	if d.want256Block {
		b256 = d.block256.Sum(nil)
	}
	if d.want256P && d.http && d.inPayload {
		p256 = d.payload256.Sum(nil)
	}
	g.BlockMatch = compareDigest(d.declBlock, g.BlockSHA1, b256)
	if d.http && d.inPayload && !d.revisit {
		g.PayloadMatch = compareDigest(d.declPayload, g.PayloadSHA1, p256)
	}
	return g
}

// compareDigest checks a declared "algorithm:value" digest against the
// computed SHA-1 or SHA-256; the value may be base32 (any case), hex or
// base64 (standard or URL alphabet, padded or not).
func compareDigest(decl string, s1, s256 []byte) Match {
	alg, val, ok := strings.Cut(strings.TrimSpace(decl), ":")
	if !ok {
		return MatchUnknown
	}
	var want []byte
	switch strings.ToLower(strings.ReplaceAll(strings.TrimSpace(alg), "-", "")) {
	case "sha1":
		want = s1
	case "sha256":
		want = s256
	}
	if want == nil {
		return MatchUnknown
	}
	got := decodeDigest(strings.TrimSpace(val), len(want))
	if got == nil {
		return MatchMismatch
	}
	if bytes.Equal(got, want) {
		return MatchOK
	}
	return MatchMismatch
}

func decodeDigest(v string, size int) []byte {
	try := func(b []byte, err error) []byte {
		if err == nil && len(b) == size {
			return b
		}
		return nil
	}
	if len(v) == hex.EncodedLen(size) {
		if b := try(hex.DecodeString(v)); b != nil {
			return b
		}
	}
	if b := try(base32.StdEncoding.DecodeString(strings.ToUpper(v))); b != nil {
		return b
	}
	if b := try(base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(v))); b != nil {
		return b
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if b := try(enc.DecodeString(v)); b != nil {
			return b
		}
	}
	return nil
}
