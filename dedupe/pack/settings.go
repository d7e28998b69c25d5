package pack

import (
	"encoding/binary"
	"errors"

	"github.com/blockwarc/blockwarc/dedupe/chunk"
)

// Settings are what decides, besides the objects added, which bytes a
// writer stores: the archive's own, recorded in COMMIT when it is created
// and used by every later writer, so that an archive's bytes depend on
// its inputs and its settings alone, never on the memory, the workers or
// the machine of the ingest that wrote them (docs/FORMAT.md "Settings").
// Zero fields take the defaults.
type Settings struct {
	// ChunkTable is the size of a writer's table of chunk hashes, in
	// entries (two generations of half each: a chunk unseen for that many
	// insertions is forgotten and stored again if it comes back); the
	// table of objects named by place holds a quarter as many.
	ChunkTable int
	// SeedBytes: a commit's chunk writer starts its table with the chunks
	// of the archive's last frames, up to this many bytes of them and a
	// quarter of the table (negative: none).
	SeedBytes int
	// ChainBytes bounds a chain of frames of chunks (negative: no chains).
	ChainBytes int
	// DigestMin: an object of at least this many bytes, stored new, gets
	// a row in the digest table of its commit's index, so that an object
	// with the same bytes is found however long ago it was stored
	// (docs/FORMAT.md "Digest table"; negative: no digest rows, and none
	// looked up).
	DigestMin int
}

// Defaults of Settings.
const (
	// DefaultChunkTable: 1 Mi entries, what an ingest's default 1 GiB of
	// memory gave the table before settings were recorded.
	DefaultChunkTable = 1 << 20
	// DefaultDigestMin: objects of 8 KiB or more are found at any
	// distance, and the objects stored next to them; rows for smaller
	// ones cost 1–3 % of a one-site archive of small edits (2 KiB on
	// the corpus sites: +1.2 to +3.0 %; 8 KiB: +0.2 to +1.0 %;
	// docs/FORMAT.md "Digest table").
	DefaultDigestMin = 8 << 10
)

// withDefaults resolves zero fields.
func (s Settings) withDefaults() Settings {
	if s.ChunkTable <= 0 {
		s.ChunkTable = DefaultChunkTable
	}
	if s.SeedBytes == 0 {
		s.SeedBytes = chunk.DefaultSeedBytes
	}
	if s.ChainBytes == 0 {
		s.ChainBytes = chunk.DefaultFrameSize
	}
	if s.DigestMin == 0 {
		s.DigestMin = DefaultDigestMin
	}
	return s
}

// KeepSettings gives o the settings of s that o leaves unset (zero): a
// writer with these options records s's, where o sets none of its own
// (compact: the copy keeps its source's settings).
func (o *Options) KeepSettings(s Settings) {
	if o.ChunkTable == 0 {
		o.ChunkTable = s.ChunkTable
	}
	if o.hooks.SeedBytes == 0 {
		o.hooks.SeedBytes = s.SeedBytes
	}
	if o.hooks.ChainBytes == 0 {
		o.hooks.ChainBytes = s.ChainBytes
	}
	if o.DigestMin == 0 {
		o.DigestMin = s.DigestMin
	}
}

// override takes the fields o sets explicitly (non-zero) over s.
func (s Settings) override(o Settings) Settings {
	if o.ChunkTable > 0 {
		s.ChunkTable = o.ChunkTable
	}
	if o.SeedBytes != 0 {
		s.SeedBytes = o.SeedBytes
	}
	if o.ChainBytes != 0 {
		s.ChainBytes = o.ChainBytes
	}
	if o.DigestMin != 0 {
		s.DigestMin = o.DigestMin
	}
	return s
}

// settingsFields is how many fields this writer records; a reader
// takes the fields it knows and ignores those after them.
const settingsFields = 4

// encode appends the settings: uvarint field count, then each field as
// a zigzag varint, in the order of the struct.
func (s Settings) encode(b []byte) []byte {
	b = binary.AppendUvarint(b, settingsFields)
	for _, v := range []int{s.ChunkTable, s.SeedBytes, s.ChainBytes, s.DigestMin} {
		b = binary.AppendVarint(b, int64(v))
	}
	return b
}

// maxSettings bounds the settings block of a COMMIT.
const maxSettings = 4 << 10

func decodeSettings(b []byte) (Settings, error) {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > 64 {
		return Settings{}, errors.New("bad settings field count")
	}
	b = b[w:]
	vals := make([]int64, n)
	for i := range vals {
		v, w := binary.Varint(b)
		if w <= 0 || v > 1<<40 || v < -1<<40 {
			return Settings{}, errors.New("bad settings field")
		}
		vals[i], b = v, b[w:]
	}
	if len(b) != 0 {
		return Settings{}, errors.New("bytes after the settings")
	}
	var s Settings
	for i, p := range []*int{&s.ChunkTable, &s.SeedBytes, &s.ChainBytes, &s.DigestMin} {
		if i < len(vals) {
			*p = int(vals[i])
		}
	}
	if s.ChunkTable <= 0 {
		return Settings{}, errors.New("settings: chunk table of no entries")
	}
	return s, nil
}

// Settings returns the settings the archive records (its defaults when
// it records none: an archive created before settings, which gets them
// at its next commit).
func (s *Store) Settings() Settings {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.m != nil && s.m.settings != nil {
		return *s.m.settings
	}
	return Settings{}.withDefaults()
}

// Settings returns the settings this writer stores by: the archive's,
// with the ones its Options give explicitly.
func (w *Writer) Settings() Settings { return w.set }
