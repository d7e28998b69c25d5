package dedupe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/blockwarc/blockwarc/dedupe/pack"
)

var errCatalog = errors.New("catalog corrupt")

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// commonSuffix returns the length of the longest common suffix of a and b.
func commonSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// dec reads the catalog encodings; the first error is sticky. In a
// segment, the fixed-size random fields (object ids, binary record ids,
// CRCs) are read from r, a part of their own after the rest (split).
type dec struct {
	b     []byte
	r     []byte
	split bool
	f     *catalogFormat // of the catalog version being read
	err   error
	// resolve turns a short object reference (version 3) into an id;
	// with skip set, references are read but not resolved (entries
	// findInSegment passes over).
	resolve func(prefix []byte) (pack.ID, error)
	skip    bool
	// cols are a version 3 segment's column parts (colWARC...).
	cols [numCols][]byte
	// segFiles holds, by file index, what version 3 offsets and dates
	// are differences from.
	segFiles []segFile
	// place is the chunk number of the segment's last place reference
	// (version 9): the next is written as a difference from it.
	place uint64
}

// rand reads n bytes of a random field.
func (d *dec) rand(n int, what string) []byte {
	if !d.split {
		return d.bytes(uint64(n), what)
	}
	if d.err != nil {
		return nil
	}
	if n > len(d.r) {
		d.fail(what)
		return nil
	}
	v := d.r[:n:n]
	d.r = d.r[n:]
	return v
}

func (d *dec) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: bad %s", errCatalog, what)
	}
}

func (d *dec) uvarint(what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail(what)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) varint(what string) int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail(what)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) bytes(n uint64, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.fail(what)
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *dec) str(what string) string { return string(d.bytes(d.uvarint(what), what)) }

// blob is a length-prefixed byte string (a copy).
func (d *dec) blob(what string) []byte { return bytes.Clone(d.bytes(d.uvarint(what), what)) }

func (d *dec) id(what string) (id pack.ID) {
	copy(id[:], d.rand(32, what))
	return id
}

func (d *dec) count(what string, minSize int) int {
	n := d.uvarint(what)
	if d.err == nil && n > uint64(len(d.b)/max(minSize, 1)) {
		d.fail(what)
		return 0
	}
	return int(n)
}

// idTable writes the object ids of one URL's versions: an id already
// written for the URL is written as its position in the table, a new one
// as a short reference (its first pack.RefLen bytes) when that names it
// alone, else whole. Successive captures share most of their ids
// (anchors, layout, unchanged blocks), so they cost a byte or two each;
// a new id costs 1 + pack.RefLen bytes instead of 33.
type idTable struct {
	ids    []pack.ID
	pos    map[pack.ID]int
	files  []segFile // the segment's, shared by its URLs' tables
	sec    int64     // date of the previous version, Unix seconds (dates are written as differences)
	uri    string    // target URI of the previous version
	n      int       // versions written or read so far
	unique func(pack.ID) (bool, error)
	place  *uint64 // the segment's last place reference (dec.place)
	err    error
}

// Tags of an object reference in catalog version 3; a tag t ≥ refTable
// is the id at position t − refTable + 1 (1-based) of the URL's table.
// Version 9 adds refPlace, and its table positions start at refTable9.
const (
	refShort  = 0 // a new id: its first pack.RefLen bytes (random part)
	refFull   = 1 // a new id: its 32 bytes (random part)
	refTable  = 2
	refPlace  = 2 // version 9: an object named by place, varint difference from the segment's last (main part)
	refTable9 = 3
)

func newIDTable() *idTable { return &idTable{pos: map[pack.ID]int{}} }

