package shard

import (
	"context"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/warcio"
)

// Read once, route by key. A distributed ingest (cmd/blockwarc-beam)
// does what Ingest does with one read of each input instead of one per
// shard: Presort reads a file into key-ordered segments and its key
// sample (the samples merged cut the boundaries, as Boundaries does);
// LearnOriginal (dedupe) learns its gzip members, one file at a time,
// on any worker; IngestParts then ingests a shard from the segments of
// its key range. The shards are those Ingest writes, byte for byte.

// Presort reads the input file once (dedupe.Presort, with opts' reader
// and memory) into a part written in dir, and samples its keys as
// SampleFile does.
func Presort(ctx context.Context, file, dir string, opts dedupe.Options) (dedupe.Part, Sample, error) {
	s := &sample{limit: ^uint64(0), cap: maxSampleKeys, bytes: map[string]int64{}}
	p, err := dedupe.Presort(ctx, file, dir, opts, func(rec *warcio.Record, key string) { s.add(key, work(rec, key)) })
	if err != nil {
		return dedupe.Part{}, Sample{}, err
	}
	return p, Sample{Thinned: s.thinned(), Keys: s.bytes, Total: s.total}, nil
}

// Range is the key range of shard i.
func (m *Manifest) Range(i int) warcio.KeyRange {
	r := warcio.KeyRange{Lo: m.Shards[i].First}
	if i+1 < len(m.Shards) {
		r.Hi = m.Shards[i+1].First
	}
	return r
}

// IngestParts is IngestShard of inputs read already: parts holds every
// input's part (by path), originals what dedupe.LearnOriginal learnt of
// the files whose part learnt none (dedupe.Part.Original), which only
// shard 0 writes (as IngestShard, it learns the originals for the whole
// archive; one missing is learnt there). The shard written is the one
// IngestShard writes.
func IngestParts(ctx context.Context, dir string, m *Manifest, i int, inputs []string, parts map[string]dedupe.Part, originals map[string][]byte, opts dedupe.Options) (dedupe.Stats, error) {
	sel, skip := m.reads(i)
	opts.Select, opts.SkipOriginal = sel, opts.SkipOriginal || skip
	opts.Parts, opts.PartRange = parts, m.Range(i)
	if !opts.SkipOriginal {
		opts.Originals = map[string][]byte{}
		for path, p := range parts {
			if p.Original != nil {
				opts.Originals[path] = p.Original
			}
		}
		for path, b := range originals {
			opts.Originals[path] = b
		}
	}
	return dedupe.Ingest(ctx, dir, inputs, opts)
}
