// Package countio counts the bytes written through a writer: the export
// writers report their output sizes with it.
package countio

import (
	"errors"
	"io"
)

// Writer passes writes on to W and counts the bytes W took in N.
type Writer struct {
	W io.Writer
	N int64
}

func (c *Writer) Write(p []byte) (int, error) {
	n, err := c.W.Write(p)
	c.N += int64(n)
	return n, err
}

// Seek reports the position (the count) and supports nothing else: the
// Arrow IPC file writer asks for the position of what it wrote, and never
// moves it.
func (c *Writer) Seek(offset int64, whence int) (int64, error) {
	if offset != 0 || whence != io.SeekCurrent {
		return c.N, errors.New("countio: only the position can be asked")
	}
	return c.N, nil
}
