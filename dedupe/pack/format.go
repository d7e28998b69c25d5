package pack

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
)

// ID names an object: the SHA-256 of its plaintext, in an archive
// created since short ids (docs/FORMAT.md "Object ids") its first ShortID
// bytes with the rest zero.
type ID [32]byte

// ShortID is the length of the object ids of archives created since
// short ids: 128 bits keep accidental collisions out of reach (2^-64 at
// 2^32 objects), and a collision made on purpose still only makes ingest
// keep the record whole (its fidelity check compares bytes), while an
// index entry costs 16 bytes less than with whole SHA-256 ids.
const ShortID = 16

// Sum returns the whole SHA-256 of data. Archives with short ids name
// objects by its first ShortID bytes: use Store.Sum for an object's id.
func Sum(data []byte) ID { return ID(sha256.Sum256(data)) }

// truncate returns id with the bytes from n on zeroed; a place id as it
// is.
func (id ID) truncate(n int) ID {
	if _, ok := id.Place(); ok {
		return id
	}
	clear(id[n:])
	return id
}

// Short is id cut to ShortID bytes, the rest zero: the id of the same
// bytes in an archive with short ids.
func (id ID) Short() ID { return id.truncate(ShortID) }

// placeTail is bytes 8 to 31 of every place id. A SHA-256 ends so with
// probability 2^-192, and a short id ends in zeros.
var placeTail = [24]byte([]byte("\xffblockwarc place name\xff\xff\xff"))

// PlaceID is the id of the object named by its place (docs/FORMAT.md
// "Objects named by place"): n is the number of the chunk that holds its
// ref list. Such an id is no hash of the object's bytes.
func PlaceID(n uint64) ID {
	var id ID
	binary.BigEndian.PutUint64(id[:8], n)
	copy(id[8:], placeTail[:])
	return id
}

// Place returns the chunk number of a place id, and whether id is one.
func (id ID) Place() (uint64, bool) {
	if [24]byte(id[8:]) != placeTail {
		return 0, false
	}
	return binary.BigEndian.Uint64(id[:8]), true
}

// String is the id in hex: 32 digits for a short id (its last 16 bytes
// zero), else 64; a place id is "place:" and its chunk number.
func (id ID) String() string {
	if n, ok := id.Place(); ok {
		return fmt.Sprintf("place:%d", n)
	}
	if id != (ID{}) && id.truncate(ShortID) == id {
		return hex.EncodeToString(id[:ShortID])
	}
	return hex.EncodeToString(id[:])
}

// Kind says what an object is, for the caller and for Stats; the store
// does not interpret it.
type Kind uint8

// Object kinds (docs/FORMAT.md "Kinds").
const (
	KindLayout Kind = 1 + iota
	KindBlock
	KindWARCHeader
	KindHTTPHeader
	KindPayload
	KindRecord
	KindVersionCatalog
	KindOther
	numKinds = int(KindOther) + 1
)

var kindNames = [...]string{"invalid", "layout", "block", "warc-header", "http-header", "payload", "record", "version-catalog", "other"}

// Valid reports whether k is one of the defined kinds.
func (k Kind) Valid() bool { return k >= KindLayout && k <= KindOther }

// kindRefs marks, in a frame's object table and an index entry (format
// 3), an object stored as the ref list of its chunks rather than as its
// bytes (docs/FORMAT.md "Chunked objects").
const kindRefs Kind = 0x80

// plain is k without the storage mark: the kind callers see.
func (k Kind) plain() Kind { return k &^ kindRefs }

