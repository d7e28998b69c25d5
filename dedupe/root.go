package dedupe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/zstdlib"
)

// segRef locates one catalog segment.
type segRef struct {
	First, Last string
	ID          pack.ID
}

// filePart locates one part of the input-file table (catalog version 8):
// an object holding Rows consecutive rows of the table.
type filePart struct {
	Rows int
	ID   pack.ID
}

// root is the decoded commit payload.
type root struct {
	// Files is the input-file table. In a version 8 root it is stored in
	// the parts listed in Parts and is loaded from them by load: until
	// then it is nil. Rows past those the parts hold (an ingest's new
	// files, or the inline table of an older root) go into a new part at
	// the next commit (storeFiles).
	Files []InputFile
	Parts []filePart
	// loaded says Files holds every row of Parts (and the rows after).
	loaded bool
	Runs   [][]segRef
	// Dates are the capture dates of each run (catalog version 10;
	// runDates): Dates[i] is Runs[i]'s, unknown past its end.
	Dates []runDates
	// Open is set in the commits an ingest makes before its last one:
	// where it was, so that running it again resumes there (resume.go).
	Open *openIngest
}

// maxRootPlain bounds a version 4 root's decompressed body, so that a
// damaged or hostile COMMIT cannot make a reader allocate without bound
// (the pack layer bounds the payload itself to 16 MiB).
const maxRootPlain = 256 << 20

// encode writes the root, as version 10: the parts of the input-file
// table, the runs with their dates, and the open ingest. Call
// storeFiles first. Since version 4 the body after the version is one
// zstd frame.
func (r *root) encode() ([]byte, error) {
	if r.loaded && r.stored() != len(r.Files) { // unloaded: the parts as they are
		return nil, fmt.Errorf("encode catalog root: %d input-file rows not stored in a part", len(r.Files)-r.stored())
	}
	var b []byte
	b = binary.AppendUvarint(b, uint64(len(r.Parts)))
	for _, p := range r.Parts {
		b = binary.AppendUvarint(b, uint64(p.Rows))
		b = append(b, p.ID[:]...)
	}
	b = r.appendRuns(b)
	if r.Open == nil {
		b = append(b, 0)
	} else {
		b = r.Open.appendTo(append(b, 1))
	}
	return wrapRoot(b, catalogVersion)
}

// stored is how many rows of the input-file table the parts hold.
func (r *root) stored() int {
	n := 0
	for _, p := range r.Parts {
		n += p.Rows
	}
	return n
}

// storeFiles writes the rows of the input-file table no part holds as a
// new part, in a frame of its own (so that loading the table decodes no
// data frame), and lists it. The table lives in the packs rather than in
// COMMIT: COMMIT and COMMIT.copy are rewritten at every commit, and the
// rows, two SHA-256 digests and a gzip member table per input file, were
// most of them (8.4 of 8.9 KB, twice, on a site of 77 crawls).
func (r *root) storeFiles(w *pack.Writer) error {
	n := r.stored()
	if n == len(r.Files) {
		return nil
	}
	id, err := addFilePart(w, r.Files[n:])
	if err != nil {
		return err
	}
	r.Parts = append(r.Parts, filePart{Rows: len(r.Files) - n, ID: id})
	return nil
}

// rewriteParts stores again, each as a new part of the same rows, the
// parts of the input-file table that hold a row changed since they were
// written (changed[i] for row i), then the rows past the parts
// (storeFiles). Prove changes rows in place; the other parts stay as
// they are, so that proving after every ingest costs that ingest's rows
// rather than the whole table again each time.
func (r *root) rewriteParts(w *pack.Writer, changed map[int]bool) error {
	start := 0
	for k := range r.Parts {
		p := &r.Parts[k]
		end := start + p.Rows
		for i := start; i < end; i++ {
			if changed[i] {
				id, err := addFilePart(w, r.Files[start:end])
				if err != nil {
					return err
				}
				p.ID = id
				break
			}
		}
		start = end
	}
	return r.storeFiles(w)
}

// addFilePart stores rows as a part of the input-file table, in a frame
// of its own.
func addFilePart(w *pack.Writer, rows []InputFile) (pack.ID, error) {
	if err := w.Flush(); err != nil {
		return pack.ID{}, err
	}
	id, _, err := w.Add(pack.KindVersionCatalog, encodeFilePart(rows))
	if err != nil {
		return pack.ID{}, fmt.Errorf("store input-file table: %w", err)
	}
	return id, w.Flush()
}

