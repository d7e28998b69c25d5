package warcio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
)

// Content decoding is for analysis only: the archive keeps the entity as
// stored, and nothing here is ever written back.

var (
	// ErrDecodedTooLarge means the decoded entity went past the limit given
	// to DecodeContent: a decompression bomb, or a page too large to
	// analyse. The bytes up to the limit were delivered before it.
	ErrDecodedTooLarge = errors.New("decoded content exceeds limit")
	// ErrUnknownEncoding means a Content-Encoding this package cannot undo
	// ("compress", "sdch", a typo...). The entity can still be kept as stored.
	ErrUnknownEncoding = errors.New("unknown content encoding")
)

// DefaultMaxDecoded is the decoded size DecodeContent allows when given
// no limit: far above any real page, far below what a bomb would make.
const DefaultMaxDecoded = 64 << 20

// ceSniffLen is how much of each layer is looked at to decide whether it is
// really encoded the way it is labelled.
const ceSniffLen = 4096

// ContentReader yields a decoded entity. Read fails with
// ErrDecodedTooLarge once more than the limit would be produced, and with
// the decoder's error (wrapped) on corrupt or truncated data.
type ContentReader struct {
	r       io.Reader
	limit   int64
	n       int64
	skipped []string
	applied []string
	err     error
}

// Skipped lists the codings that were declared but not applied because the
// bytes were not encoded that way (a crawler stored the entity decoded
// but kept the header), outermost first.
func (c *ContentReader) Skipped() []string { return c.skipped }

// Applied lists the codings undone, outermost first.
func (c *ContentReader) Applied() []string { return c.applied }

// N returns the decoded bytes delivered so far.
func (c *ContentReader) N() int64 { return c.n }

func (c *ContentReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.n >= c.limit {
		// At the limit: fine if the entity ends exactly here.
		var one [1]byte
		for {
			k, err := c.r.Read(one[:])
			if k > 0 {
				c.err = ErrDecodedTooLarge
				return 0, c.err
			}
			if err != nil {
				c.err = err
				return 0, err
			}
		}
	}
	if int64(len(p)) > c.limit-c.n {
		p = p[:c.limit-c.n]
	}
	k, err := c.r.Read(p)
	c.n += int64(k)
	if err != nil {
		c.err = err
	}
	return k, err
}

// DecodeContent returns a reader of the entity r with its codings undone,
// for analysis. encodings are in the order they were applied, as
// HTTPMessage.Codings returns them, and are undone last first: gzip and
// x-gzip, deflate (zlib-wrapped or raw, told apart by the bytes), br,
// zstd, identity. At most limit decoded bytes are delivered, so a 1 MB
// bomb cannot cost 10 GB; limit <= 0 means DefaultMaxDecoded. A layer
// whose bytes are not encoded as labelled is passed through and listed by
// Skipped. An unknown coding fails at once with ErrUnknownEncoding. r
// should be de-chunked first.
func DecodeContent(r io.Reader, encodings []string, limit int64) (*ContentReader, error) {
	if limit <= 0 {
		limit = DefaultMaxDecoded
	}
	c := &ContentReader{limit: limit}
	for i := len(encodings) - 1; i >= 0; i-- {
		enc := encodings[i]
		var (
			next    io.Reader
			applied bool
			err     error
		)
		switch enc {
		case "", "identity":
			continue
		case "gzip", "x-gzip":
			next, applied, err = gzipLayer(r)
		case "deflate":
			next, applied, err = deflateLayer(r)
		case "br":
			next, applied, err = brotliLayer(r)
		case "zstd":
			next, applied, err = zstdLayer(r)
		default:
			return nil, fmt.Errorf("decode content %q: %w", enc, ErrUnknownEncoding)
		}
		if err != nil {
			return nil, fmt.Errorf("decode content %s: %w", enc, err)
		}
		if applied {
			c.applied = append(c.applied, enc)
		} else {
			c.skipped = append(c.skipped, enc)
		}
		r = next
	}
	c.r = r
	return c, nil
}

// ceLayer wraps a decoder's error with the coding it came from.
type ceLayer struct {
	r      io.Reader
	coding string
}

func (l *ceLayer) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("decode %s: %w", l.coding, err)
	}
	return n, err
}