// storedValid reports whether k is a valid kind as a table or index
// holds it: a defined kind, possibly marked kindRefs.
func (k Kind) storedValid() bool { return k.plain().Valid() }

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Format constants; see docs/FORMAT.md.
const (
	// formatVersion is the version of the files this code writes;
	// oldestFormat the oldest it reads. Every file (pack, index,
	// COMMIT) carries its own version in its header, so an archive
	// whose old files keep an older version still opens once a reader
	// knows both: a new frame or index layout gets a new version and a
	// decoder beside the old one (docs/FORMAT.md "Versions").
	formatVersion = 4
	oldestFormat  = 2
	// indexVersion is the version of the index files this code writes:
	// version 5 adds the digest table (docs/FORMAT.md "Digest table"),
	// 6 drops the fan-out of indexes of fewer than fanoutMin entries;
	// packs and COMMIT stay at formatVersion. currentIndex is the
	// oldest an archive may hold and count as current (Outdated): a
	// version-5 index only costs a fan-out more, and the next merge that
	// takes it writes version 6.
	indexVersion = 6
	currentIndex = 5

	packMagic   = "BWPK"
	frameMagic  = "BWFR"
	indexMagic  = "BWIX"
	commitMagic = "BWCM"

	packHeaderSize  = 16
	frameFixedSize  = 24 // before the base list
	baseRefSize     = 36
	maxBases        = 64
	maxFramePlain   = 1 << 30
	maxDictSize     = 1 << 30
	indexHeaderSize = 16
	fanoutSize      = 256 * 4
	frameRowSize    = 16
	trailerSize     = 32
	commitFixedSize = 32
	maxPayload      = 16 << 20
	dictID          = 1

	commitName = "COMMIT"
	commitTemp = "COMMIT.tmp"
	commitCopy = "COMMIT.copy"
	lockName   = "LOCK"
)

