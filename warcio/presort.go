package warcio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// A distributed ingest (cmd/blockwarc-beam) reads each input once, on
// any worker, and gives each shard the records of its key range. Presort
// is the read: one input into a Part, its records (and gaps) in capture
// order, cut into segments of consecutive keys (zstd frames of one
// file); Walk with WalkOptions.Parts is the shard's side: it decompresses,
// from every part, the segments that hold keys of its range, and sorts
// the records of its range as it sorts those it reads from files,
// yielding exactly what a Walk of the files with the same Select would
// (the order is the total capture order).

// A part's segments (PresortOptions.SegmentBytes, by default) are about
// a segmentsPerPart-th of its file's stream each, between
// minSegmentBytes and DefaultSegmentBytes: a small input, whose keys
// span every shard, is cut too, so that the walk of one key range
// decompresses little more than its own records of the file, and a
// large one into segments few enough to list in its Part.
const (
	DefaultSegmentBytes = 16 << 20
	minSegmentBytes     = 64 << 10
	segmentsPerPart     = 64
)

// PresortOptions configure Presort.
type PresortOptions struct {
	// Reader configures the input's reader.
	Reader Options
	// MemLimit bounds the record bytes held while sorting (as
	// WalkOptions.MemLimit); TempDir places the runs spilled beyond it.
	MemLimit int64
	TempDir  string
	// Dir is where the part's segments and revisit notes are written;
	// they stay there until the caller removes them.
	Dir string
	// SegmentBytes is about how many record bytes a segment holds
	// (when 0, a 64th of the file's stream, from 64 KiB to
	// DefaultSegmentBytes): the walk of a key range decompresses the
	// segments overlapping it, and reads past the range's ends at most
	// one segment's worth at each end.
	SegmentBytes int64
	// OnRecord, when set, is called with every record read (malformed
	// ones skipped by the reader's policy are not), with its key: a key
	// sample needs no second read.
	OnRecord func(rec *Record, key string)
}

// Part is one input file read by Presort.
type Part struct {
	Stream      FileStream
	Skipped     int64 // malformed records the reader skipped
	Dropped     int64 // stored bytes of damaged members that do not decompress (Reader.Dropped)
	StoredBytes int64 // stored (compressed) bytes read
	Segments    []Segment
	// Notes is the file of what resolves URL-agnostic revisits (the
	// possible originals and the targets revisits name), each under the
	// key of its record; "" when there is none.
	Notes string
}

// Segment is consecutive items of a Part, in capture order (the run
// format of spill.go), holding keys First to Last: the Size bytes at
// Offset of the file Path, zstd frames of their own (a part's segments
// share one file); Size 0 is the whole file.
type Segment struct {
	Path         string
	Offset, Size int64
	First, Last  string
	Bytes        int64 // record bytes (headers and blocks)
}

// KeyRange is the keys Lo ≤ key < Hi (no upper bound when Hi is "").
type KeyRange struct{ Lo, Hi string }

// overlaps says whether keys first..last meet r.
func (r KeyRange) overlaps(first, last string) bool {
	return last >= r.Lo && (r.Hi == "" || first < r.Hi)
}