var ceGzipMagic = []byte{0x1f, 0x8b}

// gzipLayer decodes gzip members one after the other; bytes after the
// last member that do not start another one are ignored, as browsers do.
func gzipLayer(r io.Reader) (io.Reader, bool, error) {
	br := bufio.NewReader(r)
	head, err := br.Peek(2)
	if err != nil && err != io.EOF {
		return nil, false, err
	}
	if !bytes.Equal(head, ceGzipMagic) {
		return br, false, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, false, err
	}
	zr.Multistream(false)
	return &ceLayer{r: &ceGzipMembers{br: br, zr: zr}, coding: "gzip"}, true, nil
}

type ceGzipMembers struct {
	br   *bufio.Reader
	zr   *gzip.Reader
	done bool
}

func (g *ceGzipMembers) Read(p []byte) (int, error) {
	for {
		if g.done {
			return 0, io.EOF
		}
		n, err := g.zr.Read(p)
		if err != io.EOF {
			return n, err
		}
		if head, _ := g.br.Peek(2); !bytes.Equal(head, ceGzipMagic) {
			g.done = true
		} else if err := g.zr.Reset(g.br); err != nil {
			return n, err
		} else {
			g.zr.Multistream(false)
		}
		if n > 0 {
			return n, nil
		}
	}
}

// ceTrialOK decodes the sniffed head with a fresh decoder and reports
// whether the decoder accepted it (running out of input is accepted).
func ceTrialOK(head []byte, newDec func(io.Reader) (io.Reader, error)) bool {
	if len(head) == 0 {
		return false
	}
	d, err := newDec(bytes.NewReader(head))
	if err != nil {
		return false
	}
	// Bounded: a ceSniffLen head cannot expand past a few MB even as a bomb,
	// and we stop at 1 MB.
	_, err = io.Copy(io.Discard, io.LimitReader(d, 1<<20))
	return err == nil || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// deflateLayer tells zlib-wrapped deflate (what the RFC says) from raw
// deflate (what some servers send) by the zlib header, and passes through
// bodies that neither decoder accepts.
func deflateLayer(r io.Reader) (io.Reader, bool, error) {
	br := bufio.NewReaderSize(r, ceSniffLen)
	head, err := br.Peek(ceSniffLen)
	if err != nil && err != io.EOF {
		return nil, false, err
	}
	if len(head) >= 2 && head[0]&0x0f == 8 && (uint16(head[0])<<8|uint16(head[1]))%31 == 0 {
		newZ := func(r io.Reader) (io.Reader, error) { return zlib.NewReader(r) }
		if ceTrialOK(head, newZ) {
			zr, err := zlib.NewReader(br)
			if err != nil {
				return nil, false, err
			}
			return &ceLayer{r: zr, coding: "deflate"}, true, nil
		}
	}
	newF := func(r io.Reader) (io.Reader, error) { return flate.NewReader(r), nil }
	if !ceTrialOK(head, newF) {
		return br, false, nil
	}
	return &ceLayer{r: flate.NewReader(br), coding: "deflate"}, true, nil
}

// brotliLayer has no magic number to go by: a trial decode of the head
// decides.
func brotliLayer(r io.Reader) (io.Reader, bool, error) {
	br := bufio.NewReaderSize(r, ceSniffLen)
	head, err := br.Peek(ceSniffLen)
	if err != nil && err != io.EOF {
		return nil, false, err
	}
	newB := func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil }
	if !ceTrialOK(head, newB) {
		return br, false, nil
	}
	return &ceLayer{r: brotli.NewReader(br), coding: "br"}, true, nil
}

var ceZstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

func zstdLayer(r io.Reader) (io.Reader, bool, error) {
	br := bufio.NewReader(r)
	head, err := br.Peek(4)
	if err != nil && err != io.EOF {
		return nil, false, err
	}
	if !bytes.Equal(head, ceZstdMagic) {
		return br, false, nil
	}
	// Single goroutine and a bounded window: the entity may be hostile.
	zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(64<<20))
	if err != nil {
		return nil, false, err
	}
	return &ceLayer{r: zr.IOReadCloser(), coding: "zstd"}, true, nil
}
