package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/warcio"
)

// originalRecords reads every record of files as ingest reads them:
// header, block and trailer, by file (as given), offset and skip.
func originalRecords(t *testing.T, files []string) map[captureKey][]byte {
	t.Helper()
	out := map[captureKey][]byte{}
	_, err := warcio.Walk(context.Background(), files, warcio.WalkOptions{TempDir: t.TempDir()}, func(c *warcio.Capture) error {
		b, err := io.ReadAll(c.Body)
		if err != nil {
			return err
		}
		rec := append(append(bytes.Clone(c.RawHeader), b...), c.Trailer...)
		out[captureKey{c.File, c.Offset, c.SkipInMember}] = rec
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func dirListing(t *testing.T, dir string) string {
	t.Helper()
	var names []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			names = append(names, fmt.Sprintf("%s %d %v", p, fi.Size(), fi.ModTime()))
		}
		return nil
	})
	sort.Strings(names)
	return strings.Join(names, "\n")
}

// TestRepairReingest: a pack frame damaged beyond parity loses captures;
// repair without the originals names them and fails; repair with them
// restores every capture byte for byte and leaves an archive that
// verifies, writing nothing outside it; an original that was modified is
// refused, by name, and its captures stay lost.
func TestRepairReingest(t *testing.T) {
	root := t.TempDir()
	samples := filepath.Join("..", "..", "testdata", "samples")
	orig := filepath.Join(root, "orig")
	if err := os.MkdirAll(orig, 0o755); err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, name := range []string{"ota-lovescout24-20220120143355.warc.gz", "ota-lovescout24-20220125183141.warc.gz", "ota-lovescout24-20240501003256.warc.gz"} {
		b, err := os.ReadFile(filepath.Join(samples, name))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(orig, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	want := originalRecords(t, files)
	bwa := filepath.Join(root, "a.bwa")
	if code, _, stderr := runCmd(t, append([]string{"ingest", "-parity=false", "-tables=false", bwa}, files...)...); code != exitOK {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	got, bad, err := restoreAll(t, bwa)
	if err != nil || len(bad) > 0 || len(got) != len(want) || len(got) < 20 {
		t.Fatalf("pristine archive: %d of %d captures, %d bad, %v", len(got), len(want), len(bad), err)
	}
	// Damage beyond parity (there is none): bytes in the middle of the
	// pack.
	packs, _ := filepath.Glob(filepath.Join(bwa, "*.pack"))
	if len(packs) != 1 {
		t.Fatalf("packs: %v", packs)
	}
	b, _ := os.ReadFile(packs[0])
	for i := len(b) / 3; i < len(b)/3+100; i++ {
		b[i] ^= 0x55
	}
	os.WriteFile(packs[0], b, 0o644)
	bwa2 := filepath.Join(root, "b.bwa")
	sharedtest.CopyDir(t, bwa, bwa2)
	// Repair stopped between its two commits (the damage dropped, the
	// objects not yet put back): repair run again completes.
	bwa3 := filepath.Join(root, "c.bwa")
	sharedtest.CopyDir(t, bwa, bwa3)
	if _, err := pack.RebuildIndexes(bwa3, pack.Options{}); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := runCmd(t, append([]string{"repair", bwa3}, files...)...); code != exitOK || !strings.Contains(out, "restored: ") {
		t.Fatalf("repair after an interrupted one: exit %d:\n%s\n%s", code, out, stderr)
	}
	if got, bad, err := restoreAll(t, bwa3); err != nil || len(bad) > 0 || len(got) != len(want) {
		t.Fatalf("after an interrupted repair and a second one: %d of %d captures restore, %d bad, walk: %v", len(got), len(want), len(bad), err)
	}

	_, bad, _ = restoreAll(t, bwa)
	if len(bad) == 0 {
		t.Fatal("the damage lost no capture")
	}
	code, _, stderr := runCmd(t, "repair", bwa)
	if code == exitOK {
		t.Fatal("repair without the originals: exit 0 with captures lost")
	}
	for k := range bad {
		if !strings.Contains(stderr, fmt.Sprintf("from %s at offset %d", k.file, k.off)) {
			t.Fatalf("repair does not name lost capture %v:\n%s", k, stderr)
		}
	}

	// With the originals, nothing written outside the archive.
	tmp := filepath.Join(root, "tmp")
	os.MkdirAll(tmp, 0o755)
	t.Setenv("TMPDIR", tmp)
	before := dirListing(t, orig) + dirListing(t, tmp)
	code, out, stderr := runCmd(t, append([]string{"repair", bwa}, files...)...)
	if code != exitOK || !strings.Contains(out, "re-ingested: ") {
		t.Fatalf("repair with the originals: exit %d:\n%s\n%s", code, out, stderr)
	}
	// Everything came back: nothing is said lost, and each capture that
	// was is said restored.
	if strings.Contains(stderr, "lost") || strings.Contains(stderr, "damaged") {
		t.Fatalf("repair that restored everything says something is lost:\n%s", stderr)
	}
	for k := range bad {
		if !strings.Contains(out, fmt.Sprintf("from %s at offset %d\n", k.file, k.off)) {
			t.Fatalf("repair does not say capture %v was restored:\n%s", k, out)
		}
	}
	if after := dirListing(t, orig) + dirListing(t, tmp); after != before {
		t.Fatalf("repair wrote outside the archive:\n%s\nwas\n%s", after, before)
	}
	got, bad, err = restoreAll(t, bwa)
	if err != nil || len(bad) > 0 || len(got) != len(want) {
		t.Fatalf("after repair: %d of %d captures restore, %d bad (%v), walk: %v", len(got), len(want), len(bad), bad, err)
	}
	for k, rec := range want {
		if !bytes.Equal(got[k], rec) {
			t.Fatalf("capture %v restores %d bytes, not the original record's %d", k, len(got[k]), len(rec))
		}
	}
	if code, out, stderr := runCmd(t, "verify", bwa); code != exitOK {
		t.Fatalf("verify after repair: exit %d: %s %s", code, out, stderr)
	}
	if code, got, _ := runCmd(t, "cat", bwa, sampleURL); code != exitOK || got == "" {
		t.Fatalf("cat after repair: exit %d", code)
	}
	// Again: nothing to do.
	if code, out, stderr := runCmd(t, append([]string{"repair", bwa}, files...)...); code != exitOK || !strings.Contains(out, "nothing to repair") {
		t.Fatalf("second repair: exit %d:\n%s\n%s", code, out, stderr)
	}

	// A modified original is refused and named; its captures stay lost.
	mod := filepath.Join(root, "mod")
	sharedtest.CopyDir(t, orig, mod)
	changed := filepath.Join(mod, filepath.Base(files[0]))
	mb, _ := os.ReadFile(changed)
	mb[len(mb)/2] ^= 1
	os.WriteFile(changed, mb, 0o644)
	var modFiles []string
	for _, f := range files {
		modFiles = append(modFiles, filepath.Join(mod, filepath.Base(f)))
	}
	code, _, stderr = runCmd(t, append([]string{"repair", bwa2}, modFiles...)...)
	if code == exitOK || !strings.Contains(stderr, "refused original "+changed+": differs from the file ingested") {
		t.Fatalf("repair with a modified original: exit %d:\n%s", code, stderr)
	}
	n := 0
	for k := range want {
		if k.file == files[0] {
			n++
			if !strings.Contains(stderr, fmt.Sprintf("from %s at offset %d", k.file, k.off)) {
				t.Fatalf("capture %v of the refused original not named lost:\n%s", k, stderr)
			}
		}
	}
	if n == 0 {
		t.Fatal("no capture of the modified original")
	}
}

// TestRepairResumedSameBytes: a repair with the originals of an archive
// whose only pack was deleted (its settings object with it) makes
// several commits; stopped after the first (the indexes rebuilt without
// the lost pack) and run again, it must leave the very files one
// uninterrupted repair leaves. TestKillFaults kills it at random
// moments; this is the moment that once gave other bytes: the run
// again wrote the settings object in a commit of its own first.
func TestRepairResumedSameBytes(t *testing.T) {
	root := t.TempDir()
	samples := filepath.Join("..", "..", "testdata", "samples")
	var files []string
	for _, name := range []string{"ota-lovescout24-20220120143355.warc.gz", "ota-lovescout24-20220125183141.warc.gz", "ota-lovescout24-20240501003256.warc.gz"} {
		files = append(files, filepath.Join(samples, name))
	}
	start := filepath.Join(root, "start.bwa")
	if code, _, stderr := runCmd(t, append([]string{"ingest", "-tables=false", start}, files...)...); code != exitOK {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	packs, _ := filepath.Glob(filepath.Join(start, "*.pack"))
	if len(packs) != 1 {
		t.Fatalf("packs: %v", packs)
	}
	os.Remove(packs[0])

	one := filepath.Join(root, "one.bwa")
	sharedtest.CopyDir(t, start, one)
	if code, out, stderr := runCmd(t, append([]string{"repair", one}, files...)...); code != exitOK || !strings.Contains(out, "re-ingested: ") {
		t.Fatalf("repair: exit %d:\n%s\n%s", code, out, stderr)
	}
	two := filepath.Join(root, "two.bwa")
	sharedtest.CopyDir(t, start, two)
	if _, err := pack.RepairFrames(two, pack.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := pack.RebuildIndexes(two, pack.Options{}); err != nil {
		t.Fatal(err)
	}
	if commitSeq(two) <= commitSeq(start) {
		t.Fatalf("the first step committed nothing (generation %d, was %d)", commitSeq(two), commitSeq(start))
	}
	if code, out, stderr := runCmd(t, append([]string{"repair", two}, files...)...); code != exitOK {
		t.Fatalf("repair run again: exit %d:\n%s\n%s", code, out, stderr)
	}
	if d := diffArchives(sharedtest.ArchiveFiles(t, two), sharedtest.ArchiveFiles(t, one)); len(d) > 0 {
		t.Fatalf("a repair stopped after its first commit and run again differs from one run: %s", strings.Join(d, ", "))
	}
	if code, out, stderr := runCmd(t, "verify", two); code != exitOK {
		t.Fatalf("verify: exit %d: %s %s", code, out, stderr)
	}
}

// TestRepairLostSegment: without parity, a catalog segment's frame is
// damaged, so its captures cannot even be named. Repair without the
// originals names its key range and the input files that held it; with
// them, it re-ingests the records of that range, and every capture
// restores byte for byte and the archive verifies.
func TestRepairLostSegment(t *testing.T) {
	root := t.TempDir()
	orig := filepath.Join(root, "orig")
	sharedtest.CopyDir(t, filepath.Join("..", "..", "testdata", "samples"), orig)
	files, _ := filepath.Glob(filepath.Join(orig, "ota-lovescout24-*.warc.gz"))
	if len(files) < 3 {
		t.Fatalf("samples: %v", files)
	}
	want := originalRecords(t, files)
	bwa := filepath.Join(root, "a.bwa")
	// Two ingests, two runs: the lost segment's key range holds records
	// of the other run too, which must not come back twice.
	for _, in := range [][]string{files[:2], files[2:]} {
		if code, _, stderr := runCmd(t, append([]string{"ingest", "-parity=false", "-tables=false", bwa}, in...)...); code != exitOK {
			t.Fatalf("ingest exit %d: %s", code, stderr)
		}
	}
	packs, _ := filepath.Glob(filepath.Join(bwa, "*.pack"))
	if len(packs) != 1 {
		t.Fatalf("packs: %v", packs)
	}
	// The frame whose damage stops the catalog walk: a segment's.
	pb, _ := os.ReadFile(packs[0])
	var starts []int
	for i := 0; ; {
		j := bytes.Index(pb[i:], []byte("BWFR"))
		if j < 0 {
			break
		}
		starts = append(starts, i+j)
		i += j + 4
	}
	starts = append(starts, len(pb))
	try := filepath.Join(root, "try.bwa")
	found := false
	for k := len(starts) - 2; k >= 0 && !found; k-- {
		os.RemoveAll(try)
		sharedtest.CopyDir(t, bwa, try)
		b := bytes.Clone(pb)
		mid := (starts[k] + starts[k+1]) / 2
		for i := mid; i < mid+16 && i < starts[k+1]; i++ {
			b[i] ^= 0x5a
		}
		os.WriteFile(filepath.Join(try, filepath.Base(packs[0])), b, 0o644)
		if _, _, err := restoreAll(t, try); err != nil {
			found = true
		}
	}
	if !found {
		t.Fatal("no frame whose damage stops the catalog walk")
	}
	damaged := filepath.Join(root, "damaged.bwa")
	sharedtest.CopyDir(t, try, damaged)

	code, _, stderr := runCmd(t, "repair", try)
	if code == exitOK || !strings.Contains(stderr, "lost: catalog segment") || !strings.Contains(stderr, "keys ") {
		t.Fatalf("repair without the originals: exit %d:\n%s", code, stderr)
	}
	named := 0
	for _, f := range files {
		if strings.Contains(stderr, filepath.Base(f)) {
			named++
		}
	}
	if named == 0 {
		t.Fatalf("repair names no input file that held the lost segment:\n%s", stderr)
	}

	code, out, stderr := runCmd(t, append([]string{"repair", damaged}, files...)...)
	if code != exitOK || !strings.Contains(out, "re-ingested: catalog segment") {
		t.Fatalf("repair with the originals: exit %d:\n%s\n%s", code, out, stderr)
	}
	got, bad, err := restoreAll(t, damaged)
	if err != nil || len(bad) > 0 || len(got) != len(want) {
		t.Fatalf("after repair: %d of %d captures restore, %d bad (%v), walk: %v", len(got), len(want), len(bad), bad, err)
	}
	for k, rec := range want {
		if !bytes.Equal(got[k], rec) {
			t.Fatalf("capture %v restores %d bytes, not the original record's %d", k, len(got[k]), len(rec))
		}
	}
	if n := countVersions(t, damaged); n != len(want) {
		t.Fatalf("after repair the catalog holds %d captures, want %d (none twice)", n, len(want))
	}
	if code, out, stderr := runCmd(t, "verify", damaged); code != exitOK {
		t.Fatalf("verify after repair: exit %d: %s %s", code, out, stderr)
	}
	if code, out, stderr := runCmd(t, append([]string{"repair", damaged}, files...)...); code != exitOK || !strings.Contains(out, "nothing to repair") {
		t.Fatalf("second repair: exit %d:\n%s\n%s", code, out, stderr)
	}
}

// countVersions counts the versions of the archive's catalog (gaps
// between records included).
func countVersions(t *testing.T, dir string) int {
	t.Helper()
	a, err := dedupe.Open(dir, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	n := 0
	if err := a.Walk(func(u dedupe.URLVersions) error { n += len(u.Versions); return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRepairFileTable: the input-file table lives in the packs (catalog
// version 8). Its part damaged beyond parity: verify names it, repair
// without the originals names the files whose rows are lost, and with
// them rebuilds the rows, after which the archive verifies (every input
// file restores exactly again).
func TestRepairFileTable(t *testing.T) {
	samples := filepath.Join("..", "..", "testdata", "samples")
	inputs := []string{
		filepath.Join(samples, "ota-lovescout24-20220120143355.warc.gz"),
		filepath.Join(samples, "ota-lovescout24-20220125183141.warc.gz"),
	}
	arch := filepath.Join(t.TempDir(), "a.bwa")
	if code, _, stderr := runCmd(t, append([]string{"ingest", "-tables=false", "-parity=false", arch}, inputs...)...); code != exitOK {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	a, err := dedupe.Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := append([]dedupe.InputFile(nil), a.Files()...)
	parts := a.FileTableParts()
	if len(parts) != 1 || len(want) != 2 {
		t.Fatalf("%d parts, %d rows", len(parts), len(want))
	}
	file, off, n, err := a.Store().Locate(parts[0])
	a.Close()
	if err != nil {
		t.Fatal(err)
	}
	flipAt(t, filepath.Join(arch, file), off+int64(n)/2, 8)
	if code, _, stderr := runCmd(t, "verify", arch); code == exitOK || !strings.Contains(stderr, "input-file table") || !strings.Contains(stderr, "repair "+arch+" ORIGINAL-INPUTS") {
		t.Fatalf("verify of a damaged input-file table: exit %d: %s", code, stderr)
	}
	code, _, stderr := runCmd(t, "repair", arch)
	if code == exitOK || !strings.Contains(stderr, "lost: input-file table part") ||
		!strings.Contains(stderr, filepath.Base(inputs[0])) || !strings.Contains(stderr, filepath.Base(inputs[1])) {
		t.Fatalf("repair without the originals: exit %d, want the part and its two files named: %s", code, stderr)
	}
	code, stdout, stderr := runCmd(t, append([]string{"repair", arch}, inputs...)...)
	if code != exitOK || !strings.Contains(stdout, "rows rebuilt") {
		t.Fatalf("repair with the originals: exit %d: %s %s", code, stdout, stderr)
	}
	if code, stdout, stderr := runCmd(t, "verify", arch); code != exitOK || !strings.Contains(stdout, "2 input files rebuilt exactly") {
		t.Fatalf("verify after repair: exit %d: %s %s", code, stdout, stderr)
	}
	a, err = dedupe.Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	got := a.Files()
	if len(got) != 2 || got[0].Name != want[0].Name || got[0].SHA256 != want[0].SHA256 || got[1].StreamSHA256 != want[1].StreamSHA256 || got[1].Records != want[1].Records {
		t.Errorf("rows after repair %+v, want %+v", got, want)
	}
}

// TestDamageHint: a command that fails on damage says how to salvage the
// archive, not only which file and offset are damaged; verify says so
// when it finds problems too, and says an input file whose records are
// lost is not rebuilt rather than that it does not match. An error that
// is not damage gets no hint.
func TestDamageHint(t *testing.T) {
	root := t.TempDir()
	sample := filepath.Join("..", "..", "testdata", "samples", "ota-lovescout24-20220120143355.warc.gz")
	bwa := filepath.Join(root, "a.bwa")
	if code, _, stderr := runCmd(t, "ingest", "-parity=false", "-tables=false", bwa, sample); code != exitOK {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "cat", bwa, "http://nowhere.example/"); code != exitFailure || strings.Contains(stderr, "blockwarc repair") {
		t.Errorf("cat of a URL the archive lacks: exit %d, a repair hint:\n%s", code, stderr)
	}
	idx, _ := filepath.Glob(filepath.Join(bwa, "*.idx"))
	if len(idx) != 1 {
		t.Fatalf("indexes: %v", idx)
	}
	// A byte of the first entry (right after the 16-byte header in an
	// index without a fan-out, in the fan-out otherwise): both are
	// checked when the index is opened.
	flipAt(t, idx[0], 20, 1)
	for _, args := range [][]string{
		{"verify", bwa},
		{"cat", bwa, "http://127.0.0.1:8103/LoveScout24/Privacy%20Policy.html"},
		{"ingest", "-parity=false", "-tables=false", bwa, filepath.Join("..", "..", "testdata", "samples", "ota-lovescout24-20220125183141.warc.gz")},
	} {
		code, _, stderr := runCmd(t, args...)
		if code != exitFailure || !strings.Contains(stderr, "corrupt "+idx[0]) || !strings.Contains(stderr, "'blockwarc repair "+bwa+"'") {
			t.Errorf("%s on a damaged index: exit %d, want the file named and how to salvage it:\n%s", args[0], code, stderr)
		}
	}
	// Repaired, then a damaged pack: verify names the lost captures and
	// says how to salvage them.
	if code, _, stderr := runCmd(t, "repair", bwa); code != exitOK {
		t.Fatalf("repair of the index: exit %d: %s", code, stderr)
	}
	packs, _ := filepath.Glob(filepath.Join(bwa, "*.pack"))
	if len(packs) == 0 {
		t.Fatal("no pack")
	}
	flipBytes(t, packs[0], 1.0/3, 64)
	code, _, stderr := runCmd(t, "verify", bwa)
	if code != exitFailure || !strings.Contains(stderr, "capture(s) lost") || !strings.Contains(stderr, "ORIGINAL-INPUTS...' restores the lost captures") {
		t.Errorf("verify of a damaged pack: exit %d, want the lost captures and how to restore them:\n%s", code, stderr)
	}
	// The input file is not rebuilt for want of records, not "does not
	// match".
	if want := "input file ota-lovescout24-20220120143355.warc.gz: not rebuilt: 8 of its records do not restore"; !strings.Contains(stderr, want) || strings.Contains(stderr, "does not match") {
		t.Errorf("verify of a damaged pack: want %q, and no mismatch:\n%s", want, stderr)
	}
}

// TestRepairSharded: repair takes a sharded archive: it rewrites a
// damaged manifest from its copy and repairs each shard, re-ingesting
// its lost captures from the originals; an intact one has nothing to
// repair. (Repair refused sharded archives: "not a blockwarc archive".)
func TestRepairSharded(t *testing.T) {
	samples := filepath.Join("..", "..", "testdata", "samples")
	files, err := filepath.Glob(filepath.Join(samples, "*.warc.gz"))
	if err != nil || len(files) < 4 {
		t.Fatalf("samples: %v %v", files, err)
	}
	files = files[:4]
	bwa := filepath.Join(t.TempDir(), "a.bwa")
	if code, _, stderr := runCmd(t, append([]string{"ingest", "-shards", "2", "-parity=false", "-tables=false", bwa}, files...)...); code != exitOK {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	shards, _ := filepath.Glob(filepath.Join(bwa, "shard-*"))
	if len(shards) != 2 {
		t.Fatalf("shards: %v", shards)
	}
	if code, out, stderr := runCmd(t, "repair", bwa); code != exitOK || !strings.Contains(out, "nothing to repair") {
		t.Fatalf("repair of an intact sharded archive: exit %d:\n%s%s", code, out, stderr)
	}
	want, err := os.ReadFile(filepath.Join(bwa, "SHARDS"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(bwa, "SHARDS"), want[:len(want)-3], 0o644)
	packs, _ := filepath.Glob(filepath.Join(shards[1], "*.pack"))
	if len(packs) != 1 {
		t.Fatalf("packs of %s: %v", shards[1], packs)
	}
	flipBytes(t, packs[0], 1.0/3, 64)
	if code, _, stderr := runCmd(t, "verify", bwa); code != exitFailure || !strings.Contains(stderr, "capture(s) lost") {
		t.Fatalf("verify of the damaged shard: exit %d, want captures lost:\n%s", code, stderr)
	}
	code, out, stderr := runCmd(t, append([]string{"repair", bwa}, files...)...)
	if code != exitOK || !strings.Contains(out, "repaired: shard manifest rewritten") || !strings.Contains(out, "restored: ") {
		t.Fatalf("repair with the originals: exit %d:\n%s%s", code, out, stderr)
	}
	for _, name := range []string{"SHARDS", "SHARDS.copy"} {
		if got, err := os.ReadFile(filepath.Join(bwa, name)); err != nil || string(got) != string(want) {
			t.Errorf("%s after repair: %v, or not the manifest written at ingest", name, err)
		}
	}
	if code, _, stderr := runCmd(t, "verify", bwa); code != exitOK {
		t.Fatalf("verify after repair: exit %d:\n%s", code, stderr)
	}
}

// flipBytes damages n bytes of the file at path from the fraction at of
// its length.
func flipBytes(t *testing.T, path string, at float64, n int) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	flipAt(t, path, int64(float64(fi.Size())*at), n)
}

// flipAt damages n bytes of the file at path from offset off.
func flipAt(t *testing.T, path string, off int64, n int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := off; i < min(off+int64(n), int64(len(b))); i++ {
		b[i] ^= 0xa5
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
