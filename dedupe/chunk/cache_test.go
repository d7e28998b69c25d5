package chunk

import (
	"bytes"
	"errors"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// sharedFixture stores a few crawls and returns the file, its directory
// and what was stored.
func sharedFixture(t *testing.T) ([]stored, Directory, *Reader, func(Directory, *Cache, uint32) *Reader) {
	t.Helper()
	f, dir, all := storeAll(t, pages(21, 6, 12, 20_000), Options{FrameSize: 64 << 10, ChainBytes: 256 << 10}, 4)
	open := func(d Directory, c *Cache, ns uint32) *Reader {
		r, err := NewCachedReader(f, d, c, ns)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	plain, err := NewReader(f, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	return all, dir, plain, open
}

// TestCacheAcrossLengths: a Reader of the file at a later length (a view
// opened after a commit) finds in a shared Cache the frames a Reader of
// the shorter file decoded, and restores the same bytes decoding
// nothing; a Reader of another namespace (another file) decodes its own.
func TestCacheAcrossLengths(t *testing.T) {
	all, dir, _, open := sharedFixture(t)
	short := dir[:len(dir)/2]
	var early []stored
	for _, s := range all {
		if slices.Max(s.refs) < short.NextChunk() {
			early = append(early, s)
		}
	}
	if len(early) < 4 || len(early) == len(all) {
		t.Fatalf("%d of %d versions in the first %d of %d frames: the case needs some, not all", len(early), len(all), len(short), len(dir))
	}
	c := NewCache(1 << 30)
	r1 := open(short, c, 1)
	restoreAll(t, r1, early)
	if r1.DecodedBytes() == 0 {
		t.Fatal("the first Reader decoded nothing")
	}
	r2 := open(dir, c, 1)
	restoreAll(t, r2, early)
	if d := r2.DecodedBytes(); d != 0 {
		t.Errorf("the Reader of the longer file decoded %d bytes of frames the first one had decoded", d)
	}
	// The later frames decode with the chains before them as dictionary:
	// the frames of those chains the first Reader decoded are not decoded
	// again.
	var later int64
	across := false
	for i := len(short); i < len(dir); i++ {
		later += int64(dir[i].Plain)
		across = across || dir.ChainStart(i) < len(short)
	}
	if !across {
		t.Fatal("no frame past the short file extends a chain begun in it: the case needs one")
	}
	restoreAll(t, r2, all)
	if d := r2.DecodedBytes(); d > later {
		t.Errorf("the Reader of the longer file decoded %d bytes, the frames past the shorter one hold %d", d, later)
	}
	r3 := open(dir, c, 2)
	restoreAll(t, r3, early)
	if r3.DecodedBytes() == 0 {
		t.Error("a Reader of another namespace decoded nothing: it took another file's frames")
	}
}

// TestCacheHitsDoNotWait: with a shared Cache a restore whose frames are
// cached goes on while another holds the Reader for a decode, and
// concurrent restores and chunk copies (run with -race) give the stored
// bytes.
func TestCacheHitsDoNotWait(t *testing.T) {
	all, dir, _, open := sharedFixture(t)
	r := open(dir, NewCache(1<<30), 1)
	restoreAll(t, r, all) // every frame cached
	r.mu.Lock()           // a decode in progress
	done := make(chan error, 1)
	go func() {
		b, err := r.Restore(nil, all[len(all)-1].refs)
		if err == nil && !bytes.Equal(b, all[len(all)-1].data) {
			err = errors.New("restored bytes differ")
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(5 * time.Second):
		t.Error("a restore of cached frames waited for the Reader's decode")
		r.mu.Unlock()
		<-done
		return
	}
	r.mu.Unlock()

	// Cold, from 8 goroutines at once.
	r = open(dir, NewCache(256<<10), 1)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(all); i += 3 {
				s := all[i]
				b, err := r.Restore(nil, s.refs)
				if err != nil || !bytes.Equal(b, s.data) {
					t.Errorf("version %d: %v, %d bytes, want %d", i, err, len(b), len(s.data))
					return
				}
				c, err := r.AppendChunk(nil, s.refs[0])
				if err != nil || !bytes.HasPrefix(s.data, c) {
					t.Errorf("version %d: first chunk: %v", i, err)
					return
				}
				got, err := r.RestoreMany([][]uint64{s.refs, all[0].refs})
				if err != nil || !bytes.Equal(got[0], s.data) || !bytes.Equal(got[1], all[0].data) {
					t.Errorf("version %d: RestoreMany: %v", i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestCachedRestoreAllocatesOnce: restoring from a shared Cache's frames
// allocates the versions' bytes once, not through a staging copy grown
// by doubling (a server's garbage per fetch, and so its collections).
func TestCachedRestoreAllocatesOnce(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates beside the restore")
	}
	all, dir, _, open := sharedFixture(t)
	r := open(dir, NewCache(1<<30), 1)
	restoreAll(t, r, all)
	var lists [][]uint64
	var n int
	for _, s := range all {
		lists = append(lists, s.refs)
		n += len(s.data)
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	if _, err := r.RestoreMany(lists); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m1)
	if got := m1.TotalAlloc - m0.TotalAlloc; got > uint64(n)+uint64(n)/4 {
		t.Errorf("restoring %d bytes (%d chunks) from cached frames allocated %d", n, len(slices.Concat(lists...)), got)
	}
}
