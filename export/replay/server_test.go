package replay

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestServeKeptHeaders: an id_ fetch answers the record's block as
// Restore gives it the first time (header decoded), the second time (its
// WARC header kept, the block restored with RestoreKnown) and when the
// kept header is wrong (then the record is restored whole, and the right
// header kept in its place).
func TestServeKeptHeaders(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(sharedtest.RepoRoot(t), "testdata", "samples", "*.warc.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("sample crawls missing under testdata/samples")
	}
	arch := filepath.Join(t.TempDir(), "a.bwa")
	if _, err := dedupe.Ingest(context.Background(), arch, files[:1], dedupe.Options{CommitBytes: 1 << 20, MemLimit: 64 << 20}); err != nil {
		t.Fatal(err)
	}
	a, err := dedupe.Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	// The blocks each id_ URL may answer (captures of one URL in one
	// second share it), and the WARC header of each record.
	blocks := map[string][][]byte{}
	headers := map[[2]string][]byte{}
	err = a.Walk(func(u dedupe.URLVersions) error {
		for i := range u.Versions {
			v := &u.Versions[i]
			if v.Type != "response" || v.Date.IsZero() {
				continue
			}
			p, err := a.Restore(v)
			if err != nil {
				return err
			}
			uri := "/web/" + timestamp14(v.Date) + "id_/" + v.TargetURI
			blocks[uri] = append(blocks[uri], p.Block)
			headers[[2]string{v.File, v.RecordID}] = p.WARCHeader
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) == 0 {
		t.Fatal("no response record in the sample")
	}
	s := &Server{Dirs: []string{arch}, Error: func(err error) { t.Errorf("server: %v", err) }}
	defer s.Close()
	fetch := func(round string) {
		t.Helper()
		for uri, bs := range blocks {
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, uri, nil))
			if rec.Code != http.StatusOK {
				t.Fatalf("%s: %s: status %d", round, uri, rec.Code)
			}
			ok := false
			for _, b := range bs {
				ok = ok || bytes.Equal(rec.Body.Bytes(), b)
			}
			if !ok {
				t.Errorf("%s: %s: %d bytes, not the record's block", round, uri, rec.Body.Len())
			}
		}
	}
	fetch("first")
	s.hmu.Lock()
	kept := len(s.headers)
	s.hmu.Unlock()
	if kept == 0 {
		t.Fatal("no WARC header kept after the first fetches")
	}
	fetch("kept")
	s.hmu.Lock()
	for k, h := range s.headers {
		bad := bytes.Clone(h.WARC)
		bad[len(bad)/2] ^= 1
		s.headers[k] = dedupe.Headers{WARC: bad, HTTP: h.HTTP}
	}
	s.hmu.Unlock()
	fetch("wrong")
	s.hmu.Lock()
	defer s.hmu.Unlock()
	if len(s.headers) != kept {
		t.Errorf("%d headers kept after the wrong ones were fetched, want %d", len(s.headers), kept)
	}
	for k, h := range s.headers {
		if !bytes.Equal(h.WARC, headers[[2]string{k.file, k.id}]) {
			t.Errorf("%s at %d: a wrong header is still kept", k.file, k.off)
		}
	}
}
