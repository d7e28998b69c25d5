package dedupe

import (
	"bytes"
	"hash/crc32"
)

// checkRecord says whether v, with its objects from p, restores to
// rawHeader and block: store's check of a modelled record. Tests
// replace it (restoresTo against the restore it stands for).
var checkRecord = restoresTo

// restoresTo is restore(v, p.get) followed by the comparison of its WARC
// header and block with rawHeader and block, with the same answer, but
// compares the restored pieces (payload, layout gaps and blocks, HTTP
// header) with block where they belong instead of building the payload
// and the block anew: at ingest every record is checked, and the copies
// were a tenth of the fast tier's CPU. Where a piece matches, block's
// own bytes stand for it: equal bytes decode and digest the same.
func restoresTo(v *Version, p *plan, rawHeader, block []byte) bool {
	get := p.get
	switch v.Mode {
	case modeBlock:
		blk, err := get(v.Block)
		if err != nil || !bytes.Equal(blk, block) {
			return false
		}
		return headerRestores(v, p, rawHeader, block, -1)
	case modeHTTP:
		payload, ok := payloadRestores(v, get, block)
		if !ok {
			return false
		}
		hh, err := p.decodeHeader(v.HTTPHeader, v.HTTPAnchor, httpContext(v, payload))
		if err != nil || len(hh)+len(payload) != len(block) || !bytes.Equal(hh, block[:len(hh)]) {
			return false
		}
		return headerRestores(v, p, rawHeader, block, len(hh))
	}
	got, err := restore(v, get)
	return err == nil && bytes.Equal(got.WARCHeader, rawHeader) && bytes.Equal(got.Block, block)
}

// headerRestores finishes restoresTo once the restored block is known
// to be block: the WARC header decoded against it must be rawHeader,
// and the record's CRC-32C (restoreKnown's check) v.CRC.
func headerRestores(v *Version, p *plan, rawHeader, block []byte, httpLen int) bool {
	h, err := p.decodeHeader(v.WARCHeader, v.WARCAnchor, warcContext(v, block, httpLen))
	if err != nil || !bytes.Equal(h, rawHeader) {
		return false
	}
	c := crc32.Checksum(rawHeader, castagnoli)
	c = crc32.Update(c, castagnoli, block)
	return crc32.Update(c, castagnoli, v.Trailer) == v.CRC
}

// payloadRestores restores v's HTTP payload as restorePayload does and
// returns it when it ends block: block's own tail, compared piece by
// piece, for a payload stored as layout and blocks with neither coding
// nor framing.
func payloadRestores(v *Version, get getter, block []byte) ([]byte, bool) {
	if v.Form == formWhole || v.Coding != nil || v.Framing != nil {
		payload, err := restorePayload(v, get, &Parts{})
		if err != nil || len(payload) > len(block) || !bytes.Equal(payload, block[len(block)-len(payload):]) {
			return nil, false
		}
		return block[len(block)-len(payload):], true
	}
	l, blocks, err := layoutBlocks(v, get)
	if err != nil {
		return nil, false
	}
	if len(l.Gaps) == 0 && len(blocks) == 0 {
		return block[len(block):], true // Reassemble's empty document
	}
	if len(blocks) != len(l.Gaps)-1 {
		return nil, false // Reassemble's error
	}
	n := 0
	for _, g := range l.Gaps {
		n += len(g)
	}
	for _, b := range blocks {
		n += len(b)
	}
	if n > len(block) {
		return nil, false
	}
	payload := block[len(block)-n:]
	rest := payload
	piece := func(b []byte) bool {
		if !bytes.Equal(b, rest[:len(b)]) {
			return false
		}
		rest = rest[len(b):]
		return true
	}
	for i, b := range blocks {
		if !piece(l.Gaps[i]) || !piece(b) {
			return nil, false
		}
	}
	if !piece(l.Gaps[len(l.Gaps)-1]) {
		return nil, false
	}
	return payload, true
}
