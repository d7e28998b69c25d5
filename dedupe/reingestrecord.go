package dedupe

import (
	"bytes"
	"errors"
	"io"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/partition"
	"github.com/blockwarc/blockwarc/warcio"
)

// reingestRecord offers put every object the model can have cut the
// record of v into: the record whole (raw), its block, its headers as
// anchors, its payload whole and, for a page stored as blocks, the layout
// and blocks of its partition at the version's level, with prior as
// Prior and without. It returns the partition that gives v's layout (the
// next page's Prior).
func reingestRecord(v *Version, header, block []byte, prior *partition.Result, part *partition.Partitioner, sum func([]byte) pack.ID, put func(pack.Kind, []byte) error) (*partition.Result, error) {
	if v.Gap {
		return nil, put(pack.KindRecord, block)
	}
	if err := errors.Join(
		put(pack.KindRecord, append(bytes.Clone(header), block...)),
		put(pack.KindRecord, block),
		put(pack.KindWARCHeader, anchorObject(header)),
	); err != nil {
		return nil, err
	}
	m, httpLen := httpMessage(v.Type, block)
	if m == nil {
		return nil, nil
	}
	payload := block[httpLen:]
	if err := errors.Join(
		put(pack.KindHTTPHeader, anchorObject(block[:httpLen])),
		put(pack.KindPayload, payload),
	); err != nil {
		return nil, err
	}
	if v.Mode != modeHTTP || v.Form != formBlocks {
		return nil, nil
	}
	doc := payload
	if v.Framing != nil {
		dc, err := io.ReadAll(warcio.NewDechunker(bytes.NewReader(doc)))
		if err != nil {
			return nil, nil // not the payload ingest de-chunked: its ids will not match
		}
		doc = dc
	}
	if v.Coding != nil {
		cr, err := warcio.DecodeContent(bytes.NewReader(doc), m.ContentEncodings(), 0)
		if err != nil {
			return nil, nil
		}
		if doc, err = io.ReadAll(cr); err != nil {
			return nil, nil
		}
	}
	// Ingest partitioned with the URL's previous page as Prior; that page
	// may be unknown here (not read again), or the first of its run.
	tries := []*partition.Result{prior}
	if prior != nil {
		tries = append(tries, nil)
	}
	var found *partition.Result
	for _, pr := range tries {
		res, err := part.Partition(doc, storedPageOptions(m, v.Level, v.TargetURI, pr))
		if err != nil {
			continue
		}
		lay := res.Layout.Encode()
		for _, b := range res.Leaves {
			if err := put(pack.KindBlock, res.BlockBytes(b)); err != nil {
				return nil, err
			}
		}
		if err := put(pack.KindLayout, lay); err != nil {
			return nil, err
		}
		if found == nil {
			found = res
		}
		if sum(lay) == v.Layout {
			found = res
			break
		}
	}
	return found, nil
}
