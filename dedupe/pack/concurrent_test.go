package pack

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"testing"
)

// TestConcurrentReaders reads committed objects from several goroutines
// while the writer keeps committing (run with -race).
func TestConcurrentReaders(t *testing.T) {
	s, _ := mustCreate(t, Options{Plain: true, noSync: true, Level: 1, FrameSize: 4 << 10, CacheBytes: 64 << 10})
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	first := randomObjects(21, 200, 2000)
	addAll(t, w, first)
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				o := first[(i*7+g)%len(first)]
				got, _, err := s.Get(o.id)
				if err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(got, o.data) {
					errs <- errBadBytes
					return
				}
			}
		}(g)
	}
	for c := uint64(0); c < 10; c++ {
		addAll(t, w, randomObjects(100+c, 20, 2000))
		if err := w.Commit(nil); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

var errBadBytes = bytesError("Get returned other bytes")

type bytesError string

func (e bytesError) Error() string { return string(e) }

// TestHeldFrameKeepsBytes checks the frame buffers' recycling: a frame
// held by a reader keeps its plaintext however many other frames are
// decoded meanwhile (the cache holds one frame here), and its buffer is
// recycled for later decodes only once released; concurrent readers of
// delta frames then still get exact bytes (run with -race).
func TestHeldFrameKeepsBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	s, _ := mustCreate(t, Options{Plain: true, noSync: true, FrameSize: 8 << 10, CacheBytes: 1})
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var objs [][]byte
	prev := randBytes(r, 3000)
	for i := range 40 {
		o := mutate(r, prev)
		if i%5 == 0 {
			o = randBytes(r, 3000)
		}
		if _, _, err := w.AddDelta(KindBlock, o, Sum(prev)); err != nil && i > 0 {
			t.Fatal(err)
		} else if i == 0 {
			if _, _, err := w.Add(KindBlock, o); err != nil {
				t.Fatal(err)
			}
		}
		objs = append(objs, o)
		prev = o
	}
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	budget := maxDecodes
	held, _, fr, err := s.object(s, Sum(objs[0]), s.opts.MaxChain, &budget, true)
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Clone(held)
	for _, o := range objs[10:] {
		if got, _, err := s.Get(Sum(o)); err != nil || !bytes.Equal(got, o) {
			t.Fatalf("get: %v", err)
		}
	}
	if !bytes.Equal(held, want) {
		t.Fatal("a held frame's plaintext changed while other frames were decoded")
	}
	s.cache.release(fr)
	if s.cache.freeUsed == 0 {
		t.Fatal("no frame buffer was recycled")
	}
	if err := concurrently(4, func(g int) error {
		for i := range 200 {
			o := objs[(i*13+g*7)%len(objs)]
			got, _, err := s.Get(Sum(o))
			if err == nil && !bytes.Equal(got, o) {
				err = errBadBytes
			}
			if err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// concurrently runs fn(0) … fn(n-1) in goroutines of their own and
// returns the first error any returned.
func concurrently(n int, fn func(g int) error) error {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(g); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}
