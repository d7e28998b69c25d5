// Package shard reads and writes sharded archives: a directory NAME.bwa
// holding a small manifest (SHARDS) and one ordinary archive per SURT key
// range (docs/FORMAT.md, "Shards"). An archive without a manifest is one
// shard, so every archive opens through Open.
package shard

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ManifestName is the manifest's file name in the archive directory;
// CopyName its copy, read when the manifest is damaged or missing, as
// COMMIT.copy is for COMMIT: without a manifest no shard can be found.
const (
	ManifestName = "SHARDS"
	CopyName     = "SHARDS.copy"
)

// formatVersion is the manifest version this package writes; it reads
// versions up to it.
const formatVersion = 1

// maxManifest bounds the manifest a reader accepts (a few bytes per shard).
const maxManifest = 16 << 20

// Manifest lists the shards of a sharded archive.
type Manifest struct {
	// Generation counts the manifests written to this archive; a change
	// of the shard list (none today: boundaries are fixed once) takes the
	// next generation.
	Generation uint64
	// Recovered, set by ReadManifest, says that one of the manifest's
	// two copies is damaged or missing (the other was read): WriteManifest
	// rewrites both. Not part of the manifest.
	Recovered string
	// Shards in ascending key order. Shard i holds the SURT keys k with
	// Shards[i].First <= k < Shards[i+1].First; the first shard's First
	// is "" (it also holds the records without a target URI and the
	// bytes between records).
	Shards []Shard
}

// Shard is one key range of a sharded archive.
type Shard struct {
	Name  string // directory inside the archive, an ordinary archive
	First string // first SURT key of the range
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrNoManifest says the directory holds no shard manifest: an
// unsharded archive (or none).
var ErrNoManifest = errors.New("no shard manifest")

// NewManifest returns the generation-1 manifest of the shards that the
// boundaries cut: shard i+1 begins at boundaries[i] (ascending, none
// empty).
func NewManifest(boundaries []string) (*Manifest, error) {
	m := &Manifest{Generation: 1, Shards: []Shard{{Name: shardName(0)}}}
	for i, b := range boundaries {
		if b == "" || i > 0 && b <= boundaries[i-1] {
			return nil, fmt.Errorf("shard boundaries must be non-empty and ascending: %q", boundaries)
		}
		m.Shards = append(m.Shards, Shard{Name: shardName(i + 1), First: b})
	}
	return m, nil
}

func shardName(i int) string { return fmt.Sprintf("shard-%04d", i) }

// Boundaries returns the first keys of shards 1...: the cut points.
func (m *Manifest) Boundaries() []string {
	out := make([]string, 0, len(m.Shards)-1)
	for _, s := range m.Shards[1:] {
		out = append(out, s.First)
	}
	return out
}

// Route returns the index of the shard holding key.
func (m *Manifest) Route(key string) int {
	// The last shard whose First <= key; shard 0 starts at "".
	return sort.Search(len(m.Shards), func(i int) bool { return m.Shards[i].First > key }) - 1
}

// encode writes the manifest as text (docs/FORMAT.md, "Shards").
func (m *Manifest) encode() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "blockwarc-shards %d\n", formatVersion)
	fmt.Fprintf(&b, "generation %d\n", m.Generation)
	for _, s := range m.Shards {
		fmt.Fprintf(&b, "shard %s %s\n", s.Name, strconv.Quote(s.First))
	}
	fmt.Fprintf(&b, "crc32c %08x\n", crc32.Checksum(b.Bytes(), castagnoli))
	return b.Bytes()
}

