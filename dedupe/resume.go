package dedupe

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash"
)

// Resume = one pass (docs/FORMAT.md "Crash and resume"). An ingest
// commits at points decided by the walk alone: after the URL at which
// the input bytes since the last commit reach Options.CommitBytes. Every
// commit but the last records in the root where the walk was (openIngest),
// and leaves nothing behind that the next commit depends on: frames are
// cut, the chunk table starts empty, the catalog entries are written, and
// the previous URL's first page is forgotten (crossBases). Running the
// ingest again therefore skips the captures up to that point without
// modelling them, extends the same run of the catalog, and writes from
// there exactly what the uninterrupted ingest wrote.

// openIngest is where the ingest in progress was at its last commit.
type openIngest struct {
	// Run is the index of the ingest's run in root.Runs (the run may be
	// absent while it is empty).
	Run int
	// Key is the last URL key committed: every capture whose key sorts
	// at or before it is in the archive.
	Key string
	// Walk is the walk digest (walkDigest) of the captures up to and
	// including Key's: a re-run resumes only when its inputs give the
	// same one, so that it skips exactly what was committed.
	Walk [32]byte
}

func (o *openIngest) appendTo(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(o.Run))
	b = appendString(b, o.Key)
	return append(b, o.Walk[:]...)
}

// decodeOpen reads an openIngest of a root with runs runs.
func decodeOpen(d *dec, runs int) *openIngest {
	o := &openIngest{}
	run := d.uvarint("open ingest run")
	o.Key = d.str("open ingest key")
	copy(o.Walk[:], d.bytes(32, "open ingest walk digest"))
	// The open run is the last one, or not written yet (empty).
	if d.err == nil && run != uint64(runs) && run+1 != uint64(runs) {
		d.fail("open ingest run")
	}
	o.Run = int(run)
	return o
}

// errResumeMismatch: the inputs of a re-run do not give the walk the
// interrupted ingest committed (different or changed files); Ingest then
// ingests them as a new run, as it would new files.
var errResumeMismatch = errors.New("inputs differ from those of the interrupted ingest")

// walkDigest hashes the captures of a walk in order: key, file path,
// position, length and CRC of each. It depends on the inputs and the
// selection alone.
type walkDigest struct {
	h   hash.Hash
	buf []byte
}

func newWalkDigest() *walkDigest { return &walkDigest{h: sha256.New()} }

func (w *walkDigest) add(key string, v *Version) {
	b := appendString(w.buf[:0], key)
	// The path as given, as the catalog records it: a re-run naming the
	// files otherwise starts a run of its own rather than mix spellings
	// in one.
	b = appendString(b, v.File)
	b = binary.AppendVarint(b, v.Offset)
	b = binary.AppendVarint(b, v.Skip)
	b = binary.AppendVarint(b, v.Length)
	b = binary.LittleEndian.AppendUint32(b, v.CRC)
	if v.Gap {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	w.h.Write(b)
	w.buf = b
}

func (w *walkDigest) sum() (s [32]byte) {
	w.h.Sum(s[:0])
	return s
}
