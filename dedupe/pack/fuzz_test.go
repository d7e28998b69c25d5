package pack

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// goldenFiles returns the files of this build's committed golden archive,
// the fuzz seeds.
func goldenFiles(f *testing.F) map[string][]byte {
	goldenDir, _ := goldenDirs()
	files := map[string][]byte{}
	ents, err := os.ReadDir(goldenDir)
	if err != nil {
		f.Fatalf("read %s: %v", goldenDir, err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(goldenDir, e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

// exercise opens dir and reads everything it can; it must not panic, and
// what Get returns must match its id.
func exercise(t *testing.T, dir string) {
	s, err := Open(dir, Options{CacheBytes: 1 << 20})
	if err != nil {
		return
	}
	defer s.Close()
	var ids []ID
	s.Verify(func(id ID, err error) {
		if err == nil {
			ids = append(ids, id)
		}
	})
	for _, o := range ids {
		if b, _, err := s.Get(o); err == nil && s.Sum(b) != o {
			t.Fatalf("Get %s returned other bytes", o)
		}
		if r, err := s.Resolve(o[:RefLen]); err == nil && !bytes.HasPrefix(r[:], o[:RefLen]) {
			t.Fatalf("Resolve(%x) returned %s", o[:RefLen], r)
		}
	}
	if bs, err := s.GetMany(ids); err == nil {
		for i, b := range bs {
			if s.Sum(b) != ids[i] {
				t.Fatalf("GetMany returned other bytes for %s", ids[i])
			}
		}
	}
	s.Stats()
}

// withFile writes the golden archive to a temp dir with one file replaced.
func withFile(t *testing.T, files map[string][]byte, name string, data []byte) string {
	dir := t.TempDir()
	for n, b := range files {
		if n == name {
			b = data
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// FuzzOpen feeds arbitrary COMMIT files to Open.
func FuzzOpen(f *testing.F) {
	files := goldenFiles(f)
	f.Add(files[commitName])
	f.Add(files[commitName][:40])
	f.Add((&manifest{seq: 1, payload: []byte("x")}).encode())
	f.Fuzz(func(t *testing.T, commit []byte) {
		exercise(t, withFile(t, files, commitName, commit))
	})
}

// setSize rewrites the golden COMMIT so that it records size for the file
// named, so corrupted files of any length get past the size check.
func setSize(t *testing.T, commit []byte, name string, size int64) []byte {
	m, err := decodeManifest(commit, commitName)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.indexes {
		if indexName(m.indexes[i].num) == name {
			m.indexes[i].size = size
		}
	}
	for i := range m.packs {
		if packName(m.packs[i].num) == name {
			m.packs[i].size = max(size, packHeaderSize)
		}
	}
	return m.encode()
}

// FuzzIndex feeds arbitrary bytes as the newest index file.
func FuzzIndex(f *testing.F) {
	files := goldenFiles(f)
	name := indexName(2)
	f.Add(files[name])
	f.Add(files[indexName(1)])
	f.Add(files[name][:len(files[name])/2])
	f.Fuzz(func(t *testing.T, idx []byte) {
		commit := setSize(t, files[commitName], name, int64(len(idx)))
		dir := withFile(t, files, name, idx)
		os.WriteFile(filepath.Join(dir, commitName), commit, 0o644)
		exercise(t, dir)
	})
}

// FuzzPack feeds arbitrary bytes as a pack file (committed length = its size).
func FuzzPack(f *testing.F) {
	files := goldenFiles(f)
	name := packName(2)
	f.Add(files[name])
	f.Add(files[packName(1)])
	f.Fuzz(func(t *testing.T, pack []byte) {
		commit := setSize(t, files[commitName], name, int64(len(pack)))
		dir := withFile(t, files, name, pack)
		os.WriteFile(filepath.Join(dir, commitName), commit, 0o644)
		exercise(t, dir)
	})
}

// FuzzRoundTrip interprets its input as a script of adds, delta adds,
// flushes and commits; every committed object must restore exactly.
func FuzzRoundTrip(f *testing.F) {
	files := goldenFiles(f)
	for _, b := range files {
		if len(b) > 4096 {
			b = b[:4096]
		}
		f.Add(b)
	}
	f.Add([]byte("\x00\x05hello\x01\x06hello!\x02\x03\x00\x00"))
	f.Fuzz(func(t *testing.T, script []byte) {
		workers := 1
		if len(script) > 0 {
			workers = 1 + int(script[0]%3)
		}
		s, err := Create(filepath.Join(t.TempDir(), "f.bwa"), Options{noSync: true, Level: 1, FrameSize: 512, MaxChain: 2, MaxBases: 2, MaxDict: 1024, PackSize: 4096, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		w, err := s.Begin()
		if err != nil {
			t.Fatal(err)
		}
		want := map[ID][]byte{}
		var committed []ID
		var last []ID
		commits := 0
		for len(script) >= 2 {
			op, n := script[0], int(script[1])
			script = script[2:]
			switch op % 4 {
			case 0, 1:
				n = min(n, len(script))
				data := script[:n]
				script = script[n:]
				var id ID
				if op%4 == 1 && len(last) > 0 {
					id, _, err = w.AddDelta(Kind(1+op%8), data, last[int(op)%len(last)])
				} else {
					id, _, err = w.Add(Kind(1+op%8), data)
				}
				if err != nil {
					t.Fatal(err)
				}
				want[id] = bytes.Clone(data)
				last = append(last, id)
			case 2:
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
			case 3:
				if commits++; commits > 6 { // each commit costs file creation; keep execs fast
					continue
				}
				if err := w.Commit(binary.AppendUvarint(nil, uint64(n))); err != nil {
					t.Fatal(err)
				}
				committed = append(committed, last...)
			}
		}
		if err := w.Commit(nil); err != nil {
			t.Fatal(err)
		}
		committed = append(committed, last...)
		w.Close()
		s2, err := Open(s.Dir(), Options{MaxChain: 2})
		if err != nil {
			t.Fatal(err)
		}
		defer s2.Close()
		for _, id := range committed {
			got, _, err := s2.Get(id)
			if err != nil || !bytes.Equal(got, want[id]) {
				t.Fatalf("Get %s: %v", id, err)
			}
		}
		res, _ := s2.Verify(func(id ID, err error) {
			if err != nil {
				t.Errorf("verify: %v", err)
			}
		})
		// And the settings object of the first commit.
		if res.Objects != int64(len(want))+1 {
			t.Fatalf("verify saw %d objects, %d stored", res.Objects, len(want))
		}
	})
}
