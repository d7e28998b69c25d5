// Package parity protects immutable byte ranges of archive files with
// Reed–Solomon parity kept in a sidecar file, so that a damaged sector or
// flipped bytes in the protected range are located (a CRC-32C per
// sector) and corrected, never returned wrong. It knows nothing of what
// the files hold: a caller protects a range once it is final (a pack's
// bytes appended by one commit, a whole index, any future immutable file
// kind) and reads through the sidecar when its own checks of the file
// fail. docs/FORMAT.md "Parity" specifies the sidecar.
package parity

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/reedsolomon"
)

const (
	// SectorSize is the unit that is checked and reconstructed: a damaged
	// disk sector (4 KiB on current media) is at most two of them.
	SectorSize = 4096
	// BurstDivisor and MaxBurst set the burst a range is built to
	// correct (Burst): 1/BurstDivisor (3.1 %) of the file it lies in, up
	// to MaxBurst, so a file of 32 MiB or more survives a run of 1 MiB of
	// damage anywhere in it.
	BurstDivisor = 32
	MaxBurst     = 1 << 20
	// minParity is the parity shards every stripe has (but a range of
	// one sector): any two damaged sectors, wherever they fall, are
	// corrected.
	minParity = 2
	// maxShards is what GF(2^8) allows a stripe: data plus parity.
	maxShards = 256

	magic   = "BWPR"
	version = 3 // version 1: one parity shard per stripe of up to 48; 2: 4 KiB sectors only (FORMAT.md "Changes")
	// oldestWritten is the oldest version this writer still writes
	// (ranges in 4 KiB sectors); an older sidecar is outdated.
	oldestWritten = 2
	// minUnit is the smallest sector a version 3 sidecar cuts a range
	// into (units of SectorSize/2, /4, /8): a burst then costs its length
	// rounded up to a unit rather than to 4 KiB.
	minUnit    = SectorSize / 8
	headSize   = 48
	suffix     = ".par"
	maxName    = 255
	maxSectors = 1 << 40 / SectorSize // ranges up to 1 TiB
)

var (
	le         = binary.LittleEndian
	castagnoli = crc32.MakeTable(crc32.Castagnoli)
)

