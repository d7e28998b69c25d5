package chunk

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// A ref list names a version's chunks in order, each by its chunk number
// (see doc.go). It is coded against the ref list of the URL's previous
// capture (prev, possibly empty) as a count then a sequence of ops:
//
//	uvarint  count of refs
//	op*      until count refs are produced:
//	  uvarint  (n-1)<<1 | kind
//	  varint   (zigzag) delta
//
// kind 0, copy: the n refs prev[p : p+n], p = cursor + delta, where the
// cursor is where the previous copy ended (0 at the start).
// kind 1, run: the n consecutive chunk numbers s, s+1, ..., s+n-1,
// s = next + delta, where next is one past the last ref produced (at the
// start: one past the largest ref of prev, 0 without prev), so that a run
// of a version's new chunks, appended after everything prev names, costs
// about 2 bytes.

var errRefs = errors.New("chunk: corrupt ref list")

// EncodeRefs appends to dst the coding of refs against prev.
func EncodeRefs(dst []byte, refs, prev []uint64) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(refs)))
	var pos map[uint64]int
	if len(prev) > 0 {
		pos = make(map[uint64]int, len(prev))
		for i := len(prev) - 1; i >= 0; i-- {
			pos[prev[i]] = i // the first place of a repeated ref
		}
	}
	cursor := 0
	next := startNext(prev)
	for i := 0; i < len(refs); {
		// Longest copy: from the cursor if it continues there, else
		// from the ref's first place in prev.
		cp, cn := -1, 0
		if cursor < len(prev) && prev[cursor] == refs[i] {
			cp = cursor
		} else if p, ok := pos[refs[i]]; ok {
			cp = p
		}
		if cp >= 0 {
			for cp+cn < len(prev) && i+cn < len(refs) && prev[cp+cn] == refs[i+cn] {
				cn++
			}
		}
		rn := 1
		for i+rn < len(refs) && refs[i+rn] == refs[i]+uint64(rn) {
			rn++
		}
		if cn >= rn {
			dst = binary.AppendUvarint(dst, uint64(cn-1)<<1)
			dst = binary.AppendVarint(dst, int64(cp-cursor))
			cursor = cp + cn
			i += cn
			next = refs[i-1] + 1
		} else {
			dst = binary.AppendUvarint(dst, uint64(rn-1)<<1|1)
			dst = binary.AppendVarint(dst, int64(refs[i]-next))
			i += rn
			next = refs[i-1] + 1
		}
	}
	return dst
}

func startNext(prev []uint64) uint64 {
	var next uint64
	for _, r := range prev {
		if r >= next {
			next = r + 1
		}
	}
	return next
}

// DecodeRefs decodes a ref list coded against prev by EncodeRefs,
// appending the refs to dst. maxCount bounds the refs it accepts, so that
// damage cannot make it allocate without bound: the version's length in
// bytes is a safe bound (every chunk holds at least one byte). It fails on any coding EncodeRefs cannot
// have produced from some refs: a truncated or overlong list, a copy
// outside prev, a run past the largest chunk number.
func DecodeRefs(dst []uint64, code []byte, prev []uint64, maxCount int) ([]uint64, error) {
	return DecodeRefsBelow(dst, code, prev, maxCount, math.MaxUint64)
}

// DecodeRefsBelow is DecodeRefs for a reader that knows the number of
// chunks, end: a run naming a chunk at or past it is damage, refused
// before it is expanded, so that a few bytes of code cannot make a
// reader expand a run of billions of refs.
func DecodeRefsBelow(dst []uint64, code []byte, prev []uint64, maxCount int, end uint64) ([]uint64, error) {
	count, n := binary.Uvarint(code)
	if n <= 0 || maxCount < 0 || count > uint64(maxCount) {
		return dst, errRefs
	}
	code = code[n:]
	// Each op costs at least 2 bytes of code: a count beyond what the
	// code can produce is damage, caught before allocating for it.
	if count > 0 && len(code) < 2 {
		return dst, errRefs
	}
	base := len(dst)
	cursor := 0
	next := startNext(prev)
	for uint64(len(dst)-base) < count {
		h, n := binary.Uvarint(code)
		if n <= 0 {
			return dst, errRefs
		}
		code = code[n:]
		d, n := binary.Varint(code)
		if n <= 0 {
			return dst, errRefs
		}
		code = code[n:]
		run := h>>1 + 1
		if run > count-uint64(len(dst)-base) {
			return dst, fmt.Errorf("%w: op of %d refs past the count", errRefs, run)
		}
		if h&1 == 0 {
			p := int64(cursor) + d
			if p < 0 || p > int64(len(prev)) || uint64(len(prev))-uint64(p) < run {
				return dst, fmt.Errorf("%w: copy outside the previous list", errRefs)
			}
			dst = append(dst, prev[p:p+int64(run)]...)
			cursor = int(p) + int(run)
		} else {
			s := next + uint64(d)
			if (d < 0 && s > next) || (d > 0 && s < next) || s+run < s || s+run > end {
				return dst, fmt.Errorf("%w: run out of range", errRefs)
			}
			for k := uint64(0); k < run; k++ {
				dst = append(dst, s+k)
			}
		}
		next = dst[len(dst)-1] + 1
	}
	if len(code) != 0 {
		return dst, fmt.Errorf("%w: %d bytes after the last op", errRefs, len(code))
	}
	return dst, nil
}