// Presort reads the input file once (with gaps, as WalkOptions.Gaps)
// and writes its records and gaps, sorted in capture order, as segments
// in o.Dir.
func Presort(ctx context.Context, file string, o PresortOptions) (Part, error) {
	var p Part
	if o.MemLimit <= 0 {
		o.MemLimit = DefaultWalkMemLimit
	}
	if o.SegmentBytes <= 0 {
		o.SegmentBytes = DefaultSegmentBytes
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return p, fmt.Errorf("presort %s: %w", file, err)
	}
	dir, err := os.MkdirTemp(o.TempDir, "blockwarc-presort-")
	if err != nil {
		return p, fmt.Errorf("create temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	s := &sorter{dir: dir, limit: o.MemLimit, wanted: map[string]*Origin{}, notes: &bytes.Buffer{}}
	defer s.cleanup()
	wo := &WalkOptions{Reader: o.Reader, Gaps: true, onRecord: o.OnRecord,
		OnFile: func(fs FileStream) { p.Stream = fs }}
	wo.Reader.StreamDigest = true
	var rd *Reader
	p.StoredBytes, p.Skipped, p.Dropped, err = s.readInput(ctx, file, wo, func(int64) {}, &rd, &slab{}, new([]byte))
	if err != nil {
		return p, err
	}
	if err := s.finish(ctx); err != nil {
		return p, err
	}
	runs := s.runs
	s.runs = nil
	if len(s.batch) > 0 {
		sortItems(s.batch)
		runs = append(runs, &run{mem: s.batch})
		s.batch = nil
	}
	size := o.SegmentBytes
	if size <= 0 {
		size = min(max(p.Stream.Len/segmentsPerPart, minSegmentBytes), DefaultSegmentBytes)
	}
	// The segments are consecutive zstd frames of one file.
	var (
		w     *runWriter
		seg   Segment
		open  bool  // seg is being written
		start int64 // where its frame starts in w's file
	)
	endSeg := func() error {
		if !open {
			return nil
		}
		end, err := w.frame()
		if err != nil {
			return fmt.Errorf("write segment: %w", err)
		}
		seg.Path, seg.Offset, seg.Size = w.f.Name(), start, end-start
		p.Segments = append(p.Segments, seg)
		open, start = false, end
		return nil
	}
	err = mergeRuns(runs, func(it *item, body io.Reader) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if open && seg.Bytes >= size && it.key != seg.Last {
			// A key is not split between segments: a range's walk then
			// reads at most one segment past each of its ends.
			if err := endSeg(); err != nil {
				return err
			}
		}
		if w == nil {
			var err error
			if w, err = newRunWriter(o.Dir); err != nil {
				return err
			}
		}
		if !open {
			seg, open = Segment{First: it.key}, true
		}
		seg.Last = it.key
		seg.Bytes += it.bodyLen + int64(len(it.rec.RawHeader))
		return w.write(it, body)
	})
	if err == nil {
		err = endSeg()
	}
	if err == nil && w != nil {
		_, err = w.close()
		w = nil
	}
	if err == nil && s.notes.Len() > 0 {
		err = writeNotes(o.Dir, s.notes.Bytes(), &p)
	}
	if err != nil {
		if w != nil {
			w.abort()
		}
		p.Remove()
		return Part{}, err
	}
	return p, nil
}

// writeNotes writes the revisit notes of a part to a file of its own.
func writeNotes(dir string, b []byte, p *Part) error {
	f, err := os.CreateTemp(dir, "notes-*")
	if err != nil {
		return fmt.Errorf("write revisit notes: %w", err)
	}
	_, err = f.Write(b)
	if e := f.Close(); err == nil {
		err = e
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write revisit notes: %w", err)
	}
	p.Notes = f.Name()
	return nil
}

// Remove deletes the part's files.
func (p Part) Remove() {
	for i, s := range p.Segments {
		if i == 0 || s.Path != p.Segments[i-1].Path {
			os.Remove(s.Path)
		}
	}
	if p.Notes != "" {
		os.Remove(p.Notes)
	}
}

// Kinds of revisit notes: a possible original (its compact line, as
// noteRevisitTarget keeps it) or a target a revisit asks for.
const (
	noteOriginal = 0
	noteWanted   = 1
)

// note appends a revisit note under key.
func appendNote(b *bytes.Buffer, kind byte, key string, v []byte) {
	var e []byte
	e = append(e, kind)
	e = appendStr(e, key)
	e = appendStr(e, string(v))
	b.Write(e)
}

// loadParts adds to the sorter, from every part, the segments that hold
// keys of r and the notes of the keys sel accepts; it returns the parts'
// counts into st.
func (s *sorter) loadParts(ctx context.Context, opts *WalkOptions, st *WalkStats) error {
	keep := opts.Select
	if keep == nil {
		keep = func(string) bool { return true }
	}
	for _, p := range opts.Parts {
		if err := ctx.Err(); err != nil {
			return err
		}
		st.Files++
		st.Skipped += p.Skipped
		st.Dropped += p.Dropped
		st.StoredBytes += p.StoredBytes
		if opts.OnFile != nil {
			opts.OnFile(p.Stream)
		}
		// The segments overlapping the range are consecutive: the
		// frames of one file are read as one.
		var from *Segment
		for i := range p.Segments {
			seg := &p.Segments[i]
			if !opts.Range.overlaps(seg.First, seg.Last) {
				continue
			}
			if from != nil && seg.Path == from.Path && seg.Size > 0 && seg.Offset == from.Offset+from.Size {
				from.Size += seg.Size // a copy's: p.Segments stays as it is
				continue
			}
			if from != nil {
				if err := s.loadSegment(ctx, *from, keep); err != nil {
					return err
				}
			}
			c := *seg
			from = &c
		}
		if from != nil {
			if err := s.loadSegment(ctx, *from, keep); err != nil {
				return err
			}
		}
		if p.Notes != "" {
			if err := s.loadNotes(p.Notes, keep); err != nil {
				return err
			}
		}
	}
	return nil
}

// loadSegment adds the items of a part's segment that keep accepts to
// the sorter as readInput adds the records it reads: in memory up to the
// limit (sorted runs spilled beyond it), a big record streamed into a run
// of its own. Merged as runs of their own instead, the segments of many
// parts (a walk of a key range opens a segment of every small input)
// outnumber fanIn, and the extra merge pass then decompressed, wrote
// and read again every record kept.
func (s *sorter) loadSegment(ctx context.Context, seg Segment, keep func(string) bool) error {
	r := &run{path: seg.Path, off: seg.Offset, size: seg.Size, keep: keep, shared: true}
	path := seg.Path
	if err := r.open(); err != nil {
		return err
	}
	defer r.close()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := r.advance(); err != nil {
			return err
		}
		it := r.head
		if it == nil {
			return nil
		}
		if it.bodyLen > s.bigRecord() {
			if err := s.spillBig(it, r.body); err != nil {
				return err
			}
			continue
		}
		it.body = make([]byte, it.bodyLen)
		if _, err := io.ReadFull(r.body, it.body); err != nil {
			return fmt.Errorf("read run %s: %w", path, err)
		}
		if err := s.add(it); err != nil {
			return err
		}
	}
}

