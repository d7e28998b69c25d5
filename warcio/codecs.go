package warcio

import (
	"bytes"
	"compress/bzip2"
	"encoding/binary"
	"regexp"
	"strings"

	"github.com/pierrec/lz4/v4"
)

// codec is one input compression: how its files are named, how its
// members are recognised and opened. Adding an input compression is one
// entry of codecs (and its Compression value).
type codec struct {
	name string
	// suffixes are the file name endings of the compression (lower
	// case; names match in any case).
	suffixes []string
	// magic starts every member; nil for no compression.
	magic []byte
	// sniff says whether the first bytes of a file are this
	// compression's (magic when nil).
	sniff func(head []byte) bool
	// members: the stream is a sequence of members (gzip members, zstd
	// or LZ4 frames), each starting where a record may start; otherwise
	// it is one stream (no compression, bzip2).
	members bool
	// skippable: skippable frames (magic 0x184D2A5?) may stand between
	// members.
	skippable bool
	// open starts the member at the container's position; for a
	// compression without members, the whole stream.
	open func(c *container) error
	// openErr says what failed when open does.
	openErr string
}

// codecs is indexed by Compression; detect tries them in this order.
var codecs = [...]codec{
	CompressionNone: {name: "none", open: func(c *container) error { c.open(c.br); return nil }},
	CompressionGzip: {name: "gzip", suffixes: []string{".gz"}, magic: gzipMagic, members: true,
		open: (*container).openGzip, openErr: "read gzip member header"},
	CompressionZstd: {name: "zstd", suffixes: []string{".zst", ".zstd"}, magic: zstdMagic, members: true, skippable: true, openErr: "open zstd frame",
		// A .warc.zst may open with the skippable frame that carries its
		// dictionary.
		sniff: func(head []byte) bool {
			return bytes.HasPrefix(head, zstdMagic) || len(head) == 4 && binary.LittleEndian.Uint32(head) == zstdDictFrameMagic
		},
		open: (*container).openZstd},
	CompressionLZ4: {name: "lz4", suffixes: []string{".lz4"}, magic: []byte{0x04, 0x22, 0x4d, 0x18}, members: true, skippable: true,
		open: func(c *container) error {
			start := c.storedPos()
			c.frame.reset(c.br, false)
			if c.lz == nil {
				c.lz = lz4.NewReader(&c.frame)
			} else {
				c.lz.Reset(&c.frame)
			}
			c.open(c.lz)
			c.members[len(c.members)-1].stored = start
			return nil
		}},
	CompressionBzip2: {name: "bzip2", suffixes: []string{".bz2"}, magic: []byte("BZh"),
		open: func(c *container) error { c.open(bzip2.NewReader(c.br)); return nil }},
}

var (
	gzipMagic = []byte{0x1f, 0x8b, 0x08}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

const zstdDictFrameMagic = 0x184D2A5D

func (c Compression) String() string {
	if int(c) < len(codecs) {
		return codecs[c].name
	}
	return "unknown"
}

// sniffCompression tells the compression of a file from its first bytes.
func sniffCompression(head []byte) Compression {
	for i := range codecs {
		k := &codecs[i]
		switch {
		case k.sniff != nil && k.sniff(head), k.sniff == nil && k.magic != nil && bytes.HasPrefix(head, k.magic):
			return Compression(i)
		}
	}
	return CompressionNone
}

// warcName matches the names ExpandInputs picks from a directory: .warc
// or .arc, optionally a compression suffix, optionally .open.
var warcName = regexp.MustCompile(`(?i)\.(warc|arc)(` + suffixAlternation() + `)?(\.open)?$`)

func suffixAlternation() string {
	var alts []string
	for _, k := range codecs {
		for _, s := range k.suffixes {
			alts = append(alts, regexp.QuoteMeta(s))
		}
	}
	return strings.Join(alts, "|")
}

// TrimCompressionSuffix drops a trailing ".open" (a file still being
// written) and then a compression suffix (.gz, .zst, .zstd, .lz4, .bz2,
// in any case) from name: the name of the file decompressed.
func TrimCompressionSuffix(name string) string {
	n := name
	if len(n) >= 5 && strings.EqualFold(n[len(n)-5:], ".open") {
		n = n[:len(n)-5]
	}
	for _, k := range codecs {
		for _, s := range k.suffixes {
			if len(n) >= len(s) && strings.EqualFold(n[len(n)-len(s):], s) {
				return n[:len(n)-len(s)]
			}
		}
	}
	return n
}
