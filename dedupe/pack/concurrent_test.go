package pack

import (
	"bytes"
	"sync"
	"testing"
)

// TestConcurrentReaders reads committed objects from several goroutines
// while the writer keeps committing (run with -race).
func TestConcurrentReaders(t *testing.T) {
	s, _ := mustCreate(t, Options{noSync: true, Level: 1, FrameSize: 4 << 10, CacheBytes: 64 << 10})
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
