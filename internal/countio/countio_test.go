package countio

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// short takes at most max bytes, then fails.
type short struct{ max int }

var errFull = errors.New("full")

func (s *short) Write(p []byte) (int, error) {
	if len(p) > s.max {
		n := s.max
		s.max = 0
		return n, errFull
	}
	s.max -= len(p)
	return len(p), nil
}

func TestWriter(t *testing.T) {
	var buf bytes.Buffer
	c := &Writer{W: &buf}
	io.WriteString(c, "hello, ")
	io.WriteString(c, "world")
	if c.N != 12 || buf.String() != "hello, world" {
		t.Errorf("N %d, wrote %q", c.N, buf.String())
	}
	if pos, err := c.Seek(0, io.SeekCurrent); pos != 12 || err != nil {
		t.Errorf("position %d, %v", pos, err)
	}
	if _, err := c.Seek(0, io.SeekStart); err == nil {
		t.Error("Seek to the start succeeded")
	}
	// Only the bytes the underlying writer took count.
	c = &Writer{W: &short{max: 5}}
	if n, err := c.Write([]byte("0123456789")); n != 5 || err != errFull || c.N != 5 {
		t.Errorf("short write: n %d, err %v, N %d", n, err, c.N)
	}
}
