package warcio

import (
	"bytes"
	"io"
	"testing"
)

// TestReadBlockMemBody: a block the walk holds in memory is handed over,
// not copied, and only once; one already partly read is read as any
// reader is.
func TestReadBlockMemBody(t *testing.T) {
	b := []byte("0123456789")
	m := newMemBody(b)
	got, err := ReadBlock(m, 10, 1<<20)
	if err != nil || !bytes.Equal(got, b) || &got[0] != &b[0] {
		t.Fatalf("ReadBlock = %q, %v: want the held bytes themselves", got, err)
	}
	if n, err := m.Read(make([]byte, 4)); n != 0 || err != io.EOF {
		t.Errorf("read after the hand-over: %d, %v, want 0, EOF", n, err)
	}
	m = newMemBody(b)
	if _, err := io.ReadFull(m, make([]byte, 3)); err != nil {
		t.Fatal(err)
	}
	got, err = ReadBlock(m, 7, 1<<20)
	if err != nil || string(got) != "3456789" || &got[0] == &b[3] {
		t.Errorf("ReadBlock after a partial read = %q, %v: want a copy of the rest", got, err)
	}
}
