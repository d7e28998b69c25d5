package tables

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/dedupe/shard"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestBuildShard builds the tables of a sharded archive shard by shard
// and checks them against Build of the whole: the same captures (but for
// added_bytes, charged per shard), changes and urls rows; every block_no
// in the shard's range and resolving to a blocks row of the same shard
// with the block's id; and shard 0 of an unsharded archive is Build.
func TestBuildShard(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(sharedtest.RepoRoot(t), "testdata", "samples", "*.warc.gz"))
	if err != nil || len(files) < 4 {
		t.Fatalf("testdata/samples: %d files (%v)", len(files), err)
	}
	dir := filepath.Join(t.TempDir(), "sh.bwa")
	if _, err := shard.Ingest(context.Background(), dir, files, 2, dedupe.Options{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	a, m, err := shard.Open(dir, pack.Options{})
	if err != nil || m == nil || len(m.Shards) != 2 {
		t.Fatalf("open the sharded archive: %v (manifest %v)", err, m)
	}
	defer a.Close()
	whole, _ := build(t, a, Options{Workers: 2})

	var caps []*Capture
	var changes []*Change
	var urls []*URL
	for i := range m.Shards {
		r := &recorder{}
		if _, err := BuildShard(context.Background(), a, i, Options{Workers: 2, TempDir: t.TempDir()}, r); err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
		if r.err != nil || r.closed != 1 {
			t.Fatalf("shard %d: sink protocol: %v, closed %d times", i, r.err, r.closed)
		}
		if len(r.caps) == 0 || len(r.blocks) == 0 {
			t.Fatalf("shard %d: %d captures, %d blocks: the test crosses no shard", i, len(r.caps), len(r.blocks))
		}
		lo, hi := int64(i)*ShardBlockNos+1, int64(i)*ShardBlockNos+int64(len(r.blocks))
		ids := map[int64]string{}
		for k, b := range r.blocks {
			if b.BlockNo != lo+int64(k) {
				t.Fatalf("shard %d: blocks row %d has block_no %d, want %d", i, k, b.BlockNo, lo+int64(k))
			}
			ids[b.BlockNo] = b.BlockID
		}
		for _, cb := range r.cbs {
			if ids[cb.BlockNo] != cb.BlockID {
				t.Fatalf("shard %d: capture_blocks block_no %d (range %d-%d) is block %q, want %s", i, cb.BlockNo, lo, hi, ids[cb.BlockNo], cb.BlockID)
			}
			if p := cb.PredecessorBlockNo; p != nil && ids[*p] != *cb.PredecessorBlockID {
				t.Fatalf("shard %d: predecessor_block_no %d does not resolve to %s", i, *p, *cb.PredecessorBlockID)
			}
		}
		for _, l := range r.links {
			if ids[l.BlockNo] != l.BlockID {
				t.Fatalf("shard %d: links block_no %d does not resolve to %s", i, l.BlockNo, l.BlockID)
			}
		}
		caps = append(caps, r.caps...)
		changes = append(changes, r.changes...)
		urls = append(urls, r.urls...)
	}
	if len(caps) != len(whole.caps) {
		t.Fatalf("%d captures rows over the shards, %d in the whole", len(caps), len(whole.caps))
	}
	for k := range caps {
		c, w := *caps[k], *whole.caps[k]
		c.AddedBytes, w.AddedBytes = 0, 0
		if !reflect.DeepEqual(c, w) {
			t.Fatalf("captures row %d differs:\n%+v\n%+v", k, c, w)
		}
	}
	if !reflect.DeepEqual(changes, whole.changes) || !reflect.DeepEqual(urls, whole.urls) {
		t.Fatalf("changes or urls rows differ: %d/%d vs %d/%d", len(changes), len(urls), len(whole.changes), len(whole.urls))
	}

	// An unsharded archive has one part: its rows are Build's.
	one := ingest(t, t.TempDir(), files)
	w1, _ := build(t, one, Options{Workers: 2})
	r := &recorder{}
	if _, err := BuildShard(context.Background(), one, 0, Options{TempDir: t.TempDir()}, r); err != nil {
		t.Fatal(err)
	}
	r.closed, w1.closed = 0, 0
	if !reflect.DeepEqual(r, w1) {
		t.Fatal("BuildShard(0) of an unsharded archive differs from Build")
	}
}