// encodeFilePart is a part of the input-file table: magic, then rows
// coded as in a version 6 root (each against the row before it in the
// part).
func encodeFilePart(rows []InputFile) []byte {
	b := []byte(filePartMagic)
	return appendFileRows(b, rows)
}

// decodeFilePart reads a part of want rows.
func decodeFilePart(b []byte, want int) ([]InputFile, error) {
	if len(b) < 4 || string(b[:4]) != filePartMagic {
		return nil, fmt.Errorf("%w: input-file table part has no %s magic", errCatalog, filePartMagic)
	}
	d := &dec{b: b[4:], f: catalogFormats[catalogVersion]}
	rows := d.fileRows()
	if d.err == nil && len(d.b) != 0 {
		d.fail("input-file table part length")
	}
	if d.err == nil && len(rows) != want {
		d.fail("input-file table part rows")
	}
	return rows, d.err
}

// lostPart is a part of the input-file table that does not read.
type lostPart struct {
	filePart
	err error
}

func (l lostPart) Error() string {
	return fmt.Sprintf("input-file table part %s (%d files): %v", l.ID, l.Rows, l.err)
}

// readParts reads the parts of the input-file table: the rows of those
// that read, those parts, and the others.
func (r *root) readParts(s *pack.Store) (files []InputFile, read []filePart, lost []lostPart) {
	for _, p := range r.Parts {
		b, _, err := s.Get(p.ID)
		var rows []InputFile
		if err == nil {
			rows, err = decodeFilePart(b, p.Rows)
		}
		if err != nil {
			lost = append(lost, lostPart{p, err})
			continue
		}
		files = append(files, rows...)
		read = append(read, p)
	}
	return files, read, lost
}

// loadReadable reads the parts of the input-file table that read and
// drops the others from Parts, so that the table is what remains (repair:
// recoverFileRows adds the lost rows back as a new part); it returns the
// dropped parts.
func (r *root) loadReadable(s *pack.Store) []lostPart {
	if r.loaded {
		return nil
	}
	files, read, errs := r.readParts(s)
	r.Files, r.Parts, r.loaded = files, read, true
	return errs
}

// load reads the input-file table from its parts. When a part does not
// read, the table holds the rows of the others (Archive.Files) and the
// error says which; the root is then not to be written again.
func (r *root) load(s *pack.Store) error {
	if r.loaded {
		return nil
	}
	files, _, lost := r.readParts(s)
	r.Files = files
	if len(lost) > 0 {
		errs := make([]error, len(lost))
		for i, l := range lost {
			errs[i] = l
		}
		return errors.Join(errs...)
	}
	r.loaded = true
	return nil
}

// wrapRoot prefixes magic and version to a root body and compresses it:
// with the reference library at level 19 when built in (as the packs'
// frames, and checked the same way: decoded again by the readers'
// decoder), else with klauspost. The root is written twice (COMMIT and
// COMMIT.copy) at every commit; the four corpus sites in one ingest:
// 676 → 623 bytes each (klauspost's better level wrote a checksum the
// commit's CRC makes redundant).
func wrapRoot(body []byte, version uint64) ([]byte, error) {
	b := []byte(rootMagic)
	b = binary.AppendUvarint(b, version)
	if zstdlib.Available {
		if enc, err := zstdlib.CompressSplit(bytes.Clone(b), body, 19); err == nil && rootDecodes(enc[len(b):], body) {
			return enc, nil
		}
	}
	// A window that holds the root gives the same frame as the default
	// one (one segment), without the default's 32 MiB of history that
	// klauspost allocates and clears for each encoder.
	e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(rootWindow(len(body))))
	if err != nil {
		return nil, fmt.Errorf("encode catalog root: %w", err)
	}
	defer e.Close()
	return e.EncodeAll(body, b), nil
}

// rootWindow is the smallest power of two from 1 MiB up that holds n
// bytes, or the library's default (8 MiB) for larger bodies, which must
// keep it to come out as before.
func rootWindow(n int) int {
	w := 1 << 20
	for w < n && w < 8<<20 {
		w <<= 1
	}
	return w
}

// rootDecodes says whether the readers' decoder gives body back from
// frame.
func rootDecodes(frame, body []byte) bool {
	zd, err := rootDecoder()
	if err != nil {
		return false
	}
	back, err := zd.DecodeAll(frame, nil)
	return err == nil && bytes.Equal(back, body)
}

// rootDecoder is the decoder of catalog roots, made once: every open
// decodes a root, and a decoder made and closed for each cost more than
// the root's decode (0.31 against 0.13 ms for a root of 351 runs).
// DecodeAll is safe for concurrent use.
var rootDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxRootPlain))
})

