//go:build cgo

package zstdlib

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// samples is the decompressed records of the bundled sample dumps, one
// after the other.
func samples(t *testing.T) []byte {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "samples", "*.warc.gz"))
	if len(files) < 10 {
		t.Fatalf("samples: %v", files)
	}
	var all bytes.Buffer
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(&all, zr); err != nil {
			t.Fatal(err)
		}
	}
	return all.Bytes()
}

// TestWriterLong: NewWriter(w, 19, 27, true) writes one frame that
// decodes to the input, with a 128 MiB window in its header, and as
// small as `zstd -19 --long=27` makes it (within 1 %: the command may be
// another version of the library).
func TestWriterLong(t *testing.T) {
	in := samples(t)
	var out bytes.Buffer
	z, err := NewWriter(&out, 19, 27, true)
	if err != nil {
		t.Fatal(err)
	}
	// Written in pieces of odd sizes, as records come.
	for rest := in; len(rest) > 0; {
		n := min(len(rest), 7777)
		if k, err := z.Write(rest[:n]); err != nil || k != n {
			t.Fatalf("write: %d, %v", k, err)
		}
		rest = rest[n:]
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	d, _ := zstd.NewReader(nil, zstd.WithDecoderMaxWindow(1<<27))
	defer d.Close()
	got, err := d.DecodeAll(out.Bytes(), nil)
	if err != nil || !bytes.Equal(got, in) {
		t.Fatalf("decoded %d bytes (want %d): %v", len(got), len(in), err)
	}
	var h zstd.Header
	if err := h.Decode(out.Bytes()); err != nil || h.WindowSize != 1<<27 {
		t.Fatalf("frame header: window %d, single segment %v, %v", h.WindowSize, h.SingleSegment, err)
	}
	t.Logf("%d bytes → %d (reference library %s, -19 --long=27)", len(in), out.Len(), Version())
	if _, err := exec.LookPath("zstd"); err != nil {
		t.Skip("no zstd command to compare with")
	}
	cmd := exec.Command("zstd", "-19", "--long=27", "-q", "-c")
	cmd.Stdin = bytes.NewReader(in)
	ref, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("zstd -19 --long=27: %d bytes", len(ref))
	if diff := float64(out.Len())/float64(len(ref)) - 1; diff > 0.01 || diff < -0.01 {
		t.Errorf("reference library %d bytes, zstd command %d: %.1f %% apart", out.Len(), len(ref), 100*diff)
	}
}

// TestCompressSplit: a small frame of text then random bytes (a catalog
// segment's shape) is smaller with the block splitter forced on than
// Compress makes it, decodes with klauspost (the archive's readers) to
// the input, and keeps a window fitted to the input; dst is appended to.
func TestCompressSplit(t *testing.T) {
	text := samples(t)[:40<<10]
	random := make([]byte, 4<<10)
	for i := range random {
		random[i] = byte(uint32(i)*2654435761>>13 ^ uint32(i)*40503)
	}
	plain := append(bytes.Clone(text), random...)
	out, err := CompressSplit([]byte("prefix"), plain, 19)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(out, []byte("prefix")) {
		t.Fatal("dst not kept")
	}
	frame := out[len("prefix"):]
	old, err := Compress(nil, plain, 19, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(frame) >= len(old) {
		t.Errorf("with the splitter %d bytes, without %d", len(frame), len(old))
	}
	var h zstd.Header
	if err := h.Decode(frame); err != nil || h.FrameContentSize != uint64(len(plain)) || h.WindowSize > 1<<17 {
		t.Fatalf("header: %+v, %v", h, err)
	}
	dec, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	defer dec.Close()
	got, err := dec.DecodeAll(frame, nil)
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("decode: %v", err)
	}
	t.Logf("%d bytes: splitter %d, without %d", len(plain), len(frame), len(old))
}
