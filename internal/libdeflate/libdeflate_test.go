package libdeflate

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/flate"
)

func deflate(t testing.TB, data []byte, level int) []byte {
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// TestInflate decodes streams of every kind (stored, fixed, dynamic
// blocks) with trailing bytes after them, and checks the output, the input
// bytes taken, and the failures: too small an output, a stream cut short,
// bytes that are no stream.
func TestInflate(t *testing.T) {
	if !Available {
		if _, _, err := New().Inflate(make([]byte, 8), []byte{3, 0}); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Inflate without cgo: %v", err)
		}
		t.Skip("built without cgo")
	}
	z := New()
	rng := rand.New(rand.NewPCG(1, 2))
	text := bytes.Repeat([]byte("<p>the quick brown fox jumps over the lazy dog</p>\n"), 4000)
	noise := make([]byte, 100<<10)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	for _, data := range [][]byte{nil, []byte("a"), text, noise} {
		for _, level := range []int{flate.NoCompression, flate.BestSpeed, flate.DefaultCompression, flate.HuffmanOnly} {
			stream := deflate(t, data, level)
			in := append(append([]byte{}, stream...), "trailing bytes"...)
			out := make([]byte, len(data)+1)
			n, m, err := z.Inflate(out, in)
			if err != nil || n != len(data) || m != len(stream) || !bytes.Equal(out[:n], data) {
				t.Fatalf("level %d, %d bytes: got %d bytes from %d of %d, %v", level, len(data), n, m, len(stream), err)
			}
			if len(data) > 0 {
				if _, _, err := z.Inflate(out[:len(data)-1], in); !errors.Is(err, ErrShortOutput) {
					t.Errorf("level %d, %d bytes: output one byte short: %v", level, len(data), err)
				}
			}
			if _, _, err := z.Inflate(out, stream[:len(stream)-1]); !errors.Is(err, ErrBadData) {
				t.Errorf("level %d, %d bytes: stream one byte short: %v", level, len(data), err)
			}
		}
	}
	if _, _, err := z.Inflate(make([]byte, 64), []byte{0xff, 0xff, 0xff}); !errors.Is(err, ErrBadData) {
		t.Errorf("invalid block type: %v", err)
	}
	if _, _, err := z.Inflate(make([]byte, 64), nil); !errors.Is(err, ErrBadData) {
		t.Errorf("no input: %v", err)
	}
}

// FuzzInflate: whatever libdeflate decodes, klauspost's flate decodes to
// the same bytes from the same number of input bytes (libdeflate's extra
// leniency aside: see the package comment).
func FuzzInflate(f *testing.F) {
	f.Add(deflate(f, []byte("hello hello hello hello"), 6))
	f.Add(deflate(f, bytes.Repeat([]byte("abc"), 1000), 1))
	f.Add([]byte{1, 0, 0, 0xff, 0xff})
	z := New()
	f.Fuzz(func(t *testing.T, in []byte) {
		out := make([]byte, 1<<20)
		n, m, err := z.Inflate(out, in)
		if err != nil {
			return
		}
		br := bytes.NewReader(in)
		want, gerr := io.ReadAll(io.LimitReader(flate.NewReader(br), 2<<20))
		if gerr != nil {
			t.Skipf("libdeflate accepts what flate rejects (%v)", gerr)
		}
		if !bytes.Equal(out[:n], want) {
			t.Fatalf("libdeflate gives %d bytes, flate %d, not the same", n, len(want))
		}
		if used := len(in) - br.Len(); m != used {
			t.Fatalf("libdeflate took %d input bytes, flate %d", m, used)
		}
	})
}