func crc(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// ErrUncorrectable is returned when more sectors of a stripe are damaged
// than it has parity for, or the sidecar itself is unreadable.
var ErrUncorrectable = errors.New("damage beyond what parity corrects")

// SidecarName is the name of the sidecar protecting the range of file
// name that starts at off: NAME.par for a range from the start (a whole
// immutable file), NAME.OFFSET.par (16 hex digits) for a later range of
// an append-only file.
func SidecarName(name string, off int64) string {
	if off == 0 {
		return name + suffix
	}
	return fmt.Sprintf("%s.%016x%s", name, off, suffix)
}

// ParseSidecarName splits a sidecar name into the protected file's name
// and the range start; ok is false for other names.
func ParseSidecarName(sc string) (name string, off int64, ok bool) {
	base, ok := strings.CutSuffix(sc, suffix)
	if !ok || base == "" {
		return "", 0, false
	}
	if i := strings.LastIndexByte(base, '.'); i > 0 && len(base)-i-1 == 16 {
		if v, err := strconv.ParseUint(base[i+1:], 16, 63); err == nil && v > 0 {
			return base[:i], int64(v), true
		}
	}
	return base, 0, true
}

// Sidecar is the decoded description of one protected range.
type Sidecar struct {
	Path    string // the sidecar file
	Name    string // the protected file's name (same directory)
	Off     int64  // range start in the protected file
	Len     int64  // range length
	version int    // of the sidecar's layout
	sector  int    // sector (and shard) size
	k, m    int    // data and parity shards per stripe
	n       int    // data sectors
	s       int    // stripes
	crcs    []uint32
	parOff  int64 // where the parity sectors start in the sidecar
	g       geom
	// MetaDamaged: one of the two copies of the header and checksums
	// failed its checks (the other served).
	MetaDamaged bool

	once sync.Once
	enc  reedsolomon.Encoder
	eerr error
}

// geom is how a range [off, off+l) is cut into sectors: at multiples of
// SectorSize in the file (so one damaged disk sector is one of ours; the
// first and last may be partial), a range within one such block being
// one sector of its own length.
type geom struct {
	off, l int64
	unit   int64 // where sectors are cut: SectorSize, or (version 3) a divisor of it
	sector int   // shard size
	n      int   // sectors
}

func newGeom(off, l, unit int64) geom {
	base := off - off%unit
	n := int((off + l - base + unit - 1) / unit)
	g := geom{off: off, l: l, unit: unit, sector: int(unit), n: n}
	if n == 1 {
		g.sector = int(l)
	}
	return g
}

// span is the file bytes of sector i.
func (g geom) span(i int) (int64, int64) {
	if g.n == 1 {
		return g.off, g.off + g.l
	}
	base := g.off - g.off%g.unit
	return max(g.off, base+int64(i)*g.unit), min(g.off+g.l, base+int64(i+1)*g.unit)
}

// sectorOf is the sector holding file offset x.
func (g geom) sectorOf(x int64) int {
	if g.n == 1 {
		return 0
	}
	return int((x - (g.off - g.off%g.unit)) / g.unit)
}

// shapeV1 returns the stripe count and data shards per stripe of a
// version 1 sidecar of n sectors: at most k data shards a stripe.
func shapeV1(n, k int) (s, kk int) {
	s = (n + k - 1) / k
	kk = (n + s - 1) / s
	return s, kk
}

// Burst is the run of damaged bytes that the sidecar of a range ending
// at offset end of its file is built to correct anywhere in the range:
// 1/BurstDivisor of end (the file's size when the range was protected),
// at most MaxBurst. A range that later parts of the file follow is
// protected for MaxBurst once it ends at BurstDivisor·MaxBurst (32 MiB).
func Burst(end int64) int64 {
	return min((end+BurstDivisor-1)/BurstDivisor, MaxBurst)
}

// plan chooses the stripes of a range of n sectors of unit bytes ending
// at file offset end: s stripes of k = ceil(n/s) data shards and m
// parity shards each, sector i being data shard i div s of stripe i mod
// s (interleaved: a run of r adjacent sectors puts at most ceil(r/s) in
// one stripe). It needs m ≥ 2 and s·m ≥ b, the sectors an unaligned run
// of Burst(end) bytes can touch, so that such a run leaves at most m
// damaged sectors in every stripe; and two damaged 4 KiB disk sectors,
// q = SectorSize/unit adjacent sectors each, at most m in a stripe:
// 2·ceil(q/s) ≤ m. Among those shapes it takes the fewest parity
// sectors s·m, then the fewest parity shards m; when the fewest is n or
// more, a copy (s = n, k = 1, m = 1) costs less and survives anything.
func plan(n int, end, unit int64) (s, k, m int) {
	if n <= 1 {
		return 1, 1, 1 // a copy: one sector is all a fault can take
	}
	q := int(SectorSize / unit)
	b := int((Burst(end)+unit-1)/unit) + 1
	b = min(max(b, minParity), n)
	best := -1
	for mm := minParity; mm <= maxShards/2; mm++ {
		ss := max((b+mm-1)/mm, (n+maxShards-mm-1)/(maxShards-mm), (q+mm/2-1)/(mm/2))
		if ss > n {
			break
		}
		if p := ss * mm; best < 0 || p < best {
			best, s, m = p, ss, mm
		}
	}
	if q > 1 && (best < 0 || best >= n) {
		return n, 1, 1
	}
	return s, (n + s - 1) / s, m
}

// sidecarSize is the size of the sidecar of a range cut as g, shaped by
// plan, for a file name of nl bytes.
func sidecarSize(g geom, end int64, nl int) int64 {
	s, _, m := plan(g.n, end, g.unit)
	meta := int64(headSize + nl + 4*(g.n+s*m) + 4)
	return 2*meta + int64(s*m*g.sector)
}

// chooseUnit picks the sector unit of a new sidecar of [off, off+l) of a
// file named name: the one of SectorSize, /2, /4, /8 whose sidecar is
// smallest (the larger on a tie). Smaller units round a burst up to
// less, but cost a checksum each: they pay on ranges of a few hundred
// KiB, whose burst is a few sectors.
func chooseUnit(off, l int64, nl int) int64 {
	best, bestSize := int64(SectorSize), sidecarSize(newGeom(off, l, SectorSize), off+l, nl)
	for u := int64(SectorSize / 2); u >= minUnit; u /= 2 {
		g := newGeom(off, l, u)
		if g.n > maxSectors {
			break
		}
		if sz := sidecarSize(g, off+l, nl); sz < bestSize {
			best, bestSize = u, sz
		}
	}
	return best
}

// Protect writes the sidecar for bytes [off, end) of dir/name, which must
// be final: temp file, fsync (unless nosync), rename. It returns the
// sidecar's name and size. An empty range needs none ("", 0).
func Protect(dir, name string, off, end int64, nosync bool) (string, int64, error) {
	return ProtectAs(dir, name, off, end, SidecarName(name, off), nosync)
}

// ProtectAs is Protect writing the sidecar under the name scName (in dir),
// for a caller that puts it in place later (replacing a sidecar of the
// same range start only once the longer range is committed).
func ProtectAs(dir, name string, off, end int64, scName string, nosync bool) (string, int64, error) {
	if end <= off {
		return "", 0, nil
	}
	if len(name) > maxName || strings.ContainsRune(name, '/') {
		return "", 0, fmt.Errorf("parity: bad file name %q", name)
	}
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return "", 0, fmt.Errorf("parity: %w", err)
	}
	defer f.Close()
	l := end - off
	g := newGeom(off, l, chooseUnit(off, l, len(name)))
	sector, n := g.sector, g.n
	if n > maxSectors {
		return "", 0, fmt.Errorf("parity: range of %d bytes too large", l)
	}
	s, kk, m := plan(n, end, g.unit)
	enc, err := newEncoder(kk, m)
	if err != nil {
		return "", 0, fmt.Errorf("parity: %w", err)
	}
	crcs := make([]uint32, n+s*m)
	par := make([]byte, s*m*sector)
	shards := make([][]byte, kk+m)
	buf := make([]byte, kk*sector)
	for st := 0; st < s; st++ {
		clear(buf)
		for j := 0; j < kk; j++ {
			shards[j] = buf[j*sector : (j+1)*sector]
			i := j*s + st
			if i >= n {
				continue
			}
			b, err := readSector(f, g, i, shards[j])
			if err != nil {
				return "", 0, fmt.Errorf("parity: read %s: %w", name, err)
			}
			crcs[i] = crc(b)
		}
		for p := 0; p < m; p++ {
			shards[kk+p] = par[(st*m+p)*sector : (st*m+p+1)*sector]
		}
		if err := enc.Encode(shards); err != nil {
			return "", 0, fmt.Errorf("parity: %w", err)
		}
		for p := 0; p < m; p++ {
			crcs[n+st*m+p] = crc(shards[kk+p])
		}
	}
	meta := encodeMeta(name, off, l, g.unit, sector, s, kk, m, crcs)
	out := make([]byte, 0, 2*len(meta)+len(par))
	out = append(out, meta...)
	out = append(out, par...)
	out = append(out, meta...)
	if err := writeAtomic(dir, scName, out, nosync); err != nil {
		return "", 0, err
	}
	return scName, int64(len(out)), nil
}