// decodeManifest parses and checks a manifest.
func decodeManifest(data []byte) (*Manifest, error) {
	bad := func(format string, args ...any) (*Manifest, error) {
		return nil, fmt.Errorf("bad shard manifest: "+format, args...)
	}
	i := bytes.LastIndex(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if i < 0 || !bytes.HasSuffix(data, []byte("\n")) {
		return bad("truncated")
	}
	body, last := data[:i+1], strings.TrimSpace(string(data[i+1:]))
	var sum uint32
	if _, err := fmt.Sscanf(last, "crc32c %08x", &sum); err != nil {
		return bad("no checksum line")
	}
	if got := crc32.Checksum(body, castagnoli); got != sum {
		return bad("CRC-32C %08x, the file says %08x", got, sum)
	}
	lines := strings.Split(strings.TrimSuffix(string(body), "\n"), "\n")
	var version int
	if _, err := fmt.Sscanf(lines[0], "blockwarc-shards %d", &version); err != nil {
		return bad("first line %q", lines[0])
	}
	if version < 1 || version > formatVersion {
		return bad("version %d (this blockwarc reads up to %d)", version, formatVersion)
	}
	m := &Manifest{}
	for _, l := range lines[1:] {
		word, rest, _ := strings.Cut(l, " ")
		switch word {
		case "generation":
			g, err := strconv.ParseUint(rest, 10, 64)
			if err != nil {
				return bad("generation %q", rest)
			}
			m.Generation = g
		case "shard":
			name, q, _ := strings.Cut(rest, " ")
			first, err := strconv.Unquote(q)
			if err != nil || name == "" || name != filepath.Base(name) || name == "." || name == ".." {
				return bad("shard line %q", l)
			}
			if n := len(m.Shards); n == 0 && first != "" || n > 0 && first <= m.Shards[n-1].First {
				return bad("shard %s: key ranges not ascending from \"\"", name)
			}
			m.Shards = append(m.Shards, Shard{Name: name, First: first})
		default:
			// Later versions may add lines; this version has no others.
			return bad("line %q", l)
		}
	}
	if len(m.Shards) == 0 {
		return bad("no shards")
	}
	return m, nil
}

// ReadManifest reads the manifest of the archive in dir, from SHARDS or,
// when that is damaged or missing, from SHARDS.copy (Manifest.Recovered
// says so, as it does a damaged copy); ErrNoManifest (wrapping
// fs.ErrNotExist) when it has neither.
func ReadManifest(dir string) (*Manifest, error) {
	m, err := readManifestFile(filepath.Join(dir, ManifestName))
	c, cerr := readManifestFile(filepath.Join(dir, CopyName))
	switch {
	case err == nil:
		// An archive written before the copy has none: nothing to say.
		if cerr != nil && !errors.Is(cerr, fs.ErrNotExist) {
			m.Recovered = fmt.Sprintf("%v (%s was read; the next ingest rewrites the copy)", cerr, ManifestName)
		}
		return m, nil
	case cerr == nil:
		c.Recovered = fmt.Sprintf("%v: its copy %s was read instead (the next ingest rewrites it)", err, CopyName)
		return c, nil
	case errors.Is(err, fs.ErrNotExist) && errors.Is(cerr, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: %w (%w)", dir, ErrNoManifest, fs.ErrNotExist)
	case errors.Is(cerr, fs.ErrNotExist):
		return nil, err
	}
	return nil, fmt.Errorf("%w; and its copy: %w", err, cerr)
}

// readManifestFile reads and checks one copy of the manifest.
func readManifestFile(p string) (*Manifest, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxManifest {
		return nil, fmt.Errorf("%s: bad shard manifest: %d bytes", p, fi.Size())
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	m, err := decodeManifest(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return m, nil
}

// MendManifest writes both copies of m, read from dir, when one of them
// is damaged or missing (m.Recovered), or when the copy is missing (an
// archive sharded before it, or created up to a crash between the two
// writes); note says what was mended, "" when nothing was.
func MendManifest(dir string, m *Manifest) (note string, err error) {
	switch _, err := os.Stat(filepath.Join(dir, CopyName)); {
	case m.Recovered != "":
		note = "shard manifest rewritten: " + m.Recovered
	case errors.Is(err, fs.ErrNotExist):
		note = "shard manifest: its copy " + CopyName + " written"
	default:
		return "", nil
	}
	if err := WriteManifest(dir, m); err != nil {
		return "", err
	}
	m.Recovered = ""
	return note, nil
}

// WriteManifest publishes m in dir atomically, as SHARDS and then as
// SHARDS.copy: each written and synced under a temporary name, renamed
// over its name, the directory synced. A crash between the two leaves
// one copy new and one old, both valid.
func WriteManifest(dir string, m *Manifest) error {
	if err := writeManifestFile(dir, ManifestName, m); err != nil {
		return err
	}
	return writeManifestFile(dir, CopyName, m)
}

func writeManifestFile(dir, name string, m *Manifest) error {
	// Not os.CreateTemp (always 0600, then a chmod to 0644 that ignored
	// the umask): 0666 and the umask decide, as for every archive file, so
	// a group-writable umask gives a group-writable archive.
	tmp, err := os.OpenFile(filepath.Join(dir, "."+name+".tmp-"+strconv.FormatUint(rand.Uint64(), 36)), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return fmt.Errorf("write shard manifest: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(m.encode())
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, name))
	}
	if err == nil {
		var d *os.File
		if d, err = os.Open(dir); err == nil {
			err = d.Sync()
			d.Close()
		}
	}
	if err != nil {
		return fmt.Errorf("write shard manifest: %w", err)
	}
	return nil
}
