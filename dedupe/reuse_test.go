package dedupe

import (
	"bytes"
	"context"
	"crypto/sha1"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/hdrcodec"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/warcio"
)

// TestReadDigestsReused ingests every interop file (damaged, clipped and
// truncated records included) and a corpus site's first crawls, and checks
// each SHA-1 the reader computed that a header context takes instead of
// hashing again against the SHA-1 of the bytes it stands for.
func TestReadDigestsReused(t *testing.T) {
	all, err := expandInputs([]string{sharedtest.Interop(t)})
	if err != nil {
		t.Fatal(err)
	}
	var inputs []string
	for _, p := range all {
		// The odd files are small; the few large ones add time, not cases.
		if fi, err := os.Stat(p); err == nil && fi.Size() < 300<<10 {
			inputs = append(inputs, p)
		}
	}
	files := sharedtest.CorpusFiles(t, "ota-mektoube")
	inputs = append(inputs, files[:min(len(files), 2)]...)
	var used, wrong int
	testReadDigest = func(data, sum []byte) {
		used++
		if s := sha1.Sum(data); !bytes.Equal(s[:], sum) {
			wrong++
		}
	}
	defer func() { testReadDigest = func(data, sha1 []byte) {} }()
	opts := testOpts()
	opts.Workers = 1 // the hook counts without a lock
	arch := filepath.Join(t.TempDir(), "a.bwa")
	if _, err := Ingest(context.Background(), arch, inputs, opts); err != nil {
		t.Fatal(err)
	}
	if used < 100 {
		t.Fatalf("the reader's digests were taken %d times: the test needs them taken", used)
	}
	if wrong > 0 {
		t.Errorf("%d of %d digests taken from the reader are not the SHA-1 of the bytes they stand for", wrong, used)
	}
}

// samePageDumps writes captures of one URL: the page three times, then
// changed, then twice more as changed (identical payloads in a row are
// what the reuse takes), one file a capture, the third chunked.
func samePageDumps(t *testing.T, dir string) []string {
	t.Helper()
	t0 := time.Date(2021, 3, 1, 0, 0, 0, 0, time.UTC)
	bodies := []string{"same", "same", "same", "changed", "changed", "changed"}
	var files []string
	for i, b := range bodies {
		body := []byte(fmt.Sprintf(page, b))
		f := filepath.Join(dir, fmt.Sprintf("c%d.warc", i))
		writeFile(t, f, warcRecord("response", "http://example.com/p", t0.Add(time.Duration(i)*24*time.Hour), i+1, httpResponse("text/html", body, i == 2)))
		files = append(files, f)
	}
	// The same payload bytes, gzip-coded page then the gzip bytes sent
	// as they are: equal payloads under other HTTP facts, which decide
	// what is partitioned.
	gz := gzipOf(fmt.Sprintf(page, "coded"))
	for i, r := range [][]byte{codedResponse("gzip", gz, false), httpResponse("text/html; charset=utf-8", gz, false)} {
		f := filepath.Join(dir, fmt.Sprintf("g%d.warc", i))
		writeFile(t, f, warcRecord("response", "http://example.com/g", t0.Add(time.Duration(i)*24*time.Hour), 10+i, r))
		files = append(files, f)
	}
	return files
}

