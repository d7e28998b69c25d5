package chunk

import (
	"encoding/binary"
	"slices"
	"testing"
)

// refsFromBytes turns fuzz input into a ref list: a mix of runs and
// jumps, like versions made of new chunks and reused ones.
func refsFromBytes(b []byte) []uint64 {
	var out []uint64
	var cur uint64
	for len(b) >= 2 {
		op, n := b[0], int(b[1]%32)+1
		b = b[2:]
		switch op % 4 {
		case 0: // jump back
			cur -= min(cur, uint64(op)*7)
		case 1: // jump forward
			cur += uint64(op) * 131
		case 2: // far jump
			cur = uint64(binary.LittleEndian.Uint16(append([]byte{op}, byte(n)))) << 10
		}
		for range n {
			out = append(out, cur)
			cur++
		}
	}
	return out
}

// FuzzRefs round-trips ref lists through EncodeRefs/DecodeRefs against a
// previous list, and feeds arbitrary bytes to DecodeRefs, which must fail
// cleanly or return what re-encodes to a decodable list.
func FuzzRefs(f *testing.F) {
	f.Add([]byte{1, 5, 0, 3, 2, 9}, []byte{1, 5, 1, 2}, []byte{3, 1, 0})
	f.Add([]byte{}, []byte{2, 31, 0, 31}, []byte{1, 0})
	f.Add([]byte{3, 0}, []byte{}, []byte{2, 3, 1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, a, p, code []byte) {
		refs, prev := refsFromBytes(a), refsFromBytes(p)
		// Versions share material with the previous one: splice prev in.
		if len(prev) > 2 && len(refs) > 0 {
			k := len(refs) / 2
			refs = slices.Concat(refs[:k], prev[1:len(prev)-1], refs[k:])
		}
		enc := EncodeRefs(nil, refs, prev)
		got, err := DecodeRefs(nil, enc, prev, len(refs))
		if err != nil {
			t.Fatalf("decode of an encoding: %v", err)
		}
		if !slices.Equal(got, refs) {
			t.Fatalf("round trip: got %v, want %v", got, refs)
		}
		if len(refs) > 0 {
			if _, err := DecodeRefs(nil, enc, prev, len(refs)-1); err == nil {
				t.Fatal("decode accepted more refs than maxCount")
			}
		}
		// Arbitrary code: no panic, bounded output, and what decodes
		// re-encodes to the same refs.
		dec, err := DecodeRefs(nil, code, prev, 1<<12)
		if err != nil {
			return
		}
		if len(dec) > 1<<12 {
			t.Fatalf("decoded %d refs past maxCount", len(dec))
		}
		again, err := DecodeRefs(nil, EncodeRefs(nil, dec, prev), prev, len(dec))
		if err != nil || !slices.Equal(again, dec) {
			t.Fatalf("re-encoding a decoded list: %v", err)
		}
	})
}
