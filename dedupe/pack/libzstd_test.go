package pack

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/blockwarc/blockwarc/internal/zstdlib"

	"github.com/klauspost/compress/zstd"
)

// TestNameDict checks the header rewrite that makes a frame name
// dictionary id 1: a decoder that knows the dictionary only under id 1
// then decodes it, and the header says so.
func TestNameDict(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	dict := randBytes(r, 3000)
	plain := append(bytes.Clone(dict[:2000]), randBytes(r, 500)...)
	for _, single := range []bool{true, false} {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderDictRaw(0, dict), zstd.WithSingleSegment(single))
		if err != nil {
			t.Fatal(err)
		}
		frame := e.EncodeAll(plain, nil)
		var h zstd.Header
		if err := h.Decode(frame); err != nil || h.DictionaryID != 0 {
			t.Fatalf("encoder wrote dictionary id %d (%v), want none", h.DictionaryID, err)
		}
		named, err := zstdlib.NameDict(frame, dictID)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Decode(named); err != nil || h.DictionaryID != dictID {
			t.Fatalf("single segment %v: rewritten header names %d (%v)", single, h.DictionaryID, err)
		}
		d, _ := zstd.NewReader(nil, zstd.WithDecoderDictRaw(dictID, dict))
		got, err := d.DecodeAll(named, nil)
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("single segment %v: decode: %v", single, err)
		}
		if _, err := zstdlib.NameDict(named, dictID); err == nil {
			t.Fatal("a frame naming a dictionary was rewritten again")
		}
	}
	if _, err := zstdlib.NameDict([]byte("not a zstd frame"), dictID); err == nil {
		t.Fatal("bytes that are no frame were rewritten")
	}
}

// TestFormattedDictionary stores a delta whose base starts with the
// bytes that make the reference library read a dictionary as formatted:
// such a frame must still be written so that readers (raw dictionary)
// decode it.
func TestFormattedDictionary(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	s, _ := mustCreate(t, Options{Plain: true, noSync: true})
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	base := append([]byte{0x37, 0xa4, 0x30, 0xec}, randBytes(r, 6000)...)
	if _, _, err := w.Add(KindPayload, base); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	next := mutate(r, base)
	if _, _, err := w.AddDelta(KindPayload, next, Sum(base)); err != nil {
		t.Fatal(err)
	}
	if len(w.bases) != 1 {
		t.Fatalf("frame has %d bases, want 1", len(w.bases))
	}
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	got, _, err := s.Get(Sum(next))
	if err != nil || !bytes.Equal(got, next) {
		t.Fatalf("get: %v", err)
	}
	verifyClean(t, s)
}

func FuzzNameDict(f *testing.F) {
	e, _ := zstd.NewWriter(nil)
	f.Add(e.EncodeAll([]byte("seed seed seed"), nil))
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := zstdlib.NameDict(b, dictID)
		if err != nil {
			return
		}
		var h zstd.Header
		if len(out) != len(b)+1 || out[4]&3 != 1 {
			t.Fatalf("rewrite of %d bytes gave %d bytes, flags %#x", len(b), len(out), out[4])
		}
		if h.Decode(b) == nil && h.Decode(out) == nil && h.DictionaryID != dictID {
			t.Fatalf("rewritten header names dictionary %d", h.DictionaryID)
		}
	})
}

// TestFastTierLibrary: with the reference library built in, a fast-tier
// frame (klauspost's "better" level asked) with and without a base is
// the library's frame at libzstdFastLevel from a reused context (its
// dictionary named), and decodes to the plaintext; a base that starts
// with the dictionary magic falls back to klauspost. Without
// fastCompressC the frames were klauspost's and differed.
func TestFastTierLibrary(t *testing.T) {
	if !haveLibzstd {
		t.Skip("built without cgo")
	}
	r := rand.New(rand.NewPCG(11, 12))
	s, _ := mustCreate(t, Options{noSync: true, Level: zstd.SpeedBetterCompression})
	w, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, err := zstdlib.NewCtx()
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	sl := &encSlot{}
	base := randBytes(r, 20000)
	for i, c := range []struct {
		plain, dict []byte
		lib         bool
	}{
		{randBytes(r, 5000), nil, true},
		{mutate(r, base), base, true},
		{mutate(r, base[:9000]), base[:9000], true}, // another base, same slot
		{mutate(r, base), append([]byte{0x37, 0xa4, 0x30, 0xec}, base...), false},
	} {
		j := &frameJob{plain: c.plain, dict: c.dict}
		w.compress(j, sl)
		if j.err != nil {
			t.Fatal(j.err)
		}
		want, err := ctx.Compress(nil, c.plain, libzstdFastLevel, c.dict)
		if err == nil && c.dict != nil {
			want, err = zstdlib.NameDict(want, dictID)
		}
		if lib := err == nil && bytes.Equal(j.enc, want); lib != c.lib {
			t.Errorf("frame %d: the library's frame %v, want %v (%v)", i, lib, c.lib, err)
		}
		back, err := s.decode(j.enc, c.dict, len(c.plain))
		if err != nil || !bytes.Equal(back, c.plain) {
			t.Fatalf("frame %d does not decode: %v", i, err)
		}
	}
}
