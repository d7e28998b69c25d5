package hdrcodec

import (
	"bytes"
	"encoding/binary"
	"sort"
)

// Encode appends to dst a compact encoding of the header block raw, as edits
// of prev (the predecessor block, or nil) with the facts in ctx left out.
// Any bytes are accepted: what the field model cannot represent is stored
// literally. Encode decodes its own output and stores raw literally if that
// does not give raw back, so Decode(Encode(raw)) == raw whatever raw is.
// dst must not overlap raw or prev.
func Encode(dst, raw, prev []byte, ctx Context) []byte {
	start := len(dst)
	if len(raw) <= MaxDecoded {
		e := encoder{ctx: &ctx}
		e.setPrev(prev)
		dst = e.encode(dst, raw)
		if enc := dst[start:]; len(enc) <= len(raw)+1 {
			got, err := decodeLines(make([]byte, 0, len(raw)), enc, e.prev, &ctx)
			if err == nil && bytes.Equal(got, raw) {
				return dst
			}
		}
		dst = dst[:start]
	}
	dst = append(dst, kindLiteral)
	return append(dst, raw...)
}

type encoder struct {
	ctx  *Context
	prev []line
	// Indexes of prev for long blocks (nil for short ones, which are
	// searched line by line): line indices by raw bytes and field indices
	// by name and separator, ascending.
	byRaw  map[string][]int
	byName map[string][]int

	lastSecs int64
	haveLast bool
	scratch  []byte
}

func nameKey(l *line) string {
	return string(l.name()) + "\x00" + string(l.sep())
}

// pick returns the first index in idx at or after cursor, else the first,
// or -1 when idx is empty.
func pick(idx []int, cursor int) int {
	if len(idx) == 0 {
		return -1
	}
	k := sort.SearchInts(idx, cursor)
	if k < len(idx) {
		return idx[k]
	}
	return idx[0]
}

// scan returns the first prev index at or after cursor for which match
// holds, else the first before it, else -1: what pick gives on an index.
func (e *encoder) scan(cursor int, match func(p *line) bool) int {
	for j := cursor; j < len(e.prev); j++ {
		if match(&e.prev[j]) {
			return j
		}
	}
	for j := 0; j < cursor && j < len(e.prev); j++ {
		if match(&e.prev[j]) {
			return j
		}
	}
	return -1
}

// shortPrev is the number of prev lines up to which lines are looked up by
// scanning rather than through maps: header blocks are short, and scanning
// them costs less than building the maps.
const shortPrev = 64

func (e *encoder) setPrev(prev []byte) {
	e.prev = splitLines(prev, nil)
	if len(e.prev) <= shortPrev {
		return
	}
	e.byRaw = make(map[string][]int, len(e.prev))
	e.byName = make(map[string][]int, len(e.prev))
	for j := range e.prev {
		p := &e.prev[j]
		e.byRaw[string(p.raw)] = append(e.byRaw[string(p.raw)], j)
		if p.isField {
			k := nameKey(p)
			e.byName[k] = append(e.byName[k], j)
		}
	}
}

// findLine returns the prev line equal to l (ending included), or -1.
func (e *encoder) findLine(l *line, cursor int) int {
	if e.byRaw != nil {
		return pick(e.byRaw[string(l.raw)], cursor)
	}
	return e.scan(cursor, func(p *line) bool { return bytes.Equal(p.raw, l.raw) })
}

// findField returns the prev field with l's name and separator, or -1.
func (e *encoder) findField(l *line, cursor int) int {
	if e.byName != nil {
		return pick(e.byName[nameKey(l)], cursor)
	}
	return e.scan(cursor, func(p *line) bool {
		return p.isField && bytes.Equal(p.name(), l.name()) && bytes.Equal(p.sep(), l.sep())
	})
}

// encode appends the structured encoding of raw to dst.
func (e *encoder) encode(dst, raw []byte) []byte {
	lines := splitLines(raw, nil)

	def := eolCRLF
	if len(lines) > 0 && lines[0].end == eolLF {
		def = eolLF
	}
	dst = append(dst, kindStructured)
	if def == eolLF {
		dst = append(dst, flagDefaultLF)
	} else {
		dst = append(dst, 0)
	}

	cursor := 0
	for i := 0; i < len(lines); {
		l := &lines[i]
		if j := e.findLine(l, cursor); j >= 0 {
			n := 1
			for i+n < len(lines) && j+n < len(e.prev) && bytes.Equal(lines[i+n].raw, e.prev[j+n].raw) {
				n++
			}
			dst = append(dst, opCopy<<opKindShift|endDefault)
			dst = binary.AppendUvarint(dst, uint64(n))
			dst = binary.AppendVarint(dst, int64(j-cursor))
			cursor = j + n
			i += n
			continue
		}
		end := byte(endDefault)
		switch {
		case l.end == eolNone:
			end = endNone
		case l.end != def:
			end = endOther
		}
		j := -1
		if l.isField {
			j = e.findField(l, cursor)
		}
		switch {
		case j >= 0:
			dst = append(dst, opFieldRef<<opKindShift|end)
			dst = binary.AppendVarint(dst, int64(j-cursor))
			dst = e.value(dst, l.value(), e.prev[j].value(), true)
			cursor = j + 1
		case l.isField:
			dst = append(dst, opFieldNew<<opKindShift|end)
			dst = appendName(dst, l.name(), l.sep())
			dst = e.value(dst, l.value(), nil, false)
		case cursor < len(e.prev):
			dst = append(dst, opRaw<<opKindShift|end)
			dst = e.value(dst, l.content(), e.prev[cursor].content(), true)
			cursor++
		default:
			dst = append(dst, opRawNoRef<<opKindShift|end)
			dst = e.value(dst, l.content(), nil, false)
		}
		i++
	}
	return dst
}