// DirFile says what a file of this name in an archive's directory is:
// commit when it is COMMIT or COMMIT.copy (the directory is an archive,
// perhaps a damaged one), created when it is what creating an archive
// writes before its first COMMIT (LOCK, COMMIT.tmp), so that a directory
// holding only such files is an archive whose creation stopped.
func DirFile(name string) (commit, created bool) {
	switch name {
	case commitName, commitCopy:
		return true, false
	case lockName, commitTemp:
		return false, true
	}
	return false, false
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func crc(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

var le = binary.LittleEndian

func packName(n uint32) string  { return fmt.Sprintf("%08x.pack", n) }
func indexName(n uint32) string { return fmt.Sprintf("%08x.idx", n) }

// fileHeader is the 16-byte header shared by pack and index files.
func appendFileHeader(dst []byte, magic string, num uint32) []byte {
	start := len(dst)
	dst = append(dst, magic...)
	dst = le.AppendUint16(dst, newestVersion(magic))
	dst = le.AppendUint16(dst, 0)
	dst = le.AppendUint32(dst, num)
	return le.AppendUint32(dst, crc(dst[start:]))
}

// newestVersion is the version this code writes of files of magic.
func newestVersion(magic string) uint16 {
	if magic == indexMagic {
		return indexVersion
	}
	return formatVersion
}

// fileVersion is the format version of a header checkFileHeader accepted.
func fileVersion(b []byte) uint16 { return le.Uint16(b[4:]) }

func checkFileHeader(b []byte, magic string, num uint32, file string) error {
	if len(b) < 16 {
		return corrupt(file, 0, "file shorter than its header")
	}
	if string(b[:4]) != magic {
		return corrupt(file, 0, "bad magic %q, want %q", b[:4], magic)
	}
	if got := le.Uint32(b[12:]); got != crc(b[:12]) {
		return corrupt(file, 0, "header checksum mismatch")
	}
	if v, newest := le.Uint16(b[4:]), newestVersion(magic); v < oldestFormat || v > newest {
		return corrupt(file, 4, "unsupported format version %d (this reader knows %d to %d)", v, oldestFormat, newest)
	}
	if f := le.Uint16(b[6:]); f != 0 {
		return corrupt(file, 6, "unknown flags %#x", f)
	}
	if n := le.Uint32(b[8:]); n != num {
		return corrupt(file, 8, "file number %d does not match its name (%d)", n, num)
	}
	return nil
}

// baseRef is one delta base of a frame.
type baseRef struct {
	id   ID
	size uint32
}

// frameHeader is the parsed header of a frame (FORMAT.md "Frame").
type frameHeader struct {
	flags uint8 // frameChunks or 0
	depth uint8
	clen  uint32
	ulen  uint32
	count uint32
	dcrc  uint32
	bases []baseRef
}

func frameHeaderSize(nbases int) int { return frameFixedSize + baseRefSize*nbases + 4 }

func (h *frameHeader) appendTo(dst []byte) []byte {
	start := len(dst)
	dst = append(dst, frameMagic...)
	dst = append(dst, h.depth, h.flags)
	dst = le.AppendUint16(dst, uint16(len(h.bases)))
	dst = le.AppendUint32(dst, h.clen)
	dst = le.AppendUint32(dst, h.ulen)
	dst = le.AppendUint32(dst, h.count)
	dst = le.AppendUint32(dst, h.dcrc)
	for _, b := range h.bases {
		dst = append(dst, b.id[:]...)
		dst = le.AppendUint32(dst, b.size)
	}
	return le.AppendUint32(dst, crc(dst[start:]))
}

// parseFrameHeader parses the header at the start of b (which holds at
// least the fixed part). It returns the header length. off is the frame's
// offset in file, for errors.
func parseFrameHeader(b []byte, file string, off int64) (frameHeader, int, error) {
	var h frameHeader
	if len(b) < frameFixedSize+4 {
		return h, 0, corrupt(file, off, "frame header truncated")
	}
	if string(b[:4]) != frameMagic {
		return h, 0, corrupt(file, off, "bad frame magic %q", b[:4])
	}
	nb := int(le.Uint16(b[6:]))
	if nb > maxBases {
		return h, 0, corrupt(file, off, "frame has %d bases (limit %d)", nb, maxBases)
	}
	hl := frameHeaderSize(nb)
	if len(b) < hl {
		return h, 0, corrupt(file, off, "frame header truncated")
	}
	if le.Uint32(b[hl-4:]) != crc(b[:hl-4]) {
		return h, 0, corrupt(file, off, "frame header checksum mismatch")
	}
	if b[5]&^frameChunks != 0 {
		return h, 0, corrupt(file, off, "unknown frame flags %#x", b[5])
	}
	h.flags = b[5]
	h.depth = b[4]
	h.clen = le.Uint32(b[8:])
	h.ulen = le.Uint32(b[12:])
	h.count = le.Uint32(b[16:])
	h.dcrc = le.Uint32(b[20:])
	// A frame of objects has a depth exactly when it has bases; a frame
	// of chunks has no bases, and its depth is its chain prefix
	// (format 4).
	if h.flags&frameChunks != 0 && nb != 0 || h.flags&frameChunks == 0 && (nb == 0) != (h.depth == 0) {
		return h, 0, corrupt(file, off, "frame depth %d inconsistent with %d bases", h.depth, nb)
	}
	if h.ulen > maxFramePlain {
		return h, 0, corrupt(file, off, "frame plaintext length %d over limit", h.ulen)
	}
	if h.count == 0 || h.count > h.ulen {
		return h, 0, corrupt(file, off, "frame object count %d implausible", h.count)
	}
	if nb > 0 {
		h.bases = make([]baseRef, nb)
		for i := range h.bases {
			p := b[frameFixedSize+i*baseRefSize:]
			copy(h.bases[i].id[:], p[:32])
			h.bases[i].size = le.Uint32(p[32:])
		}
	}
	return h, hl, nil
}

// objSpan is one row of a frame's object table, resolved to offsets.
type objSpan struct {
	kind     Kind
	off, len uint32
}

// appendTable writes the object table of a frame.
func appendTable(dst []byte, kinds []Kind, lens []int) []byte {
	for i, k := range kinds {
		dst = append(dst, byte(k))
		dst = binary.AppendUvarint(dst, uint64(lens[i]))
	}
	return dst
}

// tableLen is the encoded size of the object table.
func tableLen(lens []int) int {
	n := 0
	for _, l := range lens {
		n += 1 + uvarintLen(uint64(l))
	}
	return n
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// parseTable decodes and checks the object table of a frame's plaintext:
// count rows whose lengths exactly fill the plaintext after the table.
func parseTable(plain []byte, count uint32, file string, off int64) ([]objSpan, error) {
	if uint64(count) > uint64(len(plain)) {
		return nil, corrupt(file, off, "frame object count %d exceeds plaintext", count)
	}
	spans := make([]objSpan, count)
	p := 0
	var total uint64
	for i := range spans {
		if p >= len(plain) {
			return nil, corrupt(file, off, "frame object table truncated")
		}
		k := Kind(plain[p])
		if !k.storedValid() {
			return nil, corrupt(file, off, "frame object %d has invalid kind %d", i, k)
		}
		l, n := binary.Uvarint(plain[p+1:])
		if n <= 0 || l > uint64(len(plain)) {
			return nil, corrupt(file, off, "frame object %d has bad length", i)
		}
		p += 1 + n
		total += l
		spans[i] = objSpan{kind: k, len: uint32(l)}
	}
	if total != uint64(len(plain)-p) {
		return nil, corrupt(file, off, "frame object table covers %d bytes, frame holds %d", total, len(plain)-p)
	}
	o := uint32(p)
	for i := range spans {
		spans[i].off = o
		o += spans[i].len
	}
	return spans, nil
}