// readSector reads data sector i into dst (zero-padded) and returns the
// part that is data.
func readSector(f io.ReaderAt, g geom, i int, dst []byte) ([]byte, error) {
	start, end := g.span(i)
	n := end - start
	if _, err := f.ReadAt(dst[:n], start); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	clear(dst[n:])
	return dst[:n], nil
}

// encodeMeta lays out the header and the sector checksums; the sidecar
// holds it twice (first and last), so one damaged sector of the sidecar
// leaves one copy.
func encodeMeta(name string, off, l, unit int64, sector, s, k, m int, crcs []uint32) []byte {
	b := make([]byte, 0, headSize+len(name)+4*len(crcs)+4)
	b = append(b, magic...)
	// Ranges cut in 4 KiB sectors stay version 2 (an older reader
	// corrects them); only smaller units need version 3.
	v, u := uint16(oldestWritten), uint32(0)
	if unit != SectorSize {
		v, u = version, uint32(unit)
	}
	b = le.AppendUint16(b, v)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint32(b, uint32(sector))
	b = le.AppendUint16(b, uint16(k))
	b = le.AppendUint16(b, uint16(m))
	b = le.AppendUint64(b, uint64(off))
	b = le.AppendUint64(b, uint64(l))
	b = le.AppendUint32(b, uint32(len(crcs)))
	b = le.AppendUint32(b, uint32(len(name)))
	b = le.AppendUint32(b, uint32(s))
	b = le.AppendUint32(b, u) // version 3: the unit; else reserved
	b = append(b, name...)
	for _, c := range crcs {
		b = le.AppendUint32(b, c)
	}
	return le.AppendUint32(b, crc(b))
}

