package zlibenc

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt")

// TestGolden pins zlib's output for every setting Candidates returns: an
// archive holding such params restores only if the encoder still writes
// these bytes. The zlib version pinned is the first line of the file.
func TestGolden(t *testing.T) {
	if !Available {
		t.Skip("built without cgo: no zlib encoder to pin")
	}
	doc, err := os.ReadFile(filepath.Join("..", "reencode", "testdata", "golden", "input.html")) // the page reencode pins its encoders on
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	for _, p := range Candidates() {
		out, err := Deflate(nil, doc, p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		got, err := io.ReadAll(flate.NewReader(bytes.NewReader(out)))
		if err != nil || !bytes.Equal(got, doc) {
			t.Fatalf("%s: output does not inflate to the input (%v)", p, err)
		}
		if ok, err := Reproduces(doc, out, p); !ok || err != nil {
			t.Errorf("%s: Reproduces does not accept Deflate's own output (%v)", p, err)
		}
		s := sha256.Sum256(out)
		fmt.Fprintf(&sb, "%s %d %s\n", p, len(out), hex.EncodeToString(s[:]))
	}
	path := filepath.Join("testdata", "golden.txt")
	if *update {
		if err := os.WriteFile(path, []byte("zlib "+Version()+"\n"+sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head, rest, _ := strings.Cut(string(want), "\n")
	t.Logf("pinned with %s, running %s", head, Version())
	wl, gl := strings.Split(rest, "\n"), strings.Split(sb.String(), "\n")
	if len(wl) != len(gl) {
		t.Fatalf("%d golden lines, %d settings", len(wl), len(gl))
	}
	for i := range wl {
		if wl[i] != gl[i] {
			t.Errorf("zlib output changed (%s, pinned with %s): archives using it would not restore:\n got  %s\n want %s", Version(), head, gl[i], wl[i])
		}
	}
}

// TestReproducesRejects checks that a setting other than the writer's,
// or damaged output, is refused.
func TestReproducesRejects(t *testing.T) {
	if !Available {
		t.Skip("built without cgo")
	}
	doc := bytes.Repeat([]byte("<p>hello, archive; hello again</p>\n"), 2000)
	doc = append(doc, []byte(strings.Repeat("xyzzy plugh ", 5000))...)
	out6, _ := Deflate(nil, doc, Params{Level: 6, MemLevel: 8})
	out1, _ := Deflate(nil, doc, Params{Level: 1, MemLevel: 8})
	if bytes.Equal(out6, out1) {
		t.Fatal("levels 1 and 6 give the same output: the document does not discriminate")
	}
	if ok, _ := Reproduces(doc, out6, Params{Level: 1, MemLevel: 8}); ok {
		t.Error("level 1 accepted for level 6 output")
	}
	bad := bytes.Clone(out6)
	bad[len(bad)/2] ^= 1
	if ok, _ := Reproduces(doc, bad, Params{Level: 6, MemLevel: 8}); ok {
		t.Error("damaged output accepted")
	}
	if ok, _ := Reproduces(doc, out6[:len(out6)-1], Params{Level: 6, MemLevel: 8}); ok {
		t.Error("short output accepted")
	}
	if ok, _ := Reproduces(doc, append(bytes.Clone(out6), 0), Params{Level: 6, MemLevel: 8}); ok {
		t.Error("long output accepted")
	}
	if ok, _ := Reproduces(nil, mustDeflate(t, nil), Params{Level: 6, MemLevel: 8}); !ok {
		t.Error("empty input not reproduced")
	}
}

func mustDeflate(t *testing.T, b []byte) []byte {
	out, err := Deflate(nil, b, Params{Level: 6, MemLevel: 8})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestStreamReuse: one Stream, reset between streams and rebuilt when the
// settings change, writes what a fresh encoder writes (the output
// TestGolden pins), also right after a comparison abandoned midway, and
// accepts it.
func TestStreamReuse(t *testing.T) {
	if !Available {
		t.Skip("built without cgo")
	}
	doc, err := os.ReadFile(filepath.Join("..", "reencode", "testdata", "golden", "input.html"))
	if err != nil {
		t.Fatal(err)
	}
	s := NewStream()
	defer s.Close()
	ps := Candidates()
	// Forwards, then backwards: every setting follows both itself (a
	// reset) and another (a new state).
	back := slices.Clone(ps)
	slices.Reverse(back)
	for _, p := range append(ps, back...) {
		want, err := Deflate(nil, doc, p)
		if err != nil {
			t.Fatal(err)
		}
		bad := bytes.Clone(want)
		bad[len(bad)/2] ^= 1
		if ok, _ := s.Reproduces(doc, bad, p); ok {
			t.Fatalf("%s: damaged output accepted", p)
		}
		got, err := s.Deflate([]byte("head"), doc, p)
		if err != nil || string(got[:4]) != "head" || !bytes.Equal(got[4:], want) {
			t.Fatalf("%s: reused stream writes %d bytes (%v), a fresh one %d", p, len(got)-4, err, len(want))
		}
		if ok, err := s.Reproduces(doc, want, p); !ok || err != nil {
			t.Fatalf("%s: reused stream rejects its output (%v)", p, err)
		}
	}
}
