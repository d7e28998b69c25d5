package warcio

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/blockwarc/blockwarc/internal/libdeflate"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// readTrace reads data to the end, with the whole-member fast path on or
// off, and describes everything a caller can see: each record's position,
// stored extent, header, block and errors, each reported error, the
// members OnMember was given, the end, the skipped and dropped counts, and
// the stream's length and digest. The members are listed apart, after
// the rest: when OnMember is called between two records depends on how
// far the Reader has read ahead, which the paths do not keep the same
// (and OnMember's callers need only the members' order). It also returns how many members were
// inflated whole.
func readTrace(t testing.TB, name string, data []byte, whole bool) (string, int64) {
	t.Helper()
	var b, members strings.Builder
	o := Options{Digests: true, StreamDigest: true, MaxHeaderBytes: 64 << 10, Policy: PolicyWarn, MaxMemberPlain: 32 << 20,
		OnError: func(err error) { fmt.Fprintf(&b, "error %v\n", err) },
		OnMember: func(m Member) {
			fmt.Fprintf(&members, "member %s [%d,%d) %d damaged=%v plain=%v %x\n", m.File, m.Stored, m.StoredEnd, m.PlainLen, m.Damaged, m.Plain != nil, sha256.Sum256(m.Plain))
		}}
	r := NewReaderOptions(bytes.NewReader(data), name, o)
	r.c.whole.off = !whole
	for i := 0; ; i++ {
		rec, err := r.Next()
		if err != nil {
			fmt.Fprintf(&b, "end %v\n", err)
			break
		}
		if i > 100000 {
			t.Fatalf("%s: more than 100000 records", name)
		}
		block, berr := io.ReadAll(rec.Body)
		fmt.Fprintf(&b, "record %d %s %s at %d skip %d pos [%d,%d) header %x block %d %x trailer %q body error %v length %d\n",
			i, rec.Type, rec.RecordID, rec.Offset, rec.SkipInMember, rec.Pos, rec.End,
			sha256.Sum256(rec.RawHeader), len(block), sha256.Sum256(block), rec.Trailer, berr, rec.Length)
	}
	st := r.Stream()
	fmt.Fprintf(&b, "skipped %d dropped %d stream %d %x\n", r.Skipped(), r.Dropped(), st.Len, st.SHA256)
	return b.String() + members.String(), r.c.whole.n
}

// sameBothWays checks that the fast path and the streaming path see the
// same file, and returns how many members the fast path inflated whole.
// A record whose member runs on past it may have a longer Length from the
// fast path, which has read the whole member when the record ends (the
// streaming path gives the stored bytes it had read): both suffice to
// decompress the record, and no length runs past the file.
func sameBothWays(t *testing.T, name string, data []byte) int64 {
	t.Helper()
	want, _ := readTrace(t, name, data, false)
	got, n := readTrace(t, name, data, true)
	lengthRE := regexp.MustCompile(`^(record .* at (\d+) .*) length (\d+)$`)
	same := func(g, w string) bool {
		if g == w {
			return true
		}
		gm, wm := lengthRE.FindStringSubmatch(g), lengthRE.FindStringSubmatch(w)
		if gm == nil || wm == nil || gm[1] != wm[1] {
			return false
		}
		off, _ := strconv.ParseInt(gm[2], 10, 64)
		gl, _ := strconv.ParseInt(gm[3], 10, 64)
		wl, _ := strconv.ParseInt(wm[3], 10, 64)
		return gl >= wl && off+gl <= int64(len(data))
	}
	{
		gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
		for i := 0; i < max(len(gl), len(wl)); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if !same(g, w) {
				t.Errorf("%s: line %d differs:\nwhole:     %s\nstreaming: %s", name, i+1, g, w)
				break
			}
		}
	}
	return n
}

// TestWholeInflateInterop: on every interop file, odd and broken ones
// included, and on some corpus files, inflating members whole gives what
// streaming them gives, to the byte offset and error.
func TestWholeInflateInterop(t *testing.T) {
	files, err := ExpandInputs([]string{sharedtest.Interop(t)})
	if err != nil {
		t.Fatal(err)
	}
	corpus := sharedtest.CorpusFiles(t)
	if len(corpus) > 20 {
		corpus = corpus[:20]
	}
	var whole int64
	for _, f := range append(files, corpus...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		whole += sameBothWays(t, filepath.Base(f), data)
	}
	if libdeflate.Available && whole == 0 {
		t.Error("no member was inflated whole")
	}
	t.Logf("%d files, %d members inflated whole", len(files)+len(corpus), whole)
}