// Open reads a sidecar: the first copy of its header and checksums, else
// the last.
func Open(path string) (*Sidecar, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("parity: %w", err)
	}
	sc, err1 := decodeMeta(data, false)
	if err1 != nil {
		var err2 error
		if sc, err2 = decodeMeta(data, true); err2 != nil {
			return nil, fmt.Errorf("parity: sidecar %s: %v: %w", path, err1, ErrUncorrectable)
		}
		sc.MetaDamaged = true
	} else if _, err2 := decodeMeta(data, true); err2 != nil {
		sc.MetaDamaged = true
	}
	sc.Path = path
	return sc, nil
}

// Outdated says the sidecar is of a version this writer no longer
// writes (blockwarc upgrade rewrites it).
func (sc *Sidecar) Outdated() bool { return sc.version < oldestWritten }

// OpenMeta is Open reading only the first copy of the meta block (what
// a reader checking sectors needs: the checksums), not the parity
// sectors; it falls back to Open when that copy fails.
func OpenMeta(path string) (*Sidecar, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("parity: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("parity: %w", err)
	}
	var h [headSize]byte
	if _, err := f.ReadAt(h[:], 0); err == nil && string(h[:4]) == magic {
		cnt, nl := int64(le.Uint32(h[32:])), int64(le.Uint32(h[36:]))
		if ml := headSize + nl + 4*cnt + 4; nl <= maxName && cnt < 1<<30 && ml <= st.Size() {
			b := make([]byte, ml)
			if _, err := f.ReadAt(b, 0); err == nil {
				if sc, err := decodeMetaIn(b, st.Size()); err == nil {
					sc.Path = path
					return sc, nil
				}
			}
		}
	}
	return Open(path)
}

// decodeMeta decodes the first (fromEnd false) or last copy of the meta
// block. Its length follows from the fields, so the last copy is found
// by trying the length the fields of each candidate give.
func decodeMeta(data []byte, fromEnd bool) (*Sidecar, error) {
	var b []byte
	size := int64(len(data))
	if !fromEnd {
		b = data
	} else {
		// Both copies have the same length, so the last one starts at a
		// magic whose own counts make it end the file.
		for start := len(data) - headSize - 4; start >= len(data)/2; start-- {
			if start < 0 || string(data[start:start+4]) != magic {
				continue
			}
			cnt, nl := int(le.Uint32(data[start+32:])), int(le.Uint32(data[start+36:]))
			if nl <= maxName && cnt >= 0 && cnt < 1<<30 && start+headSize+nl+4*cnt+4 == len(data) {
				b = data[start:]
				break
			}
		}
		if b == nil {
			return nil, errors.New("no second header")
		}
	}
	return decodeMetaIn(b, size)
}

