package pack

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"

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
	// CaptureFrames bounds the frames of chunks a capture's restore
	// decodes, its objects together (Writer.BoundCapture; the frames
	// they name and the chains before them): when a capture added would
	// decode more, the chunks it reuses from the frames it needs least
	// are stored again in the open frame (docs/FORMAT.md "Settings").
	// 0: no bound (archives that record no such field: the bound is a
	// count per object alone, chunk.Options.MaxFrames).
	CaptureFrames int
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

// MaxChainBytes bounds Settings.ChainBytes: a restore decodes up to a
// chain's bytes, and the writer indexes that much as a frame's
// dictionary (the readers refuse chains of more than 256 MiB).
const MaxChainBytes = 16 << 20

// check refuses settings a writer must not store by: a library caller
// bypasses the flags' bounds (ingestflags.ParseChain).
func (s Settings) check() error {
	if s.ChainBytes > MaxChainBytes {
		return fmt.Errorf("settings: chains of %d bytes, over the bound of %d (pack.MaxChainBytes)", s.ChainBytes, MaxChainBytes)
	}
	return nil
}

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
	if s.CaptureFrames < 0 {
		s.CaptureFrames = 0 // off, as when absent
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
	if o.ChainBytes == 0 {
		o.ChainBytes = s.ChainBytes
	}
	if o.DigestMin == 0 {
		o.DigestMin = s.DigestMin
	}
	if o.CaptureFrames == 0 {
		o.CaptureFrames = s.CaptureFrames
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
	if o.CaptureFrames != 0 {
		s.CaptureFrames = max(o.CaptureFrames, 0)
	}
	return s
}

// settingsFields is how many fields this writer records in COMMIT: the
// first four of Settings, then (field 4, since settings objects) the
// generation of the settings object that holds them again, then (field
// 5) CaptureFrames, written only when it is set, so that an archive
// without the bound is what it was before it. A reader takes the fields
// it knows and ignores those after them, so older readers read the
// first four as before (and ignore the bound: their writers store
// without it).
const settingsFields = 5

// encode appends the settings: uvarint field count, then each field as
// a zigzag varint: ChunkTable, SeedBytes, ChainBytes, DigestMin, then
// at (the generation whose commit wrote them as a settings object; 0:
// none) when fields is 5 or more, then CaptureFrames. A settings object
// holds the first four, and fields 4 (0) and 5 when CaptureFrames is
// set. fields grows to 6 when CaptureFrames is set.
func (s Settings) encode(b []byte, fields int, at uint64) []byte {
	if s.CaptureFrames != 0 {
		fields = 6
	}
	b = binary.AppendUvarint(b, uint64(fields))
	for _, v := range []int64{int64(s.ChunkTable), int64(s.SeedBytes), int64(s.ChainBytes), int64(s.DigestMin), int64(at), int64(s.CaptureFrames)}[:fields] {
		b = binary.AppendVarint(b, v)
	}
	return b
}

// maxSettings bounds the settings block of a COMMIT.
const maxSettings = 4 << 10

// decodeSettings reads the settings and, from field 4, the generation
// of their settings object (0 when none is recorded).
func decodeSettings(b []byte) (Settings, uint64, error) {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > 64 {
		return Settings{}, 0, errors.New("bad settings field count")
	}
	b = b[w:]
	vals := make([]int64, n)
	for i := range vals {
		v, w := binary.Varint(b)
		if w <= 0 || v > 1<<40 || v < -1<<40 {
			return Settings{}, 0, errors.New("bad settings field")
		}
		vals[i], b = v, b[w:]
	}
	if len(b) != 0 {
		return Settings{}, 0, errors.New("bytes after the settings")
	}
	var s Settings
	for i, p := range []*int{&s.ChunkTable, &s.SeedBytes, &s.ChainBytes, &s.DigestMin} {
		if i < len(vals) {
			*p = int(vals[i])
		}
	}
	if s.ChunkTable <= 0 {
		return Settings{}, 0, errors.New("settings: chunk table of no entries")
	}
	var at uint64
	if len(vals) > 4 && vals[4] > 0 {
		at = uint64(vals[4])
	}
	if len(vals) > 5 && vals[5] > 0 {
		s.CaptureFrames = int(vals[5])
	}
	return s, at, nil
}

// settingsMagic begins a settings object: an object of kind KindOther,
// stored whole (never by place, never chunked) so that an index rebuilt
// from the frames names it, holding the settings a commit recorded
// (docs/FORMAT.md "Settings object"): magic, uvarint generation of the
// commit that wrote it, then the settings as COMMIT encodes them (four
// fields; six, the fifth 0, when CaptureFrames is set). When both commit files are lost, the rebuilt commit takes
// the settings of the one of the highest generation.
const settingsMagic = "BWSE"

// maxSettingsObject bounds what is read as a settings object.
const maxSettingsObject = 256

func settingsObject(s Settings, gen uint64) []byte {
	b := binary.AppendUvarint([]byte(settingsMagic), gen)
	return s.encode(b, 4, 0)
}

// isSettingsObject says whether an object of kind k with bytes data is
// a settings object (stored whole).
func isSettingsObject(k Kind, data []byte) bool {
	return k == KindOther && len(data) <= maxSettingsObject && string(data[:min(len(data), len(settingsMagic))]) == settingsMagic
}

func decodeSettingsObject(b []byte) (Settings, uint64, error) {
	gen, w := binary.Uvarint(b[len(settingsMagic):])
	if w <= 0 || gen == 0 {
		return Settings{}, 0, errors.New("settings object without a generation")
	}
	s, _, err := decodeSettings(b[len(settingsMagic)+w:])
	return s, gen, err
}

// recordedSettings finds the settings objects the committed indexes
// name and returns the settings of the one of the highest generation
// (ok false when there is none: an archive written before them).
// Objects that do not read are passed over: a commit that lost them
// still holds the others.
func (s *Store) recordedSettings() (set Settings, gen uint64, ok bool) {
	s.mu.RLock()
	idx := s.idx
	s.mu.RUnlock()
	for _, ix := range idx {
		var ids []ID
		ix.scan(func(_ int64, e entry) error {
			if e.kind == KindOther && e.len <= maxSettingsObject {
				ids = append(ids, e.id)
			}
			return nil
		}, nil)
		for _, id := range ids {
			b, k, err := s.Get(id)
			if err != nil || !isSettingsObject(k, b) {
				continue
			}
			if v, g, err := decodeSettingsObject(b); err == nil && g > gen {
				set, gen, ok = v, g, true
			}
		}
	}
	return set, gen, ok
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

// settingsObjectLost says whether m names a settings object that s
// does not hold (its frame lost, or dropped by a repair).
func (m *manifest) settingsObjectLost(s *Store) bool {
	if m.settings == nil || m.setAt == 0 {
		return false
	}
	ok, err := s.Has(s.Sum(settingsObject(*m.settings, m.setAt)))
	return err == nil && !ok
}

// settingsObjectProblem is what Verify names when m's settings object
// is lost: the redundancy of the settings, should both commit files go.
func (s *Store) settingsObjectProblem(m *manifest) error {
	if !m.settingsObjectLost(s) {
		return nil
	}
	return &RedundancyError{File: filepath.Join(s.dir, commitName), Reason: fmt.Sprintf(
		"the settings object of generation %d (the archive's settings kept in the packs) is missing: if COMMIT and COMMIT.copy were both lost, the settings would be; run blockwarc repair (it writes it again)", m.setAt)}
}

// RestoreSettings writes the settings object again when the commit
// in force names one that does not read, by a commit of the same
// payload (Repair's last step, once nothing is lost), and says so in
// res.Done.
func RestoreSettings(dir string, opts Options, res *RepairResult) error {
	s, err := Open(dir, opts)
	if err != nil {
		return err
	}
	defer s.Close()
	s.mu.RLock()
	m := s.m
	s.mu.RUnlock()
	if !m.settingsObjectLost(s) {
		return nil
	}
	if !hasParity(dir, m) {
		s.opts.NoParity = true
	}
	w, err := s.Begin()
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.Commit(m.payload); err != nil {
		return err
	}
	res.Done = append(res.Done, fmt.Sprintf("the settings object of the archive was lost: written again (generation %d)", w.m.seq))
	return nil
}
