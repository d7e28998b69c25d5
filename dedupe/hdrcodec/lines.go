package hdrcodec

import "bytes"

// eol is how a line ends.
type eol uint8

const (
	eolCRLF eol = iota
	eolLF
	eolNone // last line of a block that does not end in "\n"
)

// line is one line of a header block: raw aliases the block, the offsets
// cut it into content, name, separator and value.
type line struct {
	raw        []byte // content and ending
	contentEnd int32
	nameEnd    int32 // 0 for raw lines
	valueStart int32
	end        eol
	isField    bool
}

func (l *line) content() []byte { return l.raw[:l.contentEnd] }
func (l *line) name() []byte    { return l.raw[:l.nameEnd] }             // before ':'
func (l *line) sep() []byte     { return l.raw[l.nameEnd:l.valueStart] } // ':' and the blanks after it
func (l *line) value() []byte   { return l.raw[l.valueStart:l.contentEnd] }

// splitLines cuts b after every "\n". It accepts any bytes: the pieces
// concatenated are b again. A block over MaxDecoded bytes gives no lines
// (Encode stores such blocks literally, and as prev they serve as an empty
// one), which also keeps the offsets within int32.
func splitLines(b []byte, dst []line) []line {
	if len(b) > MaxDecoded {
		return dst[:0]
	}
	if n := bytes.Count(b, []byte{'\n'}) + 1; cap(dst) < n {
		dst = make([]line, 0, n)
	}
	dst = dst[:0]
	for len(b) > 0 {
		var l line
		i := bytes.IndexByte(b, '\n')
		switch {
		case i < 0:
			l.raw, l.contentEnd, l.end = b, int32(len(b)), eolNone
			b = nil
		case i > 0 && b[i-1] == '\r':
			l.raw, l.contentEnd, l.end = b[:i+1], int32(i-1), eolCRLF
			b = b[i+1:]
		default:
			l.raw, l.contentEnd, l.end = b[:i+1], int32(i), eolLF
			b = b[i+1:]
		}
		parseField(&l)
		dst = append(dst, l)
	}
	return dst
}

// parseField marks l as a field when its content is a token, ':', blanks
// and a value. Continuation lines (leading blank) and lines whose would-be
// name holds a blank or a control byte stay raw.
func parseField(l *line) {
	c := l.content()
	k := bytes.IndexByte(c, ':')
	if k <= 0 {
		return
	}
	for _, ch := range c[:k] {
		if ch <= ' ' || ch == 0x7f {
			return
		}
	}
	j := k + 1
	for j < len(c) && (c[j] == ' ' || c[j] == '\t') {
		j++
	}
	l.isField = true
	l.nameEnd, l.valueStart = int32(k), int32(j)
}