// TestSamePageReused: a capture whose payload is the URL's previous one
// takes that capture's partition instead of partitioning again, and the
// archive is byte for byte the one written without the reuse. A
// signature that matches other bytes (a SHA-1 collision, forced here)
// must not store the wrong page: the record check refuses the previous
// page and the record is kept whole.
func TestSamePageReused(t *testing.T) {
	dir := t.TempDir()
	files := samePageDumps(t, dir)
	off, _, n := ingestSame(t, filepath.Join(dir, "off.bwa"), files, func(a, b *docSig) bool { return false })
	if n != 0 {
		t.Fatal("reuse counted with the reuse off")
	}
	on, _, n := ingestSame(t, filepath.Join(dir, "on.bwa"), files, (*docSig).same)
	// c1 matches c0; c2 is chunked (other HTTP facts); c3 changed; c4
	// and c5 match; g1 has g0's payload bytes without its coding.
	if n != 3 {
		t.Errorf("%d captures reused the previous partition, want 3", n)
	}
	sameFiles(t, "with the reuse", sharedtest.ArchiveFiles(t, on), sharedtest.ArchiveFiles(t, off))

	// Every capture taken as its predecessor: the changed ones must be
	// refused by the check and restore as given.
	coll, st, n := ingestSame(t, filepath.Join(dir, "collide.bwa"), files, func(a, b *docSig) bool { return a != nil && b != nil })
	if n == 0 {
		t.Fatal("the forced collision was never tried")
	}
	if st.RawRecords == 0 {
		t.Errorf("no record kept whole under forced collisions (%+v): the changed page was stored as the old one", st)
	}
	ar, err := Open(coll, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ar.Close()
	if n := checkRoundTrip(t, ar); n != len(files) {
		t.Errorf("restored %d records, want %d", n, len(files))
	}
}

// TestSamePageReusedCorpus: on real pages the adaptive partition, given
// the previous page as Prior, keeps it; reuse must give that partition
// back. The first crawls of every corpus site in one ingest, with the
// reuse and without it: the same archive, byte for byte.
func TestSamePageReusedCorpus(t *testing.T) {
	var files []string
	for _, site := range corpusSites {
		f := sharedtest.CorpusFiles(t, site)
		files = append(files, f[:min(len(f), 12)]...)
	}
	dir := t.TempDir()
	off, _, _ := ingestSame(t, filepath.Join(dir, "off.bwa"), files, func(a, b *docSig) bool { return false })
	on, st, n := ingestSame(t, filepath.Join(dir, "on.bwa"), files, (*docSig).same)
	if n < 10 {
		t.Fatalf("%d captures reused the previous partition: the test needs unchanged pages", n)
	}
	if st.RawRecords != 0 {
		t.Errorf("%d records kept whole with the reuse", st.RawRecords)
	}
	sameFiles(t, "with the reuse", sharedtest.ArchiveFiles(t, on), sharedtest.ArchiveFiles(t, off))
}

// ingestSame ingests files into arch with same deciding the reuse, and
// returns how many captures it reused.
func ingestSame(t *testing.T, arch string, files []string, same func(a, b *docSig) bool) (string, Stats, int) {
	t.Helper()
	var n int
	testSameDoc = func(a, b *docSig) bool {
		ok := same(a, b)
		if ok {
			n++
		}
		return ok
	}
	defer func() { testSameDoc = (*docSig).same }()
	opts := testOpts()
	opts.Workers = 1 // the count takes no lock
	st, err := Ingest(context.Background(), arch, files, opts)
	if err != nil {
		t.Fatal(err)
	}
	return arch, st, n
}

// TestReadDigestsGate: a header context takes the reader's digests only
// for bytes of the lengths they cover; otherwise it leaves the SHA-1 to
// be computed from the bytes (nil).
func TestReadDigestsGate(t *testing.T) {
	block := []byte("HTTP/1.1 200 OK\r\n\r\nbody")
	httpLen := len("HTTP/1.1 200 OK\r\n\r\n")
	bogus := bytes.Repeat([]byte{7}, 20)
	for _, c := range []struct {
		name         string
		bLen, pLen   int64
		wantB, wantP []byte
	}{
		{"lengths right", int64(len(block)), int64(len(block) - httpLen), bogus, bogus},
		{"block longer", int64(len(block)) + 1, int64(len(block) - httpLen), nil, bogus},
		{"payload shorter", int64(len(block)), int64(len(block)-httpLen) - 1, bogus, nil},
	} {
		v := &Version{read: &warcio.Digests{BlockSHA1: bogus, BlockLen: c.bLen, PayloadSHA1: bogus, PayloadLen: c.pLen}}
		ctx := warcContext(v, block, httpLen)
		hc := httpContext(v, block[httpLen:])
		if got := ctx.Block.SHA1; !bytes.Equal(got, c.wantB) {
			t.Errorf("%s: block SHA-1 %x, want %x", c.name, got, c.wantB)
		}
		for _, p := range []hdrcodec.Digests{ctx.Payload, hc.Payload} {
			if got := p.SHA1; !bytes.Equal(got, c.wantP) {
				t.Errorf("%s: payload SHA-1 %x, want %x", c.name, got, c.wantP)
			}
		}
	}
}