// decodeMetaIn decodes the meta block at the start of b; size is the
// sidecar's size, which the shape must account for exactly.
func decodeMetaIn(b []byte, size int64) (*Sidecar, error) {
	if len(b) < headSize+4 || string(b[:4]) != magic {
		return nil, errors.New("bad magic")
	}
	v := le.Uint16(b[4:])
	if v < 1 || v > version {
		return nil, fmt.Errorf("unknown version %d", v)
	}
	cnt, nl := int(le.Uint32(b[32:])), int(le.Uint32(b[36:]))
	if nl > maxName || cnt < 0 || cnt >= 1<<30 || headSize+nl+4*cnt+4 > len(b) {
		return nil, errors.New("bad counts")
	}
	ml := headSize + nl + 4*cnt
	if le.Uint32(b[ml:]) != crc(b[:ml]) {
		return nil, errors.New("header checksum mismatch")
	}
	sc := &Sidecar{
		version: int(v),
		sector:  int(le.Uint32(b[8:])),
		k:       int(le.Uint16(b[12:])),
		m:       int(le.Uint16(b[14:])),
		Off:     int64(le.Uint64(b[16:])),
		Len:     int64(le.Uint64(b[24:])),
		Name:    string(b[headSize : headSize+nl]),
	}
	if sc.Off < 0 || sc.Len <= 0 || sc.Len > maxSectors*SectorSize {
		return nil, errors.New("bad range")
	}
	unit := int64(SectorSize)
	if v >= 3 {
		unit = int64(le.Uint32(b[44:]))
		if unit < minUnit || unit >= SectorSize || SectorSize%unit != 0 {
			return nil, errors.New("bad sector unit")
		}
	}
	sc.g = newGeom(sc.Off, sc.Len, unit)
	n := sc.g.n
	var s, kk int
	if v == 1 {
		s, kk = shapeV1(n, max(sc.k, 1))
	} else {
		// Version 2 records the stripe count; the data shards follow.
		s = int(le.Uint32(b[40:]))
		if s < 1 || s > n {
			return nil, errors.New("bad stripe count")
		}
		kk = (n + s - 1) / s
	}
	if sc.sector != sc.g.sector || sc.k != kk || sc.m < 1 || kk+sc.m > maxShards || cnt != n+s*sc.m {
		return nil, errors.New("inconsistent shape")
	}
	sc.n, sc.s = n, s
	sc.crcs = make([]uint32, cnt)
	for i := range sc.crcs {
		sc.crcs[i] = le.Uint32(b[headSize+nl+4*i:])
	}
	metaLen := int64(ml + 4)
	sc.parOff = metaLen
	if want := 2*metaLen + int64(s*sc.m*sc.sector); size != want {
		return nil, fmt.Errorf("sidecar is %d bytes, want %d", size, want)
	}
	return sc, nil
}

func (sc *Sidecar) encoder() (reedsolomon.Encoder, error) {
	sc.once.Do(func() { sc.enc, sc.eerr = newEncoder(sc.k, sc.m) })
	return sc.enc, sc.eerr
}

// Sectors is the number of data sectors of the range.
func (sc *Sidecar) Sectors() int { return sc.n }

// Report says what a read through parity found.
type Report struct {
	Damaged   []int64 // offsets in the protected file of the data sectors that failed their checksum
	Corrected int     // of them, reconstructed
	ParityBad int     // parity sectors that failed their checksum
}

// ReadAt returns bytes [from, to) of the protected file, which must lie
// in the range: each sector is checked against its CRC and a damaged one
// is reconstructed from its stripe. It fails with ErrUncorrectable rather
// than return bytes that do not match their checksums.
func (sc *Sidecar) ReadAt(f io.ReaderAt, from, to int64) ([]byte, Report, error) {
	var rep Report
	if from < sc.Off || to > sc.Off+sc.Len || from > to {
		return nil, rep, fmt.Errorf("parity: [%d, %d) outside the protected range [%d, %d) of %s", from, to, sc.Off, sc.Off+sc.Len, sc.Name)
	}
	out := make([]byte, 0, to-from)
	if from == to {
		return out, rep, nil
	}
	first, last := sc.g.sectorOf(from), sc.g.sectorOf(to-1)
	buf := make([]byte, sc.sector)
	fixed := make(map[int][]byte)
	for i := first; i <= last; i++ {
		start, _ := sc.g.span(i)
		b, err := readSector(f, sc.g, i, buf)
		if err != nil || crc(b) != sc.crcs[i] {
			rep.Damaged = append(rep.Damaged, start)
			if fixed[i] == nil {
				if err := sc.reconstruct(f, i%sc.s, fixed, &rep); err != nil {
					return nil, rep, err
				}
			}
			b = fixed[i]
			rep.Corrected++
		}
		lo, hi := max(from, start)-start, min(to, start+int64(len(b)))-start
		out = append(out, b[lo:hi]...)
	}
	return out, rep, nil
}

