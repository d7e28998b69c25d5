package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestLossTable checks each row of docs/FORMAT.md's table "Losses and
// what repair restores", without the originals and with them: the
// archive (two ingests, so two runs and two parts of the input-file
// table, with parity) loses one file or pair of files, repair runs, and
// the captures that restore afterwards, byte for byte, are counted
// against the row. Repair exits 0 exactly when everything restores.
// Small commits make runs of several segments (a rebuilt root must
// chain them as they were). Archives ingested with the proof and
// without it (the default) lay out their input-file tables apart.
func TestLossTable(t *testing.T) {
	for _, prove := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "prove"}[prove], func(t *testing.T) { testLossTable(t, prove) })
	}
}

func testLossTable(t *testing.T, prove bool) {
	root := t.TempDir()
	samples := filepath.Join("..", "..", "testdata", "samples")
	orig := filepath.Join(root, "orig")
	var files []string
	for i, name := range []string{"ota-lovescout24-20220120143355.warc.gz", "ota-lovescout24-20220125183141.warc.gz", "ota-lovescout24-20220325123217.warc.gz", "ota-lovescout24-20220425123217.warc.gz"} {
		sub := filepath.Join(orig, []string{"a", "b"}[i/2])
		os.MkdirAll(sub, 0o755)
		b, err := os.ReadFile(filepath.Join(samples, name))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(sub, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	want := originalRecords(t, files)
	src := filepath.Join(root, "src.bwa")
	for _, sub := range []string{"a", "b"} {
		if code, _, stderr := runCmd(t, "ingest", "-tables=false", "-commit", "16KiB", "-prove="+strconv.FormatBool(prove), src, filepath.Join(orig, sub)); code != exitOK {
			t.Fatalf("ingest exit %d: %s", code, stderr)
		}
	}
	if got, bad, err := restoreAll(t, src); err != nil || len(bad) > 0 || len(got) != len(want) || len(got) < 20 {
		t.Fatalf("pristine archive: %d of %d captures, %d bad, %v", len(got), len(want), len(bad), err)
	}
	packs, _ := filepath.Glob(filepath.Join(src, "*.pack"))
	idxs, _ := filepath.Glob(filepath.Join(src, "*.idx"))
	if len(packs) != 1 || len(idxs) == 0 {
		t.Fatalf("want one pack and an index: %v %v", packs, idxs)
	}
	// Every index, however many the commits' merges left.
	pk := filepath.Base(packs[0])
	var ixs, ixPars []string
	for _, p := range idxs {
		ixs, ixPars = append(ixs, filepath.Base(p)), append(ixPars, filepath.Base(p)+".par")
	}
	remove := func(names ...string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			for _, n := range names {
				if err := os.Remove(filepath.Join(dir, n)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// flip damages n bytes from the middle of each file: beyond parity
	// when n is past its burst.
	flip := func(n int, names ...string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			for _, name := range names {
				p := filepath.Join(dir, name)
				b, _ := os.ReadFile(p)
				at := len(b) / 3
				for i := at; i < min(len(b), at+n); i++ {
					b[i] ^= 0x5a
				}
				os.WriteFile(p, b, 0o644)
			}
		}
	}
	rows := []struct {
		name string
		loss func(t *testing.T, dir string)
		// all: every capture restores without the originals; with the
		// originals every capture always does.
		all bool
	}{
		{"pack flipped within parity", flip(3000, pk), true},
		{"pack damaged beyond parity", flip(20000, pk), false},
		{"pack deleted", remove(pk), false},
		{"index damaged beyond parity", flip(1<<20, ixs...), true},
		{"index deleted", remove(ixs...), true},
		{"pack sidecar deleted", remove(pk + ".par"), true},
		{"index sidecar deleted", remove(ixPars...), true},
		{"COMMIT deleted", remove("COMMIT"), true},
		{"COMMIT.copy deleted", remove("COMMIT.copy"), true},
		{"COMMIT and COMMIT.copy deleted", remove("COMMIT", "COMMIT.copy"), true},
		{"COMMIT and COMMIT.copy damaged", flip(8, "COMMIT", "COMMIT.copy"), true},
		{"LOCK deleted", remove("LOCK"), true},
	}
	for _, row := range rows {
		for _, withOriginals := range []bool{false, true} {
			name := row.name + map[bool]string{false: ", without the originals", true: ", with the originals"}[withOriginals]
			t.Run(name, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "a.bwa")
				sharedtest.CopyDir(t, src, dir)
				row.loss(t, dir)
				args := []string{"repair", dir}
				if withOriginals {
					args = append(args, files...)
				}
				before := dirListing(t, orig)
				code, out, stderr := runCmd(t, args...)
				if after := dirListing(t, orig); after != before {
					t.Fatalf("repair wrote outside the archive")
				}
				got, _, _ := restoreAll(t, dir)
				for k, b := range got {
					if !bytes.Equal(b, want[k]) {
						t.Fatalf("capture %v restores wrong bytes", k)
					}
				}
				all := withOriginals || row.all
				if all && (code != exitOK || len(got) != len(want)) {
					t.Fatalf("repair exit %d, %d of %d captures restore:\n%s%s", code, len(got), len(want), out, stderr)
				}
				if !all && (code == exitOK || len(got) == len(want)) {
					t.Fatalf("repair exit %d, %d of %d captures restore, without the originals of a loss beyond redundancy:\n%s%s", code, len(got), len(want), out, stderr)
				}
				if row.name == "COMMIT and COMMIT.copy deleted" {
					// The catalog root made again is the one lost, byte
					// for byte.
					if a, b := commitPayload(t, filepath.Join(src, "COMMIT")), commitPayload(t, filepath.Join(dir, "COMMIT")); !bytes.Equal(a, b) {
						t.Fatalf("rebuilt catalog root differs from the lost one (%d against %d bytes)", len(b), len(a))
					}
				}
				if all {
					if code, out, stderr := runCmd(t, "verify", dir); code != exitOK {
						t.Fatalf("verify after repair: exit %d: %s%s", code, out, stderr)
					}
					// And the archive takes a new ingest.
					if code, _, stderr := runCmd(t, "ingest", "-tables=false", dir, filepath.Join(samples, "ota-lovescout24-20220811183227.warc.gz")); code != exitOK {
						t.Fatalf("ingest after repair: exit %d: %s", code, stderr)
					}
				} else if !strings.Contains(stderr, "lost") {
					t.Fatalf("repair without the originals names nothing lost:\n%s", stderr)
				}
			})
		}
	}
}

// commitPayload is the payload of the commit file at path (docs/FORMAT.md
// "Commit file").
func commitPayload(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || len(b) < 36 {
		t.Fatalf("read %s: %v", path, err)
	}
	le := binary.LittleEndian
	p, i, l, s := le.Uint32(b[16:]), le.Uint32(b[20:]), le.Uint32(b[24:]), le.Uint32(b[28:])
	off := 32 + 16*(p+i) + s
	return b[off : off+l]
}
