package warcio

import (
	"context"
	"crypto/sha1"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestPresortWalkEqualsWalk: every input presorted into small segments,
// then walked one key range at a time, yields what a Walk of the files
// with the same Select yields (records, gaps, resolved revisits, in the
// same order, and the same streams), and the ranges together yield
// every capture once.
func TestPresortWalkEqualsWalk(t *testing.T) {
	interop := sharedtest.Interop(t)
	// The interop files: revisits (URL-agnostic ones too), damaged
	// files with gaps and skipped records.
	files, err := ExpandInputs([]string{interop})
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, samples(t)[:6]...)
	dir := t.TempDir()
	var parts []Part
	seen := 0
	for _, f := range files {
		// A small memory limit and segments: several runs and
		// segments per file, cut between keys.
		p, err := Presort(context.Background(), f, PresortOptions{MemLimit: 64 << 10, TempDir: t.TempDir(),
			Dir: dir, SegmentBytes: 32 << 10, OnRecord: func(*Record, string) { seen++ }})
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(p.Segments); i++ {
			if p.Segments[i].First <= p.Segments[i-1].Last {
				t.Fatalf("%s: segment %d starts at %q, the one before ends at %q", f, i, p.Segments[i].First, p.Segments[i-1].Last)
			}
			// Frames of one file, one after the other.
			if a, b := p.Segments[i-1], p.Segments[i]; b.Path != a.Path || b.Offset != a.Offset+a.Size || b.Size <= 0 {
				t.Fatalf("%s: segment %d is %d bytes at %d of %s, the one before %d at %d of %s", f, i, b.Size, b.Offset, b.Path, a.Size, a.Offset, a.Path)
			}
		}
		parts = append(parts, p)
	}
	segs := 0
	for _, p := range parts {
		segs += len(p.Segments)
	}
	all, st := walkGaps(t, files, WalkOptions{Gaps: true})
	if segs <= len(files) || st.Revisits == 0 || st.Gaps == 0 || st.Skipped == 0 {
		t.Fatalf("%d segments of %d files, stats %+v: want more segments than files, revisits, gaps and skipped records", segs, len(files), st)
	}
	if seen == 0 || len(all) < seen {
		t.Fatalf("OnRecord saw %d records, Walk yielded %d captures", seen, len(all))
	}
	// Cut points: no key, the middle key and one near the end.
	keys := []string{}
	for _, w := range all {
		if w.key != "" && (len(keys) == 0 || keys[len(keys)-1] != w.key) {
			keys = append(keys, w.key)
		}
	}
	cuts := []string{keys[len(keys)/3], keys[len(keys)/2], keys[len(keys)-2]}
	var union []walked
	for i := 0; i <= len(cuts); i++ {
		r := KeyRange{}
		if i > 0 {
			r.Lo = cuts[i-1]
		}
		if i < len(cuts) {
			r.Hi = cuts[i]
		}
		sel := func(k string) bool { return k >= r.Lo && (r.Hi == "" || k < r.Hi) }
		var streams, partStreams []FileStream
		want, wst := walkGaps(t, files, WalkOptions{Gaps: true, Select: sel,
			OnFile: func(fs FileStream) { streams = append(streams, fs) }})
		got, gst := walkGaps(t, nil, WalkOptions{Parts: parts, Range: r, Select: sel,
			OnFile: func(fs FileStream) { partStreams = append(partStreams, fs) }})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("range %d: walking the parts yields %d captures, walking the files %d (or they differ)", i, len(got), len(want))
		}
		// With a small memory limit: the segments' records spilled in
		// runs, the big ones each in a run of its own.
		small, sst := walkGaps(t, nil, WalkOptions{Parts: parts, Range: r, Select: sel, MemLimit: 64 << 10})
		if !reflect.DeepEqual(small, want) || sst.Runs == 0 {
			t.Fatalf("range %d, 64 KiB of memory: walking the parts yields %d captures in %d runs, walking the files %d (or they differ)", i, len(small), sst.Runs, len(want))
		}
		if gst.Revisits != wst.Revisits || gst.UnresolvedRevisits != wst.UnresolvedRevisits || gst.Files != wst.Files || gst.Skipped != wst.Skipped {
			t.Fatalf("range %d: stats %+v, want %+v", i, gst, wst)
		}
		byFile := func(a, b FileStream) int { return cmpStr(a.File, b.File) }
		slices.SortFunc(streams, byFile)
		slices.SortFunc(partStreams, byFile)
		if !reflect.DeepEqual(partStreams, streams) {
			t.Fatalf("range %d: streams differ:\n got %+v\nwant %+v", i, partStreams, streams)
		}
		union = append(union, got...)
	}
	// A URL-agnostic revisit resolves only inside its range (as in a
	// sharded walk of the files): compare the rest.
	for _, ws := range [][]walked{union, all} {
		for i := range ws {
			ws[i].revisitOf = nil
		}
	}
	if !reflect.DeepEqual(union, all) {
		t.Fatalf("the ranges yield %d captures together, the whole walk %d", len(union), len(all))
	}
	// The segments stay for other walks until removed.
	for _, p := range parts {
		p.Remove()
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Fatalf("%d files left after Remove", len(left))
	}
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// walkGaps is walkAll with gaps among the captures.
func walkGaps(t testing.TB, inputs []string, opts WalkOptions) ([]walked, WalkStats) {
	t.Helper()
	opts.TempDir = t.TempDir()
	var out []walked
	st, err := Walk(context.Background(), inputs, opts, func(c *Capture) error {
		h := sha1.New()
		if _, err := io.Copy(h, c.Body); err != nil {
			return err
		}
		out = append(out, walked{key: c.Key, file: c.File, id: c.RecordID, date: c.Date,
			offset: c.Offset, skip: c.SkipInMember, length: c.Length, typ: c.Type,
			bodySHA1: fmt.Sprintf("%x", h.Sum(nil)), revisitOf: c.RevisitOf})
		return nil
	})
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	if int64(len(out)) != st.Records+st.Gaps {
		t.Fatalf("Walk yielded %d captures, stats say %d records and %d gaps", len(out), st.Records, st.Gaps)
	}
	return out, st
}