// gzipMember is one gzip member of data written at the given level.
func gzipMember(t testing.TB, data []byte, level int) []byte {
	var b bytes.Buffer
	w, err := gzip.NewWriterLevel(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	return b.Bytes()
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// TestWholeInflateCrafted compares both paths on members made to reach
// each branch of the fast path: too long for the buffer, too large an
// output, cut short, damaged in their data, CRC-32 or ISIZE, followed by
// garbage, empty, many in a row.
func TestWholeInflateCrafted(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	noise := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return string(b)
	}
	small := func(id string) []byte { return gzipMember(t, []byte(record(id, "resource", "hello "+id)), 6) }
	a, b, c := small("a"), small("b"), small("c")
	// 1.5 MiB of noise: stored blocks longer than the buffer.
	huge := gzipMember(t, []byte(record("huge", "resource", noise(3<<19))), 6)
	// 600 KiB: longer than what is left in the buffer after a refill
	// threshold, shorter than the buffer.
	mid := gzipMember(t, []byte(record("mid", "resource", noise(600<<10))), 6)
	// 20 MiB of zeros: a small member whose output is above wholeMaxOut.
	bomb := gzipMember(t, []byte(record("bomb", "resource", strings.Repeat("\x00", 20<<20))), 9)
	// 3 MiB of text: output above the first output buffer.
	big := gzipMember(t, []byte(record("big", "resource", strings.Repeat("<p>some text "+noise(8)+"</p>\n", 3<<20/25))), 6)
	empty := gzipMember(t, nil, 6)
	flip := func(m []byte, i int) []byte {
		m = bytes.Clone(m)
		if i < 0 {
			i += len(m)
		}
		m[i] ^= 0x55
		return m
	}
	var many [][]byte
	for i := range 300 {
		many = append(many, small(fmt.Sprint(i)), mid[:0])
	}
	cases := []struct {
		name  string
		data  []byte
		whole int64 // members the fast path must inflate
	}{
		{"concatenated", cat(a, b, c), 3},
		{"many", cat(many...), 300},
		{"empty member", cat(a, empty, b, empty), 4},
		{"only empty", empty, 1},
		{"longer than the buffer", cat(a, huge, b), 2},
		{"longer than what is buffered", cat(a, mid, mid, b, mid, c), 6},
		{"bomb", cat(a, bomb, b), 2},
		{"big output", cat(a, big, b, big), 4},
		{"truncated in data", cat(a, b[:len(b)/2]), 1},
		{"truncated in trailer", cat(a, b[:len(b)-3]), 1},
		{"truncated huge", cat(a, huge[:len(huge)-100]), 1},
		{"corrupt data", cat(a, flip(b, 20), c), 2},
		{"corrupt CRC", cat(a, flip(b, -6), c), 2},
		{"corrupt ISIZE", cat(a, flip(b, -2), c), 2},
		{"corrupt big CRC", cat(a, flip(big, -6), c), 2},
		{"corrupt header", cat(a, flip(b, 3), c), 1},
		{"trailing garbage", cat(a, b, []byte("garbage after the last member")), 2},
		{"garbage between", cat(a, []byte("junk\x1f\x8bjunk"), b), 2},
		{"garbage tail of member", cat(a, b, []byte{0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff, 1, 2}), 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := sameBothWays(t, tc.name, tc.data)
			if libdeflate.Available && n != tc.whole {
				t.Errorf("%d members inflated whole, want %d", n, tc.whole)
			}
		})
	}
}

// TestWholeInflateMemory: a decompression bomb does not grow the output
// buffer past wholeMaxOut (it streams instead), nor the stored buffer.
func TestWholeInflateMemory(t *testing.T) {
	if !libdeflate.Available {
		t.Skip("built without cgo")
	}
	bomb := gzipMember(t, []byte(record("bomb", "resource", strings.Repeat("\x00", 64<<20))), 9)
	r := NewReader(bytes.NewReader(cat(bomb, bomb)), "bomb")
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		n, _ := io.Copy(io.Discard, rec.Body)
		if n != 64<<20 {
			t.Errorf("block of %d bytes", n)
		}
	}
	if c := cap(r.c.whole.out); c > wholeMaxOut {
		t.Errorf("output buffer of %d bytes, above %d", c, wholeMaxOut)
	}
	if r.c.br.Size() > wholeBufSize || r.c.whole.n != 0 {
		t.Errorf("buffer of %d bytes, %d members inflated whole", r.c.br.Size(), r.c.whole.n)
	}
}

// TestWholeBuffers: the 1 MiB buffer is taken only by gzip input (a
// reader of one uncompressed record, as verify and cat make for every
// record, keeps 64 KiB), and a large member's output buffer is not kept
// for the small members after it.
func TestWholeBuffers(t *testing.T) {
	small := record("small", "resource", "x")
	plain := NewReader(bytes.NewReader([]byte(small)), "plain")
	if _, err := plain.Next(); err != nil {
		t.Fatal(err)
	}
	if s := plain.c.br.Size(); s != storedBufSize {
		t.Errorf("uncompressed input: a buffer of %d bytes, want %d", s, storedBufSize)
	}
	if !libdeflate.Available {
		t.Skip("built without cgo: no whole-member path")
	}
	big := gzipMember(t, []byte(record("big", "resource", strings.Repeat("ab", 2<<20))), 6)
	r := NewReader(bytes.NewReader(cat(big, gzipMember(t, []byte(small), 6), gzipMember(t, []byte(small), 6))), "g")
	for i := 0; ; i++ {
		rec, err := r.Next()
		if err != nil {
			if i != 3 {
				t.Fatalf("%d records, then %v", i, err)
			}
			break
		}
		if i == 0 && cap(r.c.whole.out) <= wholeKeepOut {
			t.Fatalf("the 4 MiB member was not inflated whole (output buffer %d)", cap(r.c.whole.out))
		}
		io.Copy(io.Discard, rec.Body)
	}
	// The buffer grows before anything is consumed, at stored offset 0
	// whatever the small buffer had read.
	c := newContainer(bytes.NewReader(cat(big, big)), "g")
	if err := c.detect(); err != nil || c.br.Size() != wholeBufSize || c.storedPos() != 0 {
		t.Errorf("after detect: %v, a buffer of %d bytes, stored position %d; want %d bytes at 0", err, c.br.Size(), c.storedPos(), wholeBufSize)
	}
	if s := r.c.br.Size(); s != wholeBufSize {
		t.Errorf("gzip input: a buffer of %d bytes, want %d", s, wholeBufSize)
	}
	if c := cap(r.c.whole.out); c > wholeKeepOut {
		t.Errorf("after small members, an output buffer of %d bytes is kept", c)
	}
	if r.c.whole.n != 3 {
		t.Errorf("%d members inflated whole, want 3", r.c.whole.n)
	}
}