func appendBytes(dst, b []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

func appendName(dst, name, sep []byte) []byte {
	k := 0
	for i, n := range fieldNames {
		if n == string(name) {
			k = i + 1
			break
		}
	}
	dst = binary.AppendUvarint(dst, uint64(k))
	if k == 0 {
		dst = appendBytes(dst, name)
	}
	switch string(sep) {
	case ": ":
		return append(dst, sepColonSpace)
	case ":":
		return append(dst, sepColon)
	}
	dst = append(dst, sepLiteral)
	return appendBytes(dst, sep)
}

// value appends the cheapest value op that gives v, trying the facts in the
// context, then the reference value (prev's), then a literal.
func (e *encoder) value(dst, v, ref []byte, hasRef bool) []byte {
	c := e.ctx
	if hasRef && bytes.Equal(v, ref) {
		return append(dst, valSame)
	}
	if c.URL != "" {
		if string(v) == c.URL {
			return append(dst, valURL, 0)
		}
		if len(v) == len(c.URL)+2 && v[0] == '<' && v[len(v)-1] == '>' && string(v[1:len(v)-1]) == c.URL {
			return append(dst, valURL, 1)
		}
	}
	if isDecimal(v, c.BlockLen) {
		return append(dst, valBlockLen)
	}
	if isDecimal(v, c.PayloadLen) {
		return append(dst, valPayloadLen)
	}
	for i, r := range c.Refs {
		if r == string(v) {
			dst = append(dst, valRef)
			return binary.AppendUvarint(dst, uint64(i))
		}
	}
	if form, id, ok := parseUUID(v); ok {
		if bytes.Equal(formatUUID(e.scratch[:0], form, id[:]), v) {
			dst = append(dst, valUUID, form)
			return append(dst, id[:]...)
		}
	}
	if out, ok := e.digest(dst, v); ok {
		return out
	}
	if d, ok := parseDate(v); ok {
		return e.date(dst, d, ref, hasRef)
	}
	if hasRef {
		p := 0
		for p < len(v) && p < len(ref) && v[p] == ref[p] {
			p++
		}
		s := 0
		for s < len(v)-p && s < len(ref)-p && v[len(v)-1-s] == ref[len(ref)-1-s] {
			s++
		}
		mid := v[p : len(v)-s]
		editLen := 1 + uvarintLen(uint64(p)) + uvarintLen(uint64(s)) + uvarintLen(uint64(len(mid))) + len(mid)
		litLen := 1 + uvarintLen(uint64(len(v))) + len(v)
		if editLen < litLen {
			dst = append(dst, valEdit)
			dst = binary.AppendUvarint(dst, uint64(p))
			dst = binary.AppendUvarint(dst, uint64(s))
			return appendBytes(dst, mid)
		}
	}
	dst = append(dst, valLit)
	return appendBytes(dst, v)
}

func uvarintLen(x uint64) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], x)
}

// digest recognises "label:text" or "label=text" where text spells the
// block's or payload's digest in one of the known encodings.
func (e *encoder) digest(dst, v []byte) ([]byte, bool) {
	k := bytes.IndexAny(v, ":=")
	if k <= 0 || k > 16 {
		return dst, false
	}
	label, text := v[:k], v[k+1:]
	alg := algOf(label)
	if alg == algUnknown {
		return dst, false
	}
	for src, digs := range [2]*Digests{&e.ctx.Block, &e.ctx.Payload} {
		sum := digs.get(alg)
		if sum == nil || len(sum) > 64 {
			continue
		}
		for enc := range numDigestEncodings {
			if digestTextLen(enc, len(sum)) != len(text) {
				continue
			}
			e.scratch = formatDigest(e.scratch[:0], enc, sum)
			if !bytes.Equal(e.scratch, text) {
				continue
			}
			b := byte(src<<7 | enc)
			if v[k] == '=' {
				b |= 1 << 6
			}
			dst = append(dst, valDigest, b)
			lk := 0
			for i, l := range digestLabels {
				if l == string(label) {
					lk = i + 1
					break
				}
			}
			dst = binary.AppendUvarint(dst, uint64(lk))
			if lk == 0 {
				dst = appendBytes(dst, label)
			}
			return dst, true
		}
	}
	return dst, false
}

// date stores d as the smallest difference from a date the decoder will
// know: the capture time, the same field in prev, or the previous date of
// this block.
func (e *encoder) date(dst []byte, d date, ref []byte, hasRef bool) []byte {
	base, delta := byte(baseEpoch), d.secs
	try := func(b byte, secs int64) {
		if abs(d.secs-secs) < abs(delta) {
			base, delta = b, d.secs-secs
		}
	}
	if !e.ctx.Date.IsZero() {
		try(baseContext, e.ctx.Date.Unix())
	}
	if hasRef {
		if r, ok := parseDate(ref); ok {
			try(baseRef, r.secs)
		}
	}
	if e.haveLast {
		try(baseLast, e.lastSecs)
	}
	dst = append(dst, valDate, byte(d.format), base)
	dst = binary.AppendVarint(dst, delta)
	if d.format == dateISOFrac {
		dst = append(dst, byte(d.ndigits))
		dst = binary.AppendUvarint(dst, d.frac)
	}
	e.lastSecs, e.haveLast = d.secs, true
	return dst
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
