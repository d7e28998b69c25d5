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
// order, cut into segments of consecutive keys; Walk with
// WalkOptions.Parts is the shard's side: it merges, from every part, the
// segments that hold keys of its range, yielding exactly what a Walk of
// the files with the same Select would (the order is the total capture
// order, so the merge equals the sort).

// DefaultSegmentBytes is PresortOptions.SegmentBytes' default.
const DefaultSegmentBytes = 16 << 20

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
	// (DefaultSegmentBytes when 0): the walk of a key range opens the
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

// Segment is a file of consecutive items of a Part, in capture order
// (the run format of spill.go), holding keys First to Last.
type Segment struct {
	Path        string
	First, Last string
	Bytes       int64 // record bytes (headers and blocks)
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
	p.StoredBytes, p.Skipped, p.Dropped, err = s.readInput(ctx, file, wo, func(int64) {}, &rd)
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
	var (
		w   *runWriter
		seg Segment
	)
	closeSeg := func() error {
		if w == nil {
			return nil
		}
		path, err := w.close()
		w = nil
		if err != nil {
			return err
		}
		seg.Path = path
		p.Segments = append(p.Segments, seg)
		return nil
	}
	err = mergeRuns(runs, func(it *item, body io.Reader) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if w != nil && seg.Bytes >= o.SegmentBytes && it.key != seg.Last {
			// A key is not split between segments: a range's walk then
			// reads at most one segment past each of its ends.
			if err := closeSeg(); err != nil {
				return err
			}
		}
		if w == nil {
			var err error
			if w, err = newRunWriter(o.Dir); err != nil {
				return err
			}
			seg = Segment{First: it.key}
		}
		seg.Last = it.key
		seg.Bytes += it.bodyLen + int64(len(it.rec.RawHeader))
		return w.write(it, body)
	})
	if err == nil {
		err = closeSeg()
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
	for _, s := range p.Segments {
		os.Remove(s.Path)
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
		for _, seg := range p.Segments {
			if opts.Range.overlaps(seg.First, seg.Last) {
				s.runs = append(s.runs, &run{path: seg.Path, keep: keep, shared: true})
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