// reconstruct rebuilds every damaged data sector of stripe st into fixed
// (by sector number), each checked against its CRC.
func (sc *Sidecar) reconstruct(f io.ReaderAt, st int, fixed map[int][]byte, rep *Report) error {
	enc, err := sc.encoder()
	if err != nil {
		return fmt.Errorf("parity: %w", err)
	}
	pf, err := os.Open(sc.Path)
	if err != nil {
		return fmt.Errorf("parity: %w", err)
	}
	defer pf.Close()
	shards := make([][]byte, sc.k+sc.m)
	var bad []int
	for j := 0; j < sc.k; j++ {
		i := j*sc.s + st
		sh := make([]byte, sc.sector)
		if i >= sc.n {
			shards[j] = sh // padding: zeros by definition
			continue
		}
		b, err := readSector(f, sc.g, i, sh)
		if err == nil && crc(b) == sc.crcs[i] {
			shards[j] = sh
		} else {
			bad = append(bad, j)
		}
	}
	for p := 0; p < sc.m; p++ {
		sh := make([]byte, sc.sector)
		pi := st*sc.m + p
		if _, err := pf.ReadAt(sh, sc.parOff+int64(pi)*int64(sc.sector)); err == nil && crc(sh) == sc.crcs[sc.n+pi] {
			shards[sc.k+p] = sh
		} else {
			rep.ParityBad++
		}
	}
	if err := enc.ReconstructData(shards); err != nil {
		return fmt.Errorf("parity: %s stripe %d: %d damaged data sectors, %d parity sectors good: %w", sc.Name, st, len(bad), sc.m-rep.ParityBad, ErrUncorrectable)
	}
	for _, j := range bad {
		i := j*sc.s + st
		start, end := sc.g.span(i)
		b := shards[j][:end-start]
		if crc(b) != sc.crcs[i] {
			return fmt.Errorf("parity: %s sector at %d: reconstruction does not match its checksum: %w", sc.Name, start, ErrUncorrectable)
		}
		fixed[i] = b
	}
	return nil
}

// Check reads the whole range and reports its damaged sectors and
// whether parity corrects them all (err is ErrUncorrectable if not), and
// which parity sectors are damaged.
func (sc *Sidecar) Check(f io.ReaderAt) (Report, error) {
	_, rep, err := sc.ReadAt(f, sc.Off, sc.Off+sc.Len)
	if err != nil {
		return rep, err
	}
	// Parity sectors: checked too, so that verify reports a sidecar that
	// would not help next time.
	pf, err := os.Open(sc.Path)
	if err != nil {
		return rep, fmt.Errorf("parity: %w", err)
	}
	defer pf.Close()
	sh := make([]byte, sc.sector)
	for pi := 0; pi < sc.s*sc.m; pi++ {
		if _, err := pf.ReadAt(sh, sc.parOff+int64(pi)*int64(sc.sector)); err != nil || crc(sh) != sc.crcs[sc.n+pi] {
			rep.ParityBad++
		}
	}
	return rep, nil
}

// ParityDamaged counts the parity sectors of the sidecar that fail their
// checksums (they would not help next time).
func (sc *Sidecar) ParityDamaged() (int, error) {
	pf, err := os.Open(sc.Path)
	if err != nil {
		return 0, fmt.Errorf("parity: %w", err)
	}
	defer pf.Close()
	bad := 0
	sh := make([]byte, sc.sector)
	for pi := 0; pi < sc.s*sc.m; pi++ {
		if _, err := pf.ReadAt(sh, sc.parOff+int64(pi)*int64(sc.sector)); err != nil || crc(sh) != sc.crcs[sc.n+pi] {
			bad++
		}
	}
	return bad, nil
}

