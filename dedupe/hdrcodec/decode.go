package hdrcodec

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// Decode appends to dst the header block that enc encodes, given the same
// prev and Context that Encode was given. It returns ErrCorrupt (wrapped)
// for an encoding Encode cannot have produced and ErrMissingContext when
// ctx lacks a fact the encoding refers to. It never produces more than
// MaxDecoded bytes from a structured encoding, nor panics, whatever enc is.
// A wrong prev or Context yields an error or wrong bytes; callers check the
// result against the digest they recorded at ingest. dst must not overlap
// enc or prev; on error the returned slice has dst's length.
func Decode(dst, enc, prev []byte, ctx Context) ([]byte, error) {
	if len(enc) == 0 {
		return dst, fmt.Errorf("decode header: empty encoding: %w", ErrCorrupt)
	}
	switch enc[0] {
	case kindLiteral:
		return append(dst, enc[1:]...), nil
	case kindStructured:
		return decodeLines(dst, enc, splitLines(prev, nil), &ctx)
	}
	return dst, fmt.Errorf("decode header: unknown kind %#x: %w", enc[0], ErrCorrupt)
}

// decodeLines decodes a structured encoding against prev already split.
func decodeLines(dst, enc []byte, prev []line, ctx *Context) ([]byte, error) {
	d := decoder{enc: enc, pos: 1, ctx: ctx, prev: prev, out: dst, start: len(dst)}
	if err := d.run(); err != nil {
		return dst, fmt.Errorf("decode header at byte %d: %w", d.opStart, err)
	}
	return d.out, nil
}

type decoder struct {
	enc     []byte
	pos     int
	opStart int // where the op being decoded starts, for errors
	ctx     *Context
	prev    []line
	out     []byte
	start   int // len(out) before this block

	lastSecs int64
	haveLast bool
}

func corrupt(what string) error { return fmt.Errorf("%s: %w", what, ErrCorrupt) }

func (d *decoder) byte() (byte, error) {
	if d.pos >= len(d.enc) {
		return 0, corrupt("truncated")
	}
	b := d.enc[d.pos]
	d.pos++
	return b, nil
}

func (d *decoder) uvarint() (uint64, error) {
	v, n := binary.Uvarint(d.enc[d.pos:])
	if n <= 0 {
		return 0, corrupt("bad uvarint")
	}
	d.pos += n
	return v, nil
}

func (d *decoder) varint() (int64, error) {
	v, n := binary.Varint(d.enc[d.pos:])
	if n <= 0 {
		return 0, corrupt("bad varint")
	}
	d.pos += n
	return v, nil
}

// bytes reads a uvarint length and that many bytes.
func (d *decoder) bytes() ([]byte, error) {
	n, err := d.uvarint()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(d.enc)-d.pos) {
		return nil, corrupt("length beyond end")
	}
	b := d.enc[d.pos : d.pos+int(n)]
	d.pos += int(n)
	return b, nil
}

// prevIndex reads a cursor-relative index into prev.
func (d *decoder) prevIndex(cursor int) (int, error) {
	delta, err := d.varint()
	if err != nil {
		return 0, err
	}
	j := int64(cursor) + delta
	if delta > int64(len(d.prev)) || delta < -int64(len(d.prev)) || j < 0 || j >= int64(len(d.prev)) {
		return 0, corrupt("prev line out of range")
	}
	return int(j), nil
}

func (d *decoder) grow() error {
	if len(d.out)-d.start > MaxDecoded {
		return corrupt("decoded block too large")
	}
	return nil
}