// appendFileRows writes the rows of an input-file table as version 6
// roots and version 8 parts hold them.
func appendFileRows(b []byte, rows []InputFile) []byte {
	b = binary.AppendUvarint(b, uint64(len(rows)))
	prev := ""
	var prevSize int64
	for _, f := range rows {
		// Names are front- and back-coded: dumps of one crawl share long
		// prefixes ("site-2022…") and suffixes (".warc.gz"), and the table
		// (not compressed) has a row per input file. Sizes are differences
		// from the previous row's: dumps of one crawl have similar sizes.
		n := commonPrefix(prev, f.Name)
		q := commonSuffix(prev[n:], f.Name[n:])
		b = binary.AppendUvarint(b, uint64(n))
		b = binary.AppendUvarint(b, uint64(q))
		b = appendString(b, f.Name[n:len(f.Name)-q])
		prev = f.Name
		b = binary.AppendVarint(b, f.Size-prevSize)
		prevSize = f.Size
		b = append(b, f.SHA256[:]...)
		b = appendCount(b, f.Records)
		b = appendCount(b, f.Malformed)
		// Version 5: the decompressed stream, when known.
		b = appendCount(b, f.StreamLen)
		if f.StreamLen >= 0 {
			b = append(b, f.StreamSHA256[:]...)
			b = binary.AppendUvarint(b, uint64(f.Gaps))
			var fl byte
			if f.Rebuildable {
				fl |= 1
			}
			b = append(b, fl)
			// Version 6: bit-exact compressed, and how.
			switch {
			case f.OriginalWhy != originalExact:
				b = append(b, f.OriginalWhy)
			case f.Original == nil:
				b = append(b, originalUnknown)
			default:
				b = f.Original.appendTo(append(b, originalExact))
			}
		}
	}
	return b
}

// appendRuns writes the runs of catalog segments, each followed by its
// dates (version 10).
func (r *root) appendRuns(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(r.Runs)))
	for i, run := range r.Runs {
		b = binary.AppendUvarint(b, uint64(len(run)))
		for _, s := range run {
			b = appendString(b, s.First)
			b = appendString(b, s.Last)
			b = append(b, s.ID[:]...)
		}
		b = appendDates(b, r.dates(i))
	}
	return b
}

// appendCount writes a count that may be unknown (negative) as
// uvarint(n+1), 0 meaning unknown.
func appendCount(b []byte, n int64) []byte {
	if n < 0 {
		return append(b, 0)
	}
	return binary.AppendUvarint(b, uint64(n)+1)
}

func (d *dec) count64(what string) int64 {
	n := d.uvarint(what)
	if n == 0 || n > 1<<62 {
		return -1
	}
	return int64(n - 1)
}

func decodeRoot(b []byte) (*root, error) {
	r := &root{}
	if len(b) == 0 {
		return r, nil // a fresh archive
	}
	if len(b) < 4 || string(b[:4]) != rootMagic {
		return nil, fmt.Errorf("%w: commit payload has no %s magic", errCatalog, rootMagic)
	}
	d := &dec{b: b[4:]}
	ver := d.uvarint("version")
	if d.f = catalogFormats[ver]; d.err == nil && d.f == nil {
		return nil, fmt.Errorf("%w: catalog version %d, this reader knows %d to %d", errCatalog, ver, oldestCatalog, newestCatalog)
	}
	if d.err != nil {
		return nil, d.err
	}
	if d.f.rootZstd {
		zd, err := rootDecoder()
		if err != nil {
			return nil, fmt.Errorf("decode catalog root: %w", err)
		}
		body, err := zd.DecodeAll(d.b, nil)
		if err != nil {
			return nil, fmt.Errorf("%w: catalog root: decompress: %v", errCatalog, err)
		}
		d.b = body
	}
	if d.f.fileParts {
		np := d.count("file part count", 33)
		r.Parts = make([]filePart, 0, np)
		for range np {
			p := filePart{Rows: int(d.uvarint("file part rows")), ID: d.id("file part id")}
			if d.err == nil && (p.Rows <= 0 || p.Rows > maxFileRows) {
				d.fail("file part rows")
			}
			r.Parts = append(r.Parts, p)
		}
	} else {
		r.Files, r.loaded = d.fileRows(), true
	}
	// Sized once (each count is bounded by the bytes left), and the runs'
	// segments cut from shared slabs: a root of a crawl-at-a-time archive
	// holds a run of one segment per ingest, and is decoded at each open.
	nr := d.count("run count", 1)
	r.Runs = make([][]segRef, 0, nr)
	if d.f.runDates {
		r.Dates = make([]runDates, 0, nr)
	}
	var slab []segRef
	for range nr {
		ns := d.count("segment count", 34)
		if cap(slab)-len(slab) < ns {
			slab = make([]segRef, 0, max(ns, min(nr, 256)))
		}
		start := len(slab)
		for range ns {
			slab = append(slab, segRef{First: d.str("first key"), Last: d.str("last key"), ID: d.id("segment id")})
		}
		r.Runs = append(r.Runs, slab[start:len(slab):len(slab)])
		if d.f.runDates {
			r.Dates = append(r.Dates, d.runDates())
		}
	}
	switch {
	case d.f.openFlag:
		if o := d.bytes(1, "open ingest flag"); o != nil {
			switch o[0] {
			case 0:
			case 1:
				r.Open = decodeOpen(d, len(r.Runs))
			default:
				d.fail("open ingest flag")
			}
		}
	case d.f.openIngest:
		r.Open = decodeOpen(d, len(r.Runs))
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("payload length")
	}
	return r, d.err
}

