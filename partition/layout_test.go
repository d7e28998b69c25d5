package partition

import (
	"bytes"
	"errors"
	"testing"
)

func TestLayoutEncodeDecode(t *testing.T) {
	for _, name := range testPageNames(t) {
		doc := testPage(t, name)
		res := mustPartition(t, doc, Options{})
		enc := res.Layout.Encode()
		dec, err := Decode(enc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(dec.Gaps) != len(res.Layout.Gaps) {
			t.Fatalf("%s: %d gaps decoded, want %d", name, len(dec.Gaps), len(res.Layout.Gaps))
		}
		got, err := Reassemble(dec, ptLeafBytes(res))
		if err != nil || !bytes.Equal(got, doc) {
			t.Fatalf("%s: decoded layout does not reassemble the page (%v)", name, err)
		}
		if !bytes.Equal(dec.Encode(), enc) {
			t.Fatalf("%s: re-encoding differs", name)
		}
	}
}

// TestLayoutEncodingUnambiguous: gaps that concatenate to the same bytes
// but are cut differently encode differently, as do gaps containing the
// placeholder text itself.
func TestLayoutEncodingUnambiguous(t *testing.T) {
	a := Layout{Gaps: [][]byte{[]byte("ab"), []byte("c")}}
	b := Layout{Gaps: [][]byte{[]byte("a"), []byte("bc")}}
	c := Layout{Gaps: [][]byte{[]byte("abc")}}
	d := Layout{Gaps: [][]byte{[]byte("<!--blockwarc:block 1-->"), nil}}
	encs := map[string]bool{}
	for _, l := range []Layout{a, b, c, d} {
		encs[string(l.Encode())] = true
		back, err := Decode(l.Encode())
		if err != nil {
			t.Fatal(err)
		}
		for i := range l.Gaps {
			if !bytes.Equal(back.Gaps[i], l.Gaps[i]) {
				t.Fatalf("gap %d changed in round trip", i)
			}
		}
	}
	if len(encs) != 4 {
		t.Fatal("distinct layouts encode alike")
	}
}

func TestLayoutDecodeErrors(t *testing.T) {
	good := Layout{Gaps: [][]byte{[]byte("<html>"), []byte("</html>")}}.Encode()
	cases := map[string][]byte{
		"empty":          nil,
		"bad magic":      append([]byte("XXXX"), good[4:]...),
		"bad version":    append(append([]byte("BWLY"), 9), good[5:]...),
		"zero gaps":      []byte("BWLY\x01\x00"),
		"truncated":      good[:len(good)-2],
		"trailing":       append(append([]byte{}, good...), 0),
		"huge count":     []byte("BWLY\x01\xff\xff\xff\xff\x0f"),
		"huge gap":       []byte("BWLY\x01\x01\xff\xff\xff\xff\x0fabc"),
		"varint overrun": []byte("BWLY\x01\x01\x80"),
	}
	for name, in := range cases {
		if _, err := Decode(in); !errors.Is(err, ErrLayoutFormat) {
			t.Errorf("%s: err = %v, want ErrLayoutFormat", name, err)
		}
	}
}

func TestReassembleErrors(t *testing.T) {
	l := Layout{Gaps: [][]byte{[]byte("a"), []byte("b")}}
	if _, err := Reassemble(l, nil); !errors.Is(err, ErrBlockCount) {
		t.Errorf("too few blocks: %v", err)
	}
	if _, err := Reassemble(l, [][]byte{nil, nil}); !errors.Is(err, ErrBlockCount) {
		t.Errorf("too many blocks: %v", err)
	}
	got, err := Reassemble(l, [][]byte{[]byte("X")})
	if err != nil || string(got) != "aXb" {
		t.Errorf("Reassemble = %q, %v", got, err)
	}
}

func TestLayoutHuman(t *testing.T) {
	doc := []byte(`<body><div>` + longText + `</div><div>` + longText + `</div></body>`)
	res := mustPartition(t, doc, Options{})
	want := "<body><!--blockwarc:block 1--><!--blockwarc:block 2--></body>"
	if got := string(res.Layout.Human()); got != want {
		t.Fatalf("Human() = %q, want %q", got, want)
	}
	dec, _ := Decode(res.Layout.Encode())
	if got := string(dec.Human()); got != want {
		t.Fatalf("decoded Human() = %q, want %q", got, want)
	}
	if res.Layout.Blocks() != 2 {
		t.Fatalf("Blocks() = %d", res.Layout.Blocks())
	}
}