func (d *decoder) run() error {
	d.opStart = d.pos
	flags, err := d.byte()
	if err != nil {
		return err
	}
	if flags&^flagDefaultLF != 0 {
		return corrupt("unknown flags")
	}
	ends := [3]string{"\r\n", "\n", ""}
	if flags&flagDefaultLF != 0 {
		ends[0], ends[1] = "\n", "\r\n"
	}
	cursor := 0
	for d.pos < len(d.enc) {
		d.opStart = d.pos
		op := d.enc[d.pos]
		d.pos++
		kind, end := op>>opKindShift, op&opEndMask
		if end > endNone {
			return corrupt("bad line ending")
		}
		switch kind {
		case opCopy:
			if end != endDefault {
				return corrupt("copy with line ending")
			}
			n, err := d.uvarint()
			if err != nil {
				return err
			}
			j, err := d.prevIndex(cursor)
			if err != nil {
				return err
			}
			if n == 0 || n > uint64(len(d.prev)-j) {
				return corrupt("copy beyond prev")
			}
			for k := j; k < j+int(n); k++ {
				d.out = append(d.out, d.prev[k].raw...)
				if err := d.grow(); err != nil {
					return err
				}
			}
			cursor = j + int(n)
		case opFieldRef:
			j, err := d.prevIndex(cursor)
			if err != nil {
				return err
			}
			p := &d.prev[j]
			if !p.isField {
				return corrupt("field ref to a raw line")
			}
			d.out = append(d.out, p.name()...)
			d.out = append(d.out, p.sep()...)
			if err := d.value(p.value(), true); err != nil {
				return err
			}
			cursor = j + 1
		case opFieldNew:
			if err := d.fieldName(); err != nil {
				return err
			}
			if err := d.value(nil, false); err != nil {
				return err
			}
		case opRaw:
			if cursor >= len(d.prev) {
				return corrupt("raw ref beyond prev")
			}
			if err := d.value(d.prev[cursor].content(), true); err != nil {
				return err
			}
			cursor++
		case opRawNoRef:
			if err := d.value(nil, false); err != nil {
				return err
			}
		default:
			return corrupt("unknown op")
		}
		if kind != opCopy {
			d.out = append(d.out, ends[end]...)
		}
		if err := d.grow(); err != nil {
			return err
		}
		if end == endNone && d.pos != len(d.enc) {
			return corrupt("line without ending before the last")
		}
	}
	return nil
}

func (d *decoder) fieldName() error {
	k, err := d.uvarint()
	if err != nil {
		return err
	}
	switch {
	case k == 0:
		b, err := d.bytes()
		if err != nil {
			return err
		}
		d.out = append(d.out, b...)
	case k <= uint64(len(fieldNames)):
		d.out = append(d.out, fieldNames[k-1]...)
	default:
		return corrupt("unknown field name")
	}
	s, err := d.byte()
	if err != nil {
		return err
	}
	switch s {
	case sepColonSpace:
		d.out = append(d.out, ": "...)
	case sepColon:
		d.out = append(d.out, ':')
	case sepLiteral:
		b, err := d.bytes()
		if err != nil {
			return err
		}
		d.out = append(d.out, b...)
	default:
		return corrupt("unknown separator")
	}
	return nil
}

func (d *decoder) value(ref []byte, hasRef bool) error {
	op, err := d.byte()
	if err != nil {
		return err
	}
	switch op {
	case valLit:
		b, err := d.bytes()
		if err != nil {
			return err
		}
		d.out = append(d.out, b...)
	case valSame:
		if !hasRef {
			return corrupt("same without reference")
		}
		d.out = append(d.out, ref...)
	case valEdit:
		if !hasRef {
			return corrupt("edit without reference")
		}
		p, err := d.uvarint()
		if err != nil {
			return err
		}
		s, err := d.uvarint()
		if err != nil {
			return err
		}
		if p > uint64(len(ref)) || s > uint64(len(ref))-p {
			return corrupt("edit beyond reference")
		}
		mid, err := d.bytes()
		if err != nil {
			return err
		}
		d.out = append(d.out, ref[:p]...)
		d.out = append(d.out, mid...)
		d.out = append(d.out, ref[uint64(len(ref))-s:]...)
	case valBlockLen, valPayloadLen:
		n := d.ctx.BlockLen
		if op == valPayloadLen {
			n = d.ctx.PayloadLen
		}
		if n < 0 {
			return fmt.Errorf("length: %w", ErrMissingContext)
		}
		d.out = strconv.AppendInt(d.out, n, 10)
	case valDigest:
		return d.digest()
	case valUUID:
		form, err := d.byte()
		if err != nil {
			return err
		}
		if form > uuidBracket|uuidUpper || len(d.enc)-d.pos < 16 {
			return corrupt("bad uuid")
		}
		d.out = formatUUID(d.out, form, d.enc[d.pos:d.pos+16])
		d.pos += 16
	case valRef:
		i, err := d.uvarint()
		if err != nil {
			return err
		}
		if i >= uint64(len(d.ctx.Refs)) {
			return fmt.Errorf("ref %d: %w", i, ErrMissingContext)
		}
		d.out = append(d.out, d.ctx.Refs[i]...)
	case valDate:
		return d.date(ref, hasRef)
	case valURL:
		form, err := d.byte()
		if err != nil {
			return err
		}
		if form > 1 {
			return corrupt("bad url form")
		}
		if d.ctx.URL == "" {
			return fmt.Errorf("url: %w", ErrMissingContext)
		}
		if form == 1 {
			d.out = append(d.out, '<')
		}
		d.out = append(d.out, d.ctx.URL...)
		if form == 1 {
			d.out = append(d.out, '>')
		}
	default:
		return corrupt("unknown value op")
	}
	return nil
}

