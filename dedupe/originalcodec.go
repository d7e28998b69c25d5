package dedupe

// The member table's encoding in the catalog's input-file rows.

import (
	"encoding/binary"

	"github.com/blockwarc/blockwarc/dedupe/zlibenc"
)

// appendTo encodes the table (docs/FORMAT.md "Catalog root", version 8).
func (o *Original) appendTo(b []byte) []byte {
	b = o.appendRuns(b)
	if o.PerPiece {
		return append(b, 1)
	}
	return o.appendLens(append(b, 0))
}

// appendRuns writes the headers and runs of the table.
func (o *Original) appendRuns(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(o.Headers)))
	for _, h := range o.Headers {
		if h.SL {
			b = binary.AppendUvarint(b, uint64(h.slAt)+1)
		} else {
			b = append(b, 0)
		}
		b = appendString(b, string(h.Bytes))
	}
	b = binary.AppendUvarint(b, uint64(len(o.Runs)))
	for _, r := range o.Runs {
		b = binary.AppendUvarint(b, uint64(r.Count))
		st := byte(r.P.Strategy)
		if r.P.SyncFlush {
			st |= 16
		}
		b = append(b, byte(r.P.Level|r.P.MemLevel<<4), st)
		b = binary.AppendUvarint(b, uint64(r.Header))
	}
	return b
}

// appendLens writes the member lengths.
func (o *Original) appendLens(b []byte) []byte {
	for _, n := range o.Lens {
		b = binary.AppendUvarint(b, uint64(n))
	}
	return b
}

// decodeOriginal reads a table appendTo wrote; perPiece: the table has
// the byte saying whether the lengths follow (catalog version 8).
func decodeOriginal(d *dec, perPiece bool) *Original {
	o := &Original{}
	nh := d.count("member headers", 2)
	for range nh {
		sl := d.uvarint("member header sl")
		h := memberHeader{Bytes: []byte(d.str("member header")), slAt: -1}
		if sl > 0 {
			if len(h.Bytes) < 8 || sl-1 > uint64(len(h.Bytes)-8) {
				d.fail("member header sl")
				return nil
			}
			h.SL, h.slAt = true, int(sl-1)
		}
		o.Headers = append(o.Headers, h)
	}
	nr := d.count("member runs", 3)
	total := 0
	for range nr {
		r := memberRun{Count: int(d.uvarint("member run"))}
		lm := d.bytes(2, "member params")
		r.Header = int(d.uvarint("member run header"))
		if d.err != nil {
			return nil
		}
		r.P = zlibenc.Params{Level: int(lm[0] & 15), MemLevel: int(lm[0] >> 4), Strategy: int(lm[1] &^ 16), SyncFlush: lm[1]&16 != 0}
		// Each member takes a length byte or more, except in a table of
		// lengths per piece: there, a member is a record of the file.
		if !r.P.Valid() || r.Header >= len(o.Headers) || r.Count <= 0 || !perPiece && r.Count > len(d.b) || r.Count > maxMembers-total {
			d.fail("member run")
			return nil
		}
		total += r.Count
		o.Runs = append(o.Runs, r)
	}
	if perPiece {
		switch b := d.bytes(1, "member lengths"); {
		case b == nil:
			return nil
		case b[0] == 1:
			o.PerPiece = true
			return o
		case b[0] != 0:
			d.fail("member lengths")
			return nil
		}
	}
	if total > len(d.b) {
		d.fail("member count")
		return nil
	}
	o.Lens = make([]int64, total)
	for i := range o.Lens {
		if o.Lens[i] = int64(d.uvarint("member length")); o.Lens[i] > maxMemberPlain {
			d.fail("member length")
		}
	}
	if d.err != nil {
		return nil
	}
	return o
}