func (t *idTable) append(b []byte, r *[]byte, id pack.ID) []byte {
	if i, ok := t.pos[id]; ok {
		return binary.AppendUvarint(b, uint64(i+refTable9))
	}
	t.pos[id] = len(t.ids)
	t.ids = append(t.ids, id)
	if n, ok := id.Place(); ok {
		b = binary.AppendUvarint(b, refPlace)
		b = binary.AppendVarint(b, int64(n-*t.place))
		*t.place = n
		return b
	}
	// The zero id (a header encoded without anchor) names no object.
	short := false
	if t.unique != nil && id != (pack.ID{}) {
		var err error
		if short, err = t.unique(id); err != nil && t.err == nil {
			t.err = fmt.Errorf("encode catalog: %w", err)
		}
	}
	if short {
		*r = append(*r, id[:pack.RefLen]...)
		return binary.AppendUvarint(b, refShort)
	}
	*r = append(*r, id[:]...)
	return binary.AppendUvarint(b, refFull)
}

func (d *dec) ref(t *idTable, what string) pack.ID {
	i := d.uvarint(what)
	if d.err != nil {
		return pack.ID{}
	}
	if !d.f.shortRefs { // 0: 32 bytes; i ≥ 1: position i
		i++
	}
	table := uint64(refTable)
	if d.f.placeRefs {
		table = refTable9
		if i == refPlace {
			n := d.place + uint64(d.varint(what))
			if d.err != nil {
				return pack.ID{}
			}
			d.place = n
			id := pack.PlaceID(n)
			t.ids = append(t.ids, id)
			return id
		}
	}
	switch {
	case i == refShort:
		p := d.rand(pack.RefLen, what)
		if d.err != nil || d.skip {
			t.ids = append(t.ids, pack.ID{})
			return pack.ID{}
		}
		if d.resolve == nil {
			d.err = fmt.Errorf("%w: short reference to %x and no store to resolve it", errCatalog, p)
			return pack.ID{}
		}
		id, err := d.resolve(p)
		if err != nil {
			d.err = fmt.Errorf("resolve %s reference %x: %w", what, p, err)
			return pack.ID{}
		}
		t.ids = append(t.ids, id)
		return id
	case i == refFull:
		id := d.id(what)
		t.ids = append(t.ids, id)
		return id
	case i-table >= uint64(len(t.ids)):
		d.fail(what)
		return pack.ID{}
	}
	return t.ids[i-table]
}

// Record ids are mostly "<urn:uuid:…>" with 16 random bytes spelt in 36
// lower-case characters: stored binary (tag 1, 16 bytes) they cost half.
// Anything else is stored as text (tag 0).
const uuidPrefix, uuidSuffix = "<urn:uuid:", ">"

func parseUUID(s string) ([16]byte, bool) {
	var u [16]byte
	if len(s) != len(uuidPrefix)+36+len(uuidSuffix) || s[:len(uuidPrefix)] != uuidPrefix || s[len(s)-1:] != uuidSuffix {
		return u, false
	}
	h := s[len(uuidPrefix) : len(s)-1]
	if h[8] != '-' || h[13] != '-' || h[18] != '-' || h[23] != '-' {
		return u, false
	}
	hex := h[:8] + h[9:13] + h[14:18] + h[19:23] + h[24:]
	for i := range 16 {
		hi, ok1 := unhex(hex[2*i])
		lo, ok2 := unhex(hex[2*i+1])
		if !ok1 || !ok2 {
			return u, false
		}
		u[i] = hi<<4 | lo
	}
	return u, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false // upper case is kept as text: it must come back as stored
}

func formatUUID(u [16]byte) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 0, 47)
	b = append(b, uuidPrefix...)
	for i, x := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, digits[x>>4], digits[x&15])
	}
	return string(append(b, uuidSuffix...))
}

// appendRecordID appends the record id to b, its 16 binary bytes (tag 1)
// to *r, or to b when r is nil.
func appendRecordID(b []byte, r *[]byte, id string) []byte {
	if u, ok := parseUUID(id); ok {
		b = append(b, 1)
		if r == nil {
			return append(b, u[:]...)
		}
		*r = append(*r, u[:]...)
		return b
	}
	b = append(b, 0)
	return appendString(b, id)
}

func (d *dec) recordID() string {
	tag := d.bytes(1, "record id")
	if tag == nil {
		return ""
	}
	switch tag[0] {
	case 0:
		return d.str("record id")
	case 1:
		var u [16]byte
		copy(u[:], d.rand(16, "record id"))
		return formatUUID(u)
	}
	d.fail("record id tag")
	return ""
}