// Fix rewrites the damaged sectors of the protected file in place
// (through a corrected copy renamed over it, so a crash leaves the old
// or the new file). It returns how many sectors it corrected.
func (sc *Sidecar) Fix(dir string, nosync bool) (int, error) {
	path := filepath.Join(dir, sc.Name)
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("parity: %w", err)
	}
	defer f.Close()
	good, rep, err := sc.ReadAt(f, sc.Off, sc.Off+sc.Len)
	if err != nil {
		return 0, err
	}
	if rep.Corrected == 0 {
		return 0, nil
	}
	if err := rewrite(dir, sc.Name, f, sc.Off, good, nosync); err != nil {
		return 0, err
	}
	return rep.Corrected, nil
}

// rewrite replaces dir/name by a copy of f with good written at off.
func rewrite(dir, name string, f *os.File, off int64, good []byte, nosync bool) error {
	tmp := filepath.Join(dir, name+".tmp")
	t, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return fmt.Errorf("parity: %w", err)
	}
	fail := func(err error) error {
		t.Close()
		os.Remove(tmp)
		return fmt.Errorf("parity: rewrite %s: %w", name, err)
	}
	if _, err := io.Copy(t, io.NewSectionReader(f, 0, 1<<62)); err != nil {
		return fail(err)
	}
	if _, err := t.WriteAt(good, off); err != nil {
		return fail(err)
	}
	if !nosync {
		if err := t.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := t.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("parity: rewrite %s: %w", name, err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("parity: %w", err)
	}
	return nil
}

func writeAtomic(dir, name string, b []byte, nosync bool) error {
	tmp := filepath.Join(dir, name+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return fmt.Errorf("parity: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("parity: write %s: %w", name, err)
	}
	if !nosync {
		if err := f.Sync(); err != nil {
			f.Close()
			os.Remove(tmp)
			return fmt.Errorf("parity: sync %s: %w", name, err)
		}
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("parity: write %s: %w", name, err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("parity: %w", err)
	}
	return nil
}

// Patch is one corrected sector: the bytes the protected file should
// hold at Off.
type Patch struct {
	Off  int64
	Data []byte
}

// Scan reads the whole range, a chunk at a time, and returns the
// corrected bytes of every damaged sector (the file is not changed). It
// fails with ErrUncorrectable when a damaged sector cannot be rebuilt.
func (sc *Sidecar) Scan(f io.ReaderAt) ([]Patch, Report, error) {
	var rep Report
	var patches []Patch
	const chunk = 256
	buf := make([]byte, chunk*sc.sector)
	fixed := make(map[int][]byte)
	for first := 0; first < sc.n; first += chunk {
		last := min(first+chunk, sc.n) - 1
		cs, _ := sc.g.span(first)
		_, ce := sc.g.span(last)
		got, _ := f.ReadAt(buf[:ce-cs], cs)
		for i := first; i <= last; i++ {
			start, end := sc.g.span(i)
			lo, hi := start-cs, end-cs
			if hi <= int64(got) && crc(buf[lo:hi]) == sc.crcs[i] {
				continue
			}
			rep.Damaged = append(rep.Damaged, start)
			if fixed[i] == nil {
				if err := sc.reconstruct(f, i%sc.s, fixed, &rep); err != nil {
					return nil, rep, err
				}
			}
			rep.Corrected++
			patches = append(patches, Patch{Off: start, Data: fixed[i]})
		}
	}
	return patches, rep, nil
}

// SectorOf is the sector holding file offset x (in the range), and
// SectorSpan the file bytes [start, end) of sector i.
func (sc *Sidecar) SectorOf(x int64) int { return sc.g.sectorOf(x) }

func (sc *Sidecar) SectorSpan(i int) (int64, int64) { return sc.g.span(i) }

// SectorOK reports whether b, the bytes of sector i, match its checksum.
func (sc *Sidecar) SectorOK(i int, b []byte) bool { return crc(b) == sc.crcs[i] }