// fileRows reads an input-file table: its row count, then the rows.
func (d *dec) fileRows() []InputFile {
	nf := d.count("file count", 35)
	var files []InputFile
	var prev InputFile
	for range nf {
		f := d.f.fileRow(d, &prev)
		if d.err != nil {
			break
		}
		files = append(files, f)
		prev = f
	}
	return files
}

// fileRowV2 reads an input-file row of catalog version 2: the name
// front-coded against the previous row's, the size, the SHA-256.
func fileRowV2(d *dec, prev *InputFile) InputFile {
	n := d.uvarint("file name prefix")
	if n > uint64(len(prev.Name)) {
		d.fail("file name prefix")
		return InputFile{}
	}
	f := InputFile{Name: prev.Name[:n] + d.str("file name"), Records: -1, Malformed: -1, StreamLen: -1}
	f.Size = int64(d.uvarint("file size"))
	copy(f.SHA256[:], d.bytes(32, "file digest"))
	return f
}

// fileRowV3 reads a row of catalog versions 3 and 4: the name front- and
// back-coded, the size as a difference, the record counts.
func fileRowV3(d *dec, prev *InputFile) InputFile {
	n := d.uvarint("file name prefix")
	q := d.uvarint("file name suffix")
	if p := uint64(len(prev.Name)); n > p || q > p-n {
		d.fail("file name prefix")
		return InputFile{}
	}
	f := InputFile{Name: prev.Name[:n] + d.str("file name") + prev.Name[uint64(len(prev.Name))-q:], StreamLen: -1}
	if f.Size = prev.Size + d.varint("file size"); f.Size < 0 {
		d.fail("file size")
	}
	copy(f.SHA256[:], d.bytes(32, "file digest"))
	f.Records, f.Malformed = d.count64("file records"), d.count64("file malformed records")
	return f
}

// fileRowV5 reads a row of catalog version 5: version 3's and the
// decompressed stream, when known.
func fileRowV5(d *dec, prev *InputFile) InputFile {
	f := fileRowV3(d, prev)
	if d.err != nil {
		return f
	}
	if f.StreamLen = d.count64("file stream length"); f.StreamLen >= 0 {
		copy(f.StreamSHA256[:], d.bytes(32, "file stream digest"))
		f.Gaps = int64(d.uvarint("file gaps"))
		if fl := d.bytes(1, "file flags"); fl != nil {
			if fl[0]&^1 != 0 {
				d.fail("file flags")
			}
			f.Rebuildable = fl[0]&1 != 0
		}
	}
	return f
}

// fileRowV6 reads a row of catalog version 6: version 5's and, when the
// stream is known, why the file does or does not restore bit-exact
// compressed, followed by its member table when it does.
func fileRowV6(d *dec, prev *InputFile) InputFile { return fileRowOriginal(d, prev, false) }

// fileRowV8 reads a row of catalog version 8 (an input-file part):
// version 6's, whose member table says whether its lengths are the
// pieces' (Original.PerPiece).
func fileRowV8(d *dec, prev *InputFile) InputFile { return fileRowOriginal(d, prev, true) }

func fileRowOriginal(d *dec, prev *InputFile, perPiece bool) InputFile {
	f := fileRowV5(d, prev)
	if d.err != nil || f.StreamLen < 0 {
		return f
	}
	if w := d.bytes(1, "file original"); w != nil {
		if f.OriginalWhy = w[0]; f.OriginalWhy >= originalReasons {
			d.fail("file original")
			return f
		}
	}
	if f.OriginalWhy == originalExact {
		f.Original = decodeOriginal(d, perPiece)
	}
	return f
}