func (d *decoder) digest() error {
	b, err := d.byte()
	if err != nil {
		return err
	}
	src, eq, enc := b>>7, b>>6&1, int(b&0x3f)
	if enc >= numDigestEncodings {
		return corrupt("unknown digest encoding")
	}
	k, err := d.uvarint()
	if err != nil {
		return err
	}
	var label []byte
	switch {
	case k == 0:
		if label, err = d.bytes(); err != nil {
			return err
		}
	case k <= uint64(len(digestLabels)):
		label = []byte(digestLabels[k-1])
	default:
		return corrupt("unknown digest label")
	}
	digs := &d.ctx.Block
	if src == 1 {
		digs = &d.ctx.Payload
	}
	alg := algOf(label)
	if alg == algUnknown {
		return corrupt("unknown digest algorithm")
	}
	sum := digs.get(alg)
	if sum == nil {
		return fmt.Errorf("digest %s: %w", label, ErrMissingContext)
	}
	if len(sum) > 64 {
		return fmt.Errorf("digest %s: %d bytes: %w", label, len(sum), ErrMissingContext)
	}
	d.out = append(d.out, label...)
	if eq == 1 {
		d.out = append(d.out, '=')
	} else {
		d.out = append(d.out, ':')
	}
	d.out = formatDigest(d.out, enc, sum)
	return nil
}

func (d *decoder) date(ref []byte, hasRef bool) error {
	f, err := d.byte()
	if err != nil {
		return err
	}
	base, err := d.byte()
	if err != nil {
		return err
	}
	delta, err := d.varint()
	if err != nil {
		return err
	}
	if int(f) >= numDateFormats || base >= numBases {
		return corrupt("bad date")
	}
	dt := date{format: int(f)}
	if f == dateISOFrac {
		nd, err := d.byte()
		if err != nil {
			return err
		}
		fr, err := d.uvarint()
		if err != nil {
			return err
		}
		if nd < 1 || nd > 9 || fr >= pow10[nd] {
			return corrupt("bad date fraction")
		}
		dt.ndigits, dt.frac = int(nd), fr
	}
	var b int64
	switch base {
	case baseContext:
		if d.ctx.Date.IsZero() {
			return fmt.Errorf("date: %w", ErrMissingContext)
		}
		b = d.ctx.Date.Unix()
	case baseRef:
		r, ok := date{}, false
		if hasRef {
			r, ok = parseDate(ref)
		}
		if !ok {
			return corrupt("date relative to a non-date")
		}
		b = r.secs
	case baseLast:
		if !d.haveLast {
			return corrupt("date relative to no date")
		}
		b = d.lastSecs
	}
	dt.secs = b + delta
	if dt.secs < minDateSecs || dt.secs > maxDateSecs {
		return corrupt("date out of range")
	}
	d.out = formatDate(d.out, dt)
	d.lastSecs, d.haveLast = dt.secs, true
	return nil
}

var pow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

// Dates are kept within years 0000-9999, the range every format spells
// with a fixed number of digits.
const (
	minDateSecs = -62167219200 // 0000-01-01T00:00:00Z
	maxDateSecs = 253402300799 // 9999-12-31T23:59:59Z
)