// spillBig writes the block of a big record (body) into a run of its own.
func (s *sorter) spillBig(it *item, body io.Reader) error {
	w, err := newRunWriter(s.dir)
	if err != nil {
		return err
	}
	n, err := io.Copy(w.bw, body)
	if err == nil && n != it.bodyLen {
		err = fmt.Errorf("copy block: %d of %d bytes", n, it.bodyLen)
	}
	if err != nil {
		w.abort()
		return fmt.Errorf("write run: %w", err)
	}
	path, err := w.close()
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runsWritten++
	s.runs = append(s.runs, &run{path: path, bodyOnly: it})
	s.items++
	return nil
}

// loadNotes reads a part's revisit notes, those of the keys keep
// accepts, as readInput would have noted them.
func (s *sorter) loadNotes(path string, keep func(string) bool) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read revisit notes: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	readStr := func() ([]byte, error) {
		n, err := binary.ReadUvarint(br)
		if err != nil || n > 1<<24 {
			return nil, errBadMeta
		}
		b := make([]byte, n)
		_, err = io.ReadFull(br, b)
		return b, err
	}
	for {
		kind, err := br.ReadByte()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read revisit notes %s: %w", path, err)
		}
		key, err := readStr()
		var v []byte
		if err == nil {
			v, err = readStr()
		}
		if err != nil {
			return fmt.Errorf("read revisit notes %s: %w", path, err)
		}
		if !keep(string(key)) {
			continue
		}
		switch kind {
		case noteWanted:
			s.wanted[string(v)] = nil
		case noteOriginal:
			if err := s.addCandidate(v); err != nil {
				return err
			}
		default:
			return fmt.Errorf("read revisit notes %s: %w", path, errBadMeta)
		}
	}
}
